"""Random generators as MindSpore names them: ``ms.Generator``, ``ms.default_generator``, ``ms.manual_seed``.

cellkit draws every random number on the host from a NumPy ``Generator`` (PCG64). A
:class:`Generator` owns one such stream and describes where it stands as MindSpore does: a
``uint8`` Tensor of 16 bytes, the seed (8 bytes, little-endian) followed by the offset (8 bytes):
how far the stream has moved since it was seeded. The offset counts PCG64 steps (64-bit outputs),
twice, plus one when half of a 64-bit output is still waiting to be used by a 32-bit draw. Give
the state back to :meth:`Generator.set_state` and the draws repeat exactly.

``ms.default_generator`` is the generator every op draws from unless it is given its own (the one
:func:`cellkit.seed.generator` returns). ``ms.set_seed(n)`` and ``ms.manual_seed(n)`` both reseed it;
``set_seed`` also records the global seed that op-level ``seed`` arguments combine with
(:func:`cellkit.get_seed`), ``manual_seed`` leaves that alone, as in MindSpore.

The states are cellkit's: MindSpore's generator is a different algorithm (Philox), so a state
taken from MindSpore gives other numbers here, and the numbers drawn after the same seed differ.

>>> import cellkit as ms
>>> from cellkit import ops
>>> _ = ms.manual_seed(7)
>>> state = ms.get_rng_state()
>>> a = ops.rand(3)
>>> ms.set_rng_state(state)
>>> bool((ops.rand(3) == a).all())
True
>>> ms.initial_seed()
7
"""
from __future__ import annotations

import numpy as np

from . import seed as _seed_module

__all__ = ["Generator", "default_generator", "get_rng_state", "set_rng_state", "initial_seed", "manual_seed",
           "seed"]

_MASK128 = (1 << 128) - 1
_PCG64_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645  # NumPy's PCG64 LCG multiplier
_MASK64 = (1 << 64) - 1


def _pcg_distance(start, end, inc):
    """How many LCG steps lead from ``start`` to ``end`` (O(128) work: the steps are found bit by bit)."""
    cur_mult, cur_plus, distance, bit = _PCG64_MULTIPLIER, inc, 0, 1
    while start != end:
        if (start & bit) != (end & bit):
            start = (start * cur_mult + cur_plus) & _MASK128
            distance |= bit
        bit <<= 1
        cur_plus = ((cur_mult + 1) * cur_plus) & _MASK128
        cur_mult = (cur_mult * cur_mult) & _MASK128
        if bit > _MASK128:  # pragma: no cover - states of one stream always meet
            raise RuntimeError("Generator: the stream's state is not reachable from its seed")
    return distance


def _check_seed(value, where):
    # MindSpore keeps the seed as an int64: -1 is a seed (all bits set), 2**63 is not.
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{where}', Seed must be an integer, but got {type(value).__name__}")
    value = int(value)
    if not -(1 << 63) <= value < (1 << 63):
        raise RuntimeError(f"For '{where}', 'seed' must fit in an int64 [-2**63, 2**63), but got {value}")
    return value


def _stream(value):
    """The NumPy generator a seed starts (a negative seed stands for its 64-bit pattern)."""
    return np.random.default_rng(value & _MASK64)


def _fresh_seed():
    return int(np.random.SeedSequence().generate_state(1, np.uint32)[0])


