"""cellkit's Cell and containers against what real MindSpore 2.10 recorded (issue 15, point 3).

Every case in ``tests/mindspore_cases/cell_semantics.py`` runs here under cellkit (``ms=cellkit``)
and is compared with ``tests/fixtures/mindspore/cell_semantics.json``, which
``tools/record_mindspore.py cell_semantics`` wrote by running the same case text under MindSpore
(PyNative, CPU).  MindSpore is never imported here; the comparison rules are in
``tests/mindspore_cases/compare.py``.

``CORE`` lists the cases whose fix lies in the Cell core (``cellkit/nn/cell.py`` and the parts it
delegates to), each with what must change there; they are strict xfails, so a case that starts
passing fails the suite until its entry is removed.
"""
from __future__ import annotations

import numpy as np
import pytest

import cellkit as ms
from cellkit import nn, ops
from tests.mindspore_cases import load_case_module
from tests.mindspore_cases.compare import check_case, encode_expected, read_fixture, record_command

MODULE = "cell_semantics"
CASES = load_case_module(MODULE).CASES
RECORDED = read_fixture(MODULE)

# case name -> what the Cell core must change for the case to pass.
_PRE_KW = ("register_forward_pre_hook(hook_fn, *, prepend=False, with_kwargs=False): keyword-only options; "
           "a with_kwargs hook is called hook(cell, args, kwargs) with args the positional inputs (a tuple) and "
           "kwargs a dict of the keyword inputs (empty when none)")
_FWD_KW = ("register_forward_hook(hook_fn, *, prepend=False, with_kwargs=False, always_call=False): a with_kwargs "
           "hook is called hook(cell, args, kwargs, output) with the inputs as construct received them (after "
           "the pre-hooks); a value it returns replaces the output")
_ALWAYS = ("always_call=True: when construct or a forward pre-hook raises, every always_call forward hook not yet "
           "run is called (output=None, with kwargs if with_kwargs) and then the original exception propagates; "
           "an exception raised by such a hook meanwhile is swallowed with a warning; without an error it runs "
           "once, in its place among the other forward hooks")
_REFRESH = ("on a Cell's first call (PyNative, once per Cell, before construct) run check_names_and_refresh_name(): "
            "if two Parameters reachable from the Cell share a name, rename every one of them to its attribute "
            "path (update_parameters_name()) and then check_names(); a call of an inner Cell checks only its own "
            "tree; later calls do not check again")
_RULE3 = ("rule 3 across attributes: a Cell keeps exist_names / exist_objs over all its attributes holding a "
          "non-empty list or tuple made only of Parameters; a Parameter object not seen before whose name was "
          "already seen there (in this or an earlier such attribute, also one since replaced) raises ValueError "
          "before the attribute is set; the same object again is skipped (rule 4); Parameter attributes and "
          "ParameterTuples do not take part")
_MIXED = ("get_mixed_precision_type() returns an enum printing as MixedPrecisionType.NOTSET / FP16 / FP32 / BF16: "
          "to_float(dtype) is add_flags_recursive(fp16=..., fp32=..., bf16=...) (get_flags() shows all three, "
          "the descendants' too), and add_flags(fp16=True) (or fp32/bf16) sets both the attribute "
          "mixed_precision_type (None before) and what get_mixed_precision_type() returns")
_TO = ("Cell.to(*args, **kwargs): to(dtype), to(dtype=...), to(device=None, dtype=None, non_blocking=False) and "
       "to(tensor) (its dtype); casts every floating Parameter in place (same object, name and requires_grad "
       "kept) and every floating buffer, of this Cell and all below; integer ones untouched; a non-floating "
       "dtype raises TypeError, an argument of no known form TypeError; returns self")
_NONE_REPR = "__repr__ lists every _cells entry in order, a None one as '(name): None' (today None slots are skipped)"
_NO_CONSTRUCT = "the default Cell.construct raises AttributeError (MindSpore: 'the method construct is not defined'), not NotImplementedError"
_POST_HOOK = "a state_dict post-hook that returns anything but None raises RuntimeError ('state_dict post-hook must return None')"
_KEEP_VARS = "state_dict(keep_vars=...) raises TypeError unless keep_vars is a bool (as it does for a non-str prefix)"

