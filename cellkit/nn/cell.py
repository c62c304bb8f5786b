"""``nn.Cell``: the building block of every network -- the core.

A Cell owns Parameters, Buffers and child Cells, registered by assigning
them as attributes, and defines its computation in ``construct``.  This
file is the whole core of a Cell:

- its three registries (``_params``, ``_cells``, ``_buffers``) and the
  attribute routing that fills them (``__setattr__``): each Parameter,
  child and buffer is stored once, as an ordinary attribute, and its
  registry keeps the names in order (see :mod:`cellkit.nn.cell_registry`);
- traversal and naming (``cells_and_names``, ``parameters_and_names``,
  ``update_parameters_name`` ...), modes (``set_train``) and printing;
- calling: ``net(x)`` goes straight to ``construct`` when nothing is
  attached to the Cell, and otherwise runs the Cell's call stages (see
  :mod:`cellkit.nn.cell_call`, which says what happens when you call a Cell).

Every other concern is a *part* the Cell holds, made the first time it is
used, in a module of its own; the Cell's methods for it are listed at the
end of the class ("the rest of the Cell, by concern") and written there:

====================  ==========================================  ==============
module                concern                                     part
====================  ==========================================  ==============
cell_hooks.py         forward and backward hooks                  ``_hooks``
cell_state.py         buffers, state_dict / load_state_dict       ``_state_hooks``
cell_precision.py     to_float, the mixed-precision type          ``_precision``
cell_inputs.py        set_inputs, compile, graph entry points     ``_input_spec``
cell_parallel.py      record-only parallel settings               ``_parallel``
cell_bprop.py         a custom ``bprop``                          (the class)
cellkit/recompute.py  recompute()                                 ``_recompute``
cellkit/offload.py    offload()                                   ``_offload``
====================  ==========================================  ==============

A new Cell holds only its registries (and what they registered) and its
creation time: every other attribute answers from the class until
something sets it.

>>> import cellkit as ms
>>> from cellkit import nn, ops
>>> class MyCell(nn.Cell):
...     def construct(self, x, y):
...         return ops.add(x, y)
>>> print(MyCell()(ms.Tensor([1, 2, 3], ms.float32), ms.Tensor([4, 5, 6], ms.float32)))
[5. 7. 9.]
>>> sorted(vars(MyCell()))  # the registries, and when it was made (MindSpore's create_time)
['_buffers', '_cells', '_create_time', '_params']
"""
from __future__ import annotations

import re
import time
import typing
import weakref
from collections import OrderedDict

from .. import offload as offload_module
from .. import recompute as recompute_module
from ..parameter import Parameter, ParameterTuple
from ..tensor import Tensor
from . import cell_bprop, cell_call, cell_hooks, cell_inputs, cell_parallel, cell_precision, cell_state
from .buffer import Buffer
from .cell_registry import Registry

__all__ = ["Cell"]

# Graph mode plugs in through these module globals (cellkit.graph sits above this module and sets them):
# - _direct_calls: True while calling a Cell may go straight to construct.  cellkit.graph clears it in
#   GRAPH_MODE and while it traces, so every call then reaches the graph runtime;
# - _graph_runtime: the graph runtime (call / compile / compile_and_run / func_graph_proto), or None;
# - _config_version: bumped whenever a Cell's configuration changes in a way a compiled graph depends on
#   (training mode, flags, hooks, recompute, cast types, input specs, a replaced Parameter or child), so
#   cached graphs are traced again.
_direct_calls = True
_graph_runtime = None
_config_version = 0


def _configuration_changed():
    global _config_version
    _config_version += 1


# Names the spec forbids: a subclass may not define a method 'cast', nor attributes 'phase'/'cells'.
_RESERVED_ATTRIBUTES = ("cells",)
_RESERVED_CLASS_NAMES = ("cast", "phase", "cells")


