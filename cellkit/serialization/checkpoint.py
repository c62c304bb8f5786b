"""``save_checkpoint``, ``load_checkpoint`` and ``load_param_into_net``, as in MindSpore 2.10.

Saving takes a snapshot of every value on the host first (the only place
tensors leave the device), then writes the file *atomically*: into a
temporary file in the same folder, flushed to disk, then renamed over the
target.  An interrupted save leaves the previous file as it was (and a
temporary file that a killed process left is removed by the next save).  The file
ends up read-only for its owner, as MindSpore leaves its checkpoints.

Loading reads and checks the *whole* file before it returns anything or
touches a network: a truncated or corrupt file, a failed CRC or decryption,
an unknown dtype or a data length that does not match the shape raises
``ValueError`` naming the file, and ``net`` is left as it was.  Nothing is
ever unpickled.

Where cellkit departs from MindSpore 2.10, on purpose:

* ``load_checkpoint("model")`` also finds ``model.ckpt``, the file that
  ``save_checkpoint(net, "model")`` wrote (MindSpore refuses a name that does
  not end with the format).
* A ``.ckpt`` entry whose data is shorter than its shape is refused
  (MindSpore reads past it); Parameters loaded from a ``.safetensors`` file
  are named after their keys (MindSpore names them ``Parameter#<n>``);
  safetensors CRCs work for bfloat16 too (MindSpore fails to save them).
* A name that appears twice in a file (not as the consecutive slices of one
  large parameter) is refused, in ``.ckpt`` and ``.safetensors`` files alike
  (MindSpore keeps the last value silently).
* ``load_param_into_net`` checks every entry before changing any Parameter,
  so a shape or dtype error leaves the network untouched; a checkpoint shape
  with extra trailing 1s (``(3, 2, 1, 1)`` for ``(3, 2)``) is reshaped to the
  network's shape (MindSpore ends up keeping the 4-d shape).
* ``async_save`` (``True``, ``"thread"`` or ``"process"``) snapshots the
  values at once and writes the file on a background thread.
"""
from __future__ import annotations

import io
import logging
import os
import re
import stat
import tempfile
import threading

import numpy as np

from .. import backend as _backend
from .. import dtype as _dt
from ..nn import Cell
from ..parameter import Parameter
from ..tensor import Tensor
from . import cipher as _cipher
from . import ckpt_format as _ckpt
from . import safetensors_format as _st

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

_log = logging.getLogger("cellkit.serialization")
_FORMATS = ("ckpt", "safetensors")
_FLOAT_TYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.bfloat16)
_INT_TYPES = (_dt.int8, _dt.int16, _dt.int32, _dt.int64)


