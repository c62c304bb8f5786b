"""cellkit: MindSpore's Cell programming model on NumPy and CuPy, made to be seen.

Write MindSpore code and change only the import::

    import cellkit as ms
    from cellkit import nn, ops

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.add(ms.Tensor([1, 2, 3], ms.float32), ms.Tensor([4, 5, 6], ms.float32)))
[5. 7. 9.]
"""
from . import backend, dtype
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context
from .context import COMPATIBLE, LAX, STRICT  # jit_syntax_level values
from .dtype import (DType, bfloat16, bool_, float16, float32, float64, int8, int16, int32, int64,
                    uint8, uint16, uint32, uint64)
from .dtype import complex64, complex128  # noqa: E402  (MindSpore's complex dtypes)
from .seed import get_seed, set_seed
from .tensor import Tensor, tensor
from . import ops  # noqa: E402  (attaches Tensor's operators)
from .parameter import Parameter, ParameterTuple
from .ops.sparse import COOTensor, CSRTensor  # noqa: E402  (MindSpore's top-level sparse tensors)
from .transforms import GradOperation, get_grad, grad, value_and_grad, vjp
from .jacobians import jacfwd, jacrev, jvp
from .vmap import vmap
from .autograd import saved_tensors_hooks  # noqa: E402  (ms.saved_tensors_hooks)
from . import common  # noqa: E402
from .jit_config import JitConfig
from . import nn  # noqa: E402  (ms.nn, as in MindSpore)
from .train import Model  # noqa: E402  (ms.Model; ms.train holds callbacks and metrics)
from .metrics import *  # noqa: F401,F403,E402  (MindSpore's top level exposes the metrics too)
from .train import metrics as _metrics  # noqa: E402
from .serialization import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: E402
from . import graph  # noqa: E402  (GRAPH_MODE: installs itself into Cell calls)
from . import runtime  # noqa: E402  (ms.runtime.empty_cache / memory_reserved)
from .graph import jit  # noqa: E402
from .graph import jit_class, mutable  # noqa: E402  (issue 17: graph mode)
from .graph.export import export, load  # noqa: E402  (issue 17: cellkit's graph file, not MindIR)
from . import amp  # noqa: E402  (ms.amp: mixed precision, loss scalers)
from .train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,  # noqa: E402
                                       LossScaleManager)
from .train import (BackupAndRestore, Callback, CheckpointConfig, EarlyStopping, History,  # noqa: E402
                    LambdaCallback, LearningRateScheduler, LossMonitor, ModelCheckpoint, OnRequestExit,
                    ReduceLROnPlateau, RunContext, TimeMonitor)
from .serialization import (async_ckpt_thread_status, ckpt_to_safetensors, load_checkpoint_async,  # noqa: E402
                            merge_sliced_parameter, safetensors_to_ckpt)
from .amp import build_train_network  # noqa: E402

# -- issue 17, top level (nn-toplevel): generators, devices, memory figures, checkpoint conversion
from .generator import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,  # noqa: E402
                        set_rng_state)
from .ops.introspection import is_tensor  # noqa: E402
from .device_manager import get_current_device, set_deterministic, set_device  # noqa: E402
from .runtime import (max_memory_allocated, max_memory_reserved, memory_allocated, memory_reserved,  # noqa: E402
                      memory_stats, memory_summary, reset_max_memory_allocated, reset_max_memory_reserved,
                      reset_peak_memory_stats, set_memory)
from .serialization.convert import ckpt_to_safetensors, safetensors_to_ckpt  # noqa: E402
from . import recompute_block  # noqa: E402,F401  (makes the module cellkit.recompute callable: ms.recompute(block, x))
from . import hal  # noqa: E402
from .dtype_convert import dtype_to_nptype, dtype_to_pytype, pytype_to_dtype  # noqa: E402
from .dynamic_shape import enable_dynamic  # noqa: E402
from .common.parallel_context import (ParallelMode, get_auto_parallel_context, reset_auto_parallel_context,  # noqa: E402
                                      set_auto_parallel_context)

__version__ = "0.1.0"

