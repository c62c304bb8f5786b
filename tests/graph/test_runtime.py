"""GRAPH_MODE for Cells: compile on first call, cache per signature, hooks off, compile/compile_and_run/proto."""
import warnings

import pytest

import cellkit as ms
from cellkit import nn, ops
from cellkit.nn import cell as cell_mod

from tests.graph.graph_models import Block, assert_same, f32, f64, mlp, pynative_then_graph


def test_runtime_outermost_call_compiles_once_and_nested_cells_are_traced_into_it(graph_mode):
    net = mlp()
    x = f32(2, 4)
    first = net(x)
    second = net(f32(2, 4))
    assert_same(first, second)
    assert ms.graph.trace_count(net) == 1
    assert ms.graph.trace_count(net[0]) == 0  # not compiled separately
    assert ms.graph.graph_of(net).ops() == ["dense", "relu", "dense"]


def test_runtime_a_new_shape_or_python_value_traces_again(graph_mode):
    class Scale(nn.Cell):
        def construct(self, x, factor):
            return x * factor

    net = Scale()
    net(f32(2), 2.0)
    net(f32(2, seed=1), 2.0)
    assert ms.graph.trace_count(net) == 1
    net(f32(3), 2.0)
    net(f32(3), 3.0)
    assert ms.graph.trace_count(net) == 3
    assert_same(net(f32(3), 3.0), f32(3) * 3.0)


def test_runtime_set_inputs_dynamic_dims_retrace_each_new_shape_and_check_static_ones(graph_mode):
    net = mlp()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    for batch in (1, 5, 1, 7):
        out = net(f32(batch, 4))
        assert out.shape == (batch, 3)
    assert ms.graph.trace_count(net) == 3  # batches 1, 5, 7: one trace each, 1 reused
    with pytest.raises(ValueError, match="dimension 1 must be 4"):
        net(f32(2, 5))


def test_runtime_aliased_inputs_are_part_of_the_signature(graph_mode):
    class Two(nn.Cell):
        def construct(self, a, b):
            return a - b

    net = Two()
    x = f32(3)
    assert (net(x, x).asnumpy() == 0).all()
    y = f32(3, seed=1)
    assert_same(net(x, y), x - y)  # not the graph traced for a == b
    assert ms.graph.trace_count(net) == 2


def test_runtime_set_train_traces_again(graph_mode):
    net = nn.SequentialCell(nn.Dense(4, 4), nn.Dropout(p=0.5))
    net(f32(2, 4))
    assert "dropout" not in ms.graph.graph_of(net).ops()
    net.set_train()
    net(f32(2, 4))
    assert "dropout" in ms.graph.graph_of(net).ops()
    assert ms.graph.trace_count(net) == 2


def test_runtime_hooks_do_not_run_and_warn_once(graph_mode):
    net = mlp()
    calls = []
    net[0].register_forward_hook(lambda cell, inputs, output: calls.append("forward"))
    net[2].register_forward_pre_hook(lambda cell, inputs: calls.append("pre"))
    with pytest.warns(UserWarning, match="Hooks do not run in GRAPH_MODE") as record:
        net(f32(2, 4))
    assert "Dense" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net(f32(2, 4))
        net(f32(3, 4))  # a new trace: the warning is not repeated
    assert calls == []


def test_runtime_a_hook_added_after_compiling_warns_on_the_next_call(graph_mode):
    net = mlp()
    net(f32(2, 4))
    net[1].register_forward_hook(lambda *a: None)
    with pytest.warns(UserWarning, match="ReLU"):
        net(f32(2, 4))


def test_runtime_compile_caches_the_graph_without_changing_state(graph_mode):
    net = Block().set_train()
    stats = net.bn.moving_mean.asnumpy().copy()
    ms.set_seed(3)
    state = ms.seed.generator().bit_generator.state
    net.compile(f32(5, 4))
    assert ms.graph.trace_count(net) == 1
    assert (net.bn.moving_mean.asnumpy() == stats).all()
    assert ms.seed.generator().bit_generator.state == state
    net(f32(5, 4))
    assert ms.graph.trace_count(net) == 1  # the call used the compiled graph


def test_runtime_compile_and_run_matches_pynative():
    net = Block().set_train()
    eager, compiled, _, _ = pynative_then_graph(net, lambda: [net.compile_and_run(f32(5, 4)) for _ in range(2)])
    assert_same(eager, compiled)


