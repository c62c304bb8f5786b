"""Checkpoint utilities of ``mindspore.train``: ``ckpt_to_safetensors``, ``safetensors_to_ckpt``,
``load_checkpoint_async``, ``merge_sliced_parameter`` and ``async_ckpt_thread_status``.

The conversions read with :func:`~cellkit.load_checkpoint` and write with
:func:`~cellkit.save_checkpoint` (atomic writes; files MindSpore reads).  Given a folder, they
convert what its ``rank*`` sub-folders hold, as MindSpore does for the files of a parallel run.

>>> import os, tempfile
>>> import cellkit as ms
>>> from cellkit import nn
>>> folder = tempfile.mkdtemp()
>>> ms.save_checkpoint(nn.Dense(2, 1), os.path.join(folder, "dense.ckpt"))
>>> ms.ckpt_to_safetensors(os.path.join(folder, "dense.ckpt"), name_map={"weight": "fc.weight"})
>>> sorted(ms.load_checkpoint(os.path.join(folder, "dense.safetensors"), format="safetensors"))
['bias', 'fc.weight']
"""
from __future__ import annotations

import os
import re
import threading
import warnings

import numpy as np

from ..parameter import Parameter
from ..tensor import Tensor
from .checkpoint import load_checkpoint, save_checkpoint

__all__ = ["ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async", "merge_sliced_parameter",
           "async_ckpt_thread_status"]


def _load_renamed(path, name_map, fmt):
    params = load_checkpoint(path, format=fmt)
    if name_map is None:
        return params
    return {name_map.get(name, name): value for name, value in params.items()}