class Generator:
    """A random stream with a seed and a position: ``Generator()``, then ``manual_seed(n)``.

    Hand it to the random functions that take ``generator=`` (``mint.rand``, ``mint.normal``,
    ``mint.randperm``...). A new generator starts from seed 0, as MindSpore's does.

    >>> import cellkit as ms
    >>> g = ms.Generator()
    >>> _ = g.manual_seed(3)
    >>> g.initial_seed()
    3
    >>> g.get_state().asnumpy()[:8].tolist()
    [3, 0, 0, 0, 0, 0, 0, 0]
    """

    __slots__ = ("_seed", "_rng", "_default")

    def __init__(self):
        self._default = False
        self._seed = 0
        self._rng = np.random.default_rng(0)

    # ------------------------------------------------------------------ the NumPy stream
    def _numpy(self):
        """The NumPy ``Generator`` that draws for this generator."""
        if self._default:
            return _seed_module.generator()
        return self._rng

    def _seed_value(self):
        return _seed_module.generator_seed() if self._default else self._seed

    def _install(self, rng, value):
        if self._default:
            _seed_module._install_generator(rng, value)
        else:
            self._rng, self._seed = rng, value

    def _reseed(self, value):
        self._install(_stream(value), value)

    # ------------------------------------------------------------------ MindSpore's methods
    def manual_seed(self, seed):
        """Restart the stream from ``seed`` (an int64; negative seeds are allowed); returns the generator."""
        self._reseed(_check_seed(seed, "manual_seed"))
        return self

    def seed(self):
        """Restart the stream from a seed taken from the operating system's entropy; returns that seed."""
        value = _fresh_seed()
        self._reseed(value)
        return value

    def initial_seed(self):
        """The seed the stream last started from."""
        return self._seed_value()

    def get_state(self):
        """The stream's position: a ``uint8`` Tensor of 16 bytes (seed, then offset)."""
        from .tensor import Tensor

        seed_value = self._seed_value()
        state = self._numpy().bit_generator.state
        if state.get("bit_generator") != "PCG64":
            raise RuntimeError(f"Generator.get_state: the stream is a {state.get('bit_generator')}, "
                               "only PCG64 streams have a state cellkit can describe")
        start = np.random.PCG64(seed_value & _MASK64).state["state"]
        steps = _pcg_distance(start["state"], state["state"]["state"], start["inc"])
        if state["state"]["inc"] != start["inc"]:
            raise RuntimeError("Generator.get_state: the stream was not started from its seed "
                               f"({seed_value}); reseed it with manual_seed")
        offset = 2 * steps + int(state["has_uint32"])
        raw = np.array([seed_value & _MASK64, offset], dtype="<u8").view(np.uint8)
        return Tensor(raw.copy())

    def set_state(self, state):
        """Put the stream back at ``state`` (what :meth:`get_state` returned)."""
        self._set_state(state, "Generator.set_state")

    def _set_state(self, state, op):
        from .tensor import Tensor

        # MindSpore refuses a bad state with RuntimeError whatever is wrong with it.
        if not isinstance(state, Tensor):
            raise RuntimeError(f"For '{op}', 'state' must be a Tensor, but got {type(state).__name__}")
        if str(state.dtype) != "UInt8":
            raise RuntimeError(f"For '{op}', 'state': State data type must be UInt8, but got {state.dtype}")
        if int(np.prod(state.shape)) != 16 or any(d < 0 for d in state.shape):
            raise RuntimeError(f"For '{op}', 'state': State data size must be 16, but got shape {tuple(state.shape)}")
        array = state.asnumpy()
        words = np.ascontiguousarray(array.reshape(16))
        seed_value, offset = int(words[:8].view("<i8")[0]), int(words[8:].view("<u8")[0])
        bit_generator = np.random.PCG64(seed_value & _MASK64)
        steps, half = divmod(offset, 2)
        if half and steps == 0:
            raise ValueError(f"For '{op}', 'state': offset 1 does not describe a stream position")
        if half:  # the 32-bit half still waiting is the upper half of the last 64-bit output
            bit_generator.advance(steps - 1)
            upper = int(bit_generator.random_raw()) >> 32
            raw = bit_generator.state
            raw["has_uint32"], raw["uinteger"] = 1, upper
            bit_generator.state = raw
        else:
            bit_generator.advance(steps)
        if self._default:  # moved in place: op-level seeded streams carry on undisturbed
            _seed_module.generator().bit_generator.state = bit_generator.state
            _seed_module._install_generator(_seed_module.generator(), seed_value)
        else:
            self._install(np.random.Generator(bit_generator), seed_value)


def _make_default():
    g = Generator.__new__(Generator)
    g._default, g._rng, g._seed = True, None, None
    return g


default_generator = _make_default()


def get_rng_state():
    """The state of :data:`default_generator` (see :meth:`Generator.get_state`)."""
    return default_generator.get_state()


def set_rng_state(state):
    """Put :data:`default_generator` back at ``state``."""
    default_generator._set_state(state, "set_rng_state")


def initial_seed():
    """The seed :data:`default_generator` last started from."""
    return default_generator.initial_seed()


def manual_seed(seed):
    """Reseed :data:`default_generator` (every op's draws); returns it. ``ms.get_seed()`` is left as it is."""
    return default_generator.manual_seed(seed)


def seed():
    """Reseed :data:`default_generator` from the system's entropy and return the seed chosen."""
    return default_generator.seed()
