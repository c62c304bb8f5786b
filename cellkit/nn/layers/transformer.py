"""Transformer Cells: encoder and decoder layers, their stacks, and the full ``Transformer``.

The layout, Parameter names (``self_attn.in_proj_weight``, ``dense1.weight``, ``norm1.gamma`` ...)
and initialisers are MindSpore 2.10's, so a MindSpore checkpoint of the same model loads into
cellkit and back.  ``norm_first`` chooses pre-norm (``x + block(norm(x))``) or post-norm
(``norm(x + block(x))``) residual blocks; ``activation`` is ``'relu'``/``'gelu'``, ``ops.relu``/
``ops.gelu`` or an ``nn.ReLU``/``nn.GELU`` Cell.

>>> import cellkit as ms
>>> from cellkit import nn
>>> layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
>>> encoder = nn.TransformerEncoder(layer, num_layers=2)
>>> encoder(ms.ops.ones((3, 5, 8))).shape
(3, 5, 8)
>>> [name for name, _ in encoder.parameters_and_names()][:2]
['layers.0.self_attn.in_proj_weight', 'layers.0.self_attn.in_proj_bias']
"""
from __future__ import annotations

import copy
import math

from ... import dtype as _dt
from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer
from ...tensor import Tensor, check_allocation
from ..cell import Cell
from .activation import GELU, ReLU
from .attention import MultiheadAttention, _check_dtype, _check_mask_arg, _check_probability, _check_size
from .basic import Dense
from .container import CellList
from .dropout import Dropout
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "Transformer"]


def _activation(activation, cls):
    """MindSpore's accepted activations: a name, ``ops.relu``/``ops.gelu``, or a ReLU/GELU Cell."""
    if isinstance(activation, str):
        if activation == "relu":
            return ops.relu
        if activation == "gelu":
            return ops.gelu
        raise ValueError(f"For '{cls}', the activation must be relu/gelu, but get {activation!r}")
    if isinstance(activation, Cell):
        if not isinstance(activation, (ReLU, GELU)):
            raise ValueError(f"For '{cls}', the argument 'activation' must be nn.ReLU or nn.GELU instance, "
                             f"but get {activation}.")
        return activation
    if callable(activation):
        if activation is not ops.relu and activation is not ops.gelu:
            raise ValueError(f"For '{cls}', the argument 'activation' must be ops.relu or ops.gelu instance, "
                             f"but get {activation}.")
        return activation
    raise ValueError(f"For '{cls}', the argument 'activation' must be str, callable or Cell instance, "
                     f"but get {activation!r}.")


def _dense(in_features, out_features, dtype):
    """A Dense initialised as MindSpore's transformer layers do (He-uniform weight, U(+-1/sqrt(fan_in)) bias)."""
    bound = 1 / math.sqrt(in_features)
    return Dense(in_features, out_features, weight_init=HeUniform(math.sqrt(5)), bias_init=Uniform(bound),
                 dtype=dtype)


def _check_padding_mask(mask):
    if mask is not None and mask.dtype != _dt.bool_ and not ops.is_floating_point(mask):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


def _check_d_model(d_model, nhead, cls, dim_feedforward=1, dtype=_dt.float32, dropout=0.0, layer_norm_eps=1e-5,
                   activation="relu"):
    """Every constructor argument of a Transformer Cell, checked before anything is built."""
    _check_size(d_model, "d_model", cls)
    _check_size(nhead, "nhead", cls)
    _check_size(dim_feedforward, "dim_feedforward", cls)
    if d_model % nhead:
        raise ValueError(f"For '{cls}', 'd_model' must be divisible by 'nhead', but got d_model={d_model} and "
                         f"nhead={nhead}.")
    _check_probability(dropout, "dropout", cls)
    if isinstance(layer_norm_eps, bool) or not isinstance(layer_norm_eps, (int, float)):
        raise TypeError(f"For '{cls}', 'layer_norm_eps' must be a float, but got {type(layer_norm_eps).__name__}.")
    if not 0 < layer_norm_eps < float("inf"):
        raise ValueError(f"For '{cls}', 'layer_norm_eps' must be a positive finite float, but got {layer_norm_eps}.")
    _check_dtype(dtype, cls)
    _activation(activation, cls)
    check_allocation((dim_feedforward, d_model), dtype, cls, f"d_model={d_model}, dim_feedforward={dim_feedforward}")


