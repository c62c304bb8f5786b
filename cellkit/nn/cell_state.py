"""A Cell's state: buffers, ``state_dict``, ``load_state_dict``, and their hooks.

The state of a network is its Parameters and persistent buffers, keyed by
attribute path (``dense.weight``), plus any extra state a Cell returns from
``get_extra_state``.  ``load_state_dict`` checks *everything* (missing and
unexpected keys, shapes, types) before it changes anything, so a failed
strict load leaves the network exactly as it was.
"""
from __future__ import annotations

from collections import OrderedDict, namedtuple

from .. import backend as _backend
from ..parameter import Parameter
from ..tensor import Tensor
from .buffer import Buffer
from .hooks import HookRegistry, RemovableHandle, check_hook

__all__ = ["StateMixin", "IncompatibleKeys"]

_EXTRA_STATE_KEY = "_extra_state"


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` could not match: ``missing_keys`` and ``unexpected_keys``."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


class _StateDict(OrderedDict):
    """An OrderedDict that also carries ``_metadata`` (per-Cell information)."""


class StateMixin:
    """Buffers and state dictionaries for ``nn.Cell``."""

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
        if name in self.__dict__ and name not in self._buffers:
            raise KeyError(f"For 'register_buffer', attribute '{name}' already exists")
        if name in self._params or name in self._cells:
            raise KeyError(f"For 'register_buffer', attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None required)"
            )
        if isinstance(tensor, Parameter):
            raise TypeError(f"For 'register_buffer', '{name}' is a Parameter: assign it as an attribute instead")
        if tensor is not None and not isinstance(tensor, Buffer):
            tensor = Buffer(tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)
        object.__setattr__(self, name, tensor)

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
        cell = self.get_sub_cell(cell_path)
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

    def _has_extra_state(self):
        return type(self).get_extra_state is not StateMixin.get_extra_state

    # --------------------------------------------------------------- state_dict
    def _init_state_hooks(self):
        for name in ("_state_dict_pre_hooks", "_state_dict_hooks",
                     "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"):
            object.__setattr__(self, name, HookRegistry())

    def _state_hooks(self, name):
        if name not in self.__dict__:
            self._init_state_hooks()
        return self.__dict__[name]

    def _add_state_hook(self, name, hook, method):
        check_hook(hook, method)
        registry = self._state_hooks(name)
        handle = RemovableHandle(registry)
        registry[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        """Run ``hook(cell, prefix, keep_vars)`` before this Cell's part of ``state_dict`` is built."""
        return self._add_state_hook("_state_dict_pre_hooks", hook, "register_state_dict_pre_hook")

    def register_state_dict_post_hook(self, hook):
        """Run ``hook(cell, state_dict, prefix, local_metadata)`` after this Cell's part is built."""
        return self._add_state_hook("_state_dict_hooks", hook, "register_state_dict_post_hook")

    def register_load_state_dict_pre_hook(self, hook):
        """Run ``hook(cell, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before loading; it may edit ``state_dict`` in place."""
        return self._add_state_hook("_load_state_dict_pre_hooks", hook, "register_load_state_dict_pre_hook")

    def register_load_state_dict_post_hook(self, hook):
        """Run ``hook(cell, incompatible_keys)`` after loading; it may edit the key lists."""
        return self._add_state_hook("_load_state_dict_post_hooks", hook, "register_load_state_dict_post_hook")

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
        if destination is None:
            destination = _StateDict()
            destination._metadata = OrderedDict()
        self._state_dict_into(destination, prefix, keep_vars)
        return destination

    def _state_dict_into(self, destination, prefix, keep_vars):
        for hook in list(self._state_hooks("_state_dict_pre_hooks").values()):
            hook(self, prefix, keep_vars)
        metadata = getattr(destination, "_metadata", None)
        local_metadata = {}
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for name, p in self._params.items():
            if p is not None:
                destination[prefix + name] = p
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = buf
        if self._has_extra_state():
            destination[prefix + _EXTRA_STATE_KEY] = self.get_extra_state()
        for name, child in self._cells.items():
            if child is not None:
                child._state_dict_into(destination, prefix + name + ".", keep_vars)
        for hook in list(self._state_hooks("_state_dict_hooks").values()):
            hook(self, destination, prefix, local_metadata)

    # ----------------------------------------------------------- load_state_dict
    def load_state_dict(self, state_dict, strict=True):
        """Copy values from ``state_dict`` into this Cell's Parameters and buffers.

        Returns an ``IncompatibleKeys(missing_keys, unexpected_keys)`` tuple.
        With ``strict=True`` any missing or unexpected key raises RuntimeError.
        Every problem is found before anything is changed: on error the Cell
        is left exactly as it was.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"For 'load_state_dict', 'state_dict' must be a dict, but got {type(state_dict).__name__}")
        if not isinstance(strict, bool):
            raise TypeError(f"For 'load_state_dict', 'strict' must be a bool, but got {type(strict).__name__}")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        missing, unexpected, errors = [], [], []
        plan = []  # (cell, kind, name, target, value) to apply once everything checks out

        for path, cell in self.cells_and_names():
            prefix = path + "." if path else ""
            local_metadata = {} if metadata is None else metadata.get(path, {})
            for hook in list(cell._state_hooks("_load_state_dict_pre_hooks").values()):
                # MindSpore passes strict=True to these hooks whatever the caller asked.
                hook(cell, state_dict, prefix, local_metadata, True, missing, unexpected, errors)
            cell._plan_load(state_dict, prefix, missing, errors, plan)

        expected = set(self.state_dict().keys())
        for key in state_dict:
            if key not in expected:
                unexpected.append(key)
        result = IncompatibleKeys(missing, unexpected)
        for _, cell in self.cells_and_names():
            for hook in list(cell._state_hooks("_load_state_dict_post_hooks").values()):
                hook(cell, result)
        if strict:
            if result.unexpected_keys:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in result.unexpected_keys) + ". ")
            if result.missing_keys:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in result.missing_keys) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        for cell, kind, name, target, value in plan:
            if kind == "param":
                target.set_data(value)
            elif kind == "buffer":
                target._data = value
            else:
                cell.set_extra_state(value)
        return result

    def _plan_load(self, state_dict, prefix, missing, errors, plan):
        """Check this Cell's own entries; queue the changes without making them."""
        xp = _backend.current().xp
        persistent_buffers = {n: b for n, b in self._buffers.items() if n not in self._non_persistent_buffers}
        for name, target in list(self._params.items()) + list(persistent_buffers.items()):
            key = prefix + name
            if key not in state_dict:
                if target is not None:
                    missing.append(key)
                continue
            value = state_dict[key]
            if target is None:
                errors.append(f"'{key}' is registered as None in the Cell but the state_dict has a value for it")
                continue
            if not isinstance(value, Tensor):
                try:
                    value = Tensor(value)
                except TypeError:
                    errors.append(f"'{key}': expected a Tensor, got {type(value).__name__}")
                    continue
            if tuple(value.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {tuple(value.shape)} from checkpoint, "
                    f"the shape in current model is {tuple(target.shape)}."
                )
                continue
            data = value._require_data("load_state_dict")
            if data.dtype != target._data.dtype:
                data = xp.astype(data, target._data.dtype)
            else:
                data = xp.asarray(data, copy=True)
            plan.append((self, "param" if isinstance(target, Parameter) else "buffer", name, target,
                         Tensor._from_array(data) if isinstance(target, Parameter) else data))
        if self._has_extra_state():
            key = prefix + _EXTRA_STATE_KEY
            if key in state_dict:
                plan.append((self, "extra", key, None, state_dict[key]))
            else:
                missing.append(key)
