"""Array kernels: what a node runs when the graph runs without a gradient transform.

An op function checks and converts its arguments, promotes dtypes, wraps its
result in a Tensor and asks whether to record a tape node -- Python work
repeated at every call.  In a compiled graph the shapes and dtypes are known
in advance, so for the common ops a *kernel* takes backend arrays and does
only the arithmetic (``X @ W.T + b``, ``maximum(x, 0)``).

A kernel is chosen at compile time only if

1. the node's arguments fit it (static checks on the traced shapes and
   dtypes: same dtype on both sides, a 2-D weight ...), and
2. run on the traced arrays it reproduces the op's traced output *bit for
   bit* (same dtype, shape and bytes) -- so a kernel can never quietly
   differ from its op.

Otherwise the node calls its op function.  Kernels exist for the NumPy
backend; on others every node calls its op.

>>> import numpy as np
>>> same_bits(np.float32([1.0, -0.0]), np.float32([1.0, 0.0]))
False
"""
from __future__ import annotations

import numpy as np

from .ir import Ref

__all__ = ["choose_kernel", "same_bits"]

_FLOAT_KINDS = "f"


def same_bits(a, b) -> bool:
    """True if two arrays have the same dtype, shape and bytes (NaNs and signed zeros included)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


# ------------------------------------------------------------------------------ the kernels
def _dense_bias(X, W, B):
    out = X @ W.T
    out += B  # ``out`` is fresh: adding in place saves an allocation (as ops.dense does)
    return out


def _dense(X, W):
    return X @ W.T


# Kernels may also give their body as statements, which the fast plan writes inline (no call at all):
# ``inline(argument expressions, output name, bind)`` where ``bind(obj, hint)`` names an object for the code.
_dense_bias.inline = lambda a, out, bind: [f"{out} = {a[0]} @ {a[1]}.T", f"{out} += {a[2]}"]
_dense.inline = lambda a, out, bind: [f"{out} = {a[0]} @ {a[1]}.T"]


def _relu_for(dtype):
    # A zero of the array's own dtype: NumPy then skips its Python-scalar promotion step, which costs
    # more than the maximum itself on small arrays.
    zero = np.dtype(dtype).type(0)

    def relu(A):
        return np.maximum(A, zero)

    relu.inline = lambda a, out, bind: [f"{out} = {bind(np.maximum, 'maximum')}({a[0]}, {bind(zero, 'zero')})"]
    return relu


def _with_scalar(ufunc, scalar, scalar_first):
    if scalar_first:
        return lambda A: ufunc(scalar, A)
    return lambda A: ufunc(A, scalar)


def _reshaper(shape):
    return lambda A: A.reshape(shape)


def _transposer(axes):
    return lambda A: A.transpose(axes)


# ------------------------------------------------------------------------------ factories
def _is_ref(value):
    return isinstance(value, Ref)


def _kind(ref):
    return np.dtype(ref.spec.dtype.to_backend(np)).kind


def _dense_factory(node, bound):
    x, w, b = bound.get("input"), bound.get("weight"), bound.get("bias")
    if not (_is_ref(x) and _is_ref(w)) or len(w.spec.shape) != 2 or not x.spec.shape:
        return None
    if w.spec.dtype is not x.spec.dtype or _kind(x) not in _FLOAT_KINDS:
        return None
    if b is None:
        return _dense, [x, w]
    if not _is_ref(b) or b.spec.dtype is not x.spec.dtype or len(b.spec.shape) != 1:
        return None
    return _dense_bias, [x, w, b]


def _relu_factory(node, bound):
    x = bound.get("input")
    if not _is_ref(x) or bound.get("inplace") or _kind(x) not in "fiu":
        return None
    return _relu_for(x.spec.dtype.to_backend(np)), [x]


def _binary_factory(ufunc):
    def factory(node, bound):
        a, b = bound.get("input"), bound.get("other")
        if _is_ref(a) and _is_ref(b):
            if a.spec.dtype is not b.spec.dtype:
                return None
            return ufunc, [a, b]
        # One side a Python number: same-kind only (an int tensor meeting a float is promoted by the op).
        ref, scalar, scalar_first = (a, b, False) if _is_ref(a) else (b, a, True)
        if not _is_ref(ref) or type(scalar) not in (int, float):
            return None
        kind = _kind(ref)
        if (type(scalar) is float and kind not in _FLOAT_KINDS) or (type(scalar) is int and kind not in "fiu"):
            return None
        return _with_scalar(ufunc, scalar, scalar_first), [ref]

    return factory


def _unary_factory(ufunc, kinds=_FLOAT_KINDS):
    def factory(node, bound):
        x = bound.get("input", bound.get("x"))
        if not _is_ref(x) or _kind(x) not in kinds:
            return None
        return ufunc, [x]

    return factory


def _sigmoid_factory(node, bound):
    from ..ops import activation

    x = bound.get("input")
    if not _is_ref(x) or _kind(x) not in _FLOAT_KINDS:
        return None
    return activation._sigmoid_array, [x]


def _matmul_factory(node, bound):
    a, b = bound.get("input"), bound.get("other")
    if not (_is_ref(a) and _is_ref(b)) or a.spec.dtype is not b.spec.dtype or _kind(a) not in _FLOAT_KINDS:
        return None
    return np.matmul, [a, b]


def _reshape_like_output(node, bound):
    x = bound.get("input")
    if not _is_ref(x) or not hasattr(node.outputs, "shape"):
        return None
    return _reshaper(node.outputs.shape), [x]


def _transpose_factory(node, bound):
    x, dims = bound.get("input"), bound.get("dims")
    if not _is_ref(x) or not isinstance(dims, (tuple, list)) or not all(type(d) is int for d in dims):
        return None
    return _transposer(tuple(dims)), [x]


_factories = None


def _table():
    global _factories
    if _factories is None:
        from ..ops import activation, linalg, math, nn_ops
        from ..ops import shape_ops as shape

        _factories = {
            nn_ops.dense: _dense_factory,
            activation.relu: _relu_factory,
            activation.sigmoid: _sigmoid_factory,
            activation.tanh: _unary_factory(np.tanh),
            math.add: _binary_factory(np.add),
            math.sub: _binary_factory(np.subtract),
            math.mul: _binary_factory(np.multiply),
            math.div: _binary_factory(np.divide),
            math.neg: _unary_factory(np.negative, "fi"),
            math.exp: _unary_factory(np.exp),
            math.log: _unary_factory(np.log),
            math.sqrt: _unary_factory(np.sqrt),
            linalg.matmul: _matmul_factory,
            shape.reshape: _reshape_like_output,
            shape.flatten: _reshape_like_output,
            shape.transpose: _transpose_factory,
        }
    return _factories


def choose_kernel(node, arrays_of):
    """``(kernel, refs)`` for ``node`` if a kernel fits and reproduces its traced output, else None.

    ``arrays_of(ref)`` gives the array a reference held when the node was traced.
    """
    if node.kind != "function" or node.trace_value is None:
        return None
    factory = _table().get(node.target)
    if factory is None:
        return None
    bound = dict(zip(node.arg_names, node.args))
    bound.update(node.kwargs)
    if "rounding_mode" in bound and bound["rounding_mode"] is not None:
        return None
    try:
        made = factory(node, bound)
    except (AttributeError, TypeError, ValueError):
        return None
    if made is None:
        return None
    kernel, refs = made
    traced_out = getattr(node.trace_value, "_data", None)
    if traced_out is None:
        return None
    try:
        arrays = [arrays_of(r) for r in refs]
        if any(a is None for a in arrays):
            return None
        with np.errstate(all="ignore"):
            result = kernel(*arrays)
    except Exception:  # noqa: BLE001 -- a kernel that cannot run here is simply not used
        return None
    if not isinstance(traced_out, np.ndarray) and not isinstance(traced_out, np.generic):
        return None
    if not same_bits(result, traced_out) or type(result) is not type(traced_out):
        return None
    return kernel, refs

