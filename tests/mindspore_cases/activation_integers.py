"""``hardswish`` / ``hardsigmoid`` on integer and bool tensors, and the sign of their zeros.

MindSpore keeps a signed-integer input's dtype and divides as integers do (cutting toward zero);
it refuses unsigned and bool tensors.  For floats, the flat part of hardswish is +0.0, which
prints as ``0.`` (``x * 0`` would give ``-0.`` for negative ``x``).
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

VALUES = [-7, -4, -3, -2, -1, 0, 1, 2, 3, 5, 9]


def _run(ms, np, name, dtype, values=VALUES):
    out = getattr(ms.ops, name)(ms.Tensor(np.array(values, dtype=dtype)))
    return [str(out.dtype), out]


for _name in ("hardswish", "hardsigmoid"):
    for _dtype in ("int8", "int16", "int32", "int64"):
        def _integer_case(ms, ops, nn, np, name=_name, dtype=_dtype):
            return _run(ms, np, name, dtype)
        _integer_case.__name__ = f"{_name}_on_{_dtype}"
        case(_integer_case)
    for _dtype in ("uint8", "bool"):
        def _refused_case(ms, ops, nn, np, name=_name, dtype=_dtype):
            return _run(ms, np, name, dtype, [0, 1, 2, 3])
        _refused_case.__name__ = f"{_name}_refuses_{_dtype}"
        case(_refused_case)


@case
def hardswish_flat_part_prints_positive_zero(ms, ops, nn, np):
    out = ops.hardswish(ms.Tensor(np.array([-7.0, -4.0, -3.0, 0.0, 4.0], np.float32)))
    return [str(out), [float(np.copysign(1.0, v)) for v in out.asnumpy()]]


@case
def layers_on_integers(ms, ops, nn, np):
    x = ms.Tensor(np.array([-5, -1, 2, 4], np.int32))
    return [nn.HSwish()(x), nn.HSigmoid()(x), ops.HSwish()(x), ops.HSigmoid()(x)]
