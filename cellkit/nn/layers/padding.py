"""Padding Cells: ``nn.ConstantPad1d/2d/3d``, ``nn.ZeroPad2d``, ``nn.ReflectionPad1d/2d/3d``,
``nn.ReplicationPad1d/2d/3d`` and ``nn.Pad``.

The ``*PadNd`` layers take ``padding`` as PyTorch does: an int (the same on every side), or a
tuple ``(left, right, top, bottom, front, back)`` read from the last axis backwards.  ``Pad``
takes MindSpore's older form, one ``(before, after)`` pair per axis from the first.  All of them
run cellkit's pad ops (``ops.pad``, ``ops.MirrorPad``, ``ops.PadV3``), which are differentiable.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> x = ms.Tensor(np.array([[[1.0, 2.0, 3.0]]], np.float32))
>>> print(nn.ConstantPad1d((1, 2), 9.0)(x))
[[[9. 1. 2. 3. 9. 9.]]]
>>> print(nn.ReflectionPad1d(1)(x))
[[[2. 1. 2. 3. 2.]]]
>>> print(nn.ReplicationPad1d((2, 0))(x))
[[[1. 1. 1. 2. 3.]]]
"""
from __future__ import annotations

import numpy as np

from ... import dtype as _dt
from ... import ops
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "Pad"]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _tensor(x, cell):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cell}', the input must be a Tensor, but got {type(x).__name__}.")
    return x


class _ConstantPadNd(Cell):
    """Constant padding; ``_sides`` is how many pads an int ``padding`` becomes, ``_most`` the longest tuple."""

    _sides = 2
    _most = 2

    def __init__(self, padding, value):
        super().__init__()
        cell = type(self).__name__
        if _is_int(padding):
            padding = (padding,) * self._sides
        elif isinstance(padding, tuple):
            if len(padding) % 2:
                raise ValueError(f"For '{cell}', a tuple 'padding' must have an even length, but got "
                                 f"{len(padding)}.")
            if cell == "ConstantPad1d" and len(padding) != 2:
                raise ValueError(f"For '{cell}', a tuple 'padding' must have 2 items, but got {len(padding)}.")
            if len(padding) > self._most:
                raise ValueError(f"For '{cell}', a tuple 'padding' must have at most {self._most} items, but got "
                                 f"{len(padding)}.")
        else:
            raise TypeError(f"For '{cell}', the type of 'padding' must be int or tuple, but got "
                            f"{type(padding).__name__}.")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{cell}', the type of 'value' must be int or float, but got {type(value).__name__}.")
        self.value = value
        self.padding = padding

    def construct(self, x):
        return ops.pad(_tensor(x, type(self).__name__), padding=self.padding, mode="constant", value=self.value)


class ConstantPad1d(_ConstantPadNd):
    """Pad the last axis with ``value``: ``padding`` is an int or ``(left, right)``; negative pads crop.

    Raises
    ------
    TypeError
        ``padding`` neither int nor tuple, ``value`` neither int nor float.
    ValueError
        A tuple that is not of length 2.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ConstantPad1d(1, 0.5)(ms.ops.ones((1, 2))))
    [[0.5 1.  1.  0.5]]
    """


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two axes with ``value``: ``padding`` is an int or ``(left, right[, top, bottom])``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.ConstantPad2d((1, 1, 2, 0), 0.0)(ms.ops.ones((1, 2, 2))).shape
    (1, 4, 4)
    """

    _sides = 4
    _most = 4


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three axes with ``value``: ``padding`` is an int or up to
    ``(left, right, top, bottom, front, back)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.ConstantPad3d(1, 0.0)(ms.ops.ones((1, 1, 2, 2))).shape
    (1, 3, 4, 4)
    """

    _sides = 6
    _most = 6


class ZeroPad2d(_ConstantPadNd):
    """Pad the last two axes with zeros: ``padding`` is an int or ``(left, right[, top, bottom])``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ZeroPad2d((1, 0, 0, 1))(ms.ops.ones((1, 1, 1))))
    [[[0. 1.]
      [0. 0.]]]
    """

    _sides = 4
    _most = 4

    def __init__(self, padding):
        super().__init__(padding, 0)