def test_runtime_compile_with_dynamic_placeholders_waits_for_real_inputs(graph_mode):
    net = mlp()
    net.compile(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    assert ms.graph.trace_count(net) == 0
    net(f32(2, 4))
    assert ms.graph.trace_count(net) == 1


def test_runtime_func_graph_proto_needs_a_compiled_graph():
    net = mlp()
    with pytest.raises(RuntimeError, match="GRAPH_MODE.*compile"):
        net.get_func_graph_proto()
    net.compile(f32(2, 4))  # PyNative: validates only
    with pytest.raises(RuntimeError, match="no compiled graph"):
        net.get_func_graph_proto()
    ms.set_context(mode=ms.GRAPH_MODE)
    net.compile(f32(2, 4))
    assert isinstance(net.get_func_graph_proto(), bytes)


def test_runtime_pynative_fast_path_is_back_after_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    assert cell_mod._direct_calls is False
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert cell_mod._direct_calls is True
    calls = []
    net = mlp()
    net[0].register_forward_hook(lambda *a: calls.append(1))
    net(f32(1, 4))
    assert calls == [1]


# ------------------------------------------------------------------ gradients through a compiled Cell
def grad_cases(net):
    weights = net.trainable_params()
    loss = lambda x: (net(x) * net(x)).sum()  # noqa: E731
    return {
        "grad": lambda x: ms.grad(loss, grad_position=0, weights=weights)(x),
        "value_and_grad": lambda x: ms.value_and_grad(loss, grad_position=None, weights=weights)(x),
        "GradOperation": lambda x: ops.GradOperation(get_all=True, get_by_list=True)(loss, weights)(x),
        "sens": lambda x: ops.GradOperation(sens_param=True)(net)(x, ms.ops.ones((5, 3), ms.float64)),
    }


@pytest.mark.parametrize("case", ["grad", "value_and_grad", "GradOperation", "sens"])
def test_runtime_gradients_through_a_compiled_cell_equal_pynative(case):
    net = mlp(ms.float64)
    run = grad_cases(net)[case]
    x = f64(5, 4)
    eager, compiled, _, _ = pynative_then_graph(net, lambda: [run(x) for _ in range(2)])
    assert_same(eager, compiled)


def test_runtime_train_one_step_cell_matches_pynative_and_warns_it_runs_op_by_op():
    def build():
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(4, 8, dtype=ms.float64), nn.ReLU(), nn.Dense(8, 1, dtype=ms.float64))
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)

    x, y = f64(6, 4), f64(6, 1, seed=1)
    net, step = build()
    eager = [step(x, y) for _ in range(3)]
    eager_weights = [p.asnumpy() for p in net.trainable_params()]
    net, step = build()
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.warns(UserWarning, match="TrainOneStepCell.*gradient transform.*wrap.py"):
        compiled = [step(x, y) for _ in range(3)]
    assert_same(eager, compiled)
    assert_same(eager_weights, [p.asnumpy() for p in net.trainable_params()])
    assert ms.graph.graph_of(step.network).ops() == ["dense", "relu", "dense", "mse_loss"]
    with pytest.raises(RuntimeError, match="op by op"):
        step.get_func_graph_proto()


def test_runtime_a_cell_with_custom_bprop_is_one_opaque_node_that_keeps_its_bprop():
    class Clipped(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout * 0 + 7,)

    net = nn.SequentialCell(nn.Dense(3, 3, dtype=ms.float64), Clipped())
    x = f64(2, 3)
    graph = ms.graph.build_graph(net, x)
    assert graph.ops() == ["dense", "Clipped"] and graph.nodes[1].kind == "cell"
    loss = lambda x: net(x).sum()  # noqa: E731
    eager, compiled, _, _ = pynative_then_graph(
        net, lambda: [ms.grad(loss, grad_position=0, weights=net.trainable_params())(x) for _ in range(2)])
    assert_same(eager, compiled)


