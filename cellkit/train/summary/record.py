"""``SummaryRecord``: collects values and writes them as MindSpore summary events (MindInsight's format).

How a record works, in cellkit's terms:

- :meth:`SummaryRecord.add_value` checks a value and puts it in an
  :class:`_Outbox` (grouped by plugin, first plugin first);
- :meth:`SummaryRecord.record` empties the outbox and :func:`_writes_for`
  turns its content into a list of writes: lineage and graph events, tensors
  to export as ``.npy``, and last the one summary event of the step;
- the writes go to two :class:`EventFileWriter` files (``..._MS`` and
  ``..._lineage``); a file that fails is dropped (or the error raised, with
  ``raise_exception=True``).

Only one record may be open at a time: :func:`_take_slot` / the ``count``
class attribute keep MindSpore's rule.
"""
from __future__ import annotations

import atexit
import logging
import os
import re
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any, Optional
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
_SLOT_LOCK = threading.Lock()  # guards SummaryRecord.count
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
            raise NotADirectoryError(f"The path({path}) is a file path, it should be a directory path. "
                                     f"(For '{owner}', '{arg_name}')")
        return path
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except PermissionError as exc:
        raise TypeError("No write permission on the directory.") from exc
    return path


def check_export_options(export_options):
    """``export_options`` checked as MindSpore checks it (None or ``{'tensor_format': 'npy' or None}``)."""
    _train_utils_type_check("export_options", export_options, (dict, type(None)))
    if not export_options:  # None or {}: nothing to export
        return export_options
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
        _take_slot(type(self))
        self._holds_slot = True
        self._closed = False
        self._phase = "train"
        self._outbox = _Outbox()
        self._graph_warned = False
        self._files = {}             # "summary" / "lineage" -> EventFileWriter, until one fails
        self._npy_folder = None      # where 'tensor' values are exported, when asked
        self._processes = num_process  # MindSpore's writer processes; cellkit writes in this thread
        # Public attributes, named as MindSpore names them.
        self.base_log_dir, self.network = log_dir, network
        self.file_prefix, self.file_suffix = file_prefix, file_suffix
        self.max_file_size, self.raise_exception = max_file_size, raise_exception
        self.file_info = {"file_name": None, "file_path": None}
        try:
            self._export_formats = self._open_files(export_options)
        except BaseException:
            self._free_slot()
            raise

    def _open_files(self, export_options):
        """Check the arguments (in MindSpore's order), name the two files and open their writers."""
        folder = make_directory(self.base_log_dir, "log_dir")
        limit = self.max_file_size
        if limit is not None and not isinstance(limit, int):
            raise TypeError(f"For 'SummaryRecord', the 'max_file_size' should be int type, "
                            f"but got type {type(limit)}" + given(limit))
        for label, part in (("file_prefix", self.file_prefix), ("file_suffix", self.file_suffix)):
            if not isinstance(part, str):
                # MindSpore's message shows the prefix's type either way; cellkit names the part that is wrong.
                raise TypeError(f"For 'SummaryRecord', `file_prefix` and `file_suffix`  should be str, "
                                f"but got type {type(part)} ('{label}'{given(part)})")
        _check_name(self.file_prefix, "file_prefix")
        _check_name(self.file_suffix, "file_suffix")
        if limit is not None and limit < 0:
            _log.warning("For 'SummaryRecord', the 'max_file_size' should be greater than 0. but got value %s.", limit)
            limit = self.max_file_size = None
        _type_check("raise_exception", self.raise_exception, (bool,))
        stamp = str(int(time.time()))
        summary_name = event_file_name(self.file_prefix, self.file_suffix, stamp)
        self.file_info.update(file_name=summary_name, file_path=os.path.join(folder, summary_name))
        export_options = check_export_options(export_options)
        if export_options is not None:
            self._npy_folder = os.path.join(self.base_log_dir, f"export_{stamp}", "tensor")
        lineage_file = os.path.join(folder, event_file_name(self.file_prefix, "_lineage", stamp))
        self._files["summary"] = EventFileWriter(self.file_info["file_path"], version_event=True, max_file_size=limit)
        self._files["lineage"] = EventFileWriter(lineage_file, max_file_size=limit)
        _OPEN_RECORDS.add(self)
        return export_options

    # --- context manager
    def __enter__(self):
        if self._closed:
            raise ValueError('For "SummaryRecord", SummaryRecord has been closed, '
                             'please check if close() method is called')
        return self

    def __exit__(self, *exc):
        self.close()

    # --- public API
    def set_mode(self, mode):
        """Set the phase, ``'train'`` or ``'eval'``: in ``'eval'``, values of the summary ops are not recorded.

        >>> import tempfile, cellkit as ms
        >>> with ms.SummaryRecord(tempfile.mkdtemp()) as summary:
        ...     summary.set_mode("eval")
        """
        if mode not in ("train", "eval"):
            raise ValueError(f'For "SummaryRecord.set_mode", {mode!r} is not a recognized mode, '
                             'expect the parameter "mode" is "train" or "eval"')
        self._phase = mode

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
            entry = self._tensor_entry(plugin, name, value)
        elif plugin in _LINEAGE_PLUGINS:
            wanted = _LINEAGE_PLUGINS[plugin][0]
            if not _message_named(value, wanted):
                raise TypeError(f"Plugin {plugin!r} expects a {wanted} value.")
            entry = _Entry(None, value.SerializeToString())
        elif plugin == "graph":
            if not isinstance(value, (bytes, bytearray)):
                raise TypeError(f"Plugin 'graph' expects the bytes of a serialized ModelProto, "
                                f"but got {type(value).__name__}")
            message_class("ModelProto").FromString(bytes(value))  # refuse what does not parse
            entry = _Entry(None, bytes(value))
        elif plugin == "landscape":
            if not _message_named(value, "LossLandscape"):
                raise TypeError("Plugin 'landscape' expects a LossLandscape value.")
            entry = _Entry(name, value.SerializeToString())
        else:
            raise ValueError(f'For "SummaryRecord.add_value", no such "plugin" of {plugin!r} , expect value is one '
                             'of [tensor, scalar, image, histogram, train_lineage, eval_lineage, dataset_graph, '
                             'custom_lineage_data, graph, landscape]')
        self._outbox.put(plugin, entry)

    def _tensor_entry(self, plugin, name, value):
        """A checked scalar / tensor / image / histogram as an outbox entry (a host copy of its array)."""
        if not (isinstance(name, str) and name):
            raise _NameNotString(f'For "SummaryRecord", the parameter "name" type should be str, '
                                 f'but got {type(name)}.')
        if not isinstance(value, Tensor):
            raise TypeError(f'For "SummaryRecord", the parameter "value" expect to be Tensor, '
                            f'but got {type(value).__name__}')
        array = value_to_numpy(plugin, value)
        if self._outbox.holds(plugin, name):
            _log.warning("For 'SummaryRecord.add_value', %r has duplicate values. Only the newest one will be "
                         "recorded.", f"{name}/{plugin}")
        options = self._export_formats or {}
        return _Entry(name, array, options.get(f"{plugin}_format"))

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
        if self.network is not None and not self._graph_warned:
            # MindSpore writes the network's compiled (ANF) graph here; cellkit has none in that format.
            _log.warning("Failed to get proto for graph.")
            self._graph_warned = True
        if self._phase == "train":  # what ops.*Summary noted inside the network joins this step
            for plugin, name, tensor in _summary_op_values():
                self.add_value(plugin, name, tensor)
        groups = self._outbox.take()
        if plugin_filter:
            groups = {plugin: entries for plugin, entries in groups.items() if plugin_filter(plugin)}
        for target, payload in _writes_for(groups, step, time.time()):
            if target == "npy":
                self._save_npy(payload, step)
            else:
                self._send(target, payload)
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
        for file in self._files.values():
            file.flush()

    def close(self):
        """Flush and close the files (they become read-only) and let a new SummaryRecord open."""
        if not self._closed:
            _OPEN_RECORDS.discard(self)
            for file in self._files.values():
                file.close()
            self._closed = True
        self._free_slot()

    def __del__(self):
        # A record nobody holds any more is closed, and frees the one-record slot.  (MindSpore's atexit hook keeps
        # every record alive, so a notebook cell re-run without close() can never open one again; here it can.)
        if getattr(self, "_holds_slot", False) or not getattr(self, "_closed", True):
            try:
                self.close()
            except Exception:  # noqa: BLE001 -- never raise from a finalizer
                pass

    # --- helpers
    def _free_slot(self):
        # Given back once per record: MindSpore lowers the count on every close(), so closing twice there lets two
        # records be open at once.
        if self._holds_slot:
            with _SLOT_LOCK:
                SummaryRecord.count -= 1
            self._holds_slot = False

    def _send(self, target, payload):
        """One event to one file; a file that fails is closed and no longer written."""
        file = self._files.get(target)
        if file is None:
            return
        try:
            file.write(payload)
        except SizeLimitReached as exc:
            _log.warning("%s", exc)
            self._files.pop(target).close()
        except (OSError, RuntimeError) as exc:
            _log.error("%s", exc)
            self._files.pop(target).close()
            if self.raise_exception:
                raise

    def _save_npy(self, entry, step):
        """``export_options={'tensor_format': 'npy'}``: a tensor value also as a read-only ``.npy`` file."""
        if entry.export != "npy" or self._npy_folder is None:
            return
        folder = make_directory(self._npy_folder, "path")
        path = f"{folder}/{quote(entry.tag, safe='')}_{int(step)}.npy"
        np.save(path, entry.payload)
        os.chmod(path, 0o400)


