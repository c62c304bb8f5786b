"""``SummaryCollector``: the training callback that fills summary files in MindSpore's format.

The callback is built from four small pieces, each readable on its own:

- :class:`CollectPlan` -- *what* to collect: the user's ``collect_specified_data``
  switches, checked once in the constructor and kept as plain fields;
- :func:`tensor_steps` and :func:`due_plugins` -- *when* to collect: which
  steps get a full record, which only ``TensorSummary`` values, which nothing;
- :class:`StepReader` -- *what the step produced*: the loss, the optimizer and
  its learning rate, found in the values ``Model`` hands to callbacks;
- :func:`train_lineage` / :func:`eval_lineage` -- the lineage messages written
  at the end of a run.

The callback class itself only wires these to ``begin`` / ``step_end`` /
``epoch_end`` / ``end`` and to one :class:`SummaryRecord`.
"""
from __future__ import annotations

import json
import logging
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...parameter import Parameter
from ...tensor import Tensor
from ..callback import Callback
from .messages import message_class
from .record import SummaryRecord, _train_utils_type_check, check_export_options, make_directory

__all__ = ["SummaryCollector"]

_log = logging.getLogger("cellkit.train.summary")

# Environment variable through which MindInsight's tuner hands extra lineage data in, and its size limit.
_TUNER_ENV = "MINDINSIGHT_HYPER_CONFIG"
_TUNER_TEXT_LIMIT = 100000
# Without ``collect_tensor_freq``, TensorSummary values are kept for at most this many steps of a run.
_MAX_TENSOR_STEPS = 20
# Without ``histogram_regular``, this many parameters (the optimizer's first ones) get a histogram.
_HISTOGRAM_COUNT = 5

# The on/off switches of ``collect_specified_data``, in the order MindSpore documents them.
_BOOL_SWITCHES = ("collect_metric", "collect_graph", "collect_train_lineage", "collect_eval_lineage",
                  "collect_input_data", "collect_dataset_graph")
_LANDSCAPE_CREATE_DEFAULT = {"train": True, "result": True}


def _landscape_defaults():
    """The loss-landscape settings used when the user keeps the defaults (a fresh dict each call)."""
    return {"landscape_size": 40, "unit": "step", "num_samples": 2048,
            "create_landscape": dict(_LANDSCAPE_CREATE_DEFAULT),
            "intervals": [list(range(1, 10)), list(range(10, 20))]}


def _all_choices():
    """Every key of ``collect_specified_data`` with its default value."""
    choices = {switch: True for switch in _BOOL_SWITCHES}
    choices["histogram_regular"] = None
    choices["collect_landscape"] = _landscape_defaults()
    return choices


# ---------------------------------------------------------------------------------------------------- what to collect
@dataclass
class LandscapePlan:
    """Checked ``collect_landscape`` settings: where along training to save the network for a loss landscape."""

    size: int
    unit: str                  # "step" or "epoch"
    num_samples: int
    create: dict               # as the user gave it, written to the metadata unchanged
    intervals: list            # lists of step (or epoch) numbers

    def wants(self, unit, number):
        """True when the network should be saved at this ``number`` counted in ``unit``."""
        return self.unit == unit and any(number in group for group in self.intervals)

    @classmethod
    def from_user(cls, given, owner):
        """Check a non-empty ``collect_landscape`` dict and turn it into a plan (MindSpore's messages)."""
        known = _landscape_defaults()
        extra = set(given) - set(known)
        if extra:
            raise ValueError(f'For "{owner}", the keys {extra} of `collect_landscape` are '
                             f'unsupported, expect the follow keys: {list(known)}')
        size = given.get("landscape_size", known["landscape_size"])
        _train_utils_type_check("landscape_size", size, (int,))
        if not 3 <= size <= 256:
            raise ValueError(f'For "{owner}", the "landscape_size" in collect_specified_data '
                             f'should be less than 256 and more than 3, but got the: {size}')
        unit = given.get("unit", known["unit"])
        _train_utils_type_check("unit", unit, (str,))
        if unit not in ("step", "epoch"):
            raise ValueError(f'For "{owner}", unit in collect_specified_data should be step or '
                             f'epoch, but got the: {unit}.')
        samples = given.get("num_samples", known["num_samples"])
        _train_utils_type_check("num_samples", samples, (int,))
        create = given.get("create_landscape", dict(_LANDSCAPE_CREATE_DEFAULT))
        _train_utils_type_check("create_landscape", create, (dict,))
        for which, flag in create.items():
            if which not in ("train", "result"):
                raise ValueError(f'For "{owner}", the key to create landscape should be in '
                                 f'["train", "result"], but got the: {which}.')
            _train_utils_type_check(which, flag, (bool,))
        intervals = given.get("intervals")
        _train_utils_type_check("intervals", intervals, (list,))
        for group in intervals:
            _train_utils_type_check("each interval inintervals", group, (list,))
            if len(group) < 3:
                raise ValueError(f'For "{owner}", the length of each list in "intervals" should '
                                 f'not be less than three, but got the: {group}')
            bad = [number for number in group if not isinstance(number, int)]
            if bad:
                raise TypeError(f'For "{owner}", the value of each list in "intervals" '
                                f'should be int, but got the: {type(bad[0])}')
        return cls(size, unit, samples, create, intervals)


