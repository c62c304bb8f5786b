"""Reading the checkpoints of a parallel MindSpore run into one process.

A run over N ranks leaves N ``.ckpt`` files, each holding that rank's slice
of every parameter, and a strategy file saying how each parameter was cut
(see :mod:`~cellkit.serialization.strategy_format`).  Here the slices are put
back together:

* :func:`build_searched_strategy` -- the layouts of a strategy file;
* :func:`restore_group_info_list` -- the ranks a group-info file names;
* :func:`get_ckpt_path_with_strategy` -- a checkpoint of rank 0, or of a rank
  holding the same values;
* :func:`load_distributed_checkpoint` -- merge every parameter's slices and load
  the whole tensors into a network (``merge_sliced_parameter`` with a strategy
  does it for one parameter).

cellkit is one process (rank 0 of 1), so the network it loads into holds whole
tensors: a ``predict_strategy`` that would cut them again over several ranks is
refused.

How a layout cuts a tensor: the ranks form a grid of shape ``dev_matrix``
(rank r sits at the row-major coordinate of r); tensor axis a is cut into
``dev_matrix[-1 - tensor_map[a]]`` equal pieces along that grid axis, or not at
all for -1.  Ranks that differ only along grid axes no tensor axis uses hold
copies of the same slice.

>>> import os, tempfile
>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit.serialization import strategy_format
>>> folder = tempfile.mkdtemp()
>>> # a strategy: "w" (4, 2) cut along axis 0 over 2 ranks
>>> smap = strategy_format._classes()["ParallelStrategyMap"](current_stage=0)
>>> item = smap.parallel_layout_item.add(param_name="w")
>>> lay = item.parallel_layouts
>>> lay.dev_matrix.add().dim.extend([2]); lay.tensor_map.add().dim.extend([0, -1])
>>> lay.field, lay.opt_weight_shard_step, lay.opt_weight_shard_size = 0, 0, 0
>>> _ = open(os.path.join(folder, "strategy.ckpt"), "wb").write(smap.SerializeToString())
>>> full = np.arange(8, dtype=np.float32).reshape(4, 2)
>>> files = []
>>> for rank in range(2):
...     files.append(os.path.join(folder, f"rank_{rank}.ckpt"))
...     ms.save_checkpoint([{"name": "w", "data": ms.Tensor(full[2 * rank:2 * rank + 2])}], files[-1])
>>> class Net(ms.nn.Cell):
...     def __init__(self):
...         super().__init__()
...         self.w = ms.Parameter(ms.Tensor(np.zeros((4, 2), np.float32)), name="w")
>>> net = Net()
>>> ms.load_distributed_checkpoint(net, files, None, os.path.join(folder, "strategy.ckpt"))
True
>>> print(net.w.asnumpy()[:, 0])
[0. 2. 4. 6.]
"""
from __future__ import annotations

import json
import math
import os
import re
import warnings

import numpy as np

from ..parameter import Parameter
from .strategy_format import layout_lists, read_group_info, read_strategy

__all__ = ["build_searched_strategy", "restore_group_info_list", "get_ckpt_path_with_strategy",
           "load_distributed_checkpoint"]

_PREFIX = "For 'load_distributed_checkpoint'"
# This process's rank: cellkit is one process, so cellkit.communication.get_rank() is always 0 (that module
# sits above this layer and is not imported here).
_RANK = 0


# ------------------------------------------------------------------ layouts
def _grid_coordinates(dev_matrix):
    """Row-major coordinates of every rank in the device grid, shape ``(ranks, len(dev_matrix))``."""
    return np.stack(np.unravel_index(np.arange(math.prod(dev_matrix)), dev_matrix), axis=1)


def _slice_key(coordinate, dev_matrix, tensor_map):
    """Which slice a rank at ``coordinate`` holds: per tensor axis, its piece index along that axis."""
    n = len(dev_matrix)
    return tuple(int(coordinate[n - 1 - t]) if t != -1 else 0 for t in tensor_map)


def _pieces_per_axis(dev_matrix, tensor_map):
    return [dev_matrix[-1 - t] if t != -1 else 1 for t in tensor_map]


def _assemble(slices, dev_matrix, tensor_map, name, func):
    """The whole array from ``slices`` (one per rank of ``dev_matrix``, in rank order)."""
    pieces = _pieces_per_axis(dev_matrix, tensor_map)
    grid = np.empty(pieces, dtype=object)
    for coordinate, piece in zip(_grid_coordinates(dev_matrix), slices):
        grid[_slice_key(coordinate, dev_matrix, tensor_map)] = piece  # copies land on the same cell
    if not pieces:  # a 0-d parameter: nothing was cut
        return np.asarray(grid[()])
    try:
        return np.block(grid.tolist())
    except ValueError as exc:
        raise ValueError(f"For '{func}', the slices of '{name}' do not fit together as the strategy says "
                         f"(dev_matrix {dev_matrix}, tensor_map {tensor_map}): {exc}") from None


