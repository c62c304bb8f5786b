"""Bad input everywhere: every public callable, fed one wrong argument at a time, ends in a clear error.

The public surface is enumerated, not listed by hand, so new API is walked
automatically: the functions of ``cellkit.ops`` (each submodule's
``__all__``) and its Primitive classes (built, then called), the public
methods of Tensor, Parameter, ParameterTuple and Cell (on a small real
net), the nn layers, losses, optimizers and learning-rate schedules (built,
then called), the initializers, and the top-level functions
(``save_checkpoint`` / ``load_checkpoint`` / ``load_param_into_net``,
``memory.profile``, ``trace``, ``grad`` ...).

``inspect.signature`` names the parameters; :data:`EXAMPLES` (by callable)
and :data:`BY_NAME` (by parameter name) give a valid value for each one
that has no default.  For every callable, hypothesis draws which argument
to corrupt and how: a wrong type (str, dict, ``object()``, None, a list of
str), a wrong shape, a wrong dtype (int / bool tensors, complex NumPy
arrays), an empty tensor, a huge value (1e308, 2**63, a dimension of
10**12), NaN / inf, an axis out of range.  The other arguments stay valid.

The call must either succeed (NaN data is legal) or raise the type the spec
names: TypeError, ValueError, KeyError, RuntimeError (or NotImplementedError
for what cellkit documents as unsupported; IndexError only where MindSpore
raises it: indexing).  Never an AssertionError, ZeroDivisionError,
OverflowError, MemoryError, AttributeError or a NumPy exception.  The
message must say where (the callable's name or one of its parameter names,
quoted or as ``name:``) and what was given (its type, value, shape or
dtype).  A refused call leaves its receiver (the Tensor, Parameter or Cell
it was called on) exactly as it was: nothing is lost.

:data:`ALLOWLIST` names the few (callable, argument) pairs that are not
held to these rules, each with its reason.
"""
from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import os
import re
import tempfile
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import cellkit as ms
from cellkit import memory, nn, ops
from cellkit.common import initializer as init_mod
from cellkit.ops import primitive as primitive_mod
from tests import op_catalogue
from tests.mindspore_cases import to_tensors

import reliability

EMPTY = inspect.Parameter.empty
SPEC_ERRORS = (TypeError, ValueError, KeyError, RuntimeError, NotImplementedError)
TMP = tempfile.mkdtemp(prefix="cellkit-api-walk-")


# -- valid values -------------------------------------------------------------------------------------------
def F(*shape, dtype=np.float32):
    """A float tensor of ``shape`` with deterministic values in [0.5, 1.4]."""
    n = int(np.prod(shape)) if shape else 1
    return ms.Tensor((np.arange(n, dtype=np.float64).reshape(shape) % 7 / 7 + 0.5).astype(dtype))


def I(*shape, high=2, dtype=np.int32):
    """An int tensor of ``shape`` with values in [0, high)."""
    n = int(np.prod(shape)) if shape else 1
    return ms.Tensor((np.arange(n).reshape(shape) % high).astype(dtype))


