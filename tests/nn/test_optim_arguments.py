"""How ``nn.Optimizer`` reads its constructor arguments (parameters, groups, rates, weight decay).

The update rules are tested in ``test_optim.py`` and against MindSpore in
``test_mindspore_optim.py``; these tests pin what the constructor derives from
its arguments: Parameter names, flags, per-Parameter lists, and which problem
is reported first when several are present.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn


def _params():
    return [ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name=name)
            for name in ("w", "beta_b", "gamma_g", "v")]


def test_plain_list_shares_one_rate_and_skips_beta_gamma_in_decay():
    ps = _params()
    opt = nn.SGD(ps, learning_rate=0.5, weight_decay=0.1, loss_scale=2.0)
    assert not opt.is_group and not opt.is_group_lr and not opt.dynamic_lr
    assert opt.learning_rate.name == "learning_rate"
    assert opt.decay_flags == (True, False, False, True)
    assert opt.exec_weight_decay and opt.need_scale and opt.param_length == 4
    # the weight decay is kept multiplied by the loss scale
    assert float(opt.weight_decay.asnumpy()) == pytest.approx(0.2)
    assert opt.optim_filter == (True,) * 4


def test_group_rates_are_named_by_the_position_of_their_dict():
    w, b, g, v = _params()
    opt = nn.SGD([{"params": [w]}, {"order_params": [v, g, b, w]},
                  {"params": [b, g], "lr": 0.2}, {"params": [v], "lr": 0.3}], learning_rate=0.1)
    assert opt.is_group and opt.is_group_lr and opt.is_group_params_ordered
    assert [p.name for p in opt.parameters] == ["v", "gamma_g", "beta_b", "w"]
    assert [r.name for r in opt.learning_rate] == ["learning_rate_group_3", "learning_rate_group_2",
                                                   "learning_rate_group_2", "learning_rate"]
    assert opt.get_lr_parameter(g) is opt.get_lr_parameter(b)
    assert isinstance(opt.group_lr, list) and len(opt.group_params) == 4


def test_fixed_group_rates_become_cells_beside_a_dynamic_one():
    w, b, g, v = _params()
    opt = nn.SGD([{"params": [w], "lr": [0.3, 0.2]}, {"params": [b, g, v], "lr": 0.05}], learning_rate=0.1)
    assert opt.dynamic_lr and opt.is_group_lr
    assert isinstance(opt.learning_rate, nn.CellList)
    assert opt.get_lr_parameter(b).name == "learning_rate_group_1"
    lrs = [float(r.asnumpy().reshape(-1)[0]) for r in opt.get_lr()]
    assert lrs == pytest.approx([0.3, 0.05, 0.05, 0.05])


def test_group_weight_decay_centralization_and_defaults():
    w, b, g, v = _params()
    opt = nn.SGD([{"params": [w, b], "weight_decay": 0.01, "grad_centralization": True},
                  {"params": [g]}, {"params": [v], "grad_centralization": False}],
                 learning_rate=0.1, weight_decay=0.02)
    assert opt.group_weight_decay == pytest.approx([0.01, 0.01, 0.02, 0.02])
    assert opt.decay_flags == (True, True, True, True)  # with groups the names do not matter
    assert opt.grad_centralization_flags == (True, True, False, False)
    assert opt.grad_centralization is False  # the last group that says so
    assert not opt.dynamic_weight_decay and not opt.is_group_params_ordered


def test_an_empty_order_params_marks_the_groups_ordered_and_keeps_their_order():
    w, b, g, v = _params()
    opt = nn.SGD([{"params": [v, w]}, {"order_params": []}], learning_rate=0.1)
    assert opt.is_group_params_ordered
    assert [p.name for p in opt.parameters] == ["v", "w"]


def test_a_generator_of_group_params_is_read_once():
    # MindSpore 2.10 leaves out the Parameters of a generator given as a group's 'params' (seen on CPU).
    w, b, g, v = _params()
    opt = nn.SGD([{"params": (p for p in (w, b))}, {"params": [g, v]}], learning_rate=0.1)
    assert [p.name for p in opt.parameters] == ["w", "beta_b", "gamma_g", "v"]


def test_group_shapes_are_checked_before_rates_and_rates_before_weight_decay():
    w, b, g, v = _params()
    with pytest.raises(KeyError, match="the key in group params"):
        nn.SGD([{"params": [w], "lr": -1.0}, {"params": [b], "momentum": 0.9}], learning_rate=0.1)
    with pytest.raises(ValueError, match="'learning rate' must be float and must >= 0"):
        nn.SGD([{"params": [w], "weight_decay": -1.0}, {"params": [b], "lr": -1.0}], learning_rate=0.1)
    with pytest.raises(ValueError, match="'weight_decay' must be >= 0"):
        nn.SGD([{"params": [w], "weight_decay": -1.0}, {"params": [w]}], learning_rate=0.1)
    with pytest.raises(RuntimeError, match="already exists"):
        nn.SGD([{"params": [w]}, {"params": [w], "weight_decay": 0.1}], learning_rate=0.1)


def test_dynamic_group_rates_must_have_one_length():
    w, b, g, v = _params()
    with pytest.raises(ValueError, match="must be the same size as the argument 'learning_rate'"):
        nn.SGD([{"params": [w], "lr": [0.1, 0.2]}, {"params": [b]}], learning_rate=[0.1, 0.2, 0.3])
    opt = nn.SGD([{"params": [w], "lr": [0.1, 0.2]}, {"params": [b], "lr": ms.Tensor(np.float32(0.5))}],
                 learning_rate=0.1)
    assert opt.dynamic_lr


def test_order_params_must_list_exactly_the_grouped_parameters():
    w, b, g, v = _params()
    with pytest.raises(ValueError, match="length of order parameters"):
        nn.SGD([{"params": [w, b]}, {"order_params": [w]}], learning_rate=0.1)
    with pytest.raises(ValueError, match="'beta_b' is in a group but not in 'order_params'"):
        nn.SGD([{"params": [w, b]}, {"order_params": [w, v]}], learning_rate=0.1)