def _merge_field_sliced(data, device_count, field):
    """MindSpore's field-sliced embedding (``field`` > 0): columns interleaved per field."""
    slices = np.split(data, device_count, axis=0)
    columns = [np.concatenate([s[:, i].reshape(field, -1) for s in slices], axis=1).reshape(-1, 1)
               for i in range(slices[0].shape[1])]
    return np.concatenate(columns, axis=1)


def merge_with_layout(sliced_data, name, layout, func="merge_sliced_parameter"):
    """The whole array of parameter ``name`` from its per-rank arrays, following ``layout``."""
    dev_matrix, tensor_map, split_shape, field, _, _ = layout_lists(name, layout, func)
    device_count = math.prod(dev_matrix)
    if len(sliced_data) != device_count:
        raise ValueError(f"For '{func}', the length of 'sliced_parameters' should be equal to device_count. The "
                         f"length of 'sliced_parameters' is {len(sliced_data)}, but device_count is {device_count}.")
    ndim = sliced_data[0].ndim
    if len(tensor_map) != ndim:
        raise ValueError(f"For '{func}', the tensor_map of '{name}' has {len(tensor_map)} entries, but the slices "
                         f"have {ndim} dimensions (shape {sliced_data[0].shape}).")
    if not split_shape:
        if any(s.shape != sliced_data[0].shape for s in sliced_data):
            raise ValueError(f"For '{func}', the shape of every parameter in 'sliced_parameters' should be the same "
                             "when slice manner is even.")
        if field > 0:
            if ndim != 2 or sliced_data[0].shape[0] % field:
                raise ValueError(f"For '{func}', a field-sliced layout (field {field}) needs 2-D slices whose first "
                                 f"axis is a multiple of it, but '{name}' has slices of shape {sliced_data[0].shape}.")
            return _merge_field_sliced(np.concatenate(sliced_data), device_count, field)
        return _assemble(sliced_data, dev_matrix, tensor_map, name, func)
    pieces = _pieces_per_axis(dev_matrix, tensor_map)
    if len(split_shape) != math.prod(pieces):
        raise ValueError(f"For '{func}', the param_split_shape length in 'strategy' should be {math.prod(pieces)}, "
                         f"but got {len(split_shape)}.")
    for coordinate, piece in zip(_grid_coordinates(dev_matrix), sliced_data):
        index = int(np.ravel_multi_index(_slice_key(coordinate, dev_matrix, tensor_map), pieces)) if pieces else 0
        if ndim == 0 or piece.shape[0] != split_shape[index]:
            got = piece.shape[0] if ndim else "a 0-d slice"
            raise ValueError(f"For '{func}', the slice {index} should be {split_shape[index]} in 0 axis, but got "
                             f"{got}.")
    return _assemble(sliced_data, dev_matrix, tensor_map, name, func)


def _unique_layout(dev_matrix, tensor_map):
    """The grid with the axes no tensor axis uses collapsed to 1: one rank per distinct slice."""
    used = {len(dev_matrix) - 1 - t for t in tensor_map if t != -1}
    return [d if axis in used else 1 for axis, d in enumerate(dev_matrix)]


def _ranks_of_distinct_slices(dev_matrix, tensor_map):
    """The ranks holding each distinct slice once: coordinate 0 on every grid axis no tensor axis uses."""
    unique = _unique_layout(dev_matrix, tensor_map)
    coordinates = _grid_coordinates(dev_matrix)
    keep = np.all((coordinates == 0) | (np.array(unique) > 1), axis=1)
    return [int(r) for r in np.flatnonzero(keep)]


# ------------------------------------------------------------------ public functions
def build_searched_strategy(strategy_filename):
    """Read how a parallel MindSpore run cut each parameter: ``{name: layout}`` from its strategy file.

    Parameters
    ----------
    strategy_filename : str
        The strategy file MindSpore saved (protobuf ``ParallelStrategyMap``), or
        the same layouts as JSON when the name ends in ``.json``.

    Returns
    -------
    dict
        Parameter name -> ``ParallelLayouts`` (a protobuf message with MindSpore's
        fields: ``dev_matrix``, ``tensor_map``, ``param_split_shape``,
        ``indices_offset``, ``field``, ``opt_weight_shard_step``,
        ``opt_weight_shard_size``), in the file's order; ``{}`` for a file
        without layouts; ``None`` for ``None``.  Give it to
        :func:`~cellkit.merge_sliced_parameter`.

    Raises
    ------
    TypeError
        ``strategy_filename`` not a str.
    ValueError
        No such file, or an empty one.
    StrategyFileError
        The content is not a strategy (a subclass of both ValueError and
        TypeError: MindSpore documents the first and raises the second).

    Examples
    --------
    >>> import os, tempfile
    >>> import cellkit as ms
    >>> from cellkit.serialization import strategy_format
    >>> smap = strategy_format._classes()["ParallelStrategyMap"](current_stage=0)
    >>> lay = smap.parallel_layout_item.add(param_name="fc.weight").parallel_layouts
    >>> lay.dev_matrix.add().dim.extend([2, 2]); lay.tensor_map.add().dim.extend([1, -1])
    >>> lay.field, lay.opt_weight_shard_step, lay.opt_weight_shard_size = 0, 0, 0
    >>> path = os.path.join(tempfile.mkdtemp(), "strategy.ckpt")
    >>> _ = open(path, "wb").write(smap.SerializeToString())
    >>> layout = ms.build_searched_strategy(path)["fc.weight"]
    >>> list(layout.dev_matrix[0].dim), list(layout.tensor_map[0].dim)
    ([2, 2], [1, -1])
    """
    if strategy_filename is None:
        return None
    return read_strategy(strategy_filename)


