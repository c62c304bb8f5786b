"""``SummaryRecord``: collects values and writes them as MindSpore summary events (MindInsight's format)."""
from __future__ import annotations

import atexit
import logging
import os
import re
import threading
import time
import weakref
from collections import defaultdict
from urllib.parse import quote

import numpy as np

from ...nn.cell import Cell
from ...tensor import Tensor
from .messages import message_class
from .values import fill_histogram, fill_image, fill_scalar, fill_tensor
from .writer import EventFileWriter, SizeLimitReached, event_file_name

__all__ = ["SummaryRecord"]

_log = logging.getLogger("cellkit.train.summary")

_VALUE_PLUGINS = ("tensor", "scalar", "image", "histogram")
_LINEAGE_PLUGINS = {"train_lineage": ("TrainLineage", "train_lineage"),
                    "eval_lineage": ("EvaluationLineage", "evaluation_lineage"),
                    "dataset_graph": ("DatasetGraph", "dataset_graph"),
                    "custom_lineage_data": ("UserDefinedInfo", "user_defined_info")}
# In a fixed order: MindSpore keeps a set here, so its message lists them in an order that changes run to run.
_EXPORT_FORMATS = {"tensor_format": ("npy", None)}
_NAME_PATTERN = r"^\w+[0-9a-zA-Z\_\.]*$"
_MAX_PATH = 4096
_instance_lock = threading.Lock()
_OPEN_RECORDS = weakref.WeakSet()


@atexit.register
def _close_open_records():
    """Close what is still open when Python exits (MindSpore registers each record's close the same way)."""
    for record in list(_OPEN_RECORDS):
        record.close()


class _NameNotString(ValueError, TypeError):
    """A bad ``name`` for ``add_value``: MindSpore 2.10 raises ValueError where its documentation says TypeError;
    this error is both, so code written for either catches it."""


def given(value):
    """`` (given: <type> <short repr>)``: what MindSpore's messages leave out, appended to them."""
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f" (given: {type(value).__name__} {text})"


def _type_check(name, value, types):
    """MindSpore's ``mindspore._checkparam.check_value_type`` (bool is not an int here)."""
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        names = [t.__name__ for t in types]
        expected = f"one of '{names}'" if len(names) > 1 else f"'{names[0]}'"
        raise TypeError(f"The type of '{name}' should be {expected}, but got type '{type(value).__name__}'."
                        + given(value))


def _train_utils_type_check(name, value, types):
    """MindSpore's ``mindspore.train._utils.check_value_type`` (a different message from the one above)."""
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        raise TypeError(f"For `{name}` the type should be a valid type of {[t.__name__ for t in types]}, "
                        f"but got {type(value).__name__}." + given(value))


def _check_name(text, name):
    if re.match(_NAME_PATTERN, text, re.ASCII) is None:
        raise ValueError(f"The '{text}' is illegal, it must be match regular'{_NAME_PATTERN}' by flags'{re.ASCII}.'"
                         f" (For 'SummaryRecord', '{name}' given: {text!r})")


def make_directory(path, arg_name, owner="SummaryRecord"):
    """Create ``path`` if needed and return it absolute (MindSpore's checks and messages, plus what was given)."""
    if not isinstance(path, str):
        raise TypeError(f"The {arg_name} is invalid, the type should be string. (For '{owner}', '{arg_name}'"
                        f"{given(path)})")
    if path.strip() == "":
        raise ValueError(f"The {arg_name} is invalid, it should be non-blank. (For '{owner}', '{arg_name}'"
                         f"{given(path)})")
    path = os.path.realpath(path)
    if len(path) > _MAX_PATH:
        raise ValueError(f"The {arg_name} length is too long, it should be limited in {_MAX_PATH}.")
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise NotADirectoryError(f"The path({path}) is a file path, it should be a directory path.")
        return path
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except PermissionError as exc:
        raise TypeError("No write permission on the directory.") from exc
    return path


def check_export_options(export_options):
    """``export_options`` checked as MindSpore checks it (None or ``{'tensor_format': 'npy' or None}``)."""
    if export_options is None:
        return None
    _train_utils_type_check("export_options", export_options, (dict, type(None)))
    try:
        for option, value in export_options.items():
            _train_utils_type_check("export_option", option, (str,))
            _train_utils_type_check("export_format", value, (str, type(None)))
    except TypeError as exc:
        raise TypeError(f"{exc} in 'export_options' {export_options!r}") from None
    unexpected = set(export_options) - set(_EXPORT_FORMATS)
    if unexpected:
        raise ValueError(f'For "SummaryRecord", the keys {unexpected} of "export_options" are unsupported, '
                         f'expect the follow keys: {list(_EXPORT_FORMATS)}')
    for option, value in export_options.items():
        if value not in _EXPORT_FORMATS[option]:
            raise ValueError(f'For "SummaryRecord", the export_format {{{value!r}}} of "export_options" are unsupported '
                             f'for {option}, expect the follow values: {list(_EXPORT_FORMATS[option])}')
    return export_options