# ===================================================================== saving
def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None,
                    enc_key=None, enc_mode="AES-GCM", choice_func=None, crc_check=False, format="ckpt",
                    **kwargs):
    """Save Parameters and Tensors to a ``.ckpt`` (MindSpore's protobuf) or ``.safetensors`` file.

    Parameters
    ----------
    save_obj : Cell, list or dict
        A Cell (its Parameters, saved under ``param.name``); a list of
        Parameters (``cell.trainable_params()``) or of ``{"name": str, "data":
        Tensor}`` dicts; or a dict from name to Parameter, Tensor, NumPy
        array or str -- ``cell.state_dict()`` (buffers included) or what
        :func:`load_checkpoint` returned.
    ckpt_file_name : str
        The file; ``.ckpt`` (or ``.safetensors``) is appended unless the name
        already ends with the format.  An existing file is replaced.
    integrated_save : bool
        Accepted for compatibility (it matters to model-parallel runs only).
    async_save : bool or str
        ``True``, ``"thread"`` or ``"process"``: write the file in the
        background (the values are taken now).
    append_dict : dict, optional
        Extra entries, ``{str: int, float, bool, str, Parameter or Tensor}``,
        e.g. ``{"epoch": 3}`` (an int is saved as an Int64 scalar, a float as
        Float32, a bool as Bool).  ``choice_func`` does not filter them.
    enc_key : bytes, optional
        Encrypt the file with this key (16, 24 or 32 bytes); needs the
        ``cryptography`` package.
    enc_mode : str
        ``"AES-GCM"`` (default), ``"AES-CBC"`` or ``"SM4-CBC"``.
    choice_func : callable, optional
        ``choice_func(name) -> bool``: save only the entries it accepts.
    crc_check : bool
        Store a CRC-32 of the content in the file (not with ``enc_key``).
    format : str
        ``"ckpt"`` or ``"safetensors"``.
    **kwargs
        ``remove_redundancy`` (bool, recorded in a safetensors file's
        metadata); ``incremental`` and ``global_step_num`` are accepted.

    Raises
    ------
    TypeError
        If an argument or an entry has the wrong type.
    ValueError
        If ``format`` is unknown, an option does not fit the format, or the
        key or mode is invalid.
    IsADirectoryError
        If ``ckpt_file_name`` is a folder.

    Examples
    --------
    >>> import os, tempfile
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.Dense(2, 1)
    >>> path = os.path.join(tempfile.mkdtemp(), "dense.ckpt")
    >>> ms.save_checkpoint(net, path, append_dict={"epoch": 3})
    >>> ms.load_checkpoint(path)
    {'weight': Parameter (name=weight, shape=(1, 2), dtype=Float32, requires_grad=True), \
'bias': Parameter (name=bias, shape=(1,), dtype=Float32, requires_grad=True), \
'epoch': Parameter (name=epoch, shape=(), dtype=Int64, requires_grad=True)}
    """
    path = _save_path(save_obj, ckpt_file_name, format)
    _check_bool(integrated_save, "integrated_save", "save_checkpoint")
    async_save = _check_async_save(async_save)
    append_dict = _check_append_dict(append_dict)
    _check_type(enc_key, (type(None), bytes), "enc_key", "save_checkpoint")
    _check_type(enc_mode, str, "enc_mode", "save_checkpoint")
    _check_bool(crc_check, "crc_check", "save_checkpoint")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'save_checkpoint', 'choice_func' must be callable, but got {type(choice_func).__name__}")
    remove_redundancy = kwargs.get("remove_redundancy")
    _check_type(remove_redundancy, (type(None), bool), "remove_redundancy", "save_checkpoint")
    if format == "safetensors":
        defaults = {"enc_key": (enc_key, None), "enc_mode": (enc_mode, "AES-GCM"),
                    "incremental": (kwargs.get("incremental", False), False),
                    "global_step_num": (kwargs.get("global_step_num"), None)}
        for arg, (value, default) in defaults.items():
            if value != default:
                raise ValueError(f"For 'save_checkpoint', when format is 'safetensors', the parameter '{arg}' must "
                                 f"be set to default value '{default}', but got '{value}'.")
    if enc_key is not None:
        if crc_check:
            raise ValueError("For 'save_checkpoint', 'enc_key' and 'crc_check' cannot be used together: the CRC "
                             "would cover the plaintext that the file no longer holds")
        _cipher._check(enc_key, enc_mode)  # refuse a bad key (or a missing cryptography) before any work
        _cipher._crypto()

    entries = _collect_entries(save_obj, append_dict, choice_func)
    if format == "safetensors":
        texts = [name for name, value in entries.items() if isinstance(value, str)]
        if texts:
            raise ValueError(f"For 'save_checkpoint', a safetensors file holds only tensors, but entry "
                             f"'{texts[0]}' is text; save it with format='ckpt'")

    def job():
        if format == "ckpt":
            _write_ckpt(path, entries, enc_key, enc_mode, crc_check)
        else:
            _write_safetensors(path, entries, crc_check, remove_redundancy)

    _wait_async_save()
    if async_save:
        _start_async_save(job, path)
    else:
        job()


def _save_path(save_obj, ckpt_file_name, format):
    if format not in _FORMATS:
        raise ValueError(f"For 'save_checkpoint', the format must be 'safetensors' or 'ckpt', but got {format!r}.")
    if not isinstance(save_obj, (Cell, list, dict)):
        raise TypeError("For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, list or dict, "
                        f"but got {type(save_obj)}.")
    if isinstance(ckpt_file_name, os.PathLike):
        ckpt_file_name = os.fspath(ckpt_file_name)
    if not isinstance(ckpt_file_name, str):
        raise TypeError("For 'save_checkpoint', 'ckpt_file_name' must be a string, "
                        f"but got {type(ckpt_file_name)}.")
    path = os.path.realpath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', the parameter `ckpt_file_name` {ckpt_file_name!r}: {path} "
                                "is a directory, it must be a file name.")
    if not path.endswith(format):
        path += f".{format}"
    return path


