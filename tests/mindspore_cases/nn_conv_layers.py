"""Convolution, pooling, padding, resampling, normalisation and image-metric Cells of
``mindspore.nn`` as MindSpore 2.10 runs them (PyNative, CPU).

A layer case builds the Cell, gives every Parameter fixed values (through ``set_data``), runs it
on a fixed input, and returns the output, the gradients of ``sum(output * probe)`` with respect
to the inputs and to the trainable Parameters (fixed probe values), the Parameters' names and
shapes, and the printed repr where it carries no memory address.  Other cases record the default
initialisers' shapes, bad arguments (which must raise), and the names and values of a small
``Conv3d`` network's checkpoint as ``save_checkpoint`` wrote it.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _values(np, shape, offset=0.0, scale=0.5):
    """Fixed, distinct, smooth values of ``shape`` (float32): no ties for max-pooling."""
    size = int(np.prod(shape)) if shape else 1
    k = np.arange(size, dtype=np.float64)
    v = np.sin(k * 0.731 + 0.3 + offset) * scale + k * 1e-3
    return v.reshape(shape).astype(np.float32)


def _input(ms, np, shape, offset=0.0, scale=1.0):
    return ms.Tensor(_values(np, shape, offset, scale))


def _fix_params(ms, np, net):
    for i, p in enumerate(net.get_parameters()):
        if "Float" in str(p.dtype):
            values = _values(np, tuple(p.shape), offset=1.0 + i, scale=0.4)
            if "variance" in p.name:  # a running variance must stay positive
                values = np.abs(values) + 0.5
            p.set_data(ms.Tensor(values))


def _probe_sum(ms, np, out):
    outs = out if isinstance(out, tuple) else (out,)
    total = None
    for j, t in enumerate(outs):
        if "Float" not in str(t.dtype):
            continue
        probe = ms.Tensor(np.cos(np.arange(t.size, dtype=np.float64) * 0.37 + 0.1 + j).reshape(t.shape)
                          .astype(np.float32))
        term = (t * probe).sum()
        total = term if total is None else total + term
    return total


def _layer(ms, np, net, inputs, grad_inputs=True, repr_text=True, fix=True, train=False):
    """Output, input gradients, Parameter gradients, Parameter names/shapes (and the repr) of ``net``."""
    if fix:
        _fix_params(ms, np, net)
    net.set_train(train)
    out = net(*inputs)
    weights = [p for p in net.trainable_params()]
    result = {"out": out, "params": [(p.name, tuple(p.shape)) for p in net.get_parameters()]}
    if repr_text:
        result["repr"] = repr(net)
    positions = tuple(range(len(inputs))) if grad_inputs else None

    def objective(*xs):
        return _probe_sum(ms, np, net(*xs))

    if positions is None and not weights:
        return result
    grads = ms.grad(objective, grad_position=positions, weights=weights or None)(*inputs)
    result["grads"] = grads
    if fix:
        # the Parameters after the run (BatchNorm's running statistics move in training)
        result["after"] = [ms.Tensor(p.asnumpy()) for p in net.get_parameters()]
    return result


def _layer_case(name, build, shapes, grad_inputs=True, repr_text=True, train=False, **hints):
    def run(ms, ops, nn, np):
        net = build(ms, nn, np)
        inputs = [_input(ms, np, s, offset=0.5 * i) for i, s in enumerate(shapes)]
        return _layer(ms, np, net, inputs, grad_inputs=grad_inputs, repr_text=repr_text, train=train)
    case(_named(run, name), **hints)


def _raise_case(name, make):
    def run(ms, ops, nn, np):
        return make(ms, nn, np)
    case(_named(run, name))


def _init_case(name, build):
    """Default initialisers: the Parameters' names, shapes and dtypes (their values are random)."""
    def run(ms, ops, nn, np):
        net = build(ms, nn)
        return [(p.name, tuple(p.shape), str(p.dtype), p.requires_grad) for p in net.get_parameters()]
    case(_named(run, name))


# ---------------------------------------------------------------- convolutions
_layer_case("conv3d_same", lambda ms, nn, np: nn.Conv3d(2, 4, 3, weight_init="ones"), [(1, 2, 3, 4, 3)],
            rtol=1e-4, atol=1e-5)
_layer_case("conv3d_pad_bias_group", lambda ms, nn, np: nn.Conv3d(
    2, 4, (2, 3, 2), stride=(1, 2, 1), pad_mode="pad", padding=(1, 0, 1, 1, 0, 1), dilation=(1, 1, 2), group=2,
    has_bias=True, weight_init="ones", bias_init="zeros"), [(2, 2, 3, 5, 4)], rtol=1e-4, atol=1e-5)
_layer_case("conv3d_valid_stride", lambda ms, nn, np: nn.Conv3d(
    3, 2, 2, stride=2, pad_mode="valid", has_bias=True, weight_init="ones", bias_init="zeros"),
    [(1, 3, 4, 5, 4)], rtol=1e-4, atol=1e-5)
_layer_case("conv3d_transpose_same", lambda ms, nn, np: nn.Conv3dTranspose(
    2, 3, 3, stride=2, weight_init="ones"), [(1, 2, 2, 3, 2)], rtol=1e-4, atol=1e-5)
_layer_case("conv3d_transpose_pad_outpad_bias", lambda ms, nn, np: nn.Conv3dTranspose(
    2, 4, (2, 3, 3), stride=(2, 2, 1), pad_mode="pad", padding=(1, 1, 0, 1, 1, 0), output_padding=(1, 1, 0),
    group=2, has_bias=True, weight_init="ones", bias_init="zeros"), [(1, 2, 2, 3, 3)], rtol=1e-4, atol=1e-5)
_layer_case("conv3d_transpose_valid", lambda ms, nn, np: nn.Conv3dTranspose(
    1, 2, 2, stride=1, pad_mode="valid", dilation=(1, 2, 2), weight_init="ones"), [(2, 1, 2, 2, 3)], rtol=1e-4, atol=1e-5)
_layer_case("conv2d_transpose_same", lambda ms, nn, np: nn.Conv2dTranspose(
    2, 3, 3, stride=2, weight_init="ones"), [(2, 2, 3, 4)], rtol=1e-4, atol=1e-5)
_layer_case("conv2d_transpose_valid_bias", lambda ms, nn, np: nn.Conv2dTranspose(
    2, 4, (2, 3), stride=(1, 2), pad_mode="valid", group=2, has_bias=True, weight_init="ones",
    bias_init="zeros"), [(1, 2, 3, 3)], rtol=1e-4, atol=1e-5)
_layer_case("conv2d_transpose_pad_outpad", lambda ms, nn, np: nn.Conv2dTranspose(
    1, 2, 3, stride=2, pad_mode="pad", padding=(1, 0, 1, 1), output_padding=1, weight_init="ones"),
    [(1, 1, 3, 3)], rtol=1e-4, atol=1e-5)
_layer_case("conv2d_transpose_pad_dilation", lambda ms, nn, np: nn.Conv2dTranspose(
    2, 2, 2, stride=1, pad_mode="pad", padding=1, dilation=2, output_padding=(1, 0), weight_init="ones"),
    [(1, 2, 3, 4)], rtol=1e-4, atol=1e-5)