def _convert(file_path, save_path, name_map, file_name_regex, dst_format):
    src_format = "ckpt" if dst_format == "safetensors" else "safetensors"
    src_suffix, dst_suffix = f".{src_format}", f".{dst_format}"
    func_name = "ckpt_to_safetensors" if dst_format == "safetensors" else "safetensors_to_ckpt"
    if not isinstance(file_path, str) or not (os.path.isdir(file_path) or os.path.isfile(file_path)):
        raise ValueError(f"For '{func_name}', the argument 'file_path' must be an existing file or folder, "
                         f"but got {file_path!r}")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"For '{func_name}', the argument 'save_path' must be a directory, but got {save_path!r}")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"For '{func_name}', the type of 'name_map' must be a dict, but got {type(name_map)}")
    if os.path.isdir(file_path):
        rank_dirs = sorted(d for d in os.listdir(file_path)
                           if d.startswith("rank") and os.path.isdir(os.path.join(file_path, d)))
        if not rank_dirs:
            raise ValueError(f"For '{func_name}', no directories starting with 'rank' found in {file_path}.")
        for rank_dir in rank_dirs:
            source = os.path.join(file_path, rank_dir)
            target = os.path.join(save_path, rank_dir) if save_path is not None else source
            os.makedirs(target, exist_ok=True)
            for name in sorted(os.listdir(source)):
                if name.endswith(src_suffix) and (file_name_regex is None or re.search(file_name_regex, name)):
                    params = _load_renamed(os.path.join(source, name), name_map, src_format)
                    save_checkpoint(params, os.path.join(target, name[:-len(src_suffix)] + dst_suffix),
                                    format=dst_format)
        return
    if not file_path.endswith(src_suffix):
        raise ValueError(f"For '{func_name}', the argument 'file_path' must be a {src_suffix} file, but got {file_path!r}")
    if file_name_regex is not None and not re.findall(file_name_regex, file_path):
        raise ValueError(f"For '{func_name}', the input file {file_path!r} does not match the regular expression "
                         f"'file_name_regex' {file_name_regex!r}.")
    if save_path and not os.path.exists(save_path):
        os.makedirs(save_path, exist_ok=True)
    params = _load_renamed(file_path, name_map, src_format)
    base = os.path.basename(file_path)[:-len(src_suffix)] + dst_suffix
    save_checkpoint(params, os.path.join(save_path if save_path else os.path.dirname(file_path), base),
                    format=dst_format)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert a ``.ckpt`` file (or the ``.ckpt`` files in a folder's ``rank*`` sub-folders) to ``.safetensors``.

    Parameters
    ----------
    file_path : str
        A ``.ckpt`` file, or a folder holding ``rank0``, ``rank1``, ... folders.
    save_path : str, optional
        The folder to write into (default: next to each source file).
    name_map : dict, optional
        ``{old name: new name}`` for the Parameters to rename.
    file_name_regex : str, optional
        Only files whose name matches.
    processes_num : int
        Accepted; the files are converted one after another.

    Raises
    ------
    ValueError
        A path that does not exist or has the wrong suffix, a ``save_path``
        with a suffix, a ``name_map`` that is not a dict, a folder without
        ``rank*`` sub-folders, or a file that does not match the regex.
    """
    _convert(file_path, save_path, name_map, file_name_regex, "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert a ``.safetensors`` file (or a folder's ``rank*`` files) to MindSpore's ``.ckpt``.

    Arguments and errors as :func:`ckpt_to_safetensors`.

    >>> import os, tempfile
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> folder = tempfile.mkdtemp()
    >>> ms.save_checkpoint(nn.Dense(2, 1), os.path.join(folder, "d.safetensors"), format="safetensors")
    >>> ms.safetensors_to_ckpt(os.path.join(folder, "d.safetensors"), save_path=os.path.join(folder, "out"))
    >>> os.listdir(os.path.join(folder, "out"))
    ['d.ckpt']
    """
    _convert(file_path, save_path, name_map, file_name_regex, "ckpt")


class ParamDictFuture:
    """The pending result of :func:`load_checkpoint_async`: ``result()`` waits and returns the dict."""

    def __init__(self, executor, future):
        self.executor = executor
        self.param_dict_future = future

    def result(self):
        """Wait for the load; the dict of Parameters (its exception, if the load failed)."""
        try:
            return self.param_dict_future.result()
        finally:
            self.executor.shutdown()


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                          dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """Start reading a checkpoint on a thread; ``.result()`` of what is returned gives :func:`load_checkpoint`'s dict.

    Arguments as :func:`~cellkit.load_checkpoint`; a ``.safetensors`` name is read as safetensors.

    >>> import os, tempfile
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> path = os.path.join(tempfile.mkdtemp(), "d.ckpt")
    >>> ms.save_checkpoint(nn.Dense(2, 1), path)
    >>> sorted(ms.load_checkpoint_async(path).result())
    ['bias', 'weight']
    """
    from concurrent.futures import ThreadPoolExecutor  # only when asked: import cellkit stays light

    fmt = "safetensors" if isinstance(ckpt_file_name, str) and ckpt_file_name.endswith(".safetensors") else "ckpt"
    executor = ThreadPoolExecutor(max_workers=2)
    future = executor.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                             specify_prefix, choice_func, format=fmt)
    return ParamDictFuture(executor, future)


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """Join the per-rank slices of one Parameter into the whole Parameter.

    Parameters
    ----------
    sliced_parameters : list of Parameter
        The slices, in rank order, all with the same name.
    strategy : dict, optional
        ``{name: layout}`` as :func:`~cellkit.build_searched_strategy` returns it:
        the slices are put back where the layout's device grid and tensor map
        say (axis 0, axis 1, both, uneven ``param_split_shape``, copies on
        several ranks).  ``None``: the slices are joined along axis 0.

    Returns
    -------
    Parameter
        The whole tensor, with the slices' name, ``requires_grad`` and
        ``layerwise_parallel`` (bfloat16 slices give a float32 Parameter, as
        in MindSpore).

    Raises
    ------
    TypeError
        ``sliced_parameters`` not a list of Parameters; ``strategy`` not a dict.
    ValueError
        An empty list; slices whose names or trailing shapes differ; slices
        that do not match the layout (count, sizes); a layout that is not one.
    KeyError
        The name is not a key of ``strategy``.

    Examples
    --------
    >>> import numpy as np
    >>> import cellkit as ms
    >>> parts = [ms.Parameter(ms.Tensor(np.ones((1, 2), np.float32) * i), name="w") for i in range(3)]
    >>> print(ms.merge_sliced_parameter(parts).asnumpy())
    [[0. 0.]
     [1. 1.]
     [2. 2.]]
    """
    if not isinstance(sliced_parameters, list):
        raise TypeError("For 'merge_sliced_parameter', the argument 'sliced_parameters' should be list, "
                        f"but got {type(sliced_parameters)}.")
    if not sliced_parameters:
        raise ValueError("For 'merge_sliced_parameter', the argument 'sliced_parameters' should not be empty.")
    if strategy and not isinstance(strategy, dict):
        raise TypeError(f"For 'merge_sliced_parameter', the argument 'strategy' should be dict, but got {type(strategy)}.")
    first = sliced_parameters[0]
    if not isinstance(first, Parameter):
        raise TypeError("For 'merge_sliced_parameter', the element in 'sliced_parameters' should be 'Parameter', "
                        f"but got {type(first)} at index 0.")
    name, shape = first.name, tuple(first.shape)
    for index, param in enumerate(sliced_parameters):
        if not isinstance(param, Parameter):
            raise TypeError("For 'merge_sliced_parameter', the element in 'sliced_parameters' should be "
                            f"'Parameter', but got {type(param)} at index {index}.")
        if param.name != name or len(param.shape) != len(shape) or tuple(param.shape[1:]) != shape[1:]:
            raise ValueError("For 'merge_sliced_parameter', please make sure that the elements in "
                             "'slice_parameters' have the same name, dimension length and shape except 0 axis. "
                             f"The name, dimension length, shape except 0 axis should be {name}, {len(shape)}, "
                             f"{shape[1:]}, but got name: {param.name}, dimension length: {len(param.shape)}, "
                             f"shape except 0 axis: {tuple(param.shape[1:])} at index {index}.")
    from .. import dtype as _dt

    if any(p.dtype == _dt.bfloat16 for p in sliced_parameters):
        from ..ops import cast

        sliced_data = [cast(p, _dt.float32).asnumpy() for p in sliced_parameters]
    else:
        sliced_data = [p.asnumpy() for p in sliced_parameters]
    if not strategy:
        merged = np.concatenate(sliced_data)
    else:
        if name not in strategy:
            raise KeyError(f"For 'merge_sliced_parameter', the parameter name {name} should be a key in the "
                           "'strategy'. Please check 'sliced_parameter' and 'strategy'.")
        from .distributed import merge_with_layout

        merged = merge_with_layout(sliced_data, name, strategy[name])
    return Parameter(Tensor(merged), name, first.requires_grad, first.layerwise_parallel)


def async_ckpt_thread_status():
    """Whether an asynchronous ``save_checkpoint`` is still writing (deprecated in MindSpore since 2.5).

    >>> import cellkit as ms
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ms.async_ckpt_thread_status()
    False
    """
    warnings.warn("The interface 'mindspore.async_ckpt_thread_status' is deprecated from version 2.5 and will be "
                  "removed in a future version.", DeprecationWarning, stacklevel=2)
    return any(t.name == "cellkit-save-checkpoint" and t.is_alive() for t in threading.enumerate())
