"""Mixed precision for Cells: ``to_float``, ``cast_inputs``, ``auto_cast_inputs``, ``cast_param``.

``to_float(dst)`` makes a Cell (and every Cell below it) compute in ``dst``:
its floating inputs are cast before ``construct``, and while ``construct``
runs its own floating Parameters read as ``dst`` casts of themselves
(``self.weight`` inside ``construct`` is a differentiable cast, so the
gradient still reaches the float32 Parameter, which keeps its dtype).
This is MindSpore's rule that "all inputs of the Cell, Parameters
included, are cast".  The most recent call wins, even a parent's call made
after its children's (as in MindSpore).

>>> import cellkit as ms
>>> from cellkit import nn
>>> dense = nn.Dense(3, 2).to_float(ms.float16)
>>> dense(ms.ops.ones((1, 3))).dtype, dense.weight.dtype
(mindspore.float16, mindspore.float32)
"""
from __future__ import annotations

from contextlib import contextmanager

from .. import dtype as _dt
from ..ops import creation
from ..tensor import Tensor

__all__ = ["PrecisionMixin"]

_ALLOWED = (_dt.float16, _dt.float32, _dt.bfloat16)


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


class PrecisionMixin:
    """The mixed-precision part of ``nn.Cell``."""

    def _init_precision(self):
        object.__setattr__(self, "_dst_type", None)

    def to_float(self, dst_type):
        """Run this Cell and all Cells below it with floating inputs cast to ``dst_type``.

        While ``construct`` runs, the Cell's floating Parameters read as casts
        (``self.weight`` is a Tensor of ``dst_type``); a ``construct`` that
        updates a Parameter in place (running statistics) takes it from the
        registry, ``self._params['name']``.  Calling again replaces the type;
        the most recent call wins, also over an earlier call on a child.
        Returns the Cell.

        Raises
        ------
        ValueError
            If ``dst_type`` is not float16, float32 or bfloat16.
        """
        # By identity: ``in`` would compare with ``==``, which a Tensor or an array answers elementwise.
        if not any(dst_type is allowed for allowed in _ALLOWED):
            raise ValueError(
                "For 'to_float', the argument 'dst_type' must be mstype.float32, mstype.float16 or "
                f"mstype.bfloat16, but got {dst_type!r}"
            )
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_dst_type", dst_type)
            cell._refresh_call_path()
        return self

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
        if self._dst_type is None:
            return tuple(inputs)
        return self.cast_inputs(tuple(inputs), self._dst_type)

    @contextmanager
    def _parameters_cast(self):
        """While ``construct`` runs: this Cell's floating Parameters read as casts to the ``to_float`` type.

        Only the attribute view is swapped (the registry keeps the
        Parameters); everything is put back afterwards, even on error.
        """
        dst = self._dst_type
        attributes = self.__dict__
        swapped = []
        for name, param in self._params.items():
            if attributes.get(name) is param and param is not None and param.dtype.is_floating_point \
                    and param.dtype is not dst and param._data is not None:
                swapped.append((name, param))
        for name, keys in self._params_tuples.items():
            members = attributes.get(name)
            if members is not None and any(p.dtype.is_floating_point and p.dtype is not dst for p in members):
                swapped.append((name, members))
        casts = []
        try:
            for name, original in swapped:
                if isinstance(original, tuple):
                    cast = tuple(self.cast_param(p) for p in original)
                else:
                    cast = self.cast_param(original)
                attributes[name] = cast
                casts.append((name, original, cast))
            yield
        finally:
            for name, original, cast in casts:
                if attributes.get(name) is cast:  # construct may have reassigned it: keep that
                    attributes[name] = original

    def cast_param(self, param):
        """``param`` cast to the :meth:`to_float` type for computing (the Parameter itself is unchanged)."""
        if self._dst_type is None or not param.dtype.is_floating_point or param.dtype is self._dst_type:
            return param
        return creation.cast(param, self._dst_type)
