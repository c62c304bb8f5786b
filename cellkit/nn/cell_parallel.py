"""Parallel, placement and compilation settings of a Cell, validated and recorded.

MindSpore uses these to split a network across devices and processes.
cellkit runs in one process on one device, so each setting is checked as
MindSpore checks it and then *recorded* -- in the Cell's
:class:`ParallelRecord` (created by the first setting; ``parallel_config``
shows it) and, where it concerns weights, on the Parameters -- so that
displays and state can show it.  What single-process execution does with
each one is said in its docstring.  ``flatten_weights`` is the exception: it
really regroups the weights into contiguous buffers.  The functions taking
``self`` are methods of ``nn.Cell``.

>>> from cellkit import nn
>>> net = nn.Dense(4, 4)
>>> net.set_comm_fusion(2).parallel_config
mappingproxy({'comm_fusion': 2})
"""
from __future__ import annotations

import types
import warnings
from collections import OrderedDict

import numpy as np

from .. import backend as _backend
from ..jit_config import JitConfig  # noqa: F401  (re-exported)
from ..tensor import Tensor

__all__ = ["ParallelRecord", "BOOST_ALGORITHMS", "parallel_config"]

# The boost algorithms MindSpore accepts for set_boost.
BOOST_ALGORITHMS = ("less_bn",)


def _check_int(value, name, minimum=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"The input value of '{name}' must be int, but got '{type(value).__name__}'")
    if minimum is not None and value < minimum:
        raise ValueError(f"The input value of '{name}' must be int and must >= {minimum}, but got '{value}'")
    return int(value)


def _check_strategy(strategy, name):
    """A sharding strategy: a tuple of tuples of positive ints (or None)."""
    if strategy is None:
        return None
    if not isinstance(strategy, (tuple, list)):
        raise TypeError(f"For 'shard', '{name}' must be a tuple, but got {type(strategy).__name__}")
    for item in strategy:
        if item is None:
            continue
        parts = item if isinstance(item, (tuple, list)) else (item,)
        for p in parts:
            if isinstance(p, bool) or not isinstance(p, int) or p < 1:
                raise ValueError(f"For 'shard', every entry of '{name}' must be a positive int, but got {item!r}")
    return tuple(tuple(i) if isinstance(i, (tuple, list)) else i for i in strategy)


class ParallelRecord:
    """What a Cell's parallel settings recorded (the Cell holds one once a setting is made)."""

    __slots__ = ("config", "pipeline_stage", "pipeline_segment", "layout", "jit_config", "flat_buffers",
                 "name_list", "merge_net_dict")

    def __init__(self):
        self.config = OrderedDict()   # setting name -> what was recorded
        self.pipeline_stage = None    # None: never set (reading it is an AttributeError, as in MindSpore)
        self.pipeline_segment = None
        self.name_list = ()           # parallel_parameter_name_list
        self.merge_net_dict = {}      # parallel_parameter_merge_net_dict
        self.layout = {}              # Parameter name -> tensor layout (empty: nothing is split)
        self.jit_config = None
        self.flat_buffers = []        # flatten_weights' buffers


def _record_of(cell):
    record = cell._parallel
    if record is None:
        record = ParallelRecord()
        object.__setattr__(cell, "_parallel", record)
    return record


def _record(cell, key, value):
    _record_of(cell).config[key] = value


def _get_parallel_config(self):
    """Every recorded setting, read-only: parallel ones, and ``recompute`` / ``offload`` when set."""
    view = {} if self._parallel is None else dict(self._parallel.config)
    if self._recompute is not None:
        view["recompute"] = self._recompute.record()
    if self._offload is not None:
        view["offload"] = dict(self._offload)
    return types.MappingProxyType(view)


parallel_config = property(_get_parallel_config)


