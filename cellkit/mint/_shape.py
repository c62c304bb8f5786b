"""``mint``'s joining, splitting, reshaping and indexing functions, spelled with ``dim``.

>>> import cellkit as ms
>>> from cellkit import mint
>>> x = ms.Tensor([[1, 2, 3], [4, 5, 6]])
>>> print(mint.cat((x, x), dim=1).shape, mint.transpose(x, 0, 1).shape, mint.narrow(x, 1, 1, 2))
(2, 6) (3, 2) [[2 3]
 [5 6]]
>>> print(mint.gather(x, 1, ms.Tensor([[2, 0], [1, 1]])))
[[3 1]
 [5 5]]
"""
from __future__ import annotations

from .. import ops as _ops
from ..tensor import Tensor

__all__ = ["cat", "concat", "stack", "split", "chunk", "reshape", "permute", "transpose", "squeeze", "flatten",
           "narrow", "gather", "index_select", "scatter", "scatter_add", "select", "where", "take", "diag",
           "repeat_interleave", "meshgrid", "index_add", "clone", "item"]


def cat(tensors, dim=0):
    """The Tensors joined along ``dim``."""
    return _ops.cat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    """The Tensors stacked along a new dimension ``dim``."""
    return _ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``tensor`` along ``dim``: of one size each (the last may be smaller), or of the listed sizes."""
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    """``chunks`` pieces of (nearly) equal size along ``dim``."""
    return _ops.chunk(input, chunks, dim)


def reshape(input, shape):
    """The same elements in ``shape`` (one entry may be -1)."""
    return _ops.reshape(input, shape)


def permute(input, dims):
    """The dimensions in the order ``dims``."""
    return _ops.permute(input, dims)


def transpose(input, dim0, dim1):
    """Dimensions ``dim0`` and ``dim1`` swapped."""
    return _ops.swapaxes(input, dim0, dim1)


def squeeze(input, dim=None):
    """Size-1 dimensions removed (only those in ``dim`` when given)."""
    return _ops.squeeze(input, dim)


def flatten(input, start_dim=0, end_dim=-1):
    """Dimensions ``start_dim`` .. ``end_dim`` merged into one (all of them by default)."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def narrow(input, dim, start, length):
    """``length`` elements of ``input`` along ``dim`` from ``start``."""
    return _ops.narrow(input, dim, start, length)


def gather(input, dim, index):
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on): values picked along ``dim``."""
    return _ops.gather_elements(input, dim, index)


def index_select(input, dim, index):
    """The slices of ``input`` along ``dim`` at the 1-D ``index``."""
    return _ops.index_select(input, dim, index)


def scatter(input, dim, index, src):
    """A copy of ``input`` with ``src``'s values written along ``dim`` at ``index``."""
    return _ops.scatter(input, dim, index, src)


def scatter_add(input, dim, index, src):
    """A copy of ``input`` with ``src``'s values added along ``dim`` at ``index``."""
    return _ops.tensor_scatter_elements(input, index, src, dim, "add")


def select(input, dim, index):
    """The slice at ``index`` along ``dim`` (that dimension removed)."""
    from ..ops._core import describe

    if not isinstance(input, Tensor):
        raise TypeError(f"For 'select', 'input' must be a Tensor, but got {describe(input)}")
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"For 'select', 'index' must be an int, but got {describe(index)}")
    picked = _ops.narrow(input, dim, index if index >= 0 else index + input.shape[dim], 1)
    return _ops.squeeze(picked, dim)


def where(condition, input=None, other=None):
    """``input`` where ``condition`` holds, else ``other``; with ``condition`` alone, its nonzero indices."""
    if input is None and other is None:
        return _ops.nonzero(condition, as_tuple=True)
    return _ops.where(condition, input, other)


def take(input, index):
    """The elements of the flattened ``input`` at ``index``."""
    return _ops.take(input, index)


def diag(input, diagonal=0):
    """A 1-D Tensor made into a diagonal matrix, or a matrix's diagonal (``diagonal`` above/below the main one)."""
    if isinstance(input, Tensor) and input.ndim == 2:
        return _ops.diagonal(input, diagonal)
    return _ops.diag_embed(input, diagonal) if diagonal else _ops.diag(input)


def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    """Each element repeated ``repeats`` times along ``dim`` (over the flattened Tensor when None)."""
    return _ops.repeat_interleave(input, repeats, dim)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D Tensors (``indexing`` ``'ij'`` by default, or ``'xy'``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return _ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def index_add(input, dim, index, source, *, alpha=1):
    """A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim``."""
    scaled = source if alpha == 1 else _ops.mul(source, alpha)
    return _index_add(input, dim, index, scaled)


def _index_add(input, dim, index, source):
    from ..ops._core import describe

    if not isinstance(input, Tensor) or not isinstance(index, Tensor) or not isinstance(source, Tensor):
        raise TypeError(f"For 'index_add', 'input', 'index' and 'source' must be Tensors, but got "
                        f"{describe(input)}, {describe(index)}, {describe(source)}")
    # A one-hot matrix (len(index), size) sends each source slice to its row: a matmul, so gradients follow.
    dim = dim % input.ndim
    onehot = _ops.one_hot(index, input.shape[dim], _ops.ones((), source.dtype), _ops.zeros((), source.dtype))
    moved = _ops.moveaxis(source, dim, -1)
    added = _ops.matmul(moved, onehot)
    return _ops.add(input, _ops.moveaxis(added, -1, dim))


def clone(input):
    """A copy of ``input`` that shares no memory with it (gradients pass through)."""
    from ..ops._core import describe

    if not isinstance(input, Tensor):
        raise TypeError(f"For 'clone', 'input' must be a Tensor, but got {describe(input)}")
    return _ops.deepcopy(input)


def item(input):
    """The one element of ``input`` as a Python number."""
    from ..ops._core import describe

    if not isinstance(input, Tensor):
        raise TypeError(f"For 'item', 'input' must be a Tensor, but got {describe(input)}")
    return input.item()
