"""``FlopsUtilizationCollector``: how busy a training step keeps the hardware (MFU and HFU).

After the first step the callback counts the step's floating-point
operations from the graph GRAPH_MODE compiled (:mod:`cellkit.train.flop_count`)
and prints them once; then, every ``data_size`` steps, it prints the step's
time and two utilizations against the peak ``computility`` (FLOP/s) of one
device:

- MFU, model FLOPs utilization: forward + backward FLOPs per second / peak;
- HFU, hardware FLOPs utilization: the same with the forward work that
  recompute repeats.

>>> from cellkit.train import FlopsUtilizationCollector
>>> FlopsUtilizationCollector(4, computility=1e12).data_size
4
"""
from __future__ import annotations

import logging
import math
import os
import stat
import time

from .. import context as _context
from ..graph import runtime as _graph_runtime
from .callback import Callback
from .flop_count import count_flops

__all__ = ["FlopsUtilizationCollector"]

_log = logging.getLogger("cellkit.train")


def _floored_percent(value):
    """``value`` as a percentage rounded down to two decimals: 0.123456 -> '12.34%'."""
    return f"{math.floor(value * 10 ** 4) / 10 ** 2:.2f}%"


class FlopsUtilizationCollector(Callback):
    """Print a training step's FLOPs and the model / hardware FLOPs utilization (MFU / HFU).

    Works on a network trained in GRAPH_MODE (``ms.set_context(mode=ms.GRAPH_MODE)``):
    the FLOPs are counted once, from the compiled graph, at the end of the
    first step.  Counted are matrix products (``nn.Dense``, ``ops.matmul``,
    ``ops.BatchMatMul`` ...) and 1-D / 2-D convolutions, forward and backward
    (see :mod:`cellkit.train.flop_count`).

    At the end of the first step it prints ``Full model flops is M, Full
    hardware flops is H, Shard model flops is M, Shard hardware flops is H.``
    (one process holds the whole model, so full and shard agree; with
    ``full_flops=False`` only the shard half).  At the first step and every
    ``data_size`` steps after it, it prints ``Train per step time: T ms
    mfu:U% hfu:V%``, where ``U = M / T / computility`` (rounded down).  In
    ``Model.eval`` the same lines say ``Eval`` and count the forward pass.

    Parameters
    ----------
    data_size : int
        Steps between two utilization lines (often the dataset's size: one
        line per epoch).
    computility : int or float
        The peak FLOP/s of one device (the default 1 makes the utilization a
        raw FLOP/s figure, as a percentage).
    full_flops : bool
        Print the whole model's figures (True) or only this device's shard.
    enable_ma_collector : bool
        Also write the figures to ``flops_rank_0.txt`` and the step time to
        ``time_step_rank_0.txt`` in the folder ``$MA_LOG_DIR`` (default: the
        working folder).  With ``computility=1`` nothing is printed then.

    Raises
    ------
    TypeError
        ``data_size`` not an int, ``computility`` not a number, ``full_flops``
        or ``enable_ma_collector`` not a bool.
    ValueError
        ``data_size`` or ``computility`` not positive; at the end of the first
        step, a network that was not trained in GRAPH_MODE or whose graph
        could not be compiled.

    Examples
    --------
    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> from cellkit.train import Model, FlopsUtilizationCollector
    >>> ms.set_context(mode=ms.GRAPH_MODE)
    >>> data = ms.dataset.NumpySlicesDataset({"x": np.ones((64, 10), np.float32),
    ...                                       "y": np.zeros(64, np.int32)}, shuffle=False).batch(32)
    >>> net = nn.SequentialCell(nn.Dense(10, 7), nn.ReLU(), nn.Dense(7, 5))
    >>> model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
    ...               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    >>> model.train(1, data, callbacks=[FlopsUtilizationCollector(data.get_dataset_size(), computility=1e9)])
    ... # doctest: +ELLIPSIS
    Full model flops is 15680.0, Full hardware flops is 15680.0, Shard model flops is 15680.0, Shard hardware flops is 15680.0.
    Train per step time: ... ms mfu:...% hfu:...%
    >>> ms.set_context(mode=ms.PYNATIVE_MODE)
    """

    def __init__(self, data_size, computility=1, full_flops=True, enable_ma_collector=False):
        for name, value in (("full_flops", full_flops), ("enable_ma_collector", enable_ma_collector)):
            if not isinstance(value, bool):
                raise TypeError(f"The '{name}' must be a bool, but got {type(value).__name__}.")
        if isinstance(data_size, bool):
            raise TypeError(f"The 'data_size' must be int and must > 0, but got '{data_size}' with type 'bool'.")
        if not isinstance(data_size, int):
            raise TypeError(f"The 'data_size' must be int, but got '{type(data_size).__name__}'")
        if data_size <= 0:
            raise ValueError(f"The 'data_size' must be int and must > 0, but got '{data_size}' with type 'int'.")
        if isinstance(computility, bool) or not isinstance(computility, (int, float)):
            raise TypeError(f"For 'FlopsUtilizationCollector', 'computility' (the peak FLOP/s of a device) must be "
                            f"an int or a float, but got {type(computility).__name__}.")
        if not 0 < computility < math.inf:
            raise ValueError(f"For 'FlopsUtilizationCollector', 'computility' must be a positive finite number, "
                             f"but got {computility}.")
        self.data_size = data_size
        self.computility = computility
        self.full_flops = full_flops
        self.ma = enable_ma_collector
        # as MindSpore: writing the figures for a cloud collector with the default peak prints nothing
        self.verbose = not (computility == 1 and enable_ma_collector)
        self.model_flops = self.hardware_flops = None  # the step's FLOPs, once counted
        self.step_time = time.time()
        self._time_step_path = None

    def step_begin(self, run_context):
        """Note when the step starts."""
        self.step_time = time.time()

    def step_end(self, run_context):
        """Count the FLOPs after the first step; print the utilization every ``data_size`` steps."""
        step_ms = (time.time() - self.step_time) * 1000
        cb_params = run_context.original_args()
        if self.model_flops is None:
            if not self._count(cb_params):
                return
            self._report_flops()
        if self.ma:
            self._write(self._time_step_path,
                        f'time_monitor{{type="per_step_time", rank_id="0"}} {step_ms} {_now_ms()}\n')
        # MindSpore 2.10 prints at the steps that are *not* multiples of data_size (never, for data_size=1);
        # cellkit prints at the first step and every data_size steps after it, as MindSpore documents.
        if self.verbose and (cb_params.cur_step_num - 1) % self.data_size == 0:
            per_second = 1000 / max(step_ms, 1e-6) / self.computility  # a clock that did not move: 1 ns
            print(f"{cb_params.mode.title()} per step time: {step_ms:5.3f} ms"
                  f" mfu:{_floored_percent(self.model_flops * per_second)}"
                  f" hfu:{_floored_percent(self.hardware_flops * per_second)}", flush=True)

    # -------------------------------------------------------------------------------------------------------
    def _count(self, cb_params):
        """Count the step's FLOPs from the compiled graph; False (after logging) where that is impossible."""
        try:
            self.model_flops, self.hardware_flops = _step_flops(cb_params)
        except ValueError as exc:
            if self.verbose:
                raise
            _log.info("%s", exc)
            return False
        return True

    def _report_flops(self):
        model, hardware = float(self.model_flops), float(self.hardware_flops)
        if self.ma:
            folder = os.path.realpath(os.getenv("MA_LOG_DIR", "./"))
            self._time_step_path = os.path.join(folder, "time_step_rank_0.txt")
            stamp = _now_ms()
            self._write(os.path.join(folder, "flops_rank_0.txt"),
                        f'flops{{type="model_flops", rank_id="0"}} {model} {stamp}\n'
                        f'flops{{type="hardware_flops", rank_id="0"}} {hardware} {stamp}\n')
        if not self.verbose:
            return
        shard = f"Shard model flops is {model}, Shard hardware flops is {hardware}."
        if self.full_flops:
            # One process holds the whole model: the full figures are the shard's.  (MindSpore 2.10 divides
            # them by the peak and multiplies back, printing 15679.999999999998 for 15680 with a peak of 1e9.)
            shard = f"Full model flops is {model}, Full hardware flops is {hardware}, " + shard
        print(shard, flush=True)

    @staticmethod
    def _write(path, text):
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        with os.fdopen(os.open(path, flags, stat.S_IWUSR | stat.S_IRUSR), "w") as file:
            file.write(text)


