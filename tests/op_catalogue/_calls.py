"""Catalogue entries reached through a call other than ``ops.<name>(...)``.

The generated tests call ``getattr(ops, info.name)(*args, **kwargs)``, which cannot express a
Primitive with no functional twin (``ops.DepthToSpace(2)(x)``), a Tensor method with no
function (``x.expand(2, 3)``), or a check that an op changed its input in place
(``ops.scatter_add(p, i, u)`` and then ``p``).  A :class:`CallInfo` adds ``call(ms, ops, *args,
**kwargs)`` for those; family modules list them in ``CALLS`` (beside ``OPS``), and
``tests/mindspore_cases/ops_layout_calls.py`` / ``tests/ops/test_layout_calls.py`` generate the
same cases and checks from them (fixture, NumPy reference, finite differences to second order,
strict device).  ``name`` is how the entry reads (``'DepthToSpace'``, ``'Tensor.expand'``).

:func:`grad_twin` makes the entry for an op of ``OPS`` whose gradient MindSpore gets wrong: its
``OPS`` samples stay forward-only (compared with MindSpore), and the twin's samples, reached
through the same ``ops.<name>``, differentiate (compared with finite differences to second
order, and their outputs with MindSpore).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional

from . import OpInfo


@dataclass(frozen=True)
class CallInfo(OpInfo):
    """An :class:`OpInfo` whose samples run ``call(ms, ops, *args, **kwargs)``."""

    call: Optional[Callable] = None
    # Set where MindSpore's gradient is wrong (contradicts mathematics): the case then records the
    # output only, and the gradients are checked against finite differences alone.
    mindspore_grad_wrong: str = ""

    def run(self, ms, ops, *args, **kwargs):
        return self.call(ms, ops, *args, **kwargs)


def grad_twin(name, samples, note):
    """A :class:`CallInfo` running ``ops.<name>`` on ``samples`` whose gradient MindSpore gets wrong (``note``)."""
    return CallInfo(f"grad_{name}", tuple(samples), call=lambda ms, ops, *a, **k: getattr(ops, name)(*a, **k),
                    mindspore_grad_wrong=note)


def split_wrong_gradients(infos, wrong):
    """``infos`` with the samples MindSpore differentiates wrongly made forward-only, and their grad twins.

    ``wrong`` maps an op's name to ``(labels, note)``: the labels of the affected samples (None: all
    that differentiate) and how MindSpore's gradient is wrong.
    """
    kept, twins = [], []
    for info in infos:
        if info.name not in wrong:
            kept.append(info)
            continue
        labels, note = wrong[info.name]
        chosen = [i for i, s in enumerate(info.samples)
                  if s.grad and (labels is None or info.sample_label(i) in labels)]
        named = [dataclasses.replace(info.samples[i], label=info.sample_label(i)) for i in chosen]
        samples = tuple(dataclasses.replace(s, grad=()) if i in chosen else s for i, s in enumerate(info.samples))
        kept.append(dataclasses.replace(info, samples=samples))
        if isinstance(info, CallInfo):
            twins.append(dataclasses.replace(info, name=f"grad_{info.name}", samples=tuple(named), bad=(),
                                             mindspore_grad_wrong=note))
        else:
            twins.append(grad_twin(info.name, named, note))
    return kept, twins