_layer_case("conv1d_transpose_same", lambda ms, nn, np: nn.Conv1dTranspose(
    2, 3, 3, stride=2, weight_init="ones"), [(2, 2, 5)], rtol=1e-4, atol=1e-5)
_layer_case("conv1d_transpose_pad_bias", lambda ms, nn, np: nn.Conv1dTranspose(
    2, 2, 4, stride=3, pad_mode="pad", padding=1, has_bias=True, weight_init="ones", bias_init="zeros"),
    [(1, 2, 4)], rtol=1e-4, atol=1e-5)
_layer_case("conv1d_transpose_valid_dilation", lambda ms, nn, np: nn.Conv1dTranspose(
    2, 4, 2, pad_mode="valid", dilation=3, group=2, weight_init="ones"), [(1, 2, 3)], rtol=1e-4, atol=1e-5)
_layer_case("conv2d_bn_act", lambda ms, nn, np: nn.Conv2dBnAct(
    2, 3, 3, has_bn=True, activation="relu", has_bias=True), [(2, 2, 4, 4)], rtol=1e-4, atol=1e-5)
_layer_case("conv2d_bn_act_train", lambda ms, nn, np: nn.Conv2dBnAct(
    1, 2, 2, pad_mode="valid", has_bn=True, activation="sigmoid"), [(3, 1, 3, 3)], train=True, rtol=1e-4,
    atol=1e-5)
_layer_case("conv2d_bn_act_plain", lambda ms, nn, np: nn.Conv2dBnAct(2, 2, 1), [(1, 2, 2, 2)])
_layer_case("dense_bn_act", lambda ms, nn, np: nn.DenseBnAct(3, 4, has_bn=True, activation="tanh"), [(2, 3)],
            rtol=1e-4, atol=1e-5)
_layer_case("dense_bn_act_train", lambda ms, nn, np: nn.DenseBnAct(3, 2, has_bn=True, activation="relu",
                                                                  momentum=0.5), [(4, 3)], train=True,
            rtol=1e-4, atol=1e-5)
_layer_case("dense_bn_act_nobias", lambda ms, nn, np: nn.DenseBnAct(3, 2, has_bias=False), [(2, 3)])

_init_case("init_conv3d", lambda ms, nn: nn.Conv3d(4, 6, (1, 2, 3), group=2, has_bias=True))
_init_case("init_conv3d_transpose", lambda ms, nn: nn.Conv3dTranspose(4, 6, 2, group=2, has_bias=True))
_init_case("init_conv2d_transpose", lambda ms, nn: nn.Conv2dTranspose(3, 5, (2, 3), has_bias=True))
_init_case("init_conv1d_transpose", lambda ms, nn: nn.Conv1dTranspose(3, 6, 4, group=3, has_bias=True))
_init_case("init_conv2d_bn_act", lambda ms, nn: nn.Conv2dBnAct(3, 4, 3, has_bn=True, has_bias=True))
_init_case("init_dense_bn_act", lambda ms, nn: nn.DenseBnAct(3, 4, has_bn=True))


def _conv_default_bias_bounds(ms, ops, nn, np):
    """The default bias is uniform in +-1/sqrt(fan_in): every value lies inside the bound."""
    out = []
    for net, fan_in in ((nn.Conv3d(2, 64, 3, has_bias=True), 2 * 27),
                        (nn.Conv3dTranspose(2, 64, 3, has_bias=True), 32 * 27),
                        (nn.Conv2dTranspose(4, 64, 3, has_bias=True), 64 * 9),
                        (nn.Conv1dTranspose(4, 64, 3, has_bias=True), 64 * 3)):
        b = net.bias.asnumpy()
        out.append(bool(np.all(np.abs(b) <= 1 / np.sqrt(fan_in) + 1e-7)))
    return out


case(_conv_default_bias_bounds)

_raise_case("bad_conv3d_group", lambda ms, nn, np: nn.Conv3d(3, 4, 3, group=2))
_raise_case("bad_conv3d_kernel_len", lambda ms, nn, np: nn.Conv3d(2, 4, (3, 3)))
_raise_case("bad_conv3d_kernel_zero", lambda ms, nn, np: nn.Conv3d(2, 4, 0))
_raise_case("bad_conv3d_padding_len", lambda ms, nn, np: nn.Conv3d(2, 4, 3, pad_mode="pad", padding=(1, 1, 1)))
_raise_case("bad_conv3d_pad_mode", lambda ms, nn, np: nn.Conv3d(2, 4, 3, pad_mode="full"))
_raise_case("bad_conv3d_has_bias", lambda ms, nn, np: nn.Conv3d(2, 4, 3, has_bias=1))
_raise_case("bad_conv3d_input_rank", lambda ms, nn, np: nn.Conv3d(2, 4, 3)(ms.Tensor(np.ones((1, 2, 4, 4),
                                                                                         np.float32))))
_raise_case("bad_conv3d_transpose_depth_dilation", lambda ms, nn, np: nn.Conv3dTranspose(1, 2, 2, dilation=2))
_raise_case("bad_conv3d_transpose_channels", lambda ms, nn, np: nn.Conv3dTranspose(0, 4, 3))
_raise_case("bad_conv2d_transpose_padding", lambda ms, nn, np: nn.Conv2dTranspose(2, 4, 3, padding=(1, 1)))
_raise_case("bad_conv2d_transpose_padding_type", lambda ms, nn, np: nn.Conv2dTranspose(2, 4, 3, padding=1.0))
_raise_case("bad_conv2d_transpose_output_padding", lambda ms, nn, np: nn.Conv2dTranspose(
    2, 4, 3, stride=2, pad_mode="pad", output_padding=2)(ms.Tensor(np.ones((1, 2, 3, 3), np.float32))))
_raise_case("bad_conv2d_transpose_output_padding_mode", lambda ms, nn, np: nn.Conv2dTranspose(
    2, 4, 3, stride=2, output_padding=1)(ms.Tensor(np.ones((1, 2, 3, 3), np.float32))))
_raise_case("bad_conv1d_transpose_kernel_tuple", lambda ms, nn, np: nn.Conv1dTranspose(2, 4, (3,)))
_raise_case("bad_conv1d_transpose_padding", lambda ms, nn, np: nn.Conv1dTranspose(2, 4, 3, padding=-1))
_raise_case("bad_conv1d_transpose_input_rank", lambda ms, nn, np: nn.Conv1dTranspose(2, 4, 3)(
    ms.Tensor(np.ones((1, 2, 3, 3), np.float32))))
_raise_case("bad_conv2d_bn_act_has_bn", lambda ms, nn, np: nn.Conv2dBnAct(2, 4, 3, has_bn=1))
_raise_case("bad_dense_bn_act_activation", lambda ms, nn, np: nn.DenseBnAct(2, 4, activation=3))
_raise_case("bad_dense_bn_act_activation_name", lambda ms, nn, np: nn.DenseBnAct(2, 4, activation="nonesuch"))


