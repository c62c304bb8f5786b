"""``JitConfig``: options for compiling a Cell in graph mode (``Cell.set_jit_config``).

>>> import cellkit as ms
>>> ms.JitConfig(jit_level="O1").jit_config_dict["jit_level"]
'O1'
"""
from __future__ import annotations

__all__ = ["JitConfig"]


class JitConfig:
    """Compilation options for graph mode (``jit_level``, ``exc_mode``, ...), kept as a dict.

    ``jit_level`` chooses the passes :mod:`cellkit.graph` runs on a Cell's graph:
    ``'O0'`` runs it as traced, ``'O1'`` and ``'O2'`` fold constants and remove
    dead code; ``''`` leaves the choice to ``set_context(jit_config=...)``,
    else O1.  The other options are recorded.
    """

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        if jit_level not in ("", "O0", "O1", "O2"):
            raise ValueError(f"For 'JitConfig', 'jit_level' must be '', 'O0', 'O1' or 'O2', but got {jit_level!r}")
        if exc_mode not in ("auto", "sink", "no_sink"):
            raise ValueError(f"For 'JitConfig', 'exc_mode' must be 'auto', 'sink' or 'no_sink', but got {exc_mode!r}")
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode,
                                "jit_syntax_level": jit_syntax_level, "debug_level": debug_level,
                                "infer_boost": infer_boost, **kwargs}

    def __repr__(self):
        return f"JitConfig({self.jit_config_dict})"
