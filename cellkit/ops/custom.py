"""``ops.Custom``: a user's function as an op (``func_type="pyfunc"``: a NumPy function).

The function receives NumPy arrays (one per input, on the host) and returns
an array or a tuple of arrays; ``out_shape`` and ``out_dtype`` say what it
returns -- values, or callables given the inputs' shapes / dtypes, as in
MindSpore.  What it returns is checked against them.  ``bprop(*inputs, out,
dout)`` (optional) returns one gradient per input and makes the op
differentiable; without it a gradient that reaches the op raises.  In
GRAPH_MODE and ``jit`` the op is one node of the graph that calls the
function at every run.

The other ``func_type`` values of MindSpore compile kernels for its own
backends (AKG, TBE, AOT, ...); cellkit has no such compiler and says so.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import ops
>>> add_sub = ops.Custom(lambda a, b: (a + b, a - b), lambda a, b: (a, a), lambda a, b: (a, a), "pyfunc")
>>> add_sub(ms.Tensor([1.0, 2.0]), ms.Tensor([0.5, 3.0]))
(Tensor(shape=[2], dtype=Float32, value= [ 1.50000000e+00,  5.00000000e+00]), Tensor(shape=[2], dtype=Float32, value= [ 5.00000000e-01, -1.00000000e+00]))
"""
from __future__ import annotations

import numpy as np

from .. import autograd as _ag
from .. import dtype as _dt
from ..tensor import Tensor
from ._core import backend, describe, record, tensor_arg, wrap
from .primitive import Primitive

__all__ = ["Custom", "PyFunc"]

_FUNC_TYPES = ("hybrid", "akg", "tbe", "aicpu", "aot", "pyfunc")