def _now_ms():
    return int(round(time.time() * 1000))


def _step_flops(cb_params):
    """``(model FLOPs, hardware FLOPs)`` of one step of the run ``cb_params`` describes."""
    mode = cb_params.get("mode")
    if mode not in ("train", "eval"):
        raise ValueError("FlopsUtilizationCollector only support train and eval mode!")
    network = cb_params.train_network if mode == "train" else cb_params.eval_network
    if _context.get_context("mode") != _context.GRAPH_MODE or _graph_runtime.compiled_of(network) is None:
        raise ValueError("FlopsUtilizationCollector now only support graph mode.")
    batch = cb_params.get("train_dataset_element" if mode == "train" else "eval_dataset_element")
    graph, weights = _forward_graph(network, batch)
    if graph is None:
        raise ValueError(f"FlopsUtilizationCollector is not supported because {weights}.")
    count = count_flops(graph, weights, backward=weights is not None)
    return count.model, count.hardware


def _forward_graph(network, batch):
    """``(graph, weights)``: the compiled forward pass and the Parameters a step differentiates.

    A network compiled whole (evaluation, or training without an optimizer)
    has no backward: ``weights`` is None.  A training step (``TrainOneStepCell``
    and its kin) runs a gradient transform, which cellkit does not put in a
    graph: its ``network`` (the network with its loss) is the compiled
    forward pass, differentiated with respect to ``weights``; the first step
    traced it inside the step's own trace, so it is compiled here for
    ``batch`` (the cache keeps it: the next step runs it).  Where no graph
    exists, ``(None, reason)``.
    """
    entry = _graph_runtime.compiled_of(network)
    if entry.kind == "graph":
        return entry.graph, None
    inner = getattr(network, "network", None)
    inner_entry = _graph_runtime.compiled_of(inner) if inner is not None else None
    if inner_entry is None and inner is not None and batch is not None:
        _graph_runtime.build_graph(inner, *batch)
        inner_entry = _graph_runtime.compiled_of(inner)
    if inner_entry is None or inner_entry.kind != "graph" or inner_entry.graph is None:
        reason = getattr(inner_entry or entry, "reason", "the network it trains was not compiled")
        return None, reason
    weights = getattr(network, "weights", None)
    if weights is None:
        weights = inner.trainable_params()
    return inner_entry.graph, [w for w in weights if w.requires_grad]
