"""Automatic mixed precision over whole networks: ``auto_mixed_precision``, ``custom_mixed_precision``,
``build_train_network`` and the white and black lists -- MindSpore's ``mindspore.amp`` (``train/amp.py``).

The levels, as MindSpore 2.10 applies them to a network's Cells:

* ``'O0'`` -- the network is returned unchanged.
* ``'O1'`` -- Cells whose class is on the *white list* (:func:`get_white_list`: convolutions,
  ``Dense``, the RNN cells) compute in ``dtype`` (float16 by default) and hand back float32;
  white-listed Primitives held by other Cells (``self.matmul = ops.MatMul()``) do the same;
  everything else stays float32.  A Cell whose precision the user set with ``to_float`` is
  left as it is.
* ``'O2'`` -- the whole network computes in ``dtype`` except Cells on the *black list*
  (:func:`get_black_list`: the batch norms and ``LayerNorm``), which compute in float32 and
  hand back ``dtype`` (each is wrapped in ``_OutputTo16``); the network's outputs are cast to
  float32 (the network is wrapped in ``_OutputTo32``).
* ``'O3'`` -- the whole network computes in ``dtype``; its outputs are cast to float32.

Parameters keep their float32 dtype and their names at every level: casts are made as the
Parameters are used (see :mod:`cellkit.nn.cell_precision`), so gradients reach float32 weights.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import amp, nn
>>> net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4), nn.ReLU()])
>>> net = amp.auto_mixed_precision(net, "O2")
>>> type(net).__name__, type(net._backbone[1]).__name__
('_OutputTo32', '_OutputTo16')
>>> net(ms.Tensor(np.ones((2, 3), np.float32))).dtype
mindspore.float32
"""
from __future__ import annotations


import warnings

from .. import dtype as mstype
from .. import nn
from ..nn.cell import Cell
from ..ops import creation as _creation
from ..ops.primitive import Primitive
from ..tensor import Tensor

__all__ = ["auto_mixed_precision", "custom_mixed_precision", "build_train_network", "get_white_list",
           "get_black_list"]

# MindSpore 2.10's lists, by name; a name cellkit lacks is left out of the list it hands back.
_WHITE_CELLS = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
                "LSTMCell", "RNNCell", "GRUCell")
_WHITE_PRIMITIVES = ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Conv2DBackpropInput", "MatMul",
                     "BatchMatMul", "PReLU", "ReLU", "Ger")
_BLACK_CELLS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")

# Cells that MindSpore builds on one white-listed Primitive (so O1 casts around them) where
# cellkit's version calls the functional form instead: the Cell counts as that Primitive.
_CELL_IS_PRIMITIVE = {"ReLU": "ReLU"}

_LEVELS = ("O0", "O1", "O2", "O3", "auto")


def _classes(module, names):
    return [getattr(module, n) for n in names if isinstance(getattr(module, n, None), type)]


def get_white_list():
    """A copy of the list of Cell and Primitive classes that level ``'O1'`` casts to low precision.

    MindSpore 2.10's list, in its order: ``nn.Conv1d``, ``Conv2d``, ``Conv3d``,
    ``Conv1dTranspose``, ``Conv2dTranspose``, ``Conv3dTranspose``, ``Dense``, ``LSTMCell``,
    ``RNNCell``, ``GRUCell`` and ``ops.Conv2D``, ``Conv3D``, ``Conv2DTranspose``,
    ``Conv3DTranspose``, ``Conv2DBackpropInput``, ``MatMul``, ``BatchMatMul``, ``PReLU``,
    ``ReLU``, ``Ger`` -- each one that cellkit has.

    >>> from cellkit import amp, nn
    >>> nn.Dense in amp.get_white_list()
    True
    """
    from .. import ops
    return _classes(nn, _WHITE_CELLS) + _classes(ops, _WHITE_PRIMITIVES)


