"""Colour contrast, computed as WCAG 2 defines it, and the two JupyterLab themes the displays must read in.

Every text colour a display writes is checked against the background it
sits on, in JupyterLab's light and dark themes, trusted (``var(--jp-...)``
resolved with the theme's values) and untrusted (the sanitizer drops
``var()``, so the plain value before it applies).  The tests walk the HTML
with these functions (``tests/display/html_probe.py``); the palette in
:mod:`cellkit.display.html` is chosen so that every pair reaches
:data:`MINIMUM` (4.5:1, WCAG AA for normal text).

>>> round(contrast_ratio("#ffffff", "#000000"), 1)
21.0
>>> parse_colour("rgba(0,0,0,.5)")
(0.0, 0.0, 0.0, 0.5)
>>> blend(parse_colour("rgba(0,0,0,.5)"), parse_colour("#ffffff"))[:3]
(127.5, 127.5, 127.5)
>>> resolve_colour("var(--jp-layout-color0,#fff)", "dark")
(17.0, 17.0, 17.0, 1.0)
"""
from __future__ import annotations

import re

__all__ = ["MINIMUM", "THEMES", "parse_colour", "blend", "relative_luminance", "contrast_ratio",
           "resolve_colour", "effective_declaration"]

MINIMUM = 4.5

# The --jp-* values the displays may use, copied from JupyterLab 4's theme-light / theme-dark CSS.
# ``page`` is the output area's background, ``text`` the colour output text inherits.
THEMES = {
    "light": {
        "page": "#ffffff", "text": "rgba(0,0,0,0.87)",
        "--jp-layout-color0": "#ffffff", "--jp-layout-color1": "#ffffff", "--jp-layout-color2": "#eeeeee",
        "--jp-content-font-color0": "#000000", "--jp-content-font-color1": "rgba(0,0,0,0.87)",
        "--jp-content-font-color2": "rgba(0,0,0,0.54)", "--jp-ui-font-color1": "rgba(0,0,0,0.87)",
        "--jp-brand-color1": "#1976d2", "--jp-error-color1": "#d32f2f", "--jp-warn-color1": "#f57c00",
        "--jp-success-color1": "#388e3c", "--jp-border-color1": "#bdbdbd", "--jp-border-color2": "#e0e0e0",
    },
    "dark": {
        "page": "#111111", "text": "#ffffff",
        "--jp-layout-color0": "#111111", "--jp-layout-color1": "#212121", "--jp-layout-color2": "#424242",
        "--jp-content-font-color0": "#ffffff", "--jp-content-font-color1": "#ffffff",
        "--jp-content-font-color2": "rgba(255,255,255,0.7)", "--jp-ui-font-color1": "rgba(255,255,255,0.87)",
        "--jp-brand-color1": "#2196f3", "--jp-error-color1": "#f44336", "--jp-warn-color1": "#ff9800",
        "--jp-success-color1": "#4caf50", "--jp-border-color1": "#616161", "--jp-border-color2": "#424242",
    },
}

_NAMED = {"white": "#ffffff", "black": "#000000", "transparent": "rgba(0,0,0,0)"}
_VAR = re.compile(r"^var\(\s*(--[\w-]+)\s*(?:,\s*(.*))?\)$")


def parse_colour(text):
    """``(r, g, b, alpha)`` (0-255, 0-1) of a CSS colour: ``#rgb``, ``#rrggbb``, ``rgb()``, ``rgba()``, a few names.

    Returns None for anything else (a ``var()``, a gradient ...).
    """
    text = _NAMED.get(text.strip().lower(), text.strip().lower())
    if text.startswith("#") and len(text) in (4, 7):
        digits = text[1:] if len(text) == 7 else "".join(c * 2 for c in text[1:])
        try:
            return (float(int(digits[0:2], 16)), float(int(digits[2:4], 16)), float(int(digits[4:6], 16)), 1.0)
        except ValueError:
            return None
    match = re.match(r"^rgba?\(([^)]*)\)$", text)
    if match:
        parts = [p.strip() for p in match.group(1).split(",")]
        if len(parts) in (3, 4):
            try:
                values = [float(p) for p in parts]
            except ValueError:
                return None
            return (values[0], values[1], values[2], values[3] if len(parts) == 4 else 1.0)
    return None


def blend(colour, background):
    """``colour`` (possibly translucent) painted over an opaque ``background``: an opaque colour."""
    r, g, b, a = colour
    br, bg, bb, _ = background
    return (r * a + br * (1 - a), g * a + bg * (1 - a), b * a + bb * (1 - a), 1.0)


def relative_luminance(colour):
    """WCAG relative luminance of an opaque ``(r, g, b, a)`` colour."""
    def channel(c):
        c = c / 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b):
    """The WCAG contrast ratio of two opaque colours (strings or tuples), 1 to 21."""
    a = parse_colour(a) if isinstance(a, str) else a
    b = parse_colour(b) if isinstance(b, str) else b
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def resolve_colour(value, theme):
    """A colour value as the page of ``theme`` computes it: ``var(--jp-x, fallback)`` looked up, else parsed."""
    value = value.strip()
    match = _VAR.match(value)
    if match:
        name, fallback = match.group(1), match.group(2)
        known = THEMES[theme].get(name)
        if known is not None:
            return parse_colour(known)
        return resolve_colour(fallback, theme) if fallback else None
    return parse_colour(value)


def effective_declaration(style, prop, trusted):
    """The value of ``prop`` that applies in ``style``: the last declaration, skipping ``var()`` when untrusted.

    An untrusted notebook's sanitizer drops declarations whose value uses
    ``var()``; a trusted page keeps the last one.

    >>> effective_declaration("color:#111;color:var(--jp-x,#111)", "color", trusted=False)
    '#111'
    """
    found = None
    for declaration in filter(None, (d.strip() for d in style.split(";"))):
        name, _, value = (part.strip() for part in declaration.partition(":"))
        if name != prop:
            continue
        if not trusted and "var(" in value.lower():
            continue
        found = value
    return found
