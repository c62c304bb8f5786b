"""Checkpoints during training: ``ModelCheckpoint`` with ``CheckpointConfig``, ``BackupAndRestore``, ``OnRequestExit``.

``ModelCheckpoint`` writes MindSpore-loadable ``.ckpt`` files (through
:func:`cellkit.save_checkpoint`, which writes atomically: a temporary file, then a rename) named
as MindSpore names them: ``<prefix>-<epoch>_<step in epoch>.ckpt``; a prefix already used in the
directory becomes ``<prefix>_1``, ``<prefix>_2`` ... (so two runs never mix their files).  The
saved network is the training Cell, so the optimizer's state (``global_step``,
``learning_rate``, ``moments.*``) is in the file, as in MindSpore.  In PyNative mode MindSpore
writes no ``-graph.meta`` file, and neither does cellkit.

The callback itself only wires small rules together; they live in ``checkpoint_policy.py``:
when a save is due (``_SaveSchedule``), which old files go (``_Retention``) and how files are
named.  ``CheckpointConfig`` checks its arguments with one small function per rule, below.

>>> import os, tempfile
>>> import numpy as np
>>> from cellkit import nn
>>> from cellkit.train import Model, ModelCheckpoint, CheckpointConfig
>>> x = np.ones((4, 3), np.float32); y = np.zeros((4, 2), np.float32)
>>> net = nn.Dense(3, 2)
>>> model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
>>> folder = tempfile.mkdtemp()
>>> ckpt = ModelCheckpoint(prefix="net", directory=folder, config=CheckpointConfig(save_checkpoint_steps=2))
>>> model.train(2, [(x, y)] * 3, callbacks=[ckpt])
>>> sorted(os.listdir(folder))
['net-1_2.ckpt', 'net-2_1.ckpt', 'net-2_3.ckpt']
"""
from __future__ import annotations

import os
import signal
import sys
import threading

from ..nn.cell import Cell
from ..parameter import Parameter
from ..serialization import load_checkpoint, save_checkpoint
from ..tensor import Tensor
from .callback import Callback, _check_bool, _check_non_negative_int
from .checkpoint_policy import (_breakpoint_file_name, _ensure_folder, _free_prefix, _periodic_file_name, _Retention,
                                _SaveSchedule)

__all__ = ["CheckpointConfig", "ModelCheckpoint", "BackupAndRestore", "OnRequestExit"]

_CONFIG = "CheckpointConfig"
_COUNTERS = ("epoch_num", "step_num")  # the strings ``append_info`` may hold
_EXTRA_VALUE_TYPES = (int, float, bool, str, Parameter, Tensor)


# ----------------------------------------------------------------------------- CheckpointConfig: one rule each


def _count_or_none(value, name):
    """A save/keep setting is None or an int >= 0."""
    if value is None:
        return None
    return _check_non_negative_int(value, name, _CONFIG)


def _cell_or_none(saved_network):
    """``saved_network`` is None or a Cell."""
    if saved_network is None or isinstance(saved_network, Cell):
        return saved_network
    raise TypeError("For 'CheckpointConfig', the type of 'saved_network' must be None or Cell, "
                    f"but got {type(saved_network)}.")


def _require_a_policy(*settings):
    """At least one of the four save/keep settings must be switched on."""
    if any(settings):
        return
    raise ValueError("For 'CheckpointConfig', the input arguments 'save_checkpoint_steps', "
                     "'save_checkpoint_seconds', 'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' "
                     "can't be all None or 0.")


def _steps_over_seconds(steps, seconds):
    """Saving every N steps, when asked for, switches saving by time off."""
    if steps and steps > 0:
        return steps, None
    return steps, seconds


def _max_over_minutes(keep_max, per_minutes):
    """A positive file count switches the per-minutes rule off; with neither, one file is kept."""
    if keep_max and keep_max > 0:
        return keep_max, None
    if not per_minutes:
        return 1, per_minutes
    return keep_max, per_minutes


def _async_setting(async_save):
    """A bool, or a str naming how to write in the background (kept as given)."""
    names_a_writer = isinstance(async_save, str)
    return async_save if names_a_writer else _check_bool(async_save, "async_save", _CONFIG)


