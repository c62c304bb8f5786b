"""MindSpore's context, read and written through ``get_context``/``set_context`` and through ``MSContext``.

``MSContext.get_instance()`` (in ``mindspore.amp``'s namespace) is the object behind
``set_context``; its ``get_param``/``set_param`` take members of ``ms_ctx_param`` (reached as
``mindspore.context.ms_ctx_param``).  The cases record every parameter's number and value on a
fresh CPU process, what ``get_context`` answers for each name, that a value set one way reads back
the other way, and the errors of both interfaces.  ``runtime_num_threads`` is left out of the
value tables: MindSpore takes it from the machine's core count.

Every case that changes a setting puts it back, so the order of the cases does not matter.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

MACHINE_DEPENDENT = ("runtime_num_threads",)
# Settings get_context answers that are not ms_ctx_param members (Python attributes of MindSpore's _Context).
ATTRIBUTE_KEYS = ("jit_config", "ascend_config", "gpu_config", "aoe_config", "reserve_class_name_in_scope",
                  "support_binary", "enable_debug_runtime", "enable_ge", "enable_compile_cache")


def _params(ms):
    return ms.context.ms_ctx_param


@case
def every_parameter_number_and_value(ms, ops, nn, np):
    P = _params(ms)
    context = ms.amp.MSContext.get_instance()
    return {name: [int(member), context.get_param(member)]
            for name, member in P.__members__.items() if name not in MACHINE_DEPENDENT}


@case
def get_context_answers_every_public_name(ms, ops, nn, np):
    names = [n for n in _params(ms).__members__ if not n.startswith("_") and n not in MACHINE_DEPENDENT]
    return {name: ms.get_context(name) for name in names + list(ATTRIBUTE_KEYS)}


@case
def get_context_refuses_internal_and_unknown_names(ms, ops, nn, np):
    out = []
    for name in ("_graph_memory_max_size", "max_call_dept", "enable_sparse"):
        try:
            ms.get_context(name)
            out.append("answered")
        except ValueError as exc:
            out.append(str(exc))
    return out


@case
def the_instance_is_one_object(ms, ops, nn, np):
    MSContext = ms.amp.MSContext
    return [MSContext.get_instance() is MSContext.get_instance(), type(MSContext.get_instance()).__name__]


@case
def the_class_has_no_constructor(ms, ops, nn, np):
    return ms.amp.MSContext()


@case
def enum_members_are_numbers_with_names(ms, ops, nn, np):
    P = _params(ms)
    return [str(P.mode), P.mode.name, int(P.mode.value), P.mode == 41, P(56).name, len(P.__members__)]


@case
def set_param_is_read_back_by_get_context(ms, ops, nn, np):
    P = _params(ms)
    context = ms.amp.MSContext.get_instance()
    out = []
    for member, value in ((P.max_call_depth, 1234), (P.save_graphs_path, "./graphs"), (P.mode, 0),
                          (P.enable_reduce_precision, False), (P.op_timeout, 30)):
        before = context.get_param(member)
        context.set_param(member, value)
        out.append([member.name, ms.get_context(member.name)])
        context.set_param(member, before)
    return out


@case
def set_context_is_read_back_by_get_param(ms, ops, nn, np):
    P = _params(ms)
    context = ms.amp.MSContext.get_instance()
    ms.set_context(max_call_depth=1500, save_graphs=True, op_timeout=60)
    out = [context.get_param(P.max_call_depth), context.get_param(P.save_graphs), context.get_param(P.op_timeout)]
    ms.set_context(max_call_depth=1000, save_graphs=False, op_timeout=900)
    return out + [context.get_param(P.save_graphs)]


@case
def set_param_takes_a_bool_for_an_int(ms, ops, nn, np):
    P = _params(ms)
    context = ms.amp.MSContext.get_instance()
    context.set_param(P.max_call_depth, True)
    value = context.get_param(P.max_call_depth)
    context.set_param(P.max_call_depth, 1000)
    return [value, type(value).__name__]


def _set_param_error(ms, name, value):
    P = _params(ms)
    return ms.amp.MSContext.get_instance().set_param(P.__members__[name], value)


@case
def set_param_refuses_a_str_for_an_int(ms, ops, nn, np):
    return _set_param_error(ms, "max_call_depth", "x")


@case
def set_param_refuses_a_float_for_an_int(ms, ops, nn, np):
    return _set_param_error(ms, "max_call_depth", 3.5)


@case
def set_param_refuses_an_int_for_a_bool(ms, ops, nn, np):
    return _set_param_error(ms, "enable_reduce_precision", 1)


@case
def set_param_refuses_an_int_for_a_float(ms, ops, nn, np):
    return _set_param_error(ms, "max_device_memory", 2)


@case
def get_param_refuses_a_name_string(ms, ops, nn, np):
    return ms.amp.MSContext.get_instance().get_param("mode")


@case
def backend_policy_and_devices(ms, ops, nn, np):
    context = ms.amp.MSContext.get_instance()
    out = [context.get_backend_policy(), context.set_backend_policy("ge"), context.get_backend_policy(),
           context.set_backend_policy("no-such-policy"), context.get_backend_policy(),
           context.set_backend_policy("ms"), context.get_backend_policy()]
    out += [context.is_pkg_support_device("CPU"), context.is_pkg_support_device("Ascend"),
            context.is_pkg_support_device("cpu"), context.is_ascend_plugin_loaded(),
            context.get_ascend_soc_version(), context.ascend_soc_supports_feature("x")]
    return out


@case
def set_context_refuses_an_unknown_keyword(ms, ops, nn, np):
    return ms.set_context(mdoe=0)


@case
def set_context_refuses_a_wrong_type(ms, ops, nn, np):
    return ms.set_context(enable_reduce_precision=1)


@case
def set_context_refuses_a_call_depth_of_zero(ms, ops, nn, np):
    return ms.set_context(max_call_depth=0)


@case
def set_context_refuses_save_graphs_above_three(ms, ops, nn, np):
    return ms.set_context(save_graphs=5)


@case
def set_context_takes_save_graphs_as_a_bool(ms, ops, nn, np):
    ms.set_context(save_graphs=True)
    on = ms.get_context("save_graphs")
    ms.set_context(save_graphs=False)
    return [on, ms.get_context("save_graphs")]
