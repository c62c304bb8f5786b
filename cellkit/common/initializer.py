"""Initializers: how a Parameter's first values are drawn.

:func:`initializer` returns a *lazily initialised* Tensor: it knows its
shape, dtype and :class:`Initializer`, and creates its values only when
``init_data()`` is called -- which ``Parameter(...)`` does at once::

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, Normal
    >>> t = initializer("ones", (2, 3), ms.float32)
    >>> t.has_init
    True
    >>> print(t.init_data())
    [[1. 1. 1.]
     [1. 1. 1.]]
    >>> w = ms.Parameter(initializer(Normal(sigma=0.02), (4, 4)), name="w")
    >>> w.has_init, w.shape
    (False, (4, 4))

An :class:`Initializer` is also callable on a NumPy array, which it fills in
place (as in MindSpore).  Every random draw comes from the host generator of
:func:`cellkit.seed.generator`, so ``ms.set_seed(n)`` makes initial weights
reproducible on every backend; the values are drawn in float64 on the host,
written into an array of the requested dtype (so integer dtypes truncate),
then moved to the device.

Fan-in and fan-out follow MindSpore: for a 2-D shape ``(out, in)`` they are
``in`` and ``out``; for more dimensions ``(out, in, *kernel)`` both are
multiplied by the kernel size.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import backend as _backend
from .. import dtype as _dt
from .. import seed as _seed
from ..tensor import Tensor, check_allocation

__all__ = [
    "Initializer", "initializer", "Zero", "One", "Constant", "Normal", "Uniform", "TruncatedNormal",
    "HeUniform", "HeNormal", "XavierUniform", "XavierNormal", "Identity", "Orthogonal", "Dirac",
    "Sparse", "VarianceScaling",
]

# Lower-case name -> Initializer class.  Filled by ``_registered``: each class
# under its lower-cased class name, plus MindSpore's extra aliases.
_ALIASES = {}


def _registered(*aliases):
    def register(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _ALIASES.setdefault(name, cls)
        return cls

    return register


def _rng():
    return _seed.generator()


def _fill(arr, values):
    """Write ``values`` into ``arr`` in place, casting to its dtype (0-d arrays too)."""
    arr[...] = values


class Initializer:
    """The base class of initializers.

    A subclass fills an array in ``_initialize(arr)``; calling the initializer
    on a NumPy array fills it in place.  :func:`initializer` and lazily
    initialised Tensors call :meth:`_make_array`.

    Parameters
    ----------
    **kwargs
        The subclass's arguments (kept in ``_kwargs``, shown by ``repr``).

    Examples
    --------
    >>> import numpy as np
    >>> from cellkit.common.initializer import Initializer
    >>> class Twos(Initializer):
    ...     def _initialize(self, arr):
    ...         arr.fill(2)
    >>> a = np.zeros(3, np.float32)
    >>> Twos()(a)
    >>> a
    array([2., 2., 2.], dtype=float32)
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _initialize(self, arr):
        raise NotImplementedError(f"{type(self).__name__} must implement _initialize(arr)")

    def _check_shape(self, shape):
        """Raise early if this initializer cannot fill ``shape`` (a tuple of ints)."""

    def __call__(self, arr):
        """Fill the NumPy array ``arr`` in place."""
        if not isinstance(arr, np.ndarray):
            raise TypeError(
                f"For '{type(self).__name__}', the argument 'arr' must be a numpy.ndarray, but got {type(arr).__name__}"
            )
        self._check_shape(tuple(arr.shape))
        self._initialize(arr)

    def _make_array(self, shape, dtype):
        """A backend array of ``shape`` and ``dtype`` (a DType) filled by this initializer."""
        check_allocation(tuple(shape), _dt.to_dtype(dtype), "initializer")
        host = np.zeros(tuple(shape), dtype=_dt.to_dtype(dtype).to_backend(np))
        self(host)
        return _backend.current().from_host(host)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


