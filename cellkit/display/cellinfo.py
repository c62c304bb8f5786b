"""What a display shows about one Cell, read from the settings the Cell records.

The runtime keeps each concern in a part of its own, made when first used
(hooks in ``_hooks`` and ``_state_hooks``, recompute in ``_recompute``,
``to_float`` in ``_precision``, shard / offload / pipeline / place ... in
``parallel_config``); :func:`inspect_cell` gathers them into one plain
:class:`CellInfo`, never raising: a value that cannot be read becomes a note.

>>> from cellkit import nn
>>> dense = nn.Dense(3, 2)
>>> handle = dense.register_forward_hook(lambda cell, inputs, output: None)
>>> info = inspect_cell(dense)
>>> info.cls, info.own_count, info.own_bytes, info.hooks
('Dense', 8, 32, [('forward', 1)])
"""
from __future__ import annotations

import math

from .html import one_line

__all__ = ["CellInfo", "inspect_cell", "HOOK_KINDS", "hook_registries", "setting_label", "short_parameters", "parameter_kind"]

# (the Cell's part, its registry, short label); the label is what a display prints.
HOOK_KINDS = (
    ("_hooks", "forward_pre", "forward_pre"),
    ("_hooks", "forward", "forward"),
    ("_hooks", "backward_pre", "backward_pre"),
    ("_hooks", "backward", "backward"),
    ("_state_hooks", "state_dict_pre", "state_dict_pre"),
    ("_state_hooks", "state_dict_post", "state_dict"),
    ("_state_hooks", "load_pre", "load_state_dict_pre"),
    ("_state_hooks", "load_post", "load_state_dict_post"),
)


def hook_registries(cell):
    """``[(label, registry), ...]`` for every hook kind of ``cell`` (empty registries included)."""
    d = cell.__dict__
    found = []
    for part_name, registry_name, label in HOOK_KINDS:
        part = d.get(part_name)
        if part is not None:
            found.append((label, getattr(part, registry_name)))
    return found

_TEXT_LIMIT = 600  # arguments wrap in the tree rather than being cut


class CellInfo:
    """The displayable facts of one Cell (its own, not its children's).

    Attributes
    ----------
    cls : str
        The class name.
    extra : str
        ``extend_repr()`` on one line (cut to a readable length).
    own_params : list of (key, Parameter)
        The Parameters the Cell holds directly, in registration order.
    own_count, own_bytes : int
        Their elements and bytes.
    buffers : list of (key, Tensor)
    training : bool
    hooks : list of (kind, count)
        Only kinds with at least one hook.
    bprop : bool
        A custom ``bprop`` is defined.
    recompute : bool
    to_float : str or None
        The dtype given to ``to_float``.
    settings : list of (key, value)
        The recorded parallel / placement settings (``parallel_config``),
        recompute left out (it has its own mark).
    flags : list of (key, value)
        ``add_flags`` flags other than ``training``.
    extra_state : str or None
        ``get_extra_state()`` on one line, when the Cell defines it.
    notes : list of str
        What could not be read.
    """

    __slots__ = ("cls", "extra", "own_params", "own_count", "own_bytes", "buffers", "buffer_bytes", "training",
                 "hooks", "bprop", "recompute", "to_float", "settings", "flags", "extra_state", "notes")


def _safe(read, notes, what, default=None):
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 -- a display never raises
        notes.append(one_line(f"{what} failed: {type(exc).__name__}: {exc}", 120))
        return default


def inspect_cell(cell) -> CellInfo:
    """Gather a Cell's displayable facts into a :class:`CellInfo` (never raises)."""
    info = CellInfo()
    notes = info.notes = []
    info.cls = type(cell).__name__
    d = cell.__dict__
    params = []
    seen = set()
    for key, p in (d.get("_params") or {}).items():
        if p is not None and id(p) not in seen:
            seen.add(id(p))
            params.append((key, p))
    info.own_params = params
    raw = _safe(lambda: cell.extend_repr() or "", notes, "extend_repr", "")
    info.extra = one_line(short_parameters(str(raw), params), _TEXT_LIMIT)
    info.own_count = sum(_size(p) for _, p in params)
    info.own_bytes = sum(_nbytes(p) for _, p in params)
    info.buffers = [(k, b) for k, b in (d.get("_buffers") or {}).items() if b is not None]
    info.buffer_bytes = sum(_nbytes(b) for _, b in info.buffers)
    info.training = bool(d.get("training", False))
    info.hooks = [(label, len(registry)) for label, registry in hook_registries(cell) if registry]
    info.bprop = callable(getattr(type(cell), "bprop", None))
    info.recompute = d.get("_recompute") is not None
    precision = d.get("_precision")
    dst = None if precision is None else precision.dst_type
    info.to_float = None if dst is None else str(dst)
    config = _safe(lambda: cell.parallel_config, notes, "parallel_config", {})
    info.settings = [(k, v) for k, v in config.items() if k != "recompute"]
    info.flags = [(k, v) for k, v in (d.get("_flags") or {}).items() if k != "training"]
    info.extra_state = None
    if _safe(lambda: _overrides_extra_state(cell), notes, "get_extra_state", False):
        state = _safe(cell.get_extra_state, notes, "get_extra_state", None)
        info.extra_state = one_line(repr(state), _TEXT_LIMIT) if state is not None else None
    return info