@dataclass
class CollectPlan:
    """What the collector records, decided once from ``collect_specified_data``.

    A switch turned off here stays off; ``input_data`` and ``loss`` are also
    turned off during a run when the data turns out not to fit (with a warning).
    """

    loss: bool = False
    graph: bool = False
    train_lineage: bool = False
    eval_lineage: bool = False
    input_data: bool = False
    dataset_graph: bool = False
    histograms: bool = False
    histogram_pattern: Optional[str] = None
    landscape: Optional[LandscapePlan] = None

    @classmethod
    def from_user(cls, specified, keep_default, owner):
        """Check the user's dict and merge it with the defaults (or not, when ``keep_default`` is False)."""
        _train_utils_type_check("collect_specified_data", specified, (dict, type(None)))
        choices = _all_choices() if keep_default else {}
        if specified is not None:
            cls._check_choices(specified, owner)
            choices.update(specified)
        landscape = choices.get("collect_landscape")
        _train_utils_type_check("collect_landscape", landscape, (dict, type(None)))
        return cls(loss=bool(choices.get("collect_metric")),
                   graph=bool(choices.get("collect_graph")),
                   train_lineage=bool(choices.get("collect_train_lineage")),
                   eval_lineage=bool(choices.get("collect_eval_lineage")),
                   input_data=bool(choices.get("collect_input_data")),
                   dataset_graph=bool(choices.get("collect_dataset_graph")),
                   histograms="histogram_regular" in choices,
                   histogram_pattern=choices.get("histogram_regular"),
                   landscape=LandscapePlan.from_user(landscape, owner) if landscape else None)

    @staticmethod
    def _check_choices(specified, owner):
        for key in specified:
            _train_utils_type_check(key, key, (str,))
        known = _all_choices()
        extra = set(specified) - set(known)
        if extra:
            raise ValueError(f'For "{owner}", the keys {extra} of `collect_specified_data` '
                             f'are unsupported, expect the follow keys: {list(known)}')
        if "histogram_regular" in specified:
            pattern = specified["histogram_regular"]
            _train_utils_type_check("histogram_regular", pattern, (str, type(None)))
            if pattern is not None:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError("For `collect_specified_data`, the value of `histogram_regular` is not a valid "
                                     f"regular expression. Detail: {exc}.") from exc
        for switch in _BOOL_SWITCHES:
            if switch in specified:
                _train_utils_type_check(switch, specified[switch], (bool,))


def _check_count(owner, name, value, may_be_none=False):
    """A positive int argument of the constructor (MindSpore's messages)."""
    if value is None and may_be_none:
        return value
    _train_utils_type_check(name, value, (int,))
    if value <= 0:
        raise ValueError(f'For "{owner}", the value of `{name}` should be greater than 0, '
                         f'but got `{value}`.')
    return value


# ---------------------------------------------------------------------------------------------------- user lineage
def _check_user_data(label, data):
    _train_utils_type_check(label, data, (dict, type(None)))
    for key, value in data.items():
        _train_utils_type_check(f"{label} -> {key}", key, (str,))
        _train_utils_type_check(f"the value of {label} -> {key}", value, (int, str, float))