def _check_async_save(async_save):
    if not isinstance(async_save, (bool, str)):
        raise TypeError(f"For 'save_checkpoint', the parameter 'async_save' must be bool or str, "
                        f"but got {type(async_save)}.")
    if isinstance(async_save, str) and async_save not in ("process", "thread"):
        raise ValueError("For 'save_checkpoint', the argument 'async_save' can only be 'process' or 'thread', "
                         f"but got {async_save!r}.")
    return async_save


def _check_append_dict(append_dict):
    if append_dict is None:
        return None
    if not isinstance(append_dict, dict):
        raise TypeError(f"For 'save_checkpoint', the argument 'append_dict' must be dict, "
                        f"but got {type(append_dict)}.")
    for key, value in append_dict.items():
        if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
            raise TypeError("For 'save_checkpoint', the type of dict 'append_dict' must be key: string, "
                            "value: int, float, bool, str, Parameter or Tensor, "
                            f"but got key: {type(key)}, value: {type(value)}")
    return append_dict


def _collect_entries(save_obj, append_dict, choice_func):
    """``{name: str or (host array, DType)}`` in saving order: the snapshot that gets written."""
    def chosen(name):
        return choice_func is None or bool(choice_func(name))

    items = []
    if isinstance(save_obj, Cell):
        save_obj.init_parameters_data()
        for _, param in save_obj.parameters_and_names():
            if not chosen(param.name):
                continue
            # A cache-enabled Parameter carries its key in the name (MindSpore strips it on load).
            name = f"{param.name}.__param_key__{param.key}" if param.cache_enable else param.name
            items.append((name, param))
    elif isinstance(save_obj, list):
        if save_obj and isinstance(save_obj[0], dict):
            for item in save_obj:
                if not (isinstance(item, dict) and "name" in item and "data" in item):
                    raise TypeError("For save_checkpoint, save_obj should be a list of dict items, and the dict "
                                    f"should have keys 'name' and 'data', but got {type(item)} and {item}.")
                if not isinstance(item["name"], str):
                    raise TypeError("For save_checkpoint, when save_obj is a list of dict items, the name in dict "
                                    f"should be string, but got {type(item['name'])}.")
                if not isinstance(item["data"], Tensor):
                    raise TypeError("For save_checkpoint, when save_obj is a list of dict items, the data in dict "
                                    f"should be parameter, but got {type(item['data'])}.")
                if chosen(item["name"]):
                    items.append((item["name"], item["data"]))
        else:
            for param in save_obj:
                if not isinstance(param, Parameter):
                    raise TypeError("For save_checkpoint, when save_obj is made up by list of Parameter, "
                                    f"the param should be parameter, but got {type(param)}")
                if chosen(param.name):
                    items.append((param.name, param))
    else:
        for key, value in save_obj.items():
            if not isinstance(key, str):
                raise TypeError("For save_checkpoint, when save_obj is made up by dict, the key should be str, "
                                f"but got {type(key)}")
            if not chosen(key):
                continue
            if not isinstance(value, (Tensor, np.ndarray, str)):
                raise TypeError(f"For save_checkpoint, the value of '{key}' must be a Parameter, Tensor, "
                                f"numpy.ndarray or str, but got {type(value)}")
            items.append((key, value))
    for key, value in (append_dict or {}).items():
        if key == "__exception_save__":  # a MindSpore-internal marker, never an entry
            continue
        items.append((key, value if isinstance(value, (str, Tensor)) else Tensor(value)))

    entries = {}
    for name, value in items:
        entries[name] = _snapshot(name, value)  # a repeated name keeps its first place and its last value
    return entries


def _snapshot(name, value):
    """A host copy of one value, so later updates (or an async writer) cannot change what is saved."""
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray):
        try:
            dtype = _dt.to_dtype(value.dtype)
        except TypeError as exc:
            raise TypeError(f"For save_checkpoint, entry '{name}': {exc}") from None
        return np.array(value, dtype=dtype.to_backend(np), order="C", copy=True), dtype
    try:
        host = value.asnumpy()
    except RuntimeError as exc:
        raise RuntimeError(f"For save_checkpoint, entry '{name}' has no data to save: {exc}") from None
    return host, value.dtype  # asnumpy returns a fresh C-ordered copy