class Net(nn.Cell):
    """The small real net whose methods are walked: Dense -> ReLU, with a buffer."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.act = nn.ReLU()
        self.register_buffer("steps", ms.Tensor(np.array([0], np.int32)))

    def construct(self, x):
        return self.act(self.fc(x))

    def get_extra_state(self):
        return {"calls": 0}

    def set_extra_state(self, state):
        self.extra = state


def staged_net():
    net = Net()
    net.pipeline_stage = 0
    return net


def compiled_net():
    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net.compile(F(4, 3))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return net


def ckpt_file():
    path = os.path.join(TMP, "net.ckpt")
    if not os.path.exists(path):
        ms.save_checkpoint(Net(), path)
    return path


def hook(*args):
    return None


# Valid values by parameter name, used when EXAMPLES does not name the parameter.
BY_NAME = {
    "input": lambda: F(2, 3), "x": lambda: F(2, 3), "input_x": lambda: F(2, 3), "other": lambda: F(2, 3),
    "y": lambda: F(2, 3), "exponent": lambda: F(2, 3), "A": lambda: F(2, 3), "logits": lambda: F(2, 3),
    "condition": lambda: F(2, 3) > 1,
    "axis0": lambda: 0, "axis1": lambda: 1, "shape": lambda: (2, 3), "size": lambda: (2, 3),
    "dtype": lambda: ms.float32, "dst_type": lambda: ms.float16, "tensors": lambda: [F(2, 3), F(2, 3)],
    "fill_value": lambda: 1.5, "value": lambda: 1.5, "n": lambda: 3, "seed": lambda: 1,
    "fn": lambda: (lambda x: x * 2), "hook_fn": lambda: hook, "hook": lambda: hook,
    "net": Net, "network": Net, "backbone": Net, "save_obj": Net, "ckpt_file_name": ckpt_file,
    "parameter_dict": lambda: {"fc.weight": ms.Parameter(F(2, 3), name="fc.weight")},
    "state_dict": lambda: Net().state_dict(), "params": lambda: Net().trainable_params(),
    "learning_rate": lambda: 0.1, "momentum": lambda: 0.9, "in_channels": lambda: 3, "out_channels": lambda: 4,
    "kernel_size": lambda: 3, "num_features": lambda: 3, "vocab_size": lambda: 5, "embedding_size": lambda: 4,
    "normalized_shape": lambda: (3,), "decay_steps": lambda: 4, "decay_rate": lambda: 0.5,
    "min_lr": lambda: 0.01, "max_lr": lambda: 0.1, "end_learning_rate": lambda: 0.01, "power": lambda: 1.0,
    "warmup_steps": lambda: 2, "loss_fn": lambda: nn.MSELoss(), "optimizer": None,  # filled per entry
}

# Which parameters hold an axis (their corruptions include out-of-range axes) and which a shape.
AXIS_NAMES = {"axis", "dim", "axis0", "axis1", "start_dim", "end_dim", "begin_norm_axis", "begin_params_axis"}
SHAPE_NAMES = {"shape", "size", "normalized_shape", "dims", "kernel_size", "stride", "strides", "padding", "pad"}


# -- the public surface -------------------------------------------------------------------------------------
POS = inspect.Parameter.POSITIONAL_ONLY
KW = inspect.Parameter.KEYWORD_ONLY


def pseudo(*names, kind=POS):
    """Parameters for a ``*args`` / ``**kwargs`` signature: what the walk passes there."""
    return [inspect.Parameter(n, kind) for n in names]


@dataclasses.dataclass
class Entry:
    """One public callable: how to get it fresh, its parameters, valid values, and where its errors may point."""

    id: str
    area: str
    make: object                      # () -> (callable, receiver or None)
    params: list
    valid: dict
    names: frozenset
    extra_errors: tuple = ()          # exception types the spec names for this call besides SPEC_ERRORS
    corrupt: tuple = None             # only these parameters (None: all)

    def value(self, param):
        factory = self.valid.get(param.name, BY_NAME.get(param.name) if param.default is EMPTY else None)
        if factory is not None:
            return factory()
        if param.default is not EMPTY:
            return param.default
        raise LookupError(f"{self.id}: no valid example for required parameter {param.name!r}; add one to EXAMPLES")

    def call_args(self, bad=None, bad_value=None):
        """Positional and keyword arguments: every parameter valid, except ``bad`` set to ``bad_value``."""
        args, kwargs = [], {}
        for p in self.params:
            given = p.name == bad
            if p.kind is POS:  # positional-only: always in place
                args.append(bad_value if given else self.value(p))
            elif given or p.default is EMPTY or p.name in self.valid:
                v = bad_value if given else self.value(p)
                if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.default is EMPTY:
                    args.append(v)
                else:
                    kwargs[p.name] = v
        return args, kwargs


def _signature(fn):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []
    return [p for p in params if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]


def _names(*words, params=()):
    return frozenset(w for w in words if w) | frozenset(p.name for p in params)


def opt_params(n=None):
    return Net().trainable_params()


def grads_for(params):
    return tuple(ms.Tensor(np.full(p.shape, 0.1, np.float32)) for p in params)


def _loss_net():
    return nn.WithLossCell(Net(), nn.MSELoss())


def _step_net():
    net = _loss_net()
    return nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))


def _placeholder():
    return ms.Tensor(shape=[2, None], dtype=ms.float32)


# Valid values per callable where the parameter name alone does not say: {entry id: {parameter: factory}}.
# "@params" replaces the parameter list (for ``*args`` signatures), "@receiver" the object a method runs on.
EXAMPLES = {
    # ops: creation, linear algebra, losses
    "ops.fill": {"type": lambda: ms.float32}, "ops.cast": {"dtype": lambda: ms.int32},
    "ops.arange": {"start": lambda: 1, "end": lambda: 6, "step": lambda: 2}, "ops.eye": {"m": lambda: 2},
    "ops.full_like": {"fill_value": lambda: 2.0}, "ops.clamp": {"min": lambda: 0.6, "max": lambda: 1.2},
    "ops.clip": {"min": lambda: 0.6, "max": lambda: 1.2},
    "ops.prim_attr_register": {"init": lambda: (lambda self, axis=0: None)},
    "ops.matmul": {"other": lambda: F(3, 4)}, "ops.mm": {"other": lambda: F(3, 4)},
    "ops.bmm": {"input_x": lambda: F(2, 2, 3), "mat2": lambda: F(2, 3, 4)},
    "ops.batch_matmul": {"x": lambda: F(2, 2, 3), "y": lambda: F(2, 3, 4)},
    "ops.mse_loss": {"target": lambda: F(2, 3)}, "ops.l1_loss": {"target": lambda: F(2, 3)},
    "ops.smooth_l1_loss": {"target": lambda: F(2, 3)},
    "ops.binary_cross_entropy_with_logits": {"target": lambda: F(2, 3) - 0.5, "weight": lambda: F(2, 3),
                                             "pos_weight": lambda: F(3)},
    "ops.binary_cross_entropy": {"logits": lambda: F(2, 3) - 0.45, "labels": lambda: F(2, 3) - 0.5,
                                 "weight": lambda: F(2, 3)},
    "ops.nll_loss": {"inputs": lambda: F(2, 3), "target": lambda: I(2, high=3), "weight": lambda: F(3)},
    "ops.cross_entropy": {"target": lambda: I(2, high=3), "weight": lambda: F(3)},
    "ops.where": {"condition": lambda: F(2, 3) > 1},
    # ops: nn
    "ops.conv2d": {"input": lambda: F(1, 2, 5, 5), "weight": lambda: F(3, 2, 3, 3), "bias": lambda: F(3)},
    "ops.max_pool2d": {"x": lambda: F(1, 2, 4, 4), "kernel_size": lambda: 2},
    "ops.avg_pool2d": {"input_x": lambda: F(1, 2, 4, 4), "kernel_size": lambda: 2},
    "ops.bias_add": {"input_x": lambda: F(2, 3), "bias": lambda: F(3)},
    "ops.dense": {"weight": lambda: F(4, 3), "bias": lambda: F(4)},
    "ops.linear": {"weight": lambda: F(4, 3), "bias": lambda: F(4)},
    "ops.batch_norm": {"input_x": lambda: F(2, 3), "running_mean": lambda: F(3), "running_var": lambda: F(3),
                       "weight": lambda: F(3), "bias": lambda: F(3)},
    "ops.layer_norm": {"weight": lambda: F(3), "bias": lambda: F(3)},
    # ops: shape
    "ops.reshape": {"shape": lambda: (3, 2)}, "ops.transpose": {"dims": lambda: (1, 0)},
    "ops.permute": {"axis": lambda: (1, 0)}, "ops.expand_dims": {"axis": lambda: 0},
    "ops.unsqueeze": {"dim": lambda: 0}, "ops.squeeze": {"input": lambda: F(2, 1, 3)},
    "ops.split": {"tensor": lambda: F(4, 3), "split_size_or_sections": lambda: 2},
    "ops.gather": {"input_params": lambda: F(3, 2), "input_indices": lambda: I(2, high=3), "axis": lambda: 0},
    "ops.tile": {"dims": lambda: (2, 1)}, "ops.broadcast_to": {"shape": lambda: (4, 2, 3)},
    "ops.narrow": {"axis": lambda: 1, "start": lambda: 0, "length": lambda: 2},
    "ops.getitem": {"key": lambda: 1}, "ops.setitem": {"key": lambda: 1, "value": lambda: 2.0},
    "ops.chunk": {"chunks": lambda: 2}, "ops.take": {"indices": lambda: I(2, high=6)},
    "ops.flatten": {"input": lambda: F(2, 3, 2)},
    # ops: Primitive calls
    "ops.Transpose()": {"dims": lambda: (1, 0)}, "ops.Reshape()": {"shape": lambda: (3, 2)},
    "ops.ExpandDims()": {"axis": lambda: 0}, "ops.Tile()": {"dims": lambda: (2, 1)},
    "ops.Gather()": {"input_params": lambda: F(3, 2), "input_indices": lambda: I(2, high=3), "axis": lambda: 0},
    "ops.Cast()": {"dtype": lambda: ms.int32}, "ops.Select()": {"condition": lambda: F(2, 3) > 1},
    "ops.BroadcastTo": {"shape": lambda: (4, 2, 3)}, "ops.BroadcastTo()": {"x": lambda: F(2, 3)},
    "ops.Squeeze()": {"x": lambda: F(2, 1, 3)}, "ops.Split()": {"x": lambda: F(4, 3)},
    "ops.AddN()": {"inputs": lambda: [F(2, 3), F(2, 3)]}, "ops.Concat()": {"tensors": lambda: [F(2, 3), F(2, 3)]},
    "ops.Stack()": {"tensors": lambda: [F(2, 3), F(2, 3)]},
    "ops.Ones()": {"size": lambda: (2, 3)}, "ops.Zeros()": {"size": lambda: (2, 3)},
    "ops.Fill()": {"type": lambda: ms.float32},
    "ops.MatMul()": {"y": lambda: F(3, 4)}, "ops.BatchMatMul()": {"x": lambda: F(2, 2, 3), "y": lambda: F(2, 3, 4)},
    "ops.Conv2D": {"out_channel": lambda: 3, "kernel_size": lambda: 3},
    "ops.Conv2D()": {"x": lambda: F(1, 2, 5, 5), "weight": lambda: F(3, 2, 3, 3)},
    "ops.MaxPool": {"kernel_size": lambda: 2, "strides": lambda: 2},
    "ops.AvgPool": {"kernel_size": lambda: 2, "strides": lambda: 2},
    "ops.MaxPool()": {"x": lambda: F(1, 2, 4, 4)}, "ops.AvgPool()": {"x": lambda: F(1, 2, 4, 4)},
    "ops.BiasAdd()": {"input_x": lambda: F(2, 3), "bias": lambda: F(3)},
    "ops.Dense()": {"weight": lambda: F(4, 3), "bias": lambda: F(4)},
    "ops.BatchNorm()": {"input_x": lambda: F(2, 3), "scale": lambda: F(3), "bias": lambda: F(3),
                        "mean": lambda: F(3), "variance": lambda: F(3)},
    "ops.LayerNorm()": {"input_x": lambda: F(2, 3), "gamma": lambda: F(3), "beta": lambda: F(3)},
    "ops.NLLLoss()": {"logits": lambda: F(2, 3), "labels": lambda: I(2, high=3), "weight": lambda: F(3)},
    "ops.SoftmaxCrossEntropyWithLogits()": {"labels": lambda: F(2, 3) - 0.5},
    "ops.SparseSoftmaxCrossEntropyWithLogits()": {"labels": lambda: I(2, high=3)},
    "ops.BCEWithLogitsLoss()": {"target": lambda: F(2, 3) - 0.5, "weight": lambda: F(2, 3),
                                "posWeight": lambda: F(3)},
    "ops.SmoothL1Loss()": {"prediction": lambda: F(2, 3), "target": lambda: F(2, 3)},
    "ops.Softmax()": {"input": lambda: F(2, 3)},
    # Tensor methods (receiver F(2, 3))
    "Tensor.reshape": {"@params": pseudo("shape"), "shape": lambda: (3, 2)},
    "Tensor.view": {"@params": pseudo("shape"), "shape": lambda: (3, 2)},
    "Tensor.transpose": {"@params": pseudo("axes"), "axes": lambda: (1, 0)},
    "Tensor.permute": {"@params": pseudo("axes"), "axes": lambda: (1, 0)},
    "Tensor.max": {"@params": pseudo("axis"), "axis": lambda: 0},
    "Tensor.min": {"@params": pseudo("axis"), "axis": lambda: 0},
    "Tensor.astype": {"dtype": lambda: ms.int32}, "Tensor.to": {"dtype": lambda: ms.int32},
    "Tensor.broadcast_to": {"shape": lambda: (4, 2, 3)}, "Tensor.tile": {"dims": lambda: (2, 1)},
    "Tensor.gather": {"input_indices": lambda: I(2, high=2), "axis": lambda: 0},
    "Tensor.matmul": {"other": lambda: F(3, 4)}, "Tensor.__matmul__": {"other": lambda: F(3, 4)},
    "Tensor.__rmatmul__": {"other": lambda: F(4, 2)},
    "Tensor.expand_dims": {"axis": lambda: 0}, "Tensor.unsqueeze": {"dim": lambda: 0},
    "Tensor.item": {"@receiver": lambda: F(1, 1)}, "Tensor.clamp": {"min": lambda: 0.6, "max": lambda: 1.2},
    "Tensor.clip": {"min": lambda: 0.6, "max": lambda: 1.2},
    "Tensor.__getitem__": {"@params": pseudo("key"), "key": lambda: 1},
    "Tensor.__setitem__": {"@params": pseudo("key", "value"), "key": lambda: 1, "value": lambda: 2.0},
    "Tensor.init_data": {"@receiver": lambda: ms.Tensor(shape=(2, 3), dtype=ms.float32, init=init_mod.One())},
    # Parameter and ParameterTuple
    "Parameter.add_pipeline_stage": {"stage": lambda: 1}, "Parameter.set_data": {"data": lambda: F(2, 3)},
    "Parameter.clone": {"init": lambda: "same"},
    "ParameterTuple": {"@params": pseudo("iterable"),
                       "iterable": lambda: [ms.Parameter(F(2), name="a"), ms.Parameter(F(3), name="b")]},
    "ParameterTuple.clone": {"prefix": lambda: "copy"},
    # Cell methods (receiver Net())
    "Cell.__call__": {"@params": pseudo("x"), "x": lambda: F(4, 3)},
    "Cell.construct": {"@params": pseudo("x"), "x": lambda: F(4, 3)},
    "Cell.compile": {"@params": pseudo("x"), "x": lambda: F(4, 3)},
    "Cell.compile_and_run": {"@params": pseudo("x"), "x": lambda: F(4, 3)},
    "Cell.set_inputs": {"@params": pseudo("x"), "x": lambda: ms.Tensor(shape=[None, 3], dtype=ms.float32)},
    "Cell.set_parallel_input_with_inputs": {"@params": pseudo("x"), "x": lambda: F(4, 3)},
    "Cell.add_flags": {"@params": pseudo("flag", kind=KW), "flag": lambda: True},
    "Cell.add_flags_recursive": {"@params": pseudo("flag", kind=KW), "flag": lambda: True},
    "Cell.recompute": {"@params": pseudo("mp_comm_recompute", kind=KW), "mp_comm_recompute": lambda: True},
    "Cell.apply": {"fn": lambda: (lambda cell: None)},
    "Cell.auto_cast_inputs": {"inputs": lambda: (F(4, 3),)},
    "Cell.cast_inputs": {"inputs": lambda: (F(4, 3),)},
    "Cell.cast_param": {"param": lambda: ms.Parameter(F(2, 3), name="w")},
    "Cell.set_extra_state": {"state": lambda: {"calls": 1}},
    "Cell.get_func_graph_proto": {"@receiver": compiled_net},
    "Cell.infer_param_pipeline_stage": {"@receiver": staged_net},
    "Cell.get_buffer": {"target": lambda: "steps"}, "Cell.get_sub_cell": {"target": lambda: "fc"},
    "Cell.insert_child_to_cell": {"child_name": lambda: "extra", "child_cell": lambda: nn.ReLU()},
    "Cell.insert_param_to_cell": {"param_name": lambda: "extra", "param": lambda: ms.Parameter(F(2), name="extra")},
    "Cell.load_parameter_slice": {"params": lambda: {"fc.weight": F(2, 3)}},
    "Cell.load_state_dict": {"state_dict": lambda: Net().state_dict()},
    "Cell.place": {"role": lambda: "MS_WORKER", "rank_id": lambda: 0},
    "Cell.register_buffer": {"name": lambda: "extra", "tensor": lambda: F(2)},
    "Cell.run_construct": {"cast_inputs": lambda: (F(4, 3),), "kwargs": lambda: {}},
    "Cell.set_boost": {"boost_type": lambda: "less_bn"}, "Cell.set_comm_fusion": {"fusion_type": lambda: 1},
    "Cell.set_jit_config": {"jit_config": lambda: ms.JitConfig()},
    "Cell.shard": {"in_strategy": lambda: ((1, 1),)},
    "Cell.to_float": {"dst_type": lambda: ms.float16},
    "Cell.register_saved_tensors_hooks": {"pack_hook": lambda: (lambda t: t), "unpack_hook": lambda: (lambda t: t)},
    "Cell.set_mixed_precision_type": {"mixed_type": lambda: nn.cell_precision.MixedPrecisionType.FP16},
    "Cell.update_cell_type": {"cell_type": lambda: "quant"},
    "Cell.update_parameters_name": {"prefix": lambda: "p."},
    "Cell.flatten_weights": {"fusion_size": lambda: 0},
    "Cell.__setattr__": {"@params": pseudo("name", "value"), "name": lambda: "fc", "value": lambda: nn.Dense(3, 2),
                         "@names": ("fc",)},  # the attribute's name says where
    # nn classes: constructors ("nn.X") and calls on a built instance ("nn.X()")
    "nn.Dense": {"in_channels": lambda: 3, "out_channels": lambda: 2}, "nn.Dense()": {"x": lambda: F(4, 3)},
    "nn.Conv1d()": {"x": lambda: F(1, 3, 8)}, "nn.Conv2d()": {"x": lambda: F(1, 3, 5, 5)},
    "nn.BatchNorm1d()": {"x": lambda: F(2, 3)}, "nn.BatchNorm2d()": {"x": lambda: F(2, 3, 4, 4)},
    "nn.LayerNorm()": {"input_x": lambda: F(2, 3)}, "nn.Embedding()": {"ids": lambda: I(2, 3, high=5)},
    "nn.Flatten()": {"x": lambda: F(2, 3, 4)},
    "nn.AvgPool2d": {"kernel_size": lambda: 2}, "nn.MaxPool2d": {"kernel_size": lambda: 2},
    "nn.AvgPool2d()": {"x": lambda: F(1, 2, 4, 4)}, "nn.MaxPool2d()": {"x": lambda: F(1, 2, 4, 4)},
    "nn.MatMul()": {"x1": lambda: F(2, 3), "x2": lambda: F(3, 4)},
    "nn.L1Loss()": {"logits": lambda: F(2, 3), "labels": lambda: F(2, 3)},
    "nn.MSELoss()": {"logits": lambda: F(2, 3), "labels": lambda: F(2, 3)},
    "nn.CrossEntropyLoss()": {"logits": lambda: F(2, 3), "labels": lambda: I(2, high=3)},
    "nn.SoftmaxCrossEntropyWithLogits()": {"logits": lambda: F(2, 3), "labels": lambda: F(2, 3) - 0.5},
    "nn.CrossEntropyLoss": {"weight": lambda: F(3)},
    "nn.SequentialCell": {"@params": pseudo("a", "b"), "a": nn.ReLU, "b": lambda: nn.Dense(3, 2)},
    "nn.SequentialCell()": {"@params": pseudo("input_data"), "input_data": lambda: F(4, 3)},
    "nn.CellList": {"@params": pseudo("cells"), "cells": lambda: [nn.ReLU(), nn.Dense(3, 2)]},
    "nn.CellDict": {"@params": pseudo("cells"), "cells": lambda: {"a": nn.ReLU(), "b": nn.Dense(3, 2)}},
    "nn.Buffer": {"data": lambda: F(2)},
    "nn.SGD": {"params": opt_params}, "nn.Momentum": {"params": opt_params},
    "nn.Adam": {"params": opt_params}, "nn.AdamWeightDecay": {"params": opt_params},
    "nn.SGD()": {"@params": pseudo("gradients"), "gradients": lambda: (F(2, 3), F(2))},
    "nn.Momentum()": {"@params": pseudo("gradients"), "gradients": lambda: (F(2, 3), F(2))},
    "nn.Adam()": {"@params": pseudo("gradients"), "gradients": lambda: (F(2, 3), F(2))},
    "nn.AdamWeightDecay()": {"@params": pseudo("gradients"), "gradients": lambda: (F(2, 3), F(2))},
    "nn.ExponentialDecayLR()": {"global_step": lambda: ms.Tensor(2, ms.int32)},
    "nn.CosineDecayLR()": {"global_step": lambda: ms.Tensor(2, ms.int32)},
    "nn.PolynomialDecayLR()": {"global_step": lambda: ms.Tensor(2, ms.int32)},
    "nn.WarmUpLR()": {"global_step": lambda: ms.Tensor(2, ms.int32)},
    "nn.WithLossCell()": {"data": lambda: F(4, 3), "label": lambda: F(4, 2)},
    "nn.WithEvalCell()": {"data": lambda: F(4, 3), "label": lambda: F(4, 2)},
    "nn.WithGradCell": {"loss_fn": lambda: nn.MSELoss()},
    "nn.WithGradCell()": {"@params": pseudo("data", "label"), "data": lambda: F(4, 3), "label": lambda: F(4, 2)},
    "nn.TrainOneStepCell": {"network": _loss_net, "optimizer": lambda: nn.SGD(opt_params(), 0.1)},
    "nn.TrainOneStepCell()": {"@params": pseudo("data", "label"), "data": lambda: F(4, 3), "label": lambda: F(4, 2)},
    "nn.ForwardValueAndGrad()": {"@params": pseudo("x"), "x": lambda: F(4, 3)},
    "nn.WithLossCell": {"loss_fn": lambda: nn.MSELoss()}, "nn.WithEvalCell": {"loss_fn": lambda: nn.MSELoss()},
    # top level
    "ms.Tensor": {"input_data": lambda: [[1.0, 2.0], [3.0, 4.0]]}, "ms.tensor": {"input_data": lambda: [1.0, 2.0]},
    "ms.Parameter": {"default_input": lambda: F(2, 3), "name": lambda: "w"},
    "ms.set_context": {"@params": pseudo("mode", "device_target", kind=KW), "mode": lambda: ms.PYNATIVE_MODE,
                       "device_target": lambda: "CPU"},
    "ms.get_context": {"attr_key": lambda: "mode"},
    "ms.grad()": {"@params": pseudo("x"), "x": lambda: F(2, 3)},
    "ms.value_and_grad()": {"@params": pseudo("x"), "x": lambda: F(2, 3)},
    "ms.GradOperation()": {"fn": lambda: (lambda x: (x * x).sum())},
    "ms.vjp": {"@params": [inspect.Parameter("fn", POS), inspect.Parameter("x", POS),
                           inspect.Parameter("weights", KW, default=None), inspect.Parameter("has_aux", KW, default=False)]},
    "ms.jvp": {"inputs": lambda: F(2, 3), "v": lambda: F(2, 3)},
    "ms.get_grad": {"gradients": lambda: ms.grad(lambda x: (x * x).sum(), return_ids=True)(F(2, 3)),
                    "identifier": lambda: 0},
    "Tensor.remove_hook": {"handle_id": lambda: 0},
    "ops.HookBackward()": {"@params": pseudo("x"), "x": lambda: F(2, 3)},
    "ms.jit": {"function": lambda: (lambda x: x * 2)},
    "ms.save_checkpoint": {"ckpt_file_name": lambda: os.path.join(TMP, "saved.ckpt")},
    "ms.load_param_into_net": {"parameter_dict": lambda: {"fc.weight": ms.Parameter(F(2, 3), name="fc.weight")}},
    "ms.trace": {"net": Net},
    "memory.profile": {"@params": [inspect.Parameter("fn", POS), inspect.Parameter("x", POS),
                                   inspect.Parameter("net", KW, default=None),
                                   inspect.Parameter("label", KW, default=None)],
                       "fn": lambda: (lambda x: (x * 2).sum()), "x": lambda: F(2, 3), "label": lambda: "step"},
    "initializer.initializer": {"init": lambda: "normal", "shape": lambda: (2, 3)},
    "initializer.Constant": {"value": lambda: 1.5}, "initializer.Sparse": {"sparsity": lambda: 0.5},
    "initializer.Dirac": {"groups": lambda: 1},
    # the statistics family: Primitives whose constructor or call needs more than the defaults
    "ops.Bincount()": {"array": lambda: I(5, high=4), "size": lambda: ms.Tensor(5, ms.int32), "weights": lambda: F(5)},
    "ops.Bucketize": {"boundaries": lambda: [0.6, 1.0]}, "ops.LpNorm": {"axis": lambda: 1},
    "ops.Renorm": {"p": lambda: 2, "dim": lambda: 0, "maxnorm": lambda: 1.0},
    "ops.Cummax": {"axis": lambda: 1}, "ops.Cummin": {"axis": lambda: 1},
    "ops.CumProd()": {"axis": lambda: 1}, "ops.CumSum()": {"axis": lambda: 1},
    "ops.CumulativeLogsumexp()": {"axis": lambda: ms.Tensor(1)},
    "ops.SearchSorted()": {"sorted_sequence": lambda: F(4), "values": lambda: F(3)}, "ops.TopK()": {"k": lambda: 2},
    "ops.UnsortedSegmentSum()": {"segment_ids": lambda: I(2, high=2), "num_segments": lambda: 2},
    "ops.UnsortedSegmentMax()": {"segment_ids": lambda: I(2, high=2), "num_segments": lambda: 2},
    "ops.UnsortedSegmentMin()": {"segment_ids": lambda: I(2, high=2), "num_segments": lambda: 2},
    "ops.UnsortedSegmentProd()": {"segment_ids": lambda: I(2, high=2), "num_segments": lambda: 2},
    # the statistics family: Tensor methods (receiver F(2, 3) unless given)
    "Tensor.kthvalue": {"k": lambda: 2}, "Tensor.logcumsumexp": {"axis": lambda: 1},
    "Tensor.logsumexp": {"dim": lambda: 1}, "Tensor.quantile": {"q": lambda: 0.3},
    "Tensor.nanquantile": {"q": lambda: 0.3}, "Tensor.bincount": {"@receiver": lambda: I(5, high=3)},
    "Tensor.cummax": {"axis": lambda: 1}, "Tensor.cummin": {"axis": lambda: 1}, "Tensor.cumprod": {"dim": lambda: 1},
    "Tensor.searchsorted": {"@receiver": lambda: F(4), "v": lambda: F(3)},
    "Tensor.topk": {"k": lambda: 2}, "Tensor.top_k": {"k": lambda: 2},
    "Tensor.unique_with_pad": {"@receiver": lambda: I(5, high=3), "pad_num": lambda: 9},
    "Tensor.unsorted_segment_max": {"segment_ids": lambda: I(2, high=2), "num_segments": lambda: 2},
    "Tensor.unsorted_segment_min": {"segment_ids": lambda: I(2, high=2), "num_segments": lambda: 2},
    "Tensor.unsorted_segment_prod": {"segment_ids": lambda: I(2, high=2), "num_segments": lambda: 2},
    # layout, indexing and creation ops (issue 14): *args functions, Primitives and Tensor methods
    # the last names of the op surface (ops/introspection.py, communication.broadcast, five Tensor methods)
    "ops.broadcast": {"tensor": lambda: F(2), "src": lambda: 0},
    "ops.get_grad": {"gradients": lambda: ((0, F(2)),), "identifier": lambda: 0},
    "ops.is_nonzero": {"input": lambda: F(1)}, "ops.is_tensor": {"obj": lambda: F(2)},
    "ops.shape_mul": {"shape_x": lambda: (2, 3)},
    "ops.DtypeToEnum()": {"op_name": lambda: "MyOp", "arg_name": lambda: "dtype", "dtype": lambda: ms.float32},
    "Tensor.addcdiv": {"tensor1": lambda: F(2, 3), "tensor2": lambda: F(2, 3) + 2},
    "Tensor.addcmul": {"tensor1": lambda: F(2, 3), "tensor2": lambda: F(2, 3)},
    "Tensor.inplace_update": {"v": lambda: F(1, 3), "indices": lambda: I(1, high=2)},
    "Tensor.renorm": {"p": lambda: 2, "axis": lambda: 0, "maxnorm": lambda: 1.0},
    "ops.block_diag": {"@params": pseudo("a", "b"), "a": lambda: F(1, 2), "b": lambda: F(2)},
    "ops.cartesian_prod": {"@params": pseudo("a", "b"), "a": lambda: F(2), "b": lambda: F(3)},
    "ops.meshgrid": {"@params": pseudo("a", "b"), "a": lambda: F(2), "b": lambda: F(3)},
    "ops.DepthToSpace": {"block_size": lambda: 2}, "ops.DepthToSpace()": {"x": lambda: F(1, 4, 1, 1)},
    "ops.SpaceToDepth": {"block_size": lambda: 2}, "ops.SpaceToDepth()": {"x": lambda: F(1, 1, 2, 2)},
    "ops.Im2Col": {"ksizes": lambda: (2, 2)}, "ops.Im2Col()": {"x": lambda: F(1, 1, 3, 3)},
    "ops.Col2Im()": {"x": lambda: F(1, 1, 4, 6), "output_size": lambda: ms.Tensor(np.array([3, 4], np.int32))},
    "ops.DiagPart()": {"input_x": lambda: F(2, 2)}, "ops.Eye()": {"n": lambda: 2, "m": lambda: 3, "t": lambda: ms.float32},
    "ops.IndexAdd": {"axis": lambda: 1},
    "ops.IndexAdd()": {"input_x": lambda: F(2, 3), "indices": lambda: I(2, high=3), "input_y": lambda: F(2, 2)},
    "ops.IndexFill()": {"dim": lambda: 1, "index": lambda: I(2, high=3), "value": lambda: 0.5},
    "ops.IndexPut()": {"x1": lambda: F(2, 3), "x2": lambda: F(3), "indices": lambda: (I(1, high=2),)},
    "ops.InplaceAdd": {"indices": lambda: (0, 1)}, "ops.InplaceAdd()": {"input_v": lambda: F(2, 3)},
    "ops.InplaceSub": {"indices": lambda: (0, 1)}, "ops.InplaceSub()": {"input_v": lambda: F(2, 3)},
    "ops.InplaceUpdateV2()": {"indices": lambda: I(2, high=2), "v": lambda: F(2, 3)},
    "ops.InplaceIndexAdd": {"axis": lambda: 1},
    "ops.InplaceIndexAdd()": {"var": lambda: F(2, 3), "indices": lambda: I(2, high=3), "updates": lambda: F(2, 2)},
    "ops.InvertPermutation()": {"input_x": lambda: (2, 0, 1)},
    "ops.LinSpace()": {"start": lambda: ms.Tensor(1.0), "stop": lambda: ms.Tensor(2.0), "num": lambda: 3},
    "ops.LogSpace()": {"start": lambda: ms.Tensor(1.0), "end": lambda: ms.Tensor(2.0)},
    "ops.MatrixDiagPartV3()": {"x": lambda: F(3, 3), "k": lambda: I(high=1), "padding_value": lambda: ms.Tensor(0.0)},
    "ops.MatrixDiagV3()": {"x": lambda: F(3), "k": lambda: I(high=1), "num_rows": lambda: I(high=1) - 1,
                           "num_cols": lambda: I(high=1) - 1, "padding_value": lambda: ms.Tensor(0.0)},
    "ops.Meshgrid()": {"inputs": lambda: (F(2), F(3))},
    "ops.MirrorPad()": {"paddings": lambda: ms.Tensor(np.array([[1, 1], [1, 1]]))},
    "ops.OneHot()": {"indices": lambda: I(3, high=3), "depth": lambda: 3, "on_value": lambda: ms.Tensor(1.0),
                     "off_value": lambda: ms.Tensor(0.0)},
    "ops.Pad": {"paddings": lambda: ((1, 1), (0, 1))},
    "ops.PadV3()": {"x": lambda: F(1, 2, 3), "paddings": lambda: (1, 1)},
    "ops.RaggedRange": {"Tsplits": lambda: ms.int64},
    "ops.RaggedRange()": {"starts": lambda: I(2, high=1), "limits": lambda: I(2, high=1) + 3,
                          "deltas": lambda: I(2, high=1) + 1},
    "ops.ReverseSequence": {"seq_dim": lambda: 1},
    "ops.ReverseSequence()": {"seq_lengths": lambda: ms.Tensor(np.array([1, 3]))},
    "ops.ScalarToTensor()": {"input_x": lambda: 1.5},
    "ops.ScatterAdd()": {"indices": lambda: I(1, high=2), "updates": lambda: F(1, 3)},
    "ops.ScatterUpdate()": {"indices": lambda: I(1, high=2), "updates": lambda: F(1, 3)},
    "ops.ScatterNdAdd()": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "ops.ScatterNdUpdate()": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "ops.Slice()": {"begin": lambda: (0, 0), "size": lambda: (1, 2)},
    "ops.SpaceToBatchND": {"block_shape": lambda: (2,), "paddings": lambda: ((0, 0),)},
    "ops.SpaceToBatchND()": {"input_x": lambda: F(1, 4)},
    "ops.TensorScatterElements()": {"indices": lambda: I(2, 1, high=3), "updates": lambda: F(2, 1)},
    "ops.TensorScatterUpdate()": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "ops.TensorToTuple()": {"input_x": lambda: F(3)},
    "ops.TrilIndices": {"row": lambda: 3, "col": lambda: 4}, "ops.TriuIndices": {"row": lambda: 3, "col": lambda: 4},
    "ops.TupleToArray()": {"input_x": lambda: (1.0, 2.0)},
    "ops.UnravelIndex()": {"indices": lambda: I(2, high=5), "dims": lambda: ms.Tensor(np.array([2, 3], np.int32))},
    "ops.IdentityN()": {"x": lambda: (F(2), F(3))},
    "Tensor.choose": {"@receiver": lambda: I(3, high=2), "choices": lambda: [F(3), F(3)]},
    "Tensor.chunk": {"chunks": lambda: 2},
    "Tensor.col2im": {"@receiver": lambda: F(1, 1, 4, 6), "output_size": lambda: ms.Tensor(np.array([3, 4], np.int32)),
                      "kernel_size": lambda: 2, "dilation": lambda: 1, "padding_value": lambda: 0, "stride": lambda: 1},
    "Tensor.fold": {"@receiver": lambda: F(1, 4, 6), "output_size": lambda: ms.Tensor(np.array([3, 4], np.int32)),
                    "kernel_size": lambda: 2},
    "Tensor.unfold": {"@receiver": lambda: F(1, 1, 3, 3), "kernel_size": lambda: 2},
    "Tensor.diagonal_scatter": {"src": lambda: F(2)},
    "Tensor.dsplit": {"@receiver": lambda: F(1, 2, 4), "indices_or_sections": lambda: 2},
    "Tensor.hsplit": {"indices_or_sections": lambda: 3}, "Tensor.vsplit": {"indices_or_sections": lambda: 2},
    "Tensor.tensor_split": {"indices_or_sections": lambda: 2}, "Tensor.split": {"split_size_or_sections": lambda: 1},
    "Tensor.flip": {"dims": lambda: (0,)}, "Tensor.reverse": {"axis": lambda: (0,)},
    "Tensor.gather_elements": {"dim": lambda: 1, "index": lambda: I(2, 2, high=3)},
    "Tensor.gather_nd": {"indices": lambda: I(2, 2, high=2)},
    "Tensor.index": {"indices": lambda: (I(2, high=2),)},
    "Tensor.index_fill": {"axis": lambda: 1, "index": lambda: I(2, high=3), "value": lambda: 0.5},
    "Tensor.index_put": {"indices": lambda: (I(2, high=2),), "values": lambda: F(3)},
    "Tensor.masked_fill": {"mask": lambda: F(2, 3) > 1, "value": lambda: 0.5},
    "Tensor.masked_scatter": {"mask": lambda: F(2, 3) > 1, "source": lambda: F(6)},
    "Tensor.masked_select": {"mask": lambda: F(2, 3) > 1},
    "Tensor.moveaxis": {"source": lambda: 0, "destination": lambda: 1},
    "Tensor.movedim": {"source": lambda: 0, "destination": lambda: 1},
    "Tensor.narrow": {"dim": lambda: 1, "start": lambda: 0, "length": lambda: 2},
    "Tensor.repeat_interleave": {"repeats": lambda: 2},
    "Tensor.reverse_sequence": {"seq_lengths": lambda: ms.Tensor(np.array([1, 3])), "seq_dim": lambda: 1},
    "Tensor.roll": {"shifts": lambda: 1, "dims": lambda: 0}, "Tensor.rot90": {"k": lambda: 1, "dims": lambda: (0, 1)},
    "Tensor.scatter_div": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "Tensor.scatter_max": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "Tensor.scatter_min": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "Tensor.scatter_mul": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "Tensor.scatter_sub": {"indices": lambda: I(1, 1, high=2), "updates": lambda: F(1, 3)},
    "Tensor.select_scatter": {"src": lambda: F(3), "axis": lambda: 0, "index": lambda: 1},
    "Tensor.slice_scatter": {"src": lambda: F(2, 1), "axis": lambda: 1, "start": lambda: 0, "end": lambda: 1},
    "Tensor.swapdims": {"dim0": lambda: 0, "dim1": lambda: 1},
    "Tensor.take": {"indices": lambda: I(2, high=6)},
    "Tensor.expand": {"@params": pseudo("size"), "size": lambda: (2, 2, 3)},
    "Tensor.expand_as": {"other": lambda: F(2, 2, 3)},
    "Tensor.index_add": {"@params": pseudo("dim", "index", "source"), "dim": lambda: 1, "index": lambda: I(2, high=3),
                         "source": lambda: F(2, 2)},
    "Tensor.index_select": {"axis": lambda: 1, "index": lambda: I(2, high=3)},
    "Tensor.repeat": {"@params": pseudo("repeats"), "repeats": lambda: (2, 1)},
    "Tensor.resize": {"@params": pseudo("new_shape"), "new_shape": lambda: (3, 3)},
    "Tensor.sum_to_size": {"@params": pseudo("size"), "size": lambda: (1, 3)},
    "Tensor.scatter": {"dim": lambda: 1, "index": lambda: I(2, 1, high=3), "src": lambda: F(2, 1)},
    "Tensor.scatter_add": {"@params": pseudo("dim", "index", "src"), "dim": lambda: 1, "index": lambda: I(2, 1, high=3),
                           "src": lambda: F(2, 1)},
    "Tensor.select": {"@params": pseudo("dim", "index"), "dim": lambda: 1, "index": lambda: 0},
}


# -- the misc family: sparse tensors, communication, functional helpers, optimizer and other Primitives ------------
def _coo():
    return ms.COOTensor(ms.Tensor(np.array([[0, 1], [1, 2]], np.int64)), F(2), (2, 3))


def _csr():
    return ms.CSRTensor(ms.Tensor(np.array([0, 1, 2], np.int32)), ms.Tensor(np.array([1, 2], np.int32)), F(2), (2, 3))


def _state(name):
    return lambda: ms.Parameter(F(2, 3), name=name)


def _scalar(value):
    return lambda: ms.Tensor(np.array(value, np.float32))


_OPTIMIZER_CALLS = {
    "ops.Adam()": dict(var=_state("var"), m=_state("m"), v=_state("v"), beta1_power=lambda: 0.9,
                       beta2_power=lambda: 0.999, lr=lambda: 0.001, beta1=lambda: 0.9, beta2=lambda: 0.999,
                       epsilon=lambda: 1e-8, gradient=lambda: F(2, 3)),
    "ops.AdamWeightDecay()": dict(var=_state("var"), m=_state("m"), v=_state("v"), lr=lambda: 0.01,
                                  beta1=lambda: 0.9, beta2=lambda: 0.999, epsilon=lambda: 1e-8, decay=lambda: 0.1,
                                  gradient=lambda: F(2, 3)),
    "ops.FusedCastAdamWeightDecay()": dict(var=_state("var"), m=_state("m"), v=_state("v"), lr=lambda: 0.01,
                                           beta1=lambda: 0.9, beta2=lambda: 0.999, epsilon=lambda: 1e-8,
                                           decay=lambda: 0.1, gradient=lambda: F(2, 3), global_norm=lambda: 1.0),
    "ops.ApplyAdaMax()": dict(var=_state("var"), m=_state("m"), v=_state("v"), beta1_power=_scalar(0.9),
                              lr=_scalar(0.001), beta1=_scalar(0.9), beta2=_scalar(0.99), epsilon=_scalar(1e-10),
                              grad=lambda: F(2, 3)),
    "ops.ApplyAdadelta()": dict(var=_state("var"), accum=_state("accum"), accum_update=_state("accum_update"),
                                lr=_scalar(0.001), rho=_scalar(0.5), epsilon=_scalar(1e-6), grad=lambda: F(2, 3)),
    "ops.ApplyAdagrad()": dict(var=_state("var"), accum=_state("accum"), lr=_scalar(0.001), grad=lambda: F(2, 3)),
    "ops.ApplyAdamWithAmsgrad()": dict(var=_state("var"), m=_state("m"), v=_state("v"), vhat=_state("vhat"),
                                       beta1_power=_scalar(0.9), beta2_power=_scalar(0.999), lr=_scalar(0.01),
                                       grad=lambda: F(2, 3)),
    "ops.ApplyAdamWithAmsgradV2()": dict(var=_state("var"), m=_state("m"), v=_state("v"), vhat=_state("vhat"),
                                         beta1_power=_scalar(0.9), beta2_power=_scalar(0.999), lr=_scalar(0.01),
                                         beta1=_scalar(0.9), beta2=_scalar(0.999), epsilon=_scalar(1e-8),
                                         grad=lambda: F(2, 3)),
    "ops.ApplyCenteredRMSProp()": dict(var=_state("var"), mean_gradient=lambda: F(2, 3) * 0.1,
                                       mean_square=_state("ms"), moment=_state("mom"), grad=lambda: F(2, 3),
                                       learning_rate=_scalar(0.01), decay=lambda: 0.9, momentum=lambda: 0.5,
                                       epsilon=lambda: 1e-6),
    "ops.ApplyRMSProp()": dict(var=_state("var"), mean_square=_state("ms"), moment=_state("mom"),
                               learning_rate=_scalar(0.01), grad=lambda: F(2, 3), decay=lambda: 0.9,
                               momentum=lambda: 0.5, epsilon=lambda: 1e-6),
    "ops.ApplyGradientDescent()": dict(var=_state("var"), alpha=_scalar(0.5), delta=lambda: F(2, 3)),
    "ops.ApplyMomentum()": dict(variable=_state("var"), accumulation=_state("accum"), learning_rate=lambda: 0.1,
                                gradient=lambda: F(2, 3), momentum=lambda: 0.9),
    "ops.SGD()": dict(parameters=_state("p"), gradient=lambda: F(2, 3), learning_rate=_scalar(0.01),
                      accum=_state("accum"), momentum=_scalar(0.9), stat=lambda: ms.Parameter(F(2, 3), name="stat")),
}

EXAMPLES.update(_OPTIMIZER_CALLS)
EXAMPLES.update({
    # sparse tensors and their functions
    "ms.COOTensor": {"indices": lambda: ms.Tensor(np.array([[0, 1], [1, 2]], np.int64)), "values": lambda: F(2),
                     "shape": lambda: (2, 3)},
    "ms.CSRTensor": {"indptr": lambda: ms.Tensor(np.array([0, 1, 2], np.int32)),
                     "indices": lambda: ms.Tensor(np.array([1, 2], np.int32)), "values": lambda: F(2),
                     "shape": lambda: (2, 3)},
    "ops.coo_add": {"x1": _coo, "x2": _coo, "thresh": _scalar(0.0)},
    "ops.coo_concat": {"sp_input": lambda: (_coo(), _coo()), "concat_dim": lambda: 0},
    "ops.csr_add": {"a": _csr, "b": _csr, "alpha": _scalar(1.0), "beta": _scalar(1.0)},
    "ops.csr_div": {"x": _csr, "y": lambda: F(2, 3)}, "ops.csr_mul": {"x": _csr, "y": lambda: F(2, 3)},
    "ops.csr_mv": {"csr_tensor": _csr, "dense": lambda: F(3, 1)},
    "ops.csr_reduce_sum": {"csr_tensor": _csr, "axis": lambda: 1},
    "ops.csr_softmax": {"logits": _csr, "dtype": lambda: ms.float32}, "ops.csr_to_coo": {"tensor": _csr},
    "ops.Coalesce()": {"x_indices": lambda: ms.Tensor(np.array([[0, 1, 0]], np.int64)), "x_values": lambda: F(3),
                       "x_shape": lambda: ms.Tensor(np.array([2], np.int64))},
    "ops.SparseToDense()": {"indices": lambda: ms.Tensor(np.array([[0, 1], [1, 2]], np.int32)), "values": lambda: F(2),
                            "sparse_shape": lambda: (2, 3)},
    # communication
    "ops.all_gather": {"tensor_list": lambda: [F(2, 3)], "tensor": lambda: F(2, 3)},
    "ops.all_reduce": {"tensor": lambda: F(2, 3)},
    # functional helpers
    "ops.derivative": {"fn": lambda: ops.sin, "primals": lambda: F(2, 3), "order": lambda: 2},
    "ops.jet": {"fn": lambda: ops.sin, "primals": lambda: F(3), "series": lambda: F(2, 3)},
    "ops.linearize": {"fn": lambda: ops.sin, "inputs": lambda: F(2, 3)},
    "ops.mixed_precision_cast": {"dst_dtype": lambda: ms.float16, "x": lambda: F(2, 3)},
    "ops.partial": {"func": lambda: ops.add},
    # Primitives: constructors and calls
    "ops.Cauchy": {"size": lambda: [2, 3]}, "ops.InsertGradientOf": {"f": lambda: (lambda g: g)},
    "ops.MultinomialWithReplacement": {"numsamples": lambda: 2},
    "ops.Assert()": {"condition": lambda: ms.Tensor(True), "input_data": lambda: [F(2, 3)]},
    "ops.Assign()": {"variable": lambda: F(2, 3), "value": lambda: F(2, 3)},
    "ops.AssignAdd()": {"variable": lambda: F(2, 3), "value": lambda: F(2, 3)},
    "ops.AssignSub()": {"variable": lambda: F(2, 3), "value": lambda: F(2, 3)},
    "ops.Bernoulli()": {"x": lambda: F(2, 3), "p": lambda: 0.5},
    "ops.Depend()": {"value": lambda: F(2, 3), "expr": lambda: F(2, 3)},
    "ops.ForiLoop()": {"lower": lambda: 0, "upper": lambda: 2, "loop_func": lambda: (lambda i, v: v + i),
                       "init_val": lambda: F(2, 3)},
    "ops.WhileLoop()": {"cond_func": lambda: (lambda v: v == 0), "loop_func": lambda: (lambda v: 3),
                        "init_val": lambda: 0},
    "ops.Scan()": {"loop_func": lambda: (lambda c, x: (c + x, c)), "init": lambda: 0, "xs": lambda: [1, 2]},
    "ops.InsertGradientOf()": {"x": lambda: F(2, 3)},
    "ops.Multinomial()": {"x": lambda: F(2, 3), "num_samples": lambda: 2},
    "ops.MultinomialWithReplacement()": {"x": lambda: F(2, 3), "seed": lambda: ms.Tensor(1),
                                         "offset": lambda: ms.Tensor(0)},
    "ops.Partial()": {"func": lambda: ops.add},
    "ops.RandomCategorical()": {"logits": lambda: F(2, 3), "num_samples": lambda: 2},
    "ops.RandomChoiceWithMask()": {"input_x": lambda: F(2, 3) > 1},
    # Tensor methods (receiver F(2, 3))
    "Tensor.assign_value": {"value": lambda: F(3, 2)}, "Tensor.bernoulli": {"@receiver": lambda: F(2, 3) - 0.5},
    "Tensor.clamp_": {"min": lambda: 0.6, "max": lambda: 1.2}, "Tensor.copy_": {"src": lambda: F(3)},
    "Tensor.from_dlpack": {"dlpack": lambda: np.ones(3, np.float32)},
    "Tensor.from_numpy": {"array": lambda: np.ones(3, np.float32)},
    "Tensor.index_copy_": {"dim": lambda: 0, "index": lambda: ms.Tensor(np.array([1])), "tensor": lambda: F(1, 3)},
    "Tensor.itemset": {"@params": pseudo("index", "value"), "index": lambda: 1, "value": lambda: 2.0},
    "Tensor.move_to": {"to": lambda: "CPU"}, "Tensor.multinomial": {"num_samples": lambda: 2},
    "Tensor.offload": {"file_path": lambda: os.path.join(TMP, "offload.data")},
    "Tensor.put_": {"index": lambda: ms.Tensor(np.array([0, 4])), "source": lambda: F(2)},
    "Tensor.random_categorical": {"num_sample": lambda: 2}, "Tensor.to_": {"device": lambda: "CPU"},
})
for _name in [n for n in dir(ops) if n.startswith(("coo_", "csr_"))]:
    EXAMPLES.setdefault(f"ops.{_name}", {"x": _coo if _name.startswith("coo_") else _csr})
for _summary in ("HistogramSummary", "ImageSummary", "ScalarSummary", "TensorSummary"):
    EXAMPLES[f"ops.{_summary}()"] = {"name": lambda: "x", "value": lambda: F(1, 3, 2, 2)}

# Constructors whose instance needs more than the defaults, for the call entries ("nn.X()").
BUILD = {
    "nn.Dense": lambda: nn.Dense(3, 2), "nn.Conv1d": lambda: nn.Conv1d(3, 4, 3),
    "nn.Conv2d": lambda: nn.Conv2d(3, 4, 3),
    "nn.BatchNorm1d": lambda: nn.BatchNorm1d(3), "nn.BatchNorm2d": lambda: nn.BatchNorm2d(3),
    "nn.LayerNorm": lambda: nn.LayerNorm((3,)), "nn.Embedding": lambda: nn.Embedding(5, 4),
    "nn.AvgPool2d": lambda: nn.AvgPool2d(2), "nn.MaxPool2d": lambda: nn.MaxPool2d(2),
    "nn.SequentialCell": lambda: nn.SequentialCell(nn.Dense(3, 2), nn.ReLU()),
    "nn.SGD": lambda: nn.SGD(opt_params(), 0.1), "nn.Momentum": lambda: nn.Momentum(opt_params(), 0.1, 0.9),
    "nn.Adam": lambda: nn.Adam(opt_params()), "nn.AdamWeightDecay": lambda: nn.AdamWeightDecay(opt_params()),
    "nn.ExponentialDecayLR": lambda: nn.ExponentialDecayLR(0.1, 0.5, 4),
    "nn.CosineDecayLR": lambda: nn.CosineDecayLR(0.01, 0.1, 4),
    "nn.PolynomialDecayLR": lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0),
    "nn.WarmUpLR": lambda: nn.WarmUpLR(0.1, 2),
    "nn.WithLossCell": _loss_net, "nn.WithEvalCell": lambda: nn.WithEvalCell(Net(), nn.MSELoss()),
    "nn.WithGradCell": lambda: nn.WithGradCell(Net(), nn.MSELoss()), "nn.TrainOneStepCell": _step_net,
    "nn.ForwardValueAndGrad": lambda: nn.ForwardValueAndGrad(Net()),
    "ops.BroadcastTo": lambda: ops.BroadcastTo((4, 2, 3)), "ops.Conv2D": lambda: ops.Conv2D(3, 3),
    "ops.MaxPool": lambda: ops.MaxPool(2, 2), "ops.AvgPool": lambda: ops.AvgPool(2, 2),
    "ms.grad": lambda: ms.grad(lambda x: (x * x).sum()),
    "ms.value_and_grad": lambda: ms.value_and_grad(lambda x: (x * x).sum()),
    "ms.GradOperation": lambda: ms.GradOperation(),
    "ops.HookBackward": lambda: ops.HookBackward(hook),
    "ops.Bucketize": lambda: ops.Bucketize([0.6, 1.0]), "ops.LpNorm": lambda: ops.LpNorm(1),
    "ops.Renorm": lambda: ops.Renorm(2, 0, 1.0), "ops.Cummax": lambda: ops.Cummax(1), "ops.Cummin": lambda: ops.Cummin(1),
    "ops.DepthToSpace": lambda: ops.DepthToSpace(2), "ops.SpaceToDepth": lambda: ops.SpaceToDepth(2),
    "ops.Im2Col": lambda: ops.Im2Col((2, 2)), "ops.Col2Im": lambda: ops.Col2Im((2, 2)),
    "ops.IndexAdd": lambda: ops.IndexAdd(1), "ops.InplaceAdd": lambda: ops.InplaceAdd((0, 1)),
    "ops.InplaceSub": lambda: ops.InplaceSub((0, 1)), "ops.InplaceIndexAdd": lambda: ops.InplaceIndexAdd(1),
    "ops.FillDiagonal": lambda: ops.FillDiagonal(1.5), "ops.Pad": lambda: ops.Pad(((1, 1), (0, 1))),
    "ops.RaggedRange": lambda: ops.RaggedRange(ms.int64), "ops.ReverseSequence": lambda: ops.ReverseSequence(1),
    "ops.SpaceToBatchND": lambda: ops.SpaceToBatchND((2,), ((0, 0),)),
    "ops.TrilIndices": lambda: ops.TrilIndices(3, 4), "ops.TriuIndices": lambda: ops.TriuIndices(3, 4),
}
BUILD.update({
    "ops.Cauchy": lambda: ops.Cauchy([2, 3]), "ops.InsertGradientOf": lambda: ops.InsertGradientOf(lambda g: g),
    "ops.MultinomialWithReplacement": lambda: ops.MultinomialWithReplacement(2, True),
})

# The elementwise family: Primitive calls and Tensor methods (the catalogue's first sample serves only ``ops.<name>``)
# whose arguments must be integers, or have names no entry of BY_NAME covers.
_INTS = lambda: I(2, 3, high=9)  # noqa: E731
EXAMPLES.update({
    **{f"ops.{name}()": {"input": _INTS, "other": _INTS}
       for name in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "Lcm")},
    "ops.Invert()": {"x": _INTS}, "ops.PopulationCount()": {"input_x": _INTS},
    "ops.Betainc()": {"a": lambda: F(2, 3), "b": lambda: F(2, 3), "x": lambda: F(2, 3) - 0.45},
    "ops.Heaviside()": {"values": lambda: F(2, 3)}, "ops.Polygamma()": {"n": lambda: ms.Tensor(1)},
    "ops.Addcdiv()": {"tensor1": lambda: F(2, 3), "tensor2": lambda: F(2, 3), "value": lambda: F(1)},
    "ops.Addcmul()": {"tensor1": lambda: F(2, 3), "tensor2": lambda: F(2, 3), "value": lambda: F(1)},
    "ops.Mvlgamma": {"p": lambda: 1},
    **{f"Tensor.{name}": {"@receiver": _INTS, "other": _INTS}
       for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd",
                    "lcm")},
    "Tensor.bitwise_not": {"@receiver": _INTS}, "Tensor.invert": {"@receiver": _INTS},
    "Tensor.lerp": {"end": lambda: F(2, 3), "weight": lambda: 0.5}, "Tensor.heaviside": {"values": lambda: F(2, 3)},
    "Tensor.mvlgamma": {"p": lambda: 1},
})
BUILD["ops.Mvlgamma"] = lambda: ops.Mvlgamma(1)

# The nn-functional Primitives (cellkit/ops/nn_*.py): constructor arguments and valid calls the parameter
# names alone do not give.
_BOXES = lambda: ms.Tensor(np.array([[0, 0, 2, 2], [1, 1, 3, 3]], np.float32))  # noqa: E731
EXAMPLES.update({
    "ops.GLU()": {"x": lambda: F(2, 4)}, "ops.PReLU()": {"x": lambda: F(2, 3), "weight": lambda: F(3)},
    "ops.AdaptiveAvgPool2D": {"output_size": lambda: 2}, "ops.AdaptiveAvgPool3D": {"output_size": lambda: 2},
    "ops.AdaptiveMaxPool2D": {"output_size": lambda: 2},
    "ops.AdaptiveAvgPool2D()": {"input_x": lambda: F(1, 2, 4, 4)},
    "ops.AdaptiveAvgPool3D()": {"input_x": lambda: F(1, 2, 3, 4, 4)},
    "ops.AdaptiveMaxPool2D()": {"input_x": lambda: F(1, 2, 4, 4)},
    "ops.AdaptiveMaxPool3D()": {"x": lambda: F(1, 2, 3, 4, 4), "output_size": lambda: I(3, high=2) + 1},
    "ops.AvgPool3D()": {"x": lambda: F(1, 2, 3, 4, 4)}, "ops.MaxPool3D()": {"x": lambda: F(1, 2, 3, 4, 4)},
    "ops.MaxPool3DWithArgmax": {"ksize": lambda: 2, "strides": lambda: 2, "pads": lambda: 0},
    "ops.MaxPool3DWithArgmax()": {"x": lambda: F(1, 2, 4, 4, 4)},
    "ops.MaxPoolWithArgmaxV2": {"kernel_size": lambda: 2}, "ops.MaxPoolWithArgmaxV2()": {"x": lambda: F(1, 2, 4, 4)},
    "ops.MaxUnpool2D": {"ksize": lambda: 2}, "ops.MaxUnpool3D": {"ksize": lambda: 2},
    "ops.MaxUnpool2D()": {"x": lambda: F(1, 1, 2, 2), "argmax": lambda: ms.Tensor(np.array([[[[0, 3], [9, 14]]]]))},
    "ops.MaxUnpool3D()": {"x": lambda: F(1, 1, 1, 2, 2),
                          "argmax": lambda: ms.Tensor(np.array([[[[[0, 5], [17, 30]]]]]))},
    "ops.FractionalMaxPool": {"pooling_ratio": lambda: [1.0, 2.0, 2.0, 1.0]},
    "ops.FractionalMaxPool()": {"x": lambda: F(1, 4, 4, 2)},
    "ops.FractionalMaxPoolWithFixedKsize": {"ksize": lambda: (2, 2), "output_shape": lambda: (2, 2)},
    "ops.FractionalMaxPoolWithFixedKsize()": {"input_x": lambda: F(1, 2, 5, 5),
                                              "random_samples": lambda: F(1, 2, 2) - 0.5},
    "ops.FractionalMaxPool3DWithFixedKsize": {"ksize": lambda: (2, 2, 2), "output_shape": lambda: (2, 2, 2)},
    "ops.FractionalMaxPool3DWithFixedKsize()": {"input_x": lambda: F(1, 2, 4, 4, 4),
                                                "random_samples": lambda: F(1, 2, 3) - 0.5},
    "ops.Conv3D": {"out_channel": lambda: 2, "kernel_size": lambda: 2},
    "ops.Conv3D()": {"x": lambda: F(1, 2, 3, 3, 3), "weight": lambda: F(2, 2, 2, 2, 2)},
    "ops.Conv3DTranspose": {"in_channel": lambda: 2, "out_channel": lambda: 2, "kernel_size": lambda: 2},
    "ops.Conv3DTranspose()": {"dout": lambda: F(1, 2, 2, 2, 2), "weight": lambda: F(2, 2, 2, 2, 2)},
    "ops.Conv2DTranspose": {"out_channel": lambda: 3, "kernel_size": lambda: 2},
    "ops.Conv2DTranspose()": {"dout": lambda: F(1, 3, 2, 2), "weight": lambda: F(3, 2, 2, 2),
                              "input_size": lambda: (1, 2, 3, 3)},
    "ops.DeformableOffsets": {"strides": lambda: (1, 1, 1, 1), "pads": lambda: (0, 0, 0, 0), "ksize": lambda: (2, 2)},
    "ops.DeformableOffsets()": {"x": lambda: F(1, 2, 3, 3), "offsets": lambda: F(1, 12, 2, 2) - 1.0},
    "ops.ChannelShuffle": {"group": lambda: 2}, "ops.ChannelShuffle()": {"x": lambda: F(1, 4, 2, 2)},
    "ops.ResizeNearestNeighbor": {"size": lambda: (3, 4)},
    "ops.ResizeNearestNeighbor()": {"input_x": lambda: F(1, 1, 2, 3)},
    "ops.ResizeNearestNeighborV2()": {"image": lambda: F(1, 1, 2, 3), "size": lambda: (3, 4)},
    "ops.ResizeBilinearV2()": {"image": lambda: F(1, 1, 2, 3), "size": lambda: (3, 4)},
    "ops.ResizeBicubic()": {"images": lambda: F(1, 1, 2, 3), "size": lambda: (3, 4)},
    "ops.ResizeLinear1D()": {"x": lambda: F(1, 2, 3), "size": lambda: (5,)},
    "ops.UpsampleNearest3D()": {"x": lambda: F(1, 1, 2, 2, 2), "output_size": lambda: (3, 3, 3)},
    "ops.UpsampleTrilinear3D()": {"x": lambda: F(1, 1, 2, 2, 2), "output_size": lambda: (3, 3, 3)},
    "ops.GridSampler2D()": {"input_x": lambda: F(1, 1, 3, 3), "grid": lambda: F(1, 2, 2, 2) - 1.0},
    "ops.GridSampler3D()": {"input_x": lambda: F(1, 1, 2, 3, 3), "grid": lambda: F(1, 2, 2, 2, 3) - 1.0},
    "ops.AffineGrid()": {"theta": lambda: F(1, 2, 3), "output_size": lambda: (1, 1, 2, 3)},
    "ops.CropAndResize()": {"x": lambda: F(1, 3, 3, 2), "boxes": lambda: ms.Tensor([[0.1, 0.2, 0.8, 0.9]]),
                            "box_index": lambda: ms.Tensor(np.array([0], np.int32)), "crop_size": lambda: (2, 2)},
    "ops.LRN()": {"x": lambda: F(1, 3, 2, 2)},
    "ops.L2Normalize()": {"x": lambda: F(2, 3)},
    "ops.EmbeddingLookup()": {"input_params": lambda: F(4, 2), "input_indices": lambda: I(3, high=4),
                              "offset": lambda: 0},
    "ops.OneHot()": {"indices": lambda: I(3, high=3), "depth": lambda: 3, "on_value": lambda: ms.Tensor(1.0),
                     "off_value": lambda: ms.Tensor(0.0)},
    "ops.BinaryCrossEntropy()": {"logits": lambda: F(2, 3) - 0.45, "labels": lambda: F(2, 3) - 0.5},
    "ops.KLDivLoss()": {"logits": lambda: F(2, 3), "labels": lambda: F(2, 3)},
    "ops.MultiMarginLoss()": {"x": lambda: F(2, 3), "target": lambda: I(2, high=3)},
    "ops.SigmoidCrossEntropyWithLogits()": {"logits": lambda: F(2, 3), "label": lambda: F(2, 3) - 0.5},
    "ops.CTCLoss()": {"x": lambda: F(4, 2, 3), "labels_indices": lambda: ms.Tensor(np.array([[0, 0], [1, 0]])),
                      "labels_values": lambda: ms.Tensor(np.array([1, 0], np.int32)),
                      "sequence_length": lambda: ms.Tensor(np.array([4, 4], np.int32))},
    "ops.CTCLossV2()": {"log_probs": lambda: F(4, 2, 3) - 2.0, "targets": lambda: I(2, 2, high=2) + 1,
                        "input_lengths": lambda: (4, 4), "target_lengths": lambda: (2, 2)},
    "ops.CTCGreedyDecoder()": {"inputs": lambda: F(4, 2, 3), "sequence_length": lambda: I(2, high=1) + 4},
    "ops.BoundingBoxDecode": {"max_shape": lambda: (10, 10)},
    "ops.BoundingBoxDecode()": {"anchor_box": _BOXES, "deltas": lambda: F(2, 4) - 1.0},
    "ops.BoundingBoxEncode()": {"anchor_box": _BOXES, "groundtruth_box": _BOXES},
    "ops.IOU()": {"anchor_boxes": _BOXES, "gt_boxes": _BOXES},
    "ops.NMSWithMask()": {"bboxes": lambda: ms.Tensor(np.array([[0, 0, 2, 2, 0.9], [1, 1, 3, 3, 0.5]], np.float32))},
    "ops.NonMaxSuppressionWithOverlaps()": {"overlaps": lambda: F(3, 3) - 0.5, "scores": lambda: F(3),
                                            "max_output_size": lambda: 2, "overlap_threshold": lambda: 0.5,
                                            "score_threshold": lambda: 0.0},
    "ops.CombinedNonMaxSuppression()": {"boxes": lambda: F(1, 3, 1, 4) - 0.5, "scores": lambda: F(1, 3, 2),
                                        "max_output_size_per_class": lambda: 2, "max_total_size": lambda: 3,
                                        "iou_threshold": lambda: 0.5, "score_threshold": lambda: 0.1},
    "ops.ROIAlign": {"pooled_height": lambda: 2, "pooled_width": lambda: 2, "spatial_scale": lambda: 0.5},
    "ops.ROIAlign()": {"features": lambda: F(1, 2, 4, 4), "rois": lambda: ms.Tensor([[0.0, 0.5, 0.5, 5.0, 6.0]])},
    "ops.AdjustHue()": {"image": lambda: F(2, 2, 3) - 0.5, "delta": lambda: ms.Tensor(0.2, ms.float32)},
    "ops.AdjustSaturation()": {"image": lambda: F(2, 2, 3) - 0.5, "scale": lambda: ms.Tensor(0.5, ms.float32)},
    "ops.Dropout2D()": {"x": lambda: F(1, 2, 2, 2)}, "ops.Dropout3D()": {"x": lambda: F(1, 2, 1, 2, 2)},
})
BUILD.update({
    "ops.AdaptiveAvgPool2D": lambda: ops.AdaptiveAvgPool2D(2), "ops.AdaptiveAvgPool3D": lambda: ops.AdaptiveAvgPool3D(2),
    "ops.AdaptiveMaxPool2D": lambda: ops.AdaptiveMaxPool2D(2),
    "ops.MaxPool3D": lambda: ops.MaxPool3D(2, 2), "ops.AvgPool3D": lambda: ops.AvgPool3D(2, 2),
    "ops.MaxPool3DWithArgmax": lambda: ops.MaxPool3DWithArgmax(2, 2, 0),
    "ops.MaxPoolWithArgmaxV2": lambda: ops.MaxPoolWithArgmaxV2(2),
    "ops.MaxUnpool2D": lambda: ops.MaxUnpool2D(2), "ops.MaxUnpool3D": lambda: ops.MaxUnpool3D(2),
    "ops.FractionalMaxPool": lambda: ops.FractionalMaxPool([1.0, 2.0, 2.0, 1.0]),
    "ops.FractionalMaxPoolWithFixedKsize": lambda: ops.FractionalMaxPoolWithFixedKsize((2, 2), (2, 2)),
    "ops.FractionalMaxPool3DWithFixedKsize": lambda: ops.FractionalMaxPool3DWithFixedKsize((2, 2, 2), (2, 2, 2)),
    "ops.Conv3D": lambda: ops.Conv3D(2, 2), "ops.Conv3DTranspose": lambda: ops.Conv3DTranspose(2, 2, 2),
    "ops.Conv2DTranspose": lambda: ops.Conv2DTranspose(3, 2),
    "ops.DeformableOffsets": lambda: ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2)),
    "ops.ChannelShuffle": lambda: ops.ChannelShuffle(2),
    "ops.ResizeNearestNeighbor": lambda: ops.ResizeNearestNeighbor((3, 4)),
    "ops.BoundingBoxDecode": lambda: ops.BoundingBoxDecode((10, 10)),
    "ops.ROIAlign": lambda: ops.ROIAlign(2, 2, 0.5),
    "ops.Dropout2D": lambda: ops.Dropout2D(1.0), "ops.Dropout3D": lambda: ops.Dropout3D(1.0),
})

# Classes that are not built by users (bases, records, handles): walked neither as constructors nor calls.
NOT_BUILT = {"DType", "Cell", "LossBase", "Optimizer", "LearningRateSchedule", "IncompatibleKeys", "RemovableHandle",
             "Primitive", "PrimitiveWithInfer", "PrimitiveWithCheck", "Initializer"}
# Callables with nothing of their own to call (the class is only a namespace for its constructor here).
NO_CALL = {"nn.CellList", "nn.CellDict", "nn.Buffer", "nn.Optimizer", "ops.Shape", "ops.Rank", "ops.Size"}
# Cell-call entries whose call signature is ``*inputs``: the pseudo-parameters above say what they take.

# Linear algebra, Fourier transforms, complex numbers: matrices a call can factorise (F(3, 3) is singular).
def _mat(rows, dtype=np.float32):
    return lambda: ms.Tensor(np.array(rows, dtype=dtype))


_SQUARE = _mat([[2.0, 0.5, -0.25], [0.75, 1.5, 0.5], [-0.5, 0.25, 1.75]])
_SPD = _mat([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
_LOWER = _mat([[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.25, 0.75, 1.25]])
_UPPER = _mat([[2.0, 0.5, -0.25], [0.0, 1.5, 0.75], [0.0, 0.0, 1.25]])
_PIVOTS = _mat([2, 3, 3], np.int32)
_COMPLEX = _mat([[1 + 2j, -0.5 + 0.25j, 3 - 1j], [0.5j, 2.0, -1 - 1j]], np.complex64)
EXAMPLES.update({
    "ops.Cholesky()": {"input_x": _SPD}, "ops.CholeskyInverse()": {"x": _LOWER},
    "ops.CholeskySolve()": {"x1": lambda: F(3, 2), "x2": _LOWER},
    "ops.Cross()": {"x1": lambda: F(2, 3), "x2": lambda: F(2, 3) * 2}, "ops.Eig()": {"x": _SQUARE},
    "ops.Ger()": {"x1": lambda: F(3), "x2": lambda: F(2)}, "ops.LogMatrixDeterminant()": {"x": _SQUARE},
    "ops.MatrixDeterminant()": {"x": _SQUARE}, "ops.MatrixInverse()": {"x": _SQUARE},
    "ops.MatrixPower()": {"x": _SQUARE}, "ops.MatrixSolve()": {"matrix": _SQUARE, "rhs": lambda: F(3, 2)},
    "ops.MatrixTriangularSolve()": {"matrix": _LOWER, "rhs": lambda: F(3, 2)},
    "ops.Lstsq()": {"x": lambda: F(3, 2) + _mat([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])(), "b": lambda: F(3, 1)},
    "ops.LuSolve()": {"x": lambda: F(3, 1), "lu_data": _SQUARE, "lu_pivots": _PIVOTS},
    "ops.LuUnpack()": {"LU_data": _SQUARE, "LU_pivots": _PIVOTS},
    "ops.Orgqr()": {"x": lambda: F(3, 2), "tau": lambda: F(2)}, "ops.Svd()": {"a": lambda: F(3, 2)},
    "ops.STFT": {"n_fft": lambda: 4, "hop_length": lambda: 2, "win_length": lambda: 4, "normalized": lambda: False,
                 "onesided": lambda: True, "return_complex": lambda: True},
    "ops.STFT()": {"x": lambda: F(10), "window": lambda: F(4)},
    "ops.FFTWithSize": {"signal_ndim": lambda: 1, "inverse": lambda: False, "real": lambda: True},
    "ops.BartlettWindow()": {"window_length": _mat(5, np.int32)},
    "ops.BlackmanWindow()": {"window_length": _mat(5, np.int32)},
    "ops.HammingWindow()": {"length": _mat([5], np.int32)}, "ops.ComplexAbs()": {"x": _COMPLEX},
    "ops.Angle()": {"input": _COMPLEX}, "ops.Complex()": {"real": lambda: F(2, 3), "imag": lambda: F(2, 3)},
    "ops.Polar()": {"abs": lambda: F(2, 3), "angle": lambda: F(2, 3)},
    "Tensor.addbmm": {"@receiver": lambda: F(2, 2), "batch1": lambda: F(3, 2, 3), "batch2": lambda: F(3, 3, 2)},
    "Tensor.addmm": {"mat1": lambda: F(2, 4), "mat2": lambda: F(4, 3)},
    "Tensor.addmm_": {"mat1": lambda: F(2, 4), "mat2": lambda: F(4, 3)},
    "Tensor.addmv": {"@receiver": lambda: F(2), "mat": lambda: F(2, 3), "vec": lambda: F(3)},
    "Tensor.addr": {"vec1": lambda: F(2), "vec2": lambda: F(3)},
    "Tensor.baddbmm": {"@receiver": lambda: F(2, 2, 2), "batch1": lambda: F(2, 2, 3), "batch2": lambda: F(2, 3, 2)},
    "Tensor.bmm": {"@receiver": lambda: F(2, 2, 3), "mat2": lambda: F(2, 3, 2)},
    "Tensor.mm": {"mat2": lambda: F(3, 2)}, "Tensor.dot": {"other": lambda: F(3, 2)},
    "Tensor.outer": {"vec2": lambda: F(3)}, "Tensor.ger": {"@receiver": lambda: F(3), "vec2": lambda: F(2)},
    "Tensor.lu_solve": {"@receiver": lambda: F(3, 1), "LU_data": _SQUARE, "LU_pivots": _PIVOTS},
    "Tensor.matrix_determinant": {"@receiver": _SQUARE}, "Tensor.det": {"@receiver": _SQUARE},
    "Tensor.slogdet": {"@receiver": _SQUARE}, "Tensor.log_matrix_determinant": {"@receiver": _SQUARE},
    "Tensor.logdet": {"@receiver": _SPD}, "Tensor.inverse": {"@receiver": _SQUARE},
    "Tensor.eigvals": {"@receiver": _SQUARE}, "Tensor.matrix_power": {"@receiver": _SQUARE, "n": lambda: 2},
    "Tensor.angle": {"@receiver": _COMPLEX},
    "Tensor.orgqr": {"@receiver": lambda: F(3, 2), "input2": lambda: F(2)},
    "Tensor.ormqr": {"@receiver": lambda: F(3, 2), "input2": lambda: F(2), "input3": lambda: F(3, 2)},
    "Tensor.cholesky": {"@receiver": _SPD}, "Tensor.cholesky_inverse": {"@receiver": _LOWER},
    "Tensor.cholesky_solve": {"@receiver": lambda: F(3, 2), "input2": _LOWER},
    "Tensor.triangular_solve": {"@receiver": lambda: F(3, 2), "A": _UPPER},
})
BUILD.update({
    "ops.MatrixPower": lambda: ops.MatrixPower(2), "ops.STFT": lambda: ops.STFT(4, 2, 4, False, True, True),
    "ops.FFTWithSize": lambda: ops.FFTWithSize(1, False, True),
})

# issue 17, amp / train (mixed precision, callbacks, checkpoint utilities): valid examples.
def _st_file():
    path = os.path.join(TMP, "net.safetensors")
    if not os.path.exists(path):
        ms.save_checkpoint(Net(), path, format="safetensors")
    return path


EXAMPLES.update({
    "ms.ckpt_to_safetensors": {"file_path": ckpt_file, "save_path": lambda: os.path.join(TMP, "converted")},
    "ms.safetensors_to_ckpt": {"file_path": _st_file, "save_path": lambda: os.path.join(TMP, "converted")},
    "ms.load_checkpoint_async": {"ckpt_file_name": ckpt_file},
    "ms.merge_sliced_parameter": {"sliced_parameters": lambda: [ms.Parameter(F(1, 3), name="w"),
                                                                ms.Parameter(F(2, 3), name="w")]},
    "ms.BackupAndRestore": {"backup_dir": lambda: os.path.join(TMP, "backup")},
    "ms.RunContext": {"original_args": lambda: {"cur_step_num": 1}},
    "ms.LearningRateScheduler": {"learning_rate_function": lambda: (lambda lr, step: lr)},
    "ms.build_train_network": {"network": lambda: nn.Dense(3, 2),
                               "optimizer": lambda: nn.SGD(nn.Dense(3, 2).trainable_params()),
                               "loss_fn": lambda: nn.MSELoss()},
})
# nn conv / pooling / padding / resampling / normalisation / image layers (issue 16, nn-conv): constructors and calls.
_X5 = lambda: F(1, 2, 4, 4, 4)  # noqa: E731
_X4 = lambda: F(1, 2, 4, 4)  # noqa: E731
_X3 = lambda: F(1, 2, 8)  # noqa: E731
BUILD.update({
    "nn.Conv3d": lambda: nn.Conv3d(2, 4, 3), "nn.Conv3dTranspose": lambda: nn.Conv3dTranspose(2, 4, 3),
    "nn.Conv2dTranspose": lambda: nn.Conv2dTranspose(2, 4, 3), "nn.Conv1dTranspose": lambda: nn.Conv1dTranspose(2, 4, 3),
    "nn.Conv2dBnAct": lambda: nn.Conv2dBnAct(2, 4, 3, has_bn=True, activation="relu"),
    "nn.DenseBnAct": lambda: nn.DenseBnAct(3, 2, has_bn=True, activation="relu"),
    "nn.MaxPool1d": lambda: nn.MaxPool1d(2, 2), "nn.AvgPool1d": lambda: nn.AvgPool1d(2, 2),
    "nn.MaxPool3d": lambda: nn.MaxPool3d(2, 2), "nn.AvgPool3d": lambda: nn.AvgPool3d(2, 2),
    "nn.AdaptiveAvgPool1d": lambda: nn.AdaptiveAvgPool1d(2), "nn.AdaptiveMaxPool1d": lambda: nn.AdaptiveMaxPool1d(2),
    "nn.AdaptiveAvgPool2d": lambda: nn.AdaptiveAvgPool2d(2), "nn.AdaptiveMaxPool2d": lambda: nn.AdaptiveMaxPool2d(2),
    "nn.AdaptiveAvgPool3d": lambda: nn.AdaptiveAvgPool3d(2), "nn.AdaptiveMaxPool3d": lambda: nn.AdaptiveMaxPool3d(2),
    "nn.LPPool1d": lambda: nn.LPPool1d(2, 2), "nn.LPPool2d": lambda: nn.LPPool2d(2, 2),
    "nn.FractionalMaxPool2d": lambda: nn.FractionalMaxPool2d(2, output_size=(2, 2)),
    "nn.FractionalMaxPool3d": lambda: nn.FractionalMaxPool3d(2, output_size=(2, 2, 2)),
    "nn.MaxUnpool1d": lambda: nn.MaxUnpool1d(2), "nn.MaxUnpool2d": lambda: nn.MaxUnpool2d(2),
    "nn.MaxUnpool3d": lambda: nn.MaxUnpool3d(2),
    "nn.ConstantPad1d": lambda: nn.ConstantPad1d(1, 0.5), "nn.ConstantPad2d": lambda: nn.ConstantPad2d(1, 0.5),
    "nn.ConstantPad3d": lambda: nn.ConstantPad3d(1, 0.5), "nn.ZeroPad2d": lambda: nn.ZeroPad2d(1),
    "nn.ReflectionPad1d": lambda: nn.ReflectionPad1d(1), "nn.ReflectionPad2d": lambda: nn.ReflectionPad2d(1),
    "nn.ReflectionPad3d": lambda: nn.ReflectionPad3d(1), "nn.ReplicationPad1d": lambda: nn.ReplicationPad1d(1),
    "nn.ReplicationPad2d": lambda: nn.ReplicationPad2d(1), "nn.ReplicationPad3d": lambda: nn.ReplicationPad3d(1),
    "nn.Pad": lambda: nn.Pad(((0, 0), (1, 1))), "nn.Upsample": lambda: nn.Upsample(size=(6, 6)),
    "nn.PixelShuffle": lambda: nn.PixelShuffle(2), "nn.PixelUnshuffle": lambda: nn.PixelUnshuffle(2),
    "nn.ChannelShuffle": lambda: nn.ChannelShuffle(2), "nn.CentralCrop": lambda: nn.CentralCrop(0.5),
    "nn.BatchNorm3d": lambda: nn.BatchNorm3d(2), "nn.SyncBatchNorm": lambda: nn.SyncBatchNorm(2),
    "nn.GroupNorm": lambda: nn.GroupNorm(2, 2), "nn.InstanceNorm1d": lambda: nn.InstanceNorm1d(2),
    "nn.InstanceNorm2d": lambda: nn.InstanceNorm2d(2), "nn.InstanceNorm3d": lambda: nn.InstanceNorm3d(2),
    "nn.SSIM": lambda: nn.SSIM(filter_size=3),
})
EXAMPLES.update({
    "nn.Conv3d": {"in_channels": lambda: 2, "out_channels": lambda: 4}, "nn.Conv3d()": {"x": _X5},
    "nn.Conv3dTranspose": {"in_channels": lambda: 2, "out_channels": lambda: 4}, "nn.Conv3dTranspose()": {"x": _X5},
    "nn.Conv2dTranspose": {"in_channels": lambda: 2, "out_channels": lambda: 4}, "nn.Conv2dTranspose()": {"x": _X4},
    "nn.Conv1dTranspose": {"in_channels": lambda: 2, "out_channels": lambda: 4}, "nn.Conv1dTranspose()": {"x": _X3},
    "nn.Conv2dBnAct": {"in_channels": lambda: 2, "out_channels": lambda: 4}, "nn.Conv2dBnAct()": {"x": _X4},
    "nn.DenseBnAct": {"in_channels": lambda: 3, "out_channels": lambda: 2}, "nn.DenseBnAct()": {"x": lambda: F(4, 3)},
    "nn.MaxPool1d()": {"x": _X3}, "nn.AvgPool1d()": {"x": _X3}, "nn.MaxPool3d()": {"x": _X5},
    "nn.AvgPool3d()": {"x": _X5}, "nn.AdaptiveAvgPool1d": {"output_size": lambda: 2},
    "nn.AdaptiveMaxPool1d": {"output_size": lambda: 2}, "nn.AdaptiveAvgPool2d": {"output_size": lambda: 2},
    "nn.AdaptiveMaxPool2d": {"output_size": lambda: 2}, "nn.AdaptiveAvgPool3d": {"output_size": lambda: 2},
    "nn.AdaptiveMaxPool3d": {"output_size": lambda: 2}, "nn.AdaptiveAvgPool1d()": {"input": _X3},
    "nn.AdaptiveMaxPool1d()": {"x": _X3}, "nn.AdaptiveAvgPool2d()": {"input": _X4},
    "nn.AdaptiveMaxPool2d()": {"input": _X4}, "nn.AdaptiveAvgPool3d()": {"input": _X5},
    "nn.AdaptiveMaxPool3d()": {"input": _X5},
    "nn.LPPool1d": {"norm_type": lambda: 2, "kernel_size": lambda: 2},
    "nn.LPPool2d": {"norm_type": lambda: 2, "kernel_size": lambda: 2},
    "nn.LPPool1d()": {"x": _X3}, "nn.LPPool2d()": {"x": _X4},
    "nn.FractionalMaxPool2d": {"kernel_size": lambda: 2}, "nn.FractionalMaxPool3d": {"kernel_size": lambda: 2},
    "nn.FractionalMaxPool2d()": {"input": lambda: F(1, 2, 5, 5)},
    "nn.FractionalMaxPool3d()": {"input": lambda: F(1, 2, 5, 5, 5)},
    "nn.MaxUnpool1d": {"kernel_size": lambda: 2}, "nn.MaxUnpool2d": {"kernel_size": lambda: 2},
    "nn.MaxUnpool3d": {"kernel_size": lambda: 2},
    "nn.MaxUnpool1d()": {"x": lambda: F(1, 2, 2), "indices": lambda: ms.Tensor(np.array([[[1, 2], [0, 3]]]))},
    "nn.MaxUnpool2d()": {"x": lambda: F(1, 1, 1, 2), "indices": lambda: ms.Tensor(np.array([[[[1, 2]]]]))},
    "nn.MaxUnpool3d()": {"x": lambda: F(1, 1, 1, 1, 1), "indices": lambda: ms.Tensor(np.array([[[[[5]]]]]))},
    "nn.ConstantPad1d": {"padding": lambda: 1, "value": lambda: 0.5},
    "nn.ConstantPad2d": {"padding": lambda: 1, "value": lambda: 0.5},
    "nn.ConstantPad3d": {"padding": lambda: 1, "value": lambda: 0.5}, "nn.ZeroPad2d": {"padding": lambda: 1},
    "nn.ReflectionPad1d": {"padding": lambda: 1}, "nn.ReflectionPad2d": {"padding": lambda: 1},
    "nn.ReflectionPad3d": {"padding": lambda: 1}, "nn.ReplicationPad1d": {"padding": lambda: 1},
    "nn.ReplicationPad2d": {"padding": lambda: 1}, "nn.ReplicationPad3d": {"padding": lambda: 1},
    "nn.ConstantPad1d()": {"x": _X3}, "nn.ConstantPad2d()": {"x": _X4}, "nn.ConstantPad3d()": {"x": _X5},
    "nn.ZeroPad2d()": {"x": _X4}, "nn.ReflectionPad1d()": {"x": _X3}, "nn.ReflectionPad2d()": {"x": _X4},
    "nn.ReflectionPad3d()": {"x": _X5}, "nn.ReplicationPad1d()": {"x": _X3}, "nn.ReplicationPad2d()": {"x": _X4},
    "nn.ReplicationPad3d()": {"x": _X5}, "nn.Pad": {"paddings": lambda: ((0, 0), (1, 1))},
    "nn.Pad()": {"x": lambda: F(2, 3)}, "nn.Upsample()": {"x": _X4},
    "nn.PixelShuffle": {"upscale_factor": lambda: 2}, "nn.PixelUnshuffle": {"downscale_factor": lambda: 2},
    "nn.PixelShuffle()": {"input": lambda: F(1, 4, 2, 2)}, "nn.PixelUnshuffle()": {"input": _X4},
    "nn.ChannelShuffle": {"groups": lambda: 2}, "nn.ChannelShuffle()": {"x": _X4},
    "nn.CentralCrop": {"central_fraction": lambda: 0.5}, "nn.CentralCrop()": {"image": _X4},
    "nn.BatchNorm3d": {"num_features": lambda: 2}, "nn.BatchNorm3d()": {"x": _X5},
    "nn.SyncBatchNorm": {"num_features": lambda: 2}, "nn.SyncBatchNorm()": {"x": _X4},
    "nn.GroupNorm": {"num_groups": lambda: 2, "num_channels": lambda: 2}, "nn.GroupNorm()": {"x": _X4},
    "nn.InstanceNorm1d": {"num_features": lambda: 2}, "nn.InstanceNorm1d()": {"x": _X3},
    "nn.InstanceNorm2d": {"num_features": lambda: 2}, "nn.InstanceNorm2d()": {"x": _X4},
    "nn.InstanceNorm3d": {"num_features": lambda: 2}, "nn.InstanceNorm3d()": {"x": _X5},
    "nn.LRN()": {"input_x": _X4}, "nn.PSNR()": {"img1": _X4, "img2": _X4},
    "nn.SSIM()": {"img1": _X4, "img2": _X4},
})
# nn activation layers (nn-act): valid examples where the generic ones do not fit.
EXAMPLES.update({
    "nn.Softmax2d()": {"x": lambda: F(2, 3, 4)},
    "nn.GLU()": {"x": lambda: F(2, 4)},
    "nn.Threshold": {"threshold": lambda: 0.5, "value": lambda: 1.0},
    "nn.Linear": {"in_features": lambda: 3, "out_features": lambda: 2}, "nn.Linear()": {"x": lambda: F(4, 3)},
    "nn.BiDense": {"in1_channels": lambda: 3, "in2_channels": lambda: 2, "out_channels": lambda: 4},
    "nn.BiDense()": {"input1": lambda: F(4, 3), "input2": lambda: F(4, 2)},
    "nn.Unflatten": {"axis": lambda: 1, "unflattened_size": lambda: (3, 1)},
})
# nn loss layers (nn-act): valid inputs of each loss call.
EXAMPLES.update({
    "nn.BCELoss()": {"logits": lambda: F(2, 3) * 0.5, "labels": lambda: F(2, 3) * 0.5},
    "nn.BCEWithLogitsLoss()": {"input": lambda: F(2, 3), "target": lambda: F(2, 3) * 0.5},
    "nn.CTCLoss()": {"log_probs": lambda: ms.ops.log_softmax(F(4, 2, 3), -1), "targets": lambda: I(2, 2, high=2) + 1,
                     "input_lengths": lambda: ms.Tensor([4, 3], ms.int32),
                     "target_lengths": lambda: ms.Tensor([2, 1], ms.int32)},
    "nn.CosineEmbeddingLoss()": {"logits_x1": lambda: F(2, 3), "logits_x2": lambda: F(2, 3) - 1.0,
                                 "labels": lambda: ms.Tensor([1, -1], ms.int32)},
    "nn.GaussianNLLLoss()": {"logits": lambda: F(2, 3), "labels": lambda: F(2, 3) - 1.0, "var": lambda: F(2, 3)},
    "nn.HingeEmbeddingLoss()": {"logits": lambda: F(2, 3), "labels": lambda: I(2, 3) * 2.0 - 1.0},
    "nn.HuberLoss()": {"logits": lambda: F(2, 3), "labels": lambda: F(2, 3) - 1.0},
    "nn.KLDivLoss()": {"logits": lambda: F(2, 3) - 2.0, "labels": lambda: F(2, 3) * 0.5},
    "nn.MAELoss()": {"logits": lambda: F(2, 3), "label": lambda: F(2, 3) - 1.0},
    "nn.MarginRankingLoss()": {"input1": lambda: F(2, 3), "input2": lambda: F(2, 3) - 1.0,
                               "target": lambda: I(2, 3) * 2.0 - 1.0},
    "nn.MultiLabelSoftMarginLoss()": {"x": lambda: F(2, 3), "target": lambda: I(2, 3) * 1.0},
    "nn.MultiMarginLoss()": {"x": lambda: F(2, 3), "target": lambda: I(2, high=3, dtype=np.int64)},
    "nn.NLLLoss()": {"logits": lambda: F(2, 3) - 2.0, "labels": lambda: I(2, high=3)},
    "nn.PoissonNLLLoss()": {"input": lambda: F(2, 3), "target": lambda: F(2, 3) * 2.0},
    "nn.RMSELoss()": {"logits": lambda: F(2, 3), "label": lambda: F(2, 3) - 1.0},
    "nn.SmoothL1Loss()": {"logits": lambda: F(2, 3), "labels": lambda: F(2, 3) - 1.0},
    "nn.TripletMarginWithDistanceLoss()": {"x": lambda: F(2, 3), "positive": lambda: F(2, 3) - 1.0,
                                           "negative": lambda: F(2, 3) + 1.0},
})
# nn math / lookup / sparse layers (nn-act).
EXAMPLES.update({
    "nn.EmbeddingLookup": {"vocab_size": lambda: 5, "embedding_size": lambda: 3},
    "nn.EmbeddingLookup()": {"indices": lambda: I(2, 3, high=5)},
    "nn.ReduceLogSumExp": {"axis": lambda: 1},
    "nn.IGamma()": {"a": lambda: F(2, 3), "x": lambda: F(2, 3)},
    "nn.SparseTensorDenseMatmul()": {"indices": lambda: ms.Tensor([[0, 1], [1, 2]], ms.int32),
                                     "values": lambda: F(2), "sparse_shape": lambda: (2, 3), "dense": lambda: F(3, 2)},
    "nn.SparseToDense()": {"sparse_tensor": lambda: ms.COOTensor(ms.Tensor([[0, 1]], ms.int32), F(1), (2, 2))},
})
BUILD.update({"nn.EmbeddingLookup": lambda: nn.EmbeddingLookup(5, 3), "nn.ReduceLogSumExp": lambda: nn.ReduceLogSumExp(1)})
BUILD.update({"nn.Threshold": lambda: nn.Threshold(0.5, 1.0), "nn.Linear": lambda: nn.Linear(3, 2),
              "nn.BiDense": lambda: nn.BiDense(3, 2, 4), "nn.Unflatten": lambda: nn.Unflatten(1, (3, 1))})


# Recurrent layers (nn-seq: nn.RNN/LSTM/GRU and their single-step Cells).
EXAMPLES.update({
    **{f"nn.{name}": {"@params": pseudo("input_size", "hidden_size"), "input_size": lambda: 3,
                      "hidden_size": lambda: 2} for name in ("RNN", "LSTM", "GRU")},
    **{f"nn.{name}": {"input_size": lambda: 3, "hidden_size": lambda: 2} for name in ("RNNCell", "GRUCell", "LSTMCell")},
    **{f"nn.{name}()": {"x": lambda: F(4, 2, 3)} for name in ("RNN", "LSTM", "GRU")},
    "nn.RNNCell()": {"x": lambda: F(2, 3), "hx": lambda: F(2, 2)}, "nn.GRUCell()": {"x": lambda: F(2, 3), "hx": lambda: F(2, 2)},
    "nn.LSTMCell()": {"x": lambda: F(2, 3), "hx": lambda: (F(2, 2), F(2, 2))},
})

BUILD.update({
    "nn.RNN": lambda: nn.RNN(3, 2), "nn.LSTM": lambda: nn.LSTM(3, 2), "nn.GRU": lambda: nn.GRU(3, 2),
    "nn.RNNCell": lambda: nn.RNNCell(3, 2), "nn.LSTMCell": lambda: nn.LSTMCell(3, 2), "nn.GRUCell": lambda: nn.GRUCell(3, 2),
})

# Metrics (issue 16, nn-optim): nn.X, train.X and ms.X are one object; constructors that need arguments, and the
# call (clear, update, eval) with inputs each metric takes.
NOT_BUILT |= {"Metric"}  # abstract, as MindSpore's: instantiating it is a TypeError

_LABELS = lambda: ms.Tensor(np.array([0, 2], np.int32))  # noqa: E731

_MASK = lambda: np.array([[0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0]], np.int32)  # noqa: E731

_BINARY = lambda: ms.Tensor(np.array([[[[1, 0], [0, 1]]], [[[1, 1], [0, 1]]]], np.float32))  # noqa: E731

_METRIC_CALLS = {
    "Accuracy": {"y_pred": lambda: F(2, 3), "y": _LABELS}, "Precision": {"y_pred": lambda: F(2, 3), "y": _LABELS},
    "Recall": {"y_pred": lambda: F(2, 3), "y": _LABELS}, "F1": {"y_pred": lambda: F(2, 3), "y": _LABELS},
    "Fbeta": {"y_pred": lambda: F(2, 3), "y": _LABELS},
    "TopKCategoricalAccuracy": {"y_pred": lambda: F(2, 3), "y": _LABELS},
    "Top1CategoricalAccuracy": {"y_pred": lambda: F(2, 3), "y": _LABELS},
    "Top5CategoricalAccuracy": {"y_pred": lambda: F(2, 6), "y": _LABELS},
    "MAE": {"y_pred": lambda: F(2, 3), "y": lambda: F(2, 3)}, "MSE": {"y_pred": lambda: F(2, 3), "y": lambda: F(2, 3)},
    "Dice": {"y_pred": lambda: F(2, 3), "y": lambda: F(2, 3)}, "Loss": {"loss": lambda: F(3)},
    "ConfusionMatrix": {"y_pred": lambda: F(2, 3), "y": _LABELS},
    "ConfusionMatrixMetric": {"y_pred": _BINARY, "y": _BINARY},
    "ROC": {"y_pred": lambda: ms.Tensor(np.array([0.2, 0.7, 0.4], np.float32)), "y": lambda: [0, 1, 0]},
    "Perplexity": {"preds": lambda: ms.Tensor(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], np.float32)),
                   "labels": _LABELS},
    "BleuScore": {"candidates": lambda: [["a", "cat", "sat"]], "references": lambda: [[["a", "cat", "sat"]]]},
    "CosineSimilarity": {"inputs": lambda: F(2, 3)},
    "HausdorffDistance": {"y_pred": _MASK, "y": lambda: _MASK().T.copy(), "label_idx": lambda: 1},
    "MeanSurfaceDistance": {"y_pred": _MASK, "y": lambda: _MASK().T.copy(), "label_idx": lambda: 1},
    "RootMeanSquareDistance": {"y_pred": _MASK, "y": lambda: _MASK().T.copy(), "label_idx": lambda: 1},
    "OcclusionSensitivity": {"model": lambda: nn.Dense(3, 2), "x": lambda: F(1, 3),
                             "label": lambda: np.array(1, np.int32)},
}

for _prefix in ("nn", "ms"):
    for _metric, _inputs in _METRIC_CALLS.items():
        EXAMPLES[f"{_prefix}.{_metric}()"] = {"@params": pseudo(*_inputs), **_inputs}
    EXAMPLES.update({f"{_prefix}.ConfusionMatrix": {"num_classes": lambda: 3},
                     f"{_prefix}.Fbeta": {"beta": lambda: 1.0}, f"{_prefix}.TopKCategoricalAccuracy": {"k": lambda: 2}})
    BUILD.update({f"{_prefix}.ConfusionMatrix": lambda: nn.ConfusionMatrix(3), f"{_prefix}.Fbeta": lambda: nn.Fbeta(0.5),
                  f"{_prefix}.TopKCategoricalAccuracy": lambda: nn.TopKCategoricalAccuracy(2)})

# The loss-scale wrappers of the same branch (issue 16, nn-optim).
EXAMPLES.update({
    "nn.FixedLossScaleUpdateCell": {"loss_scale_value": lambda: 1024.0},
    "nn.DynamicLossScaleUpdateCell": {"loss_scale_value": lambda: 1024.0, "scale_factor": lambda: 2,
                                      "scale_window": lambda: 10},
    "nn.TrainOneStepWithLossScaleCell": {"network": _loss_net, "optimizer": lambda: nn.SGD(opt_params(), 0.1),
                                         "scale_sense": lambda: ms.Tensor(np.array(8.0, np.float32))},
    "nn.FixedLossScaleUpdateCell()": {"_": lambda: ms.Parameter(ms.Tensor(np.array(8.0, np.float32)), name="s"),
                                      "overflow": lambda: ms.Tensor(False)},
    "nn.DynamicLossScaleUpdateCell()": {"loss_scale": lambda: ms.Parameter(ms.Tensor(np.array(8.0, np.float32)),
                                                                           name="s"),
                                        "overflow": lambda: ms.Tensor(False)},
    "nn.TrainOneStepWithLossScaleCell()": {"@params": pseudo("data", "label"), "data": lambda: F(4, 3),
                                           "label": lambda: F(4, 2)},
})

BUILD.update({
    "nn.FixedLossScaleUpdateCell": lambda: nn.FixedLossScaleUpdateCell(1024.0),
    "nn.DynamicLossScaleUpdateCell": lambda: nn.DynamicLossScaleUpdateCell(1024.0, 2, 10),
    "nn.TrainOneStepWithLossScaleCell": lambda: (lambda net: nn.TrainOneStepWithLossScaleCell(
        net, nn.SGD(net.trainable_params(), 0.1), ms.Tensor(np.array(8.0, np.float32))))(_loss_net()),
})

EXAMPLES.update({
    "ms.auc": {"x": lambda: np.array([0.0, 0.5, 1.0]), "y": lambda: np.array([0.0, 1.0, 1.0])},
    "ms.get_metric_fn": {"name": lambda: "acc"}, "ms.rearrange_inputs": {"func": lambda: (lambda self, *a: a)},
})

# -- issue 17, top level (nn-toplevel): generators, devices, checkpoint conversion, parallel context
def _walk_safetensors_file():
    path = os.path.join(TMP, "net.safetensors")
    if not os.path.exists(path):
        ms.save_checkpoint(Net(), path, format="safetensors")
    return path

EXAMPLES.update({
    "ms.is_tensor": {"obj": lambda: F(2)}, "ops.is_tensor": {"obj": lambda: F(2)},
    "ms.set_rng_state": {"state": lambda: ms.Tensor(np.array([3] + [0] * 15, np.uint8))},
    "ms.set_device": {"device_target": lambda: "CPU"},
    "ms.get_auto_parallel_context": {"attr_key": lambda: "parallel_mode"},
    "ms.ckpt_to_safetensors": {"file_path": ckpt_file, "save_path": lambda: os.path.join(TMP, "converted")},
    "ms.safetensors_to_ckpt": {"file_path": _walk_safetensors_file, "save_path": lambda: os.path.join(TMP, "back")},
    "ms.pytype_to_dtype": {"obj": lambda: float}, "ms.dtype_to_nptype": {"type_": lambda: ms.float32},
    "ms.dtype_to_pytype": {"type_": lambda: ms.int32},
    "nn.DistributedGradReducer": {"parameters": opt_params},
    "ms.enable_dynamic": {"@params": pseudo("x", kind=KW), "x": lambda: ms.Tensor(shape=[2, None], dtype=ms.float32)},
    "nn.DistributedGradReducer()": {"grads": lambda: tuple(ops.ones_like(p) for p in opt_params())},
})
BUILD.update({"nn.DistributedGradReducer": lambda: nn.DistributedGradReducer(opt_params())})

# Attention and Transformer Cells (nn-seq).
EXAMPLES.update({
    "nn.MultiheadAttention": {"embed_dim": lambda: 4, "num_heads": lambda: 2},
    "nn.MultiheadAttention()": {"query": lambda: F(3, 2, 4), "key": lambda: F(3, 2, 4), "value": lambda: F(3, 2, 4)},
    **{f"nn.{name}": {"d_model": lambda: 4, "nhead": lambda: 2, "dim_feedforward": lambda: 6}
       for name in ("TransformerEncoderLayer", "TransformerDecoderLayer")},
    "nn.TransformerEncoderLayer()": {"src": lambda: F(3, 2, 4)},
    "nn.TransformerDecoderLayer()": {"tgt": lambda: F(3, 2, 4), "memory": lambda: F(5, 2, 4)},
    "nn.TransformerEncoder": {"encoder_layer": lambda: nn.TransformerEncoderLayer(4, 2, 6), "num_layers": lambda: 2},
    "nn.TransformerDecoder": {"decoder_layer": lambda: nn.TransformerDecoderLayer(4, 2, 6), "num_layers": lambda: 2},
    "nn.TransformerEncoder()": {"src": lambda: F(3, 2, 4)},
    "nn.TransformerDecoder()": {"tgt": lambda: F(3, 2, 4), "memory": lambda: F(5, 2, 4)},
    "nn.Transformer": {"d_model": lambda: 4, "nhead": lambda: 2, "num_encoder_layers": lambda: 1,
                       "num_decoder_layers": lambda: 1, "dim_feedforward": lambda: 6},
    "nn.Transformer()": {"src": lambda: F(5, 2, 4), "tgt": lambda: F(3, 2, 4)},
})

BUILD.update({
    "nn.MultiheadAttention": lambda: nn.MultiheadAttention(4, 2),
    "nn.TransformerEncoderLayer": lambda: nn.TransformerEncoderLayer(4, 2, 6),
    "nn.TransformerDecoderLayer": lambda: nn.TransformerDecoderLayer(4, 2, 6),
    "nn.TransformerEncoder": lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6), 2),
    "nn.TransformerDecoder": lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 6), 2),
    "nn.Transformer": lambda: nn.Transformer(4, 2, 1, 1, 6),
})

# Optimizers, schedules and wrappers (nn-optim) and the in-place Tensor methods (misc): their valid calls.
_GRADS = lambda: (F(2, 3), F(2))  # noqa: E731  (one gradient per Parameter of Net)
for _name in ("ASGD", "AdaFactor", "AdaMax", "Adadelta", "Adagrad", "AdamOffload", "FTRL", "LazyAdam",
              "ProximalAdagrad", "RMSProp", "Rprop"):
    BUILD[f"nn.{_name}"] = (lambda cls=getattr(nn, _name): cls(opt_params()))
    EXAMPLES[f"nn.{_name}"] = {"params": opt_params}
    EXAMPLES[f"nn.{_name}()"] = {"gradients": _GRADS, "grads": _GRADS}
BUILD.update({
    "nn.Lamb": lambda: nn.Lamb(opt_params(), 0.01), "nn.LARS": lambda: nn.LARS(nn.SGD(opt_params(), 0.1)),
    "nn.InverseDecayLR": lambda: nn.InverseDecayLR(0.1, 0.5, 4),
    "nn.NaturalExpDecayLR": lambda: nn.NaturalExpDecayLR(0.1, 0.5, 4),
    "nn.GradAccumulationCell": lambda: nn.GradAccumulationCell(Net(), 2),
    "nn.ParameterUpdate": lambda: nn.ParameterUpdate(ms.Parameter(F(2, 3), name="p")),
})
EXAMPLES.update({
    "nn.Lamb": {"params": opt_params, "learning_rate": lambda: 0.01}, "nn.Lamb()": {"gradients": _GRADS},
    "nn.LARS": {"optimizer": lambda: nn.SGD(opt_params(), 0.1)}, "nn.LARS()": {"gradients": _GRADS},
    **{f"nn.{name}": {"learning_rate": lambda: 0.1, "decay_rate": lambda: 0.5, "decay_steps": lambda: 4}
       for name in ("InverseDecayLR", "NaturalExpDecayLR")},
    **{f"nn.{name}()": {"global_step": lambda: ms.Tensor(2, ms.int32)} for name in ("InverseDecayLR", "NaturalExpDecayLR")},
    "nn.GradAccumulationCell": {"network": lambda: Net(), "micro_size": lambda: 2},
    "nn.GradAccumulationCell()": {"@params": pseudo("x"), "x": lambda: F(4, 3)},
    "nn.ParameterUpdate": {"param": lambda: ms.Parameter(F(2, 3), name="p")}, "nn.ParameterUpdate()": {"x": lambda: F(2, 3)},
    "Tensor.index_add_": {"dim": lambda: 1, "index": lambda: I(2, high=3), "source": lambda: F(2, 2)},
    "Tensor.index_fill_": {"dim": lambda: 1, "index": lambda: I(2, high=3), "value": lambda: 0.5},
    "Tensor.index_put_": {"indices": lambda: (I(1, high=2), I(1, high=3)), "values": lambda: F(1)},
    "Tensor.masked_fill_": {"mask": lambda: ms.Tensor(np.array([[True, False, True], [False, True, False]])),
                            "value": lambda: 0.5},
    "Tensor.masked_scatter_": {"mask": lambda: ms.Tensor(np.array([[True, False, True], [False, True, False]])),
                               "source": lambda: F(6)},
    "Tensor.scatter_": {"dim": lambda: 1, "index": lambda: I(2, 2, high=3, dtype=np.int64), "src": lambda: F(2, 2)},
    "Tensor.scatter_add_": {"dim": lambda: 1, "index": lambda: I(2, 2, high=3, dtype=np.int64), "src": lambda: F(2, 2)},
})

# ops.PyFunc: a NumPy function of one (2, 3) Float32 input.
BUILD["ops.PyFunc"] = lambda: ops.PyFunc(lambda a: a * 2, [ms.float32], [(2, 3)], [ms.float32], [(2, 3)])
EXAMPLES.update({
    "ops.PyFunc": {"fn": lambda: (lambda a: a * 2), "in_types": lambda: [ms.float32], "in_shapes": lambda: [(2, 3)],
                   "out_types": lambda: [ms.float32], "out_shapes": lambda: [(2, 3)]},
    "ops.PyFunc()": {"@params": pseudo("x"), "x": lambda: F(2, 3)},
})

# Exception types the spec names for particular calls, besides SPEC_ERRORS.
EXTRA_ERRORS = {
    "Tensor.__getitem__": (IndexError,), "Tensor.__setitem__": (IndexError,),  # MindSpore: index out of range
    "ops.getitem": (IndexError,), "ops.setitem": (IndexError,),
    "Cell.get_sub_cell": (AttributeError,), "Cell.get_buffer": (AttributeError,),  # an absent attribute path
    "ms.save_checkpoint": (IsADirectoryError,),  # a folder given as the file name: MindSpore 2.10 raises it too
    "Tensor.item": (IndexError,),
}
# A summary folder that is a file: MindSpore 2.10 raises NotADirectoryError (the walk's random names can hit a file
# an earlier input left behind).
EXTRA_ERRORS.update({f"{where}.{name}": (NotADirectoryError,) for where in ("ms", "train")
                     for name in ("SummaryRecord", "SummaryCollector", "SummaryLandscape")})
# unified_safetensors given a file as its output folder (an earlier walk input can leave one behind).
EXTRA_ERRORS.update({"ms.unified_safetensors": (NotADirectoryError,), "parallel.unified_safetensors": (NotADirectoryError,)})


# -- issue 17, graph mode (ms.mutable, ms.jit_class, ms.export / ms.load, nn.GraphCell, ops.Custom) -------------
def _exported_path():
    path = os.path.join(TMP, "walk_dense.mindir")
    if not os.path.exists(path):
        ms.export(nn.Dense(3, 2), F(1, 3), file_name=path, file_format="MINDIR")
    return path


EXAMPLES.update({
    "ms.mutable": {"input_data": lambda: 2},
    "ms.jit_class": {"cls": lambda: type("Plain", (), {})},
    "ms.export": {"@params": [inspect.Parameter("net", POS), inspect.Parameter("x", POS),
                              inspect.Parameter("file_name", KW), inspect.Parameter("file_format", KW)],
                  "net": lambda: nn.Dense(3, 2), "x": lambda: F(1, 3),
                  "file_name": lambda: os.path.join(TMP, "walk_export"), "file_format": lambda: "MINDIR"},
    "ms.load": {"file_name": _exported_path},
    "nn.GraphCell": {"graph": lambda: ms.load(_exported_path())},
    "nn.GraphCell()": {"@params": pseudo("x"), "x": lambda: F(1, 3)},
    "ops.Custom": {"func": lambda: (lambda a: a * 2), "out_shape": lambda: (lambda s: s),
                   "out_dtype": lambda: (lambda t: t)},
    "ops.Custom()": {"@params": pseudo("x"), "x": lambda: F(2, 3)},
})
BUILD.update({
    "nn.GraphCell": lambda: nn.GraphCell(ms.load(_exported_path())),
    "ops.Custom": lambda: ops.Custom(lambda a: a * 2, lambda s: s, lambda t: t),
})
# -- issue 17, train (FlopsUtilizationCollector): a valid constructor example
EXAMPLES.update({"ms.FlopsUtilizationCollector": {"data_size": lambda: 2}})

# issue 17, summary files (train: SummaryRecord / SummaryCollector): a folder to write into.
EXAMPLES.update({
    "ms.SummaryRecord": {"log_dir": lambda: os.path.join(TMP, "summary")},
    "ms.SummaryCollector": {"summary_dir": lambda: os.path.join(TMP, "summary")},
    "ms.SummaryLandscape": {"summary_dir": lambda: os.path.join(TMP, "summary")},
})


# issue 17, top level / train (strategy): the checkpoints of a parallel run; valid examples on the fixture files
# recorded from MindSpore (tests/fixtures/strategy: "emb" cut unevenly over 2 ranks).
_STRATEGY_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "strategy")


def _strategy_net():
    class EmbNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = ms.Parameter(ms.Tensor(np.zeros((5, 2), np.float32)), name="emb")

    return EmbNet()


EXAMPLES.update({
    "ms.build_searched_strategy": {"strategy_filename": lambda: os.path.join(_STRATEGY_DIR, "strategy4.ckpt")},
    "ms.restore_group_info_list": {"group_info_file_name": lambda: os.path.join(_STRATEGY_DIR, "group_info.pb")},
    "ms.get_ckpt_path_with_strategy": {
        "cur_ckpt_path": lambda: os.path.join(_STRATEGY_DIR, "backup", "rank_0", "net.ckpt"),
        "cur_strategy_path": lambda: os.path.join(_STRATEGY_DIR, "strategy_dp.ckpt")},
    "ms.load_distributed_checkpoint": {
        "network": _strategy_net,
        "checkpoint_filenames": lambda: [os.path.join(_STRATEGY_DIR, f"rank_{r}", "net.ckpt") for r in (0, 1)],
        "train_strategy_filename": lambda: os.path.join(_STRATEGY_DIR, "strategy_uneven.ckpt")},
})

# issue 17, top level / parallel (unified safetensors): per-rank safetensors recorded with MindSpore
# (tests/fixtures/unified/dp: 4 ranks, axis 0 cut over one grid axis), merged into a fresh folder each call.
_UNIFIED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "unified")
EXAMPLES.update({
    "ms.unified_safetensors": {
        "src_dir": lambda: os.path.join(_UNIFIED_DIR, "dp", "src"),
        "src_strategy_file": lambda: os.path.join(_UNIFIED_DIR, "dp", "strategy.ckpt"),
        "dst_dir": lambda: tempfile.mkdtemp(dir=TMP)},
})


# -- enumerating the surface ----------------------------------------------------------------------------------
def _call_params(fn):
    """The parameters of a call: the named ones, or for ``lambda self, *args: op(*args)`` those of ``op``."""
    params = list(inspect.signature(fn).parameters.values())
    if params and params[0].name == "self":
        params = params[1:]
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        for cell in fn.__closure__ or ():
            inner = cell.cell_contents
            if inspect.isfunction(inner):
                return [p.replace(kind=POS) for p in _signature(inner) if p.kind is not KW], inner.__name__
    return [p for p in params if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)], None


def _public_names():
    """Names a message may use to say where: public ops, Primitive and nn classes, public methods."""
    names = {n for n in dir(ops) if not n.startswith("_") and (inspect.isfunction(getattr(ops, n))
                                                               or isinstance(getattr(ops, n), type))}
    names |= {n for n in dir(nn) if isinstance(getattr(nn, n), type)}
    for cls in (ms.Tensor, ms.Parameter, ms.ParameterTuple, nn.Cell):
        names |= {n for n in dir(cls) if not n.startswith("_")}
    names |= {n for n in ms.__all__ if callable(getattr(ms, n))} | {"initializer", "Tensor", "Parameter"}
    return names


PUBLIC_OPS = _public_names()
# Calls that run a whole network (or a user's function through a transform): an error from any op or layer
# inside may name that op or layer, as MindSpore names the primitive that refused.
NETWORK_CALLS = {"Cell.__call__", "Cell.construct", "Cell.compile", "Cell.compile_and_run", "Cell.run_construct",
                 "ms.grad()", "ms.value_and_grad()", "memory.profile", "ms.trace"}
INDEXING = {"Tensor.__getitem__", "Tensor.__setitem__", "ops.getitem", "ops.setitem", "Tensor.item"}
CELLKIT_DIR = os.path.dirname(ms.__file__)


def _callees(fn):
    """The cellkit functions ``fn``'s code calls by name (``reshape(...)`` or ``shape_mod.reshape(...)``)."""
    code, scope = fn.__code__, getattr(fn, "__globals__", {})
    found = []
    for name in code.co_names:
        obj = scope.get(name)
        if inspect.ismodule(obj) and obj.__name__.startswith("cellkit"):
            found += [getattr(obj, n) for n in code.co_names if inspect.isfunction(getattr(obj, n, None))]
        elif inspect.isfunction(obj):
            found.append(obj)
        for cls in (ms.Parameter, ms.Tensor, nn.Cell):  # ``p.clone(...)``, ``self.set_data(...)``
            method = getattr(cls, name, None) if not name.startswith("__") else None
            if inspect.isfunction(method):
                found.append(method)
    for cell in fn.__closure__ or ():
        if inspect.isfunction(cell.cell_contents):
            found.append(cell.cell_contents)
    return [f for f in found if f.__module__ and f.__module__.startswith("cellkit")]


