"""Hook registries and the handles that remove hooks from them.

Cells (forward and backward hooks), Tensors (``Tensor.register_hook``) and
``ops.HookBackward`` all keep their hooks in a :class:`HookRegistry` and give
the user a :class:`RemovableHandle`.  This module sits below autograd, so
the tape can keep hooks too.

>>> registry = HookRegistry()
>>> handle = RemovableHandle(registry)
>>> registry[handle.id] = print
>>> handle.remove()
>>> len(registry)
0
"""
from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "HookRegistry", "check_hook"]

_next_id = itertools.count()


class HookRegistry(OrderedDict):
    """Hooks by handle id, in registration order (weak-referenceable, unlike a plain dict)."""


class RemovableHandle:
    """A handle that removes a hook from the registry it was added to.

    Holds only a weak reference to the registry, so a handle kept by the
    user never keeps a deleted Cell alive.  Usable as a context manager:
    the hook is removed when the ``with`` block ends.
    """

    __slots__ = ("id", "_registry_ref", "_on_remove")

    def __init__(self, registry, on_remove=None):
        self.id = next(_next_id)
        self._registry_ref = weakref.ref(registry)
        self._on_remove = _weak_callable(on_remove)

    def remove(self):
        """Remove the hook; calling it twice is harmless."""
        registry = self._registry_ref()
        if registry is not None and self.id in registry:
            del registry[self.id]
            callback = self._on_remove() if self._on_remove is not None else None
            if callback is not None:
                callback()
        self._on_remove = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def __repr__(self):
        return f"<RemovableHandle id={self.id}>"


def _weak_callable(fn):
    """A zero-argument function giving back ``fn``; a bound method is held weakly.

    The handle's callback is the Cell's ``_refresh_call_path``: a strong
    reference to it would keep the Cell alive as long as the user keeps the
    handle.  Returns None when there is no callback.
    """
    if fn is None:
        return None
    if hasattr(fn, "__self__"):
        return weakref.WeakMethod(fn)  # calling it gives None once the Cell is gone
    return lambda: fn


def check_hook(hook, method):
    """Raise TypeError unless ``hook`` can be called (functions and callable objects)."""
    if not callable(hook):
        raise TypeError(
            f"For '{method}', the hook function must be callable (a function or an object with "
            f"__call__), but got {type(hook).__name__}"
        )