CORE = {
    "fpre_with_kwargs_receives_args_and_kwargs": _PRE_KW,
    "fpre_with_kwargs_kwargs_values": _PRE_KW,
    "fpre_with_kwargs_no_kwargs_gives_empty_dict": _PRE_KW,
    "fpre_with_kwargs_returns_new_args_and_kwargs": _PRE_KW + "; returning a 2-tuple (new_args, new_kwargs) replaces both",
    "fpre_with_kwargs_returns_none_keeps_inputs": _PRE_KW + "; returning None keeps the inputs",
    "fpre_with_kwargs_returns_args_only_raises": _PRE_KW + "; a return value that is not None nor a 2-tuple raises RuntimeError",
    "fpre_with_kwargs_returns_three_items_raises": _PRE_KW + "; a return value that is not None nor a 2-tuple raises RuntimeError",
    "fpre_prepend_order": "prepend=True puts a forward pre-hook before every hook registered so far (with_kwargs or not)",
    "fpre_with_kwargs_handle_remove": _PRE_KW + "; the handle's remove() unregisters it (and its with_kwargs mark)",
    "fhook_with_kwargs_receives_args_kwargs_output": _FWD_KW,
    "fhook_with_kwargs_return_replaces_output": _FWD_KW,
    "fhook_with_kwargs_sees_kwargs_from_pre_hook": _FWD_KW + " (kwargs replaced by a with_kwargs pre-hook included)",
    "fhook_plain_and_kwargs_hooks_mixed": _FWD_KW + "; plain and with_kwargs hooks run in registration order",
    "fhook_prepend_order": "prepend=True puts a forward hook before every forward hook registered so far",
    "fhook_always_call_runs_when_construct_raises": _ALWAYS,
    "fhook_always_call_with_kwargs_when_construct_raises": _ALWAYS,
    "fhook_always_call_hook_error_is_silenced": _ALWAYS,
    "fhook_always_call_runs_once_without_error": _ALWAYS,
    "fhook_always_call_runs_when_pre_hook_raises": _ALWAYS,
    "fhook_on_cell_with_bprop_is_ignored": ("on a Cell that defines bprop, register_forward_hook returns a handle but "
                                            "registers nothing: its forward hooks never run (forward pre-hooks do)"),
    "bhook_grad_input_when_one_position_requested": (
        "a backward hook's grad_input holds the gradient of every Tensor input that depends on an argument of the "
        "function being differentiated, whatever grad_position asks for (cellkit gives None for an input outside "
        "grad_position); None only for an input the output does not depend on, or a Tensor made inside the function"),
    "bhook_grad_input_when_second_position_requested": (
        "as bhook_grad_input_when_one_position_requested: the gradient of the input outside grad_position is "
        "computed and passed, not None"),
    "bhook_grad_input_skips_python_number_input": (
        "grad_input has one entry per Tensor input: a Python number input is left out (cellkit adds a None for it)"),
    "bhook_on_tuple_output_with_unused_output": (
        "grad_output (backward hook and backward pre-hook) holds None, not zeros, for an output that received no "
        "gradient"),
    "bhook_on_tuple_output_called_twice": (
        "grad_output holds None, not zeros, for an output that received no gradient (each of the two calls has one)"),
    "refresh_duplicate_names_on_first_call": _REFRESH,
    "refresh_check_names_and_refresh_name": "add the public method check_names_and_refresh_name() -> None; " + _REFRESH,
    "refresh_only_on_the_first_call": _REFRESH,
    "refresh_duplicates_from_insert_child_to_cell": _REFRESH,
    "refresh_of_same_named_explicit_parameters": _REFRESH + " (names given by hand included)",
    "repr_insert_child_none": _NONE_REPR,
    "repr_child_set_to_none": _NONE_REPR,
    "repr_only_none_child": _NONE_REPR,
    "repr_multiline_extend_repr_without_children": (
        "with no children a one-line extend_repr stays inline ('Dense(...)'); a multi-line one is laid out like "
        "children: 'Net(\\n  first line\\n  second line\\n)'"),
    "state_dict_is_an_ordereddict": (
        "state_dict() returns a collections.OrderedDict itself (type(sd) is OrderedDict) carrying _metadata, not "
        "the _StateDict subclass (on Python 3.11 its repr is already 'OrderedDict([...])')"),
    "state_dict_keep_vars_int_raises": _KEEP_VARS,
    "state_dict_keep_vars_str_raises": _KEEP_VARS,
    "state_dict_post_hook_returning_value_raises": _POST_HOOK,
    "state_dict_post_hook_on_child_returning_value_raises": _POST_HOOK + " (also a child's hook, during the parent's state_dict)",
    "cell_without_construct_call_raises": _NO_CONSTRUCT,
    "cell_base_call_raises": _NO_CONSTRUCT,
    "cell_without_construct_with_parameter_call_raises": _NO_CONSTRUCT,
    "cell_auto_prefix_int_accepted": (
        "Cell.__init__ accepts any auto_prefix and uses its truth value (1 and 'yes' prefix the children's "
        "Parameter names, 0 and None do not); today a non-bool raises TypeError"),
    "rule3_duplicate_names_across_two_lists_raise": _RULE3,
    "rule3_duplicate_names_across_list_and_tuple_raise": _RULE3,
    "rule3_reassigning_a_list_with_a_new_parameter_of_the_same_name_raises": _RULE3,
    "rule3_same_parameter_in_two_lists_is_fine": _RULE3 + "; exist_names / exist_objs are public properties (sets)",
    "rule3_attribute_parameter_and_list_same_name": _RULE3 + "; exist_names / exist_objs are public properties (sets)",
    "rule3_failed_list_is_not_assigned": _RULE3,
    "api_create_time_is_int_and_grows": "a read-only property create_time: the int time.time_ns() of __init__",
    "api_create_time_is_read_only": "create_time is a property without setter: assigning it raises AttributeError",
    "api_total_instance_count": ("a class attribute Cell.total_instance_count (int): +1 in Cell.__init__, -1 when a "
                                 "Cell is collected (a weakref.finalize, or __del__)"),
    "api_global_cells": ("a class attribute Cell.global_cells = weakref.WeakKeyDictionary(), left empty (MindSpore "
                         "fills it only for lazy-inline Cells)"),
    "api_exist_names_and_objs": ("public properties exist_names and exist_objs: sets (empty on a new Cell) of the "
                                 "names and Parameter objects seen in list/tuple attributes (rule 3's memory)"),
    "api_compile_phase": "a property compile_phase: None on a new Cell; setting it sets it on every descendant too",
    "api_compile_phase_not_str_raises": "the compile_phase setter raises TypeError for a non-str",
    "api_pipeline_segment_negative_raises": ("a property pipeline_segment: AttributeError until set; the setter "
                                             "raises ValueError below 0"),
    "api_pipeline_segment_bool_raises": "the pipeline_segment setter raises TypeError for a non-int or a bool",
    "api_pipeline_stage_before_set": "reading pipeline_stage before it is set raises AttributeError (cellkit returns -1)",
    "api_mixed_precision_type_default": _MIXED,
    "api_mixed_precision_type_after_to_float": _MIXED,
    "api_mixed_precision_type_after_to_float_float32": _MIXED,
    "api_mixed_precision_type_from_flags": _MIXED,
    "api_to_float_sets_flags": _MIXED,
    "api_set_mixed_precision_type_round_trip": (
        "set_mixed_precision_type(enum) sets what get_mixed_precision_type() returns and nothing else (the "
        "attribute mixed_precision_type stays None); " + _MIXED),
    "api_set_mixed_precision_type_str_raises": "set_mixed_precision_type raises TypeError for anything but the enum",
    "api_to_dtype_casts_float_parameters_and_buffers": _TO,
    "api_to_keyword_dtype": _TO,
    "api_to_int_dtype_raises": _TO,
    "api_to_tensor_takes_its_dtype": _TO,
    "api_to_device_cpu": _TO + " ('CPU' as the device changes nothing on the CPU)",
    "api_to_bad_arguments_raise": _TO,
    "api_to_empty": ("to_empty(*, device=None, recurse=True): gives every Parameter and buffer new uninitialised data "
                     "of the same shape and dtype; returns self"),
    "api_to_empty_keyword_only": "to_empty's device and recurse are keyword-only: a positional argument raises TypeError",
    "api_register_saved_tensors_hooks": (
        "register_saved_tensors_hooks(pack_hook, unpack_hook) -> None: while the Cell runs under a gradient "
        "transform, every tensor saved for backward goes through pack_hook, and unpack_hook gives it back in "
        "backward; outside a transform neither runs"),
    "api_register_parameter_forward_hook_in_pynative": (
        "register_parameter_forward_hook(hook) -> None: in PyNative it has no effect (MindSpore applies it only in "
        "graph mode / jit)"),
    "api_register_parameter_forward_hook_bad_item_raises": (
        "register_parameter_forward_hook checks its argument: a dict without both 'params' and 'hook' raises "
        "ValueError"),
    "api_cache_and_config_properties": (
        "properties compile_cache (a set), phase_cache ({}), jit_config_dict ({} until set_jit_config), "
        "parallel_parameter_name_list (()), parallel_parameter_merge_net_dict ({}) and compiled (False)"),
    "api_parallel_parameter_name_list_setter": "a property parallel_parameter_name_list whose setter takes only a list (TypeError)",
    "api_parallel_parameter_merge_net_dict_setter": ("a property parallel_parameter_merge_net_dict whose setter takes "
                                                     "only a dict (TypeError)"),
    "api_cell_init_args": "a property cell_init_args: AttributeError until set; the setter takes only a str (TypeError)",
    "api_phase_default_and_after_set_train": ("phase is 'train' on a new Cell (cellkit: 'predict'); set_train(True) "
                                              "keeps 'train', set_train(False) sets 'predict'"),
    "sig_recompute_keyword_only_options": (
        "recompute(*, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None, **kwargs): "
        "accept the four keyword-only options (gradients unchanged; context_fn's two context managers wrap the "
        "forward run and the replay) and return None"),
    "sig_recompute_output_recompute": (
        "recompute(output_recompute=True) is accepted (the Cell's output is recomputed too, so an adjacent "
        "recomputed Cell need not keep it); gradients unchanged"),
    "sig_recompute_mode_keyword_raises": (
        "MindSpore 2.10 refuses recompute(mode=...) with ValueError (keyword not recognized); cellkit accepts the "
        "older spelling of cell_api_en_old.txt: follow 2.10, or keep it and list it in docs/mindspore_differences.md "
        "and drop this case"),
    "sig_shard_device_keyword_raises": (
        "MindSpore 2.10's shard(in_strategy, out_strategy=None, parameter_plan=None) has no device/level (TypeError); "
        "the spec (cell_api_zh.txt) still documents them: follow 2.10, or keep them as a documented difference "
        "and drop this case"),
    "sig_forward_hook_with_kwargs_default_false": _FWD_KW,
    "api_ignore_list_and_type_var": ("class attributes Cell.IGNORE_LIST (a list of internal attribute names, '_params' "
                                     "among them) and Cell.T_destination (a TypeVar, printing '~T_destination')"),
}


