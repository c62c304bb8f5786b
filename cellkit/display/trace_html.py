"""The static HTML form of a hook trace: a timeline over an event table.

The timeline is a table whose columns are the innermost calls, in the order
they ran, and whose rows are call depths (one lane per depth).  Each call is
a bar spanning the columns of the calls it made, so the top panel reads as a
flame chart of the forward pass, left to right.  The bottom panel puts each
call's backward directly under its forward: the gradient starts at the
last layer, so the backward reads right to left.  Hook calls are badges in
the bar of the cell they belong to; NaN/Inf and vanishing/exploding
gradients are badges too, and the event where each first appears is ringed.

Only tags and inline styles that Jupyter keeps in an untrusted notebook are
used (no ``<script>``, ``<style>`` or ``<svg>``), colours are JupyterLab
theme variables with fallbacks, and every name comes through
``html.escape``.

>>> from cellkit.display.trace import Trace
>>> "Hook trace" in render_trace(Trace(), None)
True
"""
from __future__ import annotations

import html

from .trace import (FLAG_KINDS, FLAG_TITLES, describe_hook, describe_tensor, format_number, format_values,
                    label_of, summary_lines)

__all__ = ["render_trace"]

MAX_COLUMNS = 160
MAX_TABLE_ROWS = 400
OPEN_TABLE_UP_TO = 60  # rows; longer tables start folded

FG = "var(--jp-content-font-color1, #1f2328)"
MUTED = "var(--jp-content-font-color2, #59636e)"
BORDER = "var(--jp-border-color2, rgba(128, 128, 128, 0.35))"
UI_FONT = "var(--jp-ui-font-family, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif)"
MONO = "var(--jp-code-font-family, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace)"
FORWARD = ("rgba(47, 127, 209, 0.13)", "rgba(47, 127, 209, 0.75)")
BACKWARD = ("rgba(217, 119, 6, 0.13)", "rgba(217, 119, 6, 0.8)")
HOOK = "rgba(130, 80, 200, 0.95)"
FLAG_COLOURS = {
    "nan": "var(--jp-error-color1, #d84040)",
    "inf": "var(--jp-error-color1, #d84040)",
    "vanishing": "rgba(90, 110, 140, 0.95)",
    "exploding": "var(--jp-warn-color1, #d98a00)",
}
FIRST_RING = "var(--jp-error-color1, #d84040)"
KIND_COLOURS = {
    "forward_pre": FORWARD[1], "forward": FORWARD[1], "backward_pre": BACKWARD[1], "backward": BACKWARD[1],
    "hook": HOOK,
}


def esc(text):
    return html.escape(str(text), quote=True)


def tag(name, body="", style=None, **attrs):
    """``<name style=.. attrs>body</name>``; ``body`` must already be HTML, attribute values are escaped."""
    head = name
    if style:
        head += f' style="{esc(style)}"'
    for key, value in attrs.items():
        if value is not None:
            head += f' {key.rstrip("_")}="{esc(value)}"'
    return f"<{head}>{body}</{name}>"


def badge(text, colour, filled=False, title=None):
    style = (f"display:inline-block;padding:0 5px;margin:1px 3px 1px 0;border:1px solid {colour};"
             f"border-radius:8px;font-size:0.85em;line-height:1.4;white-space:nowrap;")
    style += f"background:{colour};color:#fff;" if filled else f"color:{colour};"
    return tag("span", esc(text), style=style, title=title)


# ---------------------------------------------------------------------------- calls
class _Call:
    __slots__ = ("call", "path", "cell", "depth", "events", "hooks", "children", "start", "width")

    def __init__(self, event):
        self.call = event["call"]
        self.path = event["path"]
        self.cell = event["cell"]
        self.depth = event["depth"]
        self.events = {}
        self.hooks = {"forward": [], "backward": []}
        self.children = []
        self.start = 0
        self.width = 1

    def event(self, kind):
        return self.events.get(kind)

    @property
    def flagged(self):
        return [e for e in self.events.values() if e.get("flags")] + [
            e for hooks in self.hooks.values() for e in hooks if e.get("flags")]