def _extra_entry(key, value):
    """One entry of the dict in ``append_info``: a str key and a scalar, str or Tensor value."""
    if isinstance(key, str) and isinstance(value, _EXTRA_VALUE_TYPES):
        return
    raise TypeError("For 'CheckpointConfig', the key type of the dict 'append_info' must be "
                    "string, the value type must be int or float or bool, "
                    f"but got key type {type(key)}, value type {type(value)}")


def _extra_entries(append_info):
    """``append_info`` as the dict written next to the Parameters (None when nothing is asked for).

    The counters ``'epoch_num'`` / ``'step_num'`` start at 0 (``ModelCheckpoint`` fills them in);
    at most one dict adds fixed entries.
    """
    if isinstance(append_info, list):
        if not append_info:
            return None
    elif append_info is None:
        return None
    else:
        raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' must be list,but got {type(append_info)}.")
    entries = {counter: 0 for counter in _COUNTERS if counter in append_info}
    dicts_seen = 0
    for item in append_info:
        if isinstance(item, str):
            if item not in _COUNTERS:
                raise ValueError("For 'CheckpointConfig', the value of element in the argument 'append_info' "
                                 f"must be in {list(_COUNTERS)}, but got {item}.")
        elif isinstance(item, dict):
            dicts_seen += 1
            if dicts_seen > 1:
                raise TypeError(f"For 'CheckpointConfig', the element of 'append_info' must has only one dict, "
                                f"but got {dicts_seen}")
            for key, value in item.items():
                _extra_entry(key, value)
                entries[key] = value
        else:
            raise TypeError("For 'CheckpointConfig', the type of 'append_info' element must be str or dict,"
                            f"but got {type(item)}.")
    return entries


def _bytes_or_none(enc_key):
    if enc_key is None or isinstance(enc_key, bytes):
        return enc_key
    raise TypeError(f"For 'CheckpointConfig', 'enc_key' must be bytes or None, but got {type(enc_key)}.")


def _mode_text(enc_mode):
    if isinstance(enc_mode, str):
        return enc_mode
    raise TypeError(f"For 'CheckpointConfig', 'enc_mode' must be str, but got {type(enc_mode)}.")


def _file_format(fmt):
    if fmt in ("ckpt", "safetensors"):
        return fmt
    raise ValueError(f"For 'CheckpointConfig', 'format' must be 'ckpt' or 'safetensors', but got {fmt!r}.")


def _setting(name, doc):
    """A read-only property showing one entry of the config's ``_settings``."""
    return property(lambda self: self._settings[name], doc=doc)


