"""The static HTML form of a hook trace: what went wrong first, the hook ledger, a timeline that fits, the events.

From the top:

1. the counts, then each flag's first appearance -- for a NaN/Inf, the op
   that made it, the user's line and the Cell -- on a coloured chip with a
   link to where the timeline shows it; hooks that raised (in red) and
   hooks that never fired, with the reason;
2. the timeline: forward calls read left to right, one lane per call depth,
   each call a bar spanning the calls it made; under it the backward pass,
   each Cell's backward under its forward (the gradient starts at the
   output, so it reads right to left).  It always fits the output's width:
   the bars share the width (``table-layout:fixed``), calls deeper than
   needed are *folded* into their parent's bar (which says how many calls
   it holds and rolls their hooks and flags up), and runs of many siblings
   are folded into one bar; the bar where a flag first appears is ringed.
   ``to_html(depth=..., window=(first, last))`` -- and the widget's zoom and
   pan -- show deeper levels and a range of columns;
3. the hook ledger (:mod:`cellkit.display.hookledger`);
4. the event table, folded when long, its cells wrapping inside the width.

Markup comes from :func:`cellkit.display.html.el` (every name escaped),
only tags and inline styles an untrusted notebook keeps, colours as fixed
pairs that read in both themes (:data:`cellkit.display.html.TONES`).

>>> from cellkit.display.trace import Trace
>>> "Hook trace" in render_trace(Trace(), None)
True
"""
from __future__ import annotations

import hashlib
import json

from .html import MONO, MUTED, SANS, TONES, Raw, badge, el, format_number, line, plural
from .trace import (FLAG_KINDS, FLAG_TITLES, describe_first, describe_hook, describe_op, describe_tensor,
                    format_values, label_of, summary_lines)

__all__ = ["render_trace", "timeline", "build_calls", "fold_depth"]

MAX_FIT_COLUMNS = 10      # bars across the timeline before calls are folded (about 60 px each at 800 px)
MAX_TABLE_ROWS = 400
OPEN_TABLE_UP_TO = 60     # rows; longer tables start folded
OPEN_LEDGER_UP_TO = 12
FLAG_TONES = {"nan": "error", "inf": "error", "vanishing": "vanishing", "exploding": "exploding"}
KIND_TONES = {"forward_pre": "accent", "forward": "accent", "backward_pre": "warn", "backward": "warn",
              "hook": "hook", "op": "error", "param_grads": "warn"}
FORWARD_FILL = "rgba(47,127,209,0.13)"
BACKWARD_FILL = "rgba(217,119,6,0.13)"
RING = TONES["error"][0]
# JupyterLab stripes table rows (and tints them on hover); our rows say what they look like themselves.
_ROW = "background-color:transparent"


# ---------------------------------------------------------------------------- calls
class _Call:
    __slots__ = ("call", "path", "cell", "depth", "events", "hooks", "ops", "children", "start", "width", "parent")

    def __init__(self, event):
        self.call = event["call"]
        self.path = event["path"]
        self.cell = event["cell"]
        self.depth = event["depth"]
        self.events = {}
        self.hooks = {"forward": [], "backward": []}
        self.ops = {"forward": [], "backward": []}
        self.children = []
        self.start = 0
        self.width = 1
        self.parent = None

    def event(self, kind):
        return self.events.get(kind)

    def all_events(self, phase):
        found = [e for e in (self.event(phase + "_pre"), self.event(phase)) if e is not None]
        return found + self.hooks[phase] + self.ops[phase]

    def descendants(self):
        stack, out = list(self.children), []
        while stack:
            c = stack.pop()
            out.append(c)
            stack.extend(c.children)
        return out


