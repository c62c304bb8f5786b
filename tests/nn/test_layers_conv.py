"""nn.Conv1d: shapes, values against a NumPy reference and MindSpore 2.10, gradients, repr, errors.

Runs on NumPy and on array_api_strict's ``device1`` (the ``backend`` fixture).
MindSpore numbers were printed by MindSpore 2.10 (CPU) for the same inputs.
"""
import numpy as np
import pytest

import cellkit as ms
from cellkit import nn
from tests.gradcheck import check_grad
from tests.nn.paramgrad import check_param_grad

T = ms.Tensor
X = np.random.default_rng(0).standard_normal((2, 4, 7)).astype(np.float32)
W = ((np.arange(4 * 2 * 3, dtype=np.float32).reshape(4, 2, 3) % 5 - 2) / 4).astype(np.float32)
B = np.array([0.1, -0.2, 0.3, 0.0], np.float32)


def conv1d_ref(x, w, b=None, stride=1, pad=(0, 0), dilation=1, group=1):
    """Direct loops: out[n, o, t] = sum over the group's channels and taps."""
    n, c, length = x.shape
    o, cg, k = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), pad))
    span = dilation * (k - 1) + 1
    out_len = (xp.shape[2] - span) // stride + 1
    out = np.zeros((n, o, out_len), np.float64)
    per_group = o // group
    for oc in range(o):
        g = oc // per_group
        for t in range(out_len):
            start = t * stride
            window = xp[:, g * cg:(g + 1) * cg, start:start + span:dilation]
            out[:, oc, t] = (window * w[oc]).sum(axis=(1, 2))
    if b is not None:
        out += np.asarray(b).reshape(1, -1, 1)
    return out


def same_pads(length, k, stride, dilation):
    out = -(-length // stride)
    total = max((out - 1) * stride + dilation * (k - 1) + 1 - length, 0)
    return total // 2, total - total // 2


def test_conv1d_weight_is_4d_as_in_mindspore_and_shapes_follow_pad_mode(backend):
    conv = nn.Conv1d(4, 6, 3)
    assert conv.weight.shape == (6, 4, 1, 3) and conv.bias is None
    assert [name for name, _ in conv.parameters_and_names()] == ["weight"]
    assert conv(T(X)).shape == (2, 6, 7)                                   # 'same', stride 1
    assert nn.Conv1d(4, 6, 3, stride=2)(T(X)).shape == (2, 6, 4)           # ceil(7 / 2)
    assert nn.Conv1d(4, 6, 3, pad_mode="valid")(T(X)).shape == (2, 6, 5)
    assert nn.Conv1d(4, 6, 3, pad_mode="pad", padding=2)(T(X)).shape == (2, 6, 9)
    with_bias = nn.Conv1d(4, 6, 3, has_bias=True)
    assert with_bias.bias.shape == (6,)
    assert [name for name, _ in with_bias.parameters_and_names()] == ["weight", "bias"]


@pytest.mark.parametrize("pad_mode, padding, stride, dilation, group", [
    ("valid", 0, 1, 1, 1),
    ("same", 0, 2, 1, 1),
    ("same", 0, 1, 2, 2),
    ("pad", 2, 2, 2, 2),
    ("pad", 1, 3, 1, 4),
])
def test_conv1d_matches_numpy_reference(backend, pad_mode, padding, stride, dilation, group):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((4, 4 // group, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    conv = nn.Conv1d(4, 4, 3, stride=stride, pad_mode=pad_mode, padding=padding, dilation=dilation, group=group,
                     has_bias=True, weight_init=T(w), bias_init=T(b))
    if pad_mode == "same":
        pads = same_pads(7, 3, stride, dilation)
    else:
        pads = (padding, padding)
    expected = conv1d_ref(X.astype(np.float64), w, b, stride, pads, dilation, group)
    out = conv(T(X))
    assert out.dtype is ms.float32
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)


def test_conv1d_matches_mindspore_values(backend):
    conv = nn.Conv1d(4, 4, 3, stride=2, pad_mode="pad", padding=2, dilation=2, group=2, has_bias=True,
                     weight_init=T(W), bias_init=T(B))
    ms_first_sample = [[1.1748186, -0.5395742, -0.2725905, -0.0572296],
                       [-0.1970795, 0.7305698, -0.6327815, 0.0639762],
                       [-0.6252231, -0.4013587, 0.1393822, 0.4512916],
                       [-0.2629485, -1.1075354, -0.184291, 0.0151372]]
    np.testing.assert_allclose(conv(T(X)).asnumpy()[0], ms_first_sample, rtol=1e-5, atol=1e-6)
    # 'same' with stride 3 on length 7: output 3, the odd padding pixel goes on the right.
    ones = nn.Conv1d(4, 2, 4, stride=3, weight_init=T(np.ones((2, 4, 4), np.float32)))
    np.testing.assert_allclose(ones(T(X)).asnumpy()[:, 0], [[-1.8576865, -2.4020748, -1.6294734],
                                                            [1.1805896, 1.5757071, 3.8790169]], rtol=1e-5)


def test_conv1d_gradients_match_finite_differences(backend):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 6))
    conv = nn.Conv1d(4, 2, 3, stride=2, pad_mode="pad", padding=1, dilation=2, group=2, has_bias=True,
                     weight_init=T(rng.standard_normal((2, 2, 3))), bias_init=T(rng.standard_normal(2)),
                     dtype=ms.float64)
    check_grad(conv, x)
    check_param_grad(conv, [conv.weight, conv.bias], T(x))


