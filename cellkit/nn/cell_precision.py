"""Mixed precision for Cells: ``to_float``, the mixed-precision type, and input casts.

``to_float(dst)`` makes a Cell (and every Cell below it) compute in ``dst``.
The Cell's call then has a *cast inputs* stage (see
:mod:`cellkit.nn.cell_call`): its floating inputs are cast to ``dst``, and
while the call runs, each floating Parameter of the Cell is cast *at the
point of use* -- reading ``self.weight`` in ``construct`` gives a
differentiable cast of the Parameter (made once per call), so the gradient
still reaches the float32 Parameter, which keeps its dtype.  Nothing is
swapped: the Cell's registry holds the Parameter *aside* (out of the
Cell's ``__dict__``, see :mod:`cellkit.nn.cell_registry`), so reading it
reaches ``Cell.__getattr__``, which gives the cast during the call and the
Parameter itself outside it.  The most recent call wins,
even a parent's call made after its children's (as in MindSpore).

MindSpore casts inside the ops instead (every op run during the Cell's call
casts its floating inputs), so there ``construct`` sees its inputs and
Parameters uncast; the results are the same for a Cell whose computation
starts from its inputs and Parameters.  A Cell that updates a Parameter in
place during ``construct`` (running statistics) takes it from the registry,
``self._params['name']``, to update the Parameter and not its cast.

``set_mixed_precision_type`` sets only the type a compiled graph uses, as
in MindSpore: it casts in ``GRAPH_MODE`` and not in PyNative.

>>> import cellkit as ms
>>> from cellkit import nn
>>> dense = nn.Dense(3, 2).to_float(ms.float16)
>>> dense(ms.ops.ones((1, 3))).dtype, dense.weight.dtype
(mindspore.float16, mindspore.float32)
>>> dense.get_mixed_precision_type()
<MixedPrecisionType.FP16: 1>
"""
from __future__ import annotations

import enum

from .. import dtype as _dt
from ..ops import creation
from ..tensor import Tensor
from .cell_call import in_flight, stage

__all__ = ["MixedPrecisionType", "Precision", "to_float", "apply_flags", "cast_inputs", "auto_cast_inputs", "cast_param",
           "get_mixed_precision_type", "set_mixed_precision_type"]


class MixedPrecisionType(enum.IntEnum):
    """The mixed-precision type of a Cell: ``NOTSET``, ``FP16``, ``FP32`` or ``BF16``."""

    NOTSET = 0
    FP16 = 1
    FP32 = 2
    BF16 = 3

    def __str__(self):
        return f"MixedPrecisionType.{self.name}"


_ALLOWED = (_dt.float16, _dt.float32, _dt.bfloat16)
_TYPE_OF_DTYPE = ((_dt.float16, MixedPrecisionType.FP16), (_dt.float32, MixedPrecisionType.FP32),
                  (_dt.bfloat16, MixedPrecisionType.BF16))


class Precision:
    """A Cell's precision part: the type its calls compute in (PyNative and graph) and its graph-only type."""

    __slots__ = ("dst_type", "graph_type")

    def __init__(self, dst_type=None, graph_type=None):
        self.dst_type = dst_type      # to_float: casts in every mode
        self.graph_type = graph_type  # set_mixed_precision_type (and to_float): casts in GRAPH_MODE


def _precision_of(cell):
    part = cell._precision
    if part is None:
        part = Precision()
        object.__setattr__(cell, "_precision", part)
    return part


def _cast_tree(value, dst):
    """Cast floating Tensors (also inside tuples and lists) to ``dst``; leave the rest."""
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point and value.dtype is not dst:
            return creation.cast(value, dst)
        return value
    if isinstance(value, tuple):
        return tuple(_cast_tree(v, dst) for v in value)
    if isinstance(value, list):
        return [_cast_tree(v, dst) for v in value]
    return value


# ------------------------------------------------------------------------ Cell methods
def to_float(self, dst_type):
    """Run this Cell and all Cells below it with floating inputs and Parameters cast to ``dst_type``.

    Calling again replaces the type; the most recent call wins, also over
    an earlier call on a child.  Returns the Cell.

    Raises
    ------
    ValueError
        If ``dst_type`` is not float16, float32 or bfloat16.
    """
    # By identity: ``in`` would compare with ``==``, which a Tensor or an array answers elementwise.
    if not any(dst_type is allowed for allowed in _ALLOWED):
        raise ValueError(
            "For 'to_float', the argument 'dst_type' must be mstype.float32, mstype.float16 or "
            f"mstype.bfloat16, but got type: {type(dst_type)} and value: {dst_type!r}."
        )
    # As in MindSpore, to_float is the flags fp16 / fp32 / bf16 on every Cell below (see apply_flags).
    return self.add_flags_recursive(fp16=dst_type is _dt.float16, fp32=dst_type is _dt.float32,
                                    bf16=dst_type is _dt.bfloat16)


