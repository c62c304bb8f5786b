"""The in-place Tensor methods: the value each returns, and the tensor itself afterwards.

Each case returns ``(result, x)`` -- what the method returned and the receiver after the call -- so
the fixture shows whether MindSpore updated ``x``.  MindSpore 2.10's CPU build does not: ``add_``,
``sub_``, ``mul_``, ``div_``, ``exp_``, ``floor_divide_``, ``remainder_`` return a new tensor and leave
``x`` as it was, and ``log_``, ``floor_``, ``clamp_``, ``sign_``, ``sigmoid_``, ``tanh_``,
``erfinv_``, ``fill_``, ``zero_``, ``masked_fill_`` ... raise "kernel unregistered".  Its
documentation (and its Ascend build) updates ``x`` in place and returns it; those cases are marked
``mindspore_wrong`` and compared with the documented result computed in NumPy.

Gradients through an in-place update of an intermediate value come last: MindSpore 2.10 (CPU)
differentiates them as if the update had not happened.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

# Cases that need an op of another family (skipped until it exists).
NEEDS = {
    "erfinv_": ("erfinv",), "masked_fill_": ("masked_fill",), "masked_scatter_": ("masked_scatter",),
    "index_add_": ("index_add",), "index_fill_": ("index_fill",), "index_put_": ("index_put",),
    "scatter_": ("scatter",), "scatter_value": ("scatter",), "scatter_add_": ("scatter_add",),
    "fill_diagonal_": ("fill_diagonal",),
}

X = [[1.5, -2.25, 3.0], [0.5, 4.0, -1.0]]


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


def _x(ms, np, dtype="float32"):
    return _t(ms, np, X, dtype)


def _pair(np, value, dtype="float32"):
    """``(result, x)`` as expected(np) gives it: the same updated array twice."""
    a = np.asarray(value, dtype=dtype)
    return (a, a)


_NOT_IN_PLACE = ("MindSpore 2.10 (CPU) returns the result but leaves the tensor unchanged; its documentation "
                 "updates the tensor in place")
_NO_KERNEL = "MindSpore 2.10's CPU build has no kernel for it (RuntimeError); the documented in-place result"

def _xa(np):
    return np.array(X, np.float32)


# ------------------------------------------------------------------ arithmetic
@case(mindspore_wrong=True, expected=lambda np: _pair(np, _xa(np) + np.array([1.0, 2.0, 3.0]) * 2), note=_NOT_IN_PLACE)
def add_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.add_(_t(ms, np, [1.0, 2.0, 3.0]), alpha=2), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, _xa(np) - 1.5), note=_NOT_IN_PLACE)
def sub_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.sub_(1.5), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, _xa(np) * np.array([[2.0], [-1.0]])), note=_NOT_IN_PLACE)
def mul_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.mul_(_t(ms, np, [[2.0], [-1.0]])), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, _xa(np) / 4.0), note=_NOT_IN_PLACE)
def div_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.div_(4.0), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.floor(_xa(np) / 2.0)), note=_NOT_IN_PLACE)
def div_floor(ms, ops, nn, np):
    x = _x(ms, np)
    return x.div_(2.0, rounding_mode="floor"), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.exp(_xa(np))), note=_NOT_IN_PLACE, rtol=1e-6)
def exp_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.exp_(), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.log(np.abs(_xa(np)))), note=_NO_KERNEL)
def log_(ms, ops, nn, np):
    x = ops.abs(_x(ms, np))
    return x.log_(), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.floor(_xa(np))), note=_NO_KERNEL)
def floor_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.floor_(), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.floor(_xa(np) / 2.0)), note=_NOT_IN_PLACE)
def floor_divide_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.floor_divide_(2.0), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.clip(_xa(np), -1.0, 2.0)), note=_NO_KERNEL)
def clamp_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.clamp_(-1.0, 2.0), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.mod(_xa(np), 1.25)), note=_NOT_IN_PLACE)
def remainder_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.remainder_(1.25), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.sign(_xa(np))), note=_NO_KERNEL)
def sign_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.sign_(), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, 1 / (1 + np.exp(-_xa(np).astype(np.float64)))),
      note=_NO_KERNEL)
def sigmoid_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.sigmoid_(), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.tanh(_xa(np))), note=_NO_KERNEL)
def tanh_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.tanh_(), x


def _erfinv_expected(np):
    values = np.array([[0.0, 0.5], [-0.25, 0.75]])
    # erfinv by Newton's method on erf (math.erf), in float64
    import math
    out = np.zeros_like(values)
    for i in np.ndindex(values.shape):
        y, z = values[i], 0.0
        for _ in range(50):
            z -= (math.erf(z) - y) / (2 / math.sqrt(math.pi) * math.exp(-z * z))
        out[i] = z
    return _pair(np, out)


@case(mindspore_wrong=True, expected=_erfinv_expected, note=_NO_KERNEL, rtol=1e-5, atol=1e-6)
def erfinv_(ms, ops, nn, np):
    x = _t(ms, np, [[0.0, 0.5], [-0.25, 0.75]])
    return x.erfinv_(), x


# ------------------------------------------------------------------ filling and copying
@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.full((2, 3), 2.5)), note=_NO_KERNEL)
def fill_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.fill_(2.5), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.full((2, 3), 7), "int64"), note=_NO_KERNEL)
def fill_tensor_value(ms, ops, nn, np):
    x = _x(ms, np, "int64")
    return x.fill_(ms.Tensor(7.9)), x


@case(mindspore_wrong=True, expected=lambda np: _pair(np, np.zeros((2, 3))), note=_NO_KERNEL)
def zero_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.zero_(), x


@case
def copy_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.copy_(_t(ms, np, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])), x


@case
def copy_broadcast_cast(ms, ops, nn, np):
    x = _x(ms, np)
    return x.copy_(ms.Tensor(np.array([7, 8, 9], np.int32))), x


# ------------------------------------------------------------------ masked and indexed updates
@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, np.where(np.array([[True, False, True], [False, False, True]]), 9.0, _xa(np))))
def masked_fill_(ms, ops, nn, np):
    x = _x(ms, np)
    return x.masked_fill_(ms.Tensor(np.array([[True, False, True], [False, False, True]])), 9.0), x


def _masked_scatter_expected(np):
    out = _xa(np).copy()
    out[np.array([[True, False, True], [False, False, True]])] = [10.0, 20.0, 30.0]
    return _pair(np, out)


@case(mindspore_wrong=True, expected=_masked_scatter_expected, note=_NO_KERNEL)
def masked_scatter_(ms, ops, nn, np):
    x = _x(ms, np)
    mask = ms.Tensor(np.array([[True, False, True], [False, False, True]]))
    return x.masked_scatter_(mask, _t(ms, np, [10.0, 20.0, 30.0, 40.0])), x


def _index_add_expected(np):
    out = np.zeros((3, 2), np.float32)
    out[0] += 2 * np.array([1.0, 2.0])
    out[2] += 2 * np.array([3.0, 4.0])
    return _pair(np, out)


@case(mindspore_wrong=True, expected=_index_add_expected, note=_NO_KERNEL)
def index_add_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((3, 2), np.float32))
    return x.index_add_(0, ms.Tensor(np.array([0, 2], np.int32)), _t(ms, np, [[1.0, 2.0], [3.0, 4.0]]), alpha=2), x


@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]))
def index_copy_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((3, 2), np.float32))
    return x.index_copy_(0, ms.Tensor(np.array([2, 0])), _t(ms, np, [[1.0, 2.0], [3.0, 4.0]])), x


@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, [[5.0, 0.0, 5.0], [5.0, 0.0, 5.0]]))
def index_fill_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    return x.index_fill_(1, ms.Tensor(np.array([0, 2], np.int32)), 5.0), x


@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, [[0.0, 7.0, 0.0], [0.0, 0.0, 8.0]]))
def index_put_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    indices = (ms.Tensor(np.array([0, 1], np.int32)), ms.Tensor(np.array([1, 2], np.int32)))
    return x.index_put_(indices, _t(ms, np, [7.0, 8.0])), x


@case(mindspore_wrong=True, note="MindSpore 2.10 (CPU) raises RuntimeError ('There is no branch to go function "
                                 "tensor_put_'); the documented in-place result",
      expected=lambda np: _pair(np, [[5.0, 0.0], [0.0, 6.0]]))
def put_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((2, 2), np.float32))
    return x.put_(ms.Tensor(np.array([0, 3])), _t(ms, np, [5.0, 6.0])), x


@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 2.0]]))
def put_accumulate(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((3, 3), np.float32))
    return x.put_(ms.Tensor(np.array([1, 7, 8, 8])), _t(ms, np, [1.0, 1.0, 0.5, 1.5]), accumulate=True), x


@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, [[5.0, 0.0], [0.0, 6.0], [0.0, 0.0]]))
def scatter_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((3, 2), np.float32))
    return x.scatter_(0, ms.Tensor(np.array([[0, 1]])), _t(ms, np, [[5.0, 6.0]])), x


@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, [[4.0, 0.0], [0.0, 4.0], [0.0, 0.0]]))
def scatter_value(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((3, 2), np.float32))
    return x.scatter_(0, ms.Tensor(np.array([[0, 1]])), 4.0), x


@case(mindspore_wrong=True, note=_NO_KERNEL,
      expected=lambda np: _pair(np, [[6.0, 0.0], [0.0, 6.0], [0.0, 0.0]]))
def scatter_add_(ms, ops, nn, np):
    x = ms.Tensor(np.ones((3, 2), np.float32)) - 1
    return x.scatter_add_(0, ms.Tensor(np.array([[0, 1], [0, 1]])), _t(ms, np, [[5.0, 6.0], [1.0, 0.0]])), x


@case(mindspore_wrong=True, note="MindSpore 2.10 (CPU) raises ValueError ('should not come here for "
                                 "fill_diagonal method'); the documented in-place result",
      expected=lambda np: _pair(np, np.diag([5.0, 5.0, 5.0])))
def fill_diagonal_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((3, 3), np.float32))
    return x.fill_diagonal_(5.0), x


# ------------------------------------------------------------------ storage
@case
def set_(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((3,), np.float32))
    return x.set_(_t(ms, np, [[1.0, 2.0]])), x


@case
def itemset_flat(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((2, 2), np.float32))
    return x.itemset(3, 5.0), x


@case
def itemset_tuple(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((2, 2), np.int32))
    return x.itemset((1, 0), 7), x


@case
def itemset_single(ms, ops, nn, np):
    x = ms.Tensor(np.zeros((1,), np.float32))
    return x.itemset(2.5), x


# ------------------------------------------------------------------ assignment on Parameters
@case
def parameter_copy_(ms, ops, nn, np):
    p = ms.Parameter(_t(ms, np, [1.0, 2.0]), name="p")
    p.copy_(_t(ms, np, [3.0, 4.0]))
    return p.asnumpy().tolist(), p.name


# ------------------------------------------------------------------ gradients through in-place updates
def _grad_add_expected(np):
    x = np.array([1.0, 2.0], np.float32)
    return 4 * (2 * x + 1)


@case(mindspore_wrong=True, expected=_grad_add_expected,
      note="MindSpore 2.10 (CPU) differentiates y * y as if y.add_(1) had not happened: 8 x instead of 4 (2 x + 1)")
def grad_through_add_(ms, ops, nn, np):
    def f(x):
        y = x * 2
        y.add_(1.0)
        return (y * y).sum()
    return ms.grad(f)(_t(ms, np, [1.0, 2.0]))


@case(mindspore_wrong=True, expected=lambda np: 4 * np.array([1.0, 2.0], np.float32),
      note="MindSpore 2.10 (CPU) ignores y.mul_(x) in the gradient: 2 instead of 4 x")
def grad_through_mul_(ms, ops, nn, np):
    def f(x):
        y = x * 2
        y.mul_(x)
        return y.sum()
    return ms.grad(f)(_t(ms, np, [1.0, 2.0]))


@case(mindspore_wrong=True, expected=lambda np: np.exp(np.array([1.0, 2.0], np.float32)),
      note="MindSpore 2.10 (CPU) ignores exp_ in the gradient: 1 instead of exp(x)")
def grad_through_exp_(ms, ops, nn, np):
    def f(x):
        y = x * 1
        y.exp_()
        return y.sum()
    return ms.grad(f)(_t(ms, np, [1.0, 2.0]))


@case
def grad_through_copy_(ms, ops, nn, np):
    def f(x):
        y = x * 1
        y.copy_(x * 3)
        return (y * y).sum()
    return ms.grad(f)(_t(ms, np, [1.0, 2.0]))


@case
def grad_of_weight_updated_in_place(ms, ops, nn, np):
    w = ms.Parameter(_t(ms, np, [1.0, 2.0]), name="w")

    def f(x):
        return (w * x).sum()
    return ms.grad(f, grad_position=None, weights=[w])(_t(ms, np, [3.0, 4.0]))
