"""``SummaryCollector``: the training callback that fills summary files as MindSpore's does."""
from __future__ import annotations

import json
import logging
import os
import re
import stat
from collections import defaultdict

import numpy as np

from ...parameter import Parameter
from ...tensor import Tensor
from ..callback import Callback
from .messages import message_class
from .record import SummaryRecord, _train_utils_type_check, check_export_options, make_directory

__all__ = ["SummaryCollector"]

_log = logging.getLogger("cellkit.train.summary")

_HYPER_CONFIG_ENV = "MINDINSIGHT_HYPER_CONFIG"
_HYPER_CONFIG_LIMIT = 100000
_TENSOR_SUMMARY_LIMIT = 20
_DEFAULT_HISTOGRAMS = 5


def _default_specified_data():
    return {
        "collect_metric": True,
        "collect_graph": True,
        "collect_train_lineage": True,
        "collect_eval_lineage": True,
        "collect_input_data": True,
        "collect_dataset_graph": True,
        "histogram_regular": None,
        "collect_landscape": {"landscape_size": 40, "unit": "step", "num_samples": 2048,
                              "create_landscape": {"train": True, "result": True},
                              "intervals": [[1, 2, 3, 4, 5, 6, 7, 8, 9],
                                            [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]]},
    }


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

    _DEFAULT_SPECIFIED_DATA = _default_specified_data()

    def __init__(self, summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
                 keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
                 export_options=None):
        super().__init__()
        self._summary_dir = make_directory(summary_dir, "summary_dir", "SummaryCollector")
        self._record = None
        self._check_positive("collect_freq", collect_freq)
        self._collect_freq = collect_freq
        self._check_positive("collect_tensor_freq", collect_tensor_freq, allow_none=True)
        self._collect_tensor_freq = collect_tensor_freq
        self._tensor_collect_range = None
        self._check_positive("max_file_size", max_file_size, allow_none=True)
        self._max_file_size = max_file_size
        self._export_options = check_export_options(export_options)
        _train_utils_type_check("keep_default_action", keep_default_action, (bool,))
        self._collect_specified_data = self._process_specified_data(collect_specified_data, keep_default_action)
        landscape = self._collect_specified_data.get("collect_landscape", None)
        _train_utils_type_check("collect_landscape", landscape, (dict, type(None)))
        self._is_collect_landscape = bool(landscape)
        if self._is_collect_landscape:
            self._check_landscape(landscape)
            self._ckpt_dir = os.path.join(self._summary_dir, "ckpt_dir")
            make_directory(self._ckpt_dir, "path")
            self._model_params_file_map = {}
            self._epoch_group = defaultdict(list)
            for index, interval in enumerate(landscape.get("intervals")):
                self._epoch_group[index].extend(interval)
        self._custom_lineage_data = self._process_custom_lineage_data(custom_lineage_data)
        self._temp_optimizer = None
        self._has_saved_graph = False
        self._has_saved_custom_data = False
        self._is_parse_loss_success = True
        self._first_step = True
        self._dataset_sink_mode = True
        self._num_process = num_process

    # ------------------------------------------------------------------ argument checks
    def _check_positive(self, name, value, allow_none=False):
        if allow_none and value is None:
            return
        _train_utils_type_check(name, value, (int,))
        if value <= 0:
            raise ValueError(f'For "{self.__class__.__name__}", the value of `{name}` should be greater than 0, '
                             f'but got `{value}`.')  # the value is in MindSpore's message already

    def _process_specified_data(self, specified, keep_default):
        _train_utils_type_check("collect_specified_data", specified, (dict, type(None)))
        defaults = _default_specified_data()
        if specified is None:
            return defaults if keep_default else {}
        for key in specified:
            _train_utils_type_check(key, key, (str,))
        unexpected = set(specified) - set(defaults)
        if unexpected:
            raise ValueError(f'For "{self.__class__.__name__}", the keys {unexpected} of `collect_specified_data` '
                             f'are unsupported, expect the follow keys: {list(defaults)}')
        if "histogram_regular" in specified:
            pattern = specified.get("histogram_regular")
            _train_utils_type_check("histogram_regular", pattern, (str, type(None)))
            if isinstance(pattern, str):
                try:
                    re.match(pattern, "")
                except re.error as exc:
                    raise ValueError("For `collect_specified_data`, the value of `histogram_regular` is not a valid "
                                     f"regular expression. Detail: {exc}.") from exc
        for key in set(defaults) - {"histogram_regular", "collect_landscape"}:
            if key in specified:
                _train_utils_type_check(key, specified[key], (bool,))
        if keep_default:
            defaults.update(specified)
            return defaults
        return dict(specified)

    def _check_landscape(self, landscape):
        known = _default_specified_data()["collect_landscape"]
        unexpected = set(landscape) - set(known)
        if unexpected:
            raise ValueError(f'For "{self.__class__.__name__}", the keys {unexpected} of `collect_landscape` are '
                             f'unsupported, expect the follow keys: {list(known)}')
        size = landscape.get("landscape_size", 40)
        _train_utils_type_check("landscape_size", size, (int,))
        if size < 3 or size > 256:
            raise ValueError(f'For "{self.__class__.__name__}", the "landscape_size" in collect_specified_data '
                             f'should be less than 256 and more than 3, but got the: {size}')
        unit = landscape.get("unit", "step")
        _train_utils_type_check("unit", unit, (str,))
        if unit not in ("step", "epoch"):
            raise ValueError(f'For "{self.__class__.__name__}", unit in collect_specified_data should be step or '
                             f'epoch, but got the: {unit}.')
        _train_utils_type_check("num_samples", landscape.get("num_samples", 2048), (int,))
        create = landscape.get("create_landscape", {"train": True, "result": True})
        _train_utils_type_check("create_landscape", create, (dict,))
        for key, value in create.items():
            if key not in ("train", "result"):
                raise ValueError(f'For "{self.__class__.__name__}", the key to create landscape should be in '
                                 f'["train", "result"], but got the: {key}.')
            _train_utils_type_check(key, value, (bool,))
        intervals = landscape.get("intervals")
        _train_utils_type_check("intervals", intervals, (list,))
        for interval in intervals:
            _train_utils_type_check("each interval inintervals", interval, (list,))
            if len(interval) < 3:
                raise ValueError(f'For "{self.__class__.__name__}", the length of each list in "intervals" should '
                                 f'not be less than three, but got the: {interval}')
            for item in interval:
                if not isinstance(item, int):
                    raise TypeError(f'For "{self.__class__.__name__}", the value of each list in "intervals" '
                                    f'should be int, but got the: {type(item)}')

    def _process_custom_lineage_data(self, custom):
        if custom is None:
            custom = {}
        self._check_custom_lineage("custom_lineage_data", custom)
        merged = self._hyper_config_lineage()
        self._check_custom_lineage("auto_custom_lineage_data", merged)
        merged.update(custom)
        return merged

    @staticmethod
    def _check_custom_lineage(name, data):
        _train_utils_type_check(name, data, (dict, type(None)))
        for key, value in data.items():
            _train_utils_type_check(f"{name} -> {key}", key, (str,))
            _train_utils_type_check(f"the value of {name} -> {key}", value, (int, str, float))

    @staticmethod
    def _hyper_config_lineage():
        """User data that MindInsight's optimizer passes through the environment (as MindSpore reads it)."""
        config = os.environ.get(_HYPER_CONFIG_ENV)
        if config is None:
            return {}
        if len(config) > _HYPER_CONFIG_LIMIT:
            _log.warning("The 'MINDINSIGHT_HYPER_CONFIG' of environment variable is too long. The length limit is "
                         "%s, the length of hyper_config is %s.", _HYPER_CONFIG_LIMIT, len(config))
            return {}
        try:
            config = json.loads(config)
        except (TypeError, ValueError) as exc:
            _log.warning("The 'MINDINSIGHT_HYPER_CONFIG' of environment variable decode error. Detail: %s.", exc)
            return {}
        data = config.get("custom_lineage_data") if isinstance(config, dict) else None
        return dict(data) if data is not None else {}

    # ------------------------------------------------------------------ context manager (Model enters it)
    def __enter__(self):
        self._record = SummaryRecord(log_dir=self._summary_dir, max_file_size=self._max_file_size,
                                     raise_exception=False, export_options=self._export_options)
        self._first_step, self._dataset_sink_mode = True, True
        return self

    def __exit__(self, *exc):
        if self._record is not None:
            self._record.close()

    # ------------------------------------------------------------------ callback stages
    def begin(self, run_context):
        cb_params = run_context.original_args()
        self._check_callbacks(cb_params)
        if cb_params.mode not in ("train", "eval"):
            raise ValueError(f"Only support `train` (model.train) and `eval` (model.eval) mode, but got "
                             f"`{cb_params.mode}` mode.")
        if self._record is None:  # called outside Model, which enters callbacks as context managers
            self.__enter__()
        self._record.set_mode(cb_params.mode)
        self._dataset_sink_mode = cb_params.dataset_sink_mode

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.mode != "train":
            return
        if not self._has_saved_graph:
            if self._collect_specified_data.get("collect_graph"):
                _log.warning("Can not get graph proto, it may not be 'GRAPH_MODE' in context currently, so "
                             "SummaryCollector will not collect graph.")
            self._has_saved_graph = True
            self._record.record(cb_params.cur_step_num)
        if self._custom_lineage_data and not self._has_saved_custom_data:
            self._record.add_value("custom_lineage_data", "custom_lineage_data",
                                   self._custom_lineage_message(self._custom_lineage_data))
            self._has_saved_custom_data = True
            self._record.record(cb_params.cur_step_num)
        if not self._dataset_sink_mode:
            self._collect_tensor_data(cb_params)
        landscape = self._collect_specified_data.get("collect_landscape")
        if landscape and landscape.get("unit", "step") == "step" and any(
                cb_params.cur_step_num in interval for interval in landscape.get("intervals")):
            self._save_model_params_for_landscape(cb_params)

    def epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self._collect_tensor_data(cb_params)
        landscape = self._collect_specified_data.get("collect_landscape")
        if landscape and landscape.get("unit", "step") == "epoch" and any(
                cb_params.cur_epoch_num in interval for interval in landscape.get("intervals")):
            self._save_model_params_for_landscape(cb_params)
        self._record.flush()

    def end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.mode == "train":
            self._collect_train_lineage(cb_params)
        else:
            self._collect_eval_lineage(cb_params)
        # As MindSpore: eval mode keeps the summary ops' values out of this last record.
        self._record.set_mode("eval")
        self._record.record(step=0)
        landscape = self._collect_specified_data.get("collect_landscape")
        if cb_params.mode == "train" and landscape:
            self._save_metadata(cb_params.batch_num, landscape.get("unit", "step"),
                                landscape.get("num_samples", 2048), landscape.get("landscape_size", 40),
                                landscape.get("create_landscape", {"train": True, "result": True}))

    # ------------------------------------------------------------------ what is collected
    def _check_callbacks(self, cb_params):
        callbacks = cb_params.list_callback
        callbacks = getattr(callbacks, "callbacks", callbacks)
        found = False
        for callback in callbacks:
            if type(callback).__name__ == self.__class__.__name__:
                if not found:
                    found = True
                    continue
                raise ValueError(f"There are more than one {self.__class__.__name__} instance in callback list,"
                                 f"but expected only one {self.__class__.__name__} instance.")

    def _collect_tensor_data(self, cb_params):
        if cb_params.mode != "train":
            return
        if self._first_step:
            self._tensor_collect_range = self._get_tensor_collect_range(cb_params, self._dataset_sink_mode)
            self._collect_at_step_end(cb_params, plugin_filter=None)
            self._first_step = False
            self._record.flush()
            return
        current = cb_params.cur_epoch_num if self._dataset_sink_mode else cb_params.cur_step_num
        if current % self._collect_freq == 0 and current in self._tensor_collect_range:
            self._collect_at_step_end(cb_params, plugin_filter=None)
        elif current in self._tensor_collect_range:
            self._collect_at_step_end(cb_params, lambda plugin: plugin == "tensor")
        elif current % self._collect_freq == 0:
            self._collect_at_step_end(cb_params, lambda plugin: plugin != "tensor")

    def _get_tensor_collect_range(self, cb_params, sink_mode):
        total = cb_params.epoch_num
        if not sink_mode:
            total *= cb_params.batch_num
        if self._collect_tensor_freq is not None:
            return range(0, total + 1, self._collect_tensor_freq)
        collected = len(range(0, total + 1, self._collect_freq))
        if collected > _TENSOR_SUMMARY_LIMIT:
            tensor_freq = total // (_TENSOR_SUMMARY_LIMIT - 1)
            if tensor_freq > 1:
                return range(0, total + 1, tensor_freq)[:_TENSOR_SUMMARY_LIMIT]
            return range(0, total + 1)[:_TENSOR_SUMMARY_LIMIT + 1]
        return range(0, total + 1, self._collect_freq)

    def _collect_at_step_end(self, cb_params, plugin_filter):
        self._collect_input_data(cb_params)
        self._collect_metric(cb_params)
        self._collect_histogram(cb_params)
        self._record.record(cb_params.cur_step_num, plugin_filter=plugin_filter)

    def _collect_input_data(self, cb_params):
        if not self._collect_specified_data.get("collect_input_data"):
            return
        data = cb_params.get("train_dataset_element")
        if not isinstance(data, (Tensor, list, tuple)):
            self._collect_specified_data["collect_input_data"] = False
            _log.warning("The type of input data is not Tensor/list/tuple, so SummaryCollector will not collect "
                         "input data.")
            return
        if not isinstance(data, Tensor) and not data:
            self._collect_specified_data["collect_input_data"] = False
            _log.warning("The 'train_dataset_element' in RunContext.original_args is empty, so SummaryCollector "
                         "will not record the input data.")
            return
        if isinstance(data, (list, tuple)):
            data = data[0]
        try:
            self._record.add_value("image", "input_data/auto", data)
        except (TypeError, ValueError):
            _log.warning("The input data of network are not image, so will not collect by SummaryCollector.")
            self._collect_specified_data["collect_input_data"] = False

    def _collect_metric(self, cb_params):
        if not self._collect_specified_data.get("collect_metric"):
            return
        loss = self._get_loss(cb_params)
        if loss is None:
            return
        try:
            self._record.add_value("scalar", "loss/auto", loss)
        except ValueError:
            _log.warning("The output of network is not a scalar, so SummaryCollector will not collect loss.")
            self._collect_specified_data["collect_metric"] = False

    def _get_loss(self, cb_params):
        if not self._is_parse_loss_success:
            return None
        output = cb_params.get("net_outputs")
        if output is None:
            _log.warning("Can not find any output by this network, so SummaryCollector will not collect loss.")
            self._is_parse_loss_success = False
            return None
        if isinstance(output, (int, float, Tensor)):
            loss = output
        elif isinstance(output, (list, tuple)) and output:
            loss = output[0]
        else:
            _log.warning("The output type could not be identified, expect type is one of [int, float, Tensor, list, "
                         "tuple], so no loss was recorded in SummaryCollector.")
            self._is_parse_loss_success = False
            return None
        if not isinstance(loss, Tensor):
            loss = Tensor(loss)
        return Tensor(np.mean(loss.asnumpy()))

    def _get_optimizer(self, cb_params):
        failed = "Failed"
        if self._temp_optimizer == failed:
            return None
        if self._temp_optimizer is not None:
            return self._temp_optimizer
        from ...nn.optim.optimizer import Optimizer

        optimizer = cb_params.get("optimizer")
        if optimizer is None:
            network = cb_params.get("train_network") if cb_params.mode == "train" else cb_params.get("eval_network")
            optimizer = self._optimizer_in(network, Optimizer) if network is not None else None
        if optimizer is None or not isinstance(optimizer, Optimizer):
            _log.warning("Can not find optimizer in network, or the optimizer does not inherit MindSpore's "
                         "optimizer, so we will not collect data about optimizer in SummaryCollector.")
            optimizer = None
        self._temp_optimizer = optimizer if optimizer is not None else failed
        return optimizer

    @staticmethod
    def _optimizer_in(network, optimizer_type):
        for _, cell in network.cells_and_names():
            if isinstance(cell, optimizer_type):
                return cell
            candidate = getattr(cell, "optimizer", None)
            if isinstance(candidate, optimizer_type):
                return candidate
        return None

    def _collect_histogram(self, cb_params):
        if "histogram_regular" not in self._collect_specified_data:
            return
        optimizer = self._get_optimizer(cb_params)
        if optimizer is None:
            return
        parameters = list(optimizer.parameters)
        pattern = self._collect_specified_data.get("histogram_regular")
        if pattern is not None:
            chosen = [p for p in parameters if re.match(pattern, p.name)]
        else:
            chosen = parameters[:_DEFAULT_HISTOGRAMS]
        for parameter in chosen:
            self._record.add_value("histogram", parameter.name + "/auto", Tensor(parameter.asnumpy()))

    # ------------------------------------------------------------------ lineage
    @staticmethod
    def _custom_lineage_message(data):
        info = message_class("UserDefinedInfo")()
        for key, value in data.items():
            if isinstance(value, int):
                field = "map_int32"
            elif isinstance(value, float):
                field = "map_double"
            else:
                field = "map_str"
            getattr(info.user_info.add(), field)[key] = value
        return info

    def _collect_train_lineage(self, cb_params):
        if not self._collect_specified_data.get("collect_train_lineage"):
            return
        message = message_class("TrainLineage")()
        loss = self._get_loss(cb_params)
        if loss is not None:
            message.algorithm.loss = float(np.atleast_1d(loss.asnumpy())[0])
        optimizer = self._get_optimizer(cb_params)
        learning_rate = getattr(optimizer, "learning_rate", None) if optimizer is not None else None
        if optimizer is not None and not isinstance(learning_rate, Parameter):
            _log.warning("The learning rate detected in the optimizer is not a Parameter type, so it is not "
                         "recorded. Its type is %r.", type(learning_rate).__name__)
            learning_rate = None
        message.algorithm.network = type(cb_params.network).__name__
        dataset = cb_params.get("train_dataset")
        path, batch_size, size = self._dataset_facts(dataset)
        if path is not None:
            message.train_dataset.train_dataset_path = path
        if size is not None:
            message.train_dataset.train_dataset_size = size
        checkpoint = self._checkpoint_path(cb_params)
        message.model.path = json.dumps({"ckpt": checkpoint})
        message.model.size = os.path.getsize(checkpoint) if checkpoint else 0
        hyper = message.hyper_parameters
        if learning_rate is not None:
            hyper.learning_rate = float(np.atleast_1d(learning_rate.asnumpy())[0])
        if optimizer is not None:
            hyper.optimizer = type(optimizer).__name__
        loss_fn = self._loss_fn(cb_params)
        if loss_fn is not None:
            hyper.loss_function = type(loss_fn).__name__
        hyper.parallel_mode = cb_params.get("parallel_mode", "stand_alone")
        hyper.epoch = cb_params.epoch_num
        hyper.device_num = cb_params.get("device_number", 1)
        if batch_size is not None:
            hyper.batch_size = batch_size
        self._record.add_value("train_lineage", "train_lineage", message)

    def _collect_eval_lineage(self, cb_params):
        if not self._collect_specified_data.get("collect_eval_lineage"):
            return
        message = message_class("EvaluationLineage")()
        try:
            message.metric = json.dumps(cb_params.get("metrics"))
        except TypeError as exc:
            _log.warning("Summary cannot collect the type of metrics, currently support type: dict, list, tuple, "
                         "str, int, float, bool and None. %s.", exc)
        path, _, size = self._dataset_facts(cb_params.get("valid_dataset"))
        if path is not None:
            message.valid_dataset.valid_dataset_path = path
        if size is not None:
            message.valid_dataset.valid_dataset_size = size
        self._record.add_value("eval_lineage", "eval_lineage", message)

    @staticmethod
    def _dataset_facts(dataset):
        """(folder or None, batch size, batch count x batch size) of a dataset, as MindSpore's lineage has them."""
        path = None
        node = dataset
        while node is not None:
            found = getattr(node, "dataset_dir", None) or getattr(node, "dataset_files", None)
            if found:
                path = found if isinstance(found, str) else list(found)[0]
                break
            children = getattr(node, "children", None)
            node = children[0] if children else None
        if path and os.path.isfile(path):
            path = os.path.dirname(path)
        try:
            batches, batch_size = dataset.get_dataset_size(), dataset.get_batch_size()
        except AttributeError:  # a plain list of batches (cellkit's Model accepts one)
            return path, None, None
        return path, batch_size, int(batches * batch_size)

    @staticmethod
    def _checkpoint_path(cb_params):
        from ..checkpoint_callback import ModelCheckpoint

        callbacks = cb_params.get("list_callback")
        callbacks = getattr(callbacks, "callbacks", callbacks) or []
        path = None
        for callback in callbacks:
            if isinstance(callback, ModelCheckpoint):
                path = callback.latest_ckpt_file_name
        return os.path.realpath(path) if path else None

    @staticmethod
    def _loss_fn(cb_params):
        loss_fn = cb_params.get("loss_fn")
        if loss_fn is not None:
            return loss_fn
        from ...nn.loss import LossBase

        network = cb_params.get("train_network") if cb_params.mode == "train" else cb_params.get("eval_network")
        if network is None:
            return None
        for _, cell in network.cells_and_names():
            if isinstance(cell, LossBase):
                return cell
        return None

    # ------------------------------------------------------------------ loss landscape
    @staticmethod
    def _backbone(network):
        for _, cell in network.cells_and_names():
            if hasattr(cell, "_backbone"):
                return cell._backbone
        return network

    def _save_model_params_for_landscape(self, cb_params):
        if cb_params.mode != "train":
            return
        backbone = self._backbone(cb_params.train_network)
        while True:
            names = dict(backbone.name_cells())
            if "network" in names:
                backbone = backbone.network
                if "optimizer" in names:
                    break
            else:
                break
        landscape = self._collect_specified_data.get("collect_landscape")
        unit = landscape.get("unit", "step")
        number = cb_params.cur_epoch_num if unit == "epoch" else cb_params.cur_step_num
        from ...serialization import save_checkpoint

        params = [{"name": p.name, "data": Tensor(p.asnumpy())} for p in backbone.get_parameters()]
        path = os.path.join(self._ckpt_dir, f"{type(backbone).__name__}_{number}_{unit}.ckpt")
        self._model_params_file_map[str(number)] = path
        if not os.path.isfile(path):
            try:
                save_checkpoint(params, path)
            except OSError as exc:
                _log.error("%s", exc)

    def _save_metadata(self, step_per_epoch, unit, num_samples, landscape_size, create_landscape):
        data = {"epoch_group": self._epoch_group, "model_params_file_map": self._model_params_file_map,
                "step_per_epoch": step_per_epoch, "unit": unit, "num_samples": num_samples,
                "landscape_size": landscape_size, "create_landscape": create_landscape}
        path = os.path.join(self._ckpt_dir, "train_metadata.json")
        if os.path.isfile(path):
            return
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.chmod(path, stat.S_IRUSR)
        except OSError as exc:
            _log.error("Write meta data %s failed, detail: %s", path, exc)
