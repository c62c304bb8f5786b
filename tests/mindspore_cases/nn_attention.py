"""Attention and Transformer Cells of ``mindspore.nn`` as MindSpore 2.10 runs them (PyNative, CPU).

``MultiheadAttention`` (self- and cross-attention, ``batch_first``, ``kdim``/``vdim``, bias_k/v,
zero attention, bool and float ``key_padding_mask``/``attn_mask``, ``need_weights``,
``average_attn_weights``, unbatched input), ``TransformerEncoderLayer`` / ``DecoderLayer``
(post- and pre-norm, relu and gelu, masks), ``TransformerEncoder`` / ``Decoder`` and
``Transformer``.  Every Parameter is set from a fixed NumPy formula in ``parameters_and_names``
order; a case returns outputs, returned attention weights and the gradients of a fixed probe sum
with respect to the inputs and every Parameter.  Also names and shapes, printed trees, a
checkpoint round trip of a TransformerEncoder, and bad arguments.  Dropout is set but the Cells
are in eval mode (MindSpore's default), so results are deterministic.

MindSpore 2.10 prints a LayerNorm as ``..., gammaParameter (name=...`` (the ``=`` is missing);
the repr cases restore the ``=`` before returning, so the comparison reads the rest of the tree.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _values(np, shape, k):
    n = int(np.prod(shape)) if shape else 1
    return (0.5 * np.sin(0.9 * np.arange(n) + 1.7 * k + 0.3)).reshape(shape).astype("float32")


def _fix(ms, np, net):
    for k, (_, p) in enumerate(net.parameters_and_names()):
        p.set_data(ms.Tensor(_values(np, p.shape, k + 1)))
    return net


def _t(ms, np, shape, k):
    return ms.Tensor(_values(np, shape, k))


def _probe_sum(ms, np, out, k0=60):
    flat = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            for item in v:
                walk(item)
        else:
            flat.append(v)
    walk(out)
    total = 0
    for k, t in enumerate(flat):
        total = total + (t * ms.Tensor(_values(np, t.shape, k0 + k))).sum()
    return total


def _grad_case(name, make, inputs, call, rtol=5e-5, atol=5e-6):
    """``call(net, *tensors)``: forward value and gradients w.r.t. the inputs and every Parameter."""

    def run(ms, ops, nn, np):
        net = _fix(ms, np, make(ms, nn, np))
        net.set_train(False)
        tensors = [_t(ms, np, shape, 20 + i) for i, shape in enumerate(inputs)]

        def loss(*xs):
            return _probe_sum(ms, np, call(ms, np, net, *xs))

        out = call(ms, np, net, *tensors)
        params = net.trainable_params()
        positions = tuple(range(len(tensors))) if len(tensors) > 1 else 0
        grads = ms.grad(loss, grad_position=positions, weights=params)(*tensors)
        return {"out": out, "grads_inputs": grads[0], "grads_params": grads[1], "names": [p.name for p in params]}

    case(_named(run, name), rtol=rtol, atol=atol)


def _bool_mask(ms, np, rows):
    return ms.Tensor(np.array(rows, dtype=bool))


# ------------------------------------------------------------------ MultiheadAttention
_grad_case("mha_self_attention", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 3, 8)],
           lambda ms, np, net, x: net(x, x, x))
_grad_case("mha_cross_attention", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 3, 8), (5, 3, 8)],
           lambda ms, np, net, q, m: net(q, m, m))
_grad_case("mha_separate_qkv", lambda ms, nn, np: nn.MultiheadAttention(8, 4), [(4, 2, 8), (5, 2, 8), (5, 2, 8)],
           lambda ms, np, net, q, k, v: net(q, k, v))
_grad_case("mha_batch_first", lambda ms, nn, np: nn.MultiheadAttention(8, 2, batch_first=True), [(3, 4, 8)],
           lambda ms, np, net, x: net(x, x, x))
_grad_case("mha_kdim_vdim", lambda ms, nn, np: nn.MultiheadAttention(6, 3, kdim=4, vdim=2),
           [(4, 2, 6), (5, 2, 4), (5, 2, 2)], lambda ms, np, net, q, k, v: net(q, k, v))
_grad_case("mha_bias_kv_zero_attn",
           lambda ms, nn, np: nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True),
           [(4, 2, 8), (5, 2, 8)], lambda ms, np, net, q, m: net(q, m, m))
_grad_case("mha_no_bias", lambda ms, nn, np: nn.MultiheadAttention(8, 2, has_bias=False), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x))
_grad_case("mha_key_padding_mask_bool", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, key_padding_mask=_bool_mask(
               ms, np, [[False, False, True, True], [False, False, False, True]])))
_grad_case("mha_key_padding_mask_float", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, key_padding_mask=_t(ms, np, (2, 4), 70)))
_grad_case("mha_causal_bool_mask", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, attn_mask=ms.Tensor(np.triu(np.ones((4, 4), bool), 1))))
_grad_case("mha_float_mask_3d_per_head", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, attn_mask=_t(ms, np, (4, 4, 4), 71)))
_grad_case("mha_both_masks_bool", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, attn_mask=ms.Tensor(np.triu(np.ones((4, 4), bool), 1)),
                                      key_padding_mask=_bool_mask(ms, np, [[False] * 3 + [True], [False] * 4])))
_grad_case("mha_both_masks_float", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, attn_mask=_t(ms, np, (4, 4), 72),
                                      key_padding_mask=_t(ms, np, (2, 4), 73)))
_grad_case("mha_per_head_weights", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, average_attn_weights=False))
_grad_case("mha_need_weights_false", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, need_weights=False))
_grad_case("mha_unbatched", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(4, 8), (5, 8)],
           lambda ms, np, net, q, m: net(q, m, m, key_padding_mask=_bool_mask(ms, np, [False] * 4 + [True])))
_grad_case("mha_uint8_mask", lambda ms, nn, np: nn.MultiheadAttention(8, 2), [(3, 2, 8)],
           lambda ms, np, net, x: net(x, x, x, attn_mask=ms.Tensor(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]],
                                                                            np.uint8))))


# ------------------------------------------------------------------ Transformer layers
_grad_case("encoder_layer_post_norm", lambda ms, nn, np: nn.TransformerEncoderLayer(8, 2, 16), [(4, 2, 8)],
           lambda ms, np, net, x: net(x))
_grad_case("encoder_layer_pre_norm_gelu_batch_first",
           lambda ms, nn, np: nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", batch_first=True,
                                                         norm_first=True), [(2, 4, 8)],
           lambda ms, np, net, x: net(x))
_grad_case("encoder_layer_ops_gelu_masks",
           lambda ms, nn, np: nn.TransformerEncoderLayer(8, 2, 16, activation=ms.ops.gelu, layer_norm_eps=1e-3),
           [(4, 2, 8)],
           lambda ms, np, net, x: net(x, src_mask=ms.Tensor(np.triu(np.ones((4, 4), bool), 1)),
                                      src_key_padding_mask=_bool_mask(ms, np, [[False] * 3 + [True], [False] * 4])))
_grad_case("decoder_layer_post_norm", lambda ms, nn, np: nn.TransformerDecoderLayer(8, 2, 16),
           [(3, 2, 8), (5, 2, 8)], lambda ms, np, net, t, m: net(t, m))
_grad_case("decoder_layer_pre_norm_masks",
           lambda ms, nn, np: nn.TransformerDecoderLayer(8, 2, 16, norm_first=True, activation="gelu"),
           [(3, 2, 8), (5, 2, 8)],
           lambda ms, np, net, t, m: net(t, m, tgt_mask=ms.Tensor(np.triu(np.ones((3, 3), bool), 1)),
                                         memory_key_padding_mask=_bool_mask(ms, np, [[False] * 4 + [True],
                                                                                     [False] * 5])))
_grad_case("encoder_stack_with_norm",
           lambda ms, nn, np: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm((8,))),
           [(4, 2, 8)], lambda ms, np, net, x: net(x, src_key_padding_mask=_t(ms, np, (2, 4), 74)))
_grad_case("decoder_stack",
           lambda ms, nn, np: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, batch_first=True), 2),
           [(2, 3, 8), (2, 5, 8)], lambda ms, np, net, t, m: net(t, m))
_grad_case("transformer_full",
           lambda ms, nn, np: nn.Transformer(8, 2, 1, 1, 16), [(5, 2, 8), (3, 2, 8)],
           lambda ms, np, net, s, t: net(s, t, tgt_mask=ms.Tensor(np.triu(np.ones((3, 3), bool), 1))))
_grad_case("transformer_batch_first_pre_norm",
           lambda ms, nn, np: nn.Transformer(8, 2, 2, 1, 16, batch_first=True, norm_first=True), [(2, 5, 8), (2, 3, 8)],
           lambda ms, np, net, s, t: net(s, t))


# ------------------------------------------------------------------ names, trees, init
@case
def parameter_names_and_shapes(ms, ops, nn, np):
    nets = [nn.MultiheadAttention(8, 2), nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True),
            nn.MultiheadAttention(8, 2, has_bias=False), nn.TransformerEncoderLayer(8, 2, 16),
            nn.TransformerDecoderLayer(8, 2, 16),
            nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm((8,))),
            nn.Transformer(8, 2, 1, 2, 16)]
    return [[(name, p.name, p.shape, p.dtype) for name, p in net.parameters_and_names()] for net in nets]


def _tree(net):
    return repr(net).replace("gammaParameter (", "gamma=Parameter (")  # MindSpore's missing '='


@case
def reprs(ms, ops, nn, np):
    nets = [nn.MultiheadAttention(8, 2), nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2),
            nn.TransformerDecoderLayer(8, 2, 16, activation="gelu"),
            nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm((8,))),
            nn.Transformer(8, 2, 1, 1, 16)]
    return [_tree(net) for net in nets]


@case
def attributes(ms, ops, nn, np):
    m = nn.MultiheadAttention(6, 3, dropout=0.25, kdim=4, batch_first=True)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, layer_norm_eps=1e-3, norm_first=True)
    enc = nn.TransformerEncoder(layer, 3)
    return (m.embed_dim, m.kdim, m.vdim, m.num_heads, m.head_dim, m.dropout, m.batch_first, m.add_zero_attn,
            m._qkv_same_embed_dim, layer.d_model, layer.nhead, layer.dim_feedforward, layer.dropout_num,
            layer.layernorm_eps, layer.norm_first, layer.batch_first, enc.num_layers, len(enc.layers))


@case
def init_statistics(ms, ops, nn, np):
    """Which Parameters start as zeros / ones, and the bounds of the uniform ones (not their draws)."""
    m = nn.MultiheadAttention(64, 4)
    layer = nn.TransformerEncoderLayer(64, 4, 32)
    limit = float(np.sqrt(6.0 / (64 + 192)))
    return (bool((m.in_proj_bias.asnumpy() == 0).all()),
            float(abs(m.in_proj_weight.asnumpy()).max()) <= limit,
            float(abs(m.out_proj.bias.asnumpy()).max()) <= 1 / 8,
            bool((layer.norm1.gamma.asnumpy() == 1).all()), bool((layer.norm1.beta.asnumpy() == 0).all()),
            float(abs(layer.dense2.bias.asnumpy()).max()) <= 1 / float(np.sqrt(32)))


@case
def encoder_copies_are_independent(ms, ops, nn, np):
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(layer, 2)
    a = enc.layers[0].dense1.weight
    b = enc.layers[1].dense1.weight
    return a is b, a.name, b.name, layer.dense1.weight.name


# ------------------------------------------------------------------ checkpoints
@case
def encoder_checkpoint_round_trip(ms, ops, nn, np):
    import os
    import tempfile

    def build():
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2, nn.LayerNorm((8,)))

    net = _fix(ms, np, build())
    x = _t(ms, np, (2, 4, 8), 30)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "encoder.ckpt")
        ms.save_checkpoint(net, path)
        loaded = ms.load_checkpoint(path)
        fresh = build()
        not_loaded = ms.load_param_into_net(fresh, ms.load_checkpoint(path))
    return {"params": {key: value for key, value in loaded.items()}, "not_loaded": list(not_loaded[0]),
            "before": net(x), "after": fresh(x)}


# ------------------------------------------------------------------ activation Cells (MindSpore refuses them)
def _relu_cell_expected(np):
    return "ok"


@case(mindspore_wrong=True, expected=_relu_cell_expected,
      note="MindSpore 2.10 documents nn.ReLU/nn.GELU instances as valid `activation` values and checks for them, "
           "then refuses every Cell in the next check (a Cell is callable and is not ops.relu); cellkit accepts them")
def activation_relu_cell_accepted(ms, ops, nn, np):
    nn.TransformerEncoderLayer(8, 2, 16, activation=nn.ReLU())
    nn.TransformerDecoderLayer(8, 2, 16, activation=nn.GELU())
    return "ok"


# ------------------------------------------------------------------ bad arguments
def _raise_case(name, build):
    def run(ms, ops, nn, np):
        return build(ms, ops, nn, np)
    case(_named(run, name))


def _x(ms, np, shape=(3, 2, 8), dtype="float32"):
    return ms.Tensor(np.ones(shape, dtype=dtype))


_raise_case("bad_embed_dim_not_divisible", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 3))
_raise_case("bad_activation_name", lambda ms, ops, nn, np: nn.TransformerEncoderLayer(8, 2, activation="tanh"))
_raise_case("bad_activation_cell", lambda ms, ops, nn, np: nn.TransformerEncoderLayer(8, 2, activation=nn.Tanh()))
_raise_case("bad_activation_function",
            lambda ms, ops, nn, np: nn.TransformerDecoderLayer(8, 2, activation=ops.tanh))
_raise_case("bad_activation_number", lambda ms, ops, nn, np: nn.TransformerEncoderLayer(8, 2, activation=3))
_raise_case("bad_key_padding_mask_int", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np), _x(ms, np), key_padding_mask=ms.Tensor(np.zeros((2, 3), np.int32))))
_raise_case("bad_attn_mask_shape", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np), _x(ms, np), attn_mask=_x(ms, np, (3, 4))))
_raise_case("bad_attn_mask_3d_shape", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np), _x(ms, np), attn_mask=_x(ms, np, (2, 3, 3))))
_raise_case("bad_attn_mask_int", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np), _x(ms, np), attn_mask=ms.Tensor(np.zeros((3, 3), np.int32))))
_raise_case("bad_attn_mask_4d", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np), _x(ms, np), attn_mask=_x(ms, np, (1, 2, 3, 3))))
_raise_case("bad_key_ndim", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np, (3, 8)), _x(ms, np)))
_raise_case("bad_query_4d", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np, (1, 3, 2, 8)), _x(ms, np, (1, 3, 2, 8)), _x(ms, np, (1, 3, 2, 8))))
_raise_case("bad_embed_dim_of_query", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np, (3, 2, 4)), _x(ms, np), _x(ms, np)))
_raise_case("bad_key_value_shapes", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np, (4, 2, 8)), _x(ms, np, (5, 2, 8))))
_raise_case("bad_key_padding_mask_shape", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np), _x(ms, np), key_padding_mask=ms.Tensor(np.zeros((2, 4), bool))))
_raise_case("bad_key_padding_mask_ndim", lambda ms, ops, nn, np: nn.MultiheadAttention(8, 2)(
    _x(ms, np), _x(ms, np), _x(ms, np), key_padding_mask=ms.Tensor(np.zeros((2, 3, 1), bool))))
_raise_case("bad_encoder_padding_mask_int", lambda ms, ops, nn, np: nn.TransformerEncoderLayer(8, 2, 16)(
    _x(ms, np), src_key_padding_mask=ms.Tensor(np.zeros((2, 3), np.int32))))
_raise_case("bad_transformer_feature_size", lambda ms, ops, nn, np: nn.Transformer(8, 2, 1, 1, 16)(
    _x(ms, np), _x(ms, np, (3, 2, 4))))
