"""Assignment: ops that update a Parameter or Tensor in place, and the augmented assignments.

``assign`` / ``assign_add`` / ``assign_sub`` return the updated variable (and update it: the fixture
holds MindSpore's output, the variable's new value).  A second call would update it again, so the
``AssignAdd`` / ``AssignSub`` Primitives are checked in ``tests/mindspore_cases/misc_api.py``, not as
aliases here.  ``augassign_*`` are what MindSpore's graph
compiler runs for ``x += y`` ...: the Python operator's value.  MindSpore 2.10 (PyNative) fails on
``augassign_div`` / ``augassign_floordiv`` of two multi-element Tensors ("The tensor should have only
one element"): those samples are compared with NumPy.  Python numbers, strings and lists (which the
augmented assignments also take) are in ``tests/mindspore_cases/misc_api.py``.

The in-place Tensor methods (``add_``, ``masked_fill_`` ...) have no ``ops`` function for the catalogue
to name; their cases are in ``tests/mindspore_cases/tensor_inplace.py``.
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample

F = Arr((2, 3))
POS = Arr((2, 3), low=0.5, high=2.0)
_TENSOR_DIV = "MindSpore 2.10 (PyNative) raises ValueError 'The tensor should have only one element' for two Tensors"


def _assign_ref(variable, value):
    return np.asarray(value).astype(variable.dtype)


OPS = [
    OpInfo("assign",
           (Sample((F, Arr((2, 3), low=-1.0, high=1.0)), label="float"),
            Sample((Arr((3,)), Arr((3,), "int64", 0, 5)), label="int_into_float"),
            Sample((Arr((2,), "int32", 0, 5), Arr((2,), "int32", -5, 0)), label="int"),
            Sample((Arr(()), Arr(())), label="zero_d")),
           ref=_assign_ref, primitive=lambda ops, x, y: ops.Assign()(x, y),
           bad=(Bad("rank", (Arr((2,)), Arr(()))), Bad("shape", (Arr((2,)), Arr((3,)))),
                Bad("list_variable", ([1.0, 2.0], Arr((2,)))))),
    OpInfo("assign_add",
           (Sample((F, Arr((2, 3), low=-1.0, high=1.0)), label="float"),
            Sample((Arr((3,)), Arr((3,), "int64", 0, 5)), label="int_into_float"),
            Sample((Arr((2,), "int64", 0, 5), Arr((2,), "int64", -5, 0)), label="int")),
           ref=lambda x, y: (x + y).astype(x.dtype),
           bad=(Bad("rank", (Arr((2,)), Arr(()))), Bad("float_into_int", (Arr((2,), "int64"), Arr((2,)))))),
    OpInfo("assign_sub",
           (Sample((F, Arr((2, 3), low=-1.0, high=1.0)), label="float"),
            Sample((Arr((2,), "int32", 0, 5), Arr((2,), "int32", -5, 0)), label="int")),
           ref=lambda x, y: (x - y).astype(x.dtype),
           bad=(Bad("shape", (Arr((2,)), Arr((3,)))),)),
    OpInfo("augassign_add",
           (Sample((F, Arr((3,))), grad=(0, 1), label="broadcast"), Sample((F, 2.5), grad=(0,), label="scalar"),
            Sample((Arr((2,), "int32", -5, 5), 3), label="int_scalar")),
           ref=np.add),
    OpInfo("augassign_sub",
           (Sample((F, Arr((3,))), grad=(0, 1), label="broadcast"), Sample((F, 2), label="scalar")),
           ref=np.subtract),
    OpInfo("augassign_mul",
           (Sample((F, Arr((3,))), grad=(0, 1), label="broadcast"), Sample((F, 2), label="scalar")),
           ref=np.multiply),
    OpInfo("augassign_div",
           (Sample((F, 2.0), grad=(0,), label="scalar"),
            Sample((F, Arr((2, 3), low=0.5, high=2.0)), label="tensors")),
           ref=np.true_divide, mindspore_wrong={"tensors": _TENSOR_DIV}),
    OpInfo("augassign_floordiv",
           (Sample((POS, 0.75), label="scalar"),
            Sample((Arr((2, 3), "int32", -9, 9), Arr((2, 3), "int32", 1, 4)), label="tensors")),
           ref=np.floor_divide, mindspore_wrong={"tensors": _TENSOR_DIV}),
    OpInfo("augassign_mod",
           (Sample((F, Arr((2, 3), low=0.5, high=2.0, away=0.1)), label="tensors"),),
           ref=np.mod),
]