def _write_ckpt(path, entries, enc_key, enc_mode, crc_check):
    def write(tmp):
        with open(tmp, "wb") as f:
            if enc_key is not None:
                plain = b"".join(record for name, value in entries.items() for record in _records(name, value))
                f.write(_cipher.encrypt(plain, enc_key, enc_mode))
                return
            crc = 0
            for name, value in entries.items():
                for record in _records(name, value):
                    if crc_check:
                        crc = _ckpt.crc32(record, crc)
                    f.write(record)
            if crc_check:
                f.write(_ckpt.crc_trailer(crc))

    _write_atomically(path, write)


def _records(name, value):
    if isinstance(value, str):
        return _ckpt.encode_entry(name, value)
    array, dtype = value
    return _ckpt.encode_entry(name, array, dtype)


def _write_safetensors(path, entries, crc_check, remove_redundancy):
    arrays = {name: array for name, (array, _) in entries.items()}
    metadata = {"format": "ms"}
    if remove_redundancy is not None:
        metadata["remove_redundancy"] = str(remove_redundancy)
    if crc_check:
        metadata["crc_num"] = str(_st.crc_of(arrays.items()))
    _write_atomically(path, lambda tmp: _st.write(tmp, arrays, metadata))


def _write_atomically(path, write):
    """Run ``write(temporary path)``, make it durable, then rename it over ``path``.

    On any failure (including KeyboardInterrupt) the temporary file is removed
    and ``path`` keeps its previous content.  A process killed before the
    rename leaves its temporary file; the next save of ``path`` removes it.
    """
    directory = os.path.dirname(path)
    _remove_stale_temporaries(directory, os.path.basename(path))
    # The temporary name carries our process id, so a later save can tell a leftover of a
    # process that died mid-save (a killed kernel) from a file another process is still writing.
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.{os.getpid()}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IRUSR)  # read-only, as MindSpore leaves its checkpoints
        if os.name == "nt" and os.path.exists(path):
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)  # Windows cannot replace a read-only file
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)


def _remove_stale_temporaries(directory, base):
    """Delete the temporary files that saves of ``base`` left behind when their process died.

    ``_write_atomically`` removes its temporary file on any exception, but a
    process killed between write and rename (a kernel restart during a save)
    cannot; its ``.<base>.<pid>.<random>.tmp`` stays.  Only files of processes
    that no longer run are removed, never one another process is writing.
    """
    pattern = re.compile(r"\." + re.escape(base) + r"\.(\d+)\.[A-Za-z0-9_]+\.tmp")
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        pid = int(match.group(1))
        if pid == os.getpid() or _process_alive(pid):
            continue
        try:
            os.remove(os.path.join(directory, name))
        except OSError:
            pass


