"""Read display HTML back with ``html.parser``: a small element tree, and the checks every display must pass.

Tests use it to assert structure and numbers (rows, cells, counts) rather
than substrings, and to prove the markup stays inside what an untrusted
notebook keeps: no script/style/svg/img/iframe, no event-handler attribute,
no URL other than an in-page ``#anchor``, and every tag closed.
:func:`contrast_failures` computes the contrast of every piece of text
against what it sits on, in both JupyterLab themes, trusted and untrusted.
"""
from html.parser import HTMLParser

from cellkit.display import contrast as _contrast

FORBIDDEN_TAGS = {"script", "style", "svg", "img", "iframe", "object", "embed", "link", "meta", "base", "form",
                  "input"}
VOID_TAGS = {"br", "hr", "wbr"}


class Element:
    def __init__(self, tag, attrs, parent=None):
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children = []  # Element or str

    def text(self):
        """All text below this element, concatenated."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self, tag=None):
        """This element and every element below it (depth first), optionally of one tag."""
        if tag is None or self.tag == tag:
            yield self
        for c in self.children:
            if isinstance(c, Element):
                yield from c.iter(tag)

    def find_all(self, tag):
        return [e for e in self.iter(tag) if e is not self]

    def child_elements(self, tag=None):
        return [c for c in self.children if isinstance(c, Element) and (tag is None or c.tag == tag)]

    def style(self):
        return self.attrs.get("style") or ""

    def __repr__(self):
        return f"<{self.tag} {self.attrs}>"


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.current = self.root
        self.errors = []

    def handle_starttag(self, tag, attrs):
        element = Element(tag, attrs, self.current)
        self.current.children.append(element)
        if tag not in VOID_TAGS:
            self.current = element

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Element(tag, attrs, self.current))

    def handle_endtag(self, tag):
        if tag in VOID_TAGS:
            return
        if self.current.tag != tag:
            self.errors.append(f"</{tag}> closes <{self.current.tag}>")
            return
        self.current = self.current.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(markup):
    """The element tree of ``markup``; raises AssertionError if tags do not nest properly."""
    builder = _Builder()
    builder.feed(markup)
    builder.close()
    assert not builder.errors, builder.errors
    assert builder.current is builder.root, f"unclosed <{builder.current.tag}>"
    return builder.root


# The inline CSS properties JupyterLab keeps in an untrusted notebook (its sanitizer's allow-list);
# values are filtered too: no var(), calc() or currentColor survives.
SANITIZER_PROPERTIES = set("""
background background-color border border-bottom border-bottom-color border-collapse border-color border-left
border-left-color border-radius border-right border-spacing border-style border-top border-top-color border-width
bottom box-sizing color cursor display float font font-family font-size font-style font-weight height left
letter-spacing line-height list-style list-style-position list-style-type margin margin-bottom margin-left
margin-right margin-top max-height max-width min-height min-width opacity overflow overflow-x overflow-y padding
padding-bottom padding-left padding-right padding-top position right table-layout text-align text-decoration
text-overflow top vertical-align visibility white-space width word-break z-index
""".split())
_DISPLAY_VALUES = {"inline", "block", "inline-block", "list-item", "table", "table-cell", "table-row", "none"}


def assert_sanitizer_proof(style):
    """Every declaration of ``style`` is one JupyterLab's untrusted-notebook sanitizer keeps, or a var()
    twin of one declared before it (so dropping the twin leaves a working plain value)."""
    seen = set()
    for declaration in filter(None, (d.strip() for d in style.split(";"))):
        prop, _, value = (part.strip() for part in declaration.partition(":"))
        low = value.lower()
        assert prop in SANITIZER_PROPERTIES, f"{prop!r} is stripped by the untrusted-notebook sanitizer: {style}"
        assert "calc(" not in low and "currentcolor" not in low and "inherit" not in low, declaration
        if "var(" in low:
            shorthand = prop[: -len("-color")] if prop.endswith("-color") else prop
            assert prop in seen or shorthand in seen, f"{declaration!r} has no plain value before it: {style}"
        if prop == "display":
            assert low in _DISPLAY_VALUES, declaration
        seen.add(prop)


def assert_safe(markup, images=False):
    """The checks every display passes: nested tags, nothing an untrusted notebook strips, nothing active.

    ``images=True`` allows ``<img>`` whose source is an inline SVG (``data:image/svg+xml;base64,``):
    the sanitizer keeps it and nothing is fetched (the graphs' drawing).
    """
    root = parse(markup)
    for element in root.iter():
        if element.attrs.get("style"):
            assert_sanitizer_proof(element.attrs["style"])
        if element.tag == "img" and images:
            assert set(element.attrs) <= {"src", "alt", "style"}, element.attrs
            assert element.attrs["src"].startswith("data:image/svg+xml;base64,"), element.attrs["src"][:60]
            continue
        assert element.tag not in FORBIDDEN_TAGS, f"<{element.tag}> in display HTML"
        for name, value in element.attrs.items():
            assert not name.startswith("on"), f"event attribute {name}={value!r}"
            assert name in ("style", "title", "open", "colspan", "id", "href"), f"unexpected attribute {name}"
            low = (value or "").lower()
            if name == "href":
                assert element.tag == "a" and value.startswith("#"), f"only in-page links: {value!r}"
            assert "url(" not in low and "http:" not in low and "https:" not in low and "javascript:" not in low
    return root


def parameter_table_parts(root):
    """The parameter tables in an element tree: ``[(header texts, [row field texts], footer text)]``.

    A table is a div of divs: a header line of fields, one div per row (a line of fields, then
    notes: NaN/Inf counts, aliases), maybe a "… more not shown" line, and a footer.
    """
    found = []
    for div in root.iter("div"):
        children = div.child_elements("div")
        if len(children) < 2:
            continue
        head = children[0]
        fields = head.child_elements("span")
        if not fields or [f.text() for f in fields[:2]] != ["#", "name"]:
            continue
        heads = [f.text() for f in fields]
        rows = []
        for r in children[1:-1]:
            parts = r.child_elements("div")
            if not parts:
                rows.append([r.text()])
                continue
            texts = [f.text() for f in parts[0].child_elements("span")]
            notes = " ".join(p.text() for p in parts[1:])
            if notes:
                texts[1] = texts[1] + " " + notes
            rows.append(texts)
        found.append((heads, rows, children[-1].text()))
    return found


# ---------------------------------------------------------------------------- contrast
_INHERITED_NONE = object()


def _own(style, prop, trusted):
    value = _contrast.effective_declaration(style, prop, trusted)
    return value


def _background_of(style, trusted):
    for prop in ("background-color", "background"):
        value = _own(style, prop, trusted)
        if value is not None:
            return value
    return None


def contrast_failures(markup, minimum=_contrast.MINIMUM):
    """Every piece of text whose contrast is below ``minimum``: ``[(theme, trusted, ratio, text)]``.

    Walks the element tree as a browser would paint it: text colour is
    inherited (the theme's output text colour at the top), backgrounds are
    the nearest painted ancestor's (translucent ones blended over what is
    below), and ``opacity`` fades an element and everything in it.  Each of
    the four cases -- light / dark theme, trusted (``var()`` resolved) /
    untrusted (``var()`` dropped) -- is checked.
    """
    root = parse(markup)
    failures = []
    for theme in ("light", "dark"):
        page = _contrast.parse_colour(_contrast.THEMES[theme]["page"])
        text = _contrast.parse_colour(_contrast.THEMES[theme]["text"])
        for trusted in (True, False):
            _walk(root, theme, trusted, text, page, 1.0, failures, minimum)
    return failures


def _walk(element, theme, trusted, colour, background, opacity, failures, minimum):
    style = element.style() if element.tag != "#root" else ""
    value = _own(style, "color", trusted)
    if value is not None:
        resolved = _contrast.resolve_colour(value, theme)
        if resolved is not None:
            colour = resolved
    own_opacity = _own(style, "opacity", trusted)
    if own_opacity is not None:
        try:
            opacity *= float(own_opacity)
        except ValueError:
            pass
    painted = _background_of(style, trusted)
    if painted is not None:
        fill = _contrast.resolve_colour(painted, theme)
        if fill is not None:
            r, g, b, a = fill
            background = _contrast.blend((r, g, b, a * opacity), background)
    for child in element.children:
        if isinstance(child, Element):
            _walk(child, theme, trusted, colour, background, opacity, failures, minimum)
        elif child.strip():
            r, g, b, a = colour
            seen = _contrast.blend((r, g, b, a * opacity), background)
            ratio = _contrast.contrast_ratio(seen, background)
            if ratio < minimum:
                failures.append((theme, trusted, round(ratio, 2), child.strip()[:60]))