class Custom(Primitive):
    """A user-defined op.

    Parameters
    ----------
    func : callable or str
        For ``func_type="pyfunc"``, a Python function of NumPy arrays.
    out_shape : tuple, list or callable
        The output's shape (a tuple of shapes for several outputs), or a
        function of the inputs' shapes that returns it.
    out_dtype : DType, tuple or callable
        The output's dtype (a tuple for several outputs), or a function of
        the inputs' dtypes.
    func_type : str
        ``'pyfunc'`` (what cellkit runs); the kernel-compiling kinds of
        MindSpore are refused.
    bprop : callable, optional
        ``bprop(*inputs, out, dout)`` -> a tuple with one gradient per input.
    reg_info : optional
        Kernel registration information; accepted and kept.

    Raises
    ------
    TypeError
        ``func`` not a function or str; at the call, ``out_shape`` / ``out_dtype`` missing.
    ValueError
        An unknown ``func_type``.
    NotImplementedError
        A ``func_type`` that compiles a device kernel (not ``'pyfunc'``).

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> cube = ops.Custom(lambda x: x ** 3, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc",
    ...                   bprop=lambda x, out, dout: (3 * x * x * dout,))
    >>> ms.grad(lambda x: cube(x).sum())(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  1.20000000e+01])
    """

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None):
        super().__init__("Custom")
        if not (callable(func) or isinstance(func, str)):
            raise TypeError(f"For 'Custom', 'func' must be of type function or str, but got {type(func)}")
        if func_type not in _FUNC_TYPES:
            raise ValueError(f"For 'Custom', 'func_type': {func_type}, 'func': {func}, 'func_type' must be one of "
                             f"{list(_FUNC_TYPES)}, but got {func_type!r}")
        if func_type != "pyfunc":
            raise NotImplementedError(
                f"For 'Custom', func_type={func_type!r} compiles a kernel for MindSpore's own backends; cellkit runs "
                "Python functions only: use func_type='pyfunc' with a NumPy function")
        if isinstance(func, str):
            raise TypeError(f"For 'Custom', func_type='pyfunc' needs a Python function, but got the string {func!r}")
        if bprop is not None and not callable(bprop):
            raise TypeError(f"For 'Custom', 'bprop' must be a function, but got {describe(bprop)}")
        self.func = func
        self.out_shape = out_shape
        self.out_dtype = out_dtype
        self.func_type = func_type
        self.bprop = bprop
        self.reg_info = reg_info
        self.func_name = getattr(func, "__name__", type(func).__name__)
        self.attrs.update(func_name=self.func_name, func_type=func_type)

    def __repr__(self):
        return f"Prim[Custom]<func_name={self.func_name}, func_type={self.func_type}>"

    def __call__(self, *inputs):
        # Checked at the call, as MindSpore does (the constructor accepts them missing).
        if not (callable(self.out_shape) or isinstance(self.out_shape, (tuple, list))):
            raise TypeError(f"For 'Custom', 'func_type': {self.func_type}, 'func': {self.func}, 'out_shape' must be "
                            f"one of [tuple, list, function], but got {type(self.out_shape)}")
        if not (callable(self.out_dtype) or isinstance(self.out_dtype, (tuple, list, _dt.DType))):
            raise TypeError(f"For 'Custom', 'func_type': {self.func_type}, 'func': {self.func}, 'out_dtype' must be "
                            f"one of [mindspore.dtype, tuple, list, function], but got {type(self.out_dtype)}")
        tensors = [tensor_arg(x, f"input{i}", "Custom") for i, x in enumerate(inputs)]
        shapes = [list(t.shape) for t in tensors]
        dtypes = [t.dtype for t in tensors]
        want_shapes = self.out_shape(*shapes) if callable(self.out_shape) else self.out_shape
        want_dtypes = self.out_dtype(*dtypes) if callable(self.out_dtype) else self.out_dtype
        multi = _is_multi(want_shapes)
        if multi:
            want_shapes = [tuple(int(d) for d in s) for s in want_shapes]
            if not isinstance(want_dtypes, (tuple, list)):
                want_dtypes = [want_dtypes] * len(want_shapes)
        else:
            want_shapes = [tuple(int(d) for d in want_shapes)]
            want_dtypes = [want_dtypes[0] if isinstance(want_dtypes, (tuple, list)) else want_dtypes]
        hosts = [t.asnumpy() for t in tensors]
        result = self.func(*hosts)
        results = list(result) if multi else [result]
        if len(results) != len(want_shapes):
            raise ValueError(f"For 'Custom' ({self.func_name}), the function returned {len(results)} output(s), "
                             f"but out_shape describes {len(want_shapes)}")
        arrays = []
        for i, (value, shape, dtype) in enumerate(zip(results, want_shapes, want_dtypes)):
            arrays.append(_checked(value, shape, dtype, i, self.func_name))
        be = backend()
        outs = [be.from_host(a) for a in arrays]
        if _ag._depth == 0 or all(t._node is None for t in tensors):
            wrapped = tuple(wrap(o) for o in outs)
            return wrapped if multi else wrapped[0]
        n_in = len(tensors)
        saved = tuple(t._data for t in tensors) + tuple(outs)
        sources = tuple(range(n_in)) + (None,) * len(outs)
        results = []
        for index, out in enumerate(outs):
            info = (self.bprop, n_in, index, len(outs), multi)
            results.append(record(out, "Custom", _custom_rule, tuple(tensors), saved=saved, sources=sources,
                                  info=info))
        return tuple(results) if multi else results[0]


def _is_multi(shapes):
    return isinstance(shapes, (tuple, list)) and len(shapes) > 0 and all(isinstance(s, (tuple, list)) for s in shapes)


def _checked(value, shape, dtype, index, name):
    array = np.asarray(value)
    if tuple(array.shape) != shape:
        raise ValueError(f"For 'Custom' ({name}), output {index} of the function has shape {tuple(array.shape)}, "
                         f"but out_shape says {shape}")
    want = _dt.to_dtype(dtype)
    if _dt.dtype_of(array) is not want:
        raise RuntimeError(f"For 'Custom' ({name}), output {index} of the function has dtype {array.dtype}, "
                           f"but out_dtype says {dtype}")
    return array


def _custom_rule(m, node, g):
    bprop, n_in, index, n_out, multi = node.info
    values = node.unpack(m)
    return m.call(_bprop_arrays, _bprop_tensors, bprop, values[:n_in], values[n_in:], g, index, multi, node)


def _bprop_tensors(bprop, ins, outs, g, index, multi, node):
    from .creation import zeros_like

    if bprop is None:
        raise RuntimeError("Illegal primitive Custom's bprop not defined")
    if multi:
        out = tuple(outs)
        dout = tuple(g if i == index else zeros_like(o) for i, o in enumerate(outs))
    else:
        out, dout = outs[0], g
    grads = bprop(*ins, out, dout)
    if isinstance(grads, Tensor):
        grads = (grads,)
    grads = tuple(grads)
    if len(grads) != n_in_of(node):
        raise ValueError(f"For 'Custom', bprop must return one gradient per input ({n_in_of(node)}), "
                         f"but returned {len(grads)}")
    return tuple(None if node.inputs[i] is None else gr for i, gr in enumerate(grads))


