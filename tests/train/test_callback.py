"""Callback base class, RunContext and LambdaCallback."""
import pytest

from cellkit.train import Callback, LambdaCallback, LossMonitor, RunContext, TimeMonitor


def test_callback_new_stage_names_call_the_old_ones():
    calls = []

    class Old(Callback):
        def step_end(self, run_context):
            calls.append("step_end")

        def begin(self, run_context):
            calls.append("begin")

    cb = Old()
    ctx = RunContext({})
    cb.on_train_step_end(ctx)
    cb.on_eval_step_end(ctx)
    cb.on_train_begin(ctx)
    cb.on_train_epoch_end(ctx)  # the default does nothing
    assert calls == ["step_end", "step_end", "begin"]
    with cb as entered:
        assert entered is cb


def test_run_context_needs_a_dict_and_records_stop_requests():
    with pytest.raises(TypeError, match="dict"):
        RunContext([1])
    ctx = RunContext({"a": 1})
    assert ctx.original_args() == {"a": 1} and not ctx.get_stop_requested()
    ctx.request_stop()
    assert ctx.get_stop_requested()


def test_lambda_callback_checks_its_stages():
    with pytest.raises(TypeError, match="on_step"):
        LambdaCallback(on_step=lambda ctx: None)
    with pytest.raises(TypeError, match="callable"):
        LambdaCallback(on_train_end=3)


@pytest.mark.parametrize("make", [lambda: LossMonitor(-1), lambda: TimeMonitor(0)])
def test_monitors_reject_bad_arguments(make):
    with pytest.raises(ValueError):
        make()