def _pairs_first_axis_first(padding):
    """``(l, r, t, b, ...)`` (last axis first) as ``[[t, b], [l, r]]`` (first axis first)."""
    pairs = [[padding[2 * i], padding[2 * i + 1]] for i in range(len(padding) // 2)]
    pairs.reverse()
    return pairs


def _check_tuple(padding, cell, non_negative):
    if not isinstance(padding, tuple):
        raise TypeError(f"For '{cell}', the 'padding' must be an int or a tuple, but got {type(padding).__name__}.")
    if len(padding) % 2:
        raise ValueError(f"For '{cell}', the length of 'padding' must be even, but got {len(padding)}.")
    if not all(_is_int(v) for v in padding):
        raise TypeError(f"For '{cell}', every item of 'padding' must be an int, but got {padding}.")
    if non_negative and not all(v >= 0 for v in padding):
        raise ValueError(f"For '{cell}', every item of 'padding' must be >= 0, but got {padding}.")


class _ReflectionPadNd(Cell):
    _sides = 2

    def __init__(self, padding):
        super().__init__()
        cell = type(self).__name__
        if _is_int(padding):
            padding = (padding,) * self._sides
        _check_tuple(padding, cell, True)
        self.name = cell
        self.padding = _pairs_first_axis_first(padding)
        self._mirror = ops.MirrorPad(mode="REFLECT")

    def construct(self, x):
        x = _tensor(x, self.name)
        if not self.padding:
            return x
        if x.ndim < len(self.padding):
            raise ValueError(f"For '{self.name}', padding {len(self.padding)} axes needs an input of at least "
                             f"{len(self.padding)} dimensions, but got {x.ndim}.")
        pairs = [[0, 0]] * (x.ndim - len(self.padding)) + self.padding
        return self._mirror(x, Tensor(np.array(pairs, dtype=np.int64)))


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last axis by reflection (the edge element is not repeated): ``padding`` is an int
    or ``(left, right)``, each smaller than the axis.

    Raises
    ------
    TypeError
        ``padding`` neither int nor tuple, or holding non-ints.
    ValueError
        An odd-length tuple or a negative pad.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ReflectionPad1d((2, 1))(ms.Tensor(np.array([[0.0, 1.0, 2.0]], np.float32))))
    [[2. 1. 0. 1. 2. 1.]]
    """


class ReflectionPad2d(_ReflectionPadNd):
    """Reflection padding of the last two axes: ``padding`` is an int or ``(left, right, top, bottom)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.ReflectionPad2d(1)(ms.ops.ones((1, 3, 3))).shape
    (1, 5, 5)
    """

    _sides = 4


class ReflectionPad3d(_ReflectionPadNd):
    """Reflection padding of the last three axes: ``padding`` is an int or a tuple of six ints.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.ReflectionPad3d(1)(ms.ops.ones((1, 1, 2, 2, 2))).shape
    (1, 1, 4, 4, 4)
    """

    _sides = 6


class _ReplicationPadNd(Cell):
    _sides = 2

    def __init__(self, padding):
        super().__init__()
        cell = type(self).__name__
        if _is_int(padding):
            padding = (padding,) * self._sides
        _check_tuple(padding, cell, False)
        self.name = cell
        self.padding = padding
        self.padv3 = ops.PadV3(mode="edge")

    def construct(self, x):
        x = _tensor(x, self.name)
        if x.ndim == self._sides // 2 + 1:  # no batch axis: pad as a batch of one
            return ops.squeeze(self.padv3(ops.expand_dims(x, 0), self.padding, None), 0)
        return self.padv3(x, self.padding, None)


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last axis of ``(C, W)`` or ``(N, C, W)`` inputs by repeating the edge element:
    ``padding`` is an int or ``(left, right)``.

    Raises
    ------
    TypeError
        ``padding`` neither int nor tuple, or holding non-ints.
    ValueError
        An odd-length tuple; when called, an input of the wrong rank.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> print(nn.ReplicationPad1d(1)(ms.Tensor(np.array([[0.0, 1.0]], np.float32))))
    [[0. 0. 1. 1.]]
    """


class ReplicationPad2d(_ReplicationPadNd):
    """Edge padding of the last two axes of ``(C, H, W)`` or ``(N, C, H, W)`` inputs.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.ReplicationPad2d((1, 0, 0, 2))(ms.ops.ones((1, 2, 2))).shape
    (1, 4, 3)
    """

    _sides = 4


class ReplicationPad3d(_ReplicationPadNd):
    """Edge padding of the last three axes of ``(C, D, H, W)`` or ``(N, C, D, H, W)`` inputs.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> nn.ReplicationPad3d(1)(ms.ops.ones((1, 1, 1, 1))).shape
    (1, 3, 3, 3)
    """

    _sides = 6


class Pad(Cell):
    """Pad with one ``(before, after)`` pair per axis, from the first axis.

    Parameters
    ----------
    paddings : tuple of pairs
        At most 4 pairs; axes without a pair are not padded.
    mode : {'CONSTANT', 'REFLECT', 'SYMMETRIC'}
        Zeros; a reflection without the edge element; a reflection with it.

    Raises
    ------
    TypeError
        ``paddings`` not a tuple.
    ValueError
        An unknown ``mode``, an item that is not a pair, more than 4 pairs.

    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> x = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    >>> print(nn.Pad(((0, 0), (1, 1)), mode="SYMMETRIC")(x))
    [[1. 1. 2. 3. 3.]]
    """

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if not isinstance(mode, str) or mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', the 'mode' must be one of ['CONSTANT', 'REFLECT', 'SYMMETRIC'], but got "
                             f"{mode!r}.")
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' must be tuple, but got {type(paddings).__name__}.")
        for item in paddings:
            if len(item) != 2:
                raise ValueError(f"For 'Pad', the dimension of 'paddings' must be (n, 2), but got {paddings}.")
        if len(paddings) > 4:
            raise ValueError(f"For 'Pad', only 'paddings' up to 4 dims is supported, but got {len(paddings)}.")
        self.mode = mode
        if mode == "CONSTANT":
            self.paddings = paddings
            self.pad = ops.Pad(paddings)
        else:
            self.paddings = Tensor(np.array(paddings), dtype=_dt.int64)
            self.pad = ops.MirrorPad(mode=mode)

    def construct(self, x):
        if self.mode == "CONSTANT":
            return self.pad(x)
        return self.pad(x, self.paddings)