def value_to_numpy(plugin, value, op_name=None):
    """The host array of ``value`` for ``plugin``, with MindSpore's shape checks."""
    array = np.array(value.asnumpy(), copy=True)
    who = op_name or "SummaryRecord"
    if plugin == "scalar" and array.size != 1:
        raise ValueError(f'For "{who}", the v rank must be less than or equal to 1, but got {len(array)}.')
    if plugin == "image" and array.ndim != 4:
        raise ValueError(f'For "{who}", the tensor seems not to hold a valid image.')
    if plugin in ("tensor", "histogram") and array.ndim == 0:
        raise ValueError(f'For "{who}", the value should not be empty.')
    return array


def _message_named(value, full_name):
    descriptor = getattr(value, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) == f"mindspore.irpb.{full_name}"


def _summary_op_values():
    """What ``ops.ScalarSummary`` & co. noted since the last record, checked, in the order they were noted."""
    from ...ops import misc

    noted = list(misc._SUMMARIES.items())
    misc._SUMMARIES.clear()
    values = []
    for (kind, name), tensor in noted:
        if not isinstance(name, str) or not name:
            raise TypeError(f'For "{kind}", the name must be valid string, but got "{name}".')
        if not isinstance(tensor, Tensor):
            raise TypeError(f'For "{kind}", the parameter "value" expect to be Tensor, but got {type(tensor).__name__}')
        plugin = kind[:-len("Summary")].lower()
        value_to_numpy(plugin, tensor, op_name=kind)
        values.append((plugin, name, tensor))
    return values


