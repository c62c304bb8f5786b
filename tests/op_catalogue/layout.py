"""Shape and layout: reshapes and transposes, joining and splitting, diagonals, flips, padding, windows.

Every op here moves values without changing them, so each gets a float sample differentiated
to second order, an int (or bool) sample where MindSpore accepts one, and its Tensor-method and
Primitive aliases.  Entries that ``ops.<name>(...)`` cannot reach (Primitives with no function,
Tensor-only methods and overloads) are in ``CALLS`` (see ``_calls.py``).
"""
import numpy as np

from . import Arr, Bad, OpInfo, Sample
from ._calls import CallInfo, split_wrong_gradients

F = Arr((3, 4))
F6 = Arr((2, 3))
I64 = "int64"
I32 = "int32"
INT = Arr((2, 3), I64, -5, 5)


def _i(values, dtype=I64):
    return np.asarray(values, dtype=dtype)


def _np_pad_last(x, padding, mode="constant", value=None):
    widths = [(0, 0)] * x.ndim
    for i in range(len(padding) // 2):
        widths[x.ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    crop = tuple(slice(max(-b, 0), d - max(-a, 0)) for (b, a), d in zip(widths, x.shape))
    x = x[crop]
    widths = [(max(b, 0), max(a, 0)) for b, a in widths]
    if mode == "constant":
        return np.pad(x, widths, constant_values=0 if value is None else value)
    return np.pad(x, widths, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])


def _tensor_split_ref(x, sections, axis=0):
    return tuple(np.array_split(x, sections, axis=axis))


def _diag_embed_ref(x, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    i = np.arange(x.shape[-1])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., rows, cols] = x
    return np.moveaxis(out, (-2, -1), (dim1 % (x.ndim + 1), dim2 % (x.ndim + 1)))


def _diagonal_scatter_ref(x, src, offset=0, dim1=0, dim2=1):
    out = x.copy()
    view = np.moveaxis(out, (dim1, dim2), (-2, -1))
    n = np.diagonal(view, offset, -2, -1).shape[-1]
    i = np.arange(n)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    view[..., rows, cols] = src
    return out


def _reverse_sequence_ref(x, lengths, seq_dim, batch_dim=0):
    out = x.copy()
    for b, n in enumerate(lengths):
        index = [slice(None)] * x.ndim
        index[batch_dim] = b
        index[seq_dim] = slice(0, n)
        part = x[tuple(index)]
        out[tuple(index)] = np.flip(part, seq_dim - (1 if batch_dim < seq_dim else 0))
    return out


def _unfold_ref(x, kernel_size, dilation=1, padding=0, stride=1):
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = map(pair, (kernel_size, dilation, padding, stride))
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    cols = np.zeros((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i * dh:i * dh + sh * oh:sh, j * dw:j * dw + sw * ow:sw]
    return cols.reshape(n, c * kh * kw, oh * ow)


def _space_to_batch_ref(x, block, paddings):
    m = len(paddings)
    block = (block,) * m if isinstance(block, int) else tuple(block)
    xp = np.pad(x, [(0, 0)] * (x.ndim - m) + [tuple(p) for p in paddings])
    n = x.shape[0]
    lead = xp.shape[1:x.ndim - m]
    spatial = xp.shape[x.ndim - m:]
    split = xp.reshape((n,) + lead + sum(((s // b, b) for s, b in zip(spatial, block)), ()))
    k = len(lead)
    perm = [2 + k + 2 * i for i in range(m)] + [0] + list(range(1, 1 + k)) + [1 + k + 2 * i for i in range(m)]
    return split.transpose(perm).reshape((n * int(np.prod(block)),) + lead + tuple(s // b for s, b in
                                                                                   zip(spatial, block)))


def _strided_ref(x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(b)
        else:
            key.append(slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return x[tuple(key)]


def _matrix_diag_part_ref(x, k, padding_value, align="RIGHT_LEFT"):
    k = np.atleast_1d(k)
    k0, k1 = int(k[0]), int(k[-1])
    rows, cols = x.shape[-2:]
    lengths = {d: min(rows + min(0, d), cols - max(0, d)) for d in range(k0, k1 + 1)}
    width = max(lengths.values())
    out = np.full(x.shape[:-2] + (k1 - k0 + 1, width), padding_value, x.dtype)
    for slot, d in enumerate(range(k1, k0 - 1, -1)):
        diag = np.diagonal(x, d, -2, -1)
        side = align.split("_")[0 if d >= 0 else 1]
        start = width - lengths[d] if side == "RIGHT" else 0
        out[..., slot, start:start + lengths[d]] = diag
    return out[..., 0, :] if k0 == k1 else out


_NO_ROLL = ("MindSpore 2.10's CPU build has no Roll kernel (RuntimeError: The kernel Roll unregistered); its docs "
            "list Ascend and GPU only")
_NO_REPEAT = "MindSpore 2.10 (CPU) raises RuntimeError \"'repeat' is not supported on this device\""


OPS = [
    # -- existing shape ops -----------------------------------------------------------------------
    OpInfo("reshape", (
        Sample((F6, (3, 2)), grad=(0,), label="tuple"),
        Sample((F, (-1, 3)), grad=(0,), label="inferred"),
        Sample((Arr((), low=0.5), (1, 1)), grad=(0,), label="zero_d"),
        Sample((INT, [3, 2]), label="int_list"),
    ), ref=lambda x, shape: np.reshape(x, shape), method="reshape",
        primitive=lambda ops, x, shape: ops.Reshape()(x, shape),
        bad=(Bad("size", (F, (5, 2))), Bad("two_inferred", (F, (-1, -1))))),
    OpInfo("transpose", (
        Sample((F, (1, 0)), grad=(0,), label="2d"),
        Sample((Arr((2, 3, 2)), (2, 0, 1)), grad=(0,), label="3d"),
        Sample((INT, (-1, 0)), label="negative_int"),
    ), ref=lambda x, perm: np.transpose(x, perm), method="transpose",
        primitive=lambda ops, x, perm: ops.Transpose()(x, perm),
        bad=(Bad("not_permutation", (F, (0, 0))), Bad("length", (F, (1, 0, 2))))),
    OpInfo("permute", (
        Sample((F6, (1, 0)), grad=(0,), label="2d"),
        Sample((Arr((2, 3, 2)), (1, 2, 0)), grad=(0,), label="3d"),
        Sample((Arr((2, 3), "bool"), (1, 0)), label="bool"),
    ), ref=lambda x, perm: np.transpose(x, perm), method="permute"),
    OpInfo("swapaxes", (
        Sample((Arr((2, 3, 2)), 0, 2), grad=(0,), label="3d"),
        Sample((INT, -1, 0), label="int"),
    ), ref=np.swapaxes, method="swapaxes", bad=(Bad("axis", (F, 0, 5)),)),
    OpInfo("expand_dims", (
        Sample((F6, 1), grad=(0,), label="middle"),
        Sample((F6, -1), grad=(0,), label="last"),
        Sample((Arr((), I32, 0, 3), 0), label="zero_d_int"),
    ), ref=np.expand_dims, method="expand_dims", primitive=lambda ops, x, axis: ops.ExpandDims()(x, axis),
        bad=(Bad("axis", (F6, 4)),)),
    OpInfo("unsqueeze", (Sample((F6, 0), grad=(0,)), Sample((INT, 2), label="int")),
           ref=np.expand_dims, method="unsqueeze"),
    OpInfo("squeeze", (
        Sample((Arr((2, 1, 3, 1)),), grad=(0,), label="all"),
        Sample((Arr((2, 1, 3, 1)), 1), grad=(0,), label="one"),
        Sample((Arr((1, 3, 1), I64, 0, 5), (0, 2)), label="tuple_int"),
    ), ref=lambda x, axis=None: np.squeeze(x, axis), method="squeeze",
        primitive=lambda ops, x, axis=None: ops.Squeeze(() if axis is None else axis)(x)),
    OpInfo("concat", (
        Sample(([F6, Arr((1, 3))],), label="axis0"),
        Sample(((F6, Arr((2, 2))), 1), label="tuple_axis1"),
        Sample(([INT, INT], -1), label="int"),
    ), ref=lambda ts, axis=0: np.concatenate(ts, axis), primitive=lambda ops, ts, axis=0: ops.Concat(axis)(ts),
        bad=(Bad("shapes", ([F6, Arr((3, 2))],)), Bad("empty", ([],)))),
    OpInfo("cat", (Sample(([F6, F6], 1)), Sample(([INT, INT],), label="int")),
           ref=lambda ts, axis=0: np.concatenate(ts, axis)),
    OpInfo("stack", (
        Sample(([F6, F6],), label="axis0"),
        Sample(((F6, F6, F6), -1), label="last"),
        Sample(([Arr((), I32, 0, 3), Arr((), I32, 0, 3)],), label="zero_d_int"),
    ), ref=lambda ts, axis=0: np.stack(ts, axis), primitive=lambda ops, ts, axis=0: ops.Stack(axis)(ts),
        bad=(Bad("shapes", ([F6, Arr((3, 2))],)),)),
    OpInfo("split", (
        Sample((F, 2, 1), grad=(0,), label="size"),
        Sample((F, [1, 2], 0), grad=(0,), label="sections"),
        Sample((Arr((5,), I64, 0, 9), 2), label="uneven_int"),
    ), method="split", bad=(Bad("sections_sum", (F, [1, 1], 0)),)),
    OpInfo("flatten", (
        Sample((Arr((2, 3, 2)),), grad=(0,), label="default"),
        Sample((Arr((2, 3, 2)),), {"start_dim": 0, "end_dim": 1}, grad=(0,), label="range"),
        Sample((Arr((2, 3), I32, 0, 5), "F"), label="fortran_int"),
    ), primitive=lambda ops, x, order="C", **k: ops.Flatten()(x) if not k and order == "C" else ops.flatten(
        x, order, **k)),
    OpInfo("tile", (
        Sample((F6, (2, 1)), grad=(0,), label="same_rank"),
        Sample((Arr((3,)), (2, 2)), grad=(0,), label="more_dims"),
        Sample((INT, (1, 2)), label="int"),
    ), ref=np.tile, method="tile", primitive=lambda ops, x, dims: ops.Tile()(x, dims)),
    OpInfo("broadcast_to", (
        Sample((Arr((3,)), (2, 3)), grad=(0,), label="leading"),
        Sample((Arr((2, 1)), (2, -1, 3)), grad=(0,), label="keep_axis"),
        Sample((Arr((1,), "bool"), (3,)), label="bool"),
    ), method="broadcast_to", primitive=lambda ops, x, shape: ops.BroadcastTo(shape)(x),
        bad=(Bad("shape", (F6, (3, 3))),)),
    OpInfo("narrow", (
        Sample((F, 1, 1, 2), grad=(0,), label="axis1"),
        Sample((INT, 1, 0, 3), label="int"),
    ), ref=lambda x, axis, start, length: np.take(x, np.arange(start % x.shape[axis],
                                                               start % x.shape[axis] + length), axis),
        method="narrow", bad=(Bad("length", (F, 1, 2, 3)),)),
    OpInfo("unstack", (
        Sample((F6,), grad=(0,), label="axis0"),
        Sample((F6, 1), grad=(0,), label="axis1"),
        Sample((INT, -1), label="int"),
    ), ref=lambda x, axis=0: tuple(np.moveaxis(x, axis, 0)), primitive=lambda ops, x, axis=0: ops.Unstack(axis)(x),
        bad=(Bad("zero_d", (Arr(()),)),)),
    OpInfo("chunk", (
        Sample((F, 2, 1), grad=(0,), label="even"),
        Sample((Arr((5, 2)), 3), grad=(0,), label="uneven"),
        Sample((INT, 3, 1), label="int"),
    ), method="chunk", bad=(Bad("zero_chunks", (F, 0)),)),
    # -- at least n dimensions, stacking ----------------------------------------------------------
    OpInfo("atleast_1d", (
        Sample((Arr((), low=0.5),), grad=(0,), label="zero_d"),
        Sample(([Arr(()), Arr((2,)), F6],), label="list"),
    ), ref=lambda x: np.atleast_1d(*x) if isinstance(x, list) else np.atleast_1d(x),
        bad=(Bad("int", (3,)),)),
    OpInfo("atleast_2d", (
        Sample((Arr((3,)),), grad=(0,), label="vector"),
        Sample(((Arr(()), Arr((2,), I64, 0, 3), F6),), label="tuple"),
    ), ref=lambda x: np.atleast_2d(*x) if isinstance(x, tuple) else np.atleast_2d(x)),
    OpInfo("atleast_3d", (
        Sample((Arr((3,)),), grad=(0,), label="vector"),
        Sample((F6,), grad=(0,), label="matrix"),
        Sample(([Arr(()), Arr((2, 2, 2), I32, 0, 3)],), label="list"),
    ), ref=lambda x: np.atleast_3d(*x) if isinstance(x, list) else np.atleast_3d(x)),
    OpInfo("hstack", (
        Sample(([Arr((2,)), Arr((3,))],), label="vectors"),
        Sample(((Arr((2, 1)), F6),), label="matrices"),
        Sample(([Arr((2,), I64, 0, 5), Arr((1,), I64, 0, 5)],), label="int"),
    ), ref=lambda ts: np.hstack(ts), bad=(Bad("tensor", (F6,)),)),
    OpInfo("vstack", (
        Sample(([Arr((3,)), Arr((3,))],), label="vectors"),
        Sample(([Arr(()), Arr(())],), label="zero_d"),
        Sample(([INT, Arr((1, 3), I64, 0, 5)],), label="int"),
    ), ref=lambda ts: np.vstack(ts)),
    OpInfo("row_stack", (Sample(([Arr((3,)), F6],), label="mixed_rank"),),
           ref=lambda ts: np.vstack(ts)),
    OpInfo("dstack", (
        Sample(([Arr((2,)), Arr((2,))],), label="vectors"),
        Sample(([Arr((1, 2)), Arr((1, 2))],), label="matrices"),
    ), ref=lambda ts: np.dstack(ts)),
    OpInfo("column_stack", (
        Sample(([Arr((2,)), Arr((2, 1))],), label="vector_and_column"),
        Sample(([Arr(()), Arr(())],), label="zero_d"),
        Sample(([Arr((2,), I64, 0, 5), Arr((2, 2), I64, 0, 5)],), label="int"),
    ), ref=lambda ts: np.column_stack(ts) if ts[0].ndim else np.asarray(ts).reshape(1, -1)),
    OpInfo("block_diag", (
        Sample((Arr((1, 2)), Arr((2,)), Arr(())), grad=(0, 1, 2), label="mixed_rank"),
        Sample((Arr((2, 2)), Arr((1, 3))), grad=(0, 1), label="matrices"),
        Sample((Arr((1, 2), I64, 0, 5), Arr((2, 1), I64, 0, 5)), label="int"),
    ), bad=(Bad("rank", (Arr((2, 2, 2)),)), Bad("empty", ()))),
    OpInfo("cartesian_prod", (
        Sample((Arr((2,)), Arr((3,))), grad=(0, 1), label="two"),
        Sample((Arr((2,), I64, 0, 5),), label="one_int"),
        Sample((Arr((2,), I32, 0, 5), Arr((2,), I32, 0, 5), Arr((2,), I32, 0, 5)), label="three_int32"),
    ), bad=(Bad("dtypes", (Arr((2,), I64, 0, 3), Arr((2,)))),)),
    # -- splitting --------------------------------------------------------------------------------
    OpInfo("tensor_split", (
        Sample((F, 3, 1), grad=(0,), label="sections"),
        Sample((F, [1, 5], 1), grad=(0,), label="indices_past_end"),
        Sample((F, (2, 1), 1), grad=(0,), label="indices_decreasing"),
        Sample((Arr((5,), I64, 0, 9), 2), label="uneven_int"),
        Sample((F, [-1], 1), grad=(0,), label="negative_index"),
    ), method="tensor_split", bad=(Bad("zero", (F, 0, 1)), Bad("tensor", (F, np.asarray([1, 2]), 1)))),
    OpInfo("hsplit", (Sample((F, 2), grad=(0,), label="sections"), Sample((F, [1, 3]), grad=(0,), label="indices")),
           method="hsplit", bad=(Bad("one_d", (Arr((4,)), 2)),)),
    OpInfo("vsplit", (Sample((F, 3), grad=(0,), label="sections"), Sample((Arr((4,)), 2), grad=(0,), label="vector")),
           method="vsplit"),
    OpInfo("dsplit", (Sample((Arr((1, 2, 4)), 2), grad=(0,), label="sections"),
                      Sample((Arr((1, 2, 4)), [1]), grad=(0,), label="indices")),
           method="dsplit", bad=(Bad("two_d", (F, 2)),)),
    OpInfo("unbind", (Sample((F6, 1), grad=(0,), label="dim1"), Sample((INT,), label="int")),
           ref=lambda x, dim=0: tuple(np.moveaxis(x, dim, 0)), method="unbind",
           bad=(Bad("zero_d", (Arr(()),)),)),
    # -- diagonals --------------------------------------------------------------------------------
    OpInfo("diag", (
        Sample((Arr((3,)),), grad=(0,), label="vector"),
        Sample((Arr((2, 2)),), grad=(0,), label="matrix_rank4"),
        Sample((Arr((3,), I32, -5, 5),), label="int32"),
    ), method="diag", bad=(Bad("zero_d", (Arr(()),)), Bad("bool", (Arr((2,), "bool"),)))),
    OpInfo("diag_embed", (
        Sample((F6,), grad=(0,), label="default"),
        Sample((Arr((2,)), 1), grad=(0,), label="offset"),
        Sample((Arr((2, 2)), -1, 0, 2), grad=(0,), label="dims"),
        Sample((Arr((2, 2), I64, -5, 5),), label="int"),
    ), ref=_diag_embed_ref, bad=(Bad("same_dims", (F6, 0, 1, 1)),)),
    OpInfo("diagflat", (
        Sample((Arr((2, 2)), 1), grad=(0,), label="matrix_offset"),
        Sample((Arr((), low=0.5),), grad=(0,), label="zero_d"),
        Sample((Arr((2,), I64, -5, 5), -2), label="int_below"),
    ), ref=lambda x, offset=0: np.diagflat(x, offset), method="diagflat"),
    OpInfo("diagonal", (
        Sample((F,), grad=(0,), label="main"),
        Sample((F, 1), grad=(0,), label="above"),
        Sample((F, -2), grad=(0,), label="below"),
        Sample((Arr((2, 3, 2)), 1, 2, 0), grad=(0,), label="3d"),
        Sample((F, 9), label="empty"),
        Sample((Arr((3, 3), I32, -5, 5),), label="int32"),
    ), ref=lambda x, offset=0, dim1=0, dim2=1: np.diagonal(x, offset, dim1, dim2), method="diagonal",
        bad=(Bad("vector", (Arr((2,)),)), Bad("same_dims", (F, 0, 1, 1)))),
    OpInfo("diagonal_scatter", (
        Sample((F, Arr((3,))), grad=(0, 1), label="main"),
        Sample((F, Arr((3,)), 1), grad=(0, 1), label="above"),
        Sample((Arr((2, 3, 3)), Arr((3, 2)), 0, 2, 0), grad=(0, 1), label="3d"),
        Sample((Arr((3, 3), I32, -5, 5), Arr((2,), I32, -5, 5), -1), label="int32"),
    ), ref=_diagonal_scatter_ref, method="diagonal_scatter", bad=(Bad("src_shape", (F, Arr((2,)))),)),
    # -- flips, rotations, moves ------------------------------------------------------------------
    OpInfo("flip", (
        Sample((F, (0, 1)), grad=(0,), label="both"),
        Sample((F, [-1]), grad=(0,), label="list_negative"),
        Sample((Arr((2,), "bool"), (0,)), label="bool"),
    ), ref=lambda x, dims: np.flip(x, tuple(dims)), method="flip",
        bad=(Bad("int_dims", (F, 1)), Bad("duplicate", (F, (1, 1))), Bad("zero_d", (Arr(()), (0,))))),
    OpInfo("fliplr", (Sample((F,), grad=(0,)), Sample((INT,), label="int")), ref=np.fliplr, method="fliplr",
           bad=(Bad("vector", (Arr((2,)),)),)),
    OpInfo("flipud", (Sample((F,), grad=(0,)), Sample((Arr((3,)),), grad=(0,), label="vector")), ref=np.flipud,
           method="flipud"),
    OpInfo("reverse", (Sample((F, [1]), grad=(0,), label="one"), Sample((INT, (0, 1)), label="int")),
           ref=lambda x, axis: np.flip(x, tuple(axis)), method="reverse"),
    OpInfo("rot90", (
        Sample((F, 1, (0, 1)), grad=(0,), label="once"),
        Sample((F, -1, [0, 1]), grad=(0,), label="back"),
        Sample((F, 2, (1, 0)), grad=(0,), label="twice_swapped"),
        Sample((Arr((2, 3, 2)), 3, (2, 0)), grad=(0,), label="3d"),
    ), ref=lambda x, k, dims: np.rot90(x, k, dims), method="rot90",
        bad=(Bad("same_dims", (F, 1, (0, 0))), Bad("vector", (Arr((2,)), 1, (0, 1))))),
    OpInfo("roll", (
        Sample((F, 1), label="flat"),
        Sample((F, (1, -1), (0, 1)), label="two_axes"),
        Sample((F, 5, 1), label="beyond_length"),
    ), ref=lambda x, shifts, dims=None: np.roll(x, shifts, dims), method="roll",
        mindspore_wrong={label: _NO_ROLL for label in ("flat", "two_axes", "beyond_length")}),
    OpInfo("moveaxis", (
        Sample((Arr((2, 3, 2)), 0, -1), grad=(0,), label="int"),
        Sample((Arr((2, 3, 2)), (0, 1), (2, 0)), grad=(0,), label="tuple"),
    ), ref=np.moveaxis, method="moveaxis", bad=(Bad("lengths", (Arr((2, 3, 2)), (0, 1), (2,))),)),
    OpInfo("movedim", (Sample((Arr((2, 3, 2)), 2, 0), grad=(0,)),), ref=np.moveaxis, method="movedim"),
    OpInfo("swapdims", (Sample((Arr((2, 3, 2)), 0, 2), grad=(0,)), Sample((INT, 1, 0), label="int")),
           ref=np.swapaxes, method="swapdims"),
    OpInfo("t", (Sample((F,), grad=(0,), label="matrix"), Sample((Arr((3,)),), grad=(0,), label="vector"),
                 Sample((Arr(()),), label="zero_d")),
           ref=lambda x: x.T, method="t"),
    OpInfo("ravel", (Sample((F6,), grad=(0,)), Sample((Arr(()),), label="zero_d"), Sample((INT,), label="int")),
           ref=np.ravel, method="ravel"),
    # -- repeating --------------------------------------------------------------------------------
    OpInfo("repeat_elements", (
        Sample((F6, 2, 1), grad=(0,), label="axis1"),
        Sample((Arr((2,), I64, 0, 5), 2), label="int"),
        Sample((Arr((3,), I32, 0, 5), 2), label="int32"),
    ), ref=lambda x, rep, axis=0: np.repeat(x, rep, axis), bad=(Bad("bool", (Arr((2,), "bool"), 2)),)),
    OpInfo("repeat_interleave", (
        Sample((F6, 2), grad=(0,), label="flat"),
        Sample((F6, 2, 1), grad=(0,), label="axis1"),
        Sample((F6, _i([1, 0]), 0), grad=(0,), label="tensor_counts"),
        Sample((F6, [1, 0, 2], 1), grad=(0,), label="list_counts"),
        Sample((F6, np.asarray(2), 0), grad=(0,), label="tensor_0d"),
        Sample((Arr((2,), I32, 0, 5), 2), label="int32"),
    ), ref=lambda x, repeats, axis=None: np.repeat(x, repeats, axis), method="repeat_interleave",
        bad=(Bad("counts_length", (F6, (1, 0, 2, 1))),)),
    OpInfo("reverse_sequence", (
        Sample((F, _i([1, 2, 3]), 1), grad=(0,), label="seq1"),
        Sample((F, _i([1, 2, 3, 1], I32), 0, 1), grad=(0,), label="batch1"),
        Sample((F, _i([0, 4, 3]), 1), grad=(0,), label="zero_and_full"),
    ), ref=_reverse_sequence_ref, method="reverse_sequence",
        primitive=lambda ops, x, lengths, seq_dim, batch_dim=0: ops.ReverseSequence(seq_dim, batch_dim)(x, lengths),
        bad=(Bad("too_long", (F, _i([1, 2, 5]), 1)),)),
    # -- selecting and slicing --------------------------------------------------------------------
    OpInfo("select", (
        Sample((Arr((3, 4), "bool"), F, Arr((3, 4))), grad=(1, 2), label="tensors"),
        Sample((Arr((4,), "bool"), F, 0.5), grad=(1,), label="broadcast_scalar"),
        Sample((Arr((2,), "bool"), 1, 2), label="two_ints"),
        Sample((Arr((2,), "bool"), Arr((2,), I64, 0, 5), Arr((2,))), label="int_float"),
    ), ref=np.where),
    OpInfo("select_scatter", (
        Sample((F, Arr((3,)), 1, 0), grad=(0, 1), label="column"),
        Sample((F, Arr((4,)), 0, -1), grad=(0, 1), label="last_row"),
    ), method="select_scatter", bad=(Bad("dtype", (F, Arr((4,), I64, 0, 5), 0, 1)),)),
    OpInfo("slice", (
        Sample((F, (1, 1), (2, 2)), grad=(0,), label="block"),
        Sample((F, [0, 1], [-1, 2]), grad=(0,), label="to_end"),
        Sample((F, np.asarray([1, 1]), np.asarray([2, 2])), grad=(0,), label="tensors"),
        Sample((INT, (0, 1), (1, 2)), label="int"),
    ), primitive=lambda ops, x, begin, size: ops.Slice()(x, begin, size),
        bad=(Bad("too_big", (F, (1, 1), (3, 2))),)),
    OpInfo("tensor_slice", (Sample((F, (1, 1), (2, 2)), grad=(0,)),)),
    OpInfo("slice_scatter", (
        Sample((F, Arr((3, 2)), 1, 0, 4, 2), grad=(0, 1), label="strided"),
        Sample((F, Arr((1, 4)), 0, 1, 2), grad=(0, 1), label="row"),
        Sample((F, Arr((2, 4))), {"start": -2}, grad=(0, 1), label="negative_start"),
    ), method="slice_scatter", bad=(Bad("dtype", (F, Arr((2, 4), I32, 0, 3)), {"start": 1}),)),
    OpInfo("strided_slice", (
        Sample((Arr((2, 3, 2)), (1, 0, 0), (2, 2, 2), (1, 1, 1)), grad=(0,), label="plain"),
        Sample((Arr((2, 3, 2)), (0, 2, 1), (2, 0, 0), (1, -1, -1)), grad=(0,), label="negative_strides"),
        Sample((Arr((2, 3, 2)), (1, 0, 0), (2, 1, 2), (1, 1, 1)), {"begin_mask": 5}, grad=(0,), label="begin_mask"),
        Sample((Arr((2, 3, 2)), (1, 0, 0), (2, 1, 2), (1, 1, 1)), {"end_mask": 6}, grad=(0,), label="end_mask"),
        Sample((Arr((2, 3, 2)), (1, 0, 0), (2, 1, 2), (1, 1, 1)), {"shrink_axis_mask": 1}, grad=(0,),
               label="shrink"),
        Sample((Arr((2, 3, 2)), (1, 0, 1), (2, 1, 2), (1, 1, 1)), {"ellipsis_mask": 2}, grad=(0,),
               label="ellipsis"),
        Sample((Arr((2, 3, 2)), (1,), (2,), (1,)), grad=(0,), label="short"),
        Sample((Arr((2, 3, 2)), (-1, 0, 0), (5, 10, 10), (1, 1, 1)), grad=(0,), label="clamped"),
        Sample((Arr((2, 3, 4)), (1, 0, 0), (2, 1, 3), (1, 1, 1)), {"new_axis_mask": 2}, label="new_axis"),
    ), ref=_strided_ref,
        mindspore_wrong={"new_axis": "MindSpore 2.10 (CPU) returns the right shape (1, 1, 3, 4) filled with the "
                                     "wrong elements (x[1:2, None, 0:3] is meant; it gives [[12, 13, 14, 16], ..., "
                                     "[22, 0, 0, 0]])"},
        bad=(Bad("zero_stride", (F, (0, 0), (2, 2), (1, 0))),)),
    OpInfo("tril", (
        Sample((F,), grad=(0,), label="main"),
        Sample((F, 1), grad=(0,), label="above"),
        Sample((Arr((2, 2, 3), I32, -3, 3), -1), label="batched_int32"),
        Sample((Arr((2, 2), "bool"),), label="bool"),
    ), ref=lambda x, diagonal=0: np.tril(x, diagonal), method="tril",
        primitive=lambda ops, x, diagonal=0: ops.Tril(diagonal)(x),
        bad=(Bad("vector", (Arr((2,)),)), Bad("float_diagonal", (F, 1.0)))),
    OpInfo("triu", (
        Sample((F,), grad=(0,), label="main"),
        Sample((F, -1), grad=(0,), label="below"),
        Sample((Arr((2, 3, 2), I64, -3, 3), 1), label="batched_int"),
    ), ref=lambda x, diagonal=0: np.triu(x, diagonal), method="triu"),
    OpInfo("meshgrid", (
        Sample((Arr((2,)), Arr((3,))), grad=(0, 1), label="xy"),
        Sample((Arr((2,)), Arr((3,))), {"indexing": "ij"}, grad=(0, 1), label="ij"),
        Sample((Arr((2,)), Arr((1,)), Arr((2,))), grad=(0, 1, 2), label="three"),
        Sample((Arr((2,), I64, 0, 5),), label="one_int"),
    ), ref=lambda *xs, indexing="xy": tuple(np.meshgrid(*xs, indexing=indexing)),
        bad=(Bad("indexing", (Arr((2,)), Arr((3,))), {"indexing": "x"}), Bad("dtypes", (Arr((2,), I64, 0, 3),
                                                                                         Arr((2,)))))),
    OpInfo("combinations", (
        Sample((Arr((4,)),), grad=(0,), label="pairs"),
        Sample((Arr((4,), I64, 0, 9), 3), label="triples_int"),
        Sample((Arr((3,)), 2, True), grad=(0,), label="with_replacement"),
        Sample((Arr((2,)), 3), label="too_few"),
    ), bad=(Bad("matrix", (F6,)),)),
    OpInfo("vander", (
        Sample((Arr((3,)),), grad=(0,), label="square"),
        Sample((Arr((3,), I64, -3, 3), 2), label="int_two_columns"),
        Sample((Arr((3,)), 4), grad=(0,), label="wide"),
    ), ref=lambda x, N=None: np.vander(x, N), bad=(Bad("zero", (Arr((3,)), 0)), Bad("matrix", (F6,)))),
    # -- windows ----------------------------------------------------------------------------------
    OpInfo("unfold", (
        Sample((Arr((1, 1, 3, 4)), 2), grad=(0,), label="kernel2"),
        Sample((Arr((1, 2, 2, 3)), (2, 3)), {"padding": 1, "stride": (2, 1)}, grad=(0,), label="padded_strided"),
        Sample((Arr((1, 1, 3, 4)), 2), {"dilation": (1, 2), "padding": (0, 1)}, grad=(0,), label="dilated"),
        Sample((Arr((1, 1, 3, 3), I32, -3, 3), 2), label="int32"),
    ), ref=_unfold_ref, method="unfold", bad=(Bad("three_d", (Arr((2, 3, 4)), 2)),)),
    OpInfo("fold", (
        Sample((Arr((1, 4, 6)), _i([3, 4], I32), 2), grad=(0,), label="kernel2"),
        Sample((Arr((1, 4, 4)), _i([3, 4], I32), 2), {"padding": 1, "stride": (2, 3)}, grad=(0,),
               label="padded_strided"),
    ), method="fold", bad=(Bad("tuple_size", (Arr((1, 4, 6)), (3, 4), 2)),
                           Bad("blocks", (Arr((1, 4, 5)), _i([3, 4], I32), 2)))),
    OpInfo("col2im", (
        Sample((Arr((1, 2, 4, 6)), _i([3, 4], I32), (2, 2), (1, 1), (0, 0), (1, 1)), grad=(0,), label="tuples"),
        Sample((Arr((1, 1, 4, 4)), _i([3, 4], I32), 2, 1, 1, (2, 3)), grad=(0,), label="padded"),
    ), method="col2im", bad=(Bad("kernel", (Arr((1, 2, 3, 6)), _i([3, 4], I32), 2, 1, 0, 1)),)),
    # -- padding ----------------------------------------------------------------------------------
    OpInfo("pad", (
        Sample((Arr((1, 2, 3)), (1, 2)), grad=(0,), label="constant"),
        Sample((Arr((1, 2, 3)), (1, 0, 0, 1)), {"value": 2.5}, grad=(0,), label="value"),
        Sample((Arr((1, 2, 3)), (-1, 1)), grad=(0,), label="crop"),
        Sample((Arr((1, 2, 3)), (2, 1)), {"mode": "reflect"}, grad=(0,), label="reflect"),
        Sample((Arr((1, 2, 3)), (1, 1, 1, 0)), {"mode": "reflect"}, grad=(0,), label="reflect_2d"),
        Sample((Arr((1, 2, 3)), (2, 1, 1, 0)), {"mode": "replicate"}, grad=(0,), label="replicate"),
        Sample((Arr((1, 2, 3)), (2, 1, 1, 0)), {"mode": "circular"}, grad=(0,), label="circular"),
        Sample((Arr((1, 1, 2, 2)), (1, 1, 1, 1)), {"mode": "reflect"}, grad=(0,), label="reflect_4d"),
        Sample((Arr((1, 1, 2, 1, 2)), (1, 0, 0, 1, 1, 0)), {"mode": "replicate"}, grad=(0,), label="replicate_5d"),
        Sample((Arr((2, 3)), [1, 1]), {"mode": "replicate"}, grad=(0,), label="replicate_2d_list"),
        Sample((Arr((2, 3)), np.asarray([1, 1])), grad=(0,), label="tensor_padding"),
        Sample((Arr((2, 2), I64, -3, 3), (1, 1)), {"value": 3}, label="int"),
        Sample((Arr((1, 2, 2)), (1, 1, 1, 1, 1, 1)), grad=(0,), label="all_axes"),
    ), ref=_np_pad_last,
        bad=(Bad("reflect_1d", (Arr((3,)), (1, 1)), {"mode": "reflect"}), Bad("odd", (F6, (1, 1, 1))),
             Bad("mode", (Arr((1, 2, 3)), (1, 1)), {"mode": "wrap"}))),
    OpInfo("mirror_pad", (
        Sample((Arr((3, 3)), _i([[1, 1], [2, 2]]), "REFLECT"), grad=(0,), label="reflect"),
        Sample((Arr((3, 3)), _i([[1, 1], [2, 2]]), "SYMMETRIC"), grad=(0,), label="symmetric"),
        Sample((Arr((3,)), _i([[1, 2]], I32), "SYMMETRIC"), grad=(0,), label="vector_int32"),
    ), ref=lambda x, p, mode: np.pad(x, p, mode=mode.lower()),
        primitive=lambda ops, x, p, mode: ops.MirrorPad(mode)(x, p),
        bad=(Bad("too_wide", (Arr((3, 3)), _i([[3, 0], [0, 0]]), "REFLECT")),)),
    # -- blocks between space and batch -----------------------------------------------------------
    OpInfo("space_to_batch_nd", (
        Sample((Arr((1, 1, 4, 2)), 2, [[0, 0], [0, 0]]), grad=(0,), label="block2"),
        Sample((Arr((1, 1, 2, 4)), (2, 1), ((1, 1), (0, 0))), grad=(0,), label="padded"),
        Sample((Arr((2, 6)), (3,), ((0, 0),)), grad=(0,), label="one_axis"),
    ), ref=_space_to_batch_ref,
        primitive=lambda ops, x, block, paddings: ops.SpaceToBatchND(
            (block,) * len(paddings) if isinstance(block, int) else block, paddings)(x),
        bad=(Bad("not_divisible", (Arr((1, 6, 1)), (3,), ((0, 0),))),)),
    OpInfo("batch_to_space_nd", (
        Sample((Arr((4, 1, 2, 1)), 2, [[0, 0], [0, 0]]), grad=(0,), label="block2"),
        Sample((Arr((4, 1, 1, 2)), (2, 2), [[1, 0], [0, 1]]), grad=(0,), label="cropped"),
    ), bad=(Bad("batch", (Arr((3, 1, 2, 2)), 2, [[0, 0], [0, 0]])),)),
    # -- matrix diagonals with alignment ----------------------------------------------------------
    OpInfo("matrix_diag", (
        Sample((Arr((3,)),), grad=(0,), label="default"),
        Sample((F6, 1), grad=(0,), label="batched_above"),
        Sample((Arr((2,)), -1, 3, 4, 9.0), grad=(0,), label="padded_rectangle"),
        Sample((Arr((2, 3)), _i([0, 1], I32), 3, 3), grad=(0,), label="band"),
        Sample((Arr((2, 3)), _i([-1, 0], I32)), {"align": "LEFT_RIGHT"}, grad=(0,), label="band_left_right"),
        Sample((Arr((2, 2)), _i([0, 1], I32), -1, -1, Arr((), low=0.5), "LEFT_LEFT"), grad=(0, 4),
               label="tensor_padding"),
    ), bad=(Bad("int64_k", (Arr((2, 3)), _i([0, 1]))), Bad("tuple_k", (Arr((2, 3)), (0, 1))))),
    OpInfo("matrix_diag_part", (
        Sample((F, _i(0, I32), np.asarray(0.0, np.float32)), grad=(0,), label="main"),
        Sample((F, _i([0, 1], I32), np.asarray(9.0, np.float32)), grad=(0,), label="band"),
        Sample((F, _i([-1, 1], I32), np.asarray(9.0, np.float32), "LEFT_RIGHT"), grad=(0,), label="band_left_right"),
        Sample((Arr((2, 2, 3)), _i([-1, 0], I32), Arr(()), "RIGHT_RIGHT"), grad=(0, 2), label="batched_tensor_pad"),
    ), ref=_matrix_diag_part_ref,
        primitive=lambda ops, x, k, pad, align="RIGHT_LEFT": ops.MatrixDiagPartV3(align)(x, k, pad),
        bad=(Bad("int_k", (F, 1, np.asarray(0.0, np.float32))), Bad("int64_k", (F, _i([0, 1]), Arr(()))),
             Bad("number_padding", (F, _i(0, I32), 0.0)))),
    # -- queries ----------------------------------------------------------------------------------
    # Python values (not Tensors): compared with MindSpore's, nothing to run on the strict device.
    OpInfo("numel", (Sample((F,),), Sample((Arr(()),), label="zero_d")), strict=False),
    OpInfo("size", (Sample((F,),),), strict=False),
    OpInfo("rank", (Sample((F,),), Sample((Arr(()),), label="zero_d")), strict=False),
    OpInfo("shape_", (Sample((F,),), Sample((Arr(()),), label="zero_d")), strict=False),
    OpInfo("dyn_shape", (Sample((F,),), Sample((Arr((2, 0, 3)),), label="empty")),
           primitive=lambda ops, x: ops.TensorShape()(x)),
    OpInfo("dtype", (Sample((F,),), Sample((INT,), label="int64"), Sample((Arr((2,), "bool"),), label="bool")),
           strict=False),
]


def _m(name):
    return lambda ms, ops, x, *a, **k: getattr(x, name)(*a, **k)


_ZERO_PADDING_GRAD = ("MindSpore's gradient for a Tensor padding value is 0 (it is the sum of the gradient over the "
                      "padded positions)")
# Ops whose gradient MindSpore 2.10 gets wrong: {name: (sample labels or None for all, how)}.
_GRAD_WRONG = {
    "strided_slice": (("negative_strides", "begin_mask", "end_mask", "ellipsis"),
                      "MindSpore's StridedSliceGrad ignores begin_mask, end_mask and ellipsis_mask (the gradient "
                      "lands where the unmasked begin/end point), and raises RuntimeError for negative strides"),
    "slice": (("to_end",), "MindSpore's SliceGrad raises RuntimeError ('the value of size can not be negative') "
                           "for a size of -1"),
    "matrix_diag": (("tensor_padding",), _ZERO_PADDING_GRAD),
    "matrix_diag_part": (("batched_tensor_pad",), _ZERO_PADDING_GRAD),
}
OPS, _TWINS = split_wrong_gradients(OPS, _GRAD_WRONG)


def _joined(name):
    """``ops.<name>(list(tensors), **kwargs)`` with the tensors as separate (differentiable) arguments."""
    return lambda ms, ops, *ts, **k: getattr(ops, name)(list(ts), **k)


CALLS = _TWINS + [
    CallInfo("concat_of_arguments", (
        Sample((F6, Arr((1, 3))), grad=(0, 1), label="axis0"),
        Sample((F6, Arr((2, 2))), {"axis": 1}, grad=(0, 1), label="axis1"),
    ), call=_joined("concat")),
    CallInfo("cat_of_arguments", (Sample((F6, F6), {"axis": -1}, grad=(0, 1), label="last"),), call=_joined("cat")),
    CallInfo("stack_of_arguments", (
        Sample((F6, F6), grad=(0, 1), label="axis0"),
        Sample((Arr((3,)), Arr((3,)), Arr((3,))), {"axis": 1}, grad=(0, 1, 2), label="axis1"),
    ), call=_joined("stack")),
    CallInfo("hstack_of_arguments", (
        Sample((Arr((2,)), Arr((3,))), grad=(0, 1), label="vectors"),
        Sample((Arr((2, 1)), F6), grad=(0, 1), label="matrices"),
    ), call=_joined("hstack")),
    CallInfo("vstack_of_arguments", (
        Sample((Arr((3,)), F6), grad=(0, 1), label="mixed"),
        Sample((Arr(()), Arr(())), grad=(0, 1), label="zero_d"),
    ), call=_joined("vstack")),
    CallInfo("row_stack_of_arguments", (Sample((Arr((3,)), F6), grad=(0, 1), label="mixed"),),
             call=_joined("row_stack")),
    CallInfo("dstack_of_arguments", (Sample((Arr((2,)), Arr((1, 2))), grad=(0, 1), label="mixed"),),
             call=_joined("dstack")),
    CallInfo("column_stack_of_arguments", (
        Sample((Arr((2,)), Arr((2, 1))), grad=(0, 1), label="vector_and_column"),
        Sample((Arr(()), Arr(())), grad=(0, 1), label="zero_d"),
    ), call=_joined("column_stack")),
    CallInfo("Split", (
        Sample((F,), {"axis": 1, "output_num": 2}, grad=(0,), label="axis1"),
        Sample((Arr((3, 2)),), {"output_num": 3}, grad=(0,), label="axis0"),
    ), call=lambda ms, ops, x, **k: ops.Split(**k)(x), bad=(Bad("uneven", (F,), {"axis": 1, "output_num": 3}),)),
    CallInfo("Tensor.numel", (Sample((F,), label="s0"),), call=lambda ms, ops, x: x.numel()),
    CallInfo("Size", (Sample((F,), label="s0"),), call=lambda ms, ops, x: ops.Size()(x)),
    CallInfo("Rank", (Sample((F,), label="s0"), Sample((Arr(()),), label="zero_d")),
             call=lambda ms, ops, x: ops.Rank()(x)),
    CallInfo("Shape", (Sample((F,), label="s0"),), call=lambda ms, ops, x: ops.Shape()(x)),
    CallInfo("DepthToSpace", (
        Sample((Arr((1, 4, 2, 1)),), grad=(0,), label="block2"),
        Sample((Arr((1, 8, 1, 1), I32, 0, 9),), label="int32"),
    ), call=lambda ms, ops, x: ops.DepthToSpace(2)(x), bad=(Bad("three_d", (Arr((4, 2, 2)),)),)),
    CallInfo("SpaceToDepth", (
        Sample((Arr((1, 1, 4, 2)),), grad=(0,), label="block2"),
        Sample((Arr((1, 2, 2, 2), I64, 0, 9),), label="int"),
    ), call=lambda ms, ops, x: ops.SpaceToDepth(2)(x), bad=(Bad("three_d", (Arr((4, 4, 4)),)),)),
    CallInfo("DiagPart", (
        Sample((Arr((3, 3)),), grad=(0,), label="matrix"),
        Sample((Arr((2, 2, 2, 2)),), grad=(0,), label="rank4"),
    ), call=lambda ms, ops, x: ops.DiagPart()(x)),
    CallInfo("FillDiagonal", (
        Sample((F,), grad=(0,), label="wide"),
        Sample((Arr((5, 2)),), {"wrap": True}, grad=(0,), label="tall_wrap"),
        Sample((Arr((5, 2)),), grad=(0,), label="tall"),
        Sample((Arr((2, 2, 2)),), grad=(0,), label="cube"),
        Sample((Arr((3, 2), I32, -3, 3),), label="int32"),
    ), call=lambda ms, ops, x, wrap=False: ops.FillDiagonal(9.5, wrap)(x)),
    CallInfo("Tensor.fill_diagonal", (
        Sample((F, 2.0), grad=(0,), label="wide"),
        Sample((Arr((5, 2)), -1.0, True), grad=(0,), label="tall_wrap"),
    ), call=_m("fill_diagonal"), bad=(Bad("int_value", (F, 2)),)),
    CallInfo("Im2Col", (
        Sample((Arr((1, 1, 3, 4)),), grad=(0,), label="kernel2"),
        Sample((Arr((1, 2, 2, 3)),), {"strides": 2, "pads": 1}, grad=(0,), label="padded_strided"),
        Sample((Arr((1, 1, 2, 4)),), {"pads": (1, 0)}, grad=(0,), label="pads_hw"),
    ), call=lambda ms, ops, x, **k: ops.Im2Col((2, 2), **k)(x)),
    CallInfo("Col2Im", (
        Sample((Arr((1, 2, 4, 6)), _i([3, 4], I32)), grad=(0,), label="kernel2"),
    ), call=lambda ms, ops, x, size: ops.Col2Im((2, 2))(x, size)),
    CallInfo("InvertPermutation", (Sample(((3, 4, 0, 2, 1),), label="tuple"),),
             call=lambda ms, ops, x: ops.InvertPermutation()(x), bad=(Bad("tensor", (_i([1, 0], I32),)),)),
    CallInfo("UnravelIndex", (
        Sample((_i([22, 41, 37], I32), _i([7, 6], I32)), label="int32"),
        Sample((_i(5), _i([2, 3])), label="scalar_int64"),
    ), call=lambda ms, ops, i, d: ops.UnravelIndex()(i, d)),
    CallInfo("TensorToTuple", (Sample((Arr((3,), I64, -3, 3),), label="int"), Sample((Arr((2,)),), label="float")),
             call=lambda ms, ops, x: ops.TensorToTuple()(x)),
    CallInfo("IdentityN", (Sample(((F6, Arr((2,), I64, 0, 3)),), label="tuple"),
                           Sample(([F6, Arr((2,), I64, 0, 3)],), label="list")),
             call=lambda ms, ops, x: ops.IdentityN()(x)),
    CallInfo("Meshgrid", (
        Sample((Arr((2,)), Arr((3,))), grad=(0, 1), label="xy"),
        Sample((Arr((2,)), Arr((3,))), {"indexing": "ij"}, grad=(0, 1), label="ij"),
    ), call=lambda ms, ops, *xs, indexing="xy": ops.Meshgrid(indexing)(tuple(xs))),
    CallInfo("Pad", (
        Sample((Arr((3, 3)),), grad=(0,), label="pairs"),
        Sample((Arr((2, 2), I32, -3, 3),), label="int32"),
    ), call=lambda ms, ops, x: ops.Pad(((1, 1), (0, 2)))(x)),
    CallInfo("PadV3", (
        Sample((Arr((1, 3, 3)), _i([1, 2, 0, 1]), Arr(())), grad=(0, 2), label="constant"),
        Sample((Arr((1, 3, 3)), _i([1, 2, 0, 1]), Arr(())), {"contiguous": False}, grad=(0, 2),
               label="not_contiguous"),
        Sample((Arr((1, 1, 3, 3)), _i([1, 2, 0, 1])), {"mode": "reflect"}, grad=(0,), label="reflect"),
        Sample((Arr((1, 1, 3, 3)), _i([1, 2, 0, 1])), {"mode": "edge"}, grad=(0,), label="edge"),
        Sample((Arr((1, 1, 3, 3)), _i([1, 2, 0, 1])), {"mode": "circular"}, grad=(0,), label="circular"),
    ), call=lambda ms, ops, x, p, *v, mode="constant", contiguous=True: ops.PadV3(mode, contiguous)(x, p, *v),
        bad=(Bad("reflect_3d", (Arr((1, 3, 3)), _i([1, 2, 0, 1])), {"mode": "reflect"}),)),
    CallInfo("MatrixDiagV3", (
        Sample((Arr((2, 3)), _i([0, 1], I32), _i(3, I32), _i(3, I32), Arr(())), {"align": "LEFT_LEFT"},
               grad=(0, 4), label="band"),
        Sample((Arr((2,)), _i(0, I32), _i(-1, I32), _i(-1, I32), Arr(())), grad=(0,), label="main"),
    ), call=lambda ms, ops, x, k, r, c, p, align="RIGHT_LEFT": ops.MatrixDiagV3(align)(x, k, r, c, p),
        bad=(Bad("int64_k", (Arr((2,)), _i(0), _i(-1, I32), _i(-1, I32), Arr(()))),)),
    CallInfo("Tensor.expand", (
        Sample((Arr((2, 1)), 2, 3), grad=(0,), label="ints"),
        Sample((Arr((2, 1)), (2, 3)), grad=(0,), label="tuple"),
        Sample((Arr((2, 1)), 3, -1, 3), grad=(0,), label="keep_axis"),
        Sample((Arr((2, 1)), _i([2, 3])), grad=(0,), label="tensor"),
    ), call=_m("expand")),
    CallInfo("Tensor.expand_as", (Sample((Arr((2, 1)), Arr((2, 4))), grad=(0,), label="other"),),
             call=_m("expand_as")),
    CallInfo("Tensor.expand_as_x", (Sample((Arr((3,)), Arr((2, 3))), grad=(0,), label="keyword"),),
             call=lambda ms, ops, a, b: a.expand_as(x=b)),
    CallInfo("Tensor.reshape_as", (Sample((F, Arr((2, 6))), grad=(0,), label="other"),), call=_m("reshape_as")),
    CallInfo("Tensor.view_as", (Sample((F, Arr((6, 2))), grad=(0,), label="other"),), call=_m("view_as")),
    CallInfo("Tensor.sum_to_size", (
        Sample((F, 1, 4), grad=(0,), label="ints"),
        Sample((F, (3, 1)), grad=(0,), label="tuple"),
        Sample((F, 4), grad=(0,), label="fewer_dims"),
    ), call=_m("sum_to_size"), rtol=1e-5, atol=1e-5, bad=(Bad("not_expandable", (F, 2, 4)),)),
    CallInfo("Tensor.resize", (
        Sample((F, 2, 7), label="larger"),
        Sample((F, (5,)), label="smaller"),
    ), call=lambda ms, ops, x, *shape: (x.resize(*shape), x)),
    CallInfo("Tensor.repeat", (
        Sample((F6, 2, 1), grad=(0,), label="ints"),
        Sample((F6, (2, 1, 2)), grad=(0,), label="tuple_more_dims"),
    ), call=_m("repeat"), ref=lambda x, *reps: np.tile(x, reps[0] if isinstance(reps[0], tuple) else reps),
        mindspore_grad_wrong=_NO_REPEAT, mindspore_wrong={"ints": _NO_REPEAT, "tuple_more_dims": _NO_REPEAT}),
    CallInfo("grad_roll", (
        Sample((F, 1), grad=(0,), label="flat"),
        Sample((F, (1, -1), (0, 1)), grad=(0,), label="two_axes"),
    ), call=lambda ms, ops, *a: ops.roll(*a), ref=lambda x, shifts, dims=None: np.roll(x, shifts, dims),
        mindspore_grad_wrong=_NO_ROLL, mindspore_wrong={"flat": _NO_ROLL, "two_axes": _NO_ROLL}),
    CallInfo("Tensor.select", (
        Sample((F, 1, 2), grad=(0,), label="dim_index"),
        Sample((F, -1, -1), grad=(0,), label="negative"),
    ), call=_m("select")),
    CallInfo("Tensor.select_condition", (
        Sample((F, Arr((3, 4), "bool"), 0.5), grad=(0,), label="scalar"),
        Sample((F, Arr((3, 4), "bool"), Arr((3, 4))), grad=(0, 2), label="tensor"),
    ), call=lambda ms, ops, x, c, y: x.select(c, y)),
    CallInfo("Tensor.where", (
        Sample((F, Arr((3, 4), "bool"), 0.0), grad=(0,), label="scalar"),
        Sample((F, Arr((4,), "bool"), Arr((3, 4))), grad=(0, 2), label="tensor"),
    ), call=_m("where")),
    CallInfo("Tensor.chunk_dim", (Sample((F, 2), grad=(0,), label="keyword"),),
             call=lambda ms, ops, x, n: x.chunk(n, dim=1)),
    CallInfo("Tensor.split_dim", (Sample((F, 3), grad=(0,), label="keyword"),),
             call=lambda ms, ops, x, n: x.split(n, dim=1)),
    CallInfo("Tensor.diagonal_axes", (Sample((F, 1), grad=(0,), label="keyword"),),
             call=lambda ms, ops, x, offset: x.diagonal(offset=offset, axis1=1, axis2=0)),
]

_NO_FILL_DIAGONAL_GRAD = "MindSpore 2.10 defines no gradient for FillDiagonal (RuntimeError: bprop not defined)"
CALLS, _CALL_TWINS = split_wrong_gradients(CALLS, {
    "FillDiagonal": (None, _NO_FILL_DIAGONAL_GRAD),
    "Tensor.fill_diagonal": (None, _NO_FILL_DIAGONAL_GRAD),
    "Tensor.select": (None, "MindSpore 2.10's gradient of Tensor.select(dim, index) fails (RuntimeError from its "
                            "InplaceCopy kernel)"),
    "PadV3": (("constant", "not_contiguous"), _ZERO_PADDING_GRAD),
    "MatrixDiagV3": (("band",), _ZERO_PADDING_GRAD),
})
CALLS += _CALL_TWINS
