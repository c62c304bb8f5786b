"""Parameter: a named, trainable Tensor; ParameterTuple: a checked tuple of them.

A :class:`Parameter` is a :class:`~cellkit.tensor.Tensor` that a Cell
registers when it is assigned as an attribute, that gradient transforms can
differentiate with respect to, and that optimizers update in place with
:meth:`Parameter.set_data` (which keeps the object's identity, so every Cell
and optimizer holding it sees the new values).

Naming follows MindSpore:

1. a Parameter created without a name gets ``Parameter#<n>`` from a global
   counter, and :attr:`Parameter.name_was_generated` says so; a Cell renames
   such a Parameter to the attribute it is assigned to;
2. inside a :class:`ParameterTuple` held by a Cell, generated names become
   ``Parameter$1``, ``Parameter$2`` ... (:meth:`ParameterTuple.name_members`);
3. two different Parameters of one tuple may not share a name (``ValueError``
   with "already exists");
4. the same Parameter object appearing twice is checked once.

>>> import cellkit as ms
>>> w = ms.Parameter(ms.Tensor([[1.0, 2.0]]), name="w")
>>> w
Parameter (name=w, shape=(1, 2), dtype=Float32, requires_grad=True)
>>> print(w.asnumpy())
[[1. 2.]]
"""
from __future__ import annotations

import itertools
import re

import numpy as np

from . import backend as _backend
from . import batching as _batching
from . import dtype as _dt
from .tensor import Tensor

__all__ = ["Parameter", "ParameterTuple"]

# Names are limited as in MindSpore (it refuses longer ones).
_NAME_MAX_LEN = 1024
_GENERATED_PREFIX = "Parameter#"
_TUPLE_PREFIX = "Parameter$"

# Global counters: generated names and default unique keys.  ``next`` on an
# itertools.count is atomic in CPython, so threads never share a number.
_name_ids = itertools.count(1)
_key_ids = itertools.count(1)


def _generate_name():
    return f"{_GENERATED_PREFIX}{next(_name_ids)}"


def _check_bool(value, arg):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For 'Parameter', the argument '{arg}' must be a bool, but got {type(value).__name__}")
    return bool(value)


def _check_int(value, arg, minimum=None):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For 'Parameter', the argument '{arg}' must be an int, but got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"For 'Parameter', the argument '{arg}' must be an int >= {minimum}, but got {value}")
    return int(value)


def _check_name(name):
    """A valid name (stripped), or a freshly generated one for None / blank."""
    if name is None:
        return _generate_name()
    if not isinstance(name, str):
        # MindSpore raises ValueError (not TypeError) here; cellkit keeps its type.
        raise ValueError(
            f"For 'Parameter', the argument 'name' must be a str or None, but got {type(name).__name__}"
        )
    name = name.strip()
    if not name:
        return _generate_name()
    if len(name) > _NAME_MAX_LEN:
        raise ValueError(
            f"For 'Parameter', the argument 'name' must be at most {_NAME_MAX_LEN} characters long, "
            f"but got one of {len(name)} characters starting {name[:32]!r}"
        )
    return name


def _cast_array(array, dtype):
    """``array`` in ``dtype`` (a DType); unchanged if it already is."""
    if _dt.dtype_of(array) is dtype:
        return array
    xp = _backend.current().xp
    return xp.astype(array, dtype.to_backend(xp))


