"""Tensor: an array on the current backend, its dtype, and a link for autograd.

A Tensor wraps one backend array (``_data``).  While a gradient transform is
recording, ops also attach a tape node (``_node``); at all other times
``_node`` stays ``None`` and a Tensor is just a thin, cheap wrapper.

The arithmetic methods and operators are attached by :mod:`cellkit.ops`
(which sits above this module), so this file only knows about data,
dtypes and printing.

>>> import cellkit as ms
>>> t = ms.Tensor([4, 5, 6])
>>> t
Tensor(shape=[3], dtype=Int64, value= [4, 5, 6])
>>> print(ms.Tensor([1.5, 2.0]))
[1.5 2. ]
"""
from __future__ import annotations

import numbers
import os

import numpy as np

from . import backend as _backend
from . import dtype as _dt

__all__ = ["Tensor", "tensor", "wrap"]

_PY_SCALARS = (bool, int, float)

# Set by cellkit.graph while it traces a graph: ``_value_guard(tensor, what)`` records a graph break when
# converting ``tensor`` to a Python value depends on the graph's inputs (see cellkit.graph.fallback).
# None otherwise, so the conversions below pay one global check.
_value_guard = None


def _infer_dtype(data):
    """MindSpore's default dtype for Python data: floats -> Float32, ints -> Int64."""
    if isinstance(data, bool):
        return _dt.bool_
    if isinstance(data, numbers.Integral):
        return _dt.int64
    if isinstance(data, numbers.Real):
        return _dt.float32
    return None


def _host_array_from_python(data, dtype):
    """Nested Python lists / scalars -> a NumPy array with MindSpore's default dtype."""
    try:
        host = np.asarray(data)
    except (ValueError, TypeError, OverflowError):  # ragged nesting, or an element NumPy cannot hold
        host = np.empty(0, dtype=object)
    if host.dtype == object:
        raise TypeError(
            "For Tensor, 'input_data' must be a number, a (nested) list or tuple of numbers, a numpy array "
            f"or a Tensor, but got ragged or non-numeric data: {_clip_repr(data)}"
        )
    if host.dtype.kind == "u" and dtype is None:  # a Python int beyond Int64: NumPy would pick UInt64
        raise ValueError(f"For Tensor, 'input_data' holds an int beyond the Int64 range: {_clip_repr(data)}")
    if dtype is None:
        if host.dtype.kind == "f":
            # Python floats are float64 to NumPy, but Float32 to MindSpore.
            dtype = _dt.float32
        elif host.dtype.kind in "iu":
            dtype = _dt.int64
        elif host.dtype.kind == "b":
            dtype = _dt.bool_
        elif host.dtype.kind == "c":
            dtype = _dt.complex128  # Python complex numbers are Complex128 to MindSpore
        else:
            raise TypeError(
                f"For Tensor, 'input_data' must hold numbers or bools, but got {_clip_repr(data)} "
                f"(NumPy kind {host.dtype})"
            )
    return host, dtype