class SummaryRecord:
    """Writes summary data -- scalars, tensors, images, histograms, lineage -- to a MindSpore summary file.

    The file is in MindSpore's (and MindInsight's) event format, byte for byte:
    records framed with masked CRC-32C checksums, each holding an ``Event``
    protobuf message.  MindInsight, or MindSpore's own parser, read cellkit's
    files; :func:`cellkit.train.summary.read_events` reads both.

    Values are gathered with :meth:`add_value` (and from ``ops.ScalarSummary``,
    ``ops.TensorSummary``, ``ops.ImageSummary`` and ``ops.HistogramSummary``
    called inside a network, in ``'train'`` mode) and written as one event by
    :meth:`record`.  The summary file is named
    ``<file_prefix>.out.events.summary.<seconds>.<device id>.<host><file_suffix>``
    in ``log_dir``; lineage data goes to a twin file ending in ``_lineage``.
    Files are created at their first record.

    Only one SummaryRecord may be open at a time (as in MindSpore): close it,
    or use it in a ``with`` block.

    Parameters
    ----------
    log_dir : str
        The folder for the files (created if missing).
    file_prefix, file_suffix : str
        Parts of the file name (letters, digits, ``_`` and ``.``).
    num_process : int
        MindSpore's number of writer processes; accepted, unused (cellkit
        writes in the calling thread).
    network : Cell, optional
        MindSpore writes the compiled graph of this network; cellkit has no
        MindSpore graph to write and warns once instead.
    max_file_size : int, optional
        Bytes the summary file may hold; past it, writing stops with a warning.
        A negative value means no limit (with a warning).
    raise_exception : bool
        Raise ``RuntimeError`` / ``OSError`` met while writing, instead of
        logging them and no longer writing that file.
    export_options : dict, optional
        ``{'tensor_format': 'npy'}`` also saves every ``'tensor'`` value as
        ``export_<seconds>/tensor/<tag>_<step>.npy`` in ``log_dir``.

    Raises
    ------
    TypeError
        ``log_dir``, ``file_prefix`` or ``file_suffix`` not a str,
        ``max_file_size`` not an int, ``raise_exception`` not a bool.
    ValueError
        A blank ``log_dir``, a prefix or suffix with other characters, bad
        ``export_options``.
    RuntimeError
        Another SummaryRecord is open.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> import cellkit as ms
    >>> from cellkit.train.summary import read_events
    >>> with ms.SummaryRecord(tempfile.mkdtemp()) as summary:
    ...     summary.add_value("scalar", "loss", ms.Tensor(0.5, ms.float32))
    ...     summary.add_value("histogram", "w", ms.Tensor(np.arange(4.0)))
    ...     ok = summary.record(1)
    ...     path = summary.log_dir
    >>> events = read_events(path)
    >>> events[0].version, events[1].step, events[1].summary.value[0].scalar_value
    ('MindSpore.Event:1', 1, 0.5)
    """

    count = 0

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32, network=None,
                 max_file_size=None, raise_exception=False, export_options=None):
        with _instance_lock:
            self._check_count()
            SummaryRecord.count += 1
        self._counted = True
        self._mode, self._data_pool = "train", defaultdict(list)
        self._closed = False
        self._warned_graph = False
        self.file_info = {"file_name": None, "file_path": None}
        self.base_log_dir = log_dir
        self.file_prefix = file_prefix
        self.file_suffix = file_suffix
        self.network = network
        self.max_file_size = max_file_size
        self._num_process = num_process
        self.raise_exception = raise_exception
        self._export_options = export_options
        self._writers = {}
        try:
            self._initialize()
        except BaseException:
            self._release_count()
            raise

    def _initialize(self):
        log_path = make_directory(self.base_log_dir, "log_dir")
        if not isinstance(self.max_file_size, (int, type(None))):
            raise TypeError(f"For 'SummaryRecord', the 'max_file_size' should be int type, "
                            f"but got type {type(self.max_file_size)}" + given(self.max_file_size))
        if not isinstance(self.file_prefix, str) or not isinstance(self.file_suffix, str):
            # MindSpore always shows the prefix's type; the one that is wrong is shown here.
            name, bad = (("file_prefix", self.file_prefix) if not isinstance(self.file_prefix, str)
                         else ("file_suffix", self.file_suffix))
            raise TypeError(f"For 'SummaryRecord', `file_prefix` and `file_suffix`  should be str, "
                            f"but got type {type(bad)} ('{name}'{given(bad)})")
        _check_name(self.file_prefix, "file_prefix")
        _check_name(self.file_suffix, "file_suffix")
        if self.max_file_size is not None and self.max_file_size < 0:
            _log.warning("For 'SummaryRecord', the 'max_file_size' should be greater than 0. but got value %s.",
                         self.max_file_size)
            self.max_file_size = None
        _type_check("raise_exception", self.raise_exception, (bool,))
        seconds = str(int(time.time()))
        self.file_info["file_name"] = event_file_name(self.file_prefix, self.file_suffix, seconds)
        self.file_info["file_path"] = os.path.join(log_path, self.file_info["file_name"])
        self._export_options = check_export_options(self._export_options)
        self._export_dir = None
        if self._export_options is not None:
            self._export_dir = os.path.join(self.base_log_dir, f"export_{seconds}")
        lineage_path = os.path.join(log_path, event_file_name(self.file_prefix, "_lineage", seconds))
        self._writers = {
            "summary": EventFileWriter(self.file_info["file_path"], version_event=True,
                                       max_file_size=self.max_file_size),
            "lineage": EventFileWriter(lineage_path, max_file_size=self.max_file_size),
        }
        _OPEN_RECORDS.add(self)

    # ------------------------------------------------------------------ context manager
    def __enter__(self):
        if self._closed:
            raise ValueError('For "SummaryRecord", SummaryRecord has been closed, '
                             'please check if close() method is called')
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ public API
    def set_mode(self, mode):
        """Set the phase, ``'train'`` or ``'eval'``: in ``'eval'``, values of the summary ops are not recorded.

        >>> import tempfile, cellkit as ms
        >>> with ms.SummaryRecord(tempfile.mkdtemp()) as summary:
        ...     summary.set_mode("eval")
        """
        if mode not in ("train", "eval"):
            raise ValueError(f'For "SummaryRecord.set_mode", {mode!r} is not a recognized mode, '
                             'expect the parameter "mode" is "train" or "eval"')
        self._mode = mode

    def add_value(self, plugin, name, value):
        """Queue ``value`` under ``name`` for the next :meth:`record`.

        Parameters
        ----------
        plugin : str
            ``'scalar'`` (a Tensor of one element), ``'tensor'`` (a Tensor of at
            least one dimension), ``'image'`` (an NCHW Tensor, C = 1 or 3),
            ``'histogram'`` (a Tensor of at least one dimension);
            ``'train_lineage'``, ``'eval_lineage'``, ``'dataset_graph'``,
            ``'custom_lineage_data'`` (the lineage protobuf messages, cellkit's
            -- ``cellkit.train.summary.message_class('TrainLineage')`` -- or
            MindSpore's); ``'graph'`` (a serialized ``ModelProto``);
            ``'landscape'`` (a ``LossLandscape`` message).
        name : str
            The tag (non-empty).  Adding a tag twice before a record keeps both
            (MindInsight shows the newest) and warns.
        value : Tensor or message

        Raises
        ------
        ValueError
            An unknown ``plugin``; a value of the wrong shape for it; an empty
            or non-str ``name`` (that error is also a TypeError: see below).
        TypeError
            A value that is not a Tensor (or not the lineage message expected).

        Notes
        -----
        For a bad ``name`` MindSpore 2.10 raises ``ValueError`` while its
        documentation says ``TypeError``; cellkit raises an error that is an
        instance of both.

        >>> import tempfile, cellkit as ms
        >>> with ms.SummaryRecord(tempfile.mkdtemp()) as summary:
        ...     summary.add_value("scalar", "lr", ms.Tensor(0.01))
        """
        if plugin in _VALUE_PLUGINS:
            if not name or not isinstance(name, str):
                raise _NameNotString(f'For "SummaryRecord", the parameter "name" type should be str, '
                                     f'but got {type(name)}.')
            if not isinstance(value, Tensor):
                raise TypeError(f'For "SummaryRecord", the parameter "value" expect to be Tensor, '
                                f'but got {type(value).__name__}')
            array = value_to_numpy(plugin, value)
            if name in {item["tag"] for item in self._data_pool[plugin]}:
                _log.warning("For 'SummaryRecord.add_value', %r has duplicate values. Only the newest one will be "
                             "recorded.", f"{name}/{plugin}")
            data = {"tag": name, "value": array}
            option = f"{plugin}_format"
            if self._export_options is not None and option in self._export_options:
                data["export_option"] = self._export_options[option]
            self._data_pool[plugin].append(data)
        elif plugin in _LINEAGE_PLUGINS:
            expected = _LINEAGE_PLUGINS[plugin][0]
            if not _message_named(value, expected):
                raise TypeError(f"Plugin {plugin!r} expects a {expected} value.")
            self._data_pool[plugin].append({"value": value.SerializeToString()})
        elif plugin == "graph":
            if not isinstance(value, (bytes, bytearray)):
                raise TypeError(f"Plugin 'graph' expects the bytes of a serialized ModelProto, "
                                f"but got {type(value).__name__}")
            message_class("ModelProto").FromString(bytes(value))
            self._data_pool[plugin].append({"value": bytes(value)})
        elif plugin == "landscape":
            if not _message_named(value, "LossLandscape"):
                raise TypeError("Plugin 'landscape' expects a LossLandscape value.")
            self._data_pool[plugin].append({"tag": name, "value": value.SerializeToString()})
        else:
            raise ValueError(f'For "SummaryRecord.add_value", no such "plugin" of {plugin!r} , expect value is one '
                             'of [tensor, scalar, image, histogram, train_lineage, eval_lineage, dataset_graph, '
                             'custom_lineage_data, graph, landscape]')

    def record(self, step, train_network=None, plugin_filter=None):
        """Write what was added since the last record as one event of ``step``; returns whether it could.

        Parameters
        ----------
        step : int
        train_network : Cell, optional
            Only checked (MindSpore takes the graph to write from it).
        plugin_filter : callable, optional
            ``plugin_filter(plugin) -> bool``: only the plugins it accepts are
            written (the rest is dropped).

        Returns
        -------
        bool
            False once the record is closed (an error is logged).

        >>> import tempfile, cellkit as ms
        >>> with ms.SummaryRecord(tempfile.mkdtemp()) as summary:
        ...     summary.add_value("scalar", "loss", ms.Tensor(1.0))
        ...     summary.record(step=3)
        True
        """
        _type_check("step", step, (int,))
        _type_check("train_network", train_network, (Cell, type(None)))
        if self._closed:
            _log.error("For 'SummaryRecord', The record writer is closed, please check if close() method is called")
            return False
        if self.network is not None and not self._warned_graph:
            # MindSpore writes the network's compiled (ANF) graph here; cellkit has none in that format.
            _log.warning("Failed to get proto for graph.")
            self._warned_graph = True
        if self._mode == "train":
            for plugin, name, tensor in _summary_op_values():
                self.add_value(plugin, name, tensor)
        pool = self._consume_data_pool(step)
        if plugin_filter:
            pool = {plugin: items for plugin, items in pool.items() if plugin_filter(plugin)}
        self._write(_pack(pool, time.time()))
        return True

    @property
    def log_dir(self):
        """The full path of the summary file (it exists once something was recorded)."""
        return self.file_info["file_path"]

    def flush(self):
        """Push buffered records to the disk."""
        if self._closed:
            _log.error("For 'SummaryRecord', the record writer is closed and can not flush, "
                       "please check if close() method is called")
            return
        for writer in self._writers.values():
            writer.flush()

    def close(self):
        """Flush and close the files (they become read-only) and let a new SummaryRecord open."""
        if not self._closed:
            _OPEN_RECORDS.discard(self)
            for writer in self._writers.values():
                writer.close()
            self._closed = True
        self._release_count()

    def __del__(self):
        # A record nobody holds any more is closed, and frees the one-record slot.  (MindSpore's atexit hook keeps
        # every record alive, so a notebook cell re-run without close() can never open one again; here it can.)
        if getattr(self, "_counted", False) or not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:  # noqa: BLE001 -- never raise from a finalizer
                pass

    # ------------------------------------------------------------------ helpers
    def _release_count(self):
        # MindSpore lowers the count on every close(), so closing twice lets two records open at once; once is enough.
        if self._counted:
            with _instance_lock:
                SummaryRecord.count -= 1
            self._counted = False

    @classmethod
    def _check_count(cls):
        if cls.count > 0:
            raise RuntimeError(
                f"For '{cls.__name__}', only one instance is supported in a training process, "
                f"you are trying to create a new one when the existing instance number is {cls.count}. "
                "Please check your scripts.")

    def _consume_data_pool(self, step):
        pool, self._data_pool = self._data_pool, defaultdict(list)
        for items in pool.values():
            for item in items:
                item["step"] = step
        return pool

    def _write(self, packed):
        for kind, data in packed:
            if kind == "export":
                self._export(data)
                continue
            writer = self._writers.get(kind)
            if writer is None:
                continue
            try:
                writer.write(data)
            except SizeLimitReached as exc:
                _log.warning("%s", exc)
                self._drop_writer(kind)
            except (RuntimeError, OSError) as exc:
                _log.error("%s", exc)
                self._drop_writer(kind)
                if self.raise_exception:
                    raise

    def _drop_writer(self, kind):
        writer = self._writers.pop(kind)
        writer.close()

    def _export(self, data):
        if data.get("export_option") != "npy" or self._export_dir is None:
            return
        folder = make_directory(os.path.join(self._export_dir, "tensor"), "path")
        path = f"{folder}/{quote(data['tag'], safe='')}_{int(data['step'])}.npy"
        np.save(path, data["value"])
        os.chmod(path, 0o400)


