"""The global random seed: ``set_seed`` makes initialisation and dropout reproducible.

All random numbers in cellkit come from one NumPy ``Generator`` drawn on the
host (then moved to the device), so a seed gives the same values on every
backend.

>>> import cellkit as ms
>>> ms.set_seed(1)
>>> a = ms.common.initializer.initializer("normal", (2,), ms.float32).init_data().asnumpy()
>>> ms.set_seed(1)
>>> b = ms.common.initializer.initializer("normal", (2,), ms.float32).init_data().asnumpy()
>>> bool((a == b).all())
True
"""
from __future__ import annotations

import random as _random

import numpy as np

__all__ = ["set_seed", "get_seed", "generator", "draw", "DrawLog"]

_seed = None
# The seed the shared stream started from (a fresh one from the system's entropy until someone
# seeds it): ``ms.default_generator`` reports it and describes the stream's position from it.
_generator_seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
_generator = np.random.default_rng(_generator_seed)


def set_seed(seed):
    """Seed every random draw cellkit makes (initializers, dropout, shuffles), and NumPy's and Python's.

    Raises
    ------
    TypeError
        If ``seed`` is not an int.
    ValueError
        If ``seed`` is negative.
    """
    global _seed, _generator
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"set_seed: 'seed' must be an int, but got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"set_seed: 'seed' must be non-negative, but got {seed}")
    _seed = int(seed)
    _install_generator(np.random.default_rng(_seed), _seed)
    # As MindSpore's set_seed does: NumPy's and Python's global generators are seeded too, so that
    # np.random / random calls in user code (a dataset's map functions, say) repeat run to run.
    np.random.seed(_seed % 2**32)
    _random.seed(_seed)


def get_seed():
    """The seed last given to :func:`set_seed`, or ``None``."""
    return _seed


def generator() -> np.random.Generator:
    """The shared host random generator."""
    return _generator


def generator_seed() -> int:
    """The seed the shared generator started from (what ``ms.initial_seed()`` reports)."""
    return _generator_seed


def _install_generator(rng, seed):
    """Make ``rng`` (started from ``seed``) the shared generator (``ms.manual_seed``, ``set_rng_state``)."""
    global _generator, _generator_seed
    _generator, _generator_seed = rng, int(seed)


# ---------------------------------------------------------------- replaying draws
# Recompute runs a Cell's forward twice: once for real, once in backward to
# rebuild what it threw away.  Dropout inside must draw the *same* mask both
# times, and the replay must not move any generator forward (later draws would
# change).  Every random draw of the ops goes through :func:`draw`; while a
# :class:`DrawLog` records, it notes each generator's state before the draw;
# while one replays, each draw is made from the noted state and the
# generator's own state is put back afterwards.
_logs = []  # the DrawLogs in use, innermost last


class DrawLog:
    """The random draws made inside one recomputed region, in order.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> log = DrawLog()
    >>> with log.recording():
    ...     first = draw(rng, "random", (3,))
    >>> with log.replaying():
    ...     again = draw(rng, "random", (3,))
    >>> bool((first == again).all()), bool((draw(rng, "random", (3,)) != first).all())
    (True, True)
    """

    __slots__ = ("entries", "cursor", "mode")

    def __init__(self):
        self.entries = []   # (generator, state before the draw)
        self.cursor = 0
        self.mode = None    # 'record' or 'replay' while in use

    def recording(self):
        return _UsingLog(self, "record")

    def replaying(self):
        return _UsingLog(self, "replay")


class _UsingLog:
    def __init__(self, log, mode):
        self.log, self.mode = log, mode

    def __enter__(self):
        self.log.mode, self.log.cursor = self.mode, 0
        _logs.append(self.log)
        return self.log

    def __exit__(self, *exc):
        _logs.remove(self.log)
        self.log.mode = None
        return False


def draw(generator, method, shape):
    """``getattr(generator, method)(size=shape)``, recorded or replayed when a DrawLog is in use."""
    if not _logs:  # the usual case
        return getattr(generator, method)(size=shape)
    replay = next((log for log in reversed(_logs) if log.mode == "replay"), None)
    if replay is None:  # a live draw: note the state, then let the generator move on
        state = generator.bit_generator.state
        for log in _logs:
            log.entries.append((generator, state))
        return getattr(generator, method)(size=shape)
    # The innermost replay supplies the state; regions recording inside it note the same draw.
    if replay.cursor >= len(replay.entries):
        raise RuntimeError(
            "recompute: the replayed forward made more random draws than the first one "
            f"({len(replay.entries)}); construct must draw the same way each time"
        )
    gen, state = replay.entries[replay.cursor]
    replay.cursor += 1
    for log in _logs:
        if log.mode == "record":
            log.entries.append((gen, state))
    current = gen.bit_generator.state
    gen.bit_generator.state = state
    try:
        return getattr(gen, method)(size=shape)
    finally:
        gen.bit_generator.state = current


# ``ms.seed()`` reseeds the shared generator from the system's entropy (MindSpore's function of that
# name); ``cellkit.seed`` stays this module, so ``from cellkit import seed`` keeps working everywhere.
class _CallableSeedModule(__import__("types").ModuleType):
    def __call__(self):
        """Reseed the shared generator from the system's entropy and return the seed chosen."""
        chosen = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
        _install_generator(np.random.default_rng(chosen), chosen)
        return chosen


__import__("sys").modules[__name__].__class__ = _CallableSeedModule