def _clip_repr(value, limit=120):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _machine_memory():
    """Bytes of physical memory here (a generous 1 TiB where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 2 ** 40


_MEMORY = _machine_memory()


def _human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} EiB"


def check_allocation(shape, dtype, where, given=""):
    """Refuse, before allocating anything, a tensor bigger than this machine's memory.

    A typo such as ``10**12`` in a shape would otherwise reach NumPy, which
    raises MemoryError (or, for lazily zeroed memory, starts using it).
    MindSpore refuses such a request with a RuntimeError ("Allocate memory
    failed"); so does cellkit, naming the shape and what it would need.

    >>> check_allocation((2, 3), _dt.float32, "zeros")
    >>> check_allocation((10 ** 12, 10 ** 6), _dt.float32, "zeros")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: For 'zeros', a tensor of shape (1000000000000, 1000000) and dtype Float32 needs 3.55e+03 PiB, ...
    """
    count = 1
    for d in shape:
        count *= max(int(d), 0)
    need = count * (dtype.itemsize if dtype is not None else 8)
    if need > _MEMORY:
        raise RuntimeError(
            f"For '{where}', a tensor of shape {tuple(int(d) for d in shape)} and dtype {dtype} needs "
            f"{_human_bytes(need)}, more than this machine's memory ({_human_bytes(_MEMORY)})"
            + (f"; it comes from {given}" if given else "")
        )


# Set by cellkit.memory.profile while it measures; None (and free) otherwise.
_alloc_probe = None


class Tensor:
    """A multi-dimensional array with a MindSpore dtype.

    Parameters
    ----------
    input_data : Tensor, numpy.ndarray, list, tuple, int, float or bool, optional
        The values.  Python floats become Float32 and Python ints Int64, as in
        MindSpore; a NumPy array keeps its own dtype.
    dtype : cellkit dtype or str, optional
        Cast the values to this dtype.
    shape : tuple or list, optional
        Without ``input_data``: the shape of a placeholder (``None`` marks a
        dynamic dimension) or of a lazily initialised tensor (with ``init``).
    init : Initializer, optional
        Fill the tensor lazily with this initializer; see :meth:`init_data`.
    const_arg : bool
        Recorded for graph mode: the tensor is a constant input.
    device : str, optional
        Accepted for compatibility; the tensor lives on the current backend.

    Examples
    --------
    >>> import cellkit as ms
    >>> ms.Tensor(2.5)
    Tensor(shape=[], dtype=Float32, value= 2.5)
    >>> ms.Tensor(shape=[3, None], dtype=ms.float32).shape
    (3, -1)
    """

    __slots__ = ("_data", "_node", "_lazy", "const_arg", "__weakref__")
    # NumPy defers to our reflected operators (ndarray + Tensor -> Tensor).
    __array_priority__ = 1000

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
        self._node = None
        self._lazy = None
        self.const_arg = bool(const_arg)
        if dtype is not None:
            dtype = _dt.to_dtype(dtype)
        if input_data is None:
            self._data = None
            self._lazy = _placeholder_spec(shape, dtype, init)
            if init is None and -1 not in self._lazy[0]:
                # A static shape without an initializer is a tensor of zeros, as in MindSpore.
                be = _backend.current()
                check_allocation(self._lazy[0], dtype, "Tensor")
                self._data = be.from_host(np.zeros(self._lazy[0], dtype=dtype.to_backend(np)))
                self._lazy = None
            return
        if shape is not None or init is not None:
            raise ValueError(
            "Tensor: give either input_data, or shape/dtype/init, not both, but got input_data with "
            + ", ".join(f"{k}={v!r}" for k, v in (("shape", shape), ("init", init)) if v is not None)
        )
        self._data = _to_backend_array(input_data, dtype)

    # -- cheap construction used by ops ----------------------------------
    @classmethod
    def _from_array(cls, array):
        """Wrap a backend array without copying or checking (the hot path)."""
        t = object.__new__(cls)
        t._data = array
        t._node = None
        t._lazy = None
        t.const_arg = False
        if _alloc_probe is not None:  # cellkit.memory is measuring: report the array
            _alloc_probe.array(array)
        return t

    # -- basic properties ------------------------------------------------
    @property
    def shape(self):
        """The shape as a tuple of ints (``-1`` for a dynamic dimension)."""
        data = self._data
        if data is None:
            return self._lazy[0]
        return tuple(data.shape)

    @property
    def dtype(self):
        """The element type, e.g. ``Float32``."""
        data = self._data
        if data is None:
            return self._lazy[1]
        return _dt.dtype_of(data)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        """The number of elements."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def has_init(self):
        """True while the tensor waits for :meth:`init_data`."""
        return self._data is None and self._lazy is not None and self._lazy[2] is not None

    def _require_data(self, what):
        if self._data is None:
            if self.has_init:
                self.init_data()
            else:
                raise RuntimeError(
                    f"{what}: this Tensor is a placeholder of shape {list(self.shape)} with no data"
                )
        return self._data

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        """Fill a lazily initialised tensor with its initializer's values; return self."""
        if self._data is None:
            if self._lazy is None or self._lazy[2] is None:
                raise RuntimeError("init_data: this Tensor has no initializer to fill it from")
            lazy_shape, lazy_dtype, init = self._lazy
            self._data = init._make_array(lazy_shape, lazy_dtype)
            self._lazy = None
        return self

    # -- host conversion ---------------------------------------------------
    def asnumpy(self):
        """A NumPy copy of the values (copies from the GPU when needed).

        >>> import cellkit as ms
        >>> ms.Tensor([1, 2]).asnumpy()
        array([1, 2])
        """
        if _value_guard is not None:
            _value_guard(self, "asnumpy()")
        data = self._require_data("asnumpy")
        host = _backend.current().to_host(data) if not isinstance(data, np.ndarray) else data
        return np.array(host, copy=True)

    def numpy(self):
        """Same as :meth:`asnumpy`."""
        return self.asnumpy()

    def __array__(self, dtype=None, copy=None):
        host = self.asnumpy()
        return host if dtype is None else host.astype(dtype)

    def item(self, index=None):
        """The value of a one-element tensor as a Python number.

        >>> import cellkit as ms
        >>> ms.Tensor([[3.5]]).item()
        3.5
        """
        if _value_guard is not None:
            _value_guard(self, "item()")
        return self._python_value(index)

    def _python_value(self, index=None):
        host = self.asnumpy()
        if index is None:
            if host.size != 1:
                raise ValueError(
                    f"item: only a tensor with one element can be converted to a Python scalar, "
                    f"but this one has shape {tuple(host.shape)}"
                )
            return host.reshape(()).item()
        try:
            return host.item(index)
        except (TypeError, IndexError, ValueError, OverflowError) as exc:
            kind = IndexError if isinstance(exc, (IndexError, OverflowError)) else TypeError
            raise kind(f"item: 'index' must be an int or a tuple of ints within the shape {tuple(host.shape)}, "
                       f"but got {index!r} ({exc})") from None

    def tolist(self):
        return self.asnumpy().tolist()

    # While cellkit.graph traces construct, _value_guard refuses to turn a Tensor that depends on the
    # graph's inputs into a Python value (the branch taken would be baked into the graph).
    def __bool__(self):
        if _value_guard is not None:
            _value_guard(self, "bool()")
        return bool(self._python_value())

    def __int__(self):
        if _value_guard is not None:
            _value_guard(self, "int()")
        return int(self._python_value())

    def __float__(self):
        if _value_guard is not None:
            _value_guard(self, "float()")
        return float(self._python_value())

    def __index__(self):
        if self.dtype.kind not in ("int", "uint", "bool"):
            raise TypeError(f"only integer tensors can be used as an index, but got {self.dtype}")
        if _value_guard is not None:
            _value_guard(self, "__index__()")
        return int(self._python_value())

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        shape = self.shape
        if not shape:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(shape[0]):
            yield self[i]

    # Identity hashing: ``==`` is elementwise, so it cannot define equality.
    __hash__ = object.__hash__

    # -- printing ----------------------------------------------------------
    def __str__(self):
        if self._data is None:
            return _format_placeholder(self)
        return _format_str(self.asnumpy(), self.dtype)

    def __repr__(self):
        if self._data is None:
            return _format_placeholder(self)
        value = _format_repr(self.asnumpy(), self.dtype)
        return f"Tensor(shape={_shape_list(self.shape)}, dtype={self.dtype}, value={value})"

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The notebook display (statistics, histogram, values); ``repr`` stays MindSpore's text."""
        from .display import mimebundle  # lazy: the runtime never needs the display layer

        return mimebundle(self, include, exclude)


def _placeholder_spec(shape, dtype, init):
    if shape is None:
        raise ValueError("Tensor: input_data is None, so shape (and dtype) must be given")
    if isinstance(shape, int):
        shape = (shape,)
    try:
        dims = tuple(-1 if d is None else int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"Tensor: shape must be a tuple or list of ints or None, but got {shape!r}") from None
    if dtype is None:
        raise ValueError("Tensor: a tensor without input_data needs a dtype")
    if init is not None and -1 in dims:
        raise ValueError(f"Tensor: an initialised tensor needs a static shape, but got {list(dims)}")
    return (dims, dtype, init)


def _to_backend_array(input_data, dtype):
    be = _backend.current()
    if isinstance(input_data, Tensor):
        data = input_data._require_data("Tensor")
        if dtype is not None and dtype is not input_data.dtype:
            data = be.xp.astype(data, dtype.to_backend(be.xp))
        return data
    if isinstance(input_data, np.ndarray):
        host = input_data
        if dtype is None:
            try:
                dtype = _dt.to_dtype(host.dtype)
            except TypeError as exc:
                raise TypeError(f"For Tensor, 'input_data' is a numpy array of an unsupported kind: {exc}") from None
        host = np.array(host, dtype=dtype.to_backend(np) if be.is_numpy else _host_np_dtype(dtype), copy=True)
        return be.from_host(host)
    if isinstance(input_data, np.generic):
        return _to_backend_array(np.asarray(input_data), dtype)
    if isinstance(input_data, (_PY_SCALARS, list, tuple, complex)):
        host, inferred = _host_array_from_python(input_data, dtype)
        dtype = dtype or inferred
        host = host.astype(dtype.to_backend(np) if be.is_numpy else _host_np_dtype(dtype))
        return be.from_host(host)
    # An array of the active backend (cupy, array_api_strict) is taken as it is.
    if hasattr(input_data, "__array_namespace__") or hasattr(input_data, "__cuda_array_interface__"):
        data = be.xp.asarray(input_data)
        if dtype is not None:
            data = be.xp.astype(data, dtype.to_backend(be.xp))
        return data
    raise TypeError(
        "For Tensor, 'input_data' must be a Tensor, numpy.ndarray, list, tuple, int, float or bool, "
        f"but got {type(input_data).__name__}"
    )


def _host_np_dtype(dtype):
    return dtype.to_backend(np)


def wrap(array):
    """Wrap a backend array in a Tensor without copying (for ops)."""
    return Tensor._from_array(array)


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
    """Create a Tensor; the functional spelling of ``Tensor(...)``.

    >>> import cellkit as ms
    >>> print(ms.tensor([1, 2, 3]).dtype)
    Int64
    """
    return Tensor(input_data, dtype=dtype, shape=shape, init=init, const_arg=const_arg, device=device)


# -- formatting -----------------------------------------------------------
def _shape_list(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _format_placeholder(t):
    """A Tensor with no values yet: a shape placeholder prints none, a delayed ``init`` says so (as MindSpore)."""
    waiting = "<uninitialized>" if t.has_init else ""
    return f"Tensor(shape={_shape_list(t.shape)}, dtype={t.dtype}, value=\n{waiting})"


def _format_str(host, dtype):
    """``print(tensor)``: NumPy's own formatting of the values, as MindSpore shows it.

    MindSpore prints ``str(tensor.asnumpy())`` with NumPy 1.x; only 0-d floats
    print differently under NumPy 2 (``123456790.0`` became ``1.2345679e+08``),
    so those follow the NumPy 1.x rule here.
    """
    if dtype is _dt.bfloat16:
        host = host.astype(np.float32)
        if host.ndim == 0:
            return f"{float(host):f}"
        return np.array2string(host, formatter={"float_kind": lambda v: f"{v:f}"})
    if host.ndim == 0:
        value = host[()]
        if dtype.kind == "float":
            return _float_scalar_str(value)
        return str(value)
    return str(host)


def _float_scalar_str(value):
    """NumPy 1.x ``str`` of a float scalar: positional in [1e-4, 1e16), else scientific."""
    if not np.isfinite(value):
        return str(value)
    magnitude = abs(float(value))
    if magnitude == 0.0 or 1e-4 <= magnitude < 1e16:
        return np.format_float_positional(value, unique=True, trim="0")
    return np.format_float_scientific(value, unique=True, trim="-", exp_digits=2)


# MindSpore's repr shows at most 6 entries of an axis (3 ... 3) and breaks a
# 1-D row every 12 floats / 12 bools / 24 other entries.
_EDGE = 3
_SUMMARY_SIZE = 1000


def _element_formatter(dtype):
    """A function formatting one host value the way MindSpore's repr does, and its fixed width."""
    if dtype is _dt.float16:
        return (lambda v: "%.4e" % float(v)), 11
    if dtype.kind == "float" and dtype is not _dt.bfloat16:
        return (lambda v: "%.8e" % float(v)), 15
    if dtype is _dt.bool_:
        return (lambda v: "True" if v else "False"), 5
    if dtype is _dt.bfloat16:
        return (lambda v: "%g" % float(v)), None  # padded to the widest shown entry
    if dtype.kind == "complex":
        return _complex_text, 0  # MindSpore does not pad complex entries to one width
    return (lambda v: str(int(v))), None


def _complex_text(v):
    """One complex value as MindSpore's repr shows it: ``1.5+2j``, ``0-2.25j``, ``nan+infj``."""
    v = complex(v)
    return "%g%+gj" % (v.real, v.imag)


def _format_repr(host, dtype):
    """The ``value=`` part of ``repr(tensor)``, in MindSpore's layout (without the ``)``)."""
    if host.ndim == 0:
        value = host[()]
        if dtype.kind == "float":
            return " " + ("%g" % float(value))
        if dtype is _dt.bool_:
            return " " + ("True" if value else "False")
        if dtype.kind == "complex":
            return " " + _complex_text(value)
        return " " + str(int(value))
    lead = " " if host.ndim == 1 else "\n"
    if host.size == 0:
        return lead
    summarize = host.ndim > 1 or host.size > _SUMMARY_SIZE
    shown = host
    if summarize:
        # Only the entries on screen matter (also for the column width).
        for axis, n in enumerate(host.shape):
            if n > 2 * _EDGE:
                keep = list(range(_EDGE)) + list(range(n - _EDGE, n))
                shown = np.take(shown, keep, axis=axis)
    if dtype is _dt.bfloat16:
        shown = shown.astype(np.float32)
    fmt, width = _element_formatter(dtype)
    texts = [fmt(v) for v in shown.reshape(-1).tolist()]
    if width is None:
        width = max(len(t) for t in texts)
    texts = [t.rjust(width) for t in texts]
    cells = np.array(texts, dtype=object).reshape(shown.shape)
    linefeed = 12 if dtype.kind in ("float", "bool") and dtype is not _dt.bfloat16 else 24

    def block(cells, full_shape, depth):
        n = full_shape[0]
        cut = summarize and n > 2 * _EDGE
        if len(full_shape) == 1:
            row = cells.tolist()
            if cut:
                return "[" + ", ".join(row[:_EDGE]) + " ... " + ", ".join(row[_EDGE:]) + "]"
            parts = []
            for i, text in enumerate(row):
                parts.append(text)
                if i != len(row) - 1:
                    parts.append(", ")
                if host.ndim == 1 and (i + 1) % linefeed == 0:
                    parts.append("\n ")
            return "[" + "".join(parts) + "]"
        indent = " " * (depth + 1)
        children = [block(cells[i], full_shape[1:], depth + 1) for i in range(cells.shape[0])]
        if cut:
            head = (",\n" + indent).join(children[:_EDGE])
            tail = (",\n" + indent).join(children[_EDGE:])
            return "[" + head + ",\n" + indent + "...\n" + indent + tail + "]"
        return "[" + (",\n" + indent).join(children) + "]"

    return lead + block(cells, tuple(host.shape), 0)
