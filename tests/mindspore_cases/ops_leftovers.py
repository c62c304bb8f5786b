"""The last ``ops`` names and Tensor methods of the op surface, as MindSpore 2.10 runs them.

``Tensor.addcdiv`` has no CPU kernel in MindSpore 2.10 (``AddcdivExt`` unregistered, its docstring
lists Ascend only): that case records MindSpore's RuntimeError and compare cellkit with NumPy (``mindspore_wrong`` is how the fixture keeps the
evidence).  ``broadcast`` runs in a process that never called ``communication.init()``: cellkit
answers as rank 0 of a group of one.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

_NO_CPU_KERNEL = "MindSpore 2.10 has no CPU kernel for it (RuntimeError: kernel ... unregistered)"
A = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]
B = [[2.0, 0.5, -1.0], [1.5, -2.5, 3.0]]
C = [[4.0, -1.0, 2.0], [0.25, 0.5, -2.0]]


def _t(ms, np, values, dtype="float32"):
    return ms.Tensor(np.array(values, dtype=dtype))


@case(mindspore_wrong=True, note=_NO_CPU_KERNEL,
      expected=lambda np: np.array(A, np.float32) + 2 * np.array(B, np.float32) / np.array(C, np.float32))
def tensor_addcdiv_method(ms, ops, nn, np):
    return _t(ms, np, A).addcdiv(_t(ms, np, B), _t(ms, np, C), value=2)


@case
def tensor_addcmul_method(ms, ops, nn, np):
    return _t(ms, np, A).addcmul(_t(ms, np, B), _t(ms, np, C), value=0.5)


@case
def tensor_is_floating_point_method(ms, ops, nn, np):
    return (_t(ms, np, A).is_floating_point(), _t(ms, np, [1, 2], "int32").is_floating_point(),
            _t(ms, np, [1.0], "float16").is_floating_point())


@case
def tensor_renorm_method(ms, ops, nn, np):
    return _t(ms, np, A).renorm(2, 0, 1.5), _t(ms, np, A).renorm(1, 1, 2.0)


@case
def tensor_inplace_update_method(ms, ops, nn, np):
    x = _t(ms, np, A)
    out = x.inplace_update(_t(ms, np, [[9.0, 8.0, 7.0]]), _t(ms, np, [1], "int32"))
    return out, x


@case
def dtype_primitive(ms, ops, nn, np):
    return (str(ops.DType()(_t(ms, np, A))), str(ops.DType()(_t(ms, np, [1, 2], "int64"))),
            str(ops.DType()(ms.Parameter(_t(ms, np, [1.0], "float16"), name="p"))))


@case
def dtype_primitive_refuses_a_number(ms, ops, nn, np):
    return ops.DType()(3)


@case
def dtype_to_enum_codes(ms, ops, nn, np):
    names = ["bool_", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64", "bfloat16"]
    return [ops.DtypeToEnum()("MyOp", "dtype", getattr(ms, n)) for n in names]


@case
def dtype_to_enum_refuses_a_number(ms, ops, nn, np):
    return ops.DtypeToEnum()("MyOp", "dtype", 3)


@case
def shape_mul_products(ms, ops, nn, np):
    return ops.shape_mul((2, 3, 4)), ops.shape_mul(()), ops.shape_mul((5,))


@case
def shape_mul_refuses_a_list(ms, ops, nn, np):
    return ops.shape_mul([2, 3])


@case
def is_nonzero_answers(ms, ops, nn, np):
    return (ops.is_nonzero(_t(ms, np, [2.0])), ops.is_nonzero(_t(ms, np, [[0]], "int32")),
            ops.is_nonzero(ms.Tensor(True)), ops.is_nonzero(_t(ms, np, [0.0])))


@case
def is_nonzero_refuses_two_elements(ms, ops, nn, np):
    return ops.is_nonzero(_t(ms, np, [1.0, 2.0]))


@case
def is_nonzero_refuses_no_element(ms, ops, nn, np):
    return ops.is_nonzero(ms.Tensor(np.zeros((0,), np.float32)))


@case
def is_tensor_answers(ms, ops, nn, np):
    return (ops.is_tensor(_t(ms, np, A)), ops.is_tensor(3), ops.is_tensor(np.ones(2)),
            ops.is_tensor(ms.Parameter(_t(ms, np, [1.0]), name="q")))


@case
def get_grad_picks_a_parameter_gradient(ms, ops, nn, np):
    w = ms.Parameter(_t(ms, np, [1.0, 2.0]), name="w")

    def f(x):
        return (x * w).sum()

    _, grads = ms.grad(f, grad_position=0, weights=[w], return_ids=True)(_t(ms, np, [3.0, 4.0]))
    return ops.get_grad(grads, w), ops.get_grad(grads, 0)


@case(mindspore_wrong=True, expected=lambda np: (None, np.array([1.0, 2.0], np.float32)),
      note="MindSpore 2.10 needs communication.init() first (it raises without a cluster); cellkit is rank 0 "
           "of a group of one, where broadcast from rank 0 leaves the tensor as it is")
def broadcast_from_rank_zero(ms, ops, nn, np):
    x = _t(ms, np, [1.0, 2.0])
    return ops.broadcast(x, 0), x


@case
def constexpr_decorator(ms, ops, nn, np):
    @ops.constexpr
    def area(shape):
        return shape[0] * shape[1]

    square_class = ops.constexpr(get_instance=False)(lambda n: n * n)
    return area((3, 4)), square_class()(5), isinstance(area, ops.Primitive)


@case
def primitive_with_check_subclass_runs(ms, ops, nn, np):
    class Square(ops.PrimitiveWithCheck):
        def __init__(self):
            super().__init__("Square")

        def check_dtype(self, x_dtype):
            if x_dtype != ms.float32:
                raise TypeError(f"For 'Square', 'x' must be Float32, but got {x_dtype}")

        def __call__(self, x):
            return x * x

    return Square()(_t(ms, np, [3.0, -2.0])), isinstance(Square(), ops.Primitive)


@case
def shape_function(ms, ops, nn, np):
    return ops.shape(_t(ms, np, A)), ops.shape(ms.Tensor(np.ones((2, 0, 3), np.float32))), ops.shape(ms.Tensor(1.0))


@case
def shape_function_refuses_a_list(ms, ops, nn, np):
    return ops.shape([1.0, 2.0])


@case
def pyfunc_two_outputs(ms, ops, nn, np):
    def add_mul(x, y):
        return x + y, x * y

    op = ops.PyFunc(add_mul, [ms.float32, ms.float32], [(2,), (2,)], [ms.float32, ms.float32], [(2,), (2,)])
    return op(_t(ms, np, [1.0, 2.0]), _t(ms, np, [3.0, 4.0]))


@case
def pyfunc_one_output_is_a_tuple(ms, ops, nn, np):
    op = ops.PyFunc(lambda x: x * 2, [ms.float32], [(3,)], [ms.float32], [(3,)])
    return op(_t(ms, np, [1.0, -2.0, 0.5]))


@case
def train_reexports_export_and_load(ms, ops, nn, np):
    return ms.train.export is ms.export, ms.train.load is ms.load