def conv3d_checkpoint(ms, ops, nn, np):
    """A small Conv3d network saved by ``save_checkpoint``: the names, shapes and values read back."""
    import os
    import tempfile

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv3d(1, 2, 2, pad_mode="valid", has_bias=True)
            self.bn = nn.BatchNorm3d(2)
            self.conv2 = nn.Conv3dTranspose(2, 1, 2, stride=2, pad_mode="valid")

        def construct(self, x):
            return self.conv2(self.bn(self.conv1(x)))

    net = Net()
    _fix_params(ms, np, net)
    x = _input(ms, np, (1, 1, 3, 3, 3))
    out = net(x)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "conv3d.ckpt")
        ms.save_checkpoint(net, path)
        loaded = ms.load_checkpoint(path)
        fresh = Net()
        not_loaded = ms.load_param_into_net(fresh, loaded)
        again = fresh(x)
    return {"names": list(loaded), "values": [loaded[k] for k in loaded], "out": out, "reloaded": again,
            "not_loaded": list(not_loaded[0]) if isinstance(not_loaded, tuple) else list(not_loaded)}


case(conv3d_checkpoint, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- normalisation
_layer_case("batchnorm3d_infer", lambda ms, nn, np: nn.BatchNorm3d(3), [(2, 3, 2, 3, 2)], rtol=1e-4, atol=1e-5)
_layer_case("batchnorm3d_train", lambda ms, nn, np: nn.BatchNorm3d(2, momentum=0.8), [(2, 2, 2, 2, 3)],
            train=True, rtol=1e-4, atol=1e-5)
_layer_case("batchnorm3d_batch_stats", lambda ms, nn, np: nn.BatchNorm3d(2, affine=False, use_batch_statistics=True),
            [(3, 2, 1, 2, 2)], rtol=1e-4, atol=1e-5)
_layer_case("syncbatchnorm_infer_2d", lambda ms, nn, np: nn.SyncBatchNorm(3), [(4, 3)], rtol=1e-4, atol=1e-5)
_layer_case("syncbatchnorm_train_4d", lambda ms, nn, np: nn.SyncBatchNorm(2, process_groups=[[0]]),
            [(2, 2, 3, 2)], train=True, rtol=1e-4, atol=1e-5)
_layer_case("groupnorm", lambda ms, nn, np: nn.GroupNorm(2, 4), [(2, 4, 3, 2)], rtol=1e-4, atol=1e-5)
_layer_case("groupnorm_3d_eps", lambda ms, nn, np: nn.GroupNorm(3, 6, eps=0.1), [(2, 6, 2)], rtol=1e-4, atol=1e-5)
_layer_case("groupnorm_no_affine", lambda ms, nn, np: nn.GroupNorm(1, 2, affine=False), [(1, 2, 2, 2, 2)],
            rtol=1e-4, atol=1e-5)
_layer_case("lrn_default", lambda ms, nn, np: nn.LRN(), [(1, 6, 2, 3)], rtol=1e-4, atol=1e-5)
_layer_case("lrn_args", lambda ms, nn, np: nn.LRN(depth_radius=1, bias=2.0, alpha=0.5, beta=0.75),
            [(2, 4, 2, 2)], rtol=1e-4, atol=1e-5)
_layer_case("layernorm_axes", lambda ms, nn, np: nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=2,
                                                              epsilon=1e-3), [(2, 2, 3, 4)], repr_text=False,
            rtol=1e-4, atol=1e-5)
_layer_case("layernorm_default", lambda ms, nn, np: nn.LayerNorm((4,)), [(3, 4)], repr_text=False, rtol=1e-4,
            atol=1e-5)


def layernorm_repr(ms, ops, nn, np):
    return repr(nn.LayerNorm((2,)))


case(layernorm_repr, mindspore_wrong=True,
     expected=lambda np: ("LayerNorm(normalized_shape=(2,), begin_norm_axis=-1, begin_params_axis=-1, "
                          "gamma=Parameter (name=gamma, shape=(2,), dtype=Float32, requires_grad=True), "
                          "beta=Parameter (name=beta, shape=(2,), dtype=Float32, requires_grad=True))"),
     note="MindSpore 2.10's LayerNorm.extend_repr prints 'gammaParameter (...)': the '=' is missing.")

_init_case("init_batchnorm3d", lambda ms, nn: nn.BatchNorm3d(3, affine=False))
_init_case("init_syncbatchnorm", lambda ms, nn: nn.SyncBatchNorm(3))
_init_case("init_groupnorm", lambda ms, nn: nn.GroupNorm(2, 6, affine=False))
_init_case("init_instancenorm2d", lambda ms, nn: nn.InstanceNorm2d(3, affine=False))
_init_case("init_layernorm", lambda ms, nn: nn.LayerNorm((2, 3), gamma_init="zeros", beta_init="ones"))


def _instance_norm_expected(shape, rank_axes):
    """Instance normalization with the case's fixed gamma / beta, in NumPy."""
    def expected(np):
        x = _values(np, shape, 0.0, 1.0).astype(np.float64)
        c = shape[1]
        # get_parameters order: mean, variance, gamma, beta
        gamma = _values(np, (c,), offset=1.0 + 2, scale=0.4).astype(np.float64)
        beta = _values(np, (c,), offset=1.0 + 3, scale=0.4).astype(np.float64)
        axes = tuple(range(2, len(shape)))
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
        bshape = (1, c) + (1,) * (len(shape) - 2)
        return ((x - mean) / np.sqrt(var + 1e-5) * gamma.reshape(bshape) + beta.reshape(bshape)).astype(np.float32)
    return expected


def _instance_case(name, cls_name, shape):
    def run(ms, ops, nn, np):
        net = getattr(nn, cls_name)(shape[1])
        _fix_params(ms, np, net)
        return net(_input(ms, np, shape))
    case(_named(run, name), mindspore_wrong=True, expected=_instance_norm_expected(shape, None), rtol=1e-4,
         atol=1e-5, note="MindSpore 2.10 has no CPU kernel for InstanceNorm (it raises RuntimeError 'Unsupported "
                         "op [InstanceNorm] on CPU'); compared with the NumPy definition.")


_instance_case("instancenorm1d", "InstanceNorm1d", (2, 3, 4))
_instance_case("instancenorm2d", "InstanceNorm2d", (2, 2, 3, 2))
_instance_case("instancenorm3d", "InstanceNorm3d", (1, 2, 2, 2, 3))


def instancenorm_repr(ms, ops, nn, np):
    return [repr(nn.InstanceNorm1d(2)), repr(nn.InstanceNorm3d(3, eps=1e-3, momentum=0.5))]


case(instancenorm_repr)

_raise_case("bad_batchnorm3d_rank", lambda ms, nn, np: nn.BatchNorm3d(2)(ms.Tensor(np.ones((2, 2, 2, 2),
                                                                                            np.float32))))