def _process_alive(pid):
    """Whether process ``pid`` runs (True when that cannot be told: never delete on a guess)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- asynchronous saving: one background writer at a time ---------------------
_async_lock = threading.Lock()
_async_thread = None


def _start_async_save(job, path):
    global _async_thread

    def run():
        try:
            job()
        except BaseException:
            _log.exception("asynchronous save_checkpoint of %s failed; the previous file (if any) is unchanged", path)

    with _async_lock:
        _async_thread = threading.Thread(target=run, name="cellkit-save-checkpoint")
        _async_thread.start()


def _wait_async_save():
    """Wait for the background save, if one is running (files are written one at a time)."""
    global _async_thread
    with _async_lock:
        thread, _async_thread = _async_thread, None
    if thread is not None:
        thread.join()


# ==================================================================== loading
def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                    dec_mode="AES-GCM", specify_prefix=None, choice_func=None, crc_check=False,
                    remove_redundancy=False, format="ckpt"):
    """Read a ``.ckpt`` or ``.safetensors`` file into a dict of Parameters (and load it into ``net``).

    Parameters
    ----------
    ckpt_file_name : str or io.BytesIO
        The file (a BytesIO only for safetensors).
    net : Cell, optional
        Load the Parameters into this network with :func:`load_param_into_net`.
    strict_load : bool
        Passed to :func:`load_param_into_net`.
    filter_prefix, specify_prefix : str or list/tuple of str, optional
        (Deprecated in MindSpore, ``.ckpt`` only.)  Skip names starting with a
        ``filter_prefix``; keep only names starting with a ``specify_prefix``.
        Either one overrides ``choice_func``.
    dec_key : bytes, optional
        The key of an encrypted file; ``dec_mode`` its mode.
    choice_func : callable, optional
        ``choice_func(name) -> bool``: load only the entries it accepts.
    crc_check : bool
        Verify the CRC stored in the file (a file without one is loaded with a
        warning in the log).
    remove_redundancy : bool
        For model-parallel checkpoints; ``True`` is refused with ``net``.
    format : str
        ``"ckpt"`` or ``"safetensors"``.

    Returns
    -------
    dict
        ``{name: Parameter}`` in file order (sorted for safetensors); text
        entries saved with ``append_dict`` come back as ``str``.

    Raises
    ------
    ValueError
        If the file is missing, truncated or corrupt, fails its CRC or
        decryption, holds an unsupported dtype, or nothing is left after
        filtering.  The message names the file; ``net`` is not changed.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> import os, tempfile
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> path = os.path.join(tempfile.mkdtemp(), "dense.ckpt")
    >>> ms.save_checkpoint(nn.Dense(2, 1), path)
    >>> ms.load_checkpoint(path, choice_func=lambda name: name.startswith("w"))
    {'weight': Parameter (name=weight, shape=(1, 2), dtype=Float32, requires_grad=True)}
    """
    specify_prefix = _check_prefix(specify_prefix)
    filter_prefix = _check_prefix(filter_prefix)
    _check_type(dec_key, (type(None), bytes), "dec_key", "load_checkpoint")
    _check_type(dec_mode, str, "dec_mode", "load_checkpoint")
    _check_bool(crc_check, "crc_check", "load_checkpoint")
    _check_bool(remove_redundancy, "remove_redundancy", "load_checkpoint")
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'load_checkpoint', 'choice_func' must be callable, but got {type(choice_func).__name__}")
    if format == "safetensors":
        for arg, value, default in (("dec_key", dec_key, None), ("dec_mode", dec_mode, "AES-GCM")):
            if value != default:
                raise ValueError(f"For 'load_checkpoint', when format is 'safetensors', the parameter '{arg}' must "
                                 f"be set to default value '{default}', but got '{value}'.")
    content, label = _read_source(ckpt_file_name, format)

    if format == "ckpt":
        entries = _read_ckpt(content, label, dec_key, dec_mode, crc_check, specify_prefix, filter_prefix,
                             choice_func)
    else:
        entries, remove_redundancy = _read_safetensors(content, label, crc_check, choice_func, remove_redundancy)

    parameter_dict = {}
    try:
        for name, value in entries:
            parameter_dict[name] = value if isinstance(value, str) else Parameter(value, name=name)
    except ValueError as exc:  # e.g. a name MindSpore would not accept either
        raise ValueError(f"For 'load_checkpoint', failed to load the checkpoint file {label}: {exc}") from None
    if not parameter_dict:
        raise ValueError(f"The loaded parameter dict is empty after filter or specify (checkpoint file {label}), "
                         "please check whether the file holds parameters and whether 'filter_prefix' or "
                         f"'specify_prefix' are set correctly (got filter_prefix={filter_prefix!r}, "
                         f"specify_prefix={specify_prefix!r}).")
    if net is not None:
        load_param_into_net(net, parameter_dict, strict_load, remove_redundancy)
    return parameter_dict


def _check_prefix(prefix):
    if prefix is None:
        return None
    if not isinstance(prefix, (str, list, tuple)):
        raise TypeError("For 'load_checkpoint', the type of 'specify_prefix' or 'filter_prefix' must be string, "
                        f"list[string] or tuple[string], but got {type(prefix)}.")
    if isinstance(prefix, str):
        prefix = (prefix,)
    if not prefix:
        raise ValueError("For 'load_checkpoint', the argument 'specify_prefix' or 'filter_prefix' can't be empty "
                         "when 'specify_prefix' or 'filter_prefix' is list or tuple.")
    for index, item in enumerate(prefix):
        if not isinstance(item, str):
            raise TypeError("For 'load_checkpoint', when 'specify_prefix' or 'filter_prefix' is list or tuple, "
                            f"the element in it must be string, but got {type(item)} at index {index}.")
        if item == "":
            raise ValueError("For 'load_checkpoint', the value of 'specify_prefix' or 'filter_prefix' "
                             "can't include ''.")
    return tuple(prefix)


def _read_source(ckpt_file_name, format):
    """``(file bytes, name for messages)``, with MindSpore's checks on the name."""
    _wait_async_save()  # never look for a file that a background save is still writing
    if format not in _FORMATS:
        raise ValueError("For 'load_checkpoint', the checkpoint file should end with '.ckpt' or '.safetensors', "
                         f"please input the correct 'format' ('ckpt' or 'safetensors'), but got {format!r}.")
    if isinstance(ckpt_file_name, io.BytesIO):
        if format == "ckpt":
            raise TypeError("ckpt don't support BytesIO as input type, please change to safetensors.")
        return ckpt_file_name.getvalue(), "<BytesIO>"
    if isinstance(ckpt_file_name, os.PathLike):
        ckpt_file_name = os.fspath(ckpt_file_name)
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"For 'load_checkpoint', the argument 'ckpt_file_name' must be string, "
                        f"but got {type(ckpt_file_name)}.")
    name = ckpt_file_name
    if not name.endswith(format):
        if os.path.isfile(f"{name}.{format}"):
            name = f"{name}.{format}"  # what save_checkpoint(…, name) wrote
        else:
            raise ValueError(f"For 'load_checkpoint', the checkpoint file format must same with 'format', but got "
                             f"file_name:'{ckpt_file_name}', format:'{format}'")
    path = os.path.realpath(name)
    if not os.path.exists(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file: {path} does not exist, please check "
                         "whether the 'ckpt_file_name' is correct.")
    try:
        with open(path, "rb") as f:
            return f.read(), path
    except OSError as exc:
        raise ValueError(f"Failed to read the checkpoint file {path}: {exc}") from None