def n_in_of(node):
    return node.info[1]


def _bprop_arrays(bprop, ins, outs, g, index, multi, node):
    grads = _bprop_tensors(bprop, [wrap(a) for a in ins], [wrap(o) for o in outs], wrap(g), index, multi, node)
    return tuple(None if gr is None else (gr._data if isinstance(gr, Tensor) else gr) for gr in grads)


class PyFunc(Primitive):
    """``PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)(*inputs)``: a NumPy function as an op.

    ``fn`` receives the inputs as NumPy arrays and returns one array per entry of ``out_shapes``
    (a tuple for several); the call returns a tuple of Tensors, checked against ``out_shapes`` and
    ``out_types``.  It runs as :class:`Custom` with ``func_type="pyfunc"`` and no ``bprop``, so, as
    in MindSpore, it has no gradient.  MindSpore 2.10 copies a result of another shape into its output
    buffer anyway; cellkit raises ValueError.

    >>> import cellkit as ms
    >>> from cellkit import ops
    >>> add_mul = ops.PyFunc(lambda x, y: (x + y, x * y), [ms.float32] * 2, [(2,)] * 2, [ms.float32] * 2, [(2,)] * 2)
    >>> [out.asnumpy().tolist() for out in add_mul(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0]))]
    [[4.0, 6.0], [3.0, 8.0]]
    """

    def __init__(self, fn, in_types, in_shapes, out_types, out_shapes, stateful=True):
        super().__init__("PyFunc")
        if not callable(fn):
            raise TypeError(f"For 'PyFunc', 'fn' must be a function, but got {describe(fn)}")
        for name, value in (("in_types", in_types), ("in_shapes", in_shapes), ("out_types", out_types),
                            ("out_shapes", out_shapes)):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"For 'PyFunc', '{name}' must be a list, but got {describe(value)}")
        for name, value in (("in_shapes", in_shapes), ("out_shapes", out_shapes)):
            if not all(isinstance(shape, (list, tuple)) and all(isinstance(d, int) and not isinstance(d, bool)
                                                                for d in shape) for shape in value):
                raise TypeError(f"For 'PyFunc', '{name}' must be a list of shapes (tuples of ints), but got "
                                f"{describe(value)}")
        if len(in_types) != len(in_shapes) or len(out_types) != len(out_shapes):
            raise ValueError(f"For 'PyFunc', the types and shapes must pair up, but got {len(in_types)} in_types for "
                             f"{len(in_shapes)} in_shapes and {len(out_types)} out_types for {len(out_shapes)} out_shapes")
        if not all(isinstance(t, _dt.DType) for t in tuple(in_types) + tuple(out_types)):
            raise TypeError(f"For 'PyFunc', 'in_types' and 'out_types' must hold mindspore dtypes, but got "
                            f"{describe(in_types)} and {describe(out_types)}")
        if not isinstance(stateful, bool):
            raise TypeError(f"For 'PyFunc', 'stateful' must be a bool, but got {describe(stateful)}")
        self.fn, self.in_types, self.in_shapes = fn, list(in_types), [tuple(s) for s in in_shapes]
        self.out_types, self.out_shapes, self.stateful = list(out_types), [tuple(s) for s in out_shapes], stateful
        single = len(self.out_shapes) == 1

        def run(*arrays):
            result = fn(*arrays)
            # One output may come back bare: Custom reads out_shapes as a list of outputs.
            return (result,) if single and not isinstance(result, (tuple, list)) else result

        run.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self._custom = Custom(run, out_shape=tuple(self.out_shapes), out_dtype=tuple(self.out_types), func_type="pyfunc")

    def __call__(self, *inputs):
        if len(inputs) != len(self.in_types):
            raise TypeError(f"For 'PyFunc', the function takes {len(self.in_types)} input(s) (in_types), but got "
                            f"{len(inputs)}")
        out = self._custom(*inputs)
        return out if isinstance(out, tuple) else (out,)