def test_conv1d_repr_matches_mindspore():
    conv = nn.Conv1d(2, 4, 3, stride=2, pad_mode="pad", padding=1, dilation=2, group=2, has_bias=True,
                     weight_init="normal", bias_init="zeros")
    assert repr(conv) == (
        "Conv1d(input_channels=2, output_channels=4, kernel_size=(1, 3), stride=(1, 2), pad_mode=pad, "
        "padding=(0, 0, 1, 1), dilation=(1, 2), group=2, has_bias=True, weight_init=normal, bias_init=zeros, "
        "format=NCHW)"
    )
    # MindSpore prints its default initializer object; cellkit prints the initializer's own repr.
    assert repr(nn.Conv1d(2, 4, 3)).startswith(
        "Conv1d(input_channels=2, output_channels=4, kernel_size=(1, 3), stride=(1, 1), pad_mode=same, "
        "padding=(0, 0, 0, 0), dilation=(1, 1), group=1, has_bias=False, weight_init=HeUniform(")


def test_conv1d_tensor_weight_init_is_3d_and_left_unchanged():
    w = T(W)
    conv = nn.Conv1d(4, 4, 3, group=2, weight_init=w)
    assert conv.weight.shape == (4, 2, 1, 3)
    np.testing.assert_array_equal(conv.weight.asnumpy()[:, :, 0, :], W)
    assert w.shape == (4, 2, 3)
    with pytest.raises(ValueError, match="weight_init"):
        nn.Conv1d(4, 4, 3, group=2, weight_init=T(W[:, :, None, :]))


@pytest.mark.parametrize("kwargs, error, word", [
    (dict(kernel_size=(3,)), TypeError, "kernel_size"),
    (dict(kernel_size=0), ValueError, "kernel_size"),
    (dict(stride=1.0), TypeError, "stride"),
    (dict(dilation=0), ValueError, "dilation"),
    (dict(pad_mode="full"), ValueError, "pad_mode"),
    (dict(padding=1), ValueError, "padding"),
    (dict(pad_mode="pad", padding=-1), ValueError, "padding"),
    (dict(group=4), ValueError, "group"),
    (dict(in_channels=0), ValueError, "in_channels"),
    (dict(has_bias=1), TypeError, "has_bias"),
])
def test_conv1d_bad_arguments_raise_mindspore_exception_types(kwargs, error, word):
    args = dict(in_channels=6, out_channels=6, kernel_size=3)
    args.update(kwargs)
    with pytest.raises(error, match=word):
        nn.Conv1d(**args)


def test_conv1d_refuses_inputs_that_are_not_3d(backend):
    with pytest.raises(ValueError, match="3-D"):
        nn.Conv1d(4, 2, 3)(T(X[0]))
