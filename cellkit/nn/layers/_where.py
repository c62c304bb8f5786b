"""Naming the layer in errors raised by what a layer's constructor calls (initializers, child layers)."""
from __future__ import annotations

from contextlib import contextmanager

__all__ = ["raised_in"]


@contextmanager
def raised_in(cell, *arg_names):
    """Re-raise a TypeError / ValueError / RuntimeError from the block with ``For '<cell>'`` in front.

    ``arg_names`` are the arguments the block consumed: the message names them, so it says where
    the bad value came from.  Messages that already name ``cell`` pass through unchanged.
    """
    try:
        yield
    except (TypeError, ValueError, RuntimeError) as exc:
        text = str(exc)
        if f"'{cell}'" in text:
            raise
        args = f" (from {', '.join(repr(a) for a in arg_names)})" if arg_names else ""
        try:
            again = type(exc)(f"For '{cell}'{args}: {text}")
        except Exception:  # noqa: BLE001 -- an exception class with another constructor: keep the original
            raise exc from None
        raise again from exc