def delegates(*fns, depth=3):
    """The public names a callable's code (and the cellkit helpers it calls, ``depth`` deep) refers to: an
    error raised there may name them, as MindSpore names the primitive that refused (e.g. "For 'MatMul'")."""
    found, seen = set(), set()
    todo = []
    for fn in fns:
        fn = getattr(fn, "__func__", fn)
        if isinstance(fn, type):
            todo += [(f, 0) for f in (fn.__init__, getattr(fn, "construct", None)) if inspect.isfunction(f)]
        elif inspect.isfunction(fn):
            todo.append((fn, 0))
    while todo:
        fn, level = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        found |= set(fn.__code__.co_names) & PUBLIC_OPS
        if fn.__name__ in PUBLIC_OPS:
            found.add(fn.__name__)
        if level < depth:
            todo += [(callee, level + 1) for callee in _callees(fn)]
    return found


def _catalogue_examples(id, params):
    """Valid values for ``ops.<name>`` from the op catalogue: its first sample, bound to the parameter names."""
    if not id.startswith("ops.") or id.endswith("()"):
        return {}
    name = id[len("ops."):]
    info = next((i for family in op_catalogue.families() for i in op_catalogue.load_family(family).OPS
                 if i.name == name), None)
    if info is None or not info.samples:
        return {}
    args = info.host_args(0)
    values = dict(zip([p.name for p in params if p.kind is not KW], args))
    values.update(info.samples[0].kwargs)
    return {k: (lambda v=v: to_tensors(v, ms, np)) for k, v in values.items()}