def _tuner_data():
    """Lineage data that MindInsight's tuner passes in the environment; {} when absent or unreadable."""
    text = os.environ.get(_TUNER_ENV)
    if text is None:
        return {}
    if len(text) > _TUNER_TEXT_LIMIT:
        _log.warning("The 'MINDINSIGHT_HYPER_CONFIG' of environment variable is too long. The length limit is "
                     "%s, the length of hyper_config is %s.", _TUNER_TEXT_LIMIT, len(text))
        return {}
    try:
        decoded = json.loads(text)
    except (TypeError, ValueError) as exc:
        _log.warning("The 'MINDINSIGHT_HYPER_CONFIG' of environment variable decode error. Detail: %s.", exc)
        return {}
    found = decoded.get("custom_lineage_data") if isinstance(decoded, dict) else None
    return {} if found is None else dict(found)


def _user_lineage(custom):
    """The user's ``custom_lineage_data`` on top of the tuner's, both checked."""
    custom = {} if custom is None else custom
    _check_user_data("custom_lineage_data", custom)
    merged = _tuner_data()
    _check_user_data("auto_custom_lineage_data", merged)
    merged.update(custom)
    return merged


def _user_lineage_message(data):
    """A ``UserDefinedInfo`` message: one map entry per key, in the map that fits the value's type."""
    message = message_class("UserDefinedInfo")()
    for key, value in data.items():
        kind = "map_int32" if isinstance(value, int) else "map_double" if isinstance(value, float) else "map_str"
        getattr(message.user_info.add(), kind)[key] = value
    return message


# ---------------------------------------------------------------------------------------------------- when to collect
def tensor_steps(total, collect_freq, tensor_freq):
    """The step numbers (0..``total``) at which ``TensorSummary`` values are kept.

    With ``tensor_freq`` given: every ``tensor_freq`` steps. Otherwise the
    ``collect_freq`` steps, thinned out to at most ``_MAX_TENSOR_STEPS`` when a
    run is long, as tensors are large.

    >>> list(tensor_steps(50, 10, None))
    [0, 10, 20, 30, 40, 50]
    >>> len(tensor_steps(600, 10, None)), tensor_steps(600, 10, None)[1]
    (20, 31)
    """
    if tensor_freq is not None:
        return range(0, total + 1, tensor_freq)
    regular = range(0, total + 1, collect_freq)
    if len(regular) <= _MAX_TENSOR_STEPS:
        return regular
    stride = total // (_MAX_TENSOR_STEPS - 1)
    if stride > 1:
        return range(0, total + 1, stride)[:_MAX_TENSOR_STEPS]
    return range(0, total + 1)[:_MAX_TENSOR_STEPS + 1]


def _only_tensors(plugin):
    return plugin == "tensor"


def _no_tensors(plugin):
    return plugin != "tensor"


def due_plugins(number, collect_freq, tensor_range):
    """What to record at step (or epoch) ``number``.

    Returns ``(due, plugin_filter)``: ``due`` False means nothing; else
    ``plugin_filter`` is None (everything), or a predicate on the plugin name.
    """
    regular = number % collect_freq == 0
    tensors = number in tensor_range
    if regular and tensors:
        return True, None
    if tensors:
        return True, _only_tensors
    if regular:
        return True, _no_tensors
    return False, None


# ---------------------------------------------------------------------------------------------------- what the step produced
def _running_network(params):
    """The network Model runs in this mode (the training or the evaluation wrapper), or None."""
    return params.get("train_network") if params.mode == "train" else params.get("eval_network")