def _read_ckpt(content, label, dec_key, dec_mode, crc_check, specify_prefix, filter_prefix, choice_func):
    if dec_key is not None:
        try:
            content = _cipher.decrypt(content, dec_key, dec_mode)
        except _cipher.CipherError as exc:
            raise ValueError(f"Failed to read the checkpoint file {label}: {exc}. Please pass the correct "
                             "'dec_key' and 'dec_mode', or check the file's integrity.") from None
    elif _cipher.is_encrypted(content):
        raise ValueError(f"Failed to read the checkpoint file {label}: the file is encrypted; pass its "
                         "'dec_key' (and 'dec_mode').")

    records, stored_crc = _ckpt.split_crc_trailer(content)
    if crc_check:
        if stored_crc is None:
            _log.warning("For 'load_checkpoint', the ckpt file %s does not contain the crc code, "
                         "please check the file.", label)
        elif _ckpt.crc32(records) != stored_crc:
            raise ValueError(f"For 'load_checkpoint', the crc check failed for the checkpoint file {label}: "
                             "the file is damaged.")

    use_choice_func = specify_prefix is None and filter_prefix is None and choice_func is not None

    def keep(name):
        if not _passes_prefixes(specify_prefix, filter_prefix, name):
            return False
        return not use_choice_func or bool(choice_func(name))

    try:
        return _ckpt.decode(records, keep)
    except _ckpt.DecodeError as exc:
        raise ValueError(f"Failed to read the checkpoint file {label}: {exc}. The file may be corrupted.") from None


def _passes_prefixes(specify_prefix, filter_prefix, name):
    if specify_prefix and not name.startswith(specify_prefix):
        return False
    if filter_prefix and name.startswith(filter_prefix):
        return False
    return True