def restore_group_info_list(group_info_file_name):
    """The ranks whose checkpoints hold the same values as the rank that saved ``group_info_file_name``.

    MindSpore writes the file (a protobuf ``ParallelGroupMap``) when the
    environment variable ``GROUP_INFO_FILE`` names it; this returns its
    ``ckpt_restore_rank_list``.

    Raises
    ------
    TypeError
        ``group_info_file_name`` not a str.
    ValueError
        No such file, an empty one, or one that is not a group-information file
        (bytes that do not parse, required fields missing, fields such a file
        does not have).

    Examples
    --------
    >>> import os, tempfile
    >>> import cellkit as ms
    >>> from cellkit.serialization import strategy_format
    >>> groups = strategy_format._classes()["ParallelGroupMap"]()
    >>> groups.ckpt_restore_rank_list.dim.extend([0, 4])
    >>> path = os.path.join(tempfile.mkdtemp(), "group_info.pb")
    >>> _ = open(path, "wb").write(groups.SerializeToString())
    >>> ms.restore_group_info_list(path)
    [0, 4]
    """
    return read_group_info(group_info_file_name)


def _replica_groups(dev_matrix, tensor_map, opt_step, opt_size, name, path):
    """Tuples of ranks holding identical copies of one parameter (after the optimizer's own sharding)."""
    groups = {}
    for rank, coordinate in enumerate(_grid_coordinates(dev_matrix)):
        used = tuple(int(coordinate[len(dev_matrix) - 1 - t]) if t != -1 else 0 for t in sorted(set(tensor_map)))
        groups.setdefault(used, []).append(rank)
    result = [tuple(ranks) for _, ranks in sorted(groups.items())]
    if opt_size != 0:
        if opt_size != -1:
            shards = opt_size
        elif opt_step > 0:
            shards = len(result) * len(result[0]) // opt_step
        else:
            raise ValueError(f"For 'get_ckpt_path_with_strategy', the layout of '{name}' in {path} shards the "
                             f"optimizer with opt_weight_shard_size -1 and opt_weight_shard_step {opt_step}; "
                             "the step should be positive.")
        if shards <= 0:
            raise ValueError(f"For 'get_ckpt_path_with_strategy', the layout of '{name}' in {path} has "
                             f"opt_weight_shard_size {opt_size}, which gives {shards} optimizer shards.")
        result = [ranks[i::shards] for ranks in result if len(ranks) % shards == 0 for i in range(shards)]
    return result


def _rank_replicas(strategy, rank, path):
    """The ranks holding the same values as ``rank`` for every parameter, or ``(rank,)`` when they disagree."""
    best, best_set = (), set()
    for name in sorted(strategy):
        if name.startswith(("accu_grads", "inputs")):  # MindSpore ignores these when it compares
            continue
        dev_matrix, tensor_map, _, _, opt_step, opt_size = layout_lists(name, strategy[name],
                                                                        "get_ckpt_path_with_strategy")
        for ranks in _replica_groups(dev_matrix, tensor_map, opt_step, opt_size, name, path):
            if rank not in ranks:
                continue
            if not best_set or len(ranks) < len(best):
                if best_set and not set(ranks) <= best_set:
                    return (rank,)
                best, best_set = ranks, set(ranks)
            elif not best_set <= set(ranks):
                return (rank,)
    return best