def _entry(id, area, make, params, names, code=()):
    override = EXAMPLES.get(id, {})
    params = override.get("@params", params)
    valid = _catalogue_examples(id, params)
    valid.update({k: v for k, v in override.items() if not k.startswith("@")})
    names = _names(*names, *delegates(*code), *override.get("@names", ()), params=params)
    for cls in code:
        if isinstance(cls, type):  # a base class's __init__ may raise for its subclass
            names |= {k.__name__ for k in cls.__mro__ if k is not object}
    if id.endswith("()") or id in NETWORK_CALLS:
        names |= PUBLIC_OPS
    if id in INDEXING:
        names |= {"index"}
    return Entry(id, area, make, params, valid, names, EXTRA_ERRORS.get(id, ()))


def _function_entries(area, prefix, namespace, names):
    seen, out = set(), []
    for name in sorted(names):
        fn = getattr(namespace, name)
        if not inspect.isfunction(fn) or id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append(_entry(f"{prefix}.{name}", area, (lambda fn=fn: (fn, None)), _signature(fn), (name, fn.__name__),
                          code=(fn,)))
    return out


def _class_entries(area, prefix, namespace, names, build_call=True):
    """A constructor entry per class, and a call entry on a built instance where instances are callable."""
    seen, out = set(), []
    for name in sorted(names):
        cls = getattr(namespace, name)
        if not isinstance(cls, type) or id(cls) in seen or name in NOT_BUILT:
            continue
        seen.add(id(cls))
        ctor_id = f"{prefix}.{name}"
        out.append(_entry(ctor_id, area, (lambda cls=cls: (cls, None)), _signature(cls), (name,), code=(cls,)))
        if not build_call or ctor_id in NO_CALL:
            continue
        build = BUILD.get(ctor_id, cls)
        call = cls.construct if issubclass(cls, nn.Cell) else next(
            (vars(k)["__call__"] for k in cls.__mro__ if k is not object and "__call__" in vars(k)), None)
        if call is None:
            continue
        params, inner = _call_params(call)

        def make(build=build):
            obj = build()
            return obj, obj

        out.append(_entry(ctor_id + "()", area, make, params, (name, inner, "construct"), code=(call,)))
    return out