class StepReader:
    """Finds the loss and the optimizer in the values ``Model`` gives callbacks.

    A failure is warned about once and then remembered, so later steps are quiet.
    """

    def __init__(self):
        self.loss_readable = True
        self._optimizer = None
        self._optimizer_searched = False

    def loss(self, params):
        """The mean of the network's (first) output as a scalar Tensor, or None."""
        if not self.loss_readable:
            return None
        output = params.get("net_outputs")
        if output is None:
            _log.warning("Can not find any output by this network, so SummaryCollector will not collect loss.")
            self.loss_readable = False
            return None
        if isinstance(output, (list, tuple)) and len(output) > 0:
            output = output[0]
        elif not isinstance(output, (int, float, Tensor)):
            _log.warning("The output type could not be identified, expect type is one of [int, float, Tensor, list, "
                         "tuple], so no loss was recorded in SummaryCollector.")
            self.loss_readable = False
            return None
        host = output.asnumpy() if isinstance(output, Tensor) else Tensor(output).asnumpy()
        return Tensor(np.mean(host))

    def optimizer(self, params):
        """The run's optimizer (given to Model, or found inside the network), or None; searched once."""
        if self._optimizer_searched:
            return self._optimizer
        from ...nn.optim.optimizer import Optimizer

        found = params.get("optimizer")
        if found is None:
            network = _running_network(params)
            found = None if network is None else _find_optimizer(network, Optimizer)
        if not isinstance(found, Optimizer):
            _log.warning("Can not find optimizer in network, or the optimizer does not inherit MindSpore's "
                         "optimizer, so we will not collect data about optimizer in SummaryCollector.")
            found = None
        self._optimizer, self._optimizer_searched = found, True
        return found

    def learning_rate(self, optimizer):
        """The optimizer's learning rate as a float, or None (with a warning when it is not a Parameter)."""
        rate = getattr(optimizer, "learning_rate", None)
        if not isinstance(rate, Parameter):
            _log.warning("The learning rate detected in the optimizer is not a Parameter type, so it is not "
                         "recorded. Its type is %r.", type(rate).__name__)
            return None
        return float(np.atleast_1d(rate.asnumpy())[0])


def _find_optimizer(network, optimizer_type):
    """The first optimizer among the cells of ``network`` or held by one of them as ``.optimizer``."""
    for _path, cell in network.cells_and_names():
        for candidate in (cell, getattr(cell, "optimizer", None)):
            if isinstance(candidate, optimizer_type):
                return candidate
    return None


def _find_loss_fn(params):
    """The loss function given to Model, or the first loss cell inside the running network, or None."""
    given = params.get("loss_fn")
    if given is not None:
        return given
    from ...nn.loss import LossBase

    network = _running_network(params)
    cells = [] if network is None else (cell for _, cell in network.cells_and_names())
    return next((cell for cell in cells if isinstance(cell, LossBase)), None)


def _first_input(params):
    """The first input column of the step, or a warning text saying why there is none usable."""
    batch = params.get("train_dataset_element")
    if not isinstance(batch, (Tensor, list, tuple)):
        return None, ("The type of input data is not Tensor/list/tuple, so SummaryCollector will not collect "
                      "input data.")
    if isinstance(batch, Tensor):
        return batch, None
    if len(batch) == 0:
        return None, ("The 'train_dataset_element' in RunContext.original_args is empty, so SummaryCollector "
                      "will not record the input data.")
    return batch[0], None


# ---------------------------------------------------------------------------------------------------- lineage
def _dataset_facts(dataset):
    """(folder, batch size, sample count) of a dataset for the lineage; None for what is unknown."""
    folder = None
    node = dataset
    while node is not None and folder is None:
        source = getattr(node, "dataset_dir", None) or getattr(node, "dataset_files", None)
        if source:
            folder = source if isinstance(source, str) else list(source)[0]
        else:
            parents = getattr(node, "children", None)
            node = parents[0] if parents else None
    if folder and os.path.isfile(folder):
        folder = os.path.dirname(folder)
    try:
        batch_count, batch_size = dataset.get_dataset_size(), dataset.get_batch_size()
    except AttributeError:  # cellkit's Model also takes a plain list of batches
        return folder, None, None
    return folder, batch_size, int(batch_count * batch_size)


def _last_checkpoint(params):
    """The absolute path of the newest file a ModelCheckpoint callback of this run saved, or None."""
    from ..checkpoint_callback import ModelCheckpoint

    listed = params.get("list_callback")
    listed = getattr(listed, "callbacks", listed) or []
    savers = [callback for callback in listed if isinstance(callback, ModelCheckpoint)]
    newest = savers[-1].latest_ckpt_file_name if savers else None
    return os.path.realpath(newest) if newest else None


def train_lineage(params, reader):
    """The ``TrainLineage`` message of a finished training run."""
    message = message_class("TrainLineage")()
    loss = reader.loss(params)
    if loss is not None:
        message.algorithm.loss = float(np.atleast_1d(loss.asnumpy())[0])
    optimizer = reader.optimizer(params)
    rate = reader.learning_rate(optimizer) if optimizer is not None else None
    message.algorithm.network = type(params.network).__name__
    folder, batch_size, samples = _dataset_facts(params.get("train_dataset"))
    if folder is not None:
        message.train_dataset.train_dataset_path = folder
    if samples is not None:
        message.train_dataset.train_dataset_size = samples
    checkpoint = _last_checkpoint(params)
    message.model.path = json.dumps({"ckpt": checkpoint})
    message.model.size = os.path.getsize(checkpoint) if checkpoint else 0
    settings = message.hyper_parameters
    if rate is not None:
        settings.learning_rate = rate
    if optimizer is not None:
        settings.optimizer = type(optimizer).__name__
    loss_fn = _find_loss_fn(params)
    if loss_fn is not None:
        settings.loss_function = type(loss_fn).__name__
    settings.parallel_mode = params.get("parallel_mode", "stand_alone")
    settings.epoch = params.epoch_num
    settings.device_num = params.get("device_number", 1)
    if batch_size is not None:
        settings.batch_size = batch_size
    return message


