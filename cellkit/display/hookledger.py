"""The hook ledger of a trace: every registered hook, what it did, and why a hook never fired.

For each hook a :func:`cellkit.trace` knows -- those registered on a watched
Cell when the trace started, and any that ran during it -- :func:`ledger`
gives: how often it fired, what it returned each time (None, a
replacement, or an exception), the norm of what it received and of what
it returned for its last replacement, the error of its last raise, and, for
a hook that never fired, the reason:

- forward hooks: the Cell was not called inside the trace;
- backward hooks: no gradient transform ran inside the trace, or no
  gradient reached the Cell (its output does not feed what was
  differentiated), or -- a ``register_backward_hook`` on a Cell whose
  pre-hook stage was reached -- no gradient *leaves* the Cell because its
  inputs need none (the data fed to a first layer);
- any hook in GRAPH_MODE, where hooks do not run.

>>> import cellkit as ms
>>> from cellkit import nn
>>> dense = nn.Dense(2, 1)
>>> _ = dense.register_backward_hook(lambda cell, grad_input, grad_output: None)
>>> with ms.trace(dense) as tr:
...     _ = dense(ms.ops.ones((1, 2)))
>>> entry = ledger(tr)[0]
>>> entry["stage"], entry["fired"], entry["reason"]
('backward', 0, 'no gradient transform ran inside the trace')
"""
from __future__ import annotations

from .trace import format_number

__all__ = ["ledger", "anchor"]


def anchor(prefix, entry):
    """A stable element id for a ledger entry (the same for the same hook in every display)."""
    import hashlib

    key = f"{entry['path']}|{entry['stage']}|{entry['name']}"
    return f"{prefix}-hook-{hashlib.sha1(key.encode()).hexdigest()[:10]}"


def _never_fired(entry, events, graph_mode):
    if graph_mode:
        return "hooks do not run in GRAPH_MODE"
    path, stage = entry["path"], entry["stage"]
    own = [e for e in events if e["path"] == path and e["kind"] != "hook"]
    called = any(e["kind"] == "forward_pre" for e in own)
    if stage in ("forward_pre", "forward"):
        return "the Cell was not called inside the trace" if not called else "the Cell's call ended before it"
    if not any(e["kind"] in ("backward_pre", "backward") for e in events):
        return "no gradient transform ran inside the trace"
    if not called:
        return "the Cell was not called inside the trace"
    reached = any(e["kind"] == "backward_pre" for e in own)
    if not reached:
        return "no gradient reached this Cell's output (it does not feed what was differentiated)"
    if stage == "backward":
        return "no gradient leaves this Cell: its inputs need none (the data fed to a first layer)"
    return "the gradient reached it only in a part of the trace it does not cover"


def ledger(trace):
    """One dict per hook: ``path``, ``cell``, ``stage``, ``name``, ``registered``, ``fired``, ``returned``
    (counts per outcome), ``error``, ``before_norm``, ``after_norm`` (the last replacement), ``events``
    (their indices), ``reason`` (why it never fired, or None) and ``summary`` (one line)."""
    graph_mode = any(n.startswith("GRAPH_MODE") for n in getattr(trace, "notes", ()))
    entries = []
    for i, raw in enumerate(trace.hooks):
        entry = dict(raw, fired=0, returned={"None": 0, "replacement": 0, "error": 0}, error=None,
                     before_norm=None, after_norm=None, events=[], reason=None)
        entries.append(entry)
    for e in trace.events:
        if e["kind"] != "hook":
            continue
        index = e["hook"].get("ledger")
        if index is None or index >= len(entries):
            continue
        entry = entries[index]
        entry["fired"] += 1
        entry["events"].append(e["index"])
        entry["returned"][e["hook"]["returned"]] += 1
        if e["hook"]["returned"] == "error":
            entry["error"] = e["hook"]["error"]
        if e["hook"]["returned"] == "replacement":
            entry["before_norm"], entry["after_norm"] = e["hook"].get("before_norm"), e["hook"].get("after_norm")
    for entry in entries:
        if not entry["fired"]:
            entry["reason"] = _never_fired(entry, trace.events, graph_mode)
        entry["summary"] = _summary(entry, trace.root)
    return entries


def _summary(entry, root):
    who = f"{entry['stage'].replace('_', ' ')} hook {entry['name']} on {entry['path'] or root}"
    if entry["registered"] == "during":
        who += " (registered during the trace)"
    if not entry["fired"]:
        return f"{who}: registered but never fired — {entry['reason']}"
    parts = [f"fired {entry['fired']}×"]
    returned = entry["returned"]
    if returned["None"]:
        parts.append(f"returned None {returned['None']}×")
    if returned["replacement"]:
        text = f"replaced {returned['replacement']}×"
        if entry["before_norm"] is not None or entry["after_norm"] is not None:
            text += f" (norm {format_number(entry['before_norm'])} → {format_number(entry['after_norm'])})"
        parts.append(text)
    if returned["error"]:
        parts.append(f"RAISED {returned['error']}×: {entry['error']}")
    return f"{who}: " + ", ".join(parts)