def build_calls(events):
    """The calls in the events, as a forest (children in call order), with column spans at full depth."""
    calls, roots, stack = {}, [], []
    for e in events:
        if e.get("call") is None:
            continue
        c = calls.get(e["call"])
        if c is None:
            if e["kind"] == "op":  # an op of a call that began before the trace: its own bar
                continue
            c = calls[e["call"]] = _Call(e)
            while stack and stack[-1].depth >= c.depth:
                stack.pop()
            if stack and e["kind"] == "forward_pre":
                c.parent = stack[-1]
                stack[-1].children.append(c)
            else:
                roots.append(c)
            if e["kind"] == "forward_pre":
                stack.append(c)
        if e["kind"] == "hook":
            c.hooks["backward" if e["hook"]["stage"].startswith("backward") else "forward"].append(e)
        elif e["kind"] == "op":
            c.ops[e["op"]["phase"]].append(e)
        else:
            c.events[e["kind"]] = e
    return roots, list(calls.values())


def _leaves(roots, depth):
    """The bars at the bottom of the timeline when calls deeper than ``depth`` are folded."""
    out = []
    stack = list(reversed(roots))
    while stack:
        c = stack.pop()
        if c.depth >= depth or not c.children:
            out.append(c)
        else:
            stack.extend(reversed(c.children))
    return out


def fold_depth(roots, limit=MAX_FIT_COLUMNS):
    """The deepest level whose calls still fit in ``limit`` columns; 1 at least when the root made calls
    (runs of its children then share bars)."""
    deepest = max((c.depth for r in roots for c in [r] + r.descendants()), default=0)
    chosen = 0
    for depth in range(deepest + 1):
        if len(_leaves(roots, depth)) <= limit:
            chosen = depth
        else:
            break
    return max(chosen, min(1, deepest))


class _Column:
    """One column of the timeline: one call, or a run of sibling calls folded together."""

    __slots__ = ("calls",)

    def __init__(self, calls):
        self.calls = calls