def _initial_data(default_input):
    """(array or None, lazy spec or None) for a new Parameter's ``default_input``.

    MindSpore's rules: a Python int becomes Int32 and a float Float32; lists
    and NumPy arrays follow Tensor's rules; a Tensor is copied, and a
    lazily-initialised one is initialised first.  ``bool`` is refused.
    """
    if isinstance(default_input, bool):
        raise ValueError("For 'Parameter', the argument 'default_input' can not be a bool")
    if isinstance(default_input, Tensor):
        if default_input._data is None:
            if not default_input.has_init:
                # A placeholder (shape and dtype only): the Parameter has no data yet.
                shape, dtype, _ = default_input._lazy
                return None, (shape, dtype, None)
            default_input.init_data()  # MindSpore initialises the source tensor too
        return _backend.current().copy(default_input._data), None
    if isinstance(default_input, int):
        return Tensor(default_input, dtype=_dt.int32)._data, None
    if isinstance(default_input, float):
        return Tensor(float(default_input), dtype=_dt.float32)._data, None
    if isinstance(default_input, np.generic):  # a NumPy scalar keeps its dtype
        default_input = np.asarray(default_input)
    if isinstance(default_input, (list, np.ndarray)):
        return Tensor(default_input)._data, None
    if hasattr(default_input, "__array_namespace__") or hasattr(default_input, "__cuda_array_interface__"):
        return _backend.current().copy(Tensor(default_input)._data), None
    raise TypeError(
        "For 'Parameter', the argument 'default_input' must be a Tensor, int, float, numpy.ndarray or list, "
        f"but got {type(default_input).__name__}"
    )