class CheckpointConfig:
    """When ``ModelCheckpoint`` saves, how many files it keeps, and what goes in them.

    Parameters
    ----------
    save_checkpoint_steps : int
        Save every this many steps (default 1).  When given (> 0),
        ``save_checkpoint_seconds`` is ignored.
    save_checkpoint_seconds : int
        Save when this many seconds have passed since the last save.
    keep_checkpoint_max : int
        Keep at most this many files (default 5): the oldest is deleted
        first.  When given (> 0), ``keep_checkpoint_per_n_minutes`` is ignored.
    keep_checkpoint_per_n_minutes : int
        Keep one file per this many minutes.
    integrated_save, async_save : bool
        Accepted (one process; ``async_save`` writes from a thread).
    saved_network : Cell, optional
        Save this Cell instead of the training network.
    append_info : list, optional
        ``'epoch_num'``, ``'step_num'`` and at most one dict of extra
        entries (str keys; int, float, bool, str, Tensor or Parameter values)
        saved with the Parameters.
    enc_key, enc_mode : optional
        Encrypt the files (see :func:`cellkit.save_checkpoint`).
    exception_save : bool
        If training raises, save ``<prefix>-<epoch>_<step>_breakpoint.ckpt``
        before the exception propagates.
    crc_check : bool
    remove_redundancy : bool
        Only meaningful in parallel training: must be False here.
    format : str
        ``'ckpt'`` or ``'safetensors'``.

    Raises
    ------
    ValueError
        All four save/keep settings 0 or None; a negative one; an unknown
        ``append_info`` string or ``format``.
    TypeError
        A setting of the wrong type, ``saved_network`` not a Cell,
        ``append_info`` not a list, or two dicts in it.

    Examples
    --------
    >>> from cellkit.train import CheckpointConfig
    >>> cfg = CheckpointConfig(save_checkpoint_steps=10, keep_checkpoint_max=3, append_info=["epoch_num"])
    >>> cfg.get_checkpoint_policy()["keep_checkpoint_max"], cfg.append_dict
    (3, {'epoch_num': 0})
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, enc_key=None, enc_mode="AES-GCM", exception_save=False, crc_check=False,
                 remove_redundancy=False, format="ckpt", **kwargs):
        # The checks run in this order, so the first wrong argument is the one reported.
        steps = _count_or_none(save_checkpoint_steps, "save_checkpoint_steps")
        seconds = _count_or_none(save_checkpoint_seconds, "save_checkpoint_seconds")
        keep_max = _count_or_none(keep_checkpoint_max, "keep_checkpoint_max")
        per_minutes = _count_or_none(keep_checkpoint_per_n_minutes, "keep_checkpoint_per_n_minutes")
        network = _cell_or_none(saved_network)
        _require_a_policy(steps, seconds, keep_max, per_minutes)
        self.exception_save = _check_bool(exception_save, "exception_save", _CONFIG)
        steps, seconds = _steps_over_seconds(steps, seconds)
        keep_max, per_minutes = _max_over_minutes(keep_max, per_minutes)
        settings = {"save_checkpoint_steps": steps, "save_checkpoint_seconds": seconds,
                    "keep_checkpoint_max": keep_max, "keep_checkpoint_per_n_minutes": per_minutes}
        settings["integrated_save"] = _check_bool(integrated_save, "integrated_save", _CONFIG)
        settings["async_save"] = _async_setting(async_save)
        settings["saved_network"] = network
        settings["append_dict"] = _extra_entries(append_info)
        settings["enc_key"] = _bytes_or_none(enc_key)
        settings["enc_mode"] = _mode_text(enc_mode)
        settings["crc_check"] = _check_bool(crc_check, "crc_check", _CONFIG)
        settings["format"] = _file_format(format)
        settings["map_param_inc"] = kwargs.get("incremental", False)
        self._settings = settings
        self.enable_redundance = kwargs.get("enable_redundance", False)
        self.remove_redundancy = _check_bool(remove_redundancy, "remove_redundancy", _CONFIG)

    save_checkpoint_steps = _setting("save_checkpoint_steps", "Steps between saves (None when saving by time).")
    save_checkpoint_seconds = _setting("save_checkpoint_seconds", "Seconds between saves (None when saving by steps).")
    keep_checkpoint_max = _setting("keep_checkpoint_max", "How many files are kept.")
    keep_checkpoint_per_n_minutes = _setting("keep_checkpoint_per_n_minutes", "Keep one file per this many minutes.")
    integrated_save = _setting("integrated_save", "Accepted (one process).")
    async_save = _setting("async_save", "Write from a thread.")
    saved_network = _setting("saved_network", "The Cell saved instead of the training one.")
    enc_key = _setting("enc_key", "The encryption key (bytes) or None.")
    enc_mode = _setting("enc_mode", "The encryption mode.")
    crc_check = _setting("crc_check", "Whether a CRC is written.")
    format = _setting("format", "'ckpt' or 'safetensors'.")
    append_dict = _setting("append_dict", "The extra entries saved with the Parameters.")
    map_param_inc = _setting("map_param_inc", "Incremental map-parameter saving (unused).")

    def get_checkpoint_policy(self):
        """The save and keep settings as a dict."""
        wanted = ("save_checkpoint_steps", "save_checkpoint_seconds", "keep_checkpoint_max",
                  "keep_checkpoint_per_n_minutes", "saved_network")
        return {name: self._settings[name] for name in wanted}


# ----------------------------------------------------------------------------- ModelCheckpoint


def _usable_prefix(prefix):
    """A file-name prefix is a str without '/'."""
    return isinstance(prefix, str) and "/" not in prefix


class ModelCheckpoint(Callback):
    """Save checkpoints while ``Model`` trains, as :class:`CheckpointConfig` says.

    Parameters
    ----------
    prefix : str or callable
        File names are ``<prefix>-<epoch>_<step in epoch>.ckpt`` (default
        prefix ``'CKP'``).  A callable gets the run's ``cb_params`` at each
        step and returns the whole name, without ``.ckpt``.
    directory : str or callable, optional
        The folder (created if missing; default the current one), or a
        callable returning it from ``cb_params``.
    config : CheckpointConfig, optional

    Attributes
    ----------
    latest_ckpt_file_name : str
        The path of the last file written ('' before the first).

    Raises
    ------
    ValueError
        ``prefix`` neither callable nor a str without ``'/'``.
    TypeError
        ``config`` not a :class:`CheckpointConfig`.

    Examples
    --------
    >>> import tempfile
    >>> from cellkit.train import ModelCheckpoint, CheckpointConfig
    >>> ckpt = ModelCheckpoint(prefix="lenet", directory=tempfile.mkdtemp(),
    ...                        config=CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=2))
    >>> ckpt.latest_ckpt_file_name
    ''
    """

    def __init__(self, prefix="CKP", directory=None, config=None):
        if not callable(prefix) and not _usable_prefix(prefix):
            raise ValueError("For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is invalid, it "
                             f"must be callable or string that does not contain '/', but got {prefix}.")
        # Where files go: a fixed folder, or one asked of ``folder_maker`` at every step.
        self._folder_maker = directory if callable(directory) else None
        if self._folder_maker is not None:
            self._folder = None
        elif directory is None:
            self._folder = os.getcwd()
        else:
            self._folder = _ensure_folder(directory, "directory")
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError("For 'ModelCheckpoint', the type of argument 'config' should be 'CheckpointConfig', "
                            f"but got {type(config)}.")
        self._config = config
        # What files are called: ``prefix`` as given (breakpoint files use it), the name maker when it
        # is callable, and the stem in use now (a fixed prefix moves to ``<prefix>_N`` if taken).
        self._given_prefix = prefix
        self._name_maker = prefix if callable(prefix) else None
        self._stem = prefix
        if self._name_maker is None and self._folder_maker is None:
            self._stem = _free_prefix(self._folder, prefix)
        self._schedule = _SaveSchedule(config.save_checkpoint_steps, config.save_checkpoint_seconds)
        self._retention = _Retention(config.keep_checkpoint_max, config.keep_checkpoint_per_n_minutes, config.format)
        # ``append_info``'s entries; the counters are the configured start values plus the run's own.
        self._extras = config.append_dict or {}
        self._counter_start = {counter: self._extras.get(counter, 0) for counter in _COUNTERS}
        self._position = (0, 0)  # (epoch, step within it) of the step running now, for a breakpoint file
        self._running_network = None
        self._newest_file = ""

    @property
    def latest_ckpt_file_name(self):
        """The path of the last checkpoint written."""
        return self._newest_file

    def step_end(self, run_context):
        """Save if the configured number of steps (or seconds) has passed."""
        run = run_context.original_args()
        if self._name_maker is not None:
            self._stem = self._name_maker(run)
            if not _usable_prefix(self._stem):
                raise ValueError("For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is callable, "
                                 f"it must return a string that does not contain '/', but got {self._stem}.")
        if self._folder_maker is not None:
            self._folder = _ensure_folder(self._folder_maker(run), "directory")
        self._save_if_due(run)

    def end(self, run_context):
        """Save the last state when training ends."""
        self._save_if_due(run_context.original_args(), at_end=True)

    def on_train_step_begin(self, run_context):
        run = run_context.original_args()
        steps_per_epoch = run.get("batch_num") or 0
        step = run.get("cur_step_num", 0) + 1
        step_in_epoch = (step - 1) % steps_per_epoch + 1 if steps_per_epoch else step
        self._position = (run.get("cur_epoch_num", 0), step_in_epoch)
        self._running_network = run.get("train_network")

    def __exit__(self, exc_type, exc, tb):
        failed = exc_type is not None
        if failed and self._config.exception_save and self._running_network is not None and self._folder is not None:
            self._save_breakpoint()
        return None

    def _count_into_extras(self, epoch, step):
        """Write the run's epoch and step into the ``append_info`` counters that were asked for."""
        for counter, value in (("epoch_num", epoch), ("step_num", step)):
            if counter in self._extras:
                self._extras[counter] = self._counter_start[counter] + value

    def _save_breakpoint(self):
        epoch, step_in_epoch = self._position
        base = self._given_prefix if isinstance(self._given_prefix, str) else "CKP"
        stem = _free_prefix(self._folder, base, breakpoints=True)
        target = os.path.join(self._folder, _breakpoint_file_name(stem, epoch, step_in_epoch))
        self._count_into_extras(epoch, step_in_epoch)
        cfg = self._config
        save_checkpoint(self._running_network, target, cfg.integrated_save, False, self._extras or None,
                        cfg.enc_key, cfg.enc_mode)

    def _file_name_for(self, epoch, step):
        extension = self._config.format
        if self._name_maker is not None:  # the callable gave the whole name
            return f"{self._stem}.{extension}"
        return _periodic_file_name(self._stem, epoch, step, extension)

    def _save_if_due(self, run, at_end=False):
        step = run.cur_step_num
        if not self._schedule.due(step, at_end):
            return
        epoch = run.cur_epoch_num
        steps_per_epoch = run.get("batch_num") or step
        name = self._file_name_for(epoch, int((step - 1) % steps_per_epoch + 1))
        self._retention.make_room(self._folder, self._stem)
        target = os.path.join(self._folder, name)
        self._schedule.saved(step)
        self._count_into_extras(epoch, step)
        cfg = self._config
        network = run.train_network if cfg.saved_network is None else cfg.saved_network
        # save_checkpoint writes a temporary file and renames it, so a crash never leaves half a checkpoint.
        save_checkpoint(network, target, cfg.integrated_save, cfg.async_save, self._extras or None,
                        cfg.enc_key, cfg.enc_mode, crc_check=cfg.crc_check, format=cfg.format)
        self._newest_file = target