# ``cellkit.dataset`` and ``cellkit.mindrecord`` are imported on first use (``ms.dataset``,
# ``import cellkit.dataset as ds``): ``import cellkit`` does not pay for Pillow or the readers.
_LAZY_SUBPACKAGES = ("dataset", "mindrecord", "mint", "numpy", "communication", "parallel")


def __getattr__(name):
    if name in _LAZY_SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def trace(net, **options):
    """Record every forward, backward and hook event of ``net``: ``with ms.trace(net) as tr: ...``.

    See :func:`cellkit.display.trace.trace` (imported on first use, so
    ``import cellkit`` never loads the display layer).

    >>> import cellkit as ms
    >>> relu = ms.nn.ReLU()
    >>> with ms.trace(relu) as tr:
    ...     _ = relu(ms.Tensor([-1.0, 2.0]))
    >>> [e["kind"] for e in tr.events]
    ['forward_pre', 'forward']
    """
    from .display.trace import trace as _trace

    return _trace(net, **options)


# MindSpore spells the dtype module ``mindspore.dtype`` and also exposes these names.
float_ = float32
int_ = int64
half = float16
single = float32
double = float64

__all__ = [
    "Tensor", "tensor", "Parameter", "ParameterTuple", "COOTensor", "CSRTensor", "DType", "float16", "float32",
    "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool_",
    "complex64", "complex128", "set_context", "get_context",
    "GRAPH_MODE", "PYNATIVE_MODE", "set_seed", "get_seed", "grad", "value_and_grad",
    "GradOperation", "get_grad", "vjp", "jvp", "jacfwd", "jacrev", "vmap", "ops", "common", "backend", "dtype", "nn", "JitConfig",
    "save_checkpoint", "load_checkpoint", "load_param_into_net", "trace", "jit", "graph", "runtime",
    # mixed precision and training (issue 17: amp / train)
    "amp", "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "build_train_network",
    "Callback", "RunContext", "LossMonitor", "TimeMonitor", "History", "LambdaCallback", "ModelCheckpoint",
    "CheckpointConfig", "EarlyStopping", "ReduceLROnPlateau", "LearningRateScheduler", "BackupAndRestore",
    "OnRequestExit", "ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async", "merge_sliced_parameter",
    # issue 17, top level (set_memory / set_deterministic are left out of the walk: once per process)
    "Generator", "default_generator", "get_rng_state", "set_rng_state", "initial_seed", "manual_seed", "is_tensor",
    "set_device", "get_current_device", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
    "memory_reserved", "memory_stats", "memory_summary", "reset_max_memory_allocated", "reset_max_memory_reserved",
    "reset_peak_memory_stats", "hal", "ParallelMode",
    "set_auto_parallel_context", "get_auto_parallel_context", "reset_auto_parallel_context", "dtype_to_nptype",
    "dtype_to_pytype", "pytype_to_dtype", "enable_dynamic",
]
__all__ += ["jit_class", "mutable", "export", "load"]  # issue 17: graph mode
__all__ += list(_metrics.__all__)  # the metrics, as at MindSpore's top level
__all__ += ["STRICT", "COMPATIBLE", "LAX"]  # issue 17: jit_syntax_level values (tutorials)
from .train import FlopsUtilizationCollector  # noqa: E402  (issue 17: ms.FlopsUtilizationCollector)
__all__ += ["FlopsUtilizationCollector"]

# issue 17, summary files: ms.SummaryRecord / ms.SummaryCollector (MindSpore has them at the top level too)
from .train.summary import SummaryCollector, SummaryLandscape, SummaryRecord  # noqa: E402
__all__ += ["SummaryRecord", "SummaryCollector", "SummaryLandscape"]
# issue 17, top level (strategy): the checkpoints of a parallel run, read into one process
from .serialization import (build_searched_strategy, get_ckpt_path_with_strategy,  # noqa: E402
                            load_distributed_checkpoint, restore_group_info_list)
__all__ += ["build_searched_strategy", "restore_group_info_list", "get_ckpt_path_with_strategy",
            "load_distributed_checkpoint"]
# issue 17, top level (unified safetensors): a parallel run's per-rank safetensors merged into whole files
from .serialization import unified_safetensors  # noqa: E402
__all__ += ["unified_safetensors"]
