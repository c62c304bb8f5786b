"""Checkpoints during training: ``ModelCheckpoint`` with ``CheckpointConfig``, ``BackupAndRestore``, ``OnRequestExit``.

``ModelCheckpoint`` writes MindSpore-loadable ``.ckpt`` files (through
:func:`cellkit.save_checkpoint`, which writes atomically: a temporary file, then a rename) named
as MindSpore names them: ``<prefix>-<epoch>_<step in epoch>.ckpt``; a prefix already used in the
directory becomes ``<prefix>_1``, ``<prefix>_2`` ... (so two runs never mix their files).  The
saved network is the training Cell, so the optimizer's state (``global_step``,
``learning_rate``, ``moments.*``) is in the file, as in MindSpore.  In PyNative mode MindSpore
writes no ``-graph.meta`` file, and neither does cellkit.

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
import time

from ..nn.cell import Cell
from ..parameter import Parameter
from ..serialization import load_checkpoint, save_checkpoint
from ..tensor import Tensor
from .callback import Callback, _check_bool, _check_non_negative_int

__all__ = ["CheckpointConfig", "ModelCheckpoint", "BackupAndRestore", "OnRequestExit"]

_INFO_LIST = ("epoch_num", "step_num")


def _make_directory(path, arg_name="path"):
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"The '{arg_name}' should be a non-empty string, but got {path!r}.")
    given = path
    path = os.path.realpath(os.path.expanduser(path))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:  # a file of that name, no permission, a name the file system refuses ...
        raise ValueError(f"The '{arg_name}' must be a folder that exists or can be created, but got {given!r}: "
                         f"the directory {path!r} cannot be created ({exc})") from None
    return path


def _prefix_if_taken(directory, prefix, exception=False):
    """``prefix``, or ``prefix_N`` when files of an earlier run with that prefix are in ``directory``."""
    suffix_num = 0
    for filename in os.listdir(directory):
        base, ext = os.path.splitext(filename)
        breakpoint_file = filename.endswith("_breakpoint.ckpt")
        if exception != breakpoint_file or (not exception and ext not in (".ckpt", ".safetensors")):
            continue
        if not filename.startswith(prefix) or len(filename) <= len(prefix) or filename[len(prefix)].isalpha():
            continue
        rest = filename[len(prefix):]
        index = rest.find("-")
        if index == 0:
            suffix_num = max(suffix_num, 1)
        elif index != -1 and rest[1:index].isdigit():
            suffix_num = max(suffix_num, int(rest[1:index]) + 1)
    return f"{prefix}_{suffix_num}" if suffix_num else prefix


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
        where = "CheckpointConfig"
        if save_checkpoint_steps is not None:
            save_checkpoint_steps = _check_non_negative_int(save_checkpoint_steps, "save_checkpoint_steps", where)
        if save_checkpoint_seconds is not None:
            save_checkpoint_seconds = _check_non_negative_int(save_checkpoint_seconds, "save_checkpoint_seconds",
                                                              where)
        if keep_checkpoint_max is not None:
            keep_checkpoint_max = _check_non_negative_int(keep_checkpoint_max, "keep_checkpoint_max", where)
        if keep_checkpoint_per_n_minutes is not None:
            keep_checkpoint_per_n_minutes = _check_non_negative_int(keep_checkpoint_per_n_minutes,
                                                                    "keep_checkpoint_per_n_minutes", where)
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError("For 'CheckpointConfig', the type of 'saved_network' must be None or Cell, "
                            f"but got {type(saved_network)}.")
        if not save_checkpoint_steps and not save_checkpoint_seconds and not keep_checkpoint_max \
                and not keep_checkpoint_per_n_minutes:
            raise ValueError("For 'CheckpointConfig', the input arguments 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds', 'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' "
                             "can't be all None or 0.")
        self.exception_save = _check_bool(exception_save, "exception_save", where)
        self._save_checkpoint_steps = save_checkpoint_steps
        self._save_checkpoint_seconds = save_checkpoint_seconds
        if self._save_checkpoint_steps and self._save_checkpoint_steps > 0:
            self._save_checkpoint_seconds = None
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        if self._keep_checkpoint_max and self._keep_checkpoint_max > 0:
            self._keep_checkpoint_per_n_minutes = None
        elif not self._keep_checkpoint_per_n_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = _check_bool(integrated_save, "integrated_save", where)
        self._async_save = _check_bool(async_save, "async_save", where) if not isinstance(async_save, str) \
            else async_save
        self._saved_network = saved_network
        self._append_dict = self._handle_append_info(append_info)
        if enc_key is not None and not isinstance(enc_key, bytes):
            raise TypeError(f"For 'CheckpointConfig', 'enc_key' must be bytes or None, but got {type(enc_key)}.")
        self._enc_key = enc_key
        if not isinstance(enc_mode, str):
            raise TypeError(f"For 'CheckpointConfig', 'enc_mode' must be str, but got {type(enc_mode)}.")
        self._enc_mode = enc_mode
        self._crc_check = _check_bool(crc_check, "crc_check", where)
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"For 'CheckpointConfig', 'format' must be 'ckpt' or 'safetensors', but got {format!r}.")
        self._format = format
        self._map_param_inc = kwargs.get("incremental", False)
        self.enable_redundance = kwargs.get("enable_redundance", False)
        self.remove_redundancy = _check_bool(remove_redundancy, "remove_redundancy", where)

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps,
                                     doc="Steps between saves (None when saving by time).")
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds,
                                       doc="Seconds between saves (None when saving by steps).")
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max, doc="How many files are kept.")
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes,
                                             doc="Keep one file per this many minutes.")
    integrated_save = property(lambda self: self._integrated_save, doc="Accepted (one process).")
    async_save = property(lambda self: self._async_save, doc="Write from a thread.")
    saved_network = property(lambda self: self._saved_network, doc="The Cell saved instead of the training one.")
    enc_key = property(lambda self: self._enc_key, doc="The encryption key (bytes) or None.")
    enc_mode = property(lambda self: self._enc_mode, doc="The encryption mode.")
    crc_check = property(lambda self: self._crc_check, doc="Whether a CRC is written.")
    format = property(lambda self: self._format, doc="'ckpt' or 'safetensors'.")
    append_dict = property(lambda self: self._append_dict, doc="The extra entries saved with the Parameters.")
    map_param_inc = property(lambda self: self._map_param_inc, doc="Incremental map-parameter saving (unused).")

    def get_checkpoint_policy(self):
        """The save and keep settings as a dict."""
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}

    @staticmethod
    def _handle_append_info(append_info):
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' must be list,but got {type(append_info)}.")
        handled = {}
        if "epoch_num" in append_info:
            handled["epoch_num"] = 0
        if "step_num" in append_info:
            handled["step_num"] = 0
        dicts = 0
        for element in append_info:
            if not isinstance(element, (str, dict)):
                raise TypeError("For 'CheckpointConfig', the type of 'append_info' element must be str or dict,"
                                f"but got {type(element)}.")
            if isinstance(element, str) and element not in _INFO_LIST:
                raise ValueError("For 'CheckpointConfig', the value of element in the argument 'append_info' "
                                 f"must be in {list(_INFO_LIST)}, but got {element}.")
            if isinstance(element, dict):
                dicts += 1
                if dicts > 1:
                    raise TypeError(f"For 'CheckpointConfig', the element of 'append_info' must has only one dict, "
                                    f"but got {dicts}")
                for key, value in element.items():
                    if not isinstance(key, str) or isinstance(value, (list, tuple, dict)) or \
                            not isinstance(value, (int, float, bool, str, Parameter, Tensor)):
                        raise TypeError("For 'CheckpointConfig', the key type of the dict 'append_info' must be "
                                        "string, the value type must be int or float or bool, "
                                        f"but got key type {type(key)}, value type {type(value)}")
                    handled[key] = value
        return handled


class _CheckpointManager:
    """The files of one prefix in one directory: listing, removing the oldest, keeping one per n minutes."""

    def __init__(self, format="ckpt"):
        self._files = []
        self._format = format

    @property
    def ckpoint_num(self):
        return len(self._files)

    def update_ckpoint_filelist(self, directory, prefix):
        self._files = []
        ext = f".{self._format}"
        for filename in os.listdir(directory):
            if os.path.splitext(filename)[-1] == ext and filename.startswith(prefix + "-"):
                middle = filename[len(prefix):-len(ext)]
                if not any(ch.isalpha() for ch in middle):
                    self._files.append(os.path.join(directory, filename))

    def remove_ckpoint_file(self, file_name):
        try:
            os.remove(file_name)
        except OSError:
            pass
        if file_name in self._files:
            self._files.remove(file_name)

    def remove_oldest_ckpoint_file(self):
        self.remove_ckpoint_file(sorted(self._files, key=os.path.getmtime)[0])

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        doomed, oldest_file, oldest_time = [], "", cur_time
        for path in self._files:
            modified = os.path.getmtime(path)
            if cur_time - modified < 60 * minutes:
                doomed.append(path)
                if modified < oldest_time:
                    oldest_time, oldest_file = modified, path
        for path in doomed:
            if path != oldest_file:
                self.remove_ckpoint_file(path)


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
        self._latest_ckpt_file_name = ""
        self._init_time = time.time()
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._last_triggered_step = 0
        self._directory_func = None
        self._prefix_func = None
        if not callable(prefix) and (not isinstance(prefix, str) or prefix.find("/") >= 0):
            raise ValueError("For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is invalid, it "
                             f"must be callable or string that does not contain '/', but got {prefix}.")
        self._prefix = prefix
        self._exception_prefix = prefix
        if directory is not None:
            if callable(directory):
                self._directory_func = directory
                self._directory = None
            else:
                self._directory = _make_directory(directory, "directory")
        else:
            self._directory = os.getcwd()
        if callable(prefix):
            self._prefix_func = prefix
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError("For 'ModelCheckpoint', the type of argument 'config' should be 'CheckpointConfig', "
                            f"but got {type(config)}.")
        self._config = config
        self._manager = _CheckpointManager(config.format)
        if not callable(directory) and not callable(prefix):
            self._prefix = _prefix_if_taken(self._directory, self._prefix)
        self._append_dict = config.append_dict or {}
        self._append_epoch_num = self._append_dict.get("epoch_num", 0)
        self._append_step_num = self._append_dict.get("step_num", 0)
        self._epoch_step = (0, 0)

    @property
    def latest_ckpt_file_name(self):
        """The path of the last checkpoint written."""
        return self._latest_ckpt_file_name

    def step_end(self, run_context):
        """Save if the configured number of steps (or seconds) has passed."""
        cb_params = run_context.original_args()
        if self._prefix_func:
            self._prefix = self._prefix_func(cb_params)
            if not isinstance(self._prefix, str) or self._prefix.find("/") >= 0:
                raise ValueError("For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is callable, "
                                 f"it must return a string that does not contain '/', but got {self._prefix}.")
        if self._directory_func:
            self._directory = _make_directory(self._directory_func(cb_params), "directory")
        self._save_ckpt(cb_params)

    def end(self, run_context):
        """Save the last state when training ends."""
        self._save_ckpt(run_context.original_args(), force_to_save=True)

    def on_train_step_begin(self, run_context):
        cb_params = run_context.original_args()
        batch_num = cb_params.get("batch_num") or 0
        step = cb_params.get("cur_step_num", 0) + 1
        self._epoch_step = (cb_params.get("cur_epoch_num", 0), (step - 1) % batch_num + 1 if batch_num else step)
        self._network = cb_params.get("train_network")

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and self._config.exception_save and getattr(self, "_network", None) is not None \
                and self._directory is not None:
            self._save_breakpoint()
        return None

    def _save_breakpoint(self):
        epoch, step = self._epoch_step
        prefix = self._exception_prefix if isinstance(self._exception_prefix, str) else "CKP"
        prefix = _prefix_if_taken(self._directory, prefix, exception=True)
        path = os.path.join(self._directory, f"{prefix}-{epoch}_{step}_breakpoint.ckpt")
        self._fill_append_dict(epoch, step)
        save_checkpoint(self._network, path, self._config.integrated_save, False, self._append_dict or None,
                        self._config.enc_key, self._config.enc_mode)

    def _check_save_ckpt(self, cb_params, force_to_save):
        steps = self._config.save_checkpoint_steps
        if steps and steps > 0:
            return cb_params.cur_step_num >= self._last_triggered_step + steps or force_to_save
        seconds = self._config.save_checkpoint_seconds
        if seconds and seconds > 0:
            now = time.time()
            if now - self._last_time > seconds or force_to_save:
                self._last_time = now
                return True
        return False

    def _fill_append_dict(self, epoch_num, step_num):
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = self._append_epoch_num + epoch_num
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = self._append_step_num + step_num

    def _save_ckpt(self, cb_params, force_to_save=False):
        if cb_params.cur_step_num == self._last_triggered_step:
            return
        if not self._check_save_ckpt(cb_params, force_to_save):
            return
        batch_num = cb_params.get("batch_num") or cb_params.cur_step_num
        step_in_epoch = int((cb_params.cur_step_num - 1) % batch_num + 1)
        fmt = self._config.format
        if self._prefix_func:
            name = f"{self._prefix}.{fmt}"
        else:
            name = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.{fmt}"
        self._manager.update_ckpoint_filelist(self._directory, self._prefix)
        keep_max = self._config.keep_checkpoint_max
        per_minutes = self._config.keep_checkpoint_per_n_minutes
        if keep_max and 0 < keep_max <= self._manager.ckpoint_num:
            self._manager.remove_oldest_ckpoint_file()
        elif per_minutes and per_minutes > 0:
            now = time.time()
            if now - self._last_time_for_keep < per_minutes * 60:
                self._manager.keep_one_ckpoint_per_minutes(per_minutes, now)
        path = os.path.join(self._directory, name)
        self._last_time_for_keep = time.time()
        self._last_triggered_step = cb_params.cur_step_num
        self._fill_append_dict(cb_params.cur_epoch_num, cb_params.cur_step_num)
        network = self._config.saved_network if self._config.saved_network is not None else cb_params.train_network
        save_checkpoint(network, path, self._config.integrated_save, self._config.async_save,
                        self._append_dict or None, self._config.enc_key, self._config.enc_mode,
                        crc_check=self._config.crc_check, format=fmt)
        self._latest_ckpt_file_name = path


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
        ckpt_dir = _make_directory(backup_dir, "backup_dir")
        self.backup_file = os.path.join(ckpt_dir, "backup.ckpt")
        if save_freq != "epoch":
            if isinstance(save_freq, bool) or not isinstance(save_freq, int):
                raise TypeError(f"For 'BackupAndRestore', 'save_freq' must be 'epoch' or an int, but got {save_freq!r}.")
            if save_freq <= 0:
                raise ValueError(f"For 'BackupAndRestore', 'save_freq' must be a positive int, but got {save_freq}.")
            self.save_freq = save_freq
        else:
            self.save_freq = 1
        self.delete_checkpoint = _check_bool(delete_checkpoint, "delete_checkpoint", "BackupAndRestore")

    def on_train_begin(self, run_context):
        if os.path.exists(self.backup_file):
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.cur_epoch_num % self.save_freq == 0:
            save_checkpoint(cb_params.train_network, self.backup_file)

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)


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
        self._previous_handler = None
        if self.save_ckpt or self.save_mindir:
            self.train_name, self.eval_name = self._get_save_path(file_name)

    def _get_save_path(self, file_name):
        base = os.getcwd() if self.save_path is None else self.save_path
        path = _make_directory(os.path.join(base, "rank_0"), "directory")
        return os.path.join(path, f"{file_name}_train"), os.path.join(path, f"{file_name}_eval")

    def _handle_signal(self, signum, frame):
        self.exit = True

    def _install(self):
        if threading.current_thread() is threading.main_thread():
            self._previous_handler = signal.signal(self.sig, self._handle_signal)

    def __exit__(self, *exc):
        if self._previous_handler is not None:
            signal.signal(self.sig, self._previous_handler)
            self._previous_handler = None
        return None

    def _requested(self):
        if self.exit:
            return True
        if self.remote_config_file is not None and os.path.exists(self.remote_config_file):
            import json
            try:
                with open(self.remote_config_file, encoding="utf-8") as f:
                    info = json.load(f)
            except (OSError, ValueError):
                return False
            if isinstance(info, dict) and info.get(self.key) == 1:
                self.exit = True
        return self.exit

    def on_train_begin(self, run_context):
        self._install()
        if self.save_ckpt and os.path.isfile(f"{self.train_name}.ckpt"):
            load_checkpoint(f"{self.train_name}.ckpt", net=run_context.original_args().train_network)

    def on_train_step_end(self, run_context):
        with self.lock:
            if self._requested():
                run_context.request_stop()

    def on_train_end(self, run_context):
        if not self.exit:
            return
        cb_params = run_context.original_args()
        self._save(cb_params.train_network, self.train_name, cb_params.get("train_dataset_element"))

    def on_eval_begin(self, run_context):
        self._install()
        if not self.save_ckpt:
            return
        net = run_context.original_args().eval_network
        for name in (self.eval_name, self.train_name):
            if os.path.isfile(f"{name}.ckpt"):
                load_checkpoint(f"{name}.ckpt", net=net)
                break

    def on_eval_step_end(self, run_context):
        if self._requested():
            run_context.request_stop()

    def on_eval_end(self, run_context):
        if not self.exit:
            return
        cb_params = run_context.original_args()
        self._save(cb_params.eval_network, self.eval_name, cb_params.get("eval_dataset_element"))

    def _save(self, network, name, inputs):
        if self.save_ckpt:
            save_checkpoint(network, f"{name}.ckpt")
        if self.save_mindir and inputs is not None:
            # ``export`` lives at the top level (the graph layer's file format), which this layer does not import.
            export = getattr(sys.modules.get("cellkit"), "export", None)
            if export is not None:
                export(network, *inputs, file_name=name, file_format="MINDIR")