def _read_safetensors(content, label, crc_check, choice_func, remove_redundancy):
    try:
        stored, metadata = _st.read(content)
    except _st.FormatError as exc:
        raise ValueError(f"Failed to read the checkpoint file {label}: {exc}.") from None
    metadata = metadata or {}
    if crc_check:
        if "crc_num" not in metadata:
            _log.warning("For 'load_checkpoint', the safetensors file %s does not contain the crc code, "
                         "please check the file.", label)
        elif str(_st.crc_of(stored)) != metadata["crc_num"]:
            raise ValueError(f"For 'load_checkpoint', the crc check failed for the checkpoint file {label}: "
                             "the file is damaged.")
    # The file says whether it was saved without redundancy; that wins (with a warning), as in MindSpore.
    flag = metadata.get("remove_redundancy")
    if flag == "True" and not remove_redundancy:
        _log.warning("For 'load_checkpoint', the safetensors file is deduplicated, but remove_redundancy is "
                     "set to False.")
        remove_redundancy = True
    elif flag == "False" and remove_redundancy:
        _log.warning("For 'load_checkpoint', the safetensors file is non-deduplicated, but remove_redundancy "
                     "is set to True.")
        remove_redundancy = False
    entries = [(name, array) for name, array in stored if choice_func is None or choice_func(name)]
    return entries, remove_redundancy