# ---------------------------------------------------------------- fans & gains
def _calculate_fan_in_and_fan_out(shape):
    """``(fan_in, fan_out)`` of a weight of ``shape`` (at least 2 dimensions).

    >>> from cellkit.common.initializer import _calculate_fan_in_and_fan_out
    >>> _calculate_fan_in_and_fan_out((64, 3, 5, 5))
    (75, 1600)
    """
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(
            "'fan_in' and 'fan_out' can not be computed for a tensor with fewer than 2 dimensions, "
            f"but got shape {shape} ({len(shape)} dimension(s))"
        )
    receptive_field = 1
    for d in shape[2:]:
        receptive_field *= d
    return shape[1] * receptive_field, shape[0] * receptive_field


def _check_mode(mode):
    if not isinstance(mode, str) or mode.lower() not in ("fan_in", "fan_out"):
        raise ValueError(f"The argument 'mode' must be 'fan_in' or 'fan_out', but got {mode!r}")
    return mode.lower()


def _calculate_correct_fan(shape, mode):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if _check_mode(mode) == "fan_in" else fan_out


_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid")


def _calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (``param``: leaky_relu's negative slope).

    >>> from cellkit.common.initializer import _calculate_gain
    >>> round(_calculate_gain("relu"), 4), _calculate_gain("tanh")
    (1.4142, 1.6666666666666667)
    """
    if nonlinearity in _LINEAR_FNS:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool) and math.isfinite(param) \
                and abs(param) < 1e150:
            slope = param
        else:
            raise ValueError(
                "The argument 'negative_slope' must be a finite int or float (|x| < 1e150) when 'nonlinearity' is "
                "'leaky_relu', "
                f"but got {param!r} ({type(param).__name__})"
            )
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(
        "The argument 'nonlinearity' must be one of 'sigmoid', 'tanh', 'relu', 'leaky_relu' or a linear "
        f"function name ({', '.join(_LINEAR_FNS[:-1])}), but got {nonlinearity!r}"
    )


def _check_number(name, arg, value):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"For '{name}', the argument '{arg}' must be a number, but got {type(value).__name__}")
    return value


def _check_sigma(name, sigma):
    if not isinstance(sigma, numbers.Real) or isinstance(sigma, bool):
        raise TypeError(f"For '{name}', the argument 'sigma' must be a number, but got {type(sigma).__name__}")
    if sigma < 0:
        raise ValueError(f"For '{name}', the argument 'sigma' must be >= 0, but got {sigma}")


# --------------------------------------------------------------- constants
@_registered("zeros")
class Zero(Initializer):
    """Fill with zeros.

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, Zero
    >>> print(ms.Parameter(initializer(Zero(), [1, 2, 3], ms.float32), name="w").asnumpy())
    [[[0. 0. 0.]
      [0. 0. 0.]]]
    """

    def _initialize(self, arr):
        arr.fill(0)


@_registered("ones")
class One(Initializer):
    """Fill with ones.

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, One
    >>> print(initializer(One(), [2], ms.int32).init_data())
    [1 1]
    """

    def _initialize(self, arr):
        arr.fill(1)


class Constant(Initializer):
    """Fill with ``value`` (cast to the array's dtype: 2.5 becomes 2 in an int array).

    A number given to :func:`initializer` means ``Constant(number)``.

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, Constant
    >>> print(initializer(Constant(3), (2,), ms.float32).init_data())
    [3. 3.]
    """

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        _fill(arr, self.value)


@_registered()
class Identity(Initializer):
    """Fill a 2-D array with the identity matrix (ones on the main diagonal).

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer
    >>> print(initializer("identity", (2, 3), ms.float32).init_data())
    [[1. 0. 0.]
     [0. 1. 0.]]
    """

    def _check_shape(self, shape):
        if len(shape) != 2:
            raise ValueError(f"For 'Identity', the tensor to fill must be 2-D, but got shape {shape}")

    def _initialize(self, arr):
        _fill(arr, np.eye(arr.shape[0], arr.shape[1]))


@_registered()
class Dirac(Initializer):
    """Fill a 3-, 4- or 5-D convolution weight so the convolution copies its input.

    Each of ``groups`` blocks of output channels gets a 1 at the kernel
    centre for as many input channels as it can (identity-preserving conv).

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, Dirac
    >>> print(initializer(Dirac(), (2, 2, 3), ms.float32).init_data())
    [[[0. 1. 0.]
      [0. 0. 0.]]
    <BLANKLINE>
     [[0. 0. 0.]
      [0. 1. 0.]]]
    """

    def __init__(self, groups=1):
        if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
            raise ValueError(f"For 'Dirac', the argument 'groups' must be a positive int, but got {groups!r}")
        super().__init__(groups=groups)
        self.groups = int(groups)

    def _check_shape(self, shape):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"For 'Dirac', the tensor to fill must have 3, 4 or 5 dimensions, but got shape {shape}")
        if shape[0] % self.groups:
            raise ValueError(
                f"For 'Dirac', the first dimension {shape[0]} must be divisible by groups={self.groups}"
            )

    def _initialize(self, arr):
        shape = arr.shape
        values = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(d // 2 for d in shape[2:])
        for group in range(self.groups):
            for channel in range(min(per_group, shape[1])):
                values[(group * per_group + channel, channel) + centre] = 1
        _fill(arr, values)


# ------------------------------------------------------------------ random
@_registered()
class Normal(Initializer):
    """Draw from the normal distribution N(mean, sigma**2).

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, Normal
    >>> ms.set_seed(0)
    >>> w = initializer(Normal(sigma=1.0, mean=3.0), (10000,), ms.float32).init_data().asnumpy()
    >>> bool(abs(w.mean() - 3.0) < 0.05 and abs(w.std() - 1.0) < 0.05)
    True
    """

    def __init__(self, sigma=0.01, mean=0.0):
        _check_sigma("Normal", sigma)
        super().__init__(sigma=sigma, mean=mean)
        self.sigma = sigma
        self.mean = mean

    def _initialize(self, arr):
        _fill(arr, _rng().normal(self.mean, self.sigma, size=arr.shape))


@_registered()
class Uniform(Initializer):
    """Draw from the uniform distribution U(-scale, scale).

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, Uniform
    >>> w = initializer(Uniform(scale=0.5), (1000,), ms.float32).init_data().asnumpy()
    >>> bool(w.min() >= -0.5 and w.max() <= 0.5)
    True
    """

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        low, high = -self.scale, self.scale
        _fill(arr, low + (high - low) * _rng().random(size=arr.shape))


# Peter Acklam's rational approximation of the standard normal quantile
# (relative error below 1.2e-9): NumPy has no erfinv, and cellkit needs no SciPy.
_PPF_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
          1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_PPF_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
          6.680131188771972e+01, -1.328068155288572e+01)
_PPF_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
          -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_PPF_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
          3.754408661907416e+00)
_PPF_LOW = 0.02425


def _poly(coeffs, x):
    result = np.zeros_like(x) + coeffs[0]
    for c in coeffs[1:]:
        result = result * x + c
    return result


def _normal_ppf(p):
    """The standard normal quantile of probabilities ``p`` (a float64 array)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.empty_like(p)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = p < _PPF_LOW
        high = p > 1 - _PPF_LOW
        mid = ~(low | high)
        q = np.sqrt(-2 * np.log(p[low]))
        out[low] = _poly(_PPF_C, q) / (_poly(_PPF_D, q) * q + 1)
        q = np.sqrt(-2 * np.log1p(-p[high]))
        out[high] = -_poly(_PPF_C, q) / (_poly(_PPF_D, q) * q + 1)
        q = p[mid] - 0.5
        r = q * q
        out[mid] = _poly(_PPF_A, r) * q / (_poly(_PPF_B, r) * r + 1)
    return out


def _normal_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _truncated_normal(shape, mean, sigma, a, b):
    """Samples of N(mean, sigma**2) restricted to [a, b] (absolute bounds), by inverting the CDF.

    One pass, no rejection loop; a window far in the upper tail is mirrored
    into the lower tail, where the probabilities keep their precision.
    """
    if sigma == 0:
        return np.full(shape, min(max(mean, a), b), dtype=np.float64)
    alpha, beta = (a - mean) / sigma, (b - mean) / sigma
    mirrored = alpha > 0
    if mirrored:
        alpha, beta = -beta, -alpha
    lo, hi = _normal_cdf(alpha), _normal_cdf(beta)
    u = _rng().random(size=shape)
    if hi > lo:
        z = _normal_ppf(lo + (hi - lo) * u)
    else:
        # The window lies so far out (beyond ~37 sigma) that its probability
        # underflows; there the density is exponential to within rounding.
        near, far = -beta, -alpha
        spread = -math.expm1(-near * (far - near))
        z = -(near - np.log1p(-u * spread) / near)
    if mirrored:
        z = -z
    return np.clip(mean + sigma * z, a, b)


@_registered()
class TruncatedNormal(Initializer):
    """Draw from N(mean, sigma**2) truncated to the interval [a, b].

    ``a`` and ``b`` are absolute bounds (as in MindSpore), not multiples of
    ``sigma``: with the defaults (sigma=0.01, a=-2, b=2) the truncation never
    bites.  Also known to :func:`initializer` as ``'truncatedNormal'``.

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, TruncatedNormal
    >>> w = initializer(TruncatedNormal(sigma=1.0, a=-0.5, b=0.5), (1000,)).init_data().asnumpy()
    >>> bool(w.min() >= -0.5 and w.max() <= 0.5)
    True
    """

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        _check_sigma("TruncatedNormal", sigma)
        _check_number("TruncatedNormal", "a", a)
        _check_number("TruncatedNormal", "b", b)
        if not a < b:
            raise ValueError(f"For 'TruncatedNormal', the bounds must satisfy a < b, but got a={a}, b={b}")
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma = sigma
        self.mean = mean
        self.a = a
        self.b = b

    def _initialize(self, arr):
        _fill(arr, _truncated_normal(arr.shape, float(self.mean), float(self.sigma), float(self.a), float(self.b)))


class _FanBased(Initializer):
    """Initializers whose scale depends on the fans: need at least 2 dimensions."""

    def _check_shape(self, shape):
        _calculate_fan_in_and_fan_out(shape)


class _HeBase(_FanBased):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        mode = _check_mode(mode)
        _calculate_gain(nonlinearity, negative_slope)  # validates both
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _std(self, shape):
        fan = _calculate_correct_fan(shape, self.mode)
        return _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


@_registered("he_uniform")
class HeUniform(_HeBase):
    """Kaiming He's uniform draw: U(-bound, bound), ``bound = gain * sqrt(3 / fan)``.

    ``fan`` is fan-in or fan-out (``mode``); ``gain`` comes from
    ``nonlinearity`` (``sqrt(2 / (1 + negative_slope**2))`` for leaky_relu).

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, HeUniform
    >>> w = initializer(HeUniform(), (64, 6), ms.float32).init_data().asnumpy()
    >>> bool(abs(w).max() <= 1.0)      # sqrt(2) * sqrt(3 / 6) = 1
    True
    """

    def _initialize(self, arr):
        bound = math.sqrt(3.0) * self._std(arr.shape)
        _fill(arr, -bound + 2 * bound * _rng().random(size=arr.shape))


@_registered("he_normal")
class HeNormal(_HeBase):
    """Kaiming He's normal draw: N(0, std**2), ``std = gain / sqrt(fan)``.

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, HeNormal
    >>> ms.set_seed(1)
    >>> w = initializer(HeNormal(mode="fan_out", nonlinearity="relu"), (200, 50)).init_data().asnumpy()
    >>> bool(abs(w.std() - 0.1) < 0.005)    # sqrt(2) / sqrt(200)
    True
    """

    def _initialize(self, arr):
        _fill(arr, _rng().normal(0.0, self._std(arr.shape), size=arr.shape))


@_registered("xavier_uniform")
class XavierUniform(_FanBased):
    """Glorot's uniform draw: U(-bound, bound), ``bound = gain * sqrt(6 / (fan_in + fan_out))``.

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer
    >>> w = initializer("xavier_uniform", (3, 3), ms.float32).init_data().asnumpy()
    >>> bool(abs(w).max() <= 1.0)
    True
    """

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        _fill(arr, -bound + 2 * bound * _rng().random(size=arr.shape))


@_registered("xavier_normal")
class XavierNormal(_FanBased):
    """Glorot's normal draw: N(0, std**2), ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, XavierNormal
    >>> w = initializer(XavierNormal(gain=2), (100, 100)).init_data().asnumpy()
    >>> bool(abs(w.std() - 0.2) < 0.01)
    True
    """

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        std = self.gain * math.sqrt(2.0 / (fan_in + fan_out))
        _fill(arr, _rng().normal(0.0, std, size=arr.shape))


@_registered()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``, reshaped to the array (at least 2-D).

    The array is seen as ``(shape[0], rest)``; its rows (or columns, whichever
    are fewer) are orthonormal.

    >>> import numpy as np, cellkit as ms
    >>> from cellkit.common.initializer import initializer
    >>> q = initializer("orthogonal", (3, 5), ms.float64).init_data().asnumpy()
    >>> bool(np.allclose(q @ q.T, np.eye(3)))
    True
    """

    def __init__(self, gain=1.0):
        super().__init__(gain=gain)
        self.gain = gain

    def _check_shape(self, shape):
        if len(shape) < 2:
            raise ValueError(f"For 'Orthogonal', the tensor to fill must have at least 2 dimensions, but got shape {shape}")

    def _initialize(self, arr):
        rows = arr.shape[0]
        cols = arr.size // rows
        flat = _rng().standard_normal(size=(rows, cols))
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q *= np.sign(np.diag(r))  # makes the decomposition unique, hence uniformly distributed
        if rows < cols:
            q = q.T
        _fill(arr, (q * self.gain).reshape(arr.shape))


@_registered()
class Sparse(Initializer):
    """A 2-D normal draw N(0, sigma**2) with a ``sparsity`` fraction of each column set to zero.

    >>> import numpy as np, cellkit as ms
    >>> from cellkit.common.initializer import initializer, Sparse
    >>> w = initializer(Sparse(sparsity=0.5), (4, 3)).init_data().asnumpy()
    >>> (w == 0).sum(axis=0).tolist()
    [2, 2, 2]
    """

    def __init__(self, sparsity, sigma=0.01):
        _check_sigma("Sparse", sigma)
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity = sparsity
        self.sigma = sigma

    def _check_shape(self, shape):
        if len(shape) != 2:
            raise ValueError(f"For 'Sparse', the tensor to fill must be 2-D, but got shape {shape}")

    def _initialize(self, arr):
        rows, cols = arr.shape
        values = _rng().normal(0.0, self.sigma, size=arr.shape)
        zeros = int(math.ceil(self.sparsity * rows))
        for col in range(cols):
            values[_rng().permutation(rows)[:zeros], col] = 0.0
        _fill(arr, values)


@_registered()
class VarianceScaling(Initializer):
    """Draw with variance ``scale / n``, ``n`` being fan-in, fan-out or their mean (``mode``).

    ``distribution`` is ``'truncated_normal'`` (truncated at two standard
    deviations, rescaled to keep the variance), ``'untruncated_normal'`` or
    ``'uniform'``.  (MindSpore 2.10 draws a uniform sample for
    ``'truncated_normal'`` because of a misspelt comparison; cellkit draws the
    documented truncated normal.)

    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, VarianceScaling
    >>> w = initializer(VarianceScaling(distribution="uniform"), (100, 300)).init_data().asnumpy()
    >>> bool(abs(w).max() <= 0.1)        # sqrt(3 * 1 / 300)
    True
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        _check_number("VarianceScaling", "scale", scale)
        if not scale > 0:
            raise ValueError(f"For 'VarianceScaling', the argument 'scale' must be > 0, but got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(
                f"For 'VarianceScaling', the argument 'mode' must be 'fan_in', 'fan_out' or 'fan_avg', but got {mode!r}"
            )
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(
                "For 'VarianceScaling', the argument 'distribution' must be 'uniform', 'truncated_normal' or "
                f"'untruncated_normal', but got {distribution!r}"
            )
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        self.scale = scale
        self.mode = mode
        self.distribution = distribution

    def _check_shape(self, shape):
        _calculate_fan_in_and_fan_out(shape)

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            # 0.8796... is the standard deviation of N(0, 1) truncated to [-2, 2].
            std = math.sqrt(variance) / 0.87962566103423978
            values = _truncated_normal(arr.shape, 0.0, std, -2 * std, 2 * std)
        elif self.distribution == "untruncated_normal":
            values = _rng().normal(0.0, math.sqrt(variance), size=arr.shape)
        else:
            limit = math.sqrt(3.0 * variance)
            values = -limit + 2 * limit * _rng().random(size=arr.shape)
        _fill(arr, values)


# ------------------------------------------------------------ initializer()
def _check_init_shape(shape):
    if shape is None:
        raise ValueError("For 'initializer', the argument 'shape' must be given (a tuple of positive ints)")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(
            f"For 'initializer', the argument 'shape' must be a tuple, list or int, but got {type(shape).__name__}"
        )
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 0 < d < 2 ** 63:
            raise ValueError(
                "For 'initializer', the argument 'shape' is invalid: every value must be a positive int, "
                f"but got {tuple(shape)}"
            )
    return tuple(int(d) for d in shape)


def _same_shape_or_raise(init_shape, shape):
    if shape is None:
        return
    wanted = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if tuple(init_shape) != wanted:
        raise ValueError(
            "For 'initializer', the shape of the 'init' argument should be the same as the argument 'shape', "
            f"but got the 'init' shape {list(init_shape)} and the 'shape' {wanted}"
        )


def initializer(init, shape=None, dtype=_dt.float32):
    """A Tensor of ``shape`` and ``dtype`` that ``init`` fills when its data is needed.

    Parameters
    ----------
    init : str, Initializer, numbers.Number, Tensor or numpy.ndarray
        A name (case-insensitive: ``'ones'``, ``'zeros'``, ``'normal'``,
        ``'uniform'``, ``'truncatedNormal'``, ``'he_uniform'``, ``'he_normal'``,
        ``'xavier_uniform'``, ``'xavier_normal'``, ``'identity'``,
        ``'orthogonal'``, ``'dirac'``, ``'sparse'``, ``'variancescaling'`` or any
        initializer's class name), an :class:`Initializer`, a number (a
        :class:`Constant`), a Tensor (returned as it is, as in MindSpore) or a
        NumPy array (made into a Tensor of ``dtype``).
    shape : tuple, list or int
        The shape; positive ints.  Optional for a Tensor or array ``init``,
        which must match it when given.
    dtype : cellkit dtype
        Default ``float32``.

    Returns
    -------
    Tensor
        Lazily initialised: ``has_init`` is True until ``init_data()`` (which
        ``Parameter(...)`` calls) creates the values.

    Raises
    ------
    TypeError
        If ``init`` has an unsupported type.
    ValueError
        If the name is unknown, ``shape`` is missing or invalid, or does not
        fit ``init`` (a Tensor of another shape; a fan-based initializer on
        fewer than 2 dimensions).

    Examples
    --------
    >>> import cellkit as ms
    >>> from cellkit.common.initializer import initializer, One
    >>> p = ms.Parameter(initializer("ones", [1, 2, 3], ms.float32), name="w")
    >>> p
    Parameter (name=w, shape=(1, 2, 3), dtype=Float32, requires_grad=True)
    >>> print(initializer(One(), (2,), ms.float32).init_data())
    [1. 1.]
    >>> initializer("bogus", (2,))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: For 'initializer', the class corresponding to 'bogus' was not found. ...
    """
    if isinstance(init, Tensor):
        _same_shape_or_raise(init.shape, shape)
        return init
    if isinstance(init, np.ndarray):
        _same_shape_or_raise(init.shape, shape)
        return Tensor(init, dtype=dtype)
    if not isinstance(init, (Initializer, numbers.Number, str)):
        raise TypeError(
            "For 'initializer', the type of the 'init' argument should be 'Tensor', 'number', 'string', "
            f"'numpy.ndarray' or 'Initializer', but got {type(init).__name__}"
        )
    dtype = _dt.to_dtype(dtype)
    shape = _check_init_shape(shape)
    if isinstance(init, str):
        cls = _ALIASES.get(init.lower())
        if cls is None:
            raise ValueError(
                f"For 'initializer', the class corresponding to '{init}' was not found. "
                f"Known names (any case): {', '.join(sorted(_ALIASES))}"
            )
        init = cls()
    elif not isinstance(init, Initializer):
        init = Constant(init)
    init._check_shape(shape)
    check_allocation(shape, dtype, "initializer")  # refused now, not when the values are first needed
    return Tensor(shape=shape, dtype=dtype, init=init)