# ----------------------------------------------------------------------------- BackupAndRestore


def _epochs_between_backups(save_freq):
    """``'epoch'`` means every epoch; otherwise a positive int."""
    if isinstance(save_freq, str) and save_freq == "epoch":
        return 1
    if isinstance(save_freq, bool) or not isinstance(save_freq, int):
        raise TypeError(f"For 'BackupAndRestore', 'save_freq' must be 'epoch' or an int, but got {save_freq!r}.")
    if save_freq <= 0:
        raise ValueError(f"For 'BackupAndRestore', 'save_freq' must be a positive int, but got {save_freq}.")
    return save_freq


class BackupAndRestore(Callback):
    """Back the training network up to ``<backup_dir>/backup.ckpt`` every epoch; restore it when training starts.

    A run that was interrupted picks up the Parameters (and optimizer
    state) of its last backed-up epoch when started again with the same
    callback.

    Parameters
    ----------
    backup_dir : str
        Created if missing.
    save_freq : 'epoch' or int
        Back up every epoch, or every this many epochs.
    delete_checkpoint : bool
        Delete the backup when training ends normally (default True).

    Raises
    ------
    ValueError
        ``save_freq`` neither ``'epoch'`` nor a positive int.
    TypeError
        ``delete_checkpoint`` not a bool.

    Examples
    --------
    >>> import tempfile
    >>> from cellkit.train import BackupAndRestore
    >>> BackupAndRestore(tempfile.mkdtemp(), save_freq=2).save_freq
    2
    """

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        folder = _ensure_folder(backup_dir, "backup_dir")
        self.backup_file = os.path.join(folder, "backup.ckpt")
        self.save_freq = _epochs_between_backups(save_freq)
        self.delete_checkpoint = _check_bool(delete_checkpoint, "delete_checkpoint", "BackupAndRestore")

    def _has_backup(self):
        return os.path.exists(self.backup_file)

    def on_train_begin(self, run_context):
        """Load the backup, if one is there, into the network about to train."""
        if self._has_backup():
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context):
        """Overwrite the backup every ``save_freq`` epochs."""
        run = run_context.original_args()
        if run.cur_epoch_num % self.save_freq == 0:
            save_checkpoint(run.train_network, self.backup_file)

    def on_train_end(self, run_context):
        """Training finished: the backup is no longer needed (unless ``delete_checkpoint`` is False)."""
        if self.delete_checkpoint and self._has_backup():
            os.remove(self.backup_file)


