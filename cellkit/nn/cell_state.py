"""A Cell's state: buffers, ``state_dict``, ``load_state_dict``, and their hooks.

The state of a network is its Parameters and persistent buffers, keyed by
attribute path (``dense.weight``), plus any extra state a Cell returns from
``get_extra_state``.  ``load_state_dict`` checks *everything* (missing and
unexpected keys, shapes, types) before it changes anything, so a failed
strict load leaves the network exactly as it was.
"""
from __future__ import annotations

import copy
from collections import OrderedDict, namedtuple
from collections.abc import Mapping, MutableMapping

import numpy as np

from .. import backend as _backend
from ..tensor import Tensor
from .hooks import HookRegistry, RemovableHandle, check_hook

__all__ = ["IncompatibleKeys", "StateHooks", "state_dict", "load_state_dict", "register_buffer", "named_buffers",
           "buffers", "get_buffer", "get_extra_state", "set_extra_state"]

_EXTRA_STATE_KEY = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` could not match: ``missing_keys`` and ``unexpected_keys``."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


IncompatibleKeys = _IncompatibleKeys


# ------------------------------------------------------------------ buffers

def register_buffer(self, name, tensor, persistent=True):
    """Register ``tensor`` as buffer ``name`` (``persistent=False`` keeps it out of state_dict).

    Raises
    ------
    TypeError
        If ``name`` is not a str or ``tensor`` is neither a Tensor nor None.
    KeyError
        If ``name`` is empty, contains ``'.'`` or names another attribute.
    """
    if "_buffers" not in self.__dict__:
        raise AttributeError("cannot assign buffer before Cell.__init__() call")
    if not isinstance(name, str):
        raise TypeError(f"For 'register_buffer', the buffer name must be a str, but got {type(name).__name__}")
    if not name:
        raise KeyError("For 'register_buffer', the buffer name can't be empty string \"\"")
    if "." in name:
        raise KeyError(f"For 'register_buffer', the buffer name can't contain \".\", but got {name!r}")
    if name not in self._buffers and (name in self.__dict__ or hasattr(type(self), name)):
        raise KeyError(f"For 'register_buffer', attribute '{name}' already exists")
    if name in self._params or name in self._cells:
        raise KeyError(f"For 'register_buffer', attribute '{name}' already exists")
    if tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(
            f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None required)"
        )
    # The Tensor itself is held (as in MindSpore), so the caller's object is the buffer.
    self._buffers[name] = tensor
    set_persistent(self, name, persistent)


def set_persistent(cell, name, persistent):
    """Mark buffer ``name`` as saved in ``state_dict`` (persistent) or not."""
    if persistent:
        if name in cell._non_persistent:
            cell._non_persistent.discard(name)
    else:
        if "_non_persistent" not in cell.__dict__:  # the class default is an empty frozenset
            object.__setattr__(cell, "_non_persistent", set())
        cell._non_persistent.add(name)


def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
    """(dotted name, buffer) pairs, this Cell's first, then its children's."""
    seen = set()
    cells = self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]
    for path, cell in cells:
        for name, buf in cell._buffers.items():
            if buf is None or (remove_duplicate and id(buf) in seen):
                continue
            seen.add(id(buf))
            yield (f"{path}.{name}" if path else name), buf


def buffers(self, recurse=True):
    """The buffers (an iterator)."""
    return (b for _, b in self.named_buffers(recurse=recurse))


def get_buffer(self, target):
    """The buffer at dotted path ``target`` (``'net_b.buffer_b'``); AttributeError if absent."""
    if not isinstance(target, str):
        raise TypeError(f"For 'get_buffer', 'target' must be a str, but got {type(target).__name__}")
    cell_path, _, name = target.rpartition(".")
    try:
        cell = self.get_sub_cell(cell_path)
    except AttributeError as exc:
        raise AttributeError(f"For 'get_buffer', no buffer at target '{target}': {exc}") from None
    if name not in cell._buffers:
        where = cell_path or type(self).__name__
        raise AttributeError(f"For 'get_buffer', {where} has no buffer named '{name}' (target '{target}')")
    return cell._buffers[name]

# --------------------------------------------------------------- extra state

def get_extra_state(self):
    """Extra picklable state for ``state_dict``; override together with :meth:`set_extra_state`."""
    raise RuntimeError(
        f"{type(self).__name__} defines no get_extra_state(); implement it (and set_extra_state) to save extra state"
    )


def set_extra_state(self, state):
    """Restore what :meth:`get_extra_state` returned; override together with it."""
    raise RuntimeError(
        f"{type(self).__name__} defines no set_extra_state(); implement it to load the extra state in this state_dict"
    )


def has_extra_state(cell):
    """Whether ``cell``'s class overrides :func:`get_extra_state`."""
    return type(cell).get_extra_state is not get_extra_state

# --------------------------------------------------------------- state_dict

class StateHooks:
    """A Cell's state-dict hooks (created by the first ``register_*state_dict*_hook``)."""

    __slots__ = ("state_dict_pre", "state_dict_post", "load_pre", "load_post")

    def __init__(self):
        self.state_dict_pre = HookRegistry()
        self.state_dict_post = HookRegistry()
        self.load_pre = HookRegistry()
        self.load_post = HookRegistry()

    def counts(self):
        """``{kind: number of hooks}`` for the kinds that have any (what displays show)."""
        kinds = (("state_dict_pre", self.state_dict_pre), ("state_dict", self.state_dict_post),
                 ("load_state_dict_pre", self.load_pre), ("load_state_dict_post", self.load_post))
        return {kind: len(registry) for kind, registry in kinds if registry}


_NO_HOOKS = StateHooks()  # read by Cells that have none (never written to)


def _state_hooks_of(cell, create=False):
    hooks = cell._state_hooks
    if hooks is None:
        if not create:
            return _NO_HOOKS
        hooks = StateHooks()
        object.__setattr__(cell, "_state_hooks", hooks)
    return hooks


def _add_state_hook(cell, kind, hook, method):
    check_hook(hook, method)
    registry = getattr(_state_hooks_of(cell, create=True), kind)
    handle = RemovableHandle(registry)
    registry[handle.id] = hook
    return handle


def register_state_dict_pre_hook(self, hook):
    """Run ``hook(cell, prefix, keep_vars)`` before this Cell's part of ``state_dict`` is built."""
    return _add_state_hook(self, "state_dict_pre", hook, "register_state_dict_pre_hook")


def register_state_dict_post_hook(self, hook):
    """Run ``hook(cell, state_dict, prefix, local_metadata)`` after this Cell's part is built."""
    return _add_state_hook(self, "state_dict_post", hook, "register_state_dict_post_hook")


def register_load_state_dict_pre_hook(self, hook):
    """Run ``hook(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
    error_msgs)`` before loading; it may edit ``state_dict`` in place."""
    return _add_state_hook(self, "load_pre", hook, "register_load_state_dict_pre_hook")


def register_load_state_dict_post_hook(self, hook):
    """Run ``hook(cell, incompatible_keys)`` after loading; it may edit the key lists."""
    return _add_state_hook(self, "load_post", hook, "register_load_state_dict_post_hook")


def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    """The Cell's Parameters and persistent buffers, keyed by attribute path.

    Values are the Parameters and buffers themselves (references, as in
    MindSpore); with ``keep_vars=True`` too.  Positional arguments are
    accepted in the order ``destination, prefix, keep_vars``.
    """
    if args:
        names = ("destination", "prefix", "keep_vars")
        if len(args) > 3:
            raise TypeError(f"state_dict takes at most 3 positional arguments, but got {len(args)}")
        values = dict(zip(names, args))
        destination = values.get("destination", destination)
        prefix = values.get("prefix", prefix)
        keep_vars = values.get("keep_vars", keep_vars)
    if not isinstance(prefix, str):
        raise TypeError(f"For 'state_dict', 'prefix' must be a str, but got {type(prefix).__name__}")
    if not isinstance(keep_vars, bool):
        raise TypeError(f"For 'state_dict', 'keep_vars' must be a bool, but got {type(keep_vars).__name__}")
    if destination is not None and not isinstance(destination, MutableMapping):
        raise TypeError(f"For 'state_dict', 'destination' must be a dict (or None), "
                        f"but got {type(destination).__name__}")
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()  # per-Cell information, keyed by the Cell's prefix
    _state_dict_into(self, destination, prefix, keep_vars)
    return destination


def _state_dict_into(cell, destination, prefix, keep_vars):
    for hook in list(_state_hooks_of(cell).state_dict_pre.values()):
        hook(cell, prefix, keep_vars)
    metadata = getattr(destination, "_metadata", None)
    local_metadata = {}
    if metadata is not None:
        metadata[prefix[:-1]] = local_metadata
    for name, p in cell._params.items():
        if p is not None:
            destination[prefix + name] = p
    for name, buf in cell._buffers.items():
        if buf is not None and name not in cell._non_persistent:
            destination[prefix + name] = buf
    if has_extra_state(cell):
        destination[prefix + _EXTRA_STATE_KEY] = cell.get_extra_state()
    for name, child in cell._cells.items():
        if child is not None:
            _state_dict_into(child, destination, prefix + name + ".", keep_vars)
    for hook in list(_state_hooks_of(cell).state_dict_post.values()):
        if hook(cell, destination, prefix, local_metadata) is not None:
            raise RuntimeError("state_dict post-hook must return None: it may change the state dict in place, "
                               f"but {getattr(hook, '__name__', hook)!r} returned a value")


# ----------------------------------------------------------- load_state_dict

def load_state_dict(self, state_dict, strict=True):
    """Copy values from ``state_dict`` into this Cell's Parameters and buffers.

    Returns an ``IncompatibleKeys(missing_keys, unexpected_keys)`` tuple.
    With ``strict=True`` any missing or unexpected key raises RuntimeError
    (after the load post-hooks, which may edit the two lists).  A size
    mismatch or a value that is not a Tensor raises RuntimeError whatever
    ``strict`` says.

    Unlike MindSpore (and PyTorch), a load that raises changes nothing:
    every entry is checked before any is written, and when a post-hook
    or the strict check fails after writing, the old values are put back
    -- every Parameter and buffer is left bit-identical.  Values are
    written into the existing arrays (cast to their dtype), so views of
    them (``flatten_weights``) stay views.
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"For 'load_state_dict', 'state_dict' must be dict-like, but got {type(state_dict).__name__}")
    bad_keys = [k for k in state_dict if not isinstance(k, str)]
    if bad_keys:
        raise TypeError(f"For 'load_state_dict', the keys of 'state_dict' must be str, but got {bad_keys[0]!r}")
    if isinstance(strict, (bool, np.bool_)) or isinstance(strict, int):
        strict = bool(strict)
    else:
        raise TypeError(f"For 'load_state_dict', 'strict' must be a bool, but got {type(strict).__name__}")
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)  # hooks may edit it; the caller's dict stays as it was
    missing, unexpected, errors = [], [], []
    plan, visited = [], []
    _plan_load_tree(self, state_dict, "", metadata, missing, unexpected, errors, plan, visited)
    result = IncompatibleKeys(missing, unexpected)
    if errors:
        raise RuntimeError(_load_error_text(self, errors))  # nothing has been written yet
    post_hooks = [(cell, hook) for cell in visited
                  for hook in list(_state_hooks_of(cell).load_post.values())]
    if strict and not post_hooks and (missing or unexpected):
        raise RuntimeError(_load_error_text(self, _key_errors(result)))
    undo = _apply_load_plan(plan, keep_backup=bool(post_hooks))
    try:
        for cell, hook in post_hooks:
            hook(cell, result)  # may edit result.missing_keys / result.unexpected_keys
        if strict and (result.missing_keys or result.unexpected_keys):
            raise RuntimeError(_load_error_text(self, _key_errors(result)))
    except BaseException:
        undo()
        raise
    return result


def _plan_load_tree(cell, local_state, prefix, metadata, missing, unexpected, errors, plan, visited):
    """Run this Cell's load pre-hooks, check its entries, then recurse; record the writes in ``plan``.

    Each child sees only the keys under its prefix (as in MindSpore), so a
    child's pre-hook may rename its own keys.  ``visited`` collects the
    Cells children first: the order the post-hooks run in.
    """
    local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
    for hook in list(_state_hooks_of(cell).load_pre.values()):
        # MindSpore passes strict=True to these hooks whatever the caller asked.
        hook(cell, local_state, prefix, local_metadata, True, missing, unexpected, errors)
    _plan_load(cell, local_state, prefix, missing, unexpected, errors, plan)
    for name, child in cell._cells.items():
        if child is None:
            continue
        child_prefix = prefix + name + "."
        child_state = OrderedDict((k, v) for k, v in local_state.items() if k.startswith(child_prefix))
        _plan_load_tree(child, child_state, child_prefix, metadata, missing, unexpected, errors, plan, visited)
    visited.append(cell)


def _plan_load(cell, state_dict, prefix, missing, unexpected, errors, plan):
    """Check this Cell's own entries; queue the writes without making them."""
    xp = _backend.current().xp
    local = OrderedDict(cell._params)
    local.update((n, b) for n, b in cell._buffers.items() if n not in cell._non_persistent)
    for name, target in local.items():
        key = prefix + name
        if target is None or key not in state_dict:
            if target is not None:
                missing.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            errors.append(
                f'While copying the parameter named "{key}", expected Tensor or Tensor-like object from '
                f"checkpoint but received {type(value)}"
            )
            continue
        if tuple(value.shape) != tuple(target.shape):
            errors.append(
                f"size mismatch for {key}: copying a param with shape {tuple(value.shape)} from checkpoint, "
                f"the shape in current model is {tuple(target.shape)}."
            )
            continue
        data = value._require_data("load_state_dict")
        wanted = target.dtype.to_backend(xp)
        if data.dtype != wanted:
            data = xp.astype(data, wanted)
        plan.append(("array", cell, target, data))
    extra_key = prefix + _EXTRA_STATE_KEY
    takes_extra = type(cell).set_extra_state is not set_extra_state
    if takes_extra:
        if extra_key in state_dict:
            plan.append(("extra", cell, None, state_dict[extra_key]))
        else:
            missing.append(extra_key)
    for key in state_dict:
        if not key.startswith(prefix) or (takes_extra and key == extra_key):
            continue
        rest = key[len(prefix):]
        if local.get(rest) is not None:
            continue
        head = rest.split(".", 1)[0]
        if "." in rest and cell._cells.get(head) is not None:
            continue  # the child checks it
        unexpected.append(key)


def _key_errors(result):
    """MindSpore's strict-mode messages: missing keys first, then unexpected ones."""
    errors = []
    if result.missing_keys:
        errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in result.missing_keys) + ". ")
    if result.unexpected_keys:
        errors.append(
            "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in result.unexpected_keys) + ". "
        )
    return errors


def _load_error_text(cell, errors):
    return f"Error(s) in loading state_dict for {type(cell).__name__}:\n\t" + "\n\t".join(errors)


def _array_base(array):
    """The array that owns ``array``'s memory (NumPy and CuPy views keep it in ``.base``)."""
    while getattr(array, "base", None) is not None:
        array = array.base
    return array


def _apply_load_plan(plan, keep_backup):
    """Make the planned writes; return a function that puts everything back.

    Extra states go first (user code that may raise); on failure the ones
    already set are restored and nothing else has changed.  Arrays are
    written in place when the target holds an array of the same shape and
    dtype (views of it stay views); otherwise the target gets its own copy.
    Backups of overwritten values are kept only when ``keep_backup`` says
    something may still fail afterwards.
    """
    undo = []

    def rollback():
        for step in reversed(undo):
            step()
        undo.clear()

    # A value may be (a view of) another target's array: a state dict that swaps two layers' weights,
    # or views into one flatten_weights buffer.  Written in place one after the other, an earlier
    # write would change such a value before it is read, so those values are copied first.  (A
    # value that *is* its own target's array is left alone: writing it onto itself changes nothing.)
    owners = {id(_array_base(target._data)) for kind, _, target, _ in plan
              if kind == "array" and target._data is not None}
    plan = [(kind, cell, target, _backend.current().copy(value)) if kind == "array" and value is not target._data
            and id(_array_base(value)) in owners else (kind, cell, target, value)
            for kind, cell, target, value in plan]

    try:
        for kind, cell, _, value in plan:
            if kind == "extra":
                # Without get_extra_state there is nothing to restore the old state from.
                restorable = has_extra_state(cell)
                before = copy.deepcopy(cell.get_extra_state()) if restorable else None
                cell.set_extra_state(value)
                if restorable:
                    undo.append(lambda cell=cell, before=before: cell.set_extra_state(before))
    except BaseException:
        rollback()
        raise
    for kind, _, target, value in plan:
        if kind == "array":
            undo.append(_write_array(target, value, keep_backup))
    return rollback


def _write_array(target, value, keep_backup):
    """Write ``value`` into ``target``'s data; return the step that undoes it."""
    current = target._data
    if current is not None and tuple(current.shape) == tuple(value.shape) and current.dtype == value.dtype:
        backup = _backend.current().copy(current) if keep_backup else None
        try:
            current[...] = value
        except (ValueError, TypeError):  # a read-only array: give the target a copy instead
            pass
        else:
            def restore_in_place():
                if backup is not None:
                    current[...] = backup
            return restore_in_place
    old_data, old_lazy = target._data, target._lazy
    target._data = _backend.current().copy(value)
    target._lazy = None

    def restore_reference():
        target._data, target._lazy = old_data, old_lazy
    return restore_reference


# ------------------------------------------------------------------- dtype and fresh memory
def to(self, *args, **kwargs):
    """Cast every floating Parameter and buffer of this Cell and all below to a dtype; returns self.

    Forms: ``to(dtype)``, ``to(dtype=...)``, ``to(tensor)`` (its dtype),
    ``to(device=None, dtype=None, non_blocking=False)``.  Parameters are cast
    in place (the same objects, names and ``requires_grad``); integer ones are
    left alone.  A device names where the values live: ``'CPU'`` here (the
    backend is chosen by ``ms.set_context(device_target=...)``), so it changes
    nothing.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.Dense(2, 2).to(ms.float16).weight.dtype
    mindspore.float16

    Raises
    ------
    TypeError
        If the dtype is not floating point, or the arguments fit none of the forms.
    """
    dtype = _dtype_for_to(args, kwargs)
    if dtype is None:
        return self
    xp = _backend.current().xp
    wanted = dtype.to_backend(xp)
    for _, cell in self.cells_and_names():
        for _, param in cell._params.items():
            if param is not None and param._data is not None and param.dtype.is_floating_point:
                param._data = xp.astype(param._data, wanted)
        for name, buf in cell._buffers.items():
            if buf is not None and buf._data is not None and buf.dtype.is_floating_point:
                cell._buffers[name] = Tensor._from_array(xp.astype(buf._data, wanted))
    return self


def _dtype_for_to(args, kwargs):
    """The dtype a ``Cell.to`` call asks for (None: only a device was named)."""
    from .. import dtype as _dt

    def failed():
        shown = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        return TypeError(f'Failed calling Cell.to with "Cell.to({shown})". The valid calling should be: '
                         '"Cell.to(device=<None, string>, dtype=<None, mstype>, non_blocking=<bool>)", '
                         '"Cell.to(dtype=<None, mstype>, non_blocking=<bool>)" or "Cell.to(tensor, non_blocking=<bool>)"')

    unknown = set(kwargs) - {"device", "dtype", "non_blocking"}
    if unknown or len(args) > 2:
        raise failed()
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, _dt.DType):
            dtype = arg
        elif isinstance(arg, str):
            device = arg
        else:
            raise failed()
    if device is not None and not isinstance(device, str):
        raise failed()
    if dtype is None:
        return None
    if not isinstance(dtype, _dt.DType):
        raise failed()
    if not dtype.is_floating_point and "complex" not in dtype.name.lower():
        raise TypeError(f"Cell.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")
    return dtype


def to_empty(self, *, device=None, recurse=True):
    """Give every Parameter and buffer new, uninitialised memory of the same shape and dtype; returns self.

    What it holds afterwards is whatever the memory held (fill it before
    use: ``load_state_dict``, an initialiser).  ``recurse=False`` does this
    Cell only; ``device`` is accepted as in MindSpore (one device here).
    """
    xp = _backend.current().xp
    cells = self.cells_and_names() if recurse else [("", self)]
    for _, cell in cells:
        for _, param in cell._params.items():
            if param is not None and param._data is not None:
                param._data = xp.empty(param._data.shape, dtype=param._data.dtype)
        for name, buf in cell._buffers.items():
            if buf is not None and buf._data is not None:
                cell._buffers[name] = Tensor._from_array(xp.empty(buf._data.shape, dtype=buf._data.dtype))
    return self
