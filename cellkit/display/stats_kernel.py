"""One-pass statistics of a CuPy array: one CUDA kernel reads every value once.

For a tensor on a GPU, :func:`cellkit.display.stats.summarize` asks this
module first.  The kernel walks the array with a grid-stride loop; each
thread keeps eight running figures -- NaN count, +Inf count, -Inf count,
finite count, sum and sum of squares of ``x - shift``, min and max of the
finite values -- then each block combines its threads' figures in shared
memory and writes one row of eight numbers.  Only that small table
(``blocks x 8`` doubles) is copied to the host, where :func:`combine`
finishes the job.  The array itself never leaves the device and is read
once.

Sums are taken around ``shift`` (the array's first value, when finite) so
the variance ``E[(x-s)^2] - E[x-s]^2`` does not lose its digits when the mean
is large compared with the spread.  Everything is accumulated in float64.

Anything that goes wrong here (no compiler, an unusual dtype) makes
``summarize`` fall back to its portable two-pass reductions: a display
never fails because of this module.

>>> import numpy as np
>>> table = np.array([[1, 0, 0, 2, 3.0, 5.0, 1.0, 2.0],   # block 0: a NaN, then 1 and 2 (shift 0)
...                   [0, 1, 0, 1, 4.0, 16.0, 4.0, 4.0]])  # block 1: +Inf, then 4
>>> figures = combine(table, shift=0.0)
>>> figures["nan"], figures["posinf"], figures["finite"], round(figures["mean"], 4), round(figures["std"], 4)
(1, 1, 3, 2.3333, 1.2472)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["moments", "combine", "SOURCE", "THREADS"]

THREADS = 256        # threads per block (a power of two: the block sum halves it step by step)
MAX_BLOCKS = 1024    # enough to fill any current GPU; the grid-stride loop covers the rest

# C type of each NumPy dtype the kernel reads directly.
_C_TYPES = {
    "float64": "double", "float32": "float", "float16": "__half",
    "int64": "long long", "int32": "int", "int16": "short", "int8": "signed char",
    "uint64": "unsigned long long", "uint32": "unsigned int", "uint16": "unsigned short",
    "uint8": "unsigned char", "bool": "bool",
}

SOURCE = r"""
#include <cuda_fp16.h>

__device__ inline double cellkit_value(const double v) { return v; }
__device__ inline double cellkit_value(const float v) { return (double)v; }
__device__ inline double cellkit_value(const __half v) { return (double)__half2float(v); }
template <typename T> __device__ inline double cellkit_value(const T v) { return (double)v; }

template <typename T>
__global__ void cellkit_stats(const T* x, const long long n, const double shift, double* table) {
    const int tid = threadIdx.x;
    const double inf = __longlong_as_double(0x7ff0000000000000LL);
    double nan_count = 0.0, pos_inf = 0.0, neg_inf = 0.0, finite = 0.0;
    double sum = 0.0, sum_sq = 0.0, low = inf, high = -inf;
    const long long step = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + tid; i < n; i += step) {
        const double v = cellkit_value(x[i]);
        if (isnan(v)) {
            nan_count += 1.0;
        } else if (isinf(v)) {
            if (v > 0) pos_inf += 1.0; else neg_inf += 1.0;
        } else {
            const double d = v - shift;
            finite += 1.0;
            sum += d;
            sum_sq += d * d;
            low = fmin(low, v);
            high = fmax(high, v);
        }
    }
    __shared__ double acc[8][256];
    acc[0][tid] = nan_count; acc[1][tid] = pos_inf; acc[2][tid] = neg_inf; acc[3][tid] = finite;
    acc[4][tid] = sum; acc[5][tid] = sum_sq; acc[6][tid] = low; acc[7][tid] = high;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (tid < half) {
            for (int k = 0; k < 6; ++k) acc[k][tid] += acc[k][tid + half];
            acc[6][tid] = fmin(acc[6][tid], acc[6][tid + half]);
            acc[7][tid] = fmax(acc[7][tid], acc[7][tid + half]);
        }
        __syncthreads();
    }
    if (tid == 0) {
        for (int k = 0; k < 8; ++k) table[(long long)blockIdx.x * 8 + k] = acc[k][0];
    }
}
"""

_modules = {}  # cupy module -> compiled RawModule (compiled once per process)


def _kernel(cp, dtype_name):
    module = _modules.get(id(cp))
    if module is None:
        names = [f"cellkit_stats<{c}>" for c in _C_TYPES.values()]
        module = cp.RawModule(code=SOURCE, options=("--std=c++14",), name_expressions=names)
        _modules[id(cp)] = module
    return module.get_function(f"cellkit_stats<{_C_TYPES[dtype_name]}>")


def moments(cp, data):
    """The one-pass figures of the CuPy array ``data`` (a dict, see :func:`combine`), or None.

    Returns None for a dtype the kernel does not read (the caller then uses
    its portable path).
    """
    dtype_name = np.dtype(data.dtype).name
    if dtype_name not in _C_TYPES:
        return None
    x = cp.ascontiguousarray(data.reshape(-1))
    n = int(x.size)
    first = float(x[:1].get()[0])  # one value, to centre the sums
    shift = first if math.isfinite(first) else 0.0
    blocks = max(1, min(MAX_BLOCKS, -(-n // THREADS)))
    table = cp.empty((blocks, 8), dtype=cp.float64)
    _kernel(cp, dtype_name)((blocks,), (THREADS,), (x, np.int64(n), np.float64(shift), table))
    return combine(table.get(), shift)


def combine(table, shift):
    """Finish the statistics from the per-block ``table`` (``blocks x 8``, on the host).

    Columns: NaN, +Inf, -Inf and finite counts, sum and sum of squares of
    ``x - shift`` over the finite values, their min and max.  Returns counts,
    ``mean``, ``std`` (population), ``min`` and ``max`` (None when no value
    is finite).
    """
    table = np.asarray(table, dtype=np.float64)
    nan, posinf, neginf, finite, total, total_sq = table[:, :6].sum(axis=0)
    result = {"nan": int(nan), "posinf": int(posinf), "neginf": int(neginf), "finite": int(finite),
              "mean": None, "std": None, "min": None, "max": None}
    if finite == 0:
        return result
    centred_mean = float(total / finite)
    variance = max(float(total_sq / finite) - centred_mean * centred_mean, 0.0)
    result.update(mean=float(shift + centred_mean), std=math.sqrt(variance),
                  min=float(table[:, 6].min()), max=float(table[:, 7].max()))
    return result
