"""Where the pipeline's random numbers come from.

Each iteration of a pipeline (a :class:`Run`) takes one root seed: the dataset seed when one is
set (``dataset.config.set_seed`` or ``cellkit.set_seed``), fresh entropy otherwise.  Every node
that draws (a shuffling sampler, ``shuffle``, a ``map`` with random transforms) gets its own
generator from ``(root seed, the node's place in the tree, how many passes it has begun)``, so
the draws do not depend on block sizes or on what other nodes draw, a second iterator over the
same pipeline repeats the first, and each epoch or repeat of one iterator differs.

Random transforms ask :func:`generator` for their numbers.  Inside a pipeline that is the map's
generator; called directly on an image (``vision.RandomCrop(4)(img)``), it is a generator seeded
from the dataset seed.

>>> import numpy as np
>>> from cellkit.dataset import config
>>> config.set_seed(3)
>>> a = generator().random()
>>> config.set_seed(3)
>>> bool(a == generator().random())
True
"""
from __future__ import annotations

import contextlib
import secrets

import numpy as np

from .. import config

__all__ = ["Run", "generator", "using"]


class Run:
    """The random state of one iterator: a root seed and a pass counter per node."""

    def __init__(self, root=None):
        seed = config._current_seed()
        self.root = seed if seed is not None else secrets.randbits(63)
        self._places = {}
        self._passes = {}
        if root is not None:
            self._number(root)

    def _number(self, root):
        """Number the nodes of the tree in depth-first order (their stable places)."""
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in self._places:
                continue
            self._places[id(node)] = len(self._places)
            stack.extend(reversed(getattr(node, "children", [])))

    def generator(self, node) -> np.random.Generator:
        """A generator for ``node``'s next pass (a new stream every call)."""
        key = id(node)
        if key not in self._places:
            self._places[key] = len(self._places)
        count = self._passes.get(key, 0)
        self._passes[key] = count + 1
        return np.random.default_rng([self.root, self._places[key], count])


_active = []            # generators of the maps now running, innermost last
_eager = None           # (seed it was made from, generator) for transforms called directly
_eager_generation = None


def generator() -> np.random.Generator:
    """The generator a random transform should draw from now (see the module docstring)."""
    global _eager, _eager_generation
    if _active:
        return _active[-1]
    seed = config._current_seed()
    marker = (seed, config._seed_version, _global_generator())
    if _eager is None or marker != _eager_generation:
        _eager = np.random.default_rng(seed if seed is not None else secrets.randbits(63))
        _eager_generation = marker
    return _eager


def _global_generator():
    from ... import seed as global_seed

    return global_seed.generator()


@contextlib.contextmanager
def using(rng):
    """Make ``rng`` the generator of the random transforms called inside the block."""
    _active.append(rng)
    try:
        yield rng
    finally:
        _active.pop()