_raise_case("bad_batchnorm3d_features", lambda ms, nn, np: nn.BatchNorm3d(0))
_raise_case("bad_batchnorm3d_momentum", lambda ms, nn, np: nn.BatchNorm3d(2, momentum=1.5))
_raise_case("bad_syncbatchnorm_rank", lambda ms, nn, np: nn.SyncBatchNorm(2)(ms.Tensor(np.ones((2, 2, 2),
                                                                                               np.float32))))
_raise_case("bad_syncbatchnorm_groups_rank", lambda ms, nn, np: nn.SyncBatchNorm(2, process_groups=[[0, 1]]))
_raise_case("bad_syncbatchnorm_groups_type", lambda ms, nn, np: nn.SyncBatchNorm(2, process_groups=(0,)))
_raise_case("bad_groupnorm_divisible", lambda ms, nn, np: nn.GroupNorm(3, 4))
_raise_case("bad_groupnorm_eps_int", lambda ms, nn, np: nn.GroupNorm(2, 4, eps=1))
_raise_case("bad_groupnorm_groups", lambda ms, nn, np: nn.GroupNorm(0, 4))
_raise_case("bad_groupnorm_affine", lambda ms, nn, np: nn.GroupNorm(2, 4, affine=1))
_raise_case("bad_groupnorm_channels_input", lambda ms, nn, np: nn.GroupNorm(2, 4)(ms.Tensor(np.ones((2, 6, 2),
                                                                                                   np.float32))))
_raise_case("bad_instancenorm_eps", lambda ms, nn, np: nn.InstanceNorm2d(2, eps=1))
_raise_case("bad_instancenorm_momentum", lambda ms, nn, np: nn.InstanceNorm2d(2, momentum=2.0))
_raise_case("bad_instancenorm_features", lambda ms, nn, np: nn.InstanceNorm1d(0))
_raise_case("bad_instancenorm_gamma_init", lambda ms, nn, np: nn.InstanceNorm1d(2, gamma_init=[1.0, 2.0]))
_raise_case("bad_lrn_radius", lambda ms, nn, np: nn.LRN(depth_radius=1.5))
_raise_case("bad_lrn_region", lambda ms, nn, np: nn.LRN(norm_region="WITHIN_CHANNEL"))
_raise_case("bad_lrn_alpha", lambda ms, nn, np: nn.LRN(alpha=1))
_raise_case("bad_layernorm_shape_type", lambda ms, nn, np: nn.LayerNorm(3))
_raise_case("bad_layernorm_input", lambda ms, nn, np: nn.LayerNorm((3,))(ms.Tensor(np.ones((2, 4), np.float32))))


# ---------------------------------------------------------------- pooling
_layer_case("maxpool1d_valid", lambda ms, nn, np: nn.MaxPool1d(3, 2), [(2, 3, 7)])
_layer_case("maxpool1d_same", lambda ms, nn, np: nn.MaxPool1d(2, 2, pad_mode="same"), [(1, 2, 5)])
_layer_case("maxpool1d_pad_indices", lambda ms, nn, np: nn.MaxPool1d(
    3, 2, pad_mode="pad", padding=1, dilation=1, return_indices=True, ceil_mode=True), [(2, 2, 6)])
_layer_case("maxpool1d_pad_unbatched", lambda ms, nn, np: nn.MaxPool1d(2, 1, pad_mode="pad", padding=(1,),
                                                                       dilation=(2,)), [(3, 5)])
_layer_case("maxpool1d_unbatched", lambda ms, nn, np: nn.MaxPool1d(2, 2), [(3, 6)])
_layer_case("maxpool3d_valid", lambda ms, nn, np: nn.MaxPool3d(2, 2), [(1, 2, 4, 4, 5)])
_layer_case("maxpool3d_same_ceil", lambda ms, nn, np: nn.MaxPool3d((2, 3, 2), (2, 2, 1), pad_mode="same"),
            [(1, 1, 3, 5, 3)])
_layer_case("maxpool3d_pad_ceil", lambda ms, nn, np: nn.MaxPool3d(3, 2, pad_mode="pad", padding=1, ceil_mode=True),
            [(1, 2, 4, 5, 4)])
_layer_case("maxpool3d_pad_indices", lambda ms, nn, np: nn.MaxPool3d(
    2, 2, pad_mode="pad", padding=(0, 1, 1), dilation=(1, 1, 2), return_indices=True), [(1, 1, 3, 4, 5)])
_layer_case("maxpool3d_unbatched", lambda ms, nn, np: nn.MaxPool3d(2, 1), [(2, 3, 3, 3)])
_layer_case("avgpool1d_valid", lambda ms, nn, np: nn.AvgPool1d(3, 2), [(2, 2, 7)])
_layer_case("avgpool1d_one_window", lambda ms, nn, np: nn.AvgPool1d(4, 3), [(1, 2, 5)])
_layer_case("avgpool1d_whole", lambda ms, nn, np: nn.AvgPool1d(5, 1), [(1, 2, 5)])
_layer_case("avgpool1d_same", lambda ms, nn, np: nn.AvgPool1d(3, 2, pad_mode="same"), [(1, 2, 6)])
_layer_case("avgpool1d_pad", lambda ms, nn, np: nn.AvgPool1d(3, 2, pad_mode="pad", padding=1,
                                                             count_include_pad=False), [(2, 2, 6)])
_layer_case("avgpool1d_pad_unbatched", lambda ms, nn, np: nn.AvgPool1d(2, 2, pad_mode="pad", padding=1), [(3, 5)])
_layer_case("avgpool3d_valid", lambda ms, nn, np: nn.AvgPool3d(2, 2), [(1, 2, 4, 4, 5)])
_layer_case("avgpool3d_pad_divisor", lambda ms, nn, np: nn.AvgPool3d(
    (2, 3, 3), (1, 2, 2), pad_mode="pad", padding=(1, 1, 1), divisor_override=5), [(1, 1, 3, 4, 4)])
_layer_case("avgpool3d_pad_exclude_ceil", lambda ms, nn, np: nn.AvgPool3d(
    3, 2, pad_mode="pad", padding=1, ceil_mode=True, count_include_pad=False), [(1, 2, 4, 5, 4)])
_layer_case("avgpool3d_same_unbatched", lambda ms, nn, np: nn.AvgPool3d(2, 2, pad_mode="same"), [(2, 3, 3, 3)])
_layer_case("adaptive_avgpool1d", lambda ms, nn, np: nn.AdaptiveAvgPool1d(3), [(2, 2, 6)])
_layer_case("adaptive_maxpool1d", lambda ms, nn, np: nn.AdaptiveMaxPool1d(2), [(2, 3, 6)])
_layer_case("adaptive_avgpool2d", lambda ms, nn, np: nn.AdaptiveAvgPool2d((2, 3)), [(1, 2, 5, 7)])
_layer_case("adaptive_avgpool2d_none", lambda ms, nn, np: nn.AdaptiveAvgPool2d((None, 2)), [(2, 3, 5)])
_layer_case("adaptive_avgpool3d", lambda ms, nn, np: nn.AdaptiveAvgPool3d((2, 2, 3)), [(1, 2, 3, 5, 4)])
_layer_case("adaptive_avgpool3d_int", lambda ms, nn, np: nn.AdaptiveAvgPool3d(2), [(2, 3, 4, 5)])
_layer_case("adaptive_maxpool2d", lambda ms, nn, np: nn.AdaptiveMaxPool2d((3, 2)), [(1, 2, 5, 5)])
_layer_case("adaptive_maxpool2d_indices", lambda ms, nn, np: nn.AdaptiveMaxPool2d(2, return_indices=True),
            [(2, 5, 4)])