def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """Record how inputs, outputs and named Parameters would be split across devices.

    Single process: the Cell runs unsplit; the strategy is kept in
    ``parallel_config['shard']`` and each planned Parameter's
    ``shard_strategy``.  Returns the Cell, callable as before.
    """
    in_strategy = _check_strategy(in_strategy, "in_strategy")
    out_strategy = _check_strategy(out_strategy, "out_strategy")
    if parameter_plan is not None and not isinstance(parameter_plan, dict):
        raise TypeError(f"For 'shard', 'parameter_plan' must be a dict or None, but got {type(parameter_plan).__name__}")
    if device not in ("CPU", "GPU", "Ascend"):
        raise ValueError(f"For 'shard', 'device' must be 'CPU', 'GPU' or 'Ascend', but got {device!r}")
    if level not in (0, 1, 2):
        raise ValueError(f"For 'shard', 'level' must be 0, 1 or 2, but got {level!r}")
    params = dict(self.parameters_and_names())
    plans = {}
    for name, plan in (parameter_plan or {}).items():
        if not isinstance(name, str):
            raise TypeError(f"For 'shard', the keys of 'parameter_plan' must be str, but got {type(name).__name__}")
        plans[name] = _check_strategy((plan,), "parameter_plan")[0]
    for name, plan in plans.items():
        key = name[len("self."):] if name.startswith("self.") else name
        # As the spec says: an unknown name, or a Parameter that already has a strategy, is skipped.
        if key in params and getattr(params[key], "shard_strategy", None) is None:
            params[key].shard_strategy = plan
    _record(self, "shard", {"in_strategy": in_strategy, "out_strategy": out_strategy,
                           "parameter_plan": dict(parameter_plan or {}), "device": device, "level": level})
    return self


def place(self, role, rank_id):
    """Record the process (``role``, ``rank_id``) this Cell's ops would run on.

    Single process: everything runs here; the label is recorded.
    """
    if role != "MS_WORKER":
        raise ValueError(f"For 'place', 'role' must be 'MS_WORKER', but got {role!r}")
    _record(self, "place", {"role": role, "rank_id": _check_int(rank_id, "rank_id", 0)})
    for _, cell in self.cells_and_names():
        _record(cell, "place", _record_of(self).config["place"])


def set_comm_fusion(self, fusion_type, recurse=True):
    """Set ``comm_fusion`` on the trainable Parameters (gradient all-reduce grouping; recorded); returns self."""
    fusion_type = _check_int(fusion_type, "fusion_type", 0)
    for p in self.trainable_params(recurse):
        p.comm_fusion = fusion_type
    _record(self, "comm_fusion", fusion_type)
    return self


def set_data_parallel(self):
    """Record a data-parallel strategy for every op without one (single process: no split)."""
    for _, cell in self.cells_and_names():
        _record(cell, "data_parallel", True)


def set_auto_parallel(self):
    """Record that the Cell is to be compiled in auto-parallel mode."""
    _record(self, "auto_parallel", True)


def set_broadcast_flag(self, mode=True):
    """Record whether parameters are broadcast from rank 0 at start (one process: nothing to send)."""
    _record(self, "broadcast", bool(mode))
    return self


def set_param_ps(self, recurse=True, init_in_server=False):
    """Mark trainable Parameters as held by a parameter server (recorded on each Parameter)."""
    if not isinstance(init_in_server, bool):
        raise TypeError(f"For 'set_param_ps', 'init_in_server' must be a bool, but got {type(init_in_server).__name__}")
    for p in self.trainable_params(recurse):
        p.set_param_ps(init_in_server)
    _record(self, "param_ps", {"init_in_server": init_in_server})


def set_parallel_input_with_inputs(self, *inputs):
    """Record the inputs that would be sliced by the parallel strategy (one process: unsliced)."""
    _record(self, "parallel_inputs", tuple(getattr(i, "shape", None) for i in inputs))