def get_ckpt_path_with_strategy(cur_ckpt_path, cur_strategy_path):
    """A checkpoint this process (rank 0) can load: its own, or one of a rank holding the same values.

    ``cur_ckpt_path`` names rank 0's file by a ``rank_0`` part of the path.  When
    that file exists it is returned; otherwise the strategy file says which
    ranks hold copies of every parameter rank 0 holds, and the first of their
    files (``rank_0`` replaced by ``rank_<i>``) that exists is returned.

    Parameters
    ----------
    cur_ckpt_path : str
        The checkpoint rank 0 wants, e.g. ``"./rank_0/net.ckpt"``.
    cur_strategy_path : str
        The strategy file of the run (protobuf; ``.json`` works too).

    Returns
    -------
    str or None
        The path found, or None.

    Raises
    ------
    TypeError
        An argument that is not a str.
    FileNotFoundError
        No strategy file (also a ValueError), when it is needed.
    StrategyFileError
        A strategy file that cannot be read.

    Examples
    --------
    >>> import os, tempfile
    >>> import cellkit as ms
    >>> folder = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(folder, "rank_0"))
    >>> path = os.path.join(folder, "rank_0", "net.ckpt")
    >>> ms.save_checkpoint(ms.nn.Dense(2, 1), path)
    >>> ms.get_ckpt_path_with_strategy(path, os.path.join(folder, "strategy.ckpt")) == path
    True
    """
    func = "get_ckpt_path_with_strategy"
    for arg, value in (("cur_ckpt_path", cur_ckpt_path), ("cur_strategy_path", cur_strategy_path)):
        if not isinstance(value, str):
            raise TypeError(f"For '{func}', the argument '{arg}' should be str, but got {type(value)}.")
    rank = _RANK
    if f"rank_{rank}" in cur_ckpt_path and os.path.isfile(cur_ckpt_path):
        return cur_ckpt_path
    if not os.path.isfile(cur_strategy_path):
        raise _MissingFileError(2, f"For '{func}', no such strategy file", cur_strategy_path)
    strategy = read_strategy(cur_strategy_path, func, "cur_strategy_path")
    for other in _rank_replicas(strategy, rank, cur_strategy_path):
        candidate = re.sub(r"rank_\d+", f"rank_{other}", cur_ckpt_path)
        if os.path.isfile(candidate):
            return candidate
    return None


class _MissingFileError(FileNotFoundError, ValueError):
    """A file that is not there: FileNotFoundError as in MindSpore, and a ValueError as its docs expect."""


def _check_checkpoint_filenames(checkpoint_filenames):
    if not isinstance(checkpoint_filenames, (list, tuple)):
        raise TypeError(f"{_PREFIX}, 'checkpoint_filenames' should be a list of .ckpt file names in rank order, "
                        f"but got {type(checkpoint_filenames)}.")
    for index, filename in enumerate(checkpoint_filenames):
        if not isinstance(filename, str) or not os.path.exists(filename) or filename[-5:] != ".ckpt" \
                or os.path.getsize(filename) == 0:
            raise ValueError(f"{_PREFIX}, please check 'checkpoint_filenames', and make sure the {filename} at index "
                             f"{index} is a valid checkpoint file, it must be a string ending with '.ckpt', and the "
                             "checkpoint file it represents must be exist and not empty.")


def _int_list(value):
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)


def _check_predict_strategy(predict_strategy):
    """MindSpore's check of ``predict_strategy``; then refuse what would cut a parameter again."""
    if predict_strategy is None:
        return
    if not isinstance(predict_strategy, dict):
        raise TypeError(f"{_PREFIX}, 'predict_strategy' should be a dict (or None), but got "
                        f"{type(predict_strategy)}.")
    for key, value in predict_strategy.items():
        ok = isinstance(key, str) and isinstance(value, (list, tuple)) and len(value) >= 4
        if ok:
            dev_matrix, tensor_map, split_shape, field = value[:4]
            ok = _int_list(dev_matrix) and _int_list(tensor_map) and (_int_list(split_shape) or not split_shape) \
                and isinstance(field, int) and field == 0
        if not ok:
            raise ValueError(f"{_PREFIX}, the argument 'predict_strategy' is dict, the key of it must be string, and "
                             "the value of it must be list or tuple that the first four elements must be dev_matrix "
                             "(list[int]), tensor_map (list[int]), param_split_shape (list[int]) and field_size "
                             f"(int, which value is 0). Please check whether 'predict_strategy' is correct: "
                             f"got {key!r}: {value!r}.")
        if any(t < -1 or t >= len(dev_matrix) for t in tensor_map):
            raise ValueError(f"{_PREFIX}, the tensor_map of '{key}' in 'predict_strategy' should hold -1 or axes of "
                             f"its dev_matrix {dev_matrix} (0 to {len(dev_matrix) - 1}), but got {tensor_map}.")
        cuts = [dev_matrix[-1 - t] for t in tensor_map if t != -1]
        opt_group = value[5] if len(value) > 5 else None
        if any(c > 1 for c in cuts) or opt_group:
            raise ValueError(f"{_PREFIX}, 'predict_strategy' cuts '{key}' over several ranks (dev_matrix "
                             f"{dev_matrix}, tensor_map {tensor_map}{', optimizer group ' + repr(opt_group) if opt_group else ''}"
                             "); cellkit runs in one process, which holds whole parameters: give "
                             "predict_strategy=None, or a layout that does not cut.")