def get_black_list():
    """A copy of the list of Cell classes that level ``'O2'`` keeps in float32.

    >>> from cellkit import amp
    >>> [c.__name__ for c in amp.get_black_list()][:2]
    ['BatchNorm1d', 'BatchNorm2d']
    """
    return _classes(nn, _BLACK_CELLS)


# ------------------------------------------------------------------------------ output casts
def _to_float32(value):
    """Floating Tensors (also inside tuples and lists) cast to float32."""
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point and value.dtype is not mstype.float32:
            return _creation.cast(value, mstype.float32)
        return value
    if isinstance(value, tuple):
        return tuple(_to_float32(v) for v in value)
    if isinstance(value, list):
        return [_to_float32(v) for v in value]
    return value


class _OutputTo16(Cell):
    """Runs its backbone (kept in float32) and casts the output to the network's low precision."""

    def __init__(self, backbone, dtype=mstype.float16):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args, **kwargs):
        return _creation.cast(self._backbone(*args, **kwargs), self.dtype)


class _OutputTo32(Cell):
    """Runs its backbone and casts every floating output back to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return _to_float32(self._backbone(*args, **kwargs))


class _AmpCastPrimitive(Primitive):
    """A white-listed Primitive under level ``'O1'``: floating inputs cast to low precision, outputs to float32."""

    def __init__(self, primitive, dtype):
        super().__init__(primitive.name)
        self.primitive = primitive
        self.dtype = dtype

    def __call__(self, *args, **kwargs):
        cast = [_creation.cast(a, self.dtype) if isinstance(a, Tensor) and a.dtype.is_floating_point else a
                for a in args]
        return _to_float32(self.primitive(*cast, **kwargs))

    def __getattr__(self, name):
        if name == "primitive":
            raise AttributeError(name)
        return getattr(self.primitive, name)

    def __repr__(self):
        return repr(self.primitive)


_O1_CLASSES = {}


def _o1_class(cls):
    """A subclass of ``cls`` (same name) whose ``construct`` hands back float32: the Cell computes in low precision."""
    sub = _O1_CLASSES.get(cls)
    if sub is None:
        def construct(self, *args, **kwargs):
            return _to_float32(cls.construct(self, *args, **kwargs))

        sub = type(cls.__name__, (cls,), {"construct": construct, "__module__": cls.__module__,
                                          "__qualname__": cls.__qualname__, "_amp_o1_base": cls})
        _O1_CLASSES[cls] = sub
    return sub


def _set_by_user(cell):
    return any(getattr(cell, flag, False) is True for flag in ("fp32", "fp16", "bf16"))


def _cast_whole(cell, dtype):
    """``cell`` and all below compute in ``dtype``; its output is cast back to float32."""
    cell.to_float(dtype)
    if not getattr(type(cell), "_amp_o1_base", None):
        object.__setattr__(cell, "__class__", _o1_class(type(cell)))


def _white_listed(cell, cells, primitives):
    kind = type(cell)
    if kind in cells:
        return True
    base = getattr(kind, "_amp_o1_base", None)
    if base is not None and base in cells:
        return True
    prim_name = _CELL_IS_PRIMITIVE.get(kind.__name__)
    return prim_name is not None and kind.__module__.startswith("cellkit.") and any(
        p.__name__ == prim_name for p in primitives)


def _cast_white_list(cell, dtype, cells, primitives):
    """Level O1 (or a custom white list): walk the tree, casting white-listed Cells and Primitives."""
    if primitives:
        for name, value in list(vars(cell).items()):
            if isinstance(value, Primitive) and not isinstance(value, _AmpCastPrimitive) and type(value) in primitives:
                object.__setattr__(cell, name, _AmpCastPrimitive(value, dtype))
    for child in cell.name_cells().values():
        if _set_by_user(child):
            continue
        if _white_listed(child, cells, primitives):
            _cast_whole(child, dtype)
        else:
            _cast_white_list(child, dtype, cells, primitives)


def _keep_black_list(network, black_list, dtype):
    """Level O2 (or a custom black list): all in ``dtype`` but the black-listed Cells, kept in float32."""
    network.to_float(dtype)
    _wrap_black_listed(network, tuple(black_list), dtype)
    return network


def _wrap_black_listed(cell, black_list, dtype):
    for name, child in list(cell.name_cells().items()):
        if child is cell:
            continue
        if isinstance(child, black_list):
            cell.insert_child_to_cell(name, _OutputTo16(child.to_float(mstype.float32), dtype))
        else:
            _wrap_black_listed(child, black_list, dtype)


def _check_dtype(dtype):
    if not (dtype is mstype.float16 or dtype is mstype.bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """Return ``network`` set to compute in low precision at level ``amp_level``.

    Parameters
    ----------
    network : Cell
    amp_level : str
        ``'O0'`` (unchanged), ``'O1'`` (white list), ``'O2'`` (all but the black list) or
        ``'O3'`` (all); see the module docstring.  ``'auto'`` (MindSpore's experimental
        per-operator level) is refused.
    dtype : mindspore dtype
        ``float16`` or ``bfloat16``: the low precision.

    Returns
    -------
    Cell
        ``'O0'`` and ``'O1'``: ``network`` itself (at ``'O1'`` its white-listed Cells now
        compute in ``dtype``); ``'O2'`` and ``'O3'``: an ``_OutputTo32`` Cell wrapping it,
        whose outputs are float32.  Parameter names do not change.

    Raises
    ------
    TypeError
        If ``network`` is not a Cell.
    ValueError
        If ``dtype`` is not float16 or bfloat16, or ``amp_level`` is not a supported level.

    Notes
    -----
    MindSpore rewrites the source of every Cell at ``'O1'`` (its classes come back renamed
    ``NetOpt``, ``DenseOpt`` ...) and returns a new top Cell; cellkit keeps the network and its
    class names, and casts around the white-listed Cells.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import amp, nn
    >>> net = amp.auto_mixed_precision(nn.Dense(2, 2), "O3")
    >>> net(ms.ops.ones((1, 2))).dtype, net._backbone.weight.dtype
    (mindspore.float32, mindspore.float32)
    """
    if not isinstance(network, Cell):
        if amp_level == "auto":
            raise TypeError("For amp_level 'auto', the network type should be Cell or function, "
                            f"but got {type(network).__name__}.")
        raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell, but got {type(network).__name__}.")
    _check_dtype(dtype)
    if amp_level == "O0":
        return network
    if getattr(network, "_amp_level", None) in ("O1", "O2", "O3", "auto"):
        warnings.warn(f"The network's auto mixed-precision level is adjusted from {network._amp_level} to "
                      f"{amp_level}, and repeated calls to mixed-precision interfaces can cause performance "
                      "degradation.", stacklevel=2)
    if amp_level == "O1":
        white = get_white_list()
        _cast_white_list(network, dtype, tuple(c for c in white if issubclass(c, Cell)),
                         tuple(c for c in white if issubclass(c, Primitive)))
    elif amp_level == "O2":
        network = _OutputTo32(_keep_black_list(network, get_black_list(), dtype))
    elif amp_level == "O3":
        network.to_float(dtype)
        network = _OutputTo32(network)
    elif amp_level == "auto":
        raise ValueError("The amp level auto is not supported by cellkit: it casts per operator inside MindSpore's "
                         "runtime; use 'O1', 'O2' or 'O3'")
    else:
        raise ValueError(f"The amp level {amp_level} is not supported")
    object.__setattr__(network, "_amp_level", amp_level)
    return network


def _list_check(custom_list, list_name):
    if not isinstance(custom_list, list):
        raise TypeError(f"The type of {list_name} should be list, but got {type(custom_list)}")
    for elem in custom_list:
        if not isinstance(elem, type):
            raise TypeError(f"The element in {list_name} should be a class, but got {elem}")
        if list_name == "white_list" and not issubclass(elem, (Cell, Primitive)):
            raise TypeError(f"The subclass of element in {list_name} should be one of 'Cell' and 'Primitive', "
                            f"but got {elem}")
        if list_name == "black_list" and not issubclass(elem, Cell):
            raise TypeError(f"The subclass of element in {list_name} should be one of 'Cell', but got {elem}")
    if list_name == "black_list":
        for elem in get_black_list():
            if elem not in custom_list:
                warnings.warn(f"{elem} is removed from internal black list.", stacklevel=3)


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """Mixed precision from your own list: a ``white_list`` (as level O1) or a ``black_list`` (as level O2).

    Give exactly one of them, a list of Cell classes (and, for ``white_list``, Primitive
    classes).  With a white list the network itself comes back, its listed Cells computing in
    ``dtype`` with float32 outputs; with a black list an ``_OutputTo32`` Cell wrapping it.

    Raises
    ------
    TypeError
        ``network`` not a Cell; a list that is not a list, or holds something other than a
        Cell (or Primitive) class.
    ValueError
        Neither or both lists given; ``dtype`` not float16 or bfloat16.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import amp, nn
    >>> net = nn.SequentialCell([nn.Dense(2, 2), nn.Flatten()])
    >>> net = amp.custom_mixed_precision(net, white_list=amp.get_white_list() + [nn.Flatten])
    >>> net(ms.ops.ones((1, 2))).dtype
    mindspore.float32
    """
    if not isinstance(network, Cell):
        raise TypeError(f"For custom_mixed_precision, the network type should be Cell, but got {type(network).__name__}.")
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must be provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be provided "
                         "at the same time, please provide one or the other.")
    _check_dtype(dtype)
    if white_list is not None:
        _list_check(white_list, "white_list")
        _cast_white_list(network, dtype, tuple(c for c in white_list if issubclass(c, Cell)),
                         tuple(c for c in white_list if issubclass(c, Primitive)))
        return network
    _list_check(black_list, "black_list")
    return _OutputTo32(_keep_black_list(network, black_list, dtype))


# ---------------------------------------------------------------------------- build_train_network
def _config_level(level):
    from ..train.loss_scale_manager import DynamicLossScaleManager
    return {
        "O0": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
        "O1": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float32, "loss_scale_manager": None},
        "O2": {"keep_batchnorm_fp32": True, "cast_model_type": mstype.float16,
               "loss_scale_manager": DynamicLossScaleManager()},
        "O3": {"keep_batchnorm_fp32": False, "cast_model_type": mstype.float16, "loss_scale_manager": None},
    }[level]


def _check_level(level, boost_level):
    if not isinstance(level, str):
        raise TypeError("The argument `level` must be a string in ['O0', 'O1', 'O2', 'O3', 'auto'],"
                        f"but got type {type(level)}.")
    if level not in _LEVELS:
        raise ValueError(f"The `level` should be in ['O0', 'O1', 'O2', 'O3', 'auto'], but got '{level}'.")
    if level == "auto":
        raise ValueError("The amp level auto is not supported by cellkit: use 'O1', 'O2' or 'O3'")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"The `boost_level` should be in ['O0', 'O1', 'O2'], but got '{boost_level}'.")


def _check_kwargs(kwargs):
    from ..train.loss_scale_manager import LossScaleManager
    for arg in kwargs:
        if arg not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"Unsupported arg '{arg}'")
    if "cast_model_type" in kwargs and not (kwargs["cast_model_type"] is mstype.float16
                                           or kwargs["cast_model_type"] is mstype.float32):
        raise TypeError("The type of 'cast_model_type' must be in ['Float16', 'Float32'], but got "
                        f"{kwargs['cast_model_type']!r}.")
    if "keep_batchnorm_fp32" in kwargs and not isinstance(kwargs["keep_batchnorm_fp32"], bool):
        raise TypeError("The type of 'keep_batchnorm_fp32' must be bool, but got "
                        f"{type(kwargs['keep_batchnorm_fp32']).__name__}.")
    manager = kwargs.get("loss_scale_manager")
    if manager and not isinstance(manager, LossScaleManager):
        raise TypeError("The type of 'loss_scale_manager' must be LossScaleManager, but got "
                        f"{type(manager).__name__}.")


def _keep_batchnorm_fp32(network):
    """The black-listed Cells below ``network`` back to float32, their outputs cast to float16."""
    _wrap_black_listed(network, tuple(get_black_list()), mstype.float16)


def _process_network(network, config, level):
    if config["cast_model_type"] is mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_batchnorm_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(mstype.float16)
    elif config["cast_model_type"] is mstype.float32 and level in ("O2", "O3"):
        pass
    else:
        network = auto_mixed_precision(network, level)
    return network


class WithLossCell(Cell):
    """The loss on float32: the network's output and the label are cast to float32 before ``loss_fn``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(_to_float32(out), _to_float32(label))


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs):
    """A training Cell for ``network`` at mixed-precision ``level``: one call is one optimizer step.

    Parameters
    ----------
    network : Cell
    optimizer : Optimizer
    loss_fn : Cell, optional
        Without it, ``network`` must return the loss.
    level : str
        ``'O0'``: float32; ``'O1'``: the white list in float16; ``'O2'``: float16 but batch
        norms, with a :class:`DynamicLossScaleManager`; ``'O3'``: all float16.
    boost_level : str
        ``'O0'``, ``'O1'`` or ``'O2'``; accepted, cellkit has no boost mode.
    **kwargs
        ``cast_model_type`` (float16 or float32), ``keep_batchnorm_fp32`` (bool),
        ``loss_scale_manager`` (a :class:`LossScaleManager` or None): override what ``level``
        sets.

    Returns
    -------
    Cell
        A :class:`~cellkit.nn.TrainOneStepWithLossScaleCell` (returning ``(loss, overflow,
        scale)``) when the loss-scale manager has an update Cell, else a
        :class:`~cellkit.nn.TrainOneStepCell` (its ``sens`` the manager's fixed scale).

    Raises
    ------
    TypeError
        ``optimizer`` not an Optimizer, or a kwarg of the wrong type.
    ValueError
        An unknown level or kwarg.

    Notes
    -----
    MindSpore 2.10 refuses, on the CPU, a loss-scale manager with an update Cell (its overflow
    check needs an Ascend status register), so level ``'O2'`` raises there; cellkit checks the
    gradients with ``isfinite`` and trains.

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit import amp, nn
    >>> net = nn.Dense(2, 1)
    >>> train = amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss(), level="O2")
    >>> type(train).__name__
    'TrainOneStepWithLossScaleCell'
    """
    from ..nn.optim.optimizer import Optimizer
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"The type of 'optimizer' must be Optimizer, but got {type(optimizer).__name__}.")
    _check_level(level, boost_level)
    _check_kwargs(kwargs)
    config = dict(_config_level(level), **kwargs)
    network = _process_network(network, config, level)
    if loss_fn:
        if not isinstance(loss_fn, Cell):
            raise TypeError(f"The type of 'loss_fn' must be Cell, but got {type(loss_fn).__name__}.")
        if config["cast_model_type"] in (mstype.float16, mstype.bfloat16) or \
                getattr(network, "_amp_level", None) in ("O2", "O3", "auto"):
            network = WithLossCell(network, loss_fn)
        else:
            network = nn.WithLossCell(network, loss_fn)
    loss_scale = None
    manager = config["loss_scale_manager"]
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
    return nn.TrainOneStepCell(network, optimizer, loss_scale).set_train()