def load_parameter_slice(self, params):
    """Replace Parameters' data by name from ``params`` (a dict: Parameter name -> Tensor).

    In a parallel run each process loads its slice; in one process the
    slice is the whole Parameter.  Names that are not Parameters of the
    Cell are skipped; ``None`` means the Cell's own values (nothing changes).

    Raises
    ------
    TypeError
        If ``params`` is not a dict, or a value is not a Tensor.
    """
    if params is None:
        return
    if not isinstance(params, dict):
        raise TypeError(f"For 'load_parameter_slice', 'params' must be a dict, but got {type(params).__name__}")
    own = self.parameters_dict()
    for name, value in params.items():
        if name in own and not isinstance(value, Tensor):
            raise TypeError(
                f"For 'load_parameter_slice', the value for '{name}' must be a Tensor, but got {type(value).__name__}"
            )
    for name, value in params.items():
        if name in own:
            own[name].set_data(value)


def _get_pipeline_stage(self):
    """The pipeline stage this Cell is assigned to; AttributeError until it is set (as in MindSpore)."""
    stage = None if self._parallel is None else self._parallel.pipeline_stage
    if stage is None:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'pipeline_stage': it was never set")
    return stage


def _set_pipeline_stage(self, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'Cell', the property 'pipeline_stage' must be int type, but got type : {type(value)}")
    if value < 0:
        raise ValueError(f"For 'Cell', the property 'pipeline_stage' can not be less than 0, but got {value}")
    _record_of(self).pipeline_stage = value
    _record(self, "pipeline_stage", value)
    # As MindSpore: the Cell's trainable Parameters are marked as used in that stage.
    for p in self.trainable_params():
        if value not in p.pipeline_stages:
            p.add_pipeline_stage(value)


def infer_param_pipeline_stage(self):
    """The trainable Parameters that belong to the current process's pipeline stage.

    A Parameter's stages are those of the Cells holding it (set through
    ``pipeline_stage``) and those added with ``Parameter.add_pipeline_stage``.
    cellkit runs as the single process, rank 0, so the current stage is 0.
    Deprecated in MindSpore 2.3.

    Raises
    ------
    RuntimeError
        If a trainable Parameter belongs to no stage at all.
    """
    current = 0
    result = []
    for p in self.trainable_params():
        stages = p.pipeline_stages
        if not stages:
            raise RuntimeError(
                f"For 'infer_param_pipeline_stage', the parameter {p.name} does not belong to any stage: set "
                "'pipeline_stage' on the Cell holding it, or add its stage with Parameter.add_pipeline_stage"
            )
        if current in stages:
            result.append(p)
    return result


def _get_parameter_layout_dict(self):
    """The tensor layout of each Parameter under a parallel strategy (empty: nothing is split)."""
    return _record_of(self).layout


def set_boost(self, boost_type):
    """Enable a training-boost algorithm (recorded; ``'less_bn'`` is the one MindSpore knows)."""
    if boost_type not in BOOST_ALGORITHMS:
        raise ValueError(
            f"For 'set_boost', the argument 'boost_type' must be one of {BOOST_ALGORITHMS}, but got {boost_type!r}."
        )
    _record(self, "boost", boost_type)
    return self


def set_jit_config(self, jit_config):
    """Set the graph-mode compile options (a :class:`JitConfig`)."""
    if not hasattr(jit_config, "jit_config_dict"):
        raise TypeError(f"For 'set_jit_config', 'jit_config' must be a JitConfig, but got {type(jit_config).__name__}")
    if _record_of(self).jit_config is not None:
        # As MindSpore: the first configuration stays; later ones are ignored with a warning.
        warnings.warn("For Cell, jit config can only be set once, ignore this setting.", RuntimeWarning,
                      stacklevel=2)
        return
    _record_of(self).jit_config = jit_config
    _record(self, "jit_config", dict(jit_config.jit_config_dict))


def flatten_weights(self, fusion_size=0):
    """Regroup the trainable Parameters into contiguous buffers, one per dtype.

    Each Parameter's data becomes a view into its group's buffer, so one
    optimizer step could update a whole group at once.  With
    ``fusion_size > 0`` (bytes) a group is split into buffers no larger
    than that (a Parameter bigger than ``fusion_size`` gets its own).
    Non-trainable Parameters are left alone.

    Returns the buffers as Tensors sharing the memory (MindSpore returns
    nothing; the buffers let a display show the layout).  Note that
    ``Parameter.set_data`` gives a Parameter new memory, taking it out of
    its buffer; ``load_state_dict`` writes in place and keeps it in.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> net = nn.SequentialCell(nn.Dense(3, 2), nn.Dense(2, 1))
    >>> [b.shape for b in net.flatten_weights()]
    [(11,)]
    """
    fusion_size = _check_int(fusion_size, "fusion_size", 0)
    xp = _backend.current().xp
    groups = OrderedDict()
    for p in self.trainable_params():
        p.init_data()  # a lazily-initialised Parameter needs its values before they can move
        groups.setdefault(p.dtype, []).append(p)
    buffers = []
    for dtype, params in groups.items():
        chunk, chunk_bytes = [], 0
        chunks = []
        for p in params:
            nbytes = p.size * dtype.itemsize
            if fusion_size and chunk and chunk_bytes + nbytes > fusion_size:
                chunks.append(chunk)
                chunk, chunk_bytes = [], 0
            chunk.append(p)
            chunk_bytes += nbytes
        if chunk:
            chunks.append(chunk)
        for members in chunks:
            flat = xp.concat([xp.reshape(p._data, (-1,)) for p in members])
            offset = 0
            for p in members:
                n = p.size
                p._data = xp.reshape(flat[offset:offset + n], p.shape)
                offset += n
            buffers.append(flat)
    _record_of(self).flat_buffers = buffers
    _record(self, "flatten_weights", {"fusion_size": fusion_size,
                                     "buffers": [(str(b.dtype), int(b.shape[0])) for b in buffers]})
    return [Tensor._from_array(b) for b in buffers]


pipeline_stage = property(_get_pipeline_stage, _set_pipeline_stage)


def _get_pipeline_segment(self):
    """The pipeline segment of this Cell (a zero-bubble pipeline's schedule); AttributeError until set."""
    segment = None if self._parallel is None else self._parallel.pipeline_segment
    if segment is None:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'pipeline_segment': it was never set")
    return segment


def _set_pipeline_segment(self, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'Cell', the property 'pipeline_segment' must be int type, but got type : {type(value)}")
    if value < 0:
        raise ValueError(f"For 'Cell', the property 'pipeline_segment' can not be less than 0, but got {value}")
    _record_of(self).pipeline_segment = value
    _record(self, "pipeline_segment", value)


pipeline_segment = property(_get_pipeline_segment, _set_pipeline_segment)


def _get_name_list(self):
    """Parameter names used when merging parallel checkpoints (recorded; ``()`` by default)."""
    return () if self._parallel is None else self._parallel.name_list


def _set_name_list(self, value):
    if not isinstance(value, list):
        raise TypeError(f"For 'Cell', 'parallel_parameter_name_list' must be list type, but got type {type(value)}.")
    _record_of(self).name_list = value


parallel_parameter_name_list = property(_get_name_list, _set_name_list)


def _get_merge_net_dict(self):
    """The net dict used when merging parallel checkpoints (recorded; ``{}`` by default)."""
    return {} if self._parallel is None else self._parallel.merge_net_dict


def _set_merge_net_dict(self, value):
    if not isinstance(value, dict):
        raise TypeError(f"For 'Cell', 'parallel_parameter_merge_net_dict' must be dict type, but got type "
                        f"{type(value)}.")
    _record_of(self).merge_net_dict = value


parallel_parameter_merge_net_dict = property(_get_merge_net_dict, _set_merge_net_dict)
parameter_layout_dict = property(_get_parameter_layout_dict)