def _strategy_lists(strategy, path):
    """``{name: (dev_matrix, tensor_map, split_shape, field, opt_step, opt_size)}``, pipeline prefixes resolved.

    MindSpore names a parameter of pipeline stage s ``"s-name"``; the lowest stage's layout is kept.
    """
    lists, stages = {}, {}
    for key, layout in strategy.items():
        stage, name = 0, key
        head, sep, tail = key.partition("-")
        if sep and head.isdigit():
            stage, name = int(head), tail
        try:
            entry = layout_lists(name, layout, "load_distributed_checkpoint")
        except ValueError as exc:
            raise ValueError(f"{exc} (strategy file {path})") from None
        if name not in lists or stage < stages[name]:
            lists[name], stages[name] = entry, stage
    return lists


def _first_dim_group(dev_matrix, first_axis, rank):
    """The ranks sharing ``rank``'s block when axis 0 is cut along the grid's leading axis (MindSpore's rule)."""
    total = math.prod(dev_matrix)
    if first_axis != len(dev_matrix) - 1:
        return list(range(total))
    span = total // dev_matrix[-1 - first_axis]
    start = rank - rank % span
    return list(range(start, start + span))


def _host(value):
    """A checkpoint value as a NumPy array (bfloat16 as float32, as MindSpore merges it)."""
    from .. import dtype as _dt

    if getattr(value, "dtype", None) == _dt.bfloat16:
        from ..ops import cast

        value = cast(value, _dt.float32)
    return np.asarray(value.asnumpy())


def _rank_slice(per_rank, name, rank, files):
    if rank >= len(files) or name not in per_rank[rank]:
        raise ValueError(f"{_PREFIX}, the strategy says rank {rank} holds a slice of '{name}', but "
                         f"{files[rank] if rank < len(files) else 'no file'} has no parameter of that name.")
    return per_rank[rank][name]


def _slices_to_merge(name, entry, per_rank, files):
    """One array per distinct slice of ``name`` (in rank order), the optimizer's shards joined first."""
    from ..parameter import Parameter
    from ..tensor import Tensor

    dev_matrix, tensor_map, _, _, opt_step, opt_size = entry
    count = len(files)
    first_axis = tensor_map[0] if tensor_map else -1
    first_cut = dev_matrix[-1 - first_axis] if first_axis >= 0 else 1
    repeat = 0
    if opt_size:
        if opt_step <= 0:
            raise ValueError(f"{_PREFIX}, the layout of '{name}' shards the optimizer (opt_weight_shard_size "
                             f"{opt_size}) with opt_weight_shard_step {opt_step}; the step should be positive.")
        repeat = int(count / opt_step / opt_size / first_cut)
    out = []
    for rank in _ranks_of_distinct_slices(dev_matrix, tensor_map):
        if opt_step <= 0:
            out.append(_rank_slice(per_rank, name, rank, files))
            continue
        group = _first_dim_group(dev_matrix, first_axis, rank) if first_cut != 1 else list(range(count))
        if rank not in group:
            raise ValueError(f"{_PREFIX}, the layout of '{name}' puts rank {rank} outside its own optimizer group.")
        if repeat > 0:
            span = opt_step * opt_size
            start = group.index(rank) // span * span
            group = group[start:start + span]
        position = group.index(rank)
        picks = sorted(set(group[position::-1][::opt_step] + group[position:][::opt_step]))
        joined = np.concatenate([_host(_rank_slice(per_rank, name, r, files)) for r in picks])
        out.append(Parameter(Tensor(joined), name=name))
    return out


def _auto_parallel_strategy_file(network):
    for _, cell in network.cells_and_names():
        if type(cell).__name__ == "AutoParallel":
            return getattr(cell, "_save_strategy_file_path", None)
    from ..common.parallel_context import get_auto_parallel_context

    return get_auto_parallel_context("strategy_ckpt_load_file")