def _columns(roots, depth, limit, keep):
    """The bottom row's columns: leaves at ``depth``, runs of siblings folded so at most ``limit`` remain.

    Calls in ``keep`` (where a flag first appears) keep a column of their own.
    """
    leaves = _leaves(roots, depth)
    if len(leaves) <= limit:
        return [_Column([c]) for c in leaves]
    chunk = -(-len(leaves) // limit)
    columns, run = [], []
    for c in leaves:
        if run and (c.parent is not run[-1].parent or c.depth != run[-1].depth or len(run) >= chunk
                    or c.call in keep or run[-1].call in keep):
            columns.append(_Column(run))
            run = []
        run.append(c)
    if run:
        columns.append(_Column(run))
    return columns


# ---------------------------------------------------------------------------- pieces
def _chip(text, name, title=None, strong=False):
    style = badge(name) + (";font-weight:bold" if strong else "")
    return el("span", text, style=style, title=title)


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
    text = f"{short_role} {summary['shape']}"
    if not summary["dtype"].startswith("Float"):
        text += f" {summary['dtype']}"
    if "norm" in summary:
        text += f" · norm {format_number(summary['norm'])}"
    if values and len(values) <= 28:
        text += f" · {values}"
    return text


def _tensor_lines(event, short_role, limit=2):
    if event is None:
        return []
    tensors = event["tensors"]
    lines = [_tensor_line(t, short_role + (f"[{t['index']}]" if t["index"] and len(tensors) > 1 else ""))
             for t in tensors[:limit]]
    if len(tensors) > limit:
        lines.append(f"… {len(tensors) - limit} more")
    return lines


def _flag_chips(events):
    seen, out = [], []
    for e in events:
        for f in e.get("flags", []):
            first = f in e.get("first", [])
            if (f, first) in seen:
                continue
            seen.append((f, first))
            out.append(_chip(("first " if first else "") + FLAG_TITLES[f], FLAG_TONES[f],
                             title=f"event #{e['index']}", strong=first))
    return out


def _hook_chips(hooks):
    out = []
    for e in hooks:
        h = e["hook"]
        if h["returned"] == "error":
            out.append(_chip(f"#{e['index']} {h['name']} raised", "error", title=describe_hook(e), strong=True))
        else:
            outcome = "→ None" if h["returned"] == "None" else "→ replaced"
            out.append(_chip(f"#{e['index']} {h['name']} {outcome}", "hook", title=describe_hook(e)))
    return out


def _op_chips(ops):
    out = []
    for e in ops:
        op = e["op"]
        words = " and ".join(w for k, w in (("nan", "NaN"), ("inf", "Inf")) if any(t.get(k) for t in e["tensors"]))
        made = f"{words} made by {op['op']}" if op["op"] else f"{words} made by its own code"
        if op.get("file"):
            made += f" ({op['file'].rsplit('/', 1)[-1]}{' ' if op['file'].endswith(', line') else ':'}{op['line']})"
        out.append(_chip(f"#{e['index']} {made}", "error", title=describe_op(e), strong=True))
    return out


def _title(c, phase):
    lines = [f"{c.path or '(the traced network)'} — {c.cell}, call {c.call}"]
    for kind in (phase + "_pre", phase):
        e = c.event(kind)
        if e is None:
            continue
        lines.append(f"#{e['index']} {kind} at {e['time_ms']:.3f} ms"
                     + (f" (took {format_number(e['duration_ms'])} ms)" if e["duration_ms"] is not None else ""))
        lines += ["  " + describe_tensor(t) for t in e["tensors"]]
    for e in c.hooks[phase]:
        lines.append(f"#{e['index']} " + describe_hook(e))
    for e in c.ops[phase]:
        lines.append(f"#{e['index']} " + describe_op(e))
    return "\n".join(lines)


def _bar(column, phase, width, depth, first_ids):
    """One bar: a call (or a folded run of calls) in one phase, as a table cell."""
    calls = column.calls
    c = calls[0]
    # Descendants drawn in no lane of their own are rolled into this bar: all of them when this bar is at
    # the bottom of the drawing (or a run of siblings), none when its children have bars of their own.
    at_bottom = len(calls) > 1 or c.depth >= depth
    folded = [d for call in calls for d in call.descendants()] if at_bottom else []
    events = [e for call in calls for e in call.all_events(phase)] + [e for d in folded for e in d.all_events(phase)]
    if not events:
        return None
    fill = FORWARD_FILL if phase == "forward" else BACKWARD_FILL
    first_here = [e for e in events if e.get("first")]
    border = f"border:2px solid {RING}" if first_here else f"border:1px solid {'rgba(47,127,209,0.55)' if phase == 'forward' else 'rgba(217,119,6,0.6)'}"
    if len(calls) > 1:
        name = f"{calls[0].path.rsplit('.', 1)[-1]} … {calls[-1].path.rsplit('.', 1)[-1]}"
        head = [el("b", name), el("span", f" {len(calls)} calls", style=MUTED)]
        lines = []
    else:
        name = c.path.rsplit(".", 1)[-1] if c.path else c.cell
        steps = "→".join(f"#{e['index']}" for e in (c.event(phase + "_pre"), c.event(phase)) if e is not None)
        head = [el("b", name)]  # the name first: in a narrow bar it is what must show
        if c.path:
            head.append(el("span", " " + c.cell, style=MUTED))
        head.append(el("span", " " + steps, style=f"{MUTED};font-size:0.85em"))
        if phase == "forward":
            post = c.event("forward")
            lines = _tensor_lines(post, "out") if post else ["(did not return)"]
            for h in c.hooks["forward"]:
                if h["hook"]["stage"] == "forward" and h["hook"]["returned"] == "replacement":
                    lines.append(f"after {h['hook']['name']}: norm {format_number(h['hook'].get('before_norm'))}"
                                 f" → {format_number(h['hook'].get('after_norm'))}")
        else:
            pre, post = c.event("backward_pre"), c.event("backward")
            lines = _tensor_lines(pre, "grad out")
            lines += _tensor_lines(post, "grad in") if post else (["grad in: none (input is data)"] if pre else [])
            for h in c.hooks["backward"]:
                if h["hook"]["returned"] == "replacement":
                    lines.append(f"after {h['hook']['name']}: norm {format_number(h['hook'].get('before_norm'))}"
                                 f" → {format_number(h['hook'].get('after_norm'))}")
    nowrap = "white-space:nowrap;overflow:hidden;text-overflow:ellipsis"
    body = [el("div", head, style=nowrap)]
    body += [el("div", text, style=f"{MONO};font-size:0.9em;{nowrap}") for text in lines]
    chips = _hook_chips([e for call in calls for e in call.hooks[phase]])
    chips += _op_chips([e for call in calls for e in call.ops[phase]])
    if folded:
        inner_hooks = [e for d in folded for e in d.hooks[phase]]
        inner_ops = [e for d in folded for e in d.ops[phase]]
        count = len({d.call for d in folded})
        chips.append(el("span", f"+{plural(count, 'call')} inside", style=badge(),
                        title="folded: " + ", ".join(sorted({d.path for d in folded})[:12])))
        if inner_hooks:
            raised = [e for e in inner_hooks if e["hook"]["returned"] == "error"]
            chips.append(_chip(f"{plural(len(inner_hooks), 'hook call')} inside", "error" if raised else "hook",
                               title="\n".join(describe_hook(e) for e in inner_hooks[:20])))
        chips += _op_chips(inner_ops)
    chips += _flag_chips(events)
    if chips:
        chips = [Raw(str(chip).replace("white-space:nowrap", "white-space:normal;max-width:100%", 1)) for chip in chips]
        body.append(el("div", chips, style="margin-top:2px;white-space:normal;line-height:1.5"))
    anchor = None
    for e in first_here:
        for f in e["first"]:
            if f not in first_ids:
                first_ids[f] = True
                anchor = anchor or first_ids["prefix"] + "-first-" + f
    box = el("div", body, style=f"background-color:{fill};{border};border-radius:5px;padding:2px 5px;overflow:hidden",
             title=_title(c, phase) if len(calls) == 1 else "\n".join(call.path for call in calls[:20]), id=anchor)
    return el("td", box, style="padding:1px;vertical-align:top;text-align:left",
              colspan=str(width) if width > 1 else None)


def _place(columns):
    """Column index and span of every call drawn (a folded run's calls share its column)."""
    span = {}
    for i, column in enumerate(columns):
        for c in column.calls:
            node = c
            while node is not None:
                start, end = span.get(node.call, (i, i))
                span[node.call] = (min(start, i), max(end, i))
                node = node.parent
    return span


def _lanes(calls, columns, phase, depth, first_ids, window):
    span = _place(columns)
    lo, hi = window
    lane = (f"{MUTED};font-size:0.85em;padding:2px 4px 2px 0;text-align:right;white-space:nowrap;"
            "vertical-align:top")
    drawn_columns = {id(c): column for column in columns for c in column.calls}
    rows = []
    for d in range(depth + 1):
        cells = []
        for c in calls:
            if c.call not in span or c.depth != d:
                continue
            if id(c) in drawn_columns and drawn_columns[id(c)].calls[0] is not c:
                continue  # the rest of a folded run: drawn with its first call
            start, end = span[c.call]
            if end < lo or start > hi:
                continue
            cells.append((max(start, lo), min(end, hi), c))
        if not cells:
            continue
        cells.sort(key=lambda item: item[0])
        tds, column, drawn = [el("th", f"depth {d}", style=lane)], lo, 0
        for start, end, c in cells:
            if start < column:
                continue
            if start > column:
                tds.append(el("td", "", colspan=str(start - column) if start - column > 1 else None))
            unit = drawn_columns.get(id(c)) or _Column([c])
            bar = _bar(unit, phase, end - start + 1, depth, first_ids)
            if bar is None:
                continue  # nothing happened in this phase: the gap is filled by the next spacer
            tds.append(bar)
            drawn += 1
            column = end + 1
        if column <= hi:
            tds.append(el("td", "", colspan=str(hi - column + 1) if hi - column + 1 > 1 else None))
        if drawn:
            rows.append(el("tr", tds, style=_ROW))
    return rows


def _heading_row(text, note, name, n_columns):
    body = [el("span", text, style=badge(name) + ";margin-left:0;font-weight:bold"),
            el("span", " " + note, style=f"{MUTED};font-weight:normal")]
    return el("tr", el("th", body, style="text-align:left;font-size:12px;padding:8px 0 2px 0;font-weight:normal",
                       colspan=str(n_columns + 1)), style=_ROW)


def timeline(events, depth=None, window=None, prefix="ck", limit=MAX_FIT_COLUMNS):
    """Forward lanes over backward lanes, folded to fit (see the module docstring); '' when nothing ran."""
    roots, calls = build_calls(events)
    if not calls:
        return Raw("")
    deepest = max(c.depth for c in calls)
    depth = fold_depth(roots, limit) if depth is None else max(0, min(int(depth), deepest))
    keep = {e["call"] for e in events if e.get("first") and e.get("call") is not None}
    columns = _columns(roots, depth, limit if window is None else 10 ** 6, keep)
    n = len(columns)
    lo, hi = (0, n - 1) if window is None else (max(0, int(window[0])), min(n - 1, int(window[1])))
    if hi < lo:
        lo, hi = 0, n - 1
    shown = hi - lo + 1
    first_ids = {"prefix": prefix}
    # table-layout:fixed takes its column widths from the first row: one thin lane column, equal bars
    sizing = el("tr", el("td", "", style="width:4.2em;padding:0;height:0"),
                [el("td", "", style="padding:0;height:0") for _ in range(shown)], style=_ROW)
    rows = [sizing, _heading_row("forward →", "read left to right; a bar spans the calls it made", "accent", shown)]
    rows += _lanes(calls, columns, "forward", depth, first_ids, (lo, hi))
    backward = _lanes(calls, columns, "backward", depth, first_ids, (lo, hi))
    if backward:
        rows.append(_heading_row("← backward", "under each forward bar, that call's backward: the gradient starts "
                                 "at the output, so read right to left", "warn", shown))
        rows += backward
    notes = []
    if depth < deepest:
        notes.append(f"calls deeper than depth {depth} are folded into their parent's bar")
    if any(len(col.calls) > 1 for col in columns[lo:hi + 1]):
        notes.append("runs of sibling calls share a bar")
    if window is not None and (lo > 0 or hi < n - 1):
        notes.append(f"showing columns {lo}–{hi} of {n}")
    if notes:
        notes.append("the event table below lists every event; explore(trace) zooms and pans")
    table = el("table", rows, style=("border-collapse:separate;border-spacing:0;font-size:12px;margin:0 0 4px 0;"
                                     "table-layout:fixed;width:100%"))
    parts = [table]
    if notes:
        parts.append(el("div", "; ".join(notes), style=f"{MUTED};font-size:12px"))
    grads = [e for e in events if e["kind"] == "param_grads"]
    parts += [_param_grads_line(e) for e in grads[-3:]]
    return el("div", parts, style="max-width:100%")


def _param_grads_line(event):
    tensors = event["tensors"]
    norms = [float(t["norm"]) for t in tensors if "norm" in t and t["norm"] not in ("nan", "inf")]
    bad = [t["index"] for t in tensors if t.get("nan") or t.get("inf") or t.get("norm") in ("nan", "inf")]
    text = f"#{event['index']} weight gradients: {plural(len(tensors), 'Parameter')}"
    if norms:
        text += f", norms {format_number(min(norms))} … {format_number(max(norms))}"
    parts = [el("span", text)]
    if bad:
        parts.append(_chip(f"NaN/Inf in {', '.join(bad[:4])}" + (" …" if len(bad) > 4 else ""), "error", strong=True))
    parts += _flag_chips([event])
    return el("div", parts, style="font-size:12px;margin:2px 0")


# ---------------------------------------------------------------------------- ledger and table
def ledger_html(entries, prefix):
    from .hookledger import anchor

    rows = []
    for h in entries:
        if not h["fired"]:
            status = _chip("never fired", "warn")
        elif h["returned"]["error"]:
            status = _chip(f"raised {h['returned']['error']}×", "error", strong=True)
        else:
            status = _chip(f"fired {h['fired']}×", "hook")
        rows.append(el("div", status, " ", h["summary"], id=anchor(prefix, h),
                       style=f"padding:1px 0;{line('border-bottom')}"))
    summary = el("summary", f"Hook ledger ({plural(len(entries), 'hook')})",
                 style="cursor:pointer;font-weight:600;margin:4px 0")
    return el("details", summary, rows, open=len(entries) <= OPEN_LEDGER_UP_TO)


def event_table(events, prefix, limit=MAX_TABLE_ROWS):
    """One event per two rows: number, time, kind, cell and notes; under them its tensors, the full width."""
    cell_style = "padding:2px 6px;vertical-align:top;text-align:left;word-break:break-word"
    widths = ("3em", "5.5em", "8em", "35%", "auto")
    head = el("tr", [el("th", h, style=cell_style + f";{line('border-bottom')};font-weight:600;width:{w}")
                     for h, w in zip(("#", "t (ms)", "event", "cell", "notes"), widths)], style=_ROW)
    rows = [head]
    for e in events[:limit]:
        kind = el("span", e["kind"], style=badge(KIND_TONES.get(e["kind"])) + ";margin-left:0")
        who = el("div", label_of(e), style=f"padding-left:{min(e['depth'], 8) * 10}px")
        tensors = e["tensors"]
        notes = []
        if e["kind"] == "param_grads":
            notes.append(el("div", f"{plural(len(tensors), 'Parameter')}' gradients"))
            tensors = [t for t in tensors if t.get("nan") or t.get("inf") or t.get("norm") in ("nan", "inf")] \
                or tensors[:3]
        lines = [el("div", describe_tensor(t), style=MONO) for t in tensors]
        if e["kind"] == "hook":
            notes.append(el("div", describe_hook(e)))
            if e["hook"]["returned"] == "error":
                notes.append(_chip("raised", "error", strong=True))
        if e["kind"] == "op":
            notes.append(el("div", describe_op(e)))
        if e["duration_ms"] is not None and e["kind"] != "hook":
            notes.append(el("div", f"took {format_number(e['duration_ms'])} ms", style=MUTED))
        notes += _flag_chips([e])
        ring = f";border-left:3px solid {RING}" if e.get("first") else ""
        rows.append(el("tr", [
            el("td", str(e["index"]), style=cell_style + ring),
            el("td", f"{e['time_ms']:.3f}", style=cell_style + f";{MONO}"),
            el("td", kind, style=cell_style), el("td", who, style=cell_style),
            el("td", notes, style=cell_style),
        ], id=f"{prefix}-ev{e['index']}", style=_ROW))
        rows.append(el("tr", el("td", "", style=f"padding:0;{line('border-bottom')}" + ring),
                       el("td", lines, colspan="4", style=f"{cell_style};padding-bottom:4px;font-size:0.95em;"
                                                          f"{line('border-bottom')}"), style=_ROW))
    table = el("table", rows, style="border-collapse:collapse;font-size:12px;table-layout:fixed;width:100%")
    if len(events) > limit:
        return el("div", table, el("div", f"… {plural(len(events) - limit, 'more event')} (all of them are in "
                                          f"to_dict())", style=MUTED))
    return table


def legend():
    items = [_chip("forward", "accent"), _chip("backward", "warn"), _chip("#n hook → None / replaced", "hook"),
             _chip("hook raised", "error")]
    items += [_chip(FLAG_TITLES[f], FLAG_TONES[f]) for f in FLAG_KINDS if f != "inf"]
    items.append(el("span", "first appearance: ringed", style=f"border:2px solid {RING};border-radius:5px;"
                                                                  f"padding:0 5px;margin-left:4px;font-size:0.85em"))
    return el("div", items, style="margin:2px 0 4px 0;font-size:12px;line-height:1.7")


def anchor_prefix(trace_, events):
    """A short id prefix, the same for the same trace (anchors must not collide between two traces)."""
    key = json.dumps([trace_.root, len(events), [(e["kind"], e["path"], round(e["time_ms"], 6)) for e in events[:8]],
                      round(events[-1]["time_ms"], 6) if events else 0], sort_keys=True)
    return "ck" + hashlib.sha1(key.encode()).hexdigest()[:8]


def _flag_lines(events, prefix):
    firsts = {}
    for e in events:
        for f in e.get("first", []):
            firsts.setdefault(f, e)
    if not firsts:
        return [el("div", "no NaN, Inf, vanishing or exploding gradient seen", style=MUTED)]
    out = []
    for f in FLAG_KINDS:
        if f not in firsts:
            continue
        e = firsts[f]
        text = [describe_first(e, short=True)]
        if e["kind"] == "op" and e["op"]["op"] is not None and e["op"].get("code"):
            text += [": ", el("code", e["op"]["code"], style=f"{MONO};font-weight:600;word-break:break-word")]
            text.append("; its inputs were finite" if e["op"].get("inputs_finite") else
                        "; its inputs already held NaN/Inf")
        out.append(el("div", _chip(f"first {FLAG_TITLES[f]}", FLAG_TONES[f], strong=True), " ", text, " ",
                      el("a", "show in the timeline", href=f"#{prefix}-first-{f}", style="font-size:0.9em"),
                      " · ", el("a", "in the table", href=f"#{prefix}-ev{e['index']}", style="font-size:0.9em"),
                      style="margin:1px 0", title=describe_first(e)))
    return out


def render_trace(trace_, upto=None, depth=None, window=None):
    """The whole display (see the module docstring)."""
    events = trace_.events if upto is None else trace_.events[:max(0, int(upto))]
    from .hookledger import ledger

    entries = ledger(trace_) if upto is None else []
    lines = summary_lines(trace_.root, events, entries if upto is None else None, trace_.notes)
    title = lines[0] + (f" — showing the first {len(events)}" if upto is not None else "")
    prefix = anchor_prefix(trace_, events)
    parts = [el("div", title, style="font-weight:600;font-size:14px;margin-bottom:2px")]
    parts += _flag_lines(events, prefix)
    for text in lines[2:]:
        tone_name = "error" if " raised " in text else ("warn" if "never fired" in text else None)
        if tone_name:
            parts.append(el("div", _chip("hooks", tone_name, strong=tone_name == "error"), " ", text,
                            style="margin:1px 0"))
        else:
            parts.append(el("div", text, style=f"{MUTED};font-size:12px"))
    if not events:
        parts.append(el("div", "(no events: run the network inside the 'with' block)", style=MUTED))
    else:
        parts += [legend(), timeline(events, depth=depth, window=window, prefix=prefix)]
        if entries:
            parts.append(ledger_html(entries, prefix))
        summary = el("summary", f"Event table ({plural(len(events), 'event')}, in order)",
                     style="cursor:pointer;font-weight:600;margin:4px 0")
        parts.append(el("details", summary, event_table(events, prefix), open=len(events) <= OPEN_TABLE_UP_TO))
    return el("div", parts, style=f"{SANS};font-size:13px;line-height:1.4;text-align:left;max-width:100%")