def build_calls(events):
    """The calls in the events, as a forest (children in call order), with column spans."""
    calls, roots, stack = {}, [], []
    for e in events:
        c = calls.get(e["call"])
        if c is None:
            c = calls[e["call"]] = _Call(e)
            while stack and stack[-1].depth >= c.depth:
                stack.pop()
            if stack and e["kind"] == "forward_pre":
                stack[-1].children.append(c)
            else:
                roots.append(c)
            if e["kind"] == "forward_pre":
                stack.append(c)
        if e["kind"] == "hook":
            c.hooks["backward" if e["hook"]["stage"].startswith("backward") else "forward"].append(e)
        else:
            c.events[e["kind"]] = e
    column = 0

    def place(c):
        nonlocal column
        c.start = column
        if not c.children:
            column += 1
        for child in c.children:
            place(child)
        c.width = max(column - c.start, 1)

    for root in roots:
        place(root)
    return roots, list(calls.values()), column


# ---------------------------------------------------------------------------- timeline
def _tensor_line(summary, short_role):
    if summary.get("none"):
        return f"{short_role} None"
    if summary.get("omitted"):
        return f"… {summary['omitted']} more"
    if "repr" in summary:
        return f"{short_role} {summary['repr']}"
    values = format_values(summary)
    if summary["shape"] == [] and values:  # a scalar (a loss): its value says it all
        return f"{short_role} {values}"
    text = f"{short_role} {summary['shape']}"  # the dtype is in the tooltip and the table
    if not summary["dtype"].startswith("Float"):
        text += f" {summary['dtype']}"
    if "norm" in summary:
        text += f" · norm {format_number(summary['norm'])}"
    if values and len(values) <= 28:
        text += f" · {values}"
    return text


def _tensor_lines(event, short_role, limit=3):
    if event is None:
        return []
    tensors = [t for t in event["tensors"]]
    lines = [_tensor_line(t, short_role + (f"[{t['index']}]" if t["index"] and len(tensors) > 1 else ""))
             for t in tensors[:limit]]
    if len(tensors) > limit:
        lines.append(f"… {len(tensors) - limit} more")
    return lines


def _flag_badges(events):
    seen, out = [], []
    for e in events:
        for f in e.get("flags", []):
            first = f in e.get("first", [])
            if (f, first) in seen:
                continue
            seen.append((f, first))
            label = ("first " if first else "") + FLAG_TITLES[f]
            out.append(badge(label, FLAG_COLOURS[f], filled=first, title=f"event #{e['index']}"))
    return "".join(out)


def _hook_badges(hooks):
    out = []
    for e in hooks:
        h = e["hook"]
        outcome = {"None": "→ None", "replacement": "→ replaced", "error": "→ raised"}[h["returned"]]
        out.append(badge(f"#{e['index']} {h['name']} {outcome}", HOOK, title=describe_hook(e)))
    return "".join(out)


def _title(c, kinds):
    lines = [f"{c.path or '(the traced network)'} — {c.cell}, call {c.call}"]
    for kind in kinds:
        e = c.event(kind)
        if e is None:
            continue
        lines.append(f"#{e['index']} {kind} at {e['time_ms']:.3f} ms"
                     + (f" (took {format_number(e['duration_ms'])} ms)" if e["duration_ms"] is not None else ""))
        lines += ["  " + describe_tensor(t) for t in e["tensors"]]
    return "\n".join(lines)


