"""The top level MindSpore tutorials use beyond tensors and cells, as MindSpore 2.10 answers it.

Generators and their states (``manual_seed``, ``Generator``, ``get_rng_state``/``set_rng_state``,
``initial_seed``: the state is 16 bytes, seed then offset), ``is_tensor``, the device calls
(``set_device``, ``get_current_device``, ``set_deterministic``, ``hal``), the memory figures'
shapes (MindSpore's CPU backend reports zeros; cellkit reports what its Tensors hold, so the cases
compare types, keys and the summary's frame, not the numbers), checkpoint conversion between
``.ckpt`` and ``.safetensors``, ``recompute`` in function form, the parallel context and
``mindspore.communication`` before ``init`` (MindSpore's ``init`` refuses to start without
``mpirun``, so what happens after it is tested in ``tests/test_toplevel_api.py`` only).
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _raises(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is the result
        return type(exc).__name__
    return "no error"


# ---------------------------------------------------------------- generators
@case
def manual_seed_state(ms, ops, nn, np):
    g = ms.manual_seed(5)
    state = ms.get_rng_state()
    return type(g).__name__, ms.initial_seed(), state, ms.default_generator.initial_seed()


@case
def manual_seed_big(ms, ops, nn, np):
    ms.manual_seed(2 ** 40 + 3)
    return ms.initial_seed(), ms.get_rng_state()


@case
def manual_seed_negative(ms, ops, nn, np):
    ms.manual_seed(-1)
    return ms.initial_seed(), ms.get_rng_state()


@case
def set_rng_state_short_raises(ms, ops, nn, np):
    ms.set_rng_state(ms.Tensor(np.zeros(4, np.uint8)))


@case
def manual_seed_keeps_global_seed(ms, ops, nn, np):
    ms.set_seed(3)
    ms.manual_seed(9)
    return ms.get_seed(), ms.initial_seed()


@case
def new_generator(ms, ops, nn, np):
    g = ms.Generator()
    return g.initial_seed(), g.get_state()


@case
def generator_manual_seed(ms, ops, nn, np):
    g = ms.Generator()
    out = g.manual_seed(3)
    return out is g, g.initial_seed(), g.get_state()


@case
def generator_seed_from_entropy(ms, ops, nn, np):
    g = ms.Generator()
    chosen = g.seed()
    return isinstance(chosen, int), chosen == g.initial_seed(), int(g.get_state().asnumpy()[8:].sum())


@case
def generator_set_state_roundtrip(ms, ops, nn, np):
    g = ms.Generator()
    g.set_state(ms.Tensor(np.array([7, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0], np.uint8)))
    return g.initial_seed(), g.get_state()


@case
def set_rng_state_roundtrip(ms, ops, nn, np):
    ms.set_rng_state(ms.Tensor(np.array([9, 1, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0], np.uint8)))
    return ms.initial_seed(), ms.get_rng_state()


@case
def manual_seed_float_raises(ms, ops, nn, np):
    ms.manual_seed(1.5)


@case
def manual_seed_too_big_raises(ms, ops, nn, np):
    ms.manual_seed(2 ** 64)


@case
def set_rng_state_numpy_raises(ms, ops, nn, np):
    ms.set_rng_state(np.zeros(16, np.uint8))


@case
def set_rng_state_int32_raises(ms, ops, nn, np):
    ms.set_rng_state(ms.Tensor(np.zeros(16, np.int32)))


@case
def set_rng_state_int64_raises(ms, ops, nn, np):
    ms.set_rng_state(ms.Tensor([1, 2]))


# ---------------------------------------------------------------- is_tensor
@case
def is_tensor_kinds(ms, ops, nn, np):
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    return (ms.is_tensor(ms.Tensor([1.0])), ms.is_tensor(p), ms.is_tensor(np.ones(2)), ms.is_tensor(1.0),
            ms.is_tensor([ms.Tensor(1)]), ops.is_tensor(ms.Tensor(1)))


# ---------------------------------------------------------------- devices
@case
def set_device_cpu(ms, ops, nn, np):
    ms.set_device("CPU")
    info = ms.get_current_device()
    return tuple(info), info.device_target, info.device_id, ms.get_context("device_target")


@case
def set_device_bad_target_raises(ms, ops, nn, np):
    ms.set_device("TPU")


@case
def set_device_not_str_raises(ms, ops, nn, np):
    ms.set_device(1)


@case
def set_device_bad_id_type_raises(ms, ops, nn, np):
    ms.set_device("CPU", "a")


@case
def set_device_negative_id_raises(ms, ops, nn, np):
    ms.set_device("CPU", -1)


@case
def set_deterministic_twice_raises(ms, ops, nn, np):
    try:
        ms.set_deterministic(True)  # the first call of the process (or of this case's process) is allowed
    except RuntimeError:
        pass
    ms.set_deterministic(False)


@case
def set_deterministic_int_raises(ms, ops, nn, np):
    ms.set_deterministic(1)


@case
def hal_cpu_answers(ms, ops, nn, np):
    return (ms.hal.is_available("CPU"), ms.hal.is_initialized("CPU"), ms.hal.get_device_name(0, "CPU"),
            ms.hal.get_device_properties(0, "CPU"), ms.hal.get_arch_list("CPU"), ms.hal.device_count("CPU"))


# ---------------------------------------------------------------- memory figures (types and keys)
@case
def memory_figures_are_ints(ms, ops, nn, np):
    values = (ms.memory_allocated(), ms.max_memory_allocated(), ms.memory_reserved(), ms.max_memory_reserved())
    return tuple(type(v).__name__ for v in values), all(v >= 0 for v in values)


@case
def memory_stats_keys(ms, ops, nn, np):
    stats = ms.memory_stats()
    return sorted(stats), sorted(stats["common_mem_pool_stats"]), sorted(stats["persistent_mem_pool_stats"])


@case
def memory_summary_frame(ms, ops, nn, np):
    lines = ms.memory_summary().splitlines()
    return lines[:5], [line[:24] for line in lines[5:]], len(lines[6])


@case
def memory_resets_return_none(ms, ops, nn, np):
    return (ms.reset_peak_memory_stats(), ms.reset_max_memory_allocated(), ms.reset_max_memory_reserved(),
            ms.runtime.reset_peak_memory_stats(), ms.runtime.synchronize(), ms.runtime.launch_blocking())


@case
def set_memory_twice_raises(ms, ops, nn, np):
    try:
        ms.set_memory(init_size="1GB", max_size="4GB")
    except RuntimeError:
        pass
    ms.set_memory()


@case
def set_memory_bad_size_raises(ms, ops, nn, np):
    ms.set_memory(init_size="1G")


@case
def set_memory_bad_level_raises(ms, ops, nn, np):
    ms.set_memory(optimize_level="O3")


# ---------------------------------------------------------------- checkpoint conversion
def _saved_ckpt(ms, np, folder, name="a.ckpt"):
    import os

    params = {"weight": ms.Parameter(ms.Tensor(np.array([[1.0, 2.0]], np.float32)), name="weight"),
              "bias": ms.Parameter(ms.Tensor(np.array([0.5], np.float32)), name="bias")}
    path = os.path.join(folder, name)
    ms.save_checkpoint([{"name": k, "data": v} for k, v in params.items()], path)
    return path


@case
def ckpt_to_safetensors_and_back(ms, ops, nn, np):
    import os
    import tempfile

    folder = tempfile.mkdtemp()
    path = _saved_ckpt(ms, np, folder)
    first = ms.ckpt_to_safetensors(path, save_path=os.path.join(folder, "out"), name_map={"weight": "w"})
    loaded = ms.load_checkpoint(os.path.join(folder, "out", "a.safetensors"), format="safetensors")
    second = ms.safetensors_to_ckpt(os.path.join(folder, "out", "a.safetensors"),
                                    save_path=os.path.join(folder, "back"))
    back = ms.load_checkpoint(os.path.join(folder, "back", "a.ckpt"))
    return (first, second, sorted(os.listdir(os.path.join(folder, "out"))),
            {k: ms.Tensor(v.asnumpy()) for k, v in loaded.items()}, {k: ms.Tensor(v.asnumpy()) for k, v in back.items()})


@case
def ckpt_to_safetensors_next_to_file(ms, ops, nn, np):
    import os
    import tempfile

    folder = tempfile.mkdtemp()
    path = _saved_ckpt(ms, np, folder)
    ms.ckpt_to_safetensors(path)
    return sorted(os.listdir(folder))


@case
def ckpt_to_safetensors_dir_without_ranks_raises(ms, ops, nn, np):
    import tempfile

    folder = tempfile.mkdtemp()
    _saved_ckpt(ms, np, folder)
    ms.ckpt_to_safetensors(folder)


@case
def ckpt_to_safetensors_missing_file_raises(ms, ops, nn, np):
    ms.ckpt_to_safetensors("/nonexistent/nothing.ckpt")


@case
def safetensors_to_ckpt_wrong_suffix_raises(ms, ops, nn, np):
    import tempfile

    path = _saved_ckpt(ms, np, tempfile.mkdtemp())
    ms.safetensors_to_ckpt(path)


@case
def ckpt_to_safetensors_save_path_file_raises(ms, ops, nn, np):
    import tempfile

    path = _saved_ckpt(ms, np, tempfile.mkdtemp())
    ms.ckpt_to_safetensors(path, save_path="out.safetensors")


# ---------------------------------------------------------------- recompute (function form)
@case
def recompute_function_gradient(ms, ops, nn, np):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(ms.recompute(self.dense, x)) * 2.0

    net = Net()
    x = ms.Tensor(np.array([[0.5, -1.0, 2.0], [1.0, 1.0, -3.0]], np.float32))
    out = net(x)
    grads = ms.grad(lambda v: net(v).sum(), grad_position=0, weights=net.trainable_params())(x)
    return out, grads


@case
def recompute_function_not_cell_raises(ms, ops, nn, np):
    ms.recompute(lambda x: x * 2, ms.Tensor([1.0]))


# ---------------------------------------------------------------- parallel context
@case
def auto_parallel_context_defaults(ms, ops, nn, np):
    ms.reset_auto_parallel_context()
    keys = ("parallel_mode", "gradients_mean", "device_num", "global_rank", "full_batch", "pipeline_stages")
    return {k: ms.get_auto_parallel_context(k) for k in keys}


@case
def auto_parallel_context_data_parallel(ms, ops, nn, np):
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    out = ms.get_auto_parallel_context("parallel_mode"), ms.get_auto_parallel_context("gradients_mean")
    ms.reset_auto_parallel_context()
    return out, ms.ParallelMode.MODE_LIST


@case
def auto_parallel_context_errors(ms, ops, nn, np):
    return (_raises(lambda: ms.set_auto_parallel_context(parallel_mode="bogus")),
            _raises(lambda: ms.set_auto_parallel_context(bogus=1)),
            _raises(lambda: ms.get_auto_parallel_context("bogus")),
            _raises(lambda: ms.set_auto_parallel_context(gradients_mean=1)),
            _raises(lambda: ms.set_auto_parallel_context(device_num=0)))


# ---------------------------------------------------------------- communication before init
@case
def communication_ranks_before_init(ms, ops, nn, np):
    c = ms.communication
    return (c.get_rank(), c.get_group_size(), c.get_local_rank(), c.HCCL_WORLD_COMM_GROUP,
            c.NCCL_WORLD_COMM_GROUP, c.MCCL_WORLD_COMM_GROUP)


@case
def communication_init_bad_backend_raises(ms, ops, nn, np):
    ms.communication.init("xyz")


@case
def communication_init_not_str_raises(ms, ops, nn, np):
    ms.communication.init(5)


# ---------------------------------------------------------------- dtype conversions
@case
def dtype_to_nptype_names(ms, ops, nn, np):
    return [np.dtype(ms.dtype_to_nptype(d)).name for d in (ms.float16, ms.float32, ms.float64, ms.int8, ms.int32,
                                                      ms.int64, ms.uint8, ms.bool_, ms.complex64)]


@case
def dtype_to_pytype_names(ms, ops, nn, np):
    return [ms.dtype_to_pytype(d).__name__ for d in (ms.float16, ms.float32, ms.int8, ms.uint8, ms.int64, ms.bool_,
                                                      ms.complex64)]


@case
def pytype_to_dtype_numbers(ms, ops, nn, np):
    return [str(ms.pytype_to_dtype(t)) for t in (int, float, bool, complex, np.int8, np.float32, np.float64,
                                                 np.bool_, np.uint16)]


@case
def pytype_to_dtype_not_a_type_raises(ms, ops, nn, np):
    ms.pytype_to_dtype("x")


# ---------------------------------------------------------------- enable_dynamic
def _dynamic_fn(ms):
    @ms.jit
    @ms.enable_dynamic(x=ms.Tensor(shape=[2, None], dtype=ms.float32))
    def plus_one(x):
        return x + 1

    return plus_one


@case
def enable_dynamic_varying_dimension(ms, ops, nn, np):
    f = _dynamic_fn(ms)
    return f(ms.Tensor(np.ones((2, 3), np.float32))), f(ms.Tensor(np.ones((2, 5), np.float32))).shape


@case
def enable_dynamic_fixed_dimension_mismatch_raises(ms, ops, nn, np):
    _dynamic_fn(ms)(ms.Tensor(np.ones((3, 5), np.float32)))


@case
def enable_dynamic_dtype_mismatch_raises(ms, ops, nn, np):
    _dynamic_fn(ms)(ms.Tensor(np.ones((2, 5), np.int32)))


@case
def enable_dynamic_unknown_name_raises(ms, ops, nn, np):
    ms.enable_dynamic(z=ms.Tensor(shape=[None], dtype=ms.float32))(lambda x: x)


@case
def enable_dynamic_not_tensor_raises(ms, ops, nn, np):
    ms.enable_dynamic(x=1)(lambda x: x)


@case
def enable_dynamic_empty_raises(ms, ops, nn, np):
    ms.enable_dynamic()(lambda x: x)


@case
def enable_dynamic_static_shape_raises(ms, ops, nn, np):
    ms.enable_dynamic(x=ms.Tensor(np.ones(2, np.float32)))(lambda x: x)
