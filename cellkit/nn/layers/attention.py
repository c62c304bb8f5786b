"""Multi-head attention: ``nn.MultiheadAttention`` and the function it runs.

``multi_head_attention_forward`` follows the computation MindSpore 2.10 performs (its
``ops.function.nn_func.multi_head_attention_forward``): project query, key and value (one packed
``in_proj_weight`` or three separate weights when ``kdim``/``vdim`` differ from ``embed_dim``),
optionally append ``bias_k``/``bias_v`` and a zero attention slot, split into heads, turn a bool
mask into ``-inf`` entries (float masks are added as they are), scale, softmax, dropout in
training, and project back with ``out_proj``.  Everything is composed from cellkit ops, so the
attention differentiates to any order and shows up op by op in traces and hooks.

>>> import cellkit as ms
>>> from cellkit import nn
>>> attn = nn.MultiheadAttention(8, 2)
>>> x = ms.ops.ones((5, 3, 8))                      # (sequence, batch, embed)
>>> out, weights = attn(x, x, x)
>>> out.shape, weights.shape
((5, 3, 8), (3, 5, 5))
"""
from __future__ import annotations

import math

from ... import dtype as _dt
from ... import ops
from ...common.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from ...parameter import Parameter
from ...tensor import Tensor, check_allocation
from ..cell import Cell
from .basic import Dense

__all__ = ["MultiheadAttention"]


