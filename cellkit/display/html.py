"""Safe HTML for notebook displays: escaping, tiny element builders, theme colours, number formats.

Everything a display writes goes through :func:`el`, which escapes every
plain ``str`` it is given (names, class names, ``extend_repr`` text, flag
values ...).  Only :class:`Raw` strings -- HTML this module built itself --
pass through unchanged, so a Cell named ``<script>`` prints as text.

The markup stays inside what Jupyter keeps in an untrusted notebook and what
GitHub / nbviewer render without a kernel: no ``<script>``, no ``<style>``,
no inline ``<svg>``, no external URL; only elements such as ``<details>``,
``<table>``, ``<span>`` with inline ``style=""``.  Colours come from
JupyterLab's theme variables with fallbacks that read well on light *and*
dark backgrounds (translucent greys, or ``inherit``).

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
    "FG", "MUTED", "BORDER", "PANEL", "ACCENT", "ERROR", "WARN", "OK", "MONO", "UI_FONT", "BADGE",
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
# JupyterLab / Notebook 7 define the --jp-* variables (VS Code maps them too);
# elsewhere (Colab, GitHub) the fallback applies: `inherit` for text keeps
# whatever the page uses, translucent greys work on light and dark pages.
FG = "var(--jp-content-font-color1, inherit)"
MUTED = "var(--jp-content-font-color2, inherit)"  # used together with opacity where it matters
BORDER = "var(--jp-border-color2, rgba(128, 128, 128, 0.35))"
PANEL = "var(--jp-layout-color2, rgba(128, 128, 128, 0.10))"
ACCENT = "var(--jp-brand-color1, #2f7fd1)"
ERROR = "var(--jp-error-color1, #d84040)"
WARN = "var(--jp-warn-color1, #d98a00)"
OK = "var(--jp-success-color1, #3a9b4a)"
MONO = "var(--jp-code-font-family,Menlo,Consolas,monospace)"
UI_FONT = "var(--jp-ui-font-family, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif)"


def BADGE(colour):  # noqa: N802 -- a style constant with a colour slot
    """The inline style of a small rounded label in ``colour`` (text and border)."""
    return (f"display:inline-block;padding:0 5px;margin-left:4px;border:1px solid {colour};"
            f"border-radius:8px;color:{colour};font-size:0.85em;line-height:1.35;white-space:nowrap")


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