# ----------------------------------------------------------------------------- OnRequestExit


class OnRequestExit(Callback):
    """Stop training cleanly on a signal (SIGTERM by default), saving the network first.

    When the signal arrives, training stops after the current step and
    ``<directory>/rank_0/<file_name>_train.ckpt`` is written (and, with
    ``save_mindir``, the network is exported with :func:`cellkit.export`
    when it is available).  At the next ``train`` the file, if present, is
    loaded back into the network.

    Parameters
    ----------
    save_ckpt, save_mindir : bool
    file_name : str
    directory : str
    config_file : str, optional
        A JSON file; ``{"GracefulExit": 1}`` in it also requests the exit.
    sig : int
        The signal (not SIGKILL).

    Raises
    ------
    TypeError
        A setting of the wrong type.
    ValueError
        ``sig`` is SIGKILL.

    Examples
    --------
    >>> import signal, tempfile
    >>> from cellkit.train import OnRequestExit
    >>> OnRequestExit(directory=tempfile.mkdtemp(), sig=signal.SIGUSR1).sig == signal.SIGUSR1
    True
    """

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./", config_file=None,
                 sig=signal.SIGTERM):
        self.save_ckpt = _check_bool(save_ckpt, "save_ckpt", "OnRequestExit")
        self.save_mindir = _check_bool(save_mindir, "save_mindir", "OnRequestExit")
        if isinstance(sig, bool) or not isinstance(sig, int):
            raise TypeError(f"For 'OnRequestExit', the type of 'sig' must be int, but got {type(sig).__name__}.")
        if hasattr(signal, "SIGKILL") and sig == signal.SIGKILL:
            raise ValueError("Not support send exit request by signal SIGKILL.")
        self.sig = sig
        self.exit = False
        self.lock = threading.Lock()
        self.save_path = directory
        self.key = "GracefulExit"
        self.remote_config_file = config_file
        self._handler_before = None  # the handler of ``sig`` to put back when the run is over
        if save_ckpt or save_mindir:
            self.train_name, self.eval_name = self._file_stems(file_name)

    def _file_stems(self, file_name):
        """``<directory>/rank_0/<file_name>_train`` and ``..._eval`` (the folder is created)."""
        parent = os.getcwd() if self.save_path is None else self.save_path
        folder = _ensure_folder(os.path.join(parent, "rank_0"), "directory")
        return os.path.join(folder, f"{file_name}_train"), os.path.join(folder, f"{file_name}_eval")

    def _on_signal(self, signum, frame):
        self.exit = True

    def _listen(self):
        # Python lets only the main thread install signal handlers.
        if threading.current_thread() is threading.main_thread():
            self._handler_before = signal.signal(self.sig, self._on_signal)

    def __exit__(self, *exc):
        if self._handler_before is not None:
            signal.signal(self.sig, self._handler_before)
            self._handler_before = None
        return None

    def _config_file_asks(self):
        """True when the JSON config file exists and sets ``GracefulExit`` to 1."""
        path = self.remote_config_file
        if path is None or not os.path.exists(path):
            return False
        import json
        try:
            with open(path, encoding="utf-8") as handle:
                content = json.load(handle)
        except (OSError, ValueError):
            return False
        return isinstance(content, dict) and content.get(self.key) == 1

    def _exit_wanted(self):
        if not self.exit and self._config_file_asks():
            self.exit = True
        return self.exit

    @staticmethod
    def _load_if_present(stem, network):
        """Load ``<stem>.ckpt`` into ``network`` when the file exists; say whether it did."""
        path = f"{stem}.ckpt"
        if not os.path.isfile(path):
            return False
        load_checkpoint(path, net=network)
        return True

    def on_train_begin(self, run_context):
        self._listen()
        if self.save_ckpt:
            self._load_if_present(self.train_name, run_context.original_args().train_network)

    def on_train_step_end(self, run_context):
        with self.lock:
            if self._exit_wanted():
                run_context.request_stop()

    def on_train_end(self, run_context):
        if self.exit:
            run = run_context.original_args()
            self._write_state(run.train_network, self.train_name, run.get("train_dataset_element"))

    def on_eval_begin(self, run_context):
        self._listen()
        if self.save_ckpt:
            network = run_context.original_args().eval_network
            # An evaluation's own file first; else what the interrupted training left.
            if not self._load_if_present(self.eval_name, network):
                self._load_if_present(self.train_name, network)

    def on_eval_step_end(self, run_context):
        if self._exit_wanted():
            run_context.request_stop()

    def on_eval_end(self, run_context):
        if self.exit:
            run = run_context.original_args()
            self._write_state(run.eval_network, self.eval_name, run.get("eval_dataset_element"))

    def _write_state(self, network, stem, inputs):
        if self.save_ckpt:
            save_checkpoint(network, f"{stem}.ckpt")
        if self.save_mindir and inputs is not None:
            # ``export`` lives at the top level (the graph layer's file format), which this layer does not import.
            export = getattr(sys.modules.get("cellkit"), "export", None)
            if export is not None:
                export(network, *inputs, file_name=stem, file_format="MINDIR")
