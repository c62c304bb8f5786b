"""Safe HTML for notebook displays: escaping, tiny element builders, theme colours, number formats.

Everything a display writes goes through :func:`el`, which escapes every
plain ``str`` it is given (names, class names, ``extend_repr`` text, flag
values ...).  Only :class:`Raw` strings -- HTML this module built itself --
pass through unchanged, so a Cell named ``<script>`` prints as text.

The markup stays inside what Jupyter keeps in an untrusted notebook and what
GitHub / nbviewer render without a kernel: no ``<script>``, no ``<style>``,
no inline ``<svg>``, no external URL; only elements such as ``<details>``,
``<table>``, ``<span>`` with inline ``style=""``.  Colours come from
JupyterLab's theme variables, each after a plain fallback that the
untrusted-notebook sanitizer keeps; coloured text always sits on its own
fixed background (:func:`tone`), so it reads on light *and* dark pages.

>>> el("b", "<script>alert(1)</script>")
'<b>&lt;script&gt;alert(1)&lt;/script&gt;</b>'
>>> el("span", Raw("<i>ok</i>"), style="color:red")
'<span style="color:red"><i>ok</i></span>'
>>> format_bytes(1536), format_count(1234567)
('1.5 KiB', '1,234,567')
"""
from __future__ import annotations

import html as _html
import math

__all__ = [
    "Raw", "escape", "el", "join", "format_bytes", "format_count", "format_number", "one_line",
    "themed", "line", "badge", "tone", "plural", "MONO", "SANS", "MUTED", "MUTED_OPACITY", "TONES",
    "GREY_LINE", "GREY_FILL",
]


class Raw(str):
    """A string that already is safe HTML (built by this module); :func:`el` keeps it as it is."""

    __slots__ = ()


def escape(text) -> Raw:
    """``text`` (any object, through ``str``) with ``& < > " '`` escaped, as :class:`Raw`."""
    if isinstance(text, Raw):
        return text
    return Raw(_html.escape(str(text), quote=True))


def _add(parts, child):
    if child is None or child is False:
        return
    if isinstance(child, Raw):
        parts.append(child)
    elif isinstance(child, (list, tuple)):
        for c in child:
            _add(parts, c)
    else:
        parts.append(_html.escape(str(child), quote=True))


def el(tag, *children, style=None, **attrs) -> Raw:
    """``<tag style=... attrs>children</tag>`` with every non-:class:`Raw` child escaped.

    ``tag`` and the attribute *names* are chosen by this package (never by a
    user); attribute *values* are escaped.  An attribute given as ``True`` is
    written bare (``open``); ``None`` / ``False`` leaves it out.  Trailing
    underscores are dropped from names (``class_=``).
    """
    head = [tag]
    if style:
        head.append(f'style="{_html.escape(style, quote=True)}"')
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        if value is True:
            head.append(name)
        else:
            head.append(f'{name}="{_html.escape(str(value), quote=True)}"')
    parts = []
    _add(parts, children)
    return Raw(f"<{' '.join(head)}>{''.join(parts)}</{tag}>")


def join(parts, separator="") -> Raw:
    """Concatenate children (escaping plain strings) into one :class:`Raw`."""
    out = []
    _add(out, list(parts) if not isinstance(parts, (str, Raw)) else [parts])
    return Raw(escape(separator).join(out) if separator else "".join(out))