def _pack(pool, wall_time):
    """``[(writer, bytes)]`` for a consumed data pool: graph and lineage events first, the summary event last."""
    out, values, step = [], [], None
    for plugin, items in pool.items():
        for item in items:
            if plugin == "graph":
                graph = message_class("ModelProto").FromString(item["value"]).graph
                event = message_class("Event")(wall_time=time.time(), graph_def=graph)  # no step, as MindSpore
                out.append(("summary", event.SerializeToString()))
            elif plugin in _LINEAGE_PLUGINS:
                kind, field = _LINEAGE_PLUGINS[plugin]
                event = message_class("LineageEvent")(wall_time=time.time())
                getattr(event, field).ParseFromString(item["value"])
                out.append(("lineage", event.SerializeToString()))
            elif plugin in _VALUE_PLUGINS or plugin == "landscape":
                values.append((plugin, item["tag"], item["value"]))
                step = item["step"]
            if "export_option" in item:
                out.append(("export", item))
    if values:
        out.append(("summary", _summary_event(values, step, wall_time).SerializeToString()))
    return out


def _summary_event(values, step, wall_time):
    event = message_class("Event")(wall_time=wall_time, step=int(step))
    summary = event.summary
    for plugin, tag, data in values:
        value = summary.value.add()
        value.tag = tag
        keep = True
        if plugin == "scalar":
            keep = fill_scalar(tag, data, value)
        elif plugin == "tensor":
            fill_tensor(tag, data, value.tensor)
        elif plugin == "image":
            keep = fill_image(tag, data, value.image)
        elif plugin == "histogram":
            fill_histogram(data, value.histogram)
        else:
            value.loss_landscape.ParseFromString(data)
        if not keep:
            del summary.value[-1]
    return event
