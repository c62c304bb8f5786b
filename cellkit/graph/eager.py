"""Cells that run op by op inside graph mode: optimizers and Cells with a custom ``bprop``.

An optimizer updates Parameters in place on raw arrays, and a custom
``bprop`` replaces autograd for its Cell; neither can be looked into by the
IR.  They become one *opaque* node that calls the Cell when the graph runs.
While such a Cell runs, Cells it calls run their ``construct`` directly
(still without hooks, as graph mode wants) rather than being compiled.

>>> opaque_depth
0
"""
from __future__ import annotations

from .. import autograd as _ag
from ..nn.cell_bprop import has_custom_bprop, run_custom_bprop

__all__ = ["run_opaque", "opaque_depth"]

# How many opaque Cells are running now.
opaque_depth = 0


def run_opaque(cell, args, kwargs):
    """Run ``cell`` op by op (its custom ``bprop`` under a gradient transform), hooks off."""
    global opaque_depth
    opaque_depth += 1
    try:
        if _ag._depth > 0 and has_custom_bprop(cell):
            return run_custom_bprop(cell, tuple(args), dict(kwargs))
        return cell.construct(*args, **kwargs)
    finally:
        opaque_depth -= 1
