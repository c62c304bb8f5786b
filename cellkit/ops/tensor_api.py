"""The Tensor object's own API: storage and device queries, ``clone``, ``new_*``, conversions, random methods.

Memory layout questions have simple answers here: a cellkit Tensor owns one
contiguous array of the current backend (NumPy, CuPy, array_api_strict), with
no storage offset.  ``data_ptr`` and ``strides`` report that array as NumPy
(or CuPy) sees it.

>>> import cellkit as ms
>>> x = ms.Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
>>> x.stride(), x.strides, x.is_contiguous()
([3, 1], (12, 4), True)
>>> print(x.new_zeros((2,)))
[0. 0.]
"""
from __future__ import annotations

import numbers
import weakref

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor
from ._core import backend, describe, dtype_arg, record, shape_arg, tensor_arg, wrap, xp

__all__ = []


def _ops():
    from .. import ops
    return ops


def _self(self, op):
    if not isinstance(self, Tensor):
        raise TypeError(f"For 'Tensor.{op}', self must be a Tensor, but got {describe(self)}")
    if self._data is None:
        self._require_data(f"Tensor.{op}")
    return self


# ------------------------------------------------------------------ memory and device
def _data_get(self):
    """The values without their autograd history: a Tensor sharing ``self``'s array (MindSpore's ``Tensor.data``)."""
    return Tensor._from_array(_self(self, "data")._data)