class Parameter(Tensor):
    """A Tensor that a Cell owns and trains, with a name.

    Parameters
    ----------
    default_input : Tensor, int, float, numpy.ndarray or list
        The initial values.  A Tensor or array is copied; a Tensor made by
        :func:`~cellkit.common.initializer.initializer` is initialised now.
        A Python int gives an Int32 scalar, a float a Float32 scalar.
    name : str, optional
        The name; ``None`` (or a blank string) generates ``Parameter#<n>``,
        which a Cell replaces by the attribute name.
    requires_grad : bool
        Whether optimizers update it (``Cell.trainable_params``).
    layerwise_parallel : bool
        Recorded for data-parallel runs (excluded from broadcast).
    parallel_optimizer : bool
        Recorded for optimizer-sharded parallel runs.

    Attributes
    ----------
    name_was_generated : bool
        Read-only.  True while the name is an automatic ``Parameter#<n>`` one
        (as in MindSpore, decided by that prefix), so a Cell knows it may
        rename the Parameter after the attribute that holds it.
    key : int
        A number unique to this Parameter object by default (settable).

    Raises
    ------
    TypeError
        If ``default_input`` has an unsupported type, or a flag is not a bool.
    ValueError
        If ``default_input`` is a bool, or ``name`` is not a str or is too long.

    Notes
    -----
    ``print(param)`` shows the summary line, not the values: use
    :meth:`asnumpy` to see them.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer
    >>> w = ms.Parameter(initializer("ones", (240, 120, 4, 4), ms.float32), name="weight")
    >>> print(w)
    Parameter (name=weight, shape=(240, 120, 4, 4), dtype=Float32, requires_grad=True)
    >>> b = ms.Parameter(ms.Tensor([0.5]))
    >>> b.name_was_generated, b.name.startswith("Parameter#")
    (True, True)
    """

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        requires_grad = _check_bool(requires_grad, "requires_grad")
        layerwise_parallel = _check_bool(layerwise_parallel, "layerwise_parallel")
        parallel_optimizer = _check_bool(parallel_optimizer, "parallel_optimizer")
        if name is not None and not isinstance(name, str):
            _check_name(name)  # raises before any counter is used
        data, lazy = _initial_data(default_input)
        # Tensor's own slots (Tensor.__init__ is not called: the data is ready).
        self._data = data
        self._lazy = lazy
        self._node = None
        self.const_arg = False
        self._name = _check_name(name)
        self._requires_grad = requires_grad
        self._layerwise_parallel = layerwise_parallel
        self._parallel_optimizer = parallel_optimizer
        self._parallel_optimizer_comm_recompute = False
        self._comm_fusion = 1
        self._cache_enable = False
        self._cache_shape = []
        self._key = next(_key_ids)
        self._unique = False
        self._sliced = False
        self._inited_param = None
        self._pipeline_stage_list = []
        self.is_param_ps = False
        self.init_in_server = False

    # ------------------------------------------------------------------ printing
    def __str__(self):
        return (f"Parameter (name={self._name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self._requires_grad})")

    __repr__ = __str__

    # --------------------------------------------------------------------- name
    @property
    def name(self):
        """The name (settable: a str, or None / blank for a generated one).

        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="param")
        >>> p.name = " param1 "
        >>> p.name
        'param1'
        """
        return self._name

    @name.setter
    def name(self, value):
        self._name = _check_name(value)

    @property
    def name_was_generated(self):
        """True while the name is an automatic ``Parameter#<n>`` one (read-only).

        A Cell reads this to give an unnamed Parameter its attribute's name.

        >>> import cellkit as ms
        >>> ms.Parameter(ms.Tensor([1.0])).name_was_generated
        True
        >>> ms.Parameter(ms.Tensor([1.0]), name="w").name_was_generated
        False
        """
        return self._name.startswith(_GENERATED_PREFIX)

    # -------------------------------------------------------------------- flags
    @property
    def requires_grad(self):
        """Whether the Parameter is trained (settable, a bool).

        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
        >>> p.requires_grad = False
        >>> p
        Parameter (name=p, shape=(1,), dtype=Float32, requires_grad=False)
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._requires_grad = _check_bool(value, "requires_grad")

    @property
    def layerwise_parallel(self):
        """Whether data-parallel broadcast and gradient all-reduce skip it (settable, a bool).

        >>> import cellkit as ms
        >>> ms.Parameter(ms.Tensor([1.0]), name="p", layerwise_parallel=True).layerwise_parallel
        True
        """
        return self._layerwise_parallel

    @layerwise_parallel.setter
    def layerwise_parallel(self, value):
        self._layerwise_parallel = _check_bool(value, "layerwise_parallel")

    @property
    def parallel_optimizer(self):
        """Whether an optimizer-sharded parallel run may split it (settable, a bool).

        >>> import cellkit as ms
        >>> ms.Parameter(ms.Tensor([1.0]), name="p").parallel_optimizer
        True
        """
        return self._parallel_optimizer

    @parallel_optimizer.setter
    def parallel_optimizer(self, value):
        self._parallel_optimizer = _check_bool(value, "parallel_optimizer")

    @property
    def parallel_optimizer_comm_recompute(self):
        """Whether the AllGather a sharded optimizer inserts is recomputed (settable, a bool).

        Only meaningful for parallel graph runs; cellkit records it.

        >>> import cellkit as ms
        >>> ms.Parameter(ms.Tensor([1.0]), name="p").parallel_optimizer_comm_recompute
        False
        """
        return self._parallel_optimizer_comm_recompute

    @parallel_optimizer_comm_recompute.setter
    def parallel_optimizer_comm_recompute(self, value):
        self._parallel_optimizer_comm_recompute = _check_bool(value, "parallel_optimizer_comm_recompute")

    @property
    def comm_fusion(self):
        """The fusion group of the communication ops for this Parameter (an int >= 0; default 1).

        ``0`` means its communication is not fused with others'.

        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
        >>> p.comm_fusion = 3
        >>> p.comm_fusion
        3
        """
        return self._comm_fusion

    @comm_fusion.setter
    def comm_fusion(self, value):
        self._comm_fusion = _check_int(value, "comm_fusion", minimum=0)

    @property
    def cache_enable(self):
        """Whether the Parameter uses the embedding cache (settable, a bool; default False).

        >>> import cellkit as ms
        >>> ms.Parameter(ms.Tensor([1.0]), name="p").cache_enable
        False
        """
        return self._cache_enable

    @cache_enable.setter
    def cache_enable(self, value):
        self._cache_enable = _check_bool(value, "cache_enable")

    @property
    def cache_shape(self):
        """The shape of the cache when caching is on, as a list (``[]`` when unset).

        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
        >>> p.cache_shape = (4, 3)
        >>> p.cache_shape
        [4, 3]
        """
        return list(self._cache_shape)

    @cache_shape.setter
    def cache_shape(self, value):
        if not isinstance(value, (tuple, list)):
            raise TypeError(
                f"For 'Parameter', the argument 'cache_shape' must be a tuple or list, but got {type(value).__name__}"
            )
        self._cache_shape = [_check_int(d, "cache_shape", minimum=0) for d in value]

    @property
    def key(self):
        """A key unique to this Parameter object by default (settable, an int).

        Clones and copies get their own key.

        >>> import cellkit as ms
        >>> a = ms.Parameter(ms.Tensor([1.0]), name="a")
        >>> a.key != a.clone().key
        True
        >>> a.key = 2
        >>> a.key
        2
        """
        return self._key

    @key.setter
    def key(self, value):
        self._key = _check_int(value, "key")

    @property
    def unique(self):
        """Whether the Parameter is already unique (settable, a bool; default False).

        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
        >>> p.unique = True
        >>> p.unique
        True
        """
        return self._unique

    @unique.setter
    def unique(self, value):
        self._unique = _check_bool(value, "unique")

    @property
    def sliced(self):
        """Whether the data is a slice of a larger, split Parameter (settable, a bool).

        ``set_data(..., slice_shape=True)`` sets it.

        >>> import cellkit as ms
        >>> ms.Parameter(ms.Tensor([1.0]), name="p").sliced
        False
        """
        return self._sliced

    @sliced.setter
    def sliced(self, value):
        self._sliced = _check_bool(value, "sliced")

    @property
    def inited_param(self):
        """The Parameter after :meth:`init_data` created its data, else None.

        A Parameter built from an initializer is initialised at creation, so
        this stays None unless :meth:`init_data` itself filled the data.

        >>> import cellkit as ms
        >>> print(ms.Parameter(ms.Tensor([1.0]), name="p").inited_param)
        None
        """
        return self._inited_param

    @property
    def pipeline_stages(self):
        """The pipeline stages added by :meth:`add_pipeline_stage` (a new list).

        >>> import cellkit as ms
        >>> ms.Parameter(ms.Tensor([1.0]), name="p").pipeline_stages
        []
        """
        return list(self._pipeline_stage_list)

    # ------------------------------------------------------------------- data
    @property
    def data(self):
        """The Parameter itself (assigning to it calls :meth:`set_data`).

        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
        >>> p.data is p
        True
        >>> p.data = ms.Tensor([5.0])
        >>> print(p.asnumpy())
        [5.]
        """
        return self

    @data.setter
    def data(self, value):
        self.set_data(value)

    def value(self):
        """A Tensor holding a copy of the current values (later updates do not change it).

        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="p")
        >>> v = p.value()
        >>> print(v)
        [1. 2.]
        >>> type(v).__name__
        'Tensor'
        """
        return Tensor._from_array(_backend.current().copy(self._require_data("value")))

    def set_data(self, data, slice_shape=False):
        """Replace the values, keeping this Parameter object (and its dtype); return self.

        Parameters
        ----------
        data : Tensor, int or float
            The new values.  They are cast to the Parameter's dtype; a Tensor's
            array is taken as it is (not copied), as in MindSpore.  The shape
            may change (MindSpore does not check it).
        slice_shape : bool
            Mark the new data as a slice of a split Parameter (sets
            :attr:`sliced`).

        Raises
        ------
        TypeError
            If ``data`` is not a Tensor, int or float, if a float is given to
            an integer Parameter, or if ``slice_shape`` is not a bool.

        Examples
        --------
        >>> import cellkit as ms
        >>> x = ms.Parameter(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), name="param")
        >>> x.set_data(ms.Tensor([[6.0, 6.0], [6.0, 6.0]]))
        Parameter (name=param, shape=(2, 2), dtype=Float32, requires_grad=True)
        >>> print(x.asnumpy())
        [[6. 6.]
         [6. 6.]]
        """
        slice_shape = _check_bool(slice_shape, "slice_shape")
        if not isinstance(data, (Tensor, int, float)):
            raise TypeError(
                "For 'Parameter.set_data', the argument 'data' must be a Tensor, int or float, "
                f"but got {type(data).__name__}"
            )
        dtype = self.dtype
        if not isinstance(data, Tensor):
            if isinstance(data, float) and dtype.kind != "float":
                raise TypeError(
                    f"For 'Parameter.set_data', a float can not be converted implicitly to the dtype {dtype} "
                    f"of Parameter '{self._name}'; pass a Tensor to convert explicitly"
                )
            data = Tensor(data, dtype=dtype)
        if data._data is None and data.has_init and self._data is None and data.dtype is dtype:
            # Neither holds data yet: stay lazy, to be filled by init_data().
            self._lazy = (tuple(data.shape), dtype, data._lazy[2])
            self._sliced = slice_shape
            return self
        array = _cast_array(data._require_data("set_data"), dtype)
        if _batching.is_batched(array):  # a Parameter holds one value, not one per example of a vmap
            raise _batching.Unbatchable("a Parameter cannot be set to a batched value inside vmap")
        self._data = array
        self._lazy = None
        self._sliced = slice_shape
        return self

    def init_data(self, layout=None, set_sliced=False):
        """Create the data of a lazily-initialised Parameter; return self.

        A Parameter that already holds data is returned unchanged.

        Parameters
        ----------
        layout : tuple, optional
            ``(dev_mat, tensor_map, slice_shape, field_size, uniform_split,
            opt_shard_group)`` in auto-parallel runs; checked and recorded,
            cellkit runs in one process and does not split.
        set_sliced : bool
            Mark the Parameter as sliced once its data is created.

        Raises
        ------
        TypeError
            If ``layout`` is not a tuple (or None), or ``set_sliced`` not a bool.
        ValueError
            If ``layout`` has fewer than 6 entries.

        Notes
        -----
        MindSpore raises RuntimeError when the parallel mode changed after an
        initializer-made Parameter was created; cellkit has no parallel modes,
        so that case cannot arise.

        Examples
        --------
        >>> import cellkit as ms
        >>> x = ms.Parameter(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), name="param")
        >>> x.init_data() is x
        True
        """
        set_sliced = _check_bool(set_sliced, "set_sliced")
        if layout is not None:
            if not isinstance(layout, tuple):
                raise TypeError(
                    f"For 'Parameter.init_data', the argument 'layout' must be a tuple, but got {type(layout).__name__}"
                )
            if len(layout) < 6:
                raise ValueError(
                    "For 'Parameter.init_data', the argument 'layout' must have 6 entries (dev_mat, tensor_map, "
                    f"slice_shape, field_size, uniform_split, opt_shard_group), but got {len(layout)}"
                )
            self.layout = layout
        if self._data is None and self.has_init:
            shape, dtype, init = self._lazy
            self._data = init._make_array(shape, dtype)
            self._lazy = None
            self._sliced = set_sliced
            self._inited_param = self
        return self

    # ------------------------------------------------------------------ copies
    def clone(self, init="same"):
        """A new Parameter with the same name, shape, dtype and settings.

        Parameters
        ----------
        init : str, Tensor, numbers.Number or Initializer
            ``'same'`` copies the values; anything else fills the clone as
            ``initializer(init, self.shape, self.dtype)`` would.

        Returns
        -------
        Parameter
            Its own data and key; ``sliced``, ``unique`` and pipeline stages
            start afresh (as in MindSpore).

        Examples
        --------
        >>> import cellkit as ms
        >>> x = ms.Parameter(ms.Tensor([1.0, 2.0]), name="param")
        >>> y = x.clone()
        >>> y, y is x
        (Parameter (name=param, shape=(2,), dtype=Float32, requires_grad=True), False)
        >>> print(x.clone("zeros").asnumpy())
        [0. 0.]
        """
        if isinstance(init, str) and init == "same":
            data = _backend.current().copy(self._data) if self._data is not None else None
            lazy = self._lazy
        else:
            from .common.initializer import initializer  # above this module in the layers

            source = initializer(init, tuple(self.shape), self.dtype)
            data = _cast_array(source._require_data("clone"), self.dtype)
            lazy = None
        twin = object.__new__(type(self))
        twin._data = data
        twin._lazy = lazy
        twin._node = None
        twin.const_arg = False
        twin.__dict__.update(self.__dict__)
        twin._cache_shape = list(self._cache_shape)
        twin._key = next(_key_ids)
        twin._unique = False
        twin._sliced = False
        twin._inited_param = None
        twin._pipeline_stage_list = []
        twin.__dict__.pop("layout", None)
        twin.__dict__.pop("_last_grad", None)  # a clone has no gradient history
        return twin

    def copy(self):
        """A copy: the same as ``clone(init='same')``.

        >>> import cellkit as ms
        >>> x = ms.Parameter(ms.Tensor([1.0, 2.0]), name="param")
        >>> y = x.copy()
        >>> y.name, y is x
        ('param', False)
        """
        return self.clone(init="same")

    def __copy__(self):
        return self.clone(init="same")

    def __deepcopy__(self, memo):
        twin = self.clone(init="same")
        memo[id(self)] = twin
        return twin

    def __reduce_ex__(self, protocol):
        host = None if self._data is None else self.asnumpy()
        state = dict(self.__dict__)
        state.pop("_inited_param", None)
        state.pop("_last_grad", None)  # the latest gradient is transient, not part of the Parameter
        return (_rebuild_parameter, (host, self._lazy, state))

    # ---------------------------------------------------------- parallel & PS
    def add_pipeline_stage(self, stage):
        """Record that the Parameter is used in pipeline stage ``stage``.

        Deprecated in MindSpore 2.3; kept for old code.  Stages count from 0.

        Raises
        ------
        TypeError
            If ``stage`` is not an int >= 0 (bools are refused).

        Examples
        --------
        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
        >>> p.add_pipeline_stage(1)
        >>> p.pipeline_stages
        [1]
        """
        if isinstance(stage, (bool, np.bool_)) or not isinstance(stage, (int, np.integer)) or stage < 0:
            raise TypeError(
                f"For 'Parameter.add_pipeline_stage', the argument 'stage' must be a non-negative int, but got {stage!r}"
            )
        self._pipeline_stage_list.append(int(stage))

    def set_param_ps(self, init_in_server=False):
        """Mark the Parameter as updated by a parameter server (recorded only).

        Parameter-server training needs graph mode on a cluster; cellkit
        records the request in ``is_param_ps`` and ``init_in_server``.

        Raises
        ------
        TypeError
            If ``init_in_server`` is not a bool.

        Examples
        --------
        >>> import cellkit as ms
        >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
        >>> p.set_param_ps(init_in_server=True)
        >>> p.is_param_ps, p.init_in_server
        (True, True)
        """
        self.init_in_server = _check_bool(init_in_server, "init_in_server")
        self.is_param_ps = True


def _rebuild_parameter(host, lazy, state):
    """Unpickle a Parameter: its values go onto the current backend."""
    param = object.__new__(Parameter)
    param._node = None
    param.const_arg = False
    if host is None:
        param._data = None
        param._lazy = lazy
    else:
        param._data = _backend.current().from_host(np.array(host, copy=True))
        param._lazy = None
    param.__dict__.update(state)
    param._inited_param = None
    return param


_PREFIX_PATTERN = re.compile(r"^\w+[0-9a-zA-Z_.]*$", re.ASCII)


class ParameterTuple(tuple):
    """A tuple of Parameters whose names are checked to be distinct.

    Parameters
    ----------
    iterable : iterable of Parameter
        The members.  The same Parameter object may appear more than once; it
        is checked once.

    Raises
    ------
    TypeError
        If a member is not a Parameter.
    ValueError
        If two different members share a name ("... already exists").

    Notes
    -----
    As in MindSpore, building the tuple renames nothing; a Cell that holds it
    gives members with generated names the names ``Parameter$1``,
    ``Parameter$2`` ... through :meth:`name_members`.

    Examples
    --------
    >>> import cellkit as ms
    >>> x = ms.Parameter(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), name="param")
    >>> y = ms.Parameter(ms.Tensor([[5.0, 6.0], [7.0, 8.0]]), name="param1")
    >>> pt = ms.ParameterTuple([x, y])
    >>> pt.clone(prefix="new")
    (Parameter (name=new.param, shape=(2, 2), dtype=Float32, requires_grad=True), \
Parameter (name=new.param1, shape=(2, 2), dtype=Float32, requires_grad=True))
    """

    def __new__(cls, iterable=()):
        if isinstance(iterable, Tensor):
            raise TypeError(
                "For 'ParameterTuple', the input must be a collection of Parameters, but got a single "
                f"{type(iterable).__name__}; wrap it in a list"
            )
        if isinstance(iterable, (str, bytes, dict)) or not hasattr(iterable, "__iter__"):
            raise TypeError(
                "For 'ParameterTuple', the input must be a collection of Parameters, "
                f"but got {type(iterable).__name__}"
            )
        members = tuple(iterable)
        for index, member in enumerate(members):
            if not isinstance(member, Parameter):
                raise TypeError(
                    "For 'ParameterTuple', every member must be a Parameter, but the member at index "
                    f"{index} is a {type(member).__name__}"
                )
        _check_distinct_names(members, [p.name for p in members])
        return tuple.__new__(cls, members)

    def clone(self, prefix, init="same"):
        """A new ParameterTuple of clones named ``prefix + '.' + name``.

        Parameters
        ----------
        prefix : str
            Letters, digits, ``_`` and ``.``, starting with a word character.
        init : str, Tensor, numbers.Number or Initializer
            As in :meth:`Parameter.clone`: ``'same'`` copies the values.

        Raises
        ------
        TypeError
            If ``prefix`` is not a str.
        ValueError
            If ``prefix`` is not a valid name prefix.

        Examples
        --------
        >>> import cellkit as ms
        >>> pt = ms.ParameterTuple([ms.Parameter(ms.Tensor([1.0]), name="w")])
        >>> new = pt.clone("copy", init="zeros")
        >>> new[0].name, new[0].asnumpy().tolist()
        ('copy.w', [0.0])
        """
        if not isinstance(prefix, str):
            raise TypeError(
                f"For 'ParameterTuple.clone', the argument 'prefix' must be a str, but got {type(prefix).__name__}"
            )
        if not _PREFIX_PATTERN.match(prefix):
            raise ValueError(
                f"For 'ParameterTuple.clone', the argument 'prefix' {prefix!r} is not valid: it must match "
                r"'^\w+[0-9a-zA-Z_.]*$' (ASCII)"
            )
        clones = {}
        members = []
        for p in self:
            twin = clones.get(id(p))
            if twin is None:  # the same object twice gives the same clone twice
                twin = p.clone(init)
                twin.name = f"{prefix}.{p.name}"
                clones[id(p)] = twin
            members.append(twin)
        return ParameterTuple(members)

    def name_members(self, start=1):
        """Name each member with a generated name ``Parameter$<k>``, counting from ``start``.

        This is what a Cell does when a ParameterTuple is assigned to it (its
        counter runs across all the tuples it holds).  Each object is named
        once, in order.  Returns the next unused number.

        Raises
        ------
        ValueError
            If the new names would clash with other members' names ("already
            exists"); then nothing is renamed.

        Examples
        --------
        >>> import cellkit as ms
        >>> pt = ms.ParameterTuple([ms.Parameter(ms.Tensor([3.0])), ms.Parameter(ms.Tensor([4.0]))])
        >>> pt.name_members()
        3
        >>> [p.name for p in pt]
        ['Parameter$1', 'Parameter$2']
        """
        start = _check_int(start, "start", minimum=0)
        seen = set()
        renames = {}
        index = start
        for p in self:
            if id(p) in seen:
                continue
            seen.add(id(p))
            if p.name_was_generated:
                renames[id(p)] = f"{_TUPLE_PREFIX}{index}"
                index += 1
        _check_distinct_names(self, [renames.get(id(p), p.name) for p in self])
        for p in self:
            if id(p) in renames:
                p._name = renames.pop(id(p))
        return index


def _check_distinct_names(members, names):
    """Raise ValueError if two different objects among ``members`` share a name."""
    owner = {}
    for p, name in zip(members, names):
        other = owner.setdefault(name, p)
        if other is not p:
            raise ValueError(
                f"The value {p!r}, its name '{name}' already exists. Please set a unique name for the parameter."
            )
