"""Graph-mode tests: every test starts and ends in PYNATIVE_MODE with no jit_config set."""
import pytest

import cellkit as ms


@pytest.fixture(autouse=True)
def pynative_after_each_test():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_config=None)


@pytest.fixture
def graph_mode():
    """Run the test body in GRAPH_MODE."""
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