def _method_entries(area, cls_name, receiver, names):
    out = []
    for name in sorted(names):
        def make(name=name):
            obj = EXAMPLES.get(f"{cls_name}.{name}", {}).get("@receiver", receiver)()
            return getattr(obj, name), obj

        method = getattr(receiver(), name)
        params, inner = _call_params(method) if inspect.isfunction(getattr(method, "__func__", None)) or \
            inspect.isfunction(method) else (_signature(method), None)
        fn = getattr(method, "__func__", method)
        out.append(_entry(f"{cls_name}.{name}", area, make, params,
                          (name, f"{cls_name}.{name}", getattr(fn, "__name__", None), inner, cls_name,
                           type(receiver()).__name__), code=(fn,)))  # the receiver's class (a Cell's) says where
    return out


def _setter_entries(area, cls_name, receiver, cls):
    out = []
    for name, prop in sorted(vars(cls).items()):
        if isinstance(prop, property) and prop.fset is not None and not name.startswith("_"):
            def make(name=name):
                obj = receiver()
                return (lambda value: setattr(obj, name, value)), obj

            current = getattr(receiver(), name)
            entry = _entry(f"{cls_name}.{name}=", area, make, pseudo("value"), (name, f"{cls_name}.{name}"),
                           code=(prop.fset,))
            entry.valid.setdefault("value", lambda current=current: current)
            out.append(entry)
    return out


