"""Tensor's arithmetic methods and operators, attached from the ops layer.

``tensor.py`` sits below the ops, so it cannot import them; instead this
module gives the Tensor class its ``+``, ``@``, ``sum()``, ``reshape()`` ...
once, when :mod:`cellkit.ops` is imported (which ``import cellkit`` does).
"""
from __future__ import annotations

from .. import dtype as _dt
from ..tensor import Tensor
from . import creation, gradient_control, linalg, math, reduce
from . import shape_ops as shape


def _axes_or_none(axis):
    return None if axis == () else axis


def _reverse(fn):
    return lambda self, other: fn(other, self)


def _astype(self, dtype, copy=True):
    """The values converted to ``dtype`` (a dtype object or a name); always a new tensor."""
    out = creation.cast(self, _dt.to_dtype(dtype))
    if out is self:  # nothing to convert; MindSpore still returns a new tensor
        out = _copy(self) if copy else Tensor._from_array(self._data)
    return out


def _caster(dtype, name):
    def convert(self):
        return _astype(self, dtype)

    convert.__name__ = name
    convert.__doc__ = f"Same as ``astype({dtype!r})``."
    return convert


def _eq(self, other):
    """Elementwise ``==``; comparing with ``None`` is simply False, as in MindSpore."""
    if other is None:
        return False
    return math.equal(self, other)


def _ne(self, other):
    if other is None:
        return True
    return math.not_equal(self, other)