def eval_lineage(params):
    """The ``EvaluationLineage`` message of a finished evaluation."""
    message = message_class("EvaluationLineage")()
    try:
        message.metric = json.dumps(params.get("metrics"))
    except TypeError as exc:
        _log.warning("Summary cannot collect the type of metrics, currently support type: dict, list, tuple, "
                     "str, int, float, bool and None. %s.", exc)
    folder, _, samples = _dataset_facts(params.get("valid_dataset"))
    if folder is not None:
        message.valid_dataset.valid_dataset_path = folder
    if samples is not None:
        message.valid_dataset.valid_dataset_size = samples
    return message


# ---------------------------------------------------------------------------------------------------- landscape files
def _landscape_network(train_network):
    """The user's network inside Model's training wrappers: its weights are what a landscape varies."""
    inner = next((cell._backbone for _, cell in train_network.cells_and_names() if hasattr(cell, "_backbone")),
                 train_network)
    while True:
        children = dict(inner.name_cells())
        if "network" not in children:
            return inner
        inner = inner.network
        if "optimizer" in children:  # a one-step training cell: what it wraps is the network
            return inner


class _LandscapeSaver:
    """Saves the network at the planned steps into ``<summary_dir>/ckpt_dir`` and, at the end, the metadata
    that :class:`SummaryLandscape` reads to draw the landscape."""

    def __init__(self, summary_dir, plan):
        self.plan = plan
        self.folder = os.path.join(summary_dir, "ckpt_dir")
        make_directory(self.folder, "path")
        self.saved = {}  # str(step or epoch) -> checkpoint path

    def save_network(self, params):
        from ...serialization import save_checkpoint

        if params.mode != "train":
            return
        network = _landscape_network(params.train_network)
        number = params.cur_epoch_num if self.plan.unit == "epoch" else params.cur_step_num
        path = os.path.join(self.folder, f"{type(network).__name__}_{number}_{self.plan.unit}.ckpt")
        self.saved[str(number)] = path
        if os.path.isfile(path):
            return
        weights = [{"name": weight.name, "data": Tensor(weight.asnumpy())} for weight in network.get_parameters()]
        try:
            save_checkpoint(weights, path)
        except OSError as exc:
            _log.error("%s", exc)

    def save_metadata(self, steps_per_epoch):
        path = os.path.join(self.folder, "train_metadata.json")
        if os.path.isfile(path):
            return
        metadata = {"epoch_group": {index: list(group) for index, group in enumerate(self.plan.intervals)},
                    "model_params_file_map": self.saved, "step_per_epoch": steps_per_epoch,
                    "unit": self.plan.unit, "num_samples": self.plan.num_samples,
                    "landscape_size": self.plan.size, "create_landscape": self.plan.create}
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(metadata, handle)
            os.chmod(path, stat.S_IRUSR)
        except OSError as exc:
            _log.error("Write meta data %s failed, detail: %s", path, exc)