def _public_callables(cls, instance):
    return [n for n in dir(cls) if not n.startswith("_") and callable(getattr(instance, n, None))
            and not isinstance(getattr(cls, n, None), (property, type))]


OPERATORS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
             "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
             "__rmatmul__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__or__",
             "__getitem__", "__setitem__"]


def _ops_names():
    names = set()
    for module in vars(ops).values():
        if inspect.ismodule(module) and module.__name__.startswith("cellkit.ops."):
            names.update(getattr(module, "__all__", ()))
    return names


def build_surface():
    surface = []
    op_names = _ops_names() & set(dir(ops))
    surface += _function_entries("ops functions", "ops", ops, [n for n in op_names if n[0].islower()])
    surface += _class_entries("ops Primitives", "ops", ops,
                              [n for n in op_names if n[0].isupper() and isinstance(getattr(ops, n), type)
                               and issubclass(getattr(ops, n), primitive_mod.Primitive)])
    tensor_names = _public_callables(ms.Tensor, F(2, 3)) + OPERATORS
    surface += _method_entries("Tensor methods", "Tensor", lambda: F(2, 3), tensor_names)
    param = lambda: ms.Parameter(F(2, 3), name="w")  # noqa: E731
    own = [n for n in vars(ms.Parameter) if not n.startswith("_") and callable(getattr(param(), n, None))
           and not isinstance(vars(ms.Parameter)[n], property)]
    surface += _method_entries("Parameter methods", "Parameter", param, own)
    surface += _setter_entries("Parameter methods", "Parameter", param, ms.Parameter)
    ptuple = lambda: ms.ParameterTuple([ms.Parameter(F(2), name="a"), ms.Parameter(F(3), name="b")])  # noqa: E731
    surface += _method_entries("Parameter methods", "ParameterTuple", ptuple,
                               [n for n in vars(ms.ParameterTuple) if not n.startswith("_")
                                and inspect.isfunction(vars(ms.ParameterTuple)[n])])
    surface += _method_entries("Cell methods", "Cell", Net, _public_callables(nn.Cell, Net()) +
                               ["__call__", "__setattr__"])
    surface += _class_entries("nn layers, losses, optimizers", "nn", nn,
                              [n for n in dir(nn) if isinstance(getattr(nn, n), type)])
    surface += _class_entries("initializers", "initializer", init_mod, init_mod.__all__, build_call=False)
    surface += _function_entries("initializers", "initializer", init_mod, init_mod.__all__)
    top = [n for n in ms.__all__ if callable(getattr(ms, n)) and not inspect.ismodule(getattr(ms, n))
           and not isinstance(getattr(ms, n), ms.DType)]
    surface += _function_entries("top level: context, transforms, checkpoints", "ms", ms, top)
    surface += _class_entries("top level: context, transforms, checkpoints", "ms", ms,
                              [n for n in top if isinstance(getattr(ms, n), type)])
    for name in ("grad", "value_and_grad"):  # the function a transform returns, called
        surface.append(_entry(f"ms.{name}()", "top level: context, transforms, checkpoints",
                              (lambda name=name: (BUILD[f"ms.{name}"](), None)), [], (name, "grad")))
    surface += _function_entries("top level: context, transforms, checkpoints", "memory", memory, ["profile"])
    return surface