# ======================================================== loading into a Cell
def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy the values of ``parameter_dict`` into the Parameters of ``net`` with the same names.

    Parameters
    ----------
    net : Cell
        The network; its Parameters are matched by ``param.name``.
    parameter_dict : dict
        ``{name: Parameter}`` as :func:`load_checkpoint` returns (text values
        are skipped).
    strict_load : bool
        ``False``: a float checkpoint value is converted to a float Parameter's
        dtype (int to int likewise), and names still missing are looked up
        with a common prefix removed (``backbone.fc.weight`` for
        ``fc.weight``).  ``True``: dtypes must match and names exactly.
    remove_redundancy : bool
        For model-parallel checkpoints; ``True`` raises TypeError here.

    Returns
    -------
    tuple of (list, list)
        ``(param_not_load, ckpt_not_load)``: the network's Parameter names
        that got no value, and the checkpoint names that were not matched
        exactly (as in MindSpore, names loaded by prefix stay in this list).

    Raises
    ------
    TypeError
        If ``net`` is not a Cell, ``parameter_dict`` not a dict of str ->
        Parameter, or a flag not a bool.
    RuntimeError
        If a shape or dtype does not fit; then no Parameter has been changed.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import nn, ops
    >>> net = nn.Dense(2, 1)
    >>> ms.load_param_into_net(net, {"weight": ms.Parameter(ops.ones((1, 2), ms.float32), name="weight")})
    (['bias'], [])
    >>> print(net.weight.asnumpy())
    [[1. 1.]]
    """
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', the argument 'net' should be a Cell, but got {type(net)}.")
    if not isinstance(parameter_dict, dict):
        raise TypeError("For 'load_param_into_net', the argument 'parameter_dict' should be a dict, "
                        f"but got {type(parameter_dict)}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Parameter, str, list)):
            raise TypeError("For 'parameter_dict', the element in the argument 'parameter_dict' should be a "
                            f"'str' and 'Parameter' , but got {type(key)} and {type(value)}.")
    _check_bool(strict_load, "strict_load", "load_param_into_net")
    _check_bool(remove_redundancy, "remove_redundancy", "load_param_into_net")
    if remove_redundancy:
        raise TypeError("The deduplication feature for loading checkpoint can only be used in parallel scenarios, "
                        "but got stand_alone.")

    updates = []  # (net Parameter, new backend array): applied only once every entry checks out
    param_not_load = []
    ckpt_not_load = list(parameter_dict)
    for _, param in net.parameters_and_names():
        name = param.name
        if name in parameter_dict:
            new_param = parameter_dict[name]
            if not isinstance(new_param, Parameter):
                continue  # text entries (epoch notes ...) are not Parameter values
            updates.append((param, _converted(param, new_param, strict_load)))
            if name in ckpt_not_load:
                ckpt_not_load.remove(name)
        elif not name.startswith("accu_grads"):  # gradient accumulators are never saved
            param_not_load.append(name)

    if param_not_load and not strict_load:
        updates += _match_by_prefix(net, parameter_dict, param_not_load, strict_load)

    for param, array in updates:
        param.set_data(Tensor._from_array(array))

    if param_not_load:
        _log.warning("For 'load_param_into_net', %d parameters in the 'net' are not loaded, because they are not in "
                     "the 'parameter_dict', please check whether the network structure is consistent when training "
                     "and loading checkpoint.", len(param_not_load))
        _log.warning("%s are not loaded.", param_not_load)
    return param_not_load, ckpt_not_load


def _match_by_prefix(net, parameter_dict, param_not_load, strict_load):
    """MindSpore's second chance: find a prefix that, put before missing names, gives checkpoint names.

    Repeats while it finds new prefixes; removes what it matches from
    ``param_not_load`` and returns the planned updates.
    """
    updates = []
    longest_name = param_not_load[0]
    prefix = ""
    tried = set()
    while prefix != longest_name and param_not_load:
        prefix = longest_name
        for net_name in param_not_load:
            for dict_name in parameter_dict:
                if dict_name.endswith(net_name):
                    prefix = dict_name[:-len(net_name)]
                    break
            if prefix != longest_name:
                break
        if prefix == longest_name or prefix in tried:
            break  # nothing new to try (MindSpore could loop forever on a text entry here)
        tried.add(prefix)
        _log.warning("For 'load_param_into_net', remove parameter prefix name: %s, continue to load.", prefix)
        for _, param in net.parameters_and_names():
            full_name = prefix + param.name
            if param.name in param_not_load and isinstance(parameter_dict.get(full_name), Parameter):
                updates.append((param, _converted(param, parameter_dict[full_name], strict_load)))
                param_not_load.remove(param.name)
    return updates


def _converted(param, new_param, strict_load):
    """A copy of ``new_param``'s array in ``param``'s shape and dtype, or RuntimeError if it does not fit.

    Always a copy: the network must not share memory with ``parameter_dict``
    (loading one dict into two networks would tie them, and training one
    would change the other and the dict).
    """
    xp = _backend.current().xp
    array = new_param._require_data("load_param_into_net")
    converted = False
    shape, new_shape = tuple(param.shape), tuple(new_param.shape)
    if shape != new_shape:
        # A checkpoint from a 4-d graph backend may carry extra trailing 1s: (12, 2048, 1, 1) for (12, 2048).
        extra = new_shape[len(shape):]
        if len(new_shape) > len(shape) and new_shape[:len(shape)] == shape and all(d == 1 for d in extra):
            array = xp.reshape(array, shape)
        else:
            raise RuntimeError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same shape as "
                f"{param.name} in the argument 'parameter_dict'. But got its shape {shape} in the argument 'net' "
                f"and shape {new_shape} in the argument 'parameter_dict'. May you need to check whether the "
                "checkpoint you loaded is correct or the batch size and so on in the 'net' and 'parameter_dict' "
                "are same.")
    dtype, new_dtype = param.dtype, new_param.dtype
    if dtype is not new_dtype:
        same_family = ({dtype, new_dtype} <= set(_FLOAT_TYPES)) or ({dtype, new_dtype} <= set(_INT_TYPES))
        if strict_load or not same_family:
            raise RuntimeError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same type as "
                f"{param.name} in the argument 'parameter_dict'. but got its type {dtype} in the argument 'net' "
                f"and type {new_dtype} in the argument 'parameter_dict'. May you need to check whether the "
                "checkpoint you loaded is correct.")
        _log.warning("The type of %s:%s in 'parameter_dict' is different from the type of it in 'net':%s, then the "
                     "type convert from %s to %s in the network.", new_param.name, new_dtype, dtype, new_dtype, dtype)
        array = xp.astype(array, dtype.to_backend(xp))
        converted = True
    return array if converted else _backend.current().copy(array)


# ================================================================== checks
def _check_bool(value, arg, where):
    if not isinstance(value, bool):
        raise TypeError(f"For '{where}', the argument '{arg}' must be a bool, but got {type(value).__name__}.")
    return value


def _check_type(value, types, arg, where):
    if not isinstance(value, types):
        names = " or ".join("None" if t is type(None) else t.__name__ for t in
                            (types if isinstance(types, tuple) else (types,)))
        raise TypeError(f"For '{where}', the argument '{arg}' must be {names}, but got {type(value).__name__}.")
    return value