def _check_call(cls, **arguments):
    """Sequences are 2-D or 3-D Tensors, masks Tensors or None."""
    for name, value in arguments.items():
        if name.endswith("mask"):
            _check_mask_arg(value, name, cls)
        else:
            _check_tensor(value, name, cls)


def _check_tensor(value, name, cls, ndims=(2, 3)):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{cls}', '{name}' must be a Tensor, but got {type(value).__name__}.")
    if value.ndim not in ndims:
        raise ValueError(f"For '{cls}', '{name}' must be a {' or '.join(f'{n}-D' for n in ndims)} Tensor, "
                         f"but got shape {tuple(value.shape)}.")


class _LayerBase(Cell):
    """What the encoder and decoder layers share: the feed-forward block, norms, settings."""

    def _setup(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
               norm_first, dtype, norms):
        self.dense1 = _dense(d_model, dim_feedforward, dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = _dense(dim_feedforward, d_model, dtype)
        self.norm_first = norm_first
        for i in range(1, norms + 1):
            setattr(self, f"norm{i}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for i in range(1, norms + 1):
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.activation1 = activation
        self.activation = _activation(activation, type(self).__name__)
        self.d_model = d_model
        self.nhead = nhead
        self.dim_feedforward = dim_feedforward
        self.dropout_num = dropout
        self.layernorm_eps = layer_norm_eps
        self.batch_first = batch_first
        self.dtype = dtype

    def _ff_block(self, x, last_dropout):
        return last_dropout(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerEncoderLayer(_LayerBase):
    """Self-attention then a two-layer feed-forward block, each with a residual connection and LayerNorm.

    Parameters
    ----------
    d_model : int
        Model width.
    nhead : int
        Attention heads (``d_model`` divisible by it).
    dim_feedforward : int
        Hidden width of the feed-forward block (``dense1``: d_model -> dim_feedforward, ``dense2`` back).
    dropout : float
        Dropout after attention, inside and after the feed-forward block, on attention weights.
    activation : str, Cell or callable
        ``'relu'``/``'gelu'``, ``ops.relu``/``ops.gelu``, ``nn.ReLU()``/``nn.GELU()``.
    layer_norm_eps : float
    batch_first : bool
        ``(N, S, E)`` instead of ``(S, N, E)``.
    norm_first : bool
        Pre-norm blocks instead of post-norm.
    dtype : cellkit dtype

    ``layer(src, src_mask=None, src_key_padding_mask=None)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, norm_first=True)
    >>> layer(ms.ops.ones((6, 2, 4))).shape
    (6, 2, 4)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-05, batch_first: bool = False,
                 norm_first: bool = False, dtype=_dt.float32):
        super().__init__()
        _check_d_model(d_model, nhead, "TransformerEncoderLayer", dim_feedforward, dtype, dropout, layer_norm_eps,
                       activation)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self._setup(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                    dtype, norms=2)

    def construct(self, src: Tensor, src_mask=None, src_key_padding_mask=None):
        _check_call(type(self).__name__, src=src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        _check_padding_mask(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)


class TransformerDecoderLayer(_LayerBase):
    """Self-attention, attention over the encoder's ``memory``, then a feed-forward block.

    Same arguments as :class:`TransformerEncoderLayer`; it has a second attention ``multihead_attn``
    and a third norm.  ``layer(tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=8)
    >>> layer(ms.ops.ones((3, 2, 4)), ms.ops.ones((5, 2, 4))).shape
    (3, 2, 4)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-05, batch_first: bool = False,
                 norm_first: bool = False, dtype=_dt.float32):
        super().__init__()
        _check_d_model(d_model, nhead, "TransformerDecoderLayer", dim_feedforward, dtype, dropout, layer_norm_eps,
                       activation)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 dtype=dtype)
        self._setup(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                    dtype, norms=3)

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        _check_call(type(self).__name__, tgt=tgt, memory=memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                    tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)


def _layer_copies(layer, kind, num_layers, cls):
    if not isinstance(layer, kind):
        raise TypeError(f"For '{cls}', the first argument must be a {kind.__name__}, but got {type(layer).__name__}")
    if isinstance(num_layers, bool) or not isinstance(num_layers, int):
        raise TypeError(f"For '{cls}', 'num_layers' must be an int, but got {type(num_layers).__name__} {num_layers!r}")
    if num_layers < 0:
        raise ValueError(f"For '{cls}', 'num_layers' must be a non-negative int, but got {num_layers}")
    size = sum(p.size for p in layer.get_parameters())
    check_allocation((num_layers, size), layer.dtype, cls, f"num_layers={num_layers} copies of {size} elements")
    # as MindSpore: a fresh layer with the same settings (new Parameters), copied num_layers times
    fresh = kind(layer.d_model, layer.nhead, layer.dim_feedforward, layer.dropout_num, layer.activation1,
                 layer.layernorm_eps, layer.batch_first, layer.norm_first, dtype=layer.dtype)
    return CellList([copy.deepcopy(fresh) for _ in range(num_layers)])


class TransformerEncoder(Cell):
    """``num_layers`` copies of an encoder layer applied in turn, then an optional ``norm``.

    The copies are made from a new layer with ``encoder_layer``'s settings (not its Parameter
    values), as MindSpore does.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8), 3, norm=nn.LayerNorm((4,)))
    >>> len(enc.layers), enc(ms.ops.ones((5, 2, 4))).shape
    (3, (5, 2, 4))
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _layer_copies(encoder_layer, TransformerEncoderLayer, num_layers, "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src: Tensor, src_mask=None, src_key_padding_mask=None):
        _check_call("TransformerEncoder", src=src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        _check_padding_mask(src_key_padding_mask)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Cell):
    """``num_layers`` copies of a decoder layer applied in turn over the same ``memory``, then ``norm``.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 8), 2)
    >>> dec(ms.ops.ones((3, 2, 4)), ms.ops.ones((5, 2, 4))).shape
    (3, 2, 4)
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _layer_copies(decoder_layer, TransformerDecoderLayer, num_layers, "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        _check_call("TransformerDecoder", tgt=tgt, memory=memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                    tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Cell):
    """An encoder-decoder Transformer: ``decoder(tgt, encoder(src))``.

    Arguments as the layers', plus ``num_encoder_layers``, ``num_decoder_layers`` and
    ``custom_encoder``/``custom_decoder`` Cells to use instead of the built stacks.  Every
    Parameter with more than one axis is drawn again Xavier-uniform after construction.

    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)
    >>> model(ms.ops.ones((5, 2, 8)), ms.ops.ones((3, 2, 8))).shape
    (3, 2, 8)
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps: float = 1e-05, batch_first: bool = False,
                 norm_first: bool = False, dtype=_dt.float32):
        super().__init__()
        _check_d_model(d_model, nhead, "Transformer", dim_feedforward, dtype, dropout, layer_norm_eps, activation)
        for name, value in (("num_encoder_layers", num_encoder_layers), ("num_decoder_layers", num_decoder_layers)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise (TypeError if not isinstance(value, int) or isinstance(value, bool) else ValueError)(
                    f"For 'Transformer', '{name}' must be a non-negative int, but got {value!r}")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src: Tensor, tgt: Tensor, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None):
        _check_call("Transformer", src=src, tgt=tgt, src_mask=src_mask, tgt_mask=tgt_mask, memory_mask=memory_mask,
                    src_key_padding_mask=src_key_padding_mask, tgt_key_padding_mask=tgt_key_padding_mask,
                    memory_key_padding_mask=memory_key_padding_mask)
        batched = src.ndim == 3
        axis = 0 if self.batch_first else 1
        if batched and src.shape[axis] != tgt.shape[axis]:
            raise ValueError("The number of batch size for 'src' and 'tgt' must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError("The number of features for 'src' and 'tgt' must be equal to `d_model`.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