SURFACE = build_surface()
BY_ID = {e.id: e for e in SURFACE}


# -- corruptions ----------------------------------------------------------------------------------------------
class Opaque:
    """An object of no type any API accepts."""

    def __repr__(self):
        return "<Opaque object>"


def fresh(*values):
    """One of ``values``, rebuilt for every draw (a call may mutate what it was given)."""
    return st.sampled_from(range(len(values))).map(lambda i: copy.deepcopy(values[i]))


WRONG_TYPES = fresh("abc", {"key": 1}, Opaque(), ["a", "b"])
HUGE_DIM = 10 ** 12


def _tensor_like(shape, dtype=np.float32, fill=None):
    if fill is None:
        return F(*shape, dtype=dtype)
    return ms.Tensor(np.full(shape, fill, dtype=dtype))


def _tensor_corruptions(v):
    shape = tuple(d if d >= 0 else 2 for d in v.shape)  # a placeholder's dynamic dimension (-1) as 2
    small_shapes = st.lists(st.integers(1, 4), min_size=0, max_size=5).map(tuple).filter(lambda s: s != shape)
    return {
        "wrong shape": small_shapes.map(_tensor_like),
        "wrong dtype": st.one_of(
            st.sampled_from([np.int32, np.int64, np.bool_, np.float16, np.float64]).map(
                lambda d: ms.Tensor(np.ones(shape, d))),
            st.just(np.ones(shape, np.complex64)), st.just(np.array(["a"] * max(1, int(np.prod(shape)))))),
        "empty": st.sampled_from([(0,), (0, 3), shape[:-1] + (0,) if shape else (0,)]).map(_tensor_like),
        "NaN / inf": st.sampled_from([np.nan, np.inf, -np.inf]).map(lambda f: _tensor_like(shape, fill=f)),
        "huge values": st.sampled_from([(np.float32, 3e38), (np.float64, 1e308), (np.int64, 2 ** 62)]).map(
            lambda d: _tensor_like(shape, d[0], d[1])),
        "placeholder": st.just(None).map(lambda _: _placeholder()),
    }