_layer_case("adaptive_maxpool3d", lambda ms, nn, np: nn.AdaptiveMaxPool3d((1, 2, 2)), [(1, 2, 3, 4, 5)])
_layer_case("adaptive_maxpool3d_indices", lambda ms, nn, np: nn.AdaptiveMaxPool3d(2, return_indices=True),
            [(1, 1, 3, 4, 4)])
_layer_case("lppool1d", lambda ms, nn, np: nn.LPPool1d(2, 3, 2), [(2, 2, 7)], rtol=1e-4, atol=1e-5)


def lppool1d_ceil(ms, ops, nn, np):
    x = ops.relu(_input(ms, np, (3, 5)))
    return nn.LPPool1d(3.0, 2, ceil_mode=True)(x)


def _lppool1d_ceil_expected(np):
    x = np.maximum(_values(np, (3, 5), 0.0, 1.0).astype(np.float64), 0)
    windows = [x[:, 0:2], x[:, 2:4], x[:, 4:5]]
    return np.stack([(w ** 3).sum(axis=1) ** (1 / 3) for w in windows], axis=1).astype(np.float32)


case(lppool1d_ceil, mindspore_wrong=True, expected=_lppool1d_ceil_expected, rtol=1e-4, atol=1e-5,
     note="With ceil_mode, MindSpore 2.10's LPPool1d averages the last, partial window over the elements it covers "
          "and multiplies by the full kernel size, so that window's power sum counts its elements kernel_size / "
          "covered times (0.718 instead of 0.570 here); the p-norm of the window is the sum over what it covers.")
_layer_case("lppool2d", lambda ms, nn, np: nn.LPPool2d(2, (2, 3), (1, 2)), [(1, 2, 4, 5)], rtol=1e-4, atol=1e-5)
_layer_case("lppool2d_norm1", lambda ms, nn, np: nn.LPPool2d(1, 2), [(2, 1, 4, 4)], rtol=1e-4, atol=1e-5)


def _fractional_case(name, cls_name, shape, samples_shape, grad_inputs=True, **kwargs):
    def run(ms, ops, nn, np):
        samples = ms.Tensor(np.linspace(0.1, 0.9, int(np.prod(samples_shape))).reshape(samples_shape)
                            .astype(np.float32))
        net = getattr(nn, cls_name)(_random_samples=samples, **kwargs)
        return _layer(ms, np, net, [_input(ms, np, shape)], grad_inputs=grad_inputs)
    case(_named(run, name))


# MindSpore 2.10's CPU backward of FractionalMaxPool2d takes only float16: the 2-D cases record the forward only
_fractional_case("fractional_maxpool2d_size", "FractionalMaxPool2d", (1, 2, 7, 6), (1, 2, 2), False, kernel_size=2,
                 output_size=(3, 3))
_fractional_case("fractional_maxpool2d_ratio_indices", "FractionalMaxPool2d", (2, 1, 8, 8), (2, 1, 2), False,
                 kernel_size=(2, 3), output_ratio=(0.5, 0.5), return_indices=True)
_fractional_case("fractional_maxpool3d_size", "FractionalMaxPool3d", (1, 2, 5, 6, 5), (1, 2, 3), kernel_size=2,
                 output_size=(2, 3, 2))
_fractional_case("fractional_maxpool3d_ratio_indices", "FractionalMaxPool3d", (1, 1, 6, 6, 6), (1, 1, 3),
                 kernel_size=(2, 2, 2), output_ratio=(0.5, 0.5, 0.5), return_indices=True)


def _unpool_case(name, pool, unpool, shape, output_size=None):
    def run(ms, ops, nn, np):
        x = _input(ms, np, shape)
        out, idx = pool(nn)(x)
        net = unpool(nn)
        if output_size is None:
            y = net(out, idx)
        else:
            y = net(out, idx, output_size)

        def objective(values):
            return _probe_sum(ms, np, net(values, idx) if output_size is None else net(values, idx, output_size))

        return {"out": y, "grad": ms.grad(objective)(out), "repr": repr(net)}
    case(_named(run, name))


_unpool_case("max_unpool1d", lambda nn: nn.MaxPool1d(2, 2, pad_mode="pad", return_indices=True),
             lambda nn: nn.MaxUnpool1d(2), (2, 2, 6))
# windows that do not overlap: no two outputs share an index (MindSpore then writes one of them, cellkit's op adds)
_unpool_case("max_unpool1d_stride_size", lambda nn: nn.MaxPool1d(2, 2, pad_mode="pad", padding=1,
                                                                  return_indices=True),
             lambda nn: nn.MaxUnpool1d(2, 2, 1), (1, 2, 7), output_size=(1, 2, 7))
_unpool_case("max_unpool2d", lambda nn: nn.MaxPool2d(2, 2, pad_mode="pad", return_indices=True),
             lambda nn: nn.MaxUnpool2d(2), (1, 2, 4, 4))
_unpool_case("max_unpool2d_pad", lambda nn: nn.MaxPool2d(2, 2, pad_mode="pad", padding=1, return_indices=True),
             lambda nn: nn.MaxUnpool2d((2, 2), (2, 2), (1, 1)), (1, 1, 5, 5), output_size=(1, 1, 5, 5))
_unpool_case("max_unpool3d", lambda nn: nn.MaxPool3d(2, 2, pad_mode="pad", return_indices=True),
             lambda nn: nn.MaxUnpool3d(2), (1, 1, 4, 4, 2))

_raise_case("bad_maxpool1d_kernel_tuple", lambda ms, nn, np: nn.MaxPool1d((2, 2)))
_raise_case("bad_maxpool1d_indices_valid", lambda ms, nn, np: nn.MaxPool1d(2, return_indices=True))
_raise_case("bad_maxpool1d_pad_mode", lambda ms, nn, np: nn.MaxPool1d(2, pad_mode="full"))
_raise_case("bad_maxpool1d_pad_mode_type", lambda ms, nn, np: nn.MaxPool1d(2, pad_mode=1))
_raise_case("bad_maxpool1d_kernel_zero", lambda ms, nn, np: nn.MaxPool1d(0))
_raise_case("bad_maxpool1d_input", lambda ms, nn, np: nn.MaxPool1d(2)(ms.Tensor(np.ones((1, 1, 2, 4), np.float32))))
_raise_case("bad_maxpool3d_dilation_valid", lambda ms, nn, np: nn.MaxPool3d(2, dilation=2))
_raise_case("bad_maxpool3d_padding_len", lambda ms, nn, np: nn.MaxPool3d(2, pad_mode="pad", padding=(1, 1)))
_raise_case("bad_maxpool3d_kernel_float", lambda ms, nn, np: nn.MaxPool3d(2.0))
_raise_case("bad_avgpool1d_padding_len", lambda ms, nn, np: nn.AvgPool1d(2, pad_mode="pad", padding=(1, 1)))
_raise_case("bad_avgpool3d_divisor", lambda ms, nn, np: nn.AvgPool3d(2, divisor_override=0))
_raise_case("bad_avgpool3d_padding_neg", lambda ms, nn, np: nn.AvgPool3d(2, pad_mode="pad", padding=-1))
_raise_case("bad_adaptive_avgpool1d_size", lambda ms, nn, np: nn.AdaptiveAvgPool1d(0))
_raise_case("bad_adaptive_avgpool1d_type", lambda ms, nn, np: nn.AdaptiveAvgPool1d((2,)))
_raise_case("bad_adaptive_avgpool1d_divisible", lambda ms, nn, np: nn.AdaptiveAvgPool1d(4)(
    ms.Tensor(np.ones((1, 1, 6), np.float32))))
