"""Ops that fit no other family: ``depend``, ``deepcopy``, ``eps``, ``move_to``, one-process communication.

``depend`` and ``deepcopy`` are identities (differentiable); ``move_to`` copies (MindSpore 2.10's CPU
build has no MoveTo kernel although the function documents CPU: compared with NumPy).  Communication
runs as rank 0 of a one-process group; MindSpore, never given a cluster (``communication.init()``),
answers for an uninitialised runtime, so ``get_rank`` and ``all_gather`` are compared with the
one-process answer in ``tests/mindspore_cases/misc_api.py`` (``get_rank``, ``get_process_group_ranks``,
``all_gather``; the catalogue compares with NumPy only Tensor results).  ``all_reduce`` and ``barrier``
have no entry: an uninitialised MindSpore answers them, then dies at exit (segmentation fault), so
nothing can be recorded (``tests/ops/test_misc_behaviour.py`` checks them).  The functions that take
functions, dtypes or sparse tensors (``jet``, ``partial``, ``mixed_precision_cast`` ...) are in
``misc_api.py`` too.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
_MOVE_TO = "MindSpore 2.10's CPU build has no MoveTo kernel (RuntimeError) although move_to documents CPU"


def _eps_ref(x):
    return np.full(x.shape, np.finfo(x.dtype).eps, x.dtype)


OPS = [
    OpInfo("depend",
           (Sample((F, Arr((3,))), grad=(0,), label="tensor"), Sample((Arr((2,), "int32"), F), label="int")),
           ref=lambda value, expr: value, primitive=lambda ops, v, e: ops.Depend()(v, e)),
    OpInfo("deepcopy",
           (Sample((F,), grad=(0,), label="float"), Sample((Arr((3,), "int64"),), label="int"),
            Sample((Arr((2,), "bool"),), label="bool")),
           ref=lambda x: x.copy(),
           bad=(Bad("list", ([1, 2],)),)),
    OpInfo("eps",
           (Sample((F,), label="float32"), Sample((Arr((2,), "float64"),), label="float64"),
            Sample((Arr((2,), "float16"),), label="float16")),
           ref=_eps_ref,
           bad=(Bad("int", (Arr((2,), "int64"),)), Bad("list", ([1.0, 2.0],)))),
    OpInfo("move_to",
           (Sample((F, "CPU"), label="cpu"), Sample((Arr((2,), "int64"),), label="default")),
           ref=lambda x, to="CPU": x, mindspore_wrong={"cpu": _MOVE_TO, "default": _MOVE_TO}),
    # Results that are not Tensors (None, names) cannot be compared across devices: strict=False.
    OpInfo("new_group", (Sample((), label="world"),), strict=False),
    OpInfo("get_backend", (Sample((), label="world"),), strict=False),
]
