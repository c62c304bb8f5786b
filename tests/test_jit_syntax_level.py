"""``ms.STRICT`` / ``ms.COMPATIBLE`` / ``ms.LAX`` and ``set_context(jit_syntax_level=...)`` as in MindSpore 2.10.

Values and messages recorded by hand from MindSpore 2.10 (CPU): STRICT 0, COMPATIBLE 1, LAX 2, the
default ``get_context('jit_syntax_level')`` is 2; 5 raises ValueError, a str raises TypeError.
"""
import pytest

import cellkit as ms


def test_levels_and_default():
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    assert ms.get_context("jit_syntax_level") == ms.LAX


def test_set_and_refuse():
    try:
        ms.set_context(jit_syntax_level=ms.STRICT)
        assert ms.get_context("jit_syntax_level") == ms.STRICT
        with pytest.raises(ValueError, match="jit_syntax_level.*got 5"):
            ms.set_context(jit_syntax_level=5)
        with pytest.raises(TypeError, match="jit_syntax_level.*str"):
            ms.set_context(jit_syntax_level="a")
        assert ms.get_context("jit_syntax_level") == ms.STRICT
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