def load_distributed_checkpoint(network, checkpoint_filenames=None, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False, dec_key=None, dec_mode='AES-GCM',
                                format='ckpt', unified_safetensors_dir=None, dst_safetensors_dir=None, rank_id=None,
                                output_format='safetensors', name_map=None, max_process_num=64,
                                return_param_dict=False):
    """Load the per-rank ``.ckpt`` files of a parallel run into ``network``, each parameter whole again.

    Every parameter of ``network`` that the strategy file describes is rebuilt
    from the slices of the ranks that hold distinct pieces (the optimizer's own
    shards joined first), as :func:`~cellkit.merge_sliced_parameter` does, and
    the whole tensors are loaded with :func:`~cellkit.load_param_into_net`.
    Parameters the strategy or the files do not have are left as they are, with
    a warning.

    Parameters
    ----------
    network : Cell
        The one-process network (whole parameter shapes).
    checkpoint_filenames : list of str
        One ``.ckpt`` file per training rank, in rank order.
    predict_strategy : dict, optional
        The layout to cut the parameters into for inference.  One process holds
        whole parameters: only ``None`` or layouts that do not cut are accepted.
    train_strategy_filename : str, optional
        The training run's strategy file; by default
        ``get_auto_parallel_context("strategy_ckpt_load_file")``.
    strict_load, dec_key, dec_mode
        As for :func:`~cellkit.load_checkpoint` / :func:`~cellkit.load_param_into_net`.
    format : str
        ``'ckpt'`` (the per-rank files above) or ``'safetensors'``: whole
        tensors from ``unified_safetensors_dir``, a folder of ``.safetensors``
        files as ``mindspore.parallel.unified_safetensors`` writes it (with
        ``param_name_map.json`` when it holds several files, and an optional
        ``hyper_param.safetensors``).  Then ``checkpoint_filenames``,
        ``train_strategy_filename`` and ``dec_key`` must be None and
        ``strict_load`` / ``dec_mode`` their defaults; ``predict_strategy``
        may name a strategy file that does not cut.
    unified_safetensors_dir : str
        The folder read with ``format='safetensors'``.
    dst_safetensors_dir, rank_id, output_format
        ``format='safetensors'`` with ``network=None``: write the whole
        tensors to ``dst_safetensors_dir/rank_<rank_id>/net.<output_format>``
        (every rank of ``predict_strategy``, or rank 0, when ``rank_id`` is None).
    name_map : dict, optional
        ``format='safetensors'``: ``{parameter name: name in the file}``.
    max_process_num : int
        Accepted; one process does the work.
    return_param_dict : bool
        ``format='safetensors'``: return the dict of Parameters instead of loading it.

    Returns
    -------
    True with ``format='ckpt'``; with ``format='safetensors'`` as MindSpore:
    ``load_param_into_net``'s ``(params not loaded, names not used)``, the
    dict (``return_param_dict``), or True (``network=None``).

    Raises
    ------
    TypeError
        ``network`` not a Cell; ``checkpoint_filenames`` not a list;
        ``dec_key`` not bytes; ``dec_mode`` or ``predict_strategy`` of the wrong type.
    ValueError
        A file name that is not an existing, non-empty ``.ckpt``; a number of
        files other than the ranks the strategy has; a missing or damaged
        strategy file; slices that do not fit the strategy; a damaged
        checkpoint; a ``predict_strategy`` that cuts a parameter over several
        ranks; with ``format='safetensors'``: arguments of the ``'ckpt'``
        path given, no folder, several files without ``param_name_map.json``.

    Examples
    --------
    Two ranks each saved half of "weight" (cut along axis 0); the strategy is given as JSON here:

    >>> import json, os, tempfile
    >>> import numpy as np
    >>> import cellkit as ms
    >>> folder = tempfile.mkdtemp()
    >>> layout = {"dev_matrix": [2], "tensor_map": [0, -1], "field": 0, "opt_weight_shard_step": 0,
    ...           "opt_weight_shard_size": 0}
    >>> with open(os.path.join(folder, "strategy.json"), "w") as f:
    ...     json.dump({"parallel_layout_item": {"weight": layout}}, f)
    >>> files = [os.path.join(folder, f"rank_{r}.ckpt") for r in range(2)]
    >>> for r, path in enumerate(files):
    ...     ms.save_checkpoint([{"name": "weight", "data": ms.Tensor(np.full((1, 3), r, np.float32))}], path)
    >>> net = ms.nn.Dense(3, 2, has_bias=False)
    >>> ms.load_distributed_checkpoint(net, files, None, os.path.join(folder, "strategy.json"))
    True
    >>> print(net.weight.asnumpy())
    [[0. 0. 0.]
     [1. 1. 1.]]
    """
    from ..nn import Cell
    from .checkpoint import load_checkpoint, load_param_into_net
    from .convert import merge_sliced_parameter

    if format not in ("safetensors", "ckpt") or output_format not in ("safetensors", "ckpt"):
        raise ValueError(f"{_PREFIX}, 'format' and 'output_format' must be 'ckpt' or 'safetensors', but got "
                         f"format={format!r} and output_format={output_format!r}.")
    if format == "safetensors":
        return _load_unified_safetensors(network, checkpoint_filenames, predict_strategy, train_strategy_filename,
                                         strict_load, dec_key, dec_mode, unified_safetensors_dir,
                                         dst_safetensors_dir, rank_id, output_format, name_map, return_param_dict)
    if not isinstance(network, Cell):
        raise TypeError(f"{_PREFIX}, the argument 'network' should be a Cell, but got {type(network)}.")
    _check_checkpoint_filenames(checkpoint_filenames)
    _check_predict_strategy(predict_strategy)
    if dec_key is not None and not isinstance(dec_key, bytes):
        raise TypeError(f"{_PREFIX}, the argument 'dec_key' should be None or bytes, but got {type(dec_key)}.")
    if not isinstance(dec_mode, str):
        raise TypeError(f"{_PREFIX}, the argument 'dec_mode' should be str, but got {type(dec_mode)}.")

    if train_strategy_filename is None:
        train_strategy_filename = _auto_parallel_strategy_file(network)
    strategy = read_strategy(train_strategy_filename, "load_distributed_checkpoint", "train_strategy_filename")
    if not strategy:
        return True
    lists = _strategy_lists(strategy, train_strategy_filename)

    device_count = math.prod(next(iter(lists.values()))[0])
    if device_count != len(checkpoint_filenames):
        raise ValueError("For 'Load_distributed_checkpoint', the length of 'checkpoint_filenames' should be equal to "
                         "the device count of training process. But got the length of 'checkpoint_filenames' is "
                         f"{len(checkpoint_filenames)} and the device count is {device_count}.")

    per_rank = [load_checkpoint(os.path.abspath(f), dec_key=dec_key, dec_mode=dec_mode)
                for f in checkpoint_filenames]
    in_files = set().union(*per_rank)

    param_dict, not_in_strategy, not_in_files, not_in_predict = {}, [], [], []
    for _, param in network.parameters_and_names():
        name = param.name
        if name not in lists:
            not_in_strategy.append(name)
            continue
        if predict_strategy is not None and name not in predict_strategy:
            not_in_predict.append(name)
            continue
        if name not in in_files:
            not_in_files.append(name)
            continue
        entry = lists[name]
        dev_matrix, tensor_map = entry[0], entry[1]
        if math.prod(dev_matrix) != len(checkpoint_filenames):
            raise ValueError(f"{_PREFIX}, the layout of '{name}' in {train_strategy_filename!r} spreads it over "
                             f"{math.prod(dev_matrix)} ranks (dev_matrix {dev_matrix}), but "
                             f"{len(checkpoint_filenames)} checkpoint files were given.")
        sliced = _slices_to_merge(name, entry, per_rank, checkpoint_filenames)
        layout = _UniqueLayout(_unique_layout(dev_matrix, tensor_map), tensor_map, entry[2], entry[3])
        param_dict[name] = merge_sliced_parameter(list(sliced), {name: layout})

    if not_in_strategy:
        warnings.warn(f"{_PREFIX}, {not_in_strategy} parameters in network are not in the slice strategy, you can "
                      "check whether 'predict_strategy' or 'train_strategy_filename' is correct.", stacklevel=2)
    if not_in_predict:
        warnings.warn(f"{_PREFIX}, {not_in_predict} parameters in network are not in 'predict_strategy' and were not "
                      "loaded.", stacklevel=2)
    if not_in_files:
        warnings.warn(f"{_PREFIX}, {not_in_files} parameters in network and slice strategy but not in the checkpoint "
                      "file, please check whether 'checkpoint_filenames' is correct.", stacklevel=2)
    load_param_into_net(network, param_dict, strict_load=strict_load)
    return True