def _int_corruptions(name):
    out = {
        "huge values": st.sampled_from([2 ** 63, -(2 ** 63), HUGE_DIM, 1e308]),
        "wrong type": st.sampled_from([2.5, "1", True]),
        # Small values anywhere, huge ones only far beyond any machine's memory (never a real allocation).
        "out of range": st.one_of(st.integers(-64, 64), st.sampled_from([10 ** 13, 2 ** 70, -(2 ** 70)])),
    }
    if name in AXIS_NAMES:
        out["out of range"] = st.sampled_from([99, -99, 5, -5])
    return out


def _float_corruptions():
    return {"NaN / inf": st.sampled_from([math.nan, math.inf, -math.inf]),
            "huge values": st.sampled_from([1e308, -1e308, 2 ** 63]),
            "out of range": st.floats(allow_nan=True, allow_infinity=True)}


def _shape_corruptions():
    return {
        "empty": fresh((), [], (0,)),
        "huge values": st.sampled_from([(HUGE_DIM,), (HUGE_DIM, HUGE_DIM), (2, 2 ** 63)]),
        "out of range": st.one_of(st.sampled_from([(-1,), (-5, 2), (99,), (-3,)]),
                                  st.lists(st.integers(-3, 6), min_size=1, max_size=4).map(tuple)),
        "wrong type": fresh((2.5,), ("a",), ((1,),), (None,), 2.5, "2,3"),
    }


def _sequence_corruptions(make):
    """Bad lists of tensors, each built fresh from ``make()`` (the valid list)."""
    def swap_second(bad):
        return st.builds(lambda: [v if i != 1 else bad() for i, v in enumerate(make())] if len(make()) > 1
                         else [make()[0], bad()])
    return {
        "empty": st.builds(list),
        "wrong shape": swap_second(lambda: F(5, 7)),
        "wrong dtype": swap_second(lambda: np.ones((2, 3), np.complex64)),
        "wrong type": st.one_of(swap_second(lambda: "abc"), swap_second(lambda: None),
                                st.builds(lambda: tuple(make()[:1]) * 7)),
    }


def corruption_kinds(entry, param):
    """{category: strategy} of bad values for ``param`` of ``entry``, judged from a valid value."""
    try:
        v = entry.value(param)
    except LookupError:
        v = None
    kinds = {"wrong type": WRONG_TYPES}
    if param.default is not None:  # None is valid where it is the default
        kinds["None"] = st.none()
    if isinstance(v, ms.Tensor):
        kinds.update(_tensor_corruptions(v))
        kinds["wrong type"] = st.one_of(WRONG_TYPES, fresh(2 ** 63, [[1.0], [2.0, 3.0]]))
    elif isinstance(v, bool):
        kinds["wrong type"] = st.one_of(WRONG_TYPES, st.sampled_from([2, 0.5]))
    elif isinstance(v, int) or (v is None and param.name in AXIS_NAMES):
        kinds.update(_int_corruptions(param.name))
    elif isinstance(v, float):
        kinds.update(_float_corruptions())
    elif isinstance(v, str):
        kinds["out of range"] = st.one_of(st.sampled_from(["", "nonsense"]), st.text(max_size=6))
        kinds["wrong type"] = st.one_of(WRONG_TYPES.filter(lambda w: not isinstance(w, str)), st.just(3))
    elif isinstance(v, (tuple, list)) and v and all(isinstance(d, ms.Tensor) for d in v):
        kinds.update(_sequence_corruptions(lambda: entry.value(param)))
    elif isinstance(v, (tuple, list)) and all(isinstance(d, int) for d in v) or \
            (v is None and param.name in SHAPE_NAMES):
        kinds.update(_shape_corruptions())
    elif isinstance(v, ms.DType) or param.name in ("dtype", "dst_type", "type"):
        kinds["wrong dtype"] = st.sampled_from(["nonsense", np.complex64, "complex64", 3, float])
    elif isinstance(v, dict):
        kinds["wrong type"] = st.one_of(fresh({"fc.weight": "abc"}, "abc"), st.builds(lambda: {3: F(2)}),
                                        st.builds(lambda: {"fc.weight": F(5, 5)}))
    return kinds


# -- judging an outcome ---------------------------------------------------------------------------------------
def evidence(value, depth=0):
    """Strings any one of which, in a message, shows what was given."""
    out = {type(value).__name__}
    if isinstance(value, (ms.Tensor, np.ndarray)):
        shape = tuple(value.shape)
        out |= {str(shape), str(list(shape)), str(shape).replace(" ", ""), str(list(shape)).replace(" ", "")}
        out |= {str(value.dtype), getattr(value.dtype, "name", "")}
        if isinstance(value, np.ndarray) and value.dtype.kind in "cUSO":
            out |= {"complex", "str", "string"}
        ndim = len(shape)
        out |= {f"{ndim} dimensions", f"{ndim} axes", f"rank {ndim}", f"{ndim}-D", f"ndim {ndim}", f"ndim={ndim}"}
        if ndim == 0:
            out |= {"scalar", "0-d"}
        if isinstance(value, ms.Tensor) and value._data is None:
            out |= {"placeholder", "no data"}
        elif value.size and np.asarray(value).dtype.kind in "fiub":
            host = np.asarray(value)
            out |= {str(host.min().item()), str(host.max().item()), repr(host.min().item())}
            if host.dtype.kind == "f" and not np.isfinite(host).all():
                out |= {"nan", "inf"}
    elif isinstance(value, float):
        out |= {repr(value), str(value), f"{value:g}"}
    elif isinstance(value, (bool, int)):
        out |= {repr(value), str(value)}
    elif value is None:
        out |= {"None", "required", "missing"}
    elif isinstance(value, str):
        out |= {repr(value), value} if value else {"''", '""', "empty"}
    elif isinstance(value, (tuple, list, dict)):
        out |= {repr(value), str(value), repr(list(value)), repr(tuple(value)), "empty" if not value else "",
                f"got {len(value)}"}
        if depth == 0:
            items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
            for key, item in items[:8]:
                out |= evidence(item, 1)
                if isinstance(value, dict):
                    out |= {repr(key), str(key)}
    elif isinstance(value, type):
        out |= {value.__name__, repr(value), str(value)}
    else:
        out.add(repr(value))
    return {e for e in out if e}


def _mentions(message, word):
    pattern = re.escape(word)
    if word[:1].isalnum():
        pattern = r"(?<!\w)" + pattern
    if word[-1:].isalnum():
        pattern += r"(?!\w)"
    return re.search(pattern, message, re.IGNORECASE) is not None


def _names_where(message, names):
    """The message points at the call: a name quoted, as ``name:`` / ``name(`` / ``.name``, or a class name."""
    for n in names:
        e = re.escape(n)
        if re.search(rf"['\"`]{e}['\"`]|(?<![\w.]){e}[:(=\[]|\.{e}\b|^{e}\b", message):
            return True
        if n[:1].isupper() and re.search(rf"\b{e}\b", message):
            return True
    return False


EXPECTATION = re.compile(
    r"must|expect|should|need|only|cannot|can't|can not|not |invalid|unsupport|range|at most|at least|\bno\b|"
    r"unknown|too |exceed|allowed|support|require|mismatch|match|instead|empty|duplicate|already|missing|"
    r"smaller|larger|greater|less than|more than|fit|bounds|\bbut\b",
    re.IGNORECASE)


def raised_by_caller(exc):
    """True if ``exc`` came from the caller's own code (a function or hook the walk passed in), not cellkit."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and not tb.tb_frame.f_code.co_filename.startswith(CELLKIT_DIR)


def judge(entry, exc, value):
    """Why ``exc`` (raised for bad ``value``) breaks the rules, or None."""
    kind = type(exc)
    if raised_by_caller(exc):
        return None  # the user's own function refused the value: its error is theirs to word
    if kind.__module__.split(".")[0] == "numpy":
        return f"a NumPy exception leaked: {kind.__name__}: {exc}"
    if not isinstance(exc, SPEC_ERRORS + entry.extra_errors):
        return f"{kind.__module__}.{kind.__name__} is not a type the spec names: {exc}"
    message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    message = str(message)
    if not _names_where(message, entry.names):
        return f"{kind.__name__} does not say where (none of {sorted(entry.names)}): {message!r}"
    # Inside a network the value reaching the op that refused is what its message can show (a layer's output,
    # not the input the walk corrupted), as MindSpore's messages show the failing primitive's inputs.
    network = entry.id.endswith("()") or entry.id in NETWORK_CALLS
    shown = any(_mentions(message, e) for e in evidence(value))
    if not (isinstance(exc, NotImplementedError) or network or shown):
        return f"{kind.__name__} does not say what was given ({_short(value)}): {message!r}"
    if not EXPECTATION.search(message):
        return f"{kind.__name__} does not say what was expected: {message!r}"
    return None


def _short(value):
    if isinstance(value, (ms.Tensor, np.ndarray)):
        return f"{type(value).__name__}{tuple(value.shape)} {value.dtype}"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}[{', '.join(_short(v) for v in value[:4])}]"
    text = f"{type(value).__name__} {value!r}"
    return text if len(text) < 80 else text[:77] + "..."


def snapshot(obj):
    """What a refused call must leave unchanged: values, dtypes, names of a Tensor / Parameter / Cell."""
    if isinstance(obj, ms.Tensor):
        data = None if obj._data is None else obj.asnumpy().tobytes()
        return (type(obj), obj.shape, str(obj.dtype), data, getattr(obj, "name", None),
                getattr(obj, "requires_grad", None))
    if isinstance(obj, nn.Cell):
        params = [(n, snapshot(p)) for n, p in obj.parameters_and_names()]
        cells = [n for n, _ in obj.cells_and_names()]
        buffers = [(n, snapshot(b)) for n, b in obj.named_buffers()] if hasattr(obj, "named_buffers") else []
        return (params, cells, buffers, obj.training)
    return None


def consume(result):
    """Iterate a returned generator, so errors it defers still count as the call's."""
    if inspect.isgenerator(result):
        list(result)


class _State:
    """Global settings a call may change (context, seed, backend), put back after it."""

    def __enter__(self):
        self.context = dict(ms.context._settings)
        self.backend = ms.backend._current
        self.seed = ms.get_seed()
        return self

    def __exit__(self, *exc):
        ms.backend._current = self.backend
        if ms.get_context("mode") != self.context["mode"]:
            ms.set_context(mode=self.context["mode"])
        ms.context._settings.clear()
        ms.context._settings.update(self.context)
        if self.seed is not None:
            ms.set_seed(self.seed)
        return False


class _InScratchFolder:
    """Run in the walk's scratch folder: a file name drawn by hypothesis lands there, not in the repository."""

    def __enter__(self):
        self.previous = os.getcwd()
        os.chdir(TMP)

    def __exit__(self, *exc):
        os.chdir(self.previous)
        return False


def attempt(entry, param=None, value=None):
    """Run one call; returns (exception or None, lost: bool)."""
    with _State(), _InScratchFolder(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn, receiver = entry.make()
        args, kwargs = entry.call_args(param, value) if param is not None else entry.call_args()
        watched = [receiver] + [a for a in list(args) + list(kwargs.values())
                                if isinstance(a, (ms.Tensor, nn.Cell)) and a is not value]
        before = [snapshot(w) for w in watched]
        try:
            consume(fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001  (judged by the caller)
            return exc, [snapshot(w) for w in watched] != before
    return None, False


HUGE_VALUE_BUDGET = 64 * 2 ** 20  # bytes a call given a huge size may allocate (it should refuse first)


def attempt_traced(entry, param, value):
    """:func:`attempt` under tracemalloc: ``(exception, lost, peak bytes)`` (peak 0 if tracing is taken)."""
    if tracemalloc.is_tracing():
        return (*attempt(entry, param, value), 0)
    tracemalloc.start()
    try:
        exc, lost = attempt(entry, param, value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return exc, lost, peak


# -- the walk -------------------------------------------------------------------------------------------------
# (callable id, parameter) pairs not held to the rules, each with why.  Keep it short.
ALLOWLIST = {
    ("Cell.__setattr__", "name"): "only a direct __setattr__ call passes a non-str name (setattr() and "
                                  "`cell.x = ...` refuse it first); object.__setattr__ then raises Python's TypeError",
}

# Each example corrupts every (parameter, category) pair once; CELLKIT_API_WALK_EXAMPLES=30 walks deeper.
EXAMPLES_PER_CALLABLE = int(os.environ.get("CELLKIT_API_WALK_EXAMPLES", "5"))
TALLY = reliability.tally(__name__)


def corruptible(entry):
    return [p for p in entry.params if (entry.id, p.name) not in ALLOWLIST]


@pytest.mark.parametrize("entry", SURFACE, ids=lambda e: e.id)
def test_api_walk_valid_example_runs(entry):
    """The walk's valid arguments are valid: the call succeeds (else the table, not the API, is wrong)."""
    exc, _ = attempt(entry)
    TALLY.add(entry.area, inputs_tried=1, failures=int(exc is not None))
    if exc is not None:
        raise AssertionError(f"{entry.id} with its valid example raised {type(exc).__name__}: {exc}") from exc


@pytest.mark.parametrize("entry", SURFACE, ids=lambda e: e.id)
def test_api_walk_bad_input_ends_in_a_clear_error(entry):
    pairs = [(p, category, strategy) for p in corruptible(entry)
             for category, strategy in corruption_kinds(entry, p).items()]
    problems = {}
    counts = {"calls": 0, "lost": 0}

    @settings(max_examples=EXAMPLES_PER_CALLABLE, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def walk(data):
        for param, category, strategy in pairs:
            value = data.draw(strategy, label=f"{param.name} ({category})")
            if category == "huge values":  # refused before allocating: traced memory stays small
                exc, lost, peak = attempt_traced(entry, param.name, value)
                if peak > HUGE_VALUE_BUDGET:
                    problems.setdefault((param.name, category, "allocated"), f"{param.name}={_short(value)} "
                                        f"[{category}]: {peak / 2 ** 20:.0f} MiB allocated by the call")
            else:
                exc, lost = attempt(entry, param.name, value)
            counts["calls"] += 1
            counts["lost"] += lost
            why = judge(entry, exc, value) if exc is not None else None
            if lost:
                why = (why + "; and " if why else "") + "the refused call changed its receiver or arguments"
            if why:
                problems.setdefault((param.name, category, why[:60]), f"{param.name}={_short(value)} "
                                    f"[{category}]: {why}")

    walk()
    TALLY.add(entry.area, inputs_tried=counts["calls"], faults_injected=counts["calls"],
              failures=len(problems), lost=counts["lost"])
    assert not problems, f"{entry.id}:\n  " + "\n  ".join(problems.values())


def test_api_walk_covers_the_public_surface():
    """The enumeration finds every area, and each callable has at least one argument to corrupt or none at all."""
    areas = {e.area for e in SURFACE}
    assert {"ops functions", "ops Primitives", "Tensor methods", "Parameter methods", "Cell methods",
            "nn layers, losses, optimizers", "initializers", "top level: context, transforms, checkpoints"} <= areas
    ids = set(BY_ID)
    for must in ("ops.add", "ops.conv2d", "ops.Add()", "Tensor.reshape", "Tensor.__getitem__", "Parameter.set_data",
                 "Parameter.name=", "Cell.insert_child_to_cell", "Cell.__call__", "nn.Dense", "nn.Dense()",
                 "nn.SGD()", "ms.save_checkpoint", "ms.load_checkpoint", "ms.load_param_into_net", "ms.trace",
                 "memory.profile", "initializer.initializer"):
        assert must in ids, must
    assert len(SURFACE) > 350
    for (entry_id, _), why in ALLOWLIST.items():
        assert entry_id in ids and why