def _overrides_extra_state(cell):
    """Whether the Cell's class defines its own ``get_extra_state`` (the base one only raises)."""
    from ..nn import cell_state  # the runtime's, read lazily: a display never imports nn at module level

    return type(cell).get_extra_state is not cell_state.get_extra_state


def short_parameters(text, params):
    """``text`` with each Parameter's repr replaced by its shape: ``gamma=[64]`` (names left out).

    MindSpore's ``extend_repr`` of BatchNorm, LayerNorm and Embedding prints
    whole Parameters, names included, so no two blocks would read alike; the
    tree shows shapes (the parameter table has the rest).

    >>> from cellkit import nn
    >>> bn = nn.BatchNorm1d(3)
    >>> short_parameters(bn.extend_repr(), list(bn._params.items()))
    'num_features=3, eps=1e-05, momentum=0.9, gamma=[3], beta=[3], moving_mean=[3], moving_variance=[3]'
    """
    if "Parameter (" not in text:
        return text
    for _, p in params:
        try:
            shown = repr(p)
        except Exception:  # noqa: BLE001 -- an odd Parameter keeps its text
            continue
        if shown in text:
            text = text.replace(shown, "[" + ", ".join(str(d) for d in p.shape) + "]")
    return text


def _size(t):
    return max(math.prod(t.shape), 0)  # a dynamic (-1) placeholder dimension counts as empty


def _nbytes(t):
    return _size(t) * t.dtype.itemsize


def setting_label(key, value) -> str:
    """A short label for a recorded setting: ``'pipeline_stage 1'``, ``'shard in=((2, 1),)'``."""
    if key == "shard" and isinstance(value, dict):
        text = f"shard in={value.get('in_strategy')}"
        if value.get("out_strategy") is not None:
            text += f" out={value.get('out_strategy')}"
        if value.get("parameter_plan"):
            text += f" plan={value.get('parameter_plan')}"
        return one_line(text, 80)
    if key == "offload" and isinstance(value, dict):
        return one_line(f"offload prefetch={value.get('backward_prefetch')}", 80)
    if key == "place" and isinstance(value, dict):
        return one_line(f"place rank {value.get('rank_id')}", 80)
    if value is True:
        return one_line(key, 80)
    if isinstance(value, (int, float, str)):
        return one_line(f"{key} {value}", 80)
    return one_line(key, 80)


def size_and_bytes(tensor):
    """(elements, bytes) of a Tensor without touching its data (placeholders included)."""
    n = _size(tensor)
    return n, n * tensor.dtype.itemsize


# Parameters that hold running statistics: updated by the forward pass, never by an optimizer.
_STATISTIC_KEYS = ("moving_mean", "moving_variance", "running_mean", "running_var")


def parameter_kind(key, param) -> str:
    """``'trainable'``, ``'frozen'`` or ``'statistic'`` (a BatchNorm's running mean and variance).

    A statistic is a Parameter the layer updates itself in forward and that
    no optimizer may train: unfreezing it would put it in
    ``trainable_params()`` (and under weight decay).  ``key`` is the
    attribute name or a dotted path ending in it.

    >>> from cellkit import nn
    >>> bn = nn.BatchNorm1d(2)
    >>> [parameter_kind(k, p) for k, p in bn._params.items()]
    ['statistic', 'statistic', 'trainable', 'trainable']
    """
    if key.rsplit(".", 1)[-1] in _STATISTIC_KEYS:
        return "statistic"
    return "trainable" if getattr(param, "requires_grad", True) else "frozen"