def _load_unified_safetensors(network, checkpoint_filenames, predict_strategy, train_strategy_filename, strict_load,
                              dec_key, dec_mode, unified_dir, dst_dir, rank_id, output_format, name_map,
                              return_param_dict):
    """``format='safetensors'``: whole tensors from a folder of ``.safetensors`` files, into one process.

    The folder is what ``mindspore.parallel.unified_safetensors`` writes: the files, ``param_name_map.json``
    (``{"weight_map": {name: file}}`` or ``{name: file}``; not needed for a single file) and an optional
    ``hyper_param.safetensors`` whose entries are added as they are.
    """
    from ..nn import Cell
    from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

    if unified_dir is None:
        raise ValueError(f"{_PREFIX}, 'unified_safetensors_dir' can not be None when format is 'safetensors'.")
    for arg, value in (("checkpoint_filenames", checkpoint_filenames),
                       ("train_strategy_filename", train_strategy_filename), ("dec_key", dec_key)):
        if value is not None:
            raise ValueError(f"{_PREFIX}, '{arg}' must be None when format is 'safetensors', but got {value!r}.")
    if strict_load or dec_mode != "AES-GCM":
        raise ValueError(f"{_PREFIX}, strict_load and dec_mode must be default when format is 'safetensors', but "
                         f"got strict_load={strict_load!r} and dec_mode={dec_mode!r}.")
    if not isinstance(unified_dir, str) or not os.path.isdir(unified_dir):
        raise ValueError(f"{_PREFIX}, 'unified_safetensors_dir' should be an existing folder, but got "
                         f"{unified_dir!r}.")
    if name_map is not None and not isinstance(name_map, dict):
        raise TypeError(f"{_PREFIX}, 'name_map' should be a dict or None, but got {type(name_map)}.")
    if network is not None and not isinstance(network, Cell):
        raise TypeError(f"{_PREFIX}, the argument 'network' should be a Cell or None, but got {type(network)}.")
    wanted = None
    if predict_strategy is not None:
        if not isinstance(predict_strategy, str):
            raise TypeError(f"{_PREFIX}, with format='safetensors' 'predict_strategy' should be a strategy file "
                            f"name or None, but got {type(predict_strategy)}.")
        layouts = read_strategy(predict_strategy, "load_distributed_checkpoint", "predict_strategy")
        for name, layout in layouts.items():
            dev_matrix, tensor_map = layout_lists(name, layout, "load_distributed_checkpoint")[:2]
            if any(dev_matrix[-1 - t] > 1 for t in tensor_map if t != -1):
                raise ValueError(f"{_PREFIX}, 'predict_strategy' {predict_strategy!r} cuts '{name}' over several "
                                 f"ranks (dev_matrix {dev_matrix}, tensor_map {tensor_map}); cellkit runs in one "
                                 "process, which holds whole parameters.")
        wanted = list(layouts)

    files = sorted(f for f in os.listdir(unified_dir) if f.endswith(".safetensors"))
    if len(files) == 1:
        where = {name: files[0] for name in load_checkpoint(os.path.join(unified_dir, files[0]),
                                                            format="safetensors")}
        if name_map:
            flipped = {v: k for k, v in name_map.items()}
            where = {flipped.get(k, k): v for k, v in where.items()}
    else:
        map_file = os.path.join(unified_dir, "param_name_map.json")
        if not os.path.isfile(map_file):
            raise ValueError(f"{_PREFIX}, the folder {unified_dir!r} ('unified_safetensors_dir') holds "
                             f"{len(files)} .safetensors files and no 'param_name_map.json' saying which holds "
                             "which parameter.")
        try:
            with open(map_file, "r", encoding="utf-8") as f:
                where = json.load(f)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{_PREFIX}, {map_file!r} is not JSON ({exc}).") from None
        if isinstance(where, dict) and "weight_map" in where:
            where = where["weight_map"]
        if not isinstance(where, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in where.items()):
            raise ValueError(f"{_PREFIX}, {map_file!r} should map parameter names to file names.")

    cache, params = {}, {}
    for name in (wanted if wanted is not None else list(where)):
        if name not in where:
            continue
        file = os.path.join(unified_dir, where[name])
        if os.path.dirname(os.path.normpath(file)) != os.path.normpath(unified_dir) or not os.path.isfile(file):
            raise ValueError(f"{_PREFIX}, 'param_name_map.json' puts '{name}' in {where[name]!r}, which is not a "
                             f"file of {unified_dir!r}.")
        if file not in cache:
            cache[file] = load_checkpoint(file, format="safetensors")
        stored = name_map.get(name, name) if name_map else name
        if stored in cache[file]:
            params[name] = cache[file][stored] if stored == name else Parameter(cache[file][stored].value(), name=name)
    hyper = os.path.join(unified_dir, "hyper_param.safetensors")
    if os.path.isfile(hyper):
        params.update(load_checkpoint(hyper, format="safetensors"))

    if network is not None:
        if return_param_dict:
            return params
        return load_param_into_net(network, params)
    if dst_dir is None:
        raise ValueError(f"{_PREFIX}, 'dst_safetensors_dir' can not be None when network is None.")
    if rank_id is not None and (isinstance(rank_id, bool) or not isinstance(rank_id, int) or rank_id < 0):
        raise TypeError(f"{_PREFIX}, 'rank_id' should be a non-negative int or None, but got {rank_id!r}.")
    # a layout that does not cut gives every rank the whole tensors: one file per rank asked for
    if rank_id is not None:
        ranks = [rank_id]
    elif wanted:
        ranks = range(math.prod(layout_lists(wanted[0], layouts[wanted[0]], "load_distributed_checkpoint")[0]))
    else:
        ranks = [0]
    for rank in ranks:
        folder = os.path.join(dst_dir, f"rank_{rank}")
        os.makedirs(folder, exist_ok=True)
        save_checkpoint(params, os.path.join(folder, f"net.{output_format}"), format=output_format)
    return True


class _Dims:
    __slots__ = ("dim",)

    def __init__(self, dims):
        self.dim = list(dims)


class _UniqueLayout:
    """A layout with MindSpore's attribute names, for the grid of distinct slices."""

    def __init__(self, dev_matrix, tensor_map, split_shape, field):
        self.dev_matrix = [_Dims(dev_matrix)]
        self.tensor_map = [_Dims(tensor_map)]
        self.param_split_shape = [_Dims(split_shape)]
        self.indices_offset = [_Dims([])]
        self.field = field
        self.opt_weight_shard_step = 0
        self.opt_weight_shard_size = 0