def _params():
    for name in CASES.names():
        reason = CORE.get(name)
        marks = [pytest.mark.xfail(strict=True, reason=f"core: {reason}")] if reason else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_cell_semantics_match_mindspore(name):
    case = CASES[name]
    check_case(case, RECORDED["cases"].get(name), MODULE, lambda: case(ms, ops, nn, np))


def test_cell_semantics_core_list_names_real_cases():
    unknown = sorted(set(CORE) - set(CASES.names()))
    assert not unknown, f"CORE names cases that do not exist: {unknown}"


def test_cell_semantics_fixture_is_from_mindspore_2_10():
    assert RECORDED["mindspore_version"].startswith("2.10"), RECORDED["mindspore_version"]
    assert RECORDED["mode"] == "PYNATIVE_MODE" and RECORDED["device"] == "CPU"


def test_cell_semantics_fixture_has_no_stale_cases():
    stale = sorted(set(RECORDED["cases"]) - set(CASES.names()))
    assert not stale, f"fixture entries without a case (re-record with  {record_command(MODULE)}): {stale}"


def test_cell_semantics_mindspore_wrong_cases_are_evidenced():
    """A case that overrides MindSpore's answer shows in the fixture that MindSpore answered otherwise."""
    for case in CASES:
        if not case.mindspore_wrong:
            continue
        entry = RECORDED["cases"][case.name]
        assert case.note, f"{case.name}: say how MindSpore is wrong in the case's note"
        assert "value" not in entry or entry["value"] != _as_json(encode_expected(case.expected(np))), (
            f"{case.name}: MindSpore's recorded answer equals expected(np); drop mindspore_wrong")


def _as_json(value):
    """An encoded expected value in the fixture's JSON form (tuples as lists, arrays as lists)."""
    import json
    return json.loads(json.dumps(value, default=lambda v: v.tolist()))
