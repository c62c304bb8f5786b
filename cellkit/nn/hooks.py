"""What the Cell's hooks are built from: hook registries and handles, and tape gates.

Forward hooks are plain Python calls around ``construct``.  Backward hooks
need the gradients flowing *into* a Cell's outputs and *out of* its inputs;
a :class:`~cellkit.tape_gate.TapeGate` on each side makes them visible.
"""
from __future__ import annotations

from ..hook_handles import HookRegistry, RemovableHandle, check_hook  # noqa: F401  (re-exported for the Cell)
from ..tape_gate import TapeGate  # noqa: F401  (re-exported for the Cell)

__all__ = ["RemovableHandle", "HookRegistry", "TapeGate", "check_hook"]