def test_runtime_to_float_casts_are_traced_so_parameter_updates_are_seen():
    net = mlp()
    net.to_float(ms.float16)
    x = f32(2, 4)
    eager, compiled, _, _ = pynative_then_graph(net, lambda: [net(x) for _ in range(2)])
    assert_same(eager, compiled)
    assert compiled[0].dtype == ms.float16
    assert "cast" in ms.graph.graph_of(net).ops()
    net[0].weight.set_data(net[0].weight * 2.0)
    expected = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    assert_same(net(x), expected)


def test_runtime_a_copied_or_pickled_cell_compiles_its_own_graph():
    import copy
    import pickle

    net = mlp()
    x = f32(2, 4)
    ms.set_context(mode=ms.GRAPH_MODE)
    net(x)
    twin = copy.deepcopy(net)
    revived = pickle.loads(pickle.dumps(net))
    for other in (twin, revived):
        assert ms.graph.trace_count(other) == 0
        other[0].weight.set_data(other[0].weight * 0.0)
        assert_same(other(x), ops.dense(ops.relu(ops.dense(x, other[0].weight, other[0].bias)),
                                        other[2].weight, other[2].bias))
    assert not (net(x).asnumpy() == twin(x).asnumpy()).all()  # the original still uses its own weights


def test_runtime_an_optimizer_inside_a_graph_is_one_node_that_runs_every_call():
    def build():
        ms.set_seed(0)
        net = nn.Dense(3, 2, dtype=ms.float64)
        return net, nn.SGD(net.trainable_params(), learning_rate=0.5)

    class Apply(nn.Cell):
        def __init__(self, optimizer):
            super().__init__(auto_prefix=False)
            self.optimizer = optimizer

        def construct(self, grad_w, grad_b):
            self.optimizer((grad_w, grad_b))
            return grad_w.sum()

    grads = (f64(2, 3), f64(2, seed=1))
    net, opt = build()
    step = Apply(opt)
    for _ in range(3):
        step(*grads)
    eager = [p.asnumpy() for p in net.trainable_params()]
    net, opt = build()
    step = Apply(opt)
    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(3):
        step(*grads)
    assert ms.graph.trace_count(step) == 1
    node = ms.graph.graph_of(step).nodes[0]
    assert node.op == "SGD" and node.kind == "cell" and node.effectful
    assert_same(eager, [p.asnumpy() for p in net.trainable_params()])


def test_runtime_list_inputs_and_model_train_in_graph_mode():
    class Total(nn.Cell):
        def construct(self, xs):
            return xs[0] + xs[1]

    net = Total()
    ms.set_context(mode=ms.GRAPH_MODE)
    net([f32(2), f32(2, seed=1)])
    assert_same(net([f32(2, seed=2), f32(2, seed=3)]), f32(2, seed=2) + f32(2, seed=3))
    assert [i.name for i in ms.graph.graph_of(net).inputs] == ["xs[0]", "xs[1]"]


def test_runtime_model_train_and_eval_in_graph_mode_match_pynative():
    def run():
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(4, 8, dtype=ms.float64), nn.ReLU(), nn.Dense(8, 2, dtype=ms.float64))
        model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), learning_rate=0.1), metrics={"loss"})
        data = [(f64(4, 4, seed=s), f64(4, 2, seed=10 + s)) for s in range(3)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the training step runs op by op (documented)
            model.train(2, data, progress=False)
            result = model.eval(data, progress=False)
        return [p.asnumpy() for p in net.trainable_params()], result

    eager_weights, eager_eval = run()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph_weights, graph_eval = run()
    assert_same(eager_weights, graph_weights)
    assert eager_eval == graph_eval


def test_runtime_hooks_on_the_outermost_cell_do_not_run_either(graph_mode):
    net = mlp()
    calls = []
    net.register_forward_pre_hook(lambda cell, inputs: calls.append(1))
    with pytest.warns(UserWarning, match="SequentialCell"):
        net(f32(1, 4))
    net(f32(1, 4))
    assert calls == []


def test_runtime_learning_rate_schedules_run_op_by_op_so_the_step_is_read_each_time(graph_mode):
    w = ms.Parameter(ms.Tensor([1.0, 1.0]), name="w")
    optimizer = nn.SGD([w], [0.1, 0.2, 0.3])
    rates = []
    for _ in range(3):
        rates.append(float(optimizer.get_lr().asnumpy()))
        optimizer((ms.Tensor([1.0, 1.0]),))
    assert rates == pytest.approx([0.1, 0.2, 0.3])