_raise_case("bad_adaptive_maxpool1d_rank", lambda ms, nn, np: nn.AdaptiveMaxPool1d(2)(
    ms.Tensor(np.ones((1, 6), np.float32))))
_raise_case("bad_adaptive_maxpool1d_dtype", lambda ms, nn, np: nn.AdaptiveMaxPool1d(2)(
    ms.Tensor(np.ones((1, 1, 6), np.float64))))
_raise_case("bad_adaptive_avgpool2d_size", lambda ms, nn, np: nn.AdaptiveAvgPool2d((2, 2, 2)))
_raise_case("bad_lppool1d_input", lambda ms, nn, np: nn.LPPool1d(2, 2)(ms.Tensor(np.ones((1, 1, 2, 4), np.float32))))
_raise_case("bad_fractional_maxpool2d_no_size", lambda ms, nn, np: nn.FractionalMaxPool2d(2)(
    ms.Tensor(np.ones((1, 1, 6, 6), np.float32))))
_raise_case("bad_max_unpool2d_output_size", lambda ms, nn, np: nn.MaxUnpool2d(2)(
    ms.Tensor(np.ones((1, 1, 2, 2), np.float32)), ms.Tensor(np.zeros((1, 1, 2, 2), np.int64)), [1, 1, 4, 4]))


# ---------------------------------------------------------------- padding
_layer_case("constant_pad1d", lambda ms, nn, np: nn.ConstantPad1d((1, 2), 0.5), [(2, 3, 4)])
_layer_case("constant_pad1d_int_negative", lambda ms, nn, np: nn.ConstantPad1d((-1, 2), 1), [(2, 4)])
_layer_case("constant_pad2d", lambda ms, nn, np: nn.ConstantPad2d((1, 0, 2, 1), -1.0), [(1, 2, 3, 3)])
_layer_case("constant_pad2d_int", lambda ms, nn, np: nn.ConstantPad2d(1, 2.0), [(2, 3, 2)])
_layer_case("constant_pad3d", lambda ms, nn, np: nn.ConstantPad3d((1, 1, 0, 1, 2, 0), 0.25), [(1, 1, 2, 2, 3)])
_layer_case("constant_pad3d_short", lambda ms, nn, np: nn.ConstantPad3d((1, 2), 3.0), [(2, 2, 2)])
_layer_case("zero_pad2d", lambda ms, nn, np: nn.ZeroPad2d((1, 2, 0, 1)), [(1, 2, 2, 3)])
_layer_case("zero_pad2d_int", lambda ms, nn, np: nn.ZeroPad2d(2), [(1, 2, 2)])
_layer_case("reflection_pad1d", lambda ms, nn, np: nn.ReflectionPad1d((2, 1)), [(2, 3, 4)])
_layer_case("reflection_pad1d_int_2d_input", lambda ms, nn, np: nn.ReflectionPad1d(2), [(2, 4)])
_layer_case("reflection_pad2d", lambda ms, nn, np: nn.ReflectionPad2d((1, 0, 2, 1)), [(1, 2, 3, 3)])
_layer_case("reflection_pad2d_int", lambda ms, nn, np: nn.ReflectionPad2d(1), [(2, 3, 3)])
_layer_case("reflection_pad3d", lambda ms, nn, np: nn.ReflectionPad3d((1, 1, 0, 1, 1, 0)), [(1, 1, 2, 3, 3)])
_layer_case("replication_pad1d", lambda ms, nn, np: nn.ReplicationPad1d((2, 1)), [(2, 3, 4)])
_layer_case("replication_pad1d_unbatched", lambda ms, nn, np: nn.ReplicationPad1d(1), [(3, 4)])
_layer_case("replication_pad2d", lambda ms, nn, np: nn.ReplicationPad2d((1, 0, 2, 1)), [(1, 2, 3, 3)])
_layer_case("replication_pad2d_unbatched", lambda ms, nn, np: nn.ReplicationPad2d(1), [(2, 2, 3)])
_layer_case("replication_pad3d", lambda ms, nn, np: nn.ReplicationPad3d((1, 0, 0, 1, 1, 1)), [(1, 1, 2, 2, 3)])
_layer_case("replication_pad3d_unbatched", lambda ms, nn, np: nn.ReplicationPad3d(1), [(1, 2, 2, 2)])
_layer_case("pad_constant", lambda ms, nn, np: nn.Pad(((1, 0), (2, 1))), [(2, 3)])
_layer_case("pad_reflect", lambda ms, nn, np: nn.Pad(((0, 0), (0, 0), (1, 2), (2, 1)), mode="REFLECT"),
            [(1, 2, 4, 4)], repr_text=False)
_layer_case("pad_symmetric", lambda ms, nn, np: nn.Pad(((0, 0), (2, 1)), mode="SYMMETRIC"), [(2, 3)],
            repr_text=False)

_raise_case("bad_constant_pad1d_len", lambda ms, nn, np: nn.ConstantPad1d((1, 2, 3, 4), 0.0))
_raise_case("bad_constant_pad2d_odd", lambda ms, nn, np: nn.ConstantPad2d((1, 2, 3), 0.0))
_raise_case("bad_constant_pad2d_long", lambda ms, nn, np: nn.ConstantPad2d((1, 2, 3, 4, 5, 6), 0.0))
_raise_case("bad_constant_pad3d_type", lambda ms, nn, np: nn.ConstantPad3d([1, 2], 0.0))
_raise_case("bad_constant_pad_value", lambda ms, nn, np: nn.ConstantPad2d(1, "0"))
_raise_case("bad_zero_pad2d_type", lambda ms, nn, np: nn.ZeroPad2d(1.5))
_raise_case("bad_reflection_pad1d_negative", lambda ms, nn, np: nn.ReflectionPad1d((-1, 1)))
_raise_case("bad_reflection_pad2d_list", lambda ms, nn, np: nn.ReflectionPad2d([1, 1, 1, 1]))
_raise_case("bad_reflection_pad2d_odd", lambda ms, nn, np: nn.ReflectionPad2d((1, 1, 1)))
_raise_case("bad_reflection_pad2d_float_item", lambda ms, nn, np: nn.ReflectionPad2d((1, 1.0)))
_raise_case("bad_replication_pad3d_list", lambda ms, nn, np: nn.ReplicationPad3d([1, 1]))
_raise_case("bad_replication_pad1d_odd", lambda ms, nn, np: nn.ReplicationPad1d((1, 1, 1)))
_raise_case("bad_pad_mode", lambda ms, nn, np: nn.Pad(((1, 1),), mode="EDGE"))
_raise_case("bad_pad_paddings_list", lambda ms, nn, np: nn.Pad([[1, 1]]))
_raise_case("bad_pad_pair", lambda ms, nn, np: nn.Pad(((1, 1, 1),)))
_raise_case("bad_pad_too_many", lambda ms, nn, np: nn.Pad(((0, 0),) * 5))


