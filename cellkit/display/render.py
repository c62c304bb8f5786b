"""The handler registry and the three forms of a display.

A *part* is anything with two methods, ``html()`` (static HTML) and
``text()`` (its plain-text twin, for terminals, GitHub diffs and tests).  A
*handler* is a function ``handler(obj, options) -> part or NotImplemented``;
:func:`render` asks the registered handlers in turn and keeps the first
answer.  Support for a type is registered from outside the type -- the Cell
and Tensor classes know nothing about this module; ``tree.py`` and
``tensor_view.py`` register themselves here -- and a user can put their own
handler in front of the built-in ones.

:class:`Display` wraps a part for IPython: ``_repr_mimebundle_`` gives
``text/plain`` and ``text/html``, and never raises: when building the HTML
fails it falls back to the text with a one-line note, and when that fails
too, to ``repr``.

>>> class Hello:
...     def html(self): return "<b>hello</b>"
...     def text(self): return "hello"
>>> def hello_handler(obj, options):
...     return Hello() if obj == "hi" else NotImplemented
>>> unregister = register(hello_handler)
>>> sorted(mimebundle("hi"))
['text/html', 'text/plain']
>>> mimebundle("hi")["text/plain"]
'hello'
>>> unregister()
>>> mimebundle("hi")
{'text/plain': "'hi'"}
"""
from __future__ import annotations

from .html import Raw, el, one_line, themed

__all__ = ["Part", "Display", "TextPart", "register", "render", "mimebundle", "safe_repr"]

# (handler, name) in the order they are asked; the first that answers wins.
_HANDLERS = []


class Part:
    """The interface of a display part: an HTML form and a text twin."""

    def html(self) -> str:  # pragma: no cover  (an interface)
        raise NotImplementedError

    def text(self) -> str:  # pragma: no cover
        raise NotImplementedError


class TextPart(Part):
    """A part that is only text (shown in a ``<pre>`` in HTML)."""

    def __init__(self, text, note=None):
        self._text = str(text)
        self._note = note

    def text(self):
        return self._text if not self._note else f"{self._text}\n({self._note})"

    def html(self):
        return el("pre", self.text(), style="margin:0")


def register(handler, first=True):
    """Add ``handler(obj, options) -> part or NotImplemented``; returns a function that removes it.

    ``first=True`` asks it before the handlers already registered (so a user
    can override a built-in display); ``first=False`` asks it after them.
    """
    if not callable(handler):
        raise TypeError(f"register: a handler must be callable, but got {type(handler).__name__}")
    if first:
        _HANDLERS.insert(0, handler)
    else:
        _HANDLERS.append(handler)

    def unregister():
        if handler in _HANDLERS:
            _HANDLERS.remove(handler)

    return unregister


def render(obj, **options):
    """The part the first willing handler builds for ``obj`` (``None`` when no handler answers)."""
    for handler in list(_HANDLERS):
        part = handler(obj, options)
        if part is not NotImplemented and part is not None:
            return part
    return None


def safe_repr(obj) -> str:
    """``repr(obj)``, or a generic one if that raises."""
    try:
        return repr(obj)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return f"<{type(obj).__name__} object (repr failed: {type(exc).__name__})>"


def _note(exc) -> str:
    return one_line(f"display note: the HTML view failed ({type(exc).__name__}: {exc}); showing text", 300)


def bundle_of(part, obj=None, include=None, exclude=None):
    """The MIME bundle of ``part``: ``text/plain`` always, ``text/html`` when it builds."""
    try:
        text = part.text()
    except Exception as exc:  # noqa: BLE001
        text = safe_repr(obj if obj is not None else part) + "\n(" + _note(exc).replace("HTML", "text") + ")"
        part = None
    bundle = {"text/plain": text}
    if part is not None and _wanted("text/html", include, exclude):
        try:
            bundle["text/html"] = str(part.html())
        except Exception as exc:  # noqa: BLE001
            note = _note(exc)
            bundle["text/plain"] = f"{text}\n({note})"
            bundle["text/html"] = str(el(
                "div", el("pre", text, style="margin:0"),
                el("div", note, style=f"{themed('color', 'error')};font-size:0.85em")))
    return {k: v for k, v in bundle.items() if _wanted(k, include, exclude) or k == "text/plain"}


def _wanted(mime, include, exclude):
    if include is not None and mime not in include:
        return False
    return not (exclude is not None and mime in exclude)


def mimebundle(obj, include=None, exclude=None, **options):
    """The IPython MIME bundle for ``obj``: ``{'text/plain': ..., 'text/html': ...}``; never raises.

    Objects no handler knows get ``{'text/plain': repr(obj)}``.
    """
    try:
        part = render(obj, **options)
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        return {"text/plain": f"{safe_repr(obj)}\n({_note(exc)})"}
    if part is None:
        return {"text/plain": safe_repr(obj)}
    return bundle_of(part, obj, include, exclude)


class Display:
    """A part as a notebook output: shown by IPython through ``_repr_mimebundle_``.

    ``str()`` / ``repr()`` give the text twin, ``.html()`` the HTML string,
    ``.text()`` the text; other attributes are the part's (``table.rows``,
    ``table.total_count`` ...).
    """

    def __init__(self, part, obj=None):
        self.part = part
        self._obj = obj

    def __getattr__(self, name):
        if name.startswith("_") or name == "part":
            raise AttributeError(name)
        return getattr(self.part, name)

    def html(self) -> str:
        return str(self.part.html())

    def text(self) -> str:
        return self.part.text()

    def _repr_mimebundle_(self, include=None, exclude=None):
        return bundle_of(self.part, self._obj, include, exclude)

    def __repr__(self):
        return bundle_of(self.part, self._obj, include={"text/plain"})["text/plain"]

    __str__ = __repr__


def as_raw(html) -> Raw:
    """``html`` (a part's output) marked as safe markup."""
    return html if isinstance(html, Raw) else Raw(html)