def _take_slot(cls):
    """Count one more open record, or refuse when one is open (MindSpore allows one per process)."""
    with _SLOT_LOCK:
        if cls.count > 0:
            raise RuntimeError(
                f"For '{cls.__name__}', only one instance is supported in a training process, "
                f"you are trying to create a new one when the existing instance number is {cls.count}. "
                "Please check your scripts.")
        SummaryRecord.count += 1


@dataclass
class _Entry:
    """One added value: its tag (None for lineage and graph), what is written, and its export format if any."""

    tag: Optional[str]
    payload: Any
    export: Optional[str] = None


class _Outbox:
    """Values added since the last record, grouped by plugin; groups keep the order their plugin first came in,
    which is the order of the values in the summary event."""

    def __init__(self):
        self._groups = {}

    def put(self, plugin, entry):
        self._groups.setdefault(plugin, []).append(entry)

    def holds(self, plugin, tag):
        return any(entry.tag == tag for entry in self._groups.get(plugin, ()))

    def take(self):
        """Everything queued, leaving the outbox empty."""
        groups, self._groups = self._groups, {}
        return groups


def _writes_for(groups, step, wall_time):
    """``[(target, payload)]`` for the content of an outbox, in order.

    Targets: ``"summary"`` / ``"lineage"`` with an event's bytes, ``"npy"``
    with an entry to export.  Graph and lineage events come in the order they
    were added; the summary event holding the step's values comes last.
    """
    writes, values = [], []
    for plugin, entries in groups.items():
        for entry in entries:
            if plugin == "graph":
                graph = message_class("ModelProto").FromString(entry.payload).graph
                # A graph event carries no step (MindSpore's is the same).
                writes.append(("summary", message_class("Event")(wall_time=time.time(), graph_def=graph)
                               .SerializeToString()))
            elif plugin in _LINEAGE_PLUGINS:
                field = _LINEAGE_PLUGINS[plugin][1]
                event = message_class("LineageEvent")(wall_time=time.time())
                getattr(event, field).ParseFromString(entry.payload)
                writes.append(("lineage", event.SerializeToString()))
            else:  # a tensor-like value or a landscape
                values.append((plugin, entry.tag, entry.payload))
            if entry.export is not None:
                writes.append(("npy", entry))
    if values:
        writes.append(("summary", _summary_event(values, step, wall_time).SerializeToString()))
    return writes


def _summary_event(values, step, wall_time):
    """The ``Event`` of one step: one ``Summary.Value`` per value (a scalar or image that cannot be shown is
    left out, as MindSpore leaves it)."""
    event = message_class("Event")(wall_time=wall_time, step=int(step))
    for plugin, tag, data in values:
        slot = event.summary.value.add()
        slot.tag = tag
        if plugin == "scalar":
            shown = fill_scalar(tag, data, slot)
        elif plugin == "image":
            shown = fill_image(tag, data, slot.image)
        else:
            shown = True
            if plugin == "tensor":
                fill_tensor(tag, data, slot.tensor)
            elif plugin == "histogram":
                fill_histogram(data, slot.histogram)
            else:
                slot.loss_landscape.ParseFromString(data)
        if not shown:
            del event.summary.value[-1]
    return event