# ---------------------------------------------------------------- resampling and image cells
_layer_case("upsample_nearest_size", lambda ms, nn, np: nn.Upsample(size=(4, 5)), [(1, 2, 2, 3)])
_layer_case("upsample_bilinear_scale", lambda ms, nn, np: nn.Upsample(scale_factor=(2.0, 1.5), mode="bilinear",
                                                                     recompute_scale_factor=True),
            [(1, 1, 2, 4)], rtol=1e-4, atol=1e-5)
_layer_case("upsample_bilinear_align", lambda ms, nn, np: nn.Upsample(size=(3, 5), mode="bilinear",
                                                                     align_corners=True), [(2, 1, 2, 3)],
            rtol=1e-4, atol=1e-5)
_layer_case("upsample_linear", lambda ms, nn, np: nn.Upsample(size=7, mode="linear"), [(1, 2, 4)], rtol=1e-4,
            atol=1e-5)
_layer_case("upsample_trilinear", lambda ms, nn, np: nn.Upsample(scale_factor=2.0, mode="trilinear"),
            [(1, 1, 2, 2, 2)], rtol=1e-4, atol=1e-5)
_layer_case("upsample_bicubic", lambda ms, nn, np: nn.Upsample(size=(4, 4), mode="bicubic", align_corners=False),
            [(1, 1, 3, 3)], rtol=1e-4, atol=1e-5)
_layer_case("upsample_area", lambda ms, nn, np: nn.Upsample(size=(2, 3), mode="area"), [(1, 2, 4, 6)],
            rtol=1e-4, atol=1e-5)
_layer_case("pixel_shuffle", lambda ms, nn, np: nn.PixelShuffle(2), [(2, 8, 2, 3)])
_layer_case("pixel_shuffle_3d", lambda ms, nn, np: nn.PixelShuffle(3), [(9, 1, 2)])
_layer_case("pixel_unshuffle", lambda ms, nn, np: nn.PixelUnshuffle(2), [(1, 2, 4, 6)])
_layer_case("channel_shuffle", lambda ms, nn, np: nn.ChannelShuffle(3), [(2, 6, 2, 2)])
_layer_case("channel_shuffle_3d", lambda ms, nn, np: nn.ChannelShuffle(2), [(1, 4, 3)])
_layer_case("central_crop", lambda ms, nn, np: nn.CentralCrop(0.5), [(2, 3, 8, 6)])
_layer_case("central_crop_3d_odd", lambda ms, nn, np: nn.CentralCrop(0.3), [(2, 7, 5)])
_layer_case("central_crop_full", lambda ms, nn, np: nn.CentralCrop(1.0), [(1, 3, 3)])
_METRIC_NOTE = ("MindSpore 2.10's PSNR and SSIM raise on every call in PyNative mode on the CPU (ValueError: "
                "'ScalarCast' refuses Float32 when max_val is converted); compared with the NumPy definition.")


def _psnr_expected(shape, max_val, scale=1.0):
    def expected(np):
        a = _values(np, shape, 0.0, 1.0).astype(np.float64)
        b = _values(np, shape, 0.5, 1.0).astype(np.float64)
        mse = ((a - b) ** 2).mean(axis=(1, 2, 3))
        return (10 * np.log10(max_val ** 2 / mse)).astype(np.float32)
    return expected


def _ssim_numpy(np, a, b, max_val, size, sigma, k1, k2):
    offsets = np.arange(size) - (size - 1) // 2
    g = np.exp(-(offsets[:, None] ** 2 + offsets[None, :] ** 2) / (2 * sigma ** 2))
    g = g / g.sum()

    def filt(img):  # (N, C, H, W) -> valid correlation with g
        n, c, h, w = img.shape
        out = np.zeros((n, c, h - size + 1, w - size + 1))
        for i in range(size):
            for j in range(size):
                out += g[i, j] * img[:, :, i:i + h - size + 1, j:j + w - size + 1]
        return out

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = filt(a), filt(b)
    s1 = filt(a * a) - mu1 ** 2
    s2 = filt(b * b) - mu2 ** 2
    s12 = filt(a * b) - mu1 * mu2
    m = (2 * mu1 * mu2 + c1) * (2 * s12 + c2) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))
    return m.mean(axis=(2, 3)).mean(axis=1)


def _ssim_expected(shape, **kwargs):
    def expected(np):
        a = _values(np, shape, 0.0, 1.0).astype(np.float64)
        b = _values(np, shape, 0.5, 1.0).astype(np.float64)
        return _ssim_numpy(np, a, b, **kwargs).astype(np.float32)
    return expected


def _metric_case(name, build, shape, expected):
    def run(ms, ops, nn, np):
        return build(nn)(_input(ms, np, shape), _input(ms, np, shape, offset=0.5))
    case(_named(run, name), mindspore_wrong=True, expected=expected, rtol=1e-4, atol=1e-5, note=_METRIC_NOTE)


_metric_case("psnr", lambda nn: nn.PSNR(), (2, 3, 4, 4), _psnr_expected((2, 3, 4, 4), 1.0))
_metric_case("psnr_max_val", lambda nn: nn.PSNR(max_val=255), (1, 1, 3, 3), _psnr_expected((1, 1, 3, 3), 255.0))
_metric_case("ssim_default", lambda nn: nn.SSIM(), (1, 2, 12, 13),
             _ssim_expected((1, 2, 12, 13), max_val=1.0, size=11, sigma=1.5, k1=0.01, k2=0.03))
_metric_case("ssim_small_window", lambda nn: nn.SSIM(max_val=2.0, filter_size=4, filter_sigma=0.8, k1=0.02, k2=0.05),
             (2, 3, 6, 5), _ssim_expected((2, 3, 6, 5), max_val=2.0, size=4, sigma=0.8, k1=0.02, k2=0.05))


def psnr_uint8(ms, ops, nn, np):
    a = ms.Tensor((np.arange(16).reshape(1, 1, 4, 4) * 13 % 256).astype(np.uint8))
    b = ms.Tensor((np.arange(16).reshape(1, 1, 4, 4) * 7 % 256).astype(np.uint8))
    return nn.PSNR(max_val=255)(a, b)


def _psnr_uint8_expected(np):
    a = (np.arange(16).reshape(1, 1, 4, 4) * 13 % 256) / 255.0
    b = (np.arange(16).reshape(1, 1, 4, 4) * 7 % 256) / 255.0
    return (10 * np.log10(1.0 / ((a - b) ** 2).mean(axis=(1, 2, 3)))).astype(np.float32)