# ---------------------------------------------------------------------------------------------------- the callback
class SummaryCollector(Callback):
    """A callback that records a training run into MindSpore summary files (for MindInsight).

    Given to ``Model.train`` / ``Model.eval``, it writes what MindSpore's
    ``SummaryCollector`` writes in one process, in the same files and format:

    - at the first step and every ``collect_freq`` steps (and again at each
      epoch end when that step is due): the loss (``loss/auto``, the mean of
      the network's first output), the first input column as an image when it
      is an NCHW batch (``input_data/auto``), histograms of the first five
      optimized parameters (``<name>/auto``; or of those matching
      ``histogram_regular``), and what ``ops.*Summary`` reported inside the
      network;
    - into the ``_lineage`` file: user data (``custom_lineage_data``) at the
      first step; at the end of training the optimizer, learning rate, loss
      function, epochs, batch size, dataset size, final loss and last
      checkpoint; at the end of an evaluation its metrics;
    - for the loss landscape (``collect_landscape``): the backbone's parameters
      as ``ckpt_dir/<Net>_<step>_step.ckpt`` at the steps of the intervals and
      ``ckpt_dir/train_metadata.json`` at the end.

    MindSpore also writes the compiled graph (GRAPH_MODE only) and the dataset
    pipeline; cellkit has neither in MindSpore's form and leaves them out.

    Parameters
    ----------
    summary_dir : str
        The folder for the files (created if missing).
    collect_freq : int
        Collect every this many steps (> 0); the first step always.
    num_process : int
        Accepted, unused (MindSpore's writer processes).
    collect_specified_data : dict, optional
        Switches: ``collect_metric``, ``collect_graph``,
        ``collect_train_lineage``, ``collect_eval_lineage``,
        ``collect_input_data``, ``collect_dataset_graph`` (bools),
        ``histogram_regular`` (a regular expression or None),
        ``collect_landscape`` (a dict or None).
    keep_default_action : bool
        True: the switches not given keep their defaults; False: only the
        given ones are on.
    custom_lineage_data : dict, optional
        ``{str: int | float | str}`` written to the lineage file.
    collect_tensor_freq : int, optional
        How often ``TensorSummary`` values are kept (by default at most 20
        steps of the run).
    max_file_size : int, optional
        Bytes each file may hold (> 0).
    export_options : dict, optional
        As in :class:`SummaryRecord`.

    Raises
    ------
    TypeError, ValueError
        Bad arguments, with MindSpore's messages.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> import cellkit as ms
    >>> from cellkit.train import Model, SummaryCollector
    >>> from cellkit.train.summary import read_events
    >>> import glob, os
    >>> net = ms.nn.Dense(2, 1)
    >>> model = Model(net, ms.nn.MSELoss(), ms.nn.SGD(net.trainable_params(), 0.1))
    >>> data = [(ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.zeros((4, 1), np.float32)))] * 3
    >>> folder = tempfile.mkdtemp()
    >>> model.train(1, data, callbacks=[SummaryCollector(folder, collect_freq=2,
    ...             collect_specified_data={"collect_landscape": None})])
    >>> events = read_events(glob.glob(os.path.join(folder, "*_MS"))[0])
    >>> [e.step for e in events[1:]], [v.tag for v in events[1].summary.value]
    ([1, 2], ['loss/auto', 'weight/auto', 'bias/auto'])
    """

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
                 export_options=None):
        super().__init__()
        owner = type(self).__name__  # MindSpore's messages name the class, a subclass by its own name
        self._folder = make_directory(summary_dir, "summary_dir", "SummaryCollector")
        self._every = _check_count(owner, "collect_freq", collect_freq)
        self._tensor_every = _check_count(owner, "collect_tensor_freq", collect_tensor_freq, may_be_none=True)
        self._file_limit = _check_count(owner, "max_file_size", max_file_size, may_be_none=True)
        self._export = check_export_options(export_options)
        _train_utils_type_check("keep_default_action", keep_default_action, (bool,))
        self._plan = CollectPlan.from_user(collect_specified_data, keep_default_action, owner)
        self._landscape = _LandscapeSaver(self._folder, self._plan.landscape) if self._plan.landscape else None
        self._user_data = _user_lineage(custom_lineage_data)
        self._processes = num_process  # kept for reference: cellkit writes from this process
        self._reader = StepReader()
        self._writer = None          # the SummaryRecord, opened when a run starts
        self._tensor_range = None    # tensor_steps() of the current run, fixed at its first step
        self._graph_done = False     # the one-time "graph" record has been written
        self._user_data_done = False
        self._at_run_start = True
        self._sink_mode = True

    # --- Model enters its callbacks as context managers
    def __enter__(self):
        self._writer = SummaryRecord(log_dir=self._folder, max_file_size=self._file_limit,
                                     raise_exception=False, export_options=self._export)
        self._at_run_start = True
        self._sink_mode = True
        return self

    def __exit__(self, *exc):
        if self._writer is not None:
            self._writer.close()

    # --- callback stages
    def begin(self, run_context):
        params = run_context.original_args()
        self._refuse_second_collector(params.list_callback)
        if params.mode not in ("train", "eval"):
            raise ValueError(f"Only support `train` (model.train) and `eval` (model.eval) mode, but got "
                             f"`{params.mode}` mode.")
        if self._writer is None:  # used outside Model, which would have entered it
            self.__enter__()
        self._writer.set_mode(params.mode)
        self._sink_mode = params.dataset_sink_mode

    def step_end(self, run_context):
        params = run_context.original_args()
        if params.mode != "train":
            return
        step = params.cur_step_num
        if not self._graph_done:
            if self._plan.graph:
                _log.warning("Can not get graph proto, it may not be 'GRAPH_MODE' in context currently, so "
                             "SummaryCollector will not collect graph.")
            self._graph_done = True
            self._writer.record(step)
        if self._user_data and not self._user_data_done:
            self._writer.add_value("custom_lineage_data", "custom_lineage_data", _user_lineage_message(self._user_data))
            self._user_data_done = True
            self._writer.record(step)
        if not self._sink_mode:
            self._collect_if_due(params)
        if self._landscape is not None and self._landscape.plan.wants("step", step):
            self._landscape.save_network(params)

    def epoch_end(self, run_context):
        params = run_context.original_args()
        self._collect_if_due(params)
        if self._landscape is not None and self._landscape.plan.wants("epoch", params.cur_epoch_num):
            self._landscape.save_network(params)
        self._writer.flush()

    def end(self, run_context):
        params = run_context.original_args()
        training = params.mode == "train"
        if training and self._plan.train_lineage:
            self._writer.add_value("train_lineage", "train_lineage", train_lineage(params, self._reader))
        elif not training and self._plan.eval_lineage:
            self._writer.add_value("eval_lineage", "eval_lineage", eval_lineage(params))
        # The closing record is written in eval mode, which leaves out what the summary ops reported.
        self._writer.set_mode("eval")
        self._writer.record(step=0)
        if training and self._landscape is not None:
            self._landscape.save_metadata(params.batch_num)

    # --- the pieces the stages use
    def _refuse_second_collector(self, listed):
        listed = getattr(listed, "callbacks", listed)
        mine = type(self).__name__
        if sum(type(callback).__name__ == mine for callback in listed) > 1:
            raise ValueError(f"There are more than one {mine} instance in callback list,"
                             f"but expected only one {mine} instance.")

    def _collect_if_due(self, params):
        """Record this step's values when the schedule says so (always at a run's first step)."""
        if params.mode != "train":
            return
        if self._at_run_start:
            total = params.epoch_num if self._sink_mode else params.epoch_num * params.batch_num
            self._tensor_range = tensor_steps(total, self._every, self._tensor_every)
            self._collect(params, None)
            self._at_run_start = False
            self._writer.flush()
            return
        number = params.cur_epoch_num if self._sink_mode else params.cur_step_num
        due, keep = due_plugins(number, self._every, self._tensor_range)
        if due:
            self._collect(params, keep)

    def _collect(self, params, keep):
        self._add_input_image(params)
        self._add_loss(params)
        self._add_histograms(params)
        self._writer.record(params.cur_step_num, plugin_filter=keep)

    def _add_input_image(self, params):
        if not self._plan.input_data:
            return
        image, problem = _first_input(params)
        if problem is None:
            try:
                self._writer.add_value("image", "input_data/auto", image)
                return
            except (ValueError, TypeError):
                problem = "The input data of network are not image, so will not collect by SummaryCollector."
        _log.warning(problem)
        self._plan.input_data = False

    def _add_loss(self, params):
        if not self._plan.loss:
            return
        loss = self._reader.loss(params)
        if loss is None:
            return
        try:
            self._writer.add_value("scalar", "loss/auto", loss)
        except ValueError:
            _log.warning("The output of network is not a scalar, so SummaryCollector will not collect loss.")
            self._plan.loss = False

    def _add_histograms(self, params):
        if not self._plan.histograms:
            return
        optimizer = self._reader.optimizer(params)
        if optimizer is None:
            return
        weights = list(optimizer.parameters)
        pattern = self._plan.histogram_pattern
        chosen = weights[:_HISTOGRAM_COUNT] if pattern is None else [w for w in weights if re.match(pattern, w.name)]
        for weight in chosen:
            self._writer.add_value("histogram", weight.name + "/auto", Tensor(weight.asnumpy()))