def _check_size(value, name, cls, allow_none=False):
    """A positive int (or None where allowed), with a message naming ``cls`` and the argument."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{cls}', '{name}' must be a positive int, but got {type(value).__name__} {value!r}.")
    if value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be a positive int, but got {value}.")


_FLOAT_DTYPES = (_dt.float16, _dt.float32, _dt.float64, _dt.bfloat16)


def _check_dtype(dtype, cls):
    if not isinstance(dtype, _dt.DType) or dtype not in _FLOAT_DTYPES:
        raise TypeError(f"For '{cls}', 'dtype' must be a float dtype (mindspore.float16, float32, float64, "
                        f"bfloat16), but got {dtype!r}.")


def _check_probability(value, name, cls):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got {type(value).__name__} {value!r}.")
    if not 0 <= value <= 1:
        raise ValueError(f"For '{cls}', '{name}' must be a probability in [0, 1], but got {value}.")


def _check_mask_arg(value, name, cls):
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"For '{cls}', '{name}' must be a Tensor or None, but got {type(value).__name__}.")


def _linear(x, w, b):
    return ops.dense(x, w, b)


def _pad_last(mask):
    """One more column (zero / False) on the last axis: the slot added by bias_k or add_zero_attn."""
    extra = ops.zeros(mask.shape[:-1] + (1,), mask.dtype)
    return ops.concat((mask, extra), -1)


def _is_float(t):
    return ops.is_floating_point(t)


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise ValueError(f"For batched `query`, the `key` and `value` must be 3D tensor, but got `key` with "
                             f"{key.ndim}D and `value` with {value.ndim}D.")
    elif query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise ValueError(f"For unbatched `query`, the `key` and `value` must be 2D tensor, but got `key` with "
                             f"{key.ndim}D and `value` with {value.ndim}D.")
    else:
        raise ValueError(f"The `query` should be unbatched 2D or batched 3D tensor, but got `query` with "
                         f"{query.ndim}D.")
    if key_padding_mask is not None:
        want = 2 if query.ndim == 3 else 1
        if key_padding_mask.ndim != want:
            kind = "batched" if query.ndim == 3 else "unbatched"
            raise ValueError(f"For {kind} `query`, the `key_padding_mask` must be `None` or {want}D, but got "
                             f"`key_padding_mask` with {key_padding_mask.ndim}D.")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            kind = "batched" if query.ndim == 3 else "unbatched"
            raise ValueError(f"For {kind} `query`, the `attn_mask` must be `None`, 2-D or 3-D, but got "
                             f"`attn_mask` with {attn_mask.ndim}D.")
        if query.ndim == 2 and attn_mask.ndim == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise ValueError(f"The shape of `attn_mask` must to be {expected}, but got {tuple(attn_mask.shape)}.")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, attn_mask=None, use_separate_proj_weight=False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None,
                                 average_attn_weights=True, k_is_v=False, q_is_k=False):
    """Attention of ``query`` over ``key``/``value`` with ``num_heads`` heads (time-major inputs).

    Inputs are ``(L, N, E)`` / ``(S, N, Ek)`` / ``(S, N, Ev)`` (or unbatched ``(L, E)`` ...).
    ``key_padding_mask`` is ``(N, S)``, ``attn_mask`` ``(L, S)`` or ``(N * num_heads, L, S)``; a bool
    mask marks positions that may NOT be attended (they get ``-inf``), a float mask is added to
    the scores.  Returns ``(output (L, N, E), weights (N, L, S))`` -- the weights per head
    ``(N, num_heads, L, S)`` when ``average_attn_weights`` is False.

    >>> import cellkit as ms
    >>> from cellkit.nn.layers.attention import multi_head_attention_forward
    >>> x = ms.ops.ones((3, 1, 4))
    >>> w, b = ms.ops.ones((12, 4)) * 0.1, ms.ops.zeros(12)
    >>> out, weights = multi_head_attention_forward(x, x, x, 4, 2, w, b, None, None, False, 0.0,
    ...                                             ms.ops.eye(4, 4, ms.float32), None)
    >>> out.shape, weights.shape
    ((3, 1, 4), (1, 3, 3))
    """
    _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    batched = query.ndim == 3
    if not batched:
        query, key, value = ops.expand_dims(query, 1), ops.expand_dims(key, 1), ops.expand_dims(value, 1)
        if key_padding_mask is not None:
            key_padding_mask = ops.expand_dims(key_padding_mask, 0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if key_padding_mask is not None and key_padding_mask.dtype != _dt.bool_ and not _is_float(key_padding_mask):
        raise ValueError("The `key_padding_mask` only supports bool and floating dtypes.")
    if embed_dim != embed_dim_to_check:
        raise ValueError(f"The `embed_dim` should be {embed_dim_to_check}, but got {embed_dim}.")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise ValueError(f"The `embed_dim` {embed_dim} can not be divisible by `num_heads` {num_heads}.")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise ValueError(f"The sequence length and batch dims of `key`: {tuple(key.shape[:2])} do not match "
                             f"`value`: {tuple(value.shape[:2])}.")
    elif tuple(key.shape) != tuple(value.shape):
        raise ValueError(f"The shape of `key` {tuple(key.shape)} does not match `value` {tuple(value.shape)}.")

    # ---- input projections
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise ValueError("`use_separate_proj_weight` is ``False`` but `in_proj_weight` got ``None``.")
        if k_is_v and q_is_k:  # self-attention: one matmul for the three projections
            q, k, v = ops.tensor_split(_linear(query, in_proj_weight, in_proj_bias), 3, axis=-1)
        else:
            w_q, w_k, w_v = ops.tensor_split(in_proj_weight, 3)
            b_q = b_k = b_v = None
            if in_proj_bias is not None:
                b_q, b_k, b_v = ops.tensor_split(in_proj_bias, 3)
            q, k, v = _linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v)
    else:
        for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                        ("v_proj_weight", v_proj_weight)):
            if w is None:
                raise ValueError(f"`use_separate_proj_weight` is ``True`` but `{name}` got ``None``.")
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = ops.tensor_split(in_proj_bias, 3)
        q, k, v = _linear(query, q_proj_weight, b_q), _linear(key, k_proj_weight, b_k), \
            _linear(value, v_proj_weight, b_v)

    # ---- masks in canonical form
    if attn_mask is not None:
        if attn_mask.dtype == _dt.uint8:
            attn_mask = attn_mask.astype(_dt.bool_)
        elif not _is_float(attn_mask) and attn_mask.dtype != _dt.bool_:
            raise ValueError(f"`attn_mask` only support float, byte, and bool types, but got not {attn_mask.dtype}.")
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise ValueError(f"The shape of the `attn_mask` should be {(tgt_len, src_len)}, but got "
                                 f"{tuple(attn_mask.shape)}.")
            attn_mask = ops.expand_dims(attn_mask, 0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise ValueError(f"The shape of the `attn_mask` should be {(bsz * num_heads, tgt_len, src_len)}, but got "
                             f"{tuple(attn_mask.shape)}.")
    if bias_k is not None and bias_v is not None:
        k = ops.concat((k, ops.tile(bias_k, (1, bsz, 1))))
        v = ops.concat((v, ops.tile(bias_v, (1, bsz, 1))))
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise ValueError("The bias_k and bias_v should be ``None``at the same time.")

    # ---- heads: (N * H, L, D)
    q = ops.swapaxes(ops.reshape(q, (tgt_len, bsz * num_heads, head_dim)), 0, 1)
    k = ops.swapaxes(ops.reshape(k, (k.shape[0], bsz * num_heads, head_dim)), 0, 1)
    v = ops.swapaxes(ops.reshape(v, (v.shape[0], bsz * num_heads, head_dim)), 0, 1)
    if add_zero_attn:
        zeros = ops.zeros((bsz * num_heads, 1, head_dim), k.dtype)
        k = ops.concat((k, zeros), 1)
        v = ops.concat((v, zeros), 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise ValueError(f"The shape of `key_padding_mask` should be {(bsz, src_len)}, but got "
                             f"{tuple(key_padding_mask.shape)}.")
        key_padding_mask = ops.reshape(ops.tile(ops.reshape(key_padding_mask, (bsz, 1, 1, src_len)),
                                                (1, num_heads, 1, 1)), (bsz * num_heads, 1, src_len))
        if attn_mask is None:
            attn_mask = key_padding_mask
        elif attn_mask.dtype == _dt.bool_:
            attn_mask = ops.logical_or(attn_mask, key_padding_mask)
        else:
            attn_mask = attn_mask + key_padding_mask
    if attn_mask is not None and attn_mask.dtype == _dt.bool_:
        attn_mask = ops.masked_fill(ops.zeros(attn_mask.shape, q.dtype), attn_mask, float("-inf"))
    if attn_mask is not None:
        if attn_mask.shape[0] == 1:
            attn_mask = ops.expand_dims(attn_mask, 0)
        else:
            attn_mask = ops.reshape(attn_mask, (bsz, num_heads, -1, src_len))
    q = ops.reshape(q, (bsz, num_heads, tgt_len, head_dim))
    k = ops.reshape(k, (bsz, num_heads, src_len, head_dim))
    v = ops.reshape(v, (bsz, num_heads, src_len, head_dim))

    # ---- scaled dot product (the fourth root of the head size on each side, as MindSpore scales)
    scale = math.sqrt(math.sqrt(head_dim))
    scores = ops.matmul(q / scale, ops.swapaxes(k, -2, -1) / scale)
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = ops.softmax(scores, -1)
    if training and 0.0 < dropout_p <= 1.0:
        weights = ops.dropout(weights, p=dropout_p, training=True)
    out = ops.matmul(weights, v)
    out = ops.reshape(ops.transpose(out, (2, 0, 1, 3)), (bsz * tgt_len, embed_dim))
    out = ops.reshape(_linear(out, out_proj_weight, out_proj_bias), (tgt_len, bsz, out_proj_weight.shape[0]))
    if average_attn_weights:
        weights = ops.sum(weights, 1) / num_heads
    if not batched:
        out = ops.squeeze(out, 1)
        weights = ops.squeeze(weights, 0)
    return out, weights


class MultiheadAttention(Cell):
    """Attention with ``num_heads`` heads, as MindSpore 2.10's ``nn.MultiheadAttention``.

    Parameters
    ----------
    embed_dim : int
        Model width ``E`` (the query's last axis); divisible by ``num_heads``.
    num_heads : int
    dropout : float
        Dropout on the attention weights, in training mode.
    has_bias : bool
        ``in_proj_bias`` (shape ``(3E,)``, zeros) and ``out_proj``'s bias.
    add_bias_kv : bool
        Learnt ``bias_k``/``bias_v`` (shape ``(1, 1, E)``) appended to the key and value sequences.
    add_zero_attn : bool
        Append a zero key/value slot.
    kdim, vdim : int or None
        Feature sizes of key and value; when they differ from ``embed_dim`` the projections are three
        Parameters ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` instead of the packed
        ``in_proj_weight`` of shape ``(3E, E)`` (Xavier-uniform).
    batch_first : bool
        Inputs and output are ``(N, L, E)`` instead of ``(L, N, E)``.
    dtype : cellkit dtype

    Calling ``attn(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True)`` returns ``(output, weights)``, or the 1-tuple ``(output,)`` when
    ``need_weights`` is False.  A bool mask marks positions that may not be attended.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> attn = nn.MultiheadAttention(6, 3, batch_first=True, kdim=4, vdim=2)
    >>> sorted(attn.parameters_dict())
    ['in_proj_bias', 'k_proj_weight', 'out_proj.bias', 'out_proj.weight', 'q_proj_weight', 'v_proj_weight']
    >>> q, k, v = ms.ops.ones((2, 5, 6)), ms.ops.ones((2, 7, 4)), ms.ops.ones((2, 7, 2))
    >>> [t.shape for t in attn(q, k, v, average_attn_weights=False)]
    [(2, 5, 6), (2, 3, 5, 7)]
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=_dt.float32):
        super().__init__()
        for name, value in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            _check_size(value, name, "MultiheadAttention")
        _check_size(kdim, "kdim", "MultiheadAttention", allow_none=True)
        _check_size(vdim, "vdim", "MultiheadAttention", allow_none=True)
        _check_probability(dropout, "dropout", "MultiheadAttention")
        if dtype is not None:
            _check_dtype(dtype, "MultiheadAttention")
        for shape in ((3 * embed_dim, embed_dim), (embed_dim, kdim or 1), (embed_dim, vdim or 1)):
            check_allocation(shape, dtype if dtype is not None else _dt.float32, "MultiheadAttention",
                             f"embed_dim={embed_dim}, kdim={kdim}, vdim={vdim}")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        try:
            self.head_dim = embed_dim // num_heads
            divisible = self.head_dim * num_heads == self.embed_dim
        except (TypeError, ZeroDivisionError):
            divisible = False
        if not divisible:
            raise ValueError(f"For 'MultiheadAttention', the init argument 'embed_dim' must be divisible by "
                             f"'num_heads', but got embed_dim={embed_dim!r} and num_heads={num_heads!r}.")
        if dtype is None:
            dtype = _dt.float32
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, embed_dim), dtype), "q_proj_weight")
            self.k_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.kdim), dtype), "k_proj_weight")
            self.v_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.vdim), dtype), "v_proj_weight")
            self.in_proj_weight = None
        else:
            self.in_proj_weight = Parameter(initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype),
                                            "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype), "in_proj_bias") \
            if has_bias else None
        bound = 1 / math.sqrt(embed_dim)
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(bound), dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self.dtype = dtype

    def construct(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For 'MultiheadAttention', '{name}' must be a Tensor, but got {type(t).__name__}")
        _check_mask_arg(key_padding_mask, "key_padding_mask", "MultiheadAttention")
        _check_mask_arg(attn_mask, "attn_mask", "MultiheadAttention")
        k_is_v, q_is_k = key is value, query is key
        batched = query.ndim == 3
        if key_padding_mask is not None and key_padding_mask.dtype != _dt.bool_ \
                and not ops.is_floating_point(key_padding_mask):
            raise ValueError("only bool and floating types of key_padding_mask are supported")
        if self.batch_first and batched:
            if k_is_v and q_is_k:
                query = key = value = ops.swapaxes(query, 1, 0)
            elif k_is_v:
                query, key = ops.swapaxes(query, 1, 0), ops.swapaxes(key, 1, 0)
                value = key
            else:
                query, key, value = (ops.swapaxes(t, 1, 0) for t in (query, key, value))
        try:
            out, weights = multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
                training=self.training, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
                use_separate_proj_weight=not self._qkv_same_embed_dim, q_proj_weight=self.q_proj_weight,
                k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
                average_attn_weights=average_attn_weights, k_is_v=k_is_v, q_is_k=q_is_k)
        except ValueError as exc:  # MindSpore's messages, said where
            raise ValueError(f"For 'MultiheadAttention', {exc}") from None
        if self.batch_first and batched:
            out = ops.swapaxes(out, 1, 0)
        if need_weights:
            return out, weights
        return (out,)