_FLAG_TYPES = (("fp16", _dt.float16, MixedPrecisionType.FP16), ("fp32", _dt.float32, MixedPrecisionType.FP32),
               ("bf16", _dt.bfloat16, MixedPrecisionType.BF16))


def apply_flags(cell, flags):
    """``add_flags(fp16=True)`` (or fp32 / bf16): the Cell computes in that type from now on (as to_float)."""
    for flag, dtype, kind in _FLAG_TYPES:
        if flags.get(flag):
            part = _precision_of(cell)
            part.dst_type = part.graph_type = dtype
            object.__setattr__(cell, "mixed_precision_type", kind)
            hold_cast_parameters(cell)
            cell._configure_call()


def get_mixed_precision_type(self):
    """The Cell's :class:`MixedPrecisionType` (``NOTSET`` until ``to_float`` or ``set_mixed_precision_type``).

    (The attribute ``mixed_precision_type`` says what ``to_float`` / ``add_flags(fp16=True)`` set:
    ``None`` before; ``set_mixed_precision_type`` leaves it alone, as in MindSpore.)
    """
    part = self._precision
    dst = None if part is None else part.graph_type
    for dtype, kind in _TYPE_OF_DTYPE:
        if dst is dtype:
            return kind
    return MixedPrecisionType.NOTSET


def set_mixed_precision_type(self, mixed_type):
    """Set the type a compiled graph of this Cell computes in (GRAPH_MODE only; this Cell only).

    As in MindSpore, PyNative calls are not cast by it: use :meth:`to_float`
    for that.

    Raises
    ------
    TypeError
        If ``mixed_type`` is not a :class:`MixedPrecisionType`.
    """
    if not isinstance(mixed_type, MixedPrecisionType):
        raise TypeError("set_mixed_precision_type(): incompatible function arguments: 'mixed_type' must be a "
                        f"MixedPrecisionType, but got {type(mixed_type).__name__} {mixed_type!r}")
    dtypes = {kind: dtype for dtype, kind in _TYPE_OF_DTYPE}
    _precision_of(self).graph_type = dtypes.get(mixed_type)
    hold_cast_parameters(self)
    self._configure_call()


def cast_inputs(self, inputs, dst_type):
    """``inputs`` (a tuple) with every floating Tensor cast to ``dst_type``."""
    if not isinstance(inputs, tuple):
        raise TypeError(f"For 'cast_inputs', 'inputs' must be a tuple, but got {type(inputs).__name__}")
    try:
        dst_type = _dt.to_dtype(dst_type)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"For 'cast_inputs', 'dst_type': {exc}") from None
    return tuple(_cast_tree(v, dst_type) for v in inputs)


def auto_cast_inputs(self, inputs):
    """``inputs`` cast to the type set by :meth:`to_float` (unchanged if none was set)."""
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(f"For 'auto_cast_inputs', 'inputs' must be a tuple, but got {type(inputs).__name__}")
    dst = None if self._precision is None else self._precision.dst_type
    if dst is None:
        return tuple(inputs)
    return self.cast_inputs(tuple(inputs), dst)


def cast_param(self, param):
    """``param`` cast to the :meth:`to_float` type for computing (the Parameter itself is unchanged)."""
    dst = None if self._precision is None else self._precision.dst_type
    if dst is None or not param.dtype.is_floating_point or param.dtype is dst:
        return param
    return creation.cast(param, dst)


def hold_cast_parameters(cell):
    """Hold ``cell``'s floating Parameters aside in its registry, so that reading one reaches
    ``Cell.__getattr__`` -- which hands out its cast while the Cell's call runs (:func:`parameter_in_call`)."""
    if not casts_anything(cell):
        return
    params = cell._params
    for name, param in params.items():
        if param is not None and param.dtype.is_floating_point:
            params.hold_aside(name)


def casts_anything(cell):
    """Whether ``cell``'s calls have a cast stage."""
    part = cell._precision
    return part is not None and (part.dst_type is not None or part.graph_type is not None)


# ----------------------------------------------------------------------------- the stage
@stage("cast inputs", in_graph_mode=True)
def cast_call_inputs(call):
    """to_float: cast the floating inputs; the Cell's Parameters read as casts until the call ends."""
    part = call.cell._precision
    dst = part.graph_type if call.in_graph else part.dst_type
    if dst is None:
        return
    call.args = tuple(_cast_tree(a, dst) for a in call.args)
    if call.kwargs:
        call.kwargs = {key: _cast_tree(value, dst) for key, value in call.kwargs.items()}
    call.casts = (dst, {})


def parameter_in_call(cell, param):
    """``param`` as ``cell`` reads it: its cast while one of ``cell``'s casting calls runs, else itself."""
    for call in reversed(in_flight):
        if call.cell is cell:
            if call.casts is None or not param.dtype.is_floating_point:
                return param
            dst, made = call.casts
            if param.dtype is dst or param._data is None:
                return param
            cast = made.get(id(param))
            if cast is None:
                cast = made[id(param)] = creation.cast(param, dst)
            return cast
    return param