def _data_set(self, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For 'Tensor.data', the new data must be a Tensor, but got {describe(value)}")
    value = tensor_arg(value, "data", "Tensor.data")
    self._data = value._data
    self._lazy = None
    self._node = None


def data_ptr(self):
    """The address of the first element of the array (host memory on NumPy, device memory on CuPy).

    >>> import cellkit as ms
    >>> isinstance(ms.Tensor([1.0]).data_ptr(), int)
    True
    """
    data = _self(self, "data_ptr")._data
    interface = getattr(data, "__array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    cuda = getattr(data, "__cuda_array_interface__", None)
    if cuda is not None:
        return int(cuda["data"][0])
    return id(data)  # array_api_strict hides its buffer: a stable identity stands for it


def _device(self):
    """Where the tensor lives: ``'CPU'`` on NumPy, ``'GPU'`` on the other backends."""
    return "CPU" if backend().is_numpy else "GPU"


def _byte_strides(self):
    data = _self(self, "strides")._data
    strides = getattr(data, "strides", None)
    if strides is not None and isinstance(data, np.ndarray):
        return tuple(int(s) for s in strides)
    shape = tuple(self.shape)
    return tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * self.dtype.itemsize for i in range(len(shape)))


def stride(self, dim=None):
    """The element strides: a list for all dims, or one int for ``dim``.

    >>> import cellkit as ms
    >>> ms.Tensor([[1, 2, 3], [4, 5, 6]]).stride(0)
    3
    """
    _self(self, "stride")
    steps = [s // self.dtype.itemsize for s in _byte_strides(self)]
    if dim is None:
        return steps
    from ._core import normalize_axis
    return steps[normalize_axis(dim, self.ndim, "Tensor.stride", "dim")]


def storage_offset(self):
    """The offset of the first element in its storage: always 0 (a Tensor owns its array)."""
    _self(self, "storage_offset")
    return 0


def is_contiguous(self):
    """True when the array is laid out row-major without gaps."""
    data = _self(self, "is_contiguous")._data
    flags = getattr(data, "flags", None)
    return bool(flags["C_CONTIGUOUS"]) if flags is not None else True


def contiguous(self):
    """``self`` if its array is contiguous, else a contiguous copy."""
    if is_contiguous(self):
        return self
    return Tensor._from_array(np.ascontiguousarray(self._data))


def _clone_rule(m, node, g):
    return (g,)


def clone(self):
    """A copy of ``self`` with its own array; differentiable (the gradient passes straight back).

    >>> import cellkit as ms
    >>> x = ms.Tensor([1.0, 2.0])
    >>> y = x.clone()
    >>> print(y, y is x)
    [1. 2.] False
    """
    t = _self(self, "clone")
    out = backend().copy(t._data)
    if _ag._depth == 0 or t._node is None:
        return wrap(out)
    return record(out, "Clone", _clone_rule, (t,))


def _size_of(size, op):
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = (size,)
    dims = shape_arg(size, f"Tensor.{op}", "size", allow_int=True)
    from ..tensor import check_allocation
    check_allocation(dims, _dt.float64, f"Tensor.{op}", f"'size' {dims}")
    return dims


def _new_dtype(self, dtype, op):
    return self.dtype if dtype is None else dtype_arg(dtype, "dtype", f"Tensor.{op}")


def new_empty(self, size, *, dtype=None, device=None):
    """A new tensor of shape ``size`` with ``self``'s dtype (or ``dtype``); its values are zeros here."""
    _self(self, "new_empty")
    return _ops().zeros(_size_of(size, "new_empty"), _new_dtype(self, dtype, "new_empty"))


def new_full(self, size, fill_value, *, dtype=None):
    """A new tensor of shape ``size`` filled with ``fill_value``, with ``self``'s dtype (or ``dtype``).

    >>> import cellkit as ms
    >>> print(ms.Tensor([1.0]).new_full((2,), 3))
    [3. 3.]
    """
    _self(self, "new_full")
    if isinstance(fill_value, Tensor):
        fill_value = tensor_arg(fill_value, "fill_value", "Tensor.new_full")
        if fill_value.size != 1:
            raise ValueError(f"For 'Tensor.new_full', a Tensor 'fill_value' must hold one element, but got shape "
                             f"{tuple(fill_value.shape)}")
        fill_value = fill_value.asnumpy().reshape(()).item()
    if isinstance(fill_value, complex) or not isinstance(fill_value, (numbers.Number, np.number, np.bool_)):
        raise TypeError(f"For 'Tensor.new_full', 'fill_value' must be a number or a bool, but got "
                        f"{describe(fill_value)}")
    return _ops().full(_size_of(size, "new_full"), fill_value, dtype=_new_dtype(self, dtype, "new_full"))


def new_ones(self, size, dtype=None):
    """A new tensor of ones of shape ``size`` (an int or a tuple), with ``self``'s dtype (or ``dtype``)."""
    _self(self, "new_ones")
    return _ops().ones(_size_of(size, "new_ones"), _new_dtype(self, dtype, "new_ones"))


def new_zeros(self, size, dtype=None):
    """A new tensor of zeros of shape ``size`` (an int or a tuple), with ``self``'s dtype (or ``dtype``)."""
    _self(self, "new_zeros")
    return _ops().zeros(_size_of(size, "new_zeros"), _new_dtype(self, dtype, "new_zeros"))


# ------------------------------------------------------------------ dtype conversions
def _cast(self, dtype, op):
    _self(self, op)
    return Tensor.astype(self, dtype)


def type_(self, dtype=None):
    """The dtype's name (``'Float32'``) without ``dtype``; with one, a copy converted to it.

    >>> import cellkit as ms
    >>> ms.Tensor([1.0]).type()
    'Float32'
    """
    _self(self, "type")
    if dtype is None:
        return str(self.dtype)
    return _cast(self, dtype_arg(dtype, "dtype", "Tensor.type"), "type")


def type_as(self, other):
    """``self`` converted to ``other``'s dtype."""
    if not isinstance(other, Tensor):
        raise TypeError(f"For 'Tensor.type_as', 'other' must be a Tensor, but got {describe(other)}")
    return _cast(self, tensor_arg(other, "other", "Tensor.type_as").dtype, "type_as")


def byte(self):
    """``self.astype(mindspore.uint8)``."""
    return _cast(self, _dt.uint8, "byte")


def short(self):
    """``self.astype(mindspore.int16)``."""
    return _cast(self, _dt.int16, "short")


def bfloat16(self):
    """``self.astype(mindspore.bfloat16)`` (NumPy backend: ``ml_dtypes``)."""
    return _cast(self, _dt.bfloat16, "bfloat16")


def set_dtype(self, dtype):
    """Convert ``self``'s values to ``dtype`` in place; returns the dtype (as MindSpore does)."""
    _self(self, "set_dtype")
    if _ag._depth and isinstance(self._node, _ag.Leaf):
        raise RuntimeError("A leaf tensor that requires grad is being used in an inplace operator, "
                           "'Tensor.set_dtype' cannot convert it")
    d = dtype_arg(dtype, "dtype", "Tensor.set_dtype")
    converted = _ops().cast(self, d)
    self._data = converted._data
    self._node = converted._node
    return d


def is_signed(self):
    """True for a signed dtype (floats and signed ints), False for UInt8 and Bool."""
    return _self(self, "is_signed").dtype.kind in ("float", "int")


def ndimension(self):
    """The number of dimensions (``self.ndim``)."""
    return _self(self, "ndimension").ndim


def value(self):
    """The tensor itself (a Parameter's ``value()`` gives its data)."""
    return _self(self, "value")


# ------------------------------------------------------------------ conversion to and from other libraries
def from_numpy(array):
    """A Tensor with the values of the NumPy array ``array``, keeping its dtype.

    On the NumPy backend the Tensor uses ``array``'s memory (no copy), as MindSpore does: changes made to
    ``array`` show in the Tensor.  (cellkit's in-place methods give the Tensor a new array, so they do not
    show in ``array``.)

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(ms.Tensor.from_numpy(np.array([1.0, 2.0])).dtype)
    Float64
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"For 'Tensor.from_numpy', 'array' must be a numpy.ndarray, but got {describe(array)}")
    try:
        _dt.to_dtype(array.dtype)
    except TypeError:
        raise TypeError(f"For 'Tensor.from_numpy', arrays of dtype {array.dtype} are not supported") from None
    be = backend()
    if be.is_numpy:
        return Tensor._from_array(array if array.flags["C_CONTIGUOUS"] else np.ascontiguousarray(array))
    return Tensor._from_array(be.from_host(np.ascontiguousarray(array)))


def to_dlpack(self):
    """A DLPack capsule of ``self``'s array (zero-copy exchange with other array libraries)."""
    data = _self(self, "to_dlpack")._data
    try:
        return data.__dlpack__()
    except (AttributeError, TypeError, BufferError) as exc:
        raise RuntimeError(f"For 'Tensor.to_dlpack', the array cannot be exported: {exc}") from None


class _Capsule:
    """A DLPack capsule presented with the ``__dlpack__`` protocol NumPy's ``from_dlpack`` reads."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def from_dlpack(dlpack):
    """A Tensor from a DLPack capsule or any object with ``__dlpack__`` (a NumPy, CuPy, PyTorch array ...).

    >>> import numpy as np
    >>> import cellkit as ms
    >>> print(ms.Tensor.from_dlpack(np.array([1, 2], np.int32)))
    [1 2]
    """
    source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    if not hasattr(dlpack, "__dlpack__") and type(dlpack).__name__ != "PyCapsule":
        raise TypeError(f"For 'Tensor.from_dlpack', 'dlpack' must be a DLPack capsule or support __dlpack__, "
                        f"but got {describe(dlpack)}")
    be = backend()
    try:
        if be.name == "cupy":
            return Tensor._from_array(be.xp.from_dlpack(source))
        host = np.from_dlpack(source)
    except (TypeError, BufferError, RuntimeError, ValueError) as exc:
        raise RuntimeError(f"For 'Tensor.from_dlpack', the capsule cannot be read: {exc}") from None
    return from_numpy(host)


# ------------------------------------------------------------------ memory placement (one process, one memory)
def pin_memory(self):
    """A tensor with the same values: NumPy memory needs no pinning (it only speeds up host-to-GPU copies)."""
    return Tensor._from_array(_self(self, "pin_memory")._data)


def is_pinned(self):
    """False: cellkit never page-locks host memory."""
    _self(self, "is_pinned")
    return False


def is_shared(self):
    """False: cellkit tensors live in one process's memory."""
    _self(self, "is_shared")
    return False


class UntypedStorage:
    """The bytes behind a Tensor, without their dtype (MindSpore's ``UntypedStorage``).

    >>> import cellkit as ms
    >>> s = ms.Tensor([1.0, 2.0]).untyped_storage()
    >>> s.nbytes(), s.size()
    (8, 8)
    """

    def __init__(self, tensor):
        self._tensor = tensor

    def nbytes(self):
        return self._tensor.nbytes

    def size(self):
        return self._tensor.nbytes

    def __len__(self):
        return self._tensor.nbytes

    def element_size(self):
        return 1

    def data_ptr(self):
        return data_ptr(self._tensor)

    def device(self):
        return _device(self._tensor)

    @property
    def dtype(self):
        return _dt.uint8

    def is_shared(self):
        return False

    def tolist(self):
        return list(np.ascontiguousarray(self._tensor.asnumpy()).view(np.uint8).reshape(-1).tolist())

    def __repr__(self):
        return f"UntypedStorage(nbytes={self.nbytes()}, device={self.device()!r})"


def untyped_storage(self):
    """The tensor's storage as an :class:`UntypedStorage` (its bytes, without a dtype)."""
    return UntypedStorage(_self(self, "untyped_storage"))


def storage(self):
    """Same as :meth:`untyped_storage`."""
    return UntypedStorage(_self(self, "storage"))


def offload(self, file_path):
    """Write the tensor's bytes to ``file_path`` (MindSpore's offload to a file); returns True.

    The tensor keeps its values: one NumPy process has no device memory to give back.
    """
    _self(self, "offload")
    if not isinstance(file_path, str) or not file_path:
        raise TypeError(f"For 'Tensor.offload', 'file_path' must be a non-empty str, but got {describe(file_path)}")
    try:
        with open(file_path, "wb") as handle:
            handle.write(np.ascontiguousarray(self.asnumpy()).tobytes())
    except OSError as exc:
        raise RuntimeError(f"For 'Tensor.offload', cannot write {file_path!r}: {exc}") from None
    return True


_DEVICES = ("Ascend", "GPU", "CPU")


def move_to(self, to, blocking=True):
    """A copy of the tensor "moved" to ``to`` (``'Ascend'``, ``'GPU'`` or ``'CPU'``): cellkit has one device per
    backend, so the copy stays on the current one.

    >>> import cellkit as ms
    >>> print(ms.Tensor([1, 2]).move_to("CPU"))
    [1 2]
    """
    _self(self, "move_to")
    if to not in _DEVICES:
        raise ValueError(f"For 'Tensor.move_to', 'to' must be one of {list(_DEVICES)}, but got {to!r}")
    if not isinstance(blocking, bool):
        raise ValueError(f"For 'Tensor.move_to', 'blocking' must be a bool, but got {describe(blocking)}")
    return Tensor._from_array(backend().copy(self._data))


def to_(self, device=None, non_blocking=False):
    """Move ``self`` to ``device`` (``'Ascend'`` or ``'CPU'``) in place: with one device per backend, nothing moves;
    returns ``self``."""
    _self(self, "to_")
    if device not in ("Ascend", "CPU"):
        raise ValueError(f"For 'Tensor.to_', the value of 'to' must be one of ['Ascend', 'CPU'], but got {device!r}")
    if not isinstance(non_blocking, bool):
        raise TypeError(f"For 'Tensor.to_', 'non_blocking' must be a bool, but got {describe(non_blocking)}")
    return self


def delete_(self, non_blocking=False):
    """Release the tensor's memory; it then reads as zeros until new data is given (``x.data = y``).

    Returns ``self``.
    """
    _self(self, "delete_")
    if not isinstance(non_blocking, bool):
        raise TypeError(f"For 'Tensor.delete_', 'non_blocking' must be a bool, but got {describe(non_blocking)}")
    be = backend()
    zero = be.from_host(np.zeros((), dtype=np.dtype(self.dtype.array_name) if self.dtype is not _dt.bfloat16
                                 else self.dtype.to_backend(np)))
    self._data = be.xp.broadcast_to(zero, tuple(self.shape))  # one element of memory, whatever the shape
    self._node = None
    return self


# ------------------------------------------------------------------ gradients and initialisation
# Tensors marked by requires_grad_: id -> (weak reference, flag).  Keyed by identity, since a Tensor's
# ``==`` is elementwise; the entry leaves with the Tensor.
_requires_grad = {}


def requires_grad_(self, requires_grad=True):
    """Mark the tensor as requiring a gradient (recorded; MindSpore 2.10 returns None, and so does cellkit).

    ``ms.grad`` and ``ms.value_and_grad`` choose what they differentiate from their arguments, not from
    this mark.
    """
    _self(self, "requires_grad_")
    if not isinstance(requires_grad, bool):
        raise TypeError(f"For 'Tensor.requires_grad_', 'requires_grad' must be a bool, but got "
                        f"{describe(requires_grad)}")
    key = id(self)
    _requires_grad[key] = (weakref.ref(self, lambda _, key=key: _requires_grad.pop(key, None)), requires_grad)
    return None


def assign_value(self, value):
    """Make ``self`` hold ``value``'s values (shape and dtype included); returns ``self``.

    >>> import cellkit as ms
    >>> x = ms.Tensor([1, 2, 3, 4])
    >>> print(x.assign_value(ms.Tensor([[1, 2], [3, 4]])))
    [[1 2]
     [3 4]]
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"For 'Tensor.assign_value', self must be a Tensor, but got {describe(self)}")
    if not isinstance(value, Tensor):
        raise TypeError(f"For 'Tensor.assign_value', 'value' must be a Tensor, but got {describe(value)}")
    if _ag._depth and isinstance(self._node, _ag.Leaf):
        raise RuntimeError("A leaf tensor that requires grad is being used in an inplace operator, "
                           "'Tensor.assign_value' cannot replace it")
    value = tensor_arg(value, "value", "Tensor.assign_value")
    self._data = value._data
    self._lazy = None
    self._node = value._node if _ag._depth else None
    return self


def _init_get(self):
    """The initializer a lazily initialised tensor waits for (None once it has data)."""
    return self._lazy[2] if self._data is None and self._lazy is not None else None


def _init_set(self, value):
    if self._data is not None or self._lazy is None:
        raise RuntimeError("Tensor.init: only a tensor created with shape, dtype and init (no data yet) has an "
                           f"initializer, but this one holds data of shape {tuple(self.shape)}")
    self._lazy = (self._lazy[0], self._lazy[1], value)


def is_init(self):
    """True once a lazily initialised tensor has been given its values by ``init_data``; False otherwise."""
    return False


# ------------------------------------------------------------------ filling (out of place)
def fill(self, value):
    """A new tensor shaped like ``self`` holding ``value`` everywhere (MindSpore's deprecated ``Tensor.fill``)."""
    _self(self, "fill")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Number, np.number)) \
            or isinstance(value, complex):
        raise TypeError(f"For 'Tensor.fill', 'value' must be an int or a float, but got {describe(value)}")
    return _ops().full(tuple(self.shape), value, dtype=self.dtype)


def fills(self, value):
    """Same as :func:`fill` (also takes a one-element Tensor)."""
    if isinstance(value, Tensor):
        value = tensor_arg(value, "value", "Tensor.fills")
        if value.size != 1:
            raise ValueError(f"For 'Tensor.fills', a Tensor 'value' must hold one element, but got shape "
                             f"{tuple(value.shape)}")
        value = value.asnumpy().reshape(()).item()
    return fill(self, value)


# ------------------------------------------------------------------ random draws shaped like self
def bernoulli(self, *, generator=None):
    """0/1 draws shaped like ``self``, 1 with the probability given by each element of ``self`` (in [0, 1]).

    >>> import cellkit as ms
    >>> print(ms.Tensor([0.0, 1.0]).bernoulli())
    [0. 1.]
    """
    from .inplace import _generator_arg, _random_draws

    _self(self, "bernoulli")
    if self.dtype.kind != "float":
        raise TypeError(f"For 'Tensor.bernoulli', the tensor must hold float probabilities, but got {self.dtype}")
    prob = np.asarray(self.asnumpy(), dtype=np.float64)
    if np.any((prob < 0) | (prob > 1)):
        raise ValueError("For 'Tensor.bernoulli', every probability must be in [0, 1]")
    draws = _random_draws(_generator_arg(generator, "bernoulli"), "random", self.shape) < prob
    return _drawn(draws, self.dtype)


def _drawn(host, dtype):
    from .random import _to_device
    return wrap(_to_device(np.asarray(host), dtype))


def _float_self(self, op):
    _self(self, op)
    if self.dtype.kind != "float":
        raise TypeError(f"For 'Tensor.{op}', the tensor must be a Float16/32/64 tensor, but got {self.dtype}")
    return self


def cauchy(self, median=0.0, sigma=1.0):
    """Draws from the Cauchy distribution (``median``, scale ``sigma``), shaped like ``self`` and of its dtype."""
    from .inplace import _number, _random_draws
    from .. import seed as _seed

    _float_self(self, "cauchy")
    median = _number(median, "median", "cauchy", allow_tensor=False)
    sigma = _number(sigma, "sigma", "cauchy", allow_tensor=False)
    return _drawn(median + sigma * _random_draws(_seed.generator(), "standard_cauchy", self.shape), self.dtype)


def log_normal(self, mean=1.0, std=2.0):
    """Draws of ``exp(N(mean, std**2))``, shaped like ``self`` and of its dtype."""
    from .inplace import _number, _random_draws
    from .. import seed as _seed

    _float_self(self, "log_normal")
    mean = _number(mean, "mean", "log_normal", allow_tensor=False)
    std = _number(std, "std", "log_normal", allow_tensor=False)
    return _drawn(np.exp(mean + std * _random_draws(_seed.generator(), "standard_normal", self.shape)), self.dtype)


def uniform(self, from_=0.0, to=1.0, generator=None):
    """Draws from the uniform distribution on ``[from_, to)``, shaped like ``self`` and of its dtype."""
    from .inplace import _generator_arg, _number, _random_draws

    _float_self(self, "uniform")
    low = _number(from_, "from_", "uniform")
    high = _number(to, "to", "uniform")
    if low > high:
        raise RuntimeError(f"For 'Tensor.uniform', 'from_' ({low}) must not be larger than 'to' ({high})")
    draws = _random_draws(_generator_arg(generator, "uniform"), "random", self.shape)
    return _drawn(low + (high - low) * draws, self.dtype)


def multinomial(self, num_samples, replacement=True, seed=None):
    """``ops.multinomial(self, num_samples, replacement, seed)``."""
    from .random import multinomial as _multinomial
    return _multinomial(self, num_samples, replacement, seed)


def random_categorical(self, num_sample, seed=0, dtype=_dt.int64):
    """``ops.random_categorical(self, num_sample, seed, dtype)``."""
    from .random import random_categorical as _random_categorical
    return _random_categorical(self, num_sample, seed, dtype)


TENSOR_METHODS = {
    "data": property(_data_get, _data_set), "data_ptr": data_ptr, "device": property(_device),
    "strides": property(_byte_strides), "stride": stride, "storage_offset": storage_offset,
    "is_contiguous": is_contiguous, "contiguous": contiguous, "clone": clone, "new_empty": new_empty,
    "new_full": new_full, "new_ones": new_ones, "new_zeros": new_zeros, "type": type_, "type_as": type_as,
    "byte": byte, "short": short, "bfloat16": bfloat16, "to_": to_, "from_numpy": staticmethod(from_numpy),
    "from_dlpack": staticmethod(from_dlpack), "to_dlpack": to_dlpack, "pin_memory": pin_memory,
    "is_pinned": is_pinned, "is_shared": is_shared, "untyped_storage": untyped_storage, "storage": storage,
    "offload": offload, "move_to": move_to, "requires_grad_": requires_grad_, "assign_value": assign_value,
    "delete_": delete_, "ndimension": ndimension, "init": property(_init_get, _init_set), "is_init": is_init,
    "set_dtype": set_dtype, "value": value, "is_signed": is_signed, "fills": fills, "fill": fill,
    "bernoulli": bernoulli, "cauchy": cauchy, "log_normal": log_normal, "uniform": uniform,
    "multinomial": multinomial, "random_categorical": random_categorical,
}