def _bar(c, phase, width):
    fill, edge = FORWARD if phase == "forward" else BACKWARD
    pre, post = c.event(phase + "_pre"), c.event(phase)
    hooks = c.hooks[phase]
    events = [e for e in (pre, post) if e is not None] + hooks
    first = any(e.get("first") for e in events)
    border = f"2px solid {FIRST_RING}" if first else f"1px solid {edge}"
    name = c.path.rsplit(".", 1)[-1] if c.path else c.cell
    steps = "→".join(f"#{e['index']}" for e in (pre, post) if e is not None)
    head = (tag("span", esc(steps), style=f"color:{MUTED};font-size:0.85em;margin-right:4px")
            + tag("b", esc(name)) + (tag("span", " " + esc(c.cell), style=f"color:{MUTED}") if c.path else ""))
    if phase == "forward":
        lines = _tensor_lines(post, "out") if post else ["(did not return)"]
    else:
        lines = _tensor_lines(pre, "grad out") + (_tensor_lines(post, "grad in") if post else ["grad in: none (input is data)"])
    body = "".join(tag("div", esc(line), style=f"font-family:{MONO};font-size:0.9em;white-space:nowrap") for line in lines)
    extras = _hook_badges(hooks) + _flag_badges(events)
    if extras:
        body += tag("div", extras, style="margin-top:2px;white-space:normal")
    box = tag("div", tag("div", head, style="white-space:nowrap") + body,
              style=(f"background:{fill};border:{border};border-radius:5px;padding:2px 6px;"
                     f"color:{FG};overflow:hidden"),
              title=_title(c, (phase + "_pre", phase)))
    return tag("td", box, style="padding:1px;vertical-align:top", colspan=str(width) if width > 1 else None)


def _lanes(calls, phase, n_columns, depth_count):
    """One table row per depth holding the bars of ``phase`` (forward or backward)."""
    kinds = (phase + "_pre", phase)
    lane = (f"color:{MUTED};font-size:0.85em;padding:2px 6px 2px 0;text-align:right;white-space:nowrap;"
            "vertical-align:top;width:1%")
    rows = []
    for depth in range(depth_count):
        cells = sorted((c for c in calls if c.depth == depth and c.start < n_columns
                        and any(c.event(k) for k in kinds)), key=lambda c: c.start)
        if not cells:
            continue
        tds, column = [tag("th", f"depth {depth}", style=lane)], 0
        for c in cells:
            if c.start < column:
                continue  # overlapping spans cannot happen for a well-formed trace; never draw over
            if c.start > column:
                tds.append(tag("td", "", colspan=str(c.start - column) if c.start - column > 1 else None))
            width = min(c.width, n_columns - c.start)
            tds.append(_bar(c, phase, width))
            column = c.start + width
        if column < n_columns:
            tds.append(tag("td", "", colspan=str(n_columns - column) if n_columns - column > 1 else None))
        rows.append(tag("tr", "".join(tds)))
    return rows


def _heading_row(text, note, colour, n_columns):
    body = (tag("b", esc(text), style=f"color:{colour}")
            + tag("span", " " + esc(note), style=f"color:{MUTED};font-weight:normal"))
    return tag("tr", tag("th", body, style="text-align:left;font-size:13px;padding:8px 0 2px 0",
                         colspan=str(n_columns + 1)))


def timeline(events):
    """Forward lanes over backward lanes, in one table so each backward bar sits under its forward bar."""
    roots, calls, n_columns = build_calls(events)
    if not calls:
        return ""
    shown = min(n_columns, MAX_COLUMNS)
    depth_count = max(c.depth for c in calls) + 1
    rows = [_heading_row("forward →", "read left to right; a cell's bar spans the calls it made", FORWARD[1], shown)]
    rows += _lanes(calls, "forward", shown, depth_count)
    backward = _lanes(calls, "backward", shown, depth_count)
    if backward:
        rows.append(_heading_row("← backward", "under each forward bar, that cell's backward: the gradient starts "
                                 "at the output, so read right to left", BACKWARD[1], shown))
        rows += backward
    parts = [tag("table", "".join(rows),
                 style=f"border-collapse:separate;border-spacing:0;font-size:12px;margin:0 0 6px 0;color:{FG}")]
    if n_columns > shown:
        parts.append(tag("div", esc(f"… the timeline shows the first {shown} of {n_columns} innermost calls; "
                                    "the table below lists every event"), style=f"color:{MUTED}"))
    return tag("div", "".join(parts), style="overflow-x:auto;padding-bottom:4px")


