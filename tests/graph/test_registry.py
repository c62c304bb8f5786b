"""Which calls count as ops: by code object, hard and soft, random and state-changing."""
import pytest

from cellkit import nn, ops
from cellkit.graph import registry
from cellkit.ops import activation
from cellkit.parameter import Parameter
from cellkit.tensor import Tensor


def test_registry_knows_functional_ops_however_they_are_imported():
    from cellkit.ops import dense as aliased

    assert registry.op_info(aliased.__code__).name == "dense"
    assert registry.op_info(activation.relu.__code__) is registry.op_info(ops.relu.__code__)
    assert registry.op_info(ops.linear.__code__).name == "dense"  # an alias is the same function


def test_registry_primitives_and_tensor_methods_are_soft():
    info = registry.op_info(type(ops.Dropout()).__call__.__code__)
    assert info.soft and info.kind == "primitive" and info.random
    copy = registry.op_info(Tensor.copy.__code__)
    assert copy.soft and copy.kind == "function"


def test_registry_marks_state_changing_ops():
    assert registry.op_info(ops.batch_norm.__code__).effectful
    assert registry.op_info(ops.setitem.__code__).effectful
    assert registry.op_info(Parameter.set_data.__code__).effectful
    assert not registry.op_info(ops.add.__code__).effectful


def test_registry_leaves_out_transforms_helpers_and_cells():
    assert registry.op_info(ops.grad.__code__) is None
    assert registry.op_info(nn.Dense.construct.__code__) is None
    assert registry.is_transform_start(__import__("cellkit").transforms._Tape.__init__.__code__)


def test_registry_binds_a_frame_back_into_a_call():
    def op(a, b=2, *rest, c=3, **more):
        pass

    args, kwargs, names = registry.bind_frame_locals(op.__code__, {"a": 1, "b": 5, "rest": (6, 7), "c": 9,
                                                                   "more": {"z": 0}})
    assert args == (1, 5, 6, 7) and kwargs == {"c": 9, "z": 0} and names == ("a", "b")


@pytest.mark.parametrize("name", ["add", "matmul", "conv2d", "softmax", "reshape", "dropout"])
def test_registry_covers_the_common_ops(name):
    assert registry.op_info(getattr(ops, name).__code__) is not None


def test_registry_no_two_public_ops_share_a_code_object():
    # The tracer knows an op by its code object: six comparisons made by one factory once all became 'equal'.
    import collections
    import inspect

    from cellkit import ops

    by_code = collections.defaultdict(set)
    for name in dir(ops):
        fn = getattr(ops, name)
        if inspect.isfunction(fn):
            by_code[fn.__code__].add(fn)
    assert [sorted(f.__name__ for f in fns) for fns in by_code.values() if len(fns) > 1] == []


def test_registry_comparisons_stay_distinct_in_a_compiled_graph():
    import numpy as np

    import cellkit as ms
    from cellkit import nn, ops

    class Abs(nn.Cell):
        def construct(self, x):
            return ops.where(x > 0, x, -x) + ops.where(x <= 0, 0.0, 1.0)

    x = ms.Tensor(np.array([1.0, -2.0], np.float32))
    compiled = ms.jit(Abs())
    assert [compiled(x).asnumpy().tolist() for _ in range(3)] == [[2.0, 2.0]] * 3