# -- theme -------------------------------------------------------------------
# JupyterLab / Notebook 7 define the --jp-* variables.  An *untrusted* notebook
# (one opened from elsewhere) is sanitized: each inline declaration is kept only
# if its property and value pass a whitelist -- no var(), calc(), currentColor,
# flex or gap.  So every themed colour is written twice, a plain value the
# sanitizer keeps and then the var() twin a live page prefers:
# ``border-color:#8c96a3;border-color:var(--jp-border-color1,#8c96a3)``.
#
# Text must reach 4.5:1 against what it sits on in the light *and* the dark
# theme, trusted or not (cellkit.display.contrast computes it; the tests check
# every display).  No single text colour does that on both a white and a
# near-black page, so coloured text always carries its own background: a
# badge is a fixed (background, text) pair.  Plain text inherits the page's
# colour, muted text keeps an opacity of at least MUTED_OPACITY; themed
# colours (borders, bars) carry no text.  Layout uses floats, inline blocks and
# tables, not flexbox.
GREY_LINE = "rgba(128,128,128,0.35)"
GREY_FILL = "rgba(128,128,128,0.12)"
_PALETTE = {
    "accent": ("--jp-brand-color1", "#2f7fd1"),
    "error": ("--jp-error-color1", "#d84040"),
    "warn": ("--jp-warn-color1", "#c98200"),
    "ok": ("--jp-success-color1", "#3a9b4a"),
    "line": ("--jp-border-color2", GREY_LINE),
    "fill": ("--jp-layout-color2", GREY_FILL),
}
# (background, text) of every coloured label; each pair is at least 6:1 (tests compute it).
TONES = {
    "accent": ("#1d5fa8", "#ffffff"),
    "error": ("#b42318", "#ffffff"),
    "warn": ("#8f4700", "#ffffff"),
    "ok": ("#1e6b34", "#ffffff"),
    "hook": ("#6b3fa0", "#ffffff"),
    "vanishing": ("#3a4f86", "#ffffff"),
    "exploding": ("#a13a00", "#ffffff"),
    "muted": ("#596270", "#ffffff"),
}
MUTED_OPACITY = 0.75
MUTED = f"opacity:{MUTED_OPACITY}"
MONO = "font-family:Menlo,Consolas,monospace;font-family:var(--jp-code-font-family,Menlo,Consolas,monospace)"
SANS = ("font-family:system-ui,Roboto,Arial,sans-serif;"
        "font-family:var(--jp-content-font-family,system-ui,Roboto,Arial,sans-serif)")


def themed(prop, colour) -> str:
    """``prop:<plain>;prop:var(--jp-...,<plain>)`` for a palette colour (borders and bars: never text).

    >>> themed("background-color", "accent")
    'background-color:#2f7fd1;background-color:var(--jp-brand-color1,#2f7fd1)'
    """
    var, plain = _PALETTE[colour]
    return f"{prop}:{plain};{prop}:var({var},{plain})"


def line(side="border", colour="line", width="1px") -> str:
    """A solid rule on ``side`` (``border``, ``border-left`` ...) in a palette colour, sanitizer-proof."""
    var, plain = _PALETTE[colour]
    return f"{side}:{width} solid {plain};{side}-color:var({var},{plain})"


def tone(name) -> str:
    """``background-color:..;color:..`` of a fixed label pair (:data:`TONES`): reads in every theme.

    >>> tone("error")
    'background-color:#b42318;color:#ffffff'
    """
    background, text = TONES[name]
    return f"background-color:{background};color:{text}"


def badge(colour=None) -> str:
    """The style of a small rounded label: a :data:`TONES` name (filled), or None for a neutral outline."""
    base = ("display:inline-block;padding:0 5px;margin-left:4px;border-radius:8px;font-size:0.85em;"
            "line-height:1.35;white-space:nowrap;font-weight:normal;")
    if colour is None:
        return base + "border:1px solid rgba(128,128,128,0.6);opacity:0.85"
    return base + "border:1px solid transparent;" + tone(colour)


def plural(n, word, many=None) -> str:
    """``'1 cell'``, ``'3 cells'``, ``'1,200 cells'`` (``many`` for irregular plurals).

    >>> plural(1, "more cell"), plural(2, "more cell"), plural(1234, "entry", "entries")
    ('1 more cell', '2 more cells', '1,234 entries')
    """
    return f"{int(n):,} {word if int(n) == 1 else (many or word + 's')}"


# -- numbers -------------------------------------------------------------------
def format_count(n) -> str:
    """An integer with thousands separators: ``12,345``."""
    return f"{int(n):,}"


def format_bytes(n) -> str:
    """A byte count in binary units: ``512 B``, ``1.5 KiB``, ``3.2 MiB``."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            if unit == "B":
                return f"{int(n)} B"
            return f"{n:.1f} {unit}" if abs(n) < 100 else f"{n:.0f} {unit}"
        n /= 1024.0
    return f"{n:.1f} TiB"  # pragma: no cover  (the loop always returns)


def format_number(x, digits=4) -> str:
    """A float in at most ``digits`` significant digits (``nan``, ``inf`` spelled out).

    >>> format_number(3.14159265), format_number(1e-7), format_number(float("nan"))
    ('3.142', '1e-07', 'nan')
    """
    if x is None:
        return "–"
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def one_line(text, limit=200) -> str:
    """``text`` on one line (control characters shown as escapes), cut to ``limit`` characters."""
    text = str(text)
    if any(c < " " or c == "\x7f" for c in text):
        text = "".join(c if c >= " " and c != "\x7f" else repr(c)[1:-1] for c in text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
