"""Counting for the reliability table: every module of tests/hardening reports what it tried.

Modules that count for themselves (a :class:`reliability.Tally`) are left
alone; for the others each test case counts as one input (or as many as
:data:`INPUTS_PER_TEST` says), and as one injected fault where the module
injects one in every test.  Nothing is counted or written unless
``CELLKIT_RELIABILITY_DIR`` is set.
"""
import pytest

import reliability

# Modules counted here: the area they cover, and whether each test injects a fault.
MODULE_AREAS = {
    "test_leaks": ("Leaks and long runs", False),
    "test_gpu_fallback": ("GPU fall-back (no CUDA driver)", True),
}
# A test case that stands for many inputs (the 2,000 training steps).
INPUTS_PER_TEST = {"test_two_thousand_training_steps_keep_memory_flat": 2000}
_cases = {}  # module -> {test id: (inputs, failed)}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not reliability.enabled() or report.skipped or (report.when != "call" and not report.failed):
        return
    module = item.module.__name__.rsplit(".", 1)[-1]
    inputs = INPUTS_PER_TEST.get(getattr(item, "originalname", item.name), 1)
    previous = _cases.setdefault(module, {}).get(item.nodeid, (inputs, False))
    _cases[module][item.nodeid] = (inputs, previous[1] or report.failed)


def pytest_sessionfinish(session):
    if not reliability.enabled():
        return
    for module, cases in _cases.items():
        if reliability.counted(module):
            continue
        area, injects = MODULE_AREAS.get(module, (module.removeprefix("test_").replace("_", " "), True))
        tally = reliability.tally(module)
        for inputs, failed in cases.values():
            tally.add(area, inputs_tried=inputs, faults_injected=1 if injects else 0,
                      failures=int(failed), lost=int(failed))
    reliability.write_all()
