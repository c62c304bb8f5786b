"""Every method and property the Cell spec names exists on cellkit.nn.Cell with the documented
parameters (names, kinds and defaults).  Behaviour is tested elsewhere, method by method."""
import inspect

import pytest

from cellkit import nn

# From spec/cell_api_zh.txt (the newest, most complete), completed with spec/cell_api_zh.rst and
# spec/cell_api_en_old.txt for the methods the newest text leaves out.  Where the two disagree the
# newest wins (insert_param_to_cell's check_name_contain_dot, compile(*args, **kwargs)); where MindSpore 2.10
# itself has grown keyword options (recompute, register_forward_hook, register_forward_pre_hook), 2.10 wins.
SPEC_METHODS = """
add_flags(**flags)
add_flags_recursive(**flags)
apply(fn)
auto_cast_inputs(inputs)
buffers(recurse=True)
cast_inputs(inputs, dst_type)
cast_param(param)
cells()
cells_and_names(cells=None, name_prefix='')
check_names()
compile(*args, **kwargs)
compile_and_run(*args, **kwargs)
construct(*args, **kwargs)
exec_checkpoint_graph()
extend_repr()
flatten_weights(fusion_size=0)
generate_scope()
get_buffer(target)
get_extra_state()
get_flags()
get_func_graph_proto()
get_inputs()
get_parameters(expand=True)
get_scope()
get_sub_cell(target)
infer_param_pipeline_stage()
init_parameters_data(auto_parallel_mode=False)
insert_child_to_cell(child_name, child_cell)
insert_param_to_cell(param_name, param, check_name_contain_dot=True)
load_parameter_slice(params)
load_state_dict(state_dict, strict=True)
name_cells()
named_buffers(prefix='', recurse=True, remove_duplicate=True)
offload(backward_prefetch='Auto')
parameters_and_names(name_prefix='', expand=True)
parameters_broadcast_dict(recurse=True)
parameters_dict(recurse=True)
place(role, rank_id)
recompute(*, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None, **kwargs)
register_backward_hook(hook_fn)
register_backward_pre_hook(hook_fn)
register_buffer(name, tensor, persistent=True)
register_forward_hook(hook_fn, *, prepend=False, with_kwargs=False, always_call=False)
register_forward_pre_hook(hook_fn, *, prepend=False, with_kwargs=False)
register_load_state_dict_post_hook(hook)
register_load_state_dict_pre_hook(hook)
register_state_dict_post_hook(hook)
register_state_dict_pre_hook(hook)
remove_redundant_parameters()
run_construct(cast_inputs, kwargs)
set_auto_parallel()
set_boost(boost_type)
set_broadcast_flag(mode=True)
set_comm_fusion(fusion_type, recurse=True)
set_data_parallel()
set_extra_state(state)
set_grad(requires_grad=True)
set_inputs(*inputs, **kwargs)
set_jit_config(jit_config)
set_parallel_input_with_inputs(*inputs)
set_param_ps(recurse=True, init_in_server=False)
set_train(mode=True)
shard(in_strategy, out_strategy=None, parameter_plan=None, device='Ascend', level=0)
state_dict(*args, destination=None, prefix='', keep_vars=False)
to_float(dst_type)
trainable_params(recurse=True)
untrainable_params(recurse=True)
update_cell_prefix()
update_cell_type(cell_type)
update_parameters_name(prefix='', recurse=True)
""".split("\n")

SPEC_PROPERTIES = ["bprop_debug", "param_prefix", "parameter_layout_dict", "pipeline_stage"]


def _expected(line):
    """'f(a, b=1, *args, **kw)' -> (name, [(param_name, kind, default), ...])."""
    name, _, rest = line.partition("(")
    args = rest.rstrip(")")
    source = f"def {name}(self{', ' if args else ''}{args}): pass"
    namespace = {}
    exec(source, namespace)  # the spec's own signature line, parsed by Python
    sig = inspect.signature(namespace[name])
    return name, [(p.name, p.kind, p.default) for p in list(sig.parameters.values())[1:]]


@pytest.mark.parametrize("line", [line for line in SPEC_METHODS if line.strip()])
def test_cell_api_method_has_documented_signature(line):
    name, expected = _expected(line.strip())
    method = getattr(nn.Cell, name, None)
    assert callable(method), f"nn.Cell has no method {name}"
    actual = [(p.name, p.kind, p.default) for p in list(inspect.signature(method).parameters.values())[1:]]
    assert actual == expected, f"{name}: {actual} != spec {expected}"


@pytest.mark.parametrize("name", SPEC_PROPERTIES)
def test_cell_api_property_exists(name):
    assert isinstance(inspect.getattr_static(nn.Cell, name), property), f"nn.Cell.{name} is not a property"


def test_cell_api_constructor_signature():
    sig = inspect.signature(nn.Cell.__init__)
    assert [(p.name, p.default) for p in list(sig.parameters.values())[1:]] == [("auto_prefix", True), ("flags", None)]