# ---------------------------------------------------------------------------- table
def event_table(events, limit=MAX_TABLE_ROWS):
    cell_style = f"padding:2px 8px;border-bottom:1px solid {BORDER};vertical-align:top;text-align:left"
    head = "".join(tag("th", esc(h), style=cell_style + ";font-weight:600;white-space:nowrap")
                   for h in ("#", "t (ms)", "event", "cell", "notes", "tensors"))
    rows = [tag("tr", head)]
    for e in events[:limit]:
        kind = tag("span", esc(e["kind"]), style=f"color:{KIND_COLOURS[e['kind']]};font-weight:600;white-space:nowrap")
        who = tag("div", esc(label_of(e)), style=f"padding-left:{e['depth'] * 14}px;white-space:nowrap")
        tensors = "".join(tag("div", esc(describe_tensor(t)), style=f"font-family:{MONO};white-space:nowrap")
                          for t in e["tensors"])
        notes = []
        if e["kind"] == "hook":
            notes.append(tag("div", esc(describe_hook(e)), style=f"color:{HOOK}"))
        if e["duration_ms"] is not None and e["kind"] != "hook":
            notes.append(tag("div", esc(f"took {format_number(e['duration_ms'])} ms"),
                             style=f"color:{MUTED};white-space:nowrap"))
        notes.append(_flag_badges([e]))
        ring = f";box-shadow:inset 3px 0 0 {FIRST_RING}" if e.get("first") else ""
        rows.append(tag("tr", "".join([
            tag("td", esc(e["index"]), style=cell_style + ring),
            tag("td", esc(f"{e['time_ms']:.3f}"), style=cell_style + f";font-family:{MONO}"),
            tag("td", kind, style=cell_style), tag("td", who, style=cell_style),
            tag("td", "".join(notes), style=cell_style + ";min-width:14em"), tag("td", tensors, style=cell_style),
        ])))
    table = tag("table", "".join(rows), style=f"border-collapse:collapse;font-size:12px;color:{FG}")
    if len(events) > limit:
        table += tag("div", esc(f"… {len(events) - limit} more events (all of them are in to_dict())"),
                     style=f"color:{MUTED}")
    return table


def legend():
    items = [badge("forward", FORWARD[1]), badge("backward", BACKWARD[1]), badge("#n hook → None / replaced", HOOK)]
    items += [badge(FLAG_TITLES[f], FLAG_COLOURS[f]) for f in FLAG_KINDS]
    items.append(badge("first appearance", FIRST_RING, filled=True))
    return tag("div", "".join(items), style="margin:2px 0 4px 0;font-size:12px")


def render_trace(trace_, upto=None):
    """The whole display: heading, flag summary, legend, timeline and the event table."""
    events = trace_.events if upto is None else trace_.events[:max(0, int(upto))]
    lines = summary_lines(trace_.root, events)
    if upto is not None:
        lines[0] += f" — showing the first {len(events)}"
    flagged = any(e.get("first") for e in events)
    parts = [tag("div", esc(lines[0]), style="font-weight:600;font-size:14px;margin-bottom:2px"),
             tag("div", esc(lines[1]), style=f"color:{FLAG_COLOURS['nan'] if flagged else MUTED};margin-bottom:4px")]
    if not events:
        parts.append(tag("div", esc("(no events: run the network inside the 'with' block)"), style=f"color:{MUTED}"))
    else:
        parts += [legend(), timeline(events)]
        summary = tag("summary", esc(f"Event table ({len(events)} events, in order)"),
                      style="cursor:pointer;font-weight:600;margin:4px 0")
        parts.append(tag("details", summary + tag("div", event_table(events), style="overflow-x:auto"),
                         open="open" if len(events) <= OPEN_TABLE_UP_TO else None))
    return tag("div", "".join(parts), style=f"font-family:{UI_FONT};color:{FG};font-size:13px;line-height:1.35")