class Cell:
    """Base class of every network and layer.

    Parameters
    ----------
    auto_prefix : bool
        When a child Cell is assigned to this one, rename the child's
        Parameters by their attribute path (``net.weight``).  Backbones keep
        the default ``True``; wrappers such as optimizers and
        ``TrainOneStepCell`` pass ``False`` so they do not rename the network
        they wrap.  Any value is read as true or false (as in MindSpore).
    flags : dict, optional
        Custom attributes, set with :meth:`add_flags`.

    Notes
    -----
    A Cell starts in inference mode (``training is False``); see :meth:`set_train`.
    """

    # What a Cell holds until something is set: class attributes, so a new Cell's instance
    # dictionary has only its three registries.
    training = False
    requires_grad = False
    _auto_prefix = True
    _call_plan = cell_call.FIRST_CALL  # None: the fast path; otherwise the stages of a call (cell_call.CallPlan)
    _observers = ()                # tools watching the Cell (cellkit.observers)
    _hooks = None                  # cell_hooks.CellHooks
    _state_hooks = None            # cell_state.StateHooks
    _precision = None              # cell_precision.Precision
    _input_spec = None             # cell_inputs.InputSpec
    _parallel = None               # cell_parallel.ParallelRecord
    _recompute = None              # recompute.RecomputeSetting
    _offload = None                # {"backward_prefetch": ...}
    _non_persistent = frozenset()  # buffers left out of state_dict
    _params_tuples = None          # ParameterTuple attribute -> the _params keys of its members
    _next_tuple_param_id = 1       # Parameter$<k> names for unnamed ParameterTuple members
    _flags = None
    _scope = None
    _param_prefix = ""
    _cell_type = None
    _bprop_debug = False
    _compiled = False
    mixed_precision_type = None    # set by to_float / add_flags(fp16=True) (cell_precision.py)

    # MindSpore's class-level bookkeeping, kept with its names and meaning.
    total_instance_count = 0                 # Cells alive now (+1 in __init__, -1 when one is collected)
    global_cells = weakref.WeakKeyDictionary()  # MindSpore fills it for lazy-inline Cells only: empty here
    IGNORE_LIST = ["_scope", "_cell_init_args", "_auto_prefix", "_cells", "_params", "_create_time",
                   "_func_graph_flags", "_parameter_layout_dict", "_params_list", "_phase", "_bprop_debug",
                   "_forward_pre_hook", "_forward_hook", "_backward_pre_hook", "_backward_hook",
                   "_enable_backward_hook", "_cell_backward_pre_hook", "_cell_backward_hook", "_is_run",
                   "_param_prefix", "_attr_synced", "pynative", "requires_grad", "cell_type"]
    T_destination = typing.TypeVar("T_destination", bound=typing.Dict[str, typing.Any])

    def __init_subclass__(cls, **kwargs):
        # The spec's warning: a subclass may not define a method 'cast' nor attributes 'phase' / 'cells'.
        super().__init_subclass__(**kwargs)
        for name in _RESERVED_CLASS_NAMES:
            if name in cls.__dict__:
                raise TypeError(
                    f"Cell subclass '{cls.__name__}' must not define '{name}': the name is reserved by nn.Cell "
                    "(a method named 'cast' and attributes named 'phase' or 'cells' are not allowed)"
                )

    def __init__(self, auto_prefix=True, flags=None):
        # The registries are written with object.__setattr__: our own __setattr__ needs them to exist.
        home = self.__dict__
        object.__setattr__(self, "_params", Registry(home))
        object.__setattr__(self, "_cells", Registry(home))
        object.__setattr__(self, "_buffers", Registry(home))
        object.__setattr__(self, "_create_time", time.time_ns())
        Cell.total_instance_count += 1
        if not auto_prefix:
            object.__setattr__(self, "_auto_prefix", False)
        if flags:
            if not isinstance(flags, dict):
                raise TypeError(f"For 'Cell', 'flags' must be a dict, but got {type(flags).__name__}")
            self.add_flags(**flags)

    # ------------------------------------------------------------------ calling
    def __del__(self):
        if "_params" in self.__dict__:  # it ran Cell.__init__
            # Through the class (not the module global ``Cell``, which may be gone at interpreter exit).
            base = type(self).__mro__[-2]
            base.total_instance_count -= 1

    @property
    def create_time(self):
        """When the Cell was made: nanoseconds since the epoch (an int; read-only)."""
        return self._create_time

    def construct(self, *args, **kwargs):
        """The computation; every subclass defines it."""
        raise AttributeError(f"For 'Cell', the method 'construct' is not defined: {type(self).__name__} must define "
                             "construct(...), the computation of the Cell")

    def __call__(self, *args, **kwargs):
        if self._call_plan is None and _direct_calls:
            return self.construct(*args, **kwargs)  # the fast path: nothing is attached to this Cell
        if self._call_plan is not None and self._call_plan.first_call:
            self._first_call()
        if not _direct_calls and _graph_runtime is not None:
            # GRAPH_MODE, or a graph being traced: the graph runtime compiles, traces or runs the call.
            return _graph_runtime.call(self, args, kwargs)
        if self._call_plan is None:
            return self.construct(*args, **kwargs)
        return cell_call.run_stages(self, args, kwargs)

    def _first_call(self):
        """Before the first call, as in MindSpore: make the Cell's lazily-initialised Parameters, and give
        every Parameter below it its attribute path as name if two of them share a name."""
        for param in self.get_parameters(expand=False):
            if param.has_init:
                param.init_data()
        self.check_names_and_refresh_name()
        self._configure_call(changed=False, checked=True)  # only the first-call check goes: no graph depends on it

    def _configure_call(self, changed=True, checked=None):
        """Choose, once, how this Cell is called: the fast path, or this list of stages (cell_call.py).

        Called whenever something is attached or removed (a hook, an observer,
        to_float, set_inputs, recompute, offload): ``changed`` then tells
        compiled graphs to trace again.
        """
        if changed:
            _configuration_changed()
        if checked is None:  # the first call's checks are done unless the current plan still waits for them
            checked = not self._call_plan.first_call if self._call_plan is not None else True
        hooks, observers = self._hooks, self._observers
        forward_pre = bool(observers) or (hooks is not None and bool(hooks.forward_pre))
        forward = bool(observers) or (hooks is not None and bool(hooks.forward))
        backward = bool(observers) or (hooks is not None and bool(hooks.backward))
        backward_pre = backward or (hooks is not None and bool(hooks.backward_pre))
        runner = self._runner()
        stages = []
        if self._input_spec is not None:
            stages.append(cell_inputs.check_inputs)
        if cell_precision.casts_anything(self):
            stages.append(cell_precision.cast_call_inputs)
        if forward_pre:
            stages.append(cell_hooks.forward_pre_hooks)
        if backward:
            stages.append(cell_hooks.gate_inputs)
        stages.append(runner)
        if forward:
            stages.append(cell_hooks.forward_hooks)
        if backward_pre:
            stages.append(cell_hooks.gate_outputs)
        saved_tensor_hooks = hooks.saved_tensors if hooks is not None else None
        if stages == [cell_call.run_construct] and saved_tensor_hooks is None:
            plan = None if checked else cell_call.FIRST_CALL
        else:
            on_failure = cell_hooks.run_always_call_hooks if hooks is not None and hooks.always_call else None
            plan = cell_call.CallPlan(stages, runner, identifies=forward_pre or forward, on_failure=on_failure,
                                      saved_tensor_hooks=saved_tensor_hooks, first_call=not checked)
        if plan is cell_call.FIRST_CALL:
            self.__dict__.pop("_call_plan", None)  # back to the class default
        else:
            object.__setattr__(self, "_call_plan", plan)

    def _runner(self):
        """What runs ``construct``: a custom bprop, recompute, offload, or ``construct`` itself."""
        if cell_bprop.has_custom_bprop(self):
            return cell_bprop.run_bprop
        if self._recompute is not None:
            return recompute_module.run_cell
        if self._offload is not None:
            return offload_module.run_cell
        return cell_call.run_construct

    def _observed_parameters(self):
        """This Cell's own Parameters and their roles, announced to observers (see cellkit.observers)."""
        return [(p, "parameter") for _, p in self._own_parameters()]

    # ------------------------------------------------------------- registration
    def __setattr__(self, name, value):
        """Assigning an attribute registers what it holds.

        - a Parameter is registered under the attribute name (and named after
          it when unnamed); a ParameterTuple's members are registered under
          their names (unnamed ones become ``Parameter$1``, ``Parameter$2`` ...);
        - a Cell becomes a child; with ``auto_prefix`` its Parameters are
          renamed by attribute path (``net.weight``);
        - an ``nn.Buffer`` becomes a buffer;
        - over a registered Parameter, a Tensor sets its data and None empties
          the slot; over a sub-Cell or buffer only None (or the same kind) is
          accepted: anything else raises TypeError;
        - one name never holds two kinds at once (KeyError);
        - a list or tuple of Parameters is not registered, but two different
          Parameters in it may not share a name (ValueError).
        """
        if name in _RESERVED_ATTRIBUTES:
            raise AttributeError(
                f"For 'Cell', '{name}' is reserved by nn.Cell (the method {name}()) and cannot be used as an attribute"
            )
        params = self.__dict__.get("_params")
        if params is None:
            if isinstance(value, (Parameter, ParameterTuple, Cell, Buffer)):
                raise AttributeError(
                    f"For '{type(self).__name__}', please call Cell.__init__() (super().__init__()) before "
                    f"assigning the {type(value).__name__} '{name}': the Cell cannot register it yet"
                )
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Parameter):
            self._assign_registered(name, value, "parameter")
            self.insert_param_to_cell(name, value)
        elif isinstance(value, ParameterTuple):
            self._assign_registered(name, value, "parameter")
            self._set_parameter_tuple(name, value)  # replaces a Parameter attribute of that name too
        elif isinstance(value, Cell):
            self._assign_registered(name, value, "child cell")
            if self._auto_prefix and isinstance(name, str) and not _PREFIX_PATTERN.match(name + "."):
                # checked before registering, so a refused name leaves the Cell as it was
                raise ValueError(
                    f"For '{type(self).__name__}', the attribute name {name!r} cannot prefix the Parameter names "
                    r"of the sub-Cell: it must match '^\w*[0-9a-zA-Z_.\-]*$' (letters, digits, '_', '.', '-')"
                )
            self.insert_child_to_cell(name, value)
            if self._auto_prefix:
                value.update_parameters_name(name + ".")  # rename by attribute path: net.weight
        elif isinstance(value, Buffer):
            self._assign_registered(name, value, "buffer")
            self.register_buffer(name, value, persistent=name not in self._non_persistent)
        elif name in params:
            self._assign_over_parameter(name, value)
        elif name in self._cells:
            self._assign_over_registered(self._cells, name, value, "Sub cell", "cell")
        elif name in self._buffers:
            self._assign_over_registered(self._buffers, name, value, "Buffer", "buffer")
        else:
            if isinstance(value, (list, tuple)):
                self._remember_parameter_names(value)
            if name in self._tuple_attributes():
                self._drop_parameter_tuple(name)
            object.__setattr__(self, name, value)

    def _assign_registered(self, name, value, kind):
        """Before registering ``value`` as ``name``: refuse to replace another kind of registration.

        A plain attribute of the same name is replaced (as in MindSpore); a
        registered Parameter, sub-Cell or buffer may only be replaced by the
        same kind (KeyError otherwise), so one name never means two things.
        """
        registries = (("parameter", self._params), ("child cell", self._cells), ("buffer", self._buffers))
        for other_kind, registry in registries:
            if other_kind != kind and name in registry:
                raise KeyError(
                    f"For '{type(self).__name__}', '{name}' is already a {other_kind} of the Cell; "
                    f"it cannot be replaced by a {kind} (delete it first with 'del cell.{name}')"
                )
        if kind == "parameter" and name not in self._tuple_attributes() and name in self._tuple_member_keys():
            raise KeyError(
                f"For '{type(self).__name__}', '{name}' is the name of a ParameterTuple member of the Cell; "
                "give the Parameter attribute another name"
            )
        if hasattr(type(self), name):
            raise KeyError(
                f"For '{type(self).__name__}', '{name}' already exists in the network (a method or class "
                f"attribute of {type(self).__name__}); it cannot be used for a {kind}"
            )
        if name in self._tuple_attributes():
            self._drop_parameter_tuple(name)
        if name in self.__dict__ and not any(name in registry for _, registry in registries):
            del self.__dict__[name]  # a plain attribute of that name is replaced

    def _remember_parameter_names(self, values):
        """Rules 3 and 4 for an attribute holding a list or tuple made only of Parameters.

        The Cell remembers every Parameter seen in such attributes (``exist_objs``)
        and its name (``exist_names``), across attributes and reassignments, as
        MindSpore does: a Parameter not seen before whose name was seen raises
        ValueError (and nothing is remembered or assigned); the same object again
        is fine.
        """
        if not values or not all(isinstance(v, Parameter) for v in values):
            return
        names, objs = set(self.exist_names), set(self.exist_objs)
        for param in values:
            if param in objs:
                continue  # rule 4: the same Parameter object again
            objs.add(param)
            if param.name in names:
                raise ValueError(f"The value {values} , its name '{param.name}' already exists. "
                                 "Please set a unique name for the parameter.")
            names.add(param.name)
        object.__setattr__(self, "_exist_names", names)
        object.__setattr__(self, "_exist_objs", objs)

    @property
    def exist_names(self):
        """Names of the Parameters seen in this Cell's list and tuple attributes (rule 3's memory; a set)."""
        return self.__dict__.get("_exist_names", set())

    @property
    def exist_objs(self):
        """The Parameters seen in this Cell's list and tuple attributes (a set)."""
        return self.__dict__.get("_exist_objs", set())

    def _tuple_attributes(self):
        """ParameterTuple attribute name -> the ``_params`` keys of its members (empty when none)."""
        return self._params_tuples or {}

    def _tuple_member_keys(self):
        return {key for keys in self._tuple_attributes().values() for key in keys}

    def _assign_over_parameter(self, name, value):
        """``cell.name = value`` where ``name`` is a registered Parameter and ``value`` is not one."""
        current = self._params[name]
        if value is None:
            self._params[name] = None
        elif isinstance(value, Tensor) and current is not None:
            current.set_data(value)  # MindSpore: a Tensor assigned over a Parameter sets its data
        else:
            raise TypeError(
                f"Parameter '{name}' already exists in network, can not assign this type: '{type(value)}' as a "
                "parameter (assign a Parameter, a Tensor to set its data, or None)"
            )

    def _assign_over_registered(self, registry, name, value, title, kind):
        """``cell.name = value`` where ``name`` is a registered sub-Cell or buffer: only None may replace it."""
        if value is not None:
            hint = " (assign an nn.Buffer, or call register_buffer)" if kind == "buffer" else ""
            raise TypeError(
                f"{title} '{name}' already exists in network, can not assign this type: '{type(value)}' as a "
                f"{kind}{hint}"
            )
        registry[name] = None

    def __getattr__(self, name):
        # Python calls this only when normal lookup fails.  Registered objects are ordinary attributes
        # (cell_registry.py), so this is reached for a Parameter the registry holds aside -- to_float's
        # Parameters, read as casts while the Cell's call runs, and ParameterTuple members -- and for
        # names that are not there at all.
        params = self.__dict__.get("_params")
        if params is not None and params.is_aside(name):
            param = params[name]
            if param is not None and self._precision is not None:
                return cell_precision.parameter_in_call(self, param)  # to_float: cast at the point of use
            return param
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        registered = False
        if name in self._tuple_attributes():
            self._drop_parameter_tuple(name)
            registered = True
        for registry in (self._params, self._cells, self._buffers):
            if name in registry:
                del registry[name]
                registered = True
        if name in self._non_persistent:
            self._non_persistent.discard(name)
        if registered:
            _configuration_changed()
        if name in self.__dict__:  # a plain attribute, or a ParameterTuple whose members were just dropped
            object.__delattr__(self, name)
        elif not registered:
            object.__delattr__(self, name)  # raises AttributeError as usual

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._params) | set(self._cells) | set(self._buffers))

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Register ``param`` under ``param_name`` (what ``self.name = Parameter(...)`` does).

        An unnamed Parameter (``Parameter#<n>``) takes ``param_name`` as its name.

        Raises
        ------
        KeyError
            If ``param_name`` is empty, contains ``'.'`` while
            ``check_name_contain_dot`` is True, or already names something
            else on the Cell (an attribute, method, sub-Cell or buffer).
        TypeError
            If ``param_name`` is not a str, or ``param`` is not a Parameter (or None).
        """
        if not isinstance(param_name, str):
            raise TypeError(f"For 'insert_param_to_cell', 'param_name' must be a str, but got {type(param_name).__name__}")
        if not param_name:
            raise KeyError("For 'insert_param_to_cell', the argument 'param_name' must not be empty, but got ''.")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"For 'insert_param_to_cell', the argument 'param_name' should not contain '.': {param_name!r}")
        if "_params" not in self.__dict__:
            raise AttributeError("For 'insert_param_to_cell', please call Cell.__init__() firstly.")
        if param_name not in self._params and (param_name in self.__dict__ or param_name in self._cells
                                               or param_name in self._buffers or hasattr(type(self), param_name)):
            raise KeyError(
                f"For 'insert_param_to_cell', the {param_name} parameter already exists in the network. "
                "Cannot insert another parameter with the same name."
            )
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"For 'insert_param_to_cell', the argument 'param' must be 'Parameter' if not None, "
                f"but got {type(param)}."
            )
        if param is not None and param.name_was_generated:
            # Rule 1: an unnamed Parameter takes the attribute's name.
            param.name = param_name
        if self._params.get(param_name, param) is not param:
            _configuration_changed()  # a compiled graph reads the Parameter object it was traced with
        self._params[param_name] = param
        if self._precision is not None:
            cell_precision.hold_cast_parameters(self)

    def _set_parameter_tuple(self, name, params):
        """A ParameterTuple attribute: its members become this Cell's Parameters, keyed by their names.

        Unnamed members get ``Parameter$1``, ``Parameter$2`` ... from a counter
        kept per Cell (rule 2 of the Parameter spec); two different members
        sharing a name raise ValueError (rule 3), the same object twice is
        registered once (rule 4).
        """
        for p in params:
            other = self._params.get(p.name) if p.name != name or name in self._tuple_member_keys() else None
            if not p.name_was_generated and other is not None and other is not p:
                raise ValueError(
                    f"For '{type(self).__name__}', the name '{p.name}' of a member of ParameterTuple '{name}' "
                    "already exists as another Parameter of the Cell. Please set a unique name for the parameter."
                )
        next_id = params.name_members(self._next_tuple_param_id)  # checks names within the tuple first
        object.__setattr__(self, "_next_tuple_param_id", next_id)
        if self._params_tuples is None:
            object.__setattr__(self, "_params_tuples", {})
        if name in self._params and name not in self._tuple_member_keys():
            del self._params[name]  # a Parameter attribute of the same name is replaced
        keys = []
        for p in params:
            if p.name not in keys:  # the same object twice is registered once
                # Held aside: a member is reached through the tuple, and its name must not hide an attribute.
                self._params.add_aside(p.name, p)
                keys.append(p.name)
        self._params_tuples[name] = keys
        object.__setattr__(self, name, params)

    def _drop_parameter_tuple(self, name):
        """Unregister the members of the ParameterTuple held as ``name``."""
        for key in self._tuple_attributes().pop(name, ()):
            self._params.pop(key, None)

    def insert_child_to_cell(self, child_name, child_cell):
        """Register ``child_cell`` under ``child_name``.

        Unlike ``self.name = cell``, this does not rename the child's
        Parameters (as in MindSpore).

        Raises
        ------
        KeyError
            If ``child_name`` is empty, contains ``'.'``, or already names
            something else on the Cell (an attribute, method, Parameter or buffer).
        TypeError
            If ``child_name`` is not a str, or ``child_cell`` is not a Cell (or None).
        """
        if not isinstance(child_name, str):
            raise TypeError(
                f"For 'insert_child_to_cell', the type of parameter 'child_name' must be str, but got {type(child_name)}."
            )
        if not child_name or "." in child_name:
            raise KeyError(
                f"For 'insert_child_to_cell', the parameter 'child_name' can not be None and can not contain '.': {child_name!r}"
            )
        if child_name not in self._cells and (child_name in self.__dict__ or child_name in self._params
                                              or child_name in self._buffers or hasattr(type(self), child_name)):
            raise KeyError(
                f"For 'insert_child_to_cell', the {child_name} child cell already exists in the network. "
                "Cannot insert another child cell with the same name."
            )
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(
                f"For 'insert_child_to_cell', the argument 'child_cell' must be 'Cell' if not None, "
                f"but got type {type(child_cell)}."
            )
        if self._cells.get(child_name, child_cell) is not child_cell:
            _configuration_changed()
        self._cells[child_name] = child_cell

    # ------------------------------------------------------------------ traversal
    def cells(self):
        """The direct children (an ``odict_values`` view, as MindSpore returns), each object once."""
        return self.name_cells().values()

    def name_cells(self):
        """The direct children by name (an OrderedDict); a child held under two names appears once."""
        seen = set()
        result = OrderedDict()
        for name, cell in self._cells.items():
            if cell is not None and id(cell) not in seen:
                seen.add(id(cell))
                result[name] = cell
        return result

    def cells_and_names(self, cells=None, name_prefix=""):
        """Every Cell in the tree with its dotted path, this one first (path ``''``).

        Each Cell is yielded once even if it is reachable by several paths.
        ``cells`` is a set of Cells already visited (they and what lies below
        them are skipped); it is updated as the walk goes, as in MindSpore.
        """
        if cells is not None and not isinstance(cells, set):
            raise TypeError(f"For 'cells_and_names', 'cells' must be a set of Cells (or None), "
                            f"but got {type(cells).__name__}")
        seen = cells if cells else set()
        if self in seen:
            return
        seen.add(self)
        yield name_prefix, self
        for name, child in self._cells.items():
            if child is None:
                continue
            path = f"{name_prefix}.{name}" if name_prefix else name
            yield from child.cells_and_names(seen, path)

    def get_sub_cell(self, target):
        """The Cell at dotted path ``target`` (``'net_b.net_c'``); AttributeError if absent."""
        if not isinstance(target, str):
            raise TypeError(f"For 'get_sub_cell', 'target' must be a str, but got {type(target).__name__}")
        cell = self
        if target == "":
            return cell
        walked = []
        for part in target.split("."):
            child = cell._cells.get(part)
            if child is None:
                where = ".".join(walked) or type(self).__name__
                raise AttributeError(f"For 'get_sub_cell', {where} has no sub cell named '{part}' (target '{target}')")
            walked.append(part)
            cell = child
        return cell

    def _own_parameters(self):
        """(key, Parameter) pairs directly held, ParameterTuple members included (keyed by their names)."""
        for name, p in self._params.items():
            if p is not None:
                yield name, p

    def parameters_and_names(self, name_prefix="", expand=True):
        """Every Parameter with its attribute path, each object once."""
        seen = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        for path, cell in cells:
            for name, p in cell._own_parameters():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{path}.{name}" if path else name), p

    def get_parameters(self, expand=True):
        """Every Parameter (an iterator), this Cell's and, with ``expand``, its children's."""
        return (p for _, p in self.parameters_and_names(expand=expand))

    def parameters_dict(self, recurse=True):
        """An OrderedDict from each Parameter's name to the Parameter."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def parameters_broadcast_dict(self, recurse=True):
        """Like :meth:`parameters_dict`, leaving out layerwise-parallel Parameters (not broadcast).

        ``None`` when no Parameter is left (as in MindSpore).
        """
        result = OrderedDict(
            (p.name, p) for p in self.get_parameters(expand=recurse) if not p.layerwise_parallel
        )
        return result or None

    def trainable_params(self, recurse=True):
        """The Parameters with ``requires_grad=True`` (a list)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        """The Parameters with ``requires_grad=False`` (a list)."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def init_parameters_data(self, auto_parallel_mode=False):
        """Create the data of lazily-initialised Parameters; returns ``{param: param}``."""
        result = {}
        for p in self.get_parameters():
            p.init_data()
            result[p] = p
        return result

    def update_parameters_name(self, prefix="", recurse=True):
        """Rename each Parameter to ``prefix`` + its attribute path.

        Raises
        ------
        TypeError
            If ``prefix`` is not a str.
        ValueError
            If ``prefix`` holds characters other than letters, digits, ``_``, ``.`` and ``-``.
        """
        if not isinstance(prefix, str):
            raise TypeError(f"For 'update_parameters_name', 'prefix' must be a str, but got {type(prefix).__name__}")
        if not _PREFIX_PATTERN.match(prefix):
            raise ValueError(
                f"For 'update_parameters_name', the prefix {prefix!r} is illegal: it must match "
                r"'^\w*[0-9a-zA-Z_.\-]*$' (ASCII letters, digits, '_', '.', '-')"
            )
        for path, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + path

    @property
    def param_prefix(self):
        """The prefix of this Cell's direct parameters, set by :meth:`update_cell_prefix`."""
        return self._param_prefix

    def update_cell_prefix(self):
        """Set every descendant's ``param_prefix`` to its dotted path."""
        for path, cell in self.cells_and_names():
            object.__setattr__(cell, "_param_prefix", path)

    def update_cell_type(self, cell_type):
        """Record the Cell's type: ``'quant'`` or ``'second-order'`` (quantization-aware / second-order training)."""
        object.__setattr__(self, "_cell_type", cell_type)

    @property
    def cell_type(self):
        """The type set by :meth:`update_cell_type` (``None`` before); settable, as in MindSpore."""
        return self._cell_type

    @cell_type.setter
    def cell_type(self, value):
        object.__setattr__(self, "_cell_type", value)

    def get_scope(self):
        """The scope assigned by :meth:`generate_scope` (``None`` before)."""
        return self._scope

    def generate_scope(self):
        """Give every Cell below this one its scope: the parent's scope + ``/<name>-<ClassName>``.

        Scopes start at ``Default`` (``Default/net-Net/dense-Dense``); this
        Cell's own scope is left as it is (as in MindSpore).
        """
        def walk(cell, parent_scope):
            for name, child in cell.name_cells().items():
                scope = f"{parent_scope}/{name}-{type(child).__name__}"
                object.__setattr__(child, "_scope", scope)
                walk(child, scope)

        walk(self, "Default")

    def check_names_and_refresh_name(self):
        """If two Parameters below this Cell share a name, rename every Parameter to its attribute path.

        MindSpore does this before a Cell's first call; raises ValueError if
        names still clash afterwards (see :meth:`check_names`).
        """
        names = [p.name for _, p in self.parameters_and_names()]
        if len(set(names)) < len(names):
            self.update_parameters_name()
            self.check_names()

    def check_names(self):
        """Raise ValueError if two different Parameters in the network share a name."""
        owners = {}
        for path, p in self.parameters_and_names():
            other = owners.get(p.name)
            if other is not None:
                raise ValueError(
                    f"The value of {path} is {p}, its name '{p.name}' already exists (it is also the name of "
                    f"{other}). Please set a unique name for the parameter."
                )
            owners[p.name] = path

    def remove_redundant_parameters(self):
        """Drop registry entries that are ``None`` (deleted Parameters)."""
        for path, cell in self.cells_and_names():
            for name in [n for n, p in cell._params.items() if p is None]:
                del cell._params[name]

    # ----------------------------------------------------------- flags and modes
    def add_flags(self, **flags):
        """Set custom attributes (also readable with :meth:`get_flags`); returns self.

        A flag named like a registered Parameter, child or buffer is kept in
        the flags only: the attribute stays the registered object.
        """
        _configuration_changed()
        self.get_flags().update(flags)
        for key, value in flags.items():
            if not (key in self._params or key in self._cells or key in self._buffers):
                object.__setattr__(self, key, value)
        if "fp16" in flags or "fp32" in flags or "bf16" in flags:
            cell_precision.apply_flags(self, flags)  # fp16=True ... is what to_float sets
        return self

    def add_flags_recursive(self, **flags):
        """:meth:`add_flags` on this Cell and every descendant; returns self."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self):
        """The custom attributes set by :meth:`add_flags` (a dict; ``training`` too once :meth:`set_train` ran)."""
        if self._flags is None:
            object.__setattr__(self, "_flags", {})
        return self._flags

    def apply(self, fn):
        """Call ``fn(cell)`` on every descendant, then on this Cell; returns self."""
        if not callable(fn):
            raise TypeError(f"For 'apply', 'fn' must be callable, but got {type(fn).__name__}")
        for child in self.cells():
            if child is not None:
                child.apply(fn)
        fn(self)
        return self

    def set_train(self, mode=True):
        """Training mode (``True``) or inference (``False``) for this Cell and all below; returns self."""
        if not isinstance(mode, (bool, int)):
            raise TypeError(f"For 'set_train', 'mode' must be a bool, but got {type(mode).__name__}")
        mode = bool(mode)
        if any(cell.training != mode for _, cell in self.cells_and_names()):
            _configuration_changed()  # compiled graphs depend on the mode (dropout, batch norm)
        for _, cell in self.cells_and_names():
            cell.get_flags()["training"] = mode  # MindSpore records it as a flag too
            object.__setattr__(cell, "training", mode)
            cell.__dict__.pop("_phase", None)  # the phase follows the mode again
        return self

    @property
    def phase(self):
        """``'train'`` or ``'predict'`` as :meth:`set_train` last said (``'train'`` before), or a phase set by hand."""
        explicit = self.__dict__.get("_phase")
        if explicit is not None:
            return explicit
        return "predict" if "training" in self.__dict__ and not self.training else "train"

    @phase.setter
    def phase(self, value):
        if not isinstance(value, str):
            raise TypeError(f"For 'Cell', the property 'phase' must be string type, but got type {type(value)}.")
        object.__setattr__(self, "_phase", value)

    def set_grad(self, requires_grad=True):
        """Mark the Cell as needing gradients (recorded; cellkit records only inside transforms); returns self."""
        if not isinstance(requires_grad, (bool, int)):
            raise TypeError(f"For 'set_grad', 'requires_grad' must be a bool, but got {type(requires_grad).__name__}")
        object.__setattr__(self, "requires_grad", bool(requires_grad))
        return self

    # ------------------------------------------------------------------ printing
    def extend_repr(self):
        """Extra text shown inside this Cell's parentheses; layers override it."""
        return ""

    def __repr__(self):
        extra = self.extend_repr()
        children = self._cells.items()
        if not children and "\n" not in extra:
            return f"{type(self).__name__}({extra})"
        lines = [f"{type(self).__name__}("]
        if extra:
            lines.append("  " + extra.replace("\n", "\n  "))
        for name, child in children:  # an emptied slot shows as None, as in MindSpore
            text = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name}): {text}")
        lines.append(")")
        return "\n".join(lines)

    def __bool__(self):
        # Always true (an empty CellDict too), whatever ``__len__`` a subclass defines, as in MindSpore.
        return True

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The notebook display (tree as text and HTML); ``repr`` stays MindSpore's text."""
        from ..display import mimebundle  # lazy: the runtime never needs the display layer

        return mimebundle(self, include, exclude)

    @property
    def cls_name(self):
        return type(self).__name__




    # ------------------------------------------------ the rest of the Cell, by concern
    # Hooks (cell_hooks.py)
    register_forward_pre_hook = cell_hooks.register_forward_pre_hook
    register_forward_hook = cell_hooks.register_forward_hook
    register_backward_pre_hook = cell_hooks.register_backward_pre_hook
    register_backward_hook = cell_hooks.register_backward_hook
    register_saved_tensors_hooks = cell_hooks.register_saved_tensors_hooks
    register_parameter_forward_hook = cell_hooks.register_parameter_forward_hook
    # A custom bprop (cell_bprop.py)
    bprop_debug = cell_bprop.bprop_debug
    has_bprop = cell_bprop.has_bprop
    # Buffers and state dicts (cell_state.py)
    register_buffer = cell_state.register_buffer
    named_buffers = cell_state.named_buffers
    buffers = cell_state.buffers
    get_buffer = cell_state.get_buffer
    get_extra_state = cell_state.get_extra_state
    set_extra_state = cell_state.set_extra_state
    state_dict = cell_state.state_dict
    load_state_dict = cell_state.load_state_dict
    to = cell_state.to
    to_empty = cell_state.to_empty
    register_state_dict_pre_hook = cell_state.register_state_dict_pre_hook
    register_state_dict_post_hook = cell_state.register_state_dict_post_hook
    register_load_state_dict_pre_hook = cell_state.register_load_state_dict_pre_hook
    register_load_state_dict_post_hook = cell_state.register_load_state_dict_post_hook
    # Mixed precision (cell_precision.py)
    to_float = cell_precision.to_float
    cast_inputs = cell_precision.cast_inputs
    auto_cast_inputs = cell_precision.auto_cast_inputs
    cast_param = cell_precision.cast_param
    get_mixed_precision_type = cell_precision.get_mixed_precision_type
    set_mixed_precision_type = cell_precision.set_mixed_precision_type
    # Declared inputs, compiling and graph mode (cell_inputs.py)
    set_inputs = cell_inputs.set_inputs
    get_inputs = cell_inputs.get_inputs
    compile = cell_inputs.compile
    compile_phase = cell_inputs.compile_phase
    compiled = cell_inputs.compiled
    compile_cache = cell_inputs.compile_cache
    phase_cache = cell_inputs.phase_cache
    jit_config_dict = cell_inputs.jit_config_dict
    cell_init_args = cell_inputs.cell_init_args
    compile_and_run = cell_inputs.compile_and_run
    run_construct = cell_inputs.run_construct
    exec_checkpoint_graph = cell_inputs.exec_checkpoint_graph
    get_func_graph_proto = cell_inputs.get_func_graph_proto
    # Recompute and offload (cellkit/recompute.py, cellkit/offload.py)
    recompute = recompute_module.set_recompute
    offload = offload_module.set_offload
    # Parallel settings, recorded (cell_parallel.py)
    parallel_config = cell_parallel.parallel_config
    shard = cell_parallel.shard
    place = cell_parallel.place
    set_comm_fusion = cell_parallel.set_comm_fusion
    set_data_parallel = cell_parallel.set_data_parallel
    set_auto_parallel = cell_parallel.set_auto_parallel
    set_broadcast_flag = cell_parallel.set_broadcast_flag
    set_param_ps = cell_parallel.set_param_ps
    set_parallel_input_with_inputs = cell_parallel.set_parallel_input_with_inputs
    load_parameter_slice = cell_parallel.load_parameter_slice
    pipeline_stage = cell_parallel.pipeline_stage
    pipeline_segment = cell_parallel.pipeline_segment
    parallel_parameter_name_list = cell_parallel.parallel_parameter_name_list
    parallel_parameter_merge_net_dict = cell_parallel.parallel_parameter_merge_net_dict
    infer_param_pipeline_stage = cell_parallel.infer_param_pipeline_stage
    parameter_layout_dict = cell_parallel.parameter_layout_dict
    set_boost = cell_parallel.set_boost
    set_jit_config = cell_parallel.set_jit_config
    flatten_weights = cell_parallel.flatten_weights

    # Cells are compared and hashed by identity (dict keys, sets of visited cells).
    __hash__ = object.__hash__


_PREFIX_PATTERN = re.compile(r"^\w*[0-9a-zA-Z_.\-]*$", re.ASCII)