def _reshape(self, *shape):
    """``t.reshape(2, 3)`` or ``t.reshape((2, 3))``."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return shape_mod.reshape(self, shape)


def _transpose(self, *axes):
    """Reverse the axes, or permute them: ``t.transpose(1, 0)`` / ``t.transpose((1, 0))``."""
    if not axes or axes == (None,):
        axes = tuple(reversed(range(self.ndim)))
    elif len(axes) == 1 and not isinstance(axes[0], int):
        axes = axes[0]
    return shape_mod.transpose(self, axes)


def _sum(self, axis=None, dtype=None, keepdims=False, initial=None, *, dim=None, keepdim=None):
    """``t.sum(axis, dtype, keepdims)``; also ``t.sum(dim, keepdim=...)`` and ``t.sum(1, True)``."""
    if dim is not None:
        axis = dim
    if isinstance(dtype, bool):  # t.sum(1, True): the second positional is keepdim
        dtype, keepdims = None, dtype
    if keepdim is not None:
        keepdims = keepdim
    out = reduce.sum(self, _axes_or_none(axis), keepdims, dtype=dtype)
    return out if initial is None else math.add(out, initial)


def _mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, keepdims=None):
    """``t.mean(axis, keep_dims)``; also ``dim=`` / ``keepdim=`` spellings."""
    if dim is not None:
        axis = dim
    for flag in (keepdim, keepdims):
        if flag is not None:
            keep_dims = flag
    return reduce.mean(self, _axes_or_none(axis), keep_dims)


def _numpy_style(axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
    return axis, keepdims, initial, where, return_indices


def _torch_style(dim=None, keepdim=False):
    return dim, keepdim


_NUMPY_ONLY = frozenset(("axis", "keepdims", "initial", "where", "return_indices"))


def _extreme_method(self, args, kwargs, name, values_only, with_indices, arg_fn):
    """MindSpore's two overloads of ``Tensor.max`` / ``Tensor.min``.

    ``t.max(1)``, ``t.max(dim=1)``, ``t.max(1, keepdim=True)`` return
    ``(values, indices)``; ``t.max()``, ``t.max(axis=1)``, ``t.max((0, 1))``
    return the values only (``return_indices=True`` adds the indices).
    """
    if args and isinstance(args[0], Tensor):
        raise TypeError(f"Tensor.{name}: an elementwise {name} of two tensors is ops.{name}imum(x, y)")
    torch_style = "dim" in kwargs or "keepdim" in kwargs or (
        bool(args) and isinstance(args[0], int) and not isinstance(args[0], bool)
        and not _NUMPY_ONLY.intersection(kwargs))
    if torch_style:
        dim, keepdim = _torch_style(*args, **kwargs)
        return with_indices(self, dim, keepdim)
    axis, keepdims, initial, where, return_indices = _numpy_style(*args, **kwargs)
    if initial is not None or where is not None:
        raise NotImplementedError(f"Tensor.{name}: 'initial' and 'where' are not supported by cellkit")
    values = values_only(self, _axes_or_none(axis), keepdims)
    if return_indices:
        return values, arg_fn(self, axis, keepdims)
    return values


def _max(self, *args, **kwargs):
    """The maximum: values, or ``(values, indices)`` along a positional / ``dim`` axis."""
    return _extreme_method(self, args, kwargs, "max", reduce.amax, reduce.max, reduce.argmax)


def _min(self, *args, **kwargs):
    """The minimum: values, or ``(values, indices)`` along a positional / ``dim`` axis."""
    return _extreme_method(self, args, kwargs, "min", reduce.amin, reduce.min, reduce.argmin)


def _flatten(self, order="C", *, start_dim=0, end_dim=-1):
    return shape_mod.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def _view(self, *shape):
    return _reshape(self, *shape)


def _squeeze(self, axis=None):
    return shape_mod.squeeze(self, axis)


def _copy(self):
    """A new tensor with its own copy of the values."""
    return Tensor._from_array(creation.xp().asarray(self._data, copy=True))


def _T(self):
    return _transpose(self)


def _argmax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return reduce.argmax(self, axis if dim is None else dim, keepdims if keepdim is None else keepdim)


def _argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return reduce.argmin(self, axis if dim is None else dim, keepdims if keepdim is None else keepdim)


shape_mod = shape

_METHODS = {
    # operators
    "__add__": math.add, "__radd__": _reverse(math.add),
    "__sub__": math.sub, "__rsub__": _reverse(math.sub),
    "__mul__": math.mul, "__rmul__": _reverse(math.mul),
    "__truediv__": math.div, "__rtruediv__": _reverse(math.div),
    "__floordiv__": math.floor_div, "__rfloordiv__": _reverse(math.floor_div),
    "__mod__": math.mod, "__rmod__": _reverse(math.mod),
    "__pow__": math.pow, "__rpow__": _reverse(math.pow),
    "__matmul__": linalg.matmul, "__rmatmul__": _reverse(linalg.matmul),
    "__neg__": math.neg, "__abs__": math.abs, "__pos__": lambda self: self,
    "__eq__": _eq, "__ne__": _ne,
    "__lt__": math.less, "__le__": math.less_equal,
    "__gt__": math.greater, "__ge__": math.greater_equal,
    "__and__": math.logical_and, "__or__": math.logical_or, "__invert__": math.logical_not,
    "__getitem__": shape.getitem, "__setitem__": shape.setitem,
    # methods
    "add": math.add, "sub": math.sub, "mul": math.mul, "div": math.div, "neg": math.neg,
    "pow": math.pow, "exp": math.exp, "log": math.log, "sqrt": math.sqrt, "abs": math.abs,
    "square": math.square, "rsqrt": math.rsqrt, "clamp": math.clamp, "clip": math.clamp,
    "maximum": math.maximum, "minimum": math.minimum, "matmul": linalg.matmul,
    "astype": _astype, "to": _astype, "reshape": _reshape, "view": _view, "transpose": _transpose,
    "permute": _transpose, "swapaxes": shape.swapaxes, "expand_dims": shape.expand_dims,
    "unsqueeze": shape.unsqueeze, "squeeze": _squeeze, "flatten": _flatten, "tile": shape.tile,
    "broadcast_to": shape.broadcast_to, "sum": _sum, "mean": _mean, "max": _max, "min": _min,
    "argmax": _argmax, "argmin": _argmin, "prod": reduce.prod, "copy": _copy,
    "equal": math.equal, "gather": shape.gather,
    "dim": lambda self: self.ndim, "numel": lambda self: self.size, "nelement": lambda self: self.size,
    "float": _caster(_dt.float32, "float"), "half": _caster(_dt.float16, "half"),
    "double": _caster(_dt.float64, "double"), "int": _caster(_dt.int32, "int"),
    "long": _caster(_dt.int64, "long"), "bool": _caster(_dt.bool_, "bool"),
    # gradient hooks
    "register_hook": gradient_control.register_hook, "remove_hook": gradient_control.remove_hook,
    "hooks": gradient_control.hooks,
}

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)

Tensor.T = property(_T)
Tensor.mT = property(lambda self: shape.swapaxes(self, -1, -2))


def install(*modules):
    """Give Tensor the methods each op module lists in its ``TENSOR_METHODS`` (name -> function)."""
    for module in modules:
        for name, fn in getattr(module, "TENSOR_METHODS", {}).items():
            _METHODS[name] = fn
            setattr(Tensor, name, fn)