case(psnr_uint8, mindspore_wrong=True, expected=_psnr_uint8_expected, rtol=1e-4, atol=1e-5, note=_METRIC_NOTE)


def ssim_gradient(ms, ops, nn, np):
    """SSIM is differentiable: its gradient with respect to an image, against central differences."""
    net = nn.SSIM(filter_size=3, filter_sigma=1.0)
    a = _input(ms, np, (1, 1, 4, 4))
    b = _input(ms, np, (1, 1, 4, 4), offset=0.5)
    return ms.grad(lambda x: net(x, b).sum())(a)


def _ssim_gradient_expected(np):
    a = _values(np, (1, 1, 4, 4), 0.0, 1.0).astype(np.float64)
    b = _values(np, (1, 1, 4, 4), 0.5, 1.0).astype(np.float64)
    grad = np.zeros_like(a)
    eps = 1e-6
    for i in range(a.size):
        up, down = a.copy(), a.copy()
        up.reshape(-1)[i] += eps
        down.reshape(-1)[i] -= eps
        f = [_ssim_numpy(np, v, b, 1.0, 3, 1.0, 0.01, 0.03).sum() for v in (up, down)]
        grad.reshape(-1)[i] = (f[0] - f[1]) / (2 * eps)
    return grad.astype(np.float32)


case(ssim_gradient, mindspore_wrong=True, expected=_ssim_gradient_expected, rtol=1e-3, atol=1e-4, note=_METRIC_NOTE)


def ssim_parameters(ms, ops, nn, np):
    net = nn.SSIM(filter_size=5)
    return [(p.name, tuple(p.shape), p.requires_grad) for p in net.get_parameters()], net.conv.weight


case(ssim_parameters)

_raise_case("bad_channel_shuffle_groups", lambda ms, nn, np: nn.ChannelShuffle(0))
_raise_case("bad_channel_shuffle_type", lambda ms, nn, np: nn.ChannelShuffle(2.0))
_raise_case("bad_channel_shuffle_divisible", lambda ms, nn, np: nn.ChannelShuffle(3)(
    ms.Tensor(np.ones((1, 4, 2), np.float32))))
_raise_case("bad_central_crop_zero", lambda ms, nn, np: nn.CentralCrop(0.0))
_raise_case("bad_central_crop_int", lambda ms, nn, np: nn.CentralCrop(1))
_raise_case("bad_central_crop_rank", lambda ms, nn, np: nn.CentralCrop(0.5)(ms.Tensor(np.ones((4, 4), np.float32))))
_raise_case("bad_pixel_shuffle_channels", lambda ms, nn, np: nn.PixelShuffle(2)(
    ms.Tensor(np.ones((1, 3, 2, 2), np.float32))))
_raise_case("bad_pixel_unshuffle_size", lambda ms, nn, np: nn.PixelUnshuffle(2)(
    ms.Tensor(np.ones((1, 1, 3, 4), np.float32))))
_raise_case("bad_upsample_both", lambda ms, nn, np: nn.Upsample(size=4, scale_factor=2.0)(
    ms.Tensor(np.ones((1, 1, 2), np.float32))))
_raise_case("bad_psnr_max_val", lambda ms, nn, np: nn.PSNR(max_val=0))
_raise_case("bad_psnr_max_val_type", lambda ms, nn, np: nn.PSNR(max_val="1"))
_raise_case("bad_psnr_rank", lambda ms, nn, np: nn.PSNR()(ms.Tensor(np.ones((1, 4, 4), np.float32)),
                                                          ms.Tensor(np.ones((1, 4, 4), np.float32))))
_raise_case("bad_psnr_shapes", lambda ms, nn, np: nn.PSNR()(ms.Tensor(np.ones((1, 1, 4, 4), np.float32)),
                                                            ms.Tensor(np.ones((1, 1, 4, 3), np.float32))))
_raise_case("bad_psnr_dtypes", lambda ms, nn, np: nn.PSNR()(ms.Tensor(np.ones((1, 1, 4, 4), np.float32)),
                                                            ms.Tensor(np.ones((1, 1, 4, 4), np.float16))))
_raise_case("bad_ssim_filter_size", lambda ms, nn, np: nn.SSIM(filter_size=0))
_raise_case("bad_ssim_sigma", lambda ms, nn, np: nn.SSIM(filter_sigma=0.0))
_raise_case("bad_ssim_k1", lambda ms, nn, np: nn.SSIM(k1=1))
_raise_case("bad_ssim_small_image", lambda ms, nn, np: nn.SSIM()(ms.Tensor(np.ones((1, 1, 8, 8), np.float32)),
                                                                 ms.Tensor(np.ones((1, 1, 8, 8), np.float32))))
_raise_case("bad_ssim_int_image", lambda ms, nn, np: nn.SSIM(filter_size=2)(
    ms.Tensor(np.ones((1, 1, 4, 4), np.int32)), ms.Tensor(np.ones((1, 1, 4, 4), np.int32))))


# ---------------------------------------------------------------- the layers that existed before: checked too
_layer_case("conv1d_same_bias", lambda ms, nn, np: nn.Conv1d(2, 4, 3, stride=2, has_bias=True, weight_init="ones",
                                                             bias_init="zeros"), [(2, 2, 7)], rtol=1e-4, atol=1e-5)
_layer_case("conv1d_pad_group_dilation", lambda ms, nn, np: nn.Conv1d(
    4, 2, 2, pad_mode="pad", padding=2, dilation=2, group=2, weight_init="ones"), [(1, 4, 5)], rtol=1e-4, atol=1e-5)
_layer_case("conv2d_pad_tuple", lambda ms, nn, np: nn.Conv2d(
    2, 2, (2, 3), stride=(2, 1), pad_mode="pad", padding=(1, 0, 2, 1), has_bias=True, weight_init="ones",
    bias_init="zeros"), [(1, 2, 4, 4)], rtol=1e-4, atol=1e-5)
_layer_case("layernorm_first_axis", lambda ms, nn, np: nn.LayerNorm((2, 3, 2), begin_norm_axis=1,
                                                                    begin_params_axis=1, epsilon=1e-5),
            [(2, 2, 3, 2)], repr_text=False, rtol=1e-4, atol=1e-5)
_layer_case("layernorm_params_after_norm_axis", lambda ms, nn, np: nn.LayerNorm((4,), begin_norm_axis=1,
                                                                                begin_params_axis=-1),
            [(2, 3, 4)], repr_text=False, rtol=1e-4, atol=1e-5)
_raise_case("bad_layernorm_params_shape", lambda ms, nn, np: nn.LayerNorm((3,), begin_params_axis=1)(
    ms.Tensor(np.ones((2, 4, 3), np.float32))))
_raise_case("bad_layernorm_axis_type", lambda ms, nn, np: nn.LayerNorm((3,), begin_norm_axis=1.0)(
    ms.Tensor(np.ones((2, 3), np.float32))))
