"""Progress bars for ``Model.train`` / ``eval``: ``tqdm.auto`` when someone is watching, silence otherwise.

A bar is shown when asked (``progress=True``), or -- by default -- when the
process is interactive: a Jupyter kernel, or a terminal on stderr.  Tests,
scripts piped to files and CI stay quiet.  ``CELLKIT_PROGRESS=0`` (or ``1``)
overrides the default for a whole session.

>>> from cellkit.train.progress import progress_enabled
>>> progress_enabled(False)
False
"""
from __future__ import annotations

import os
import sys
import time

__all__ = ["progress_enabled", "ProgressBar"]

_REFRESH_SECONDS = 0.25  # how often the loss in the bar is refreshed (each refresh reads the loss to the host)


def _in_jupyter_kernel():
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:  # pragma: no cover - IPython internals vary
        return False
    return ip is not None and "ipykernel" in sys.modules and hasattr(ip, "kernel")


def progress_enabled(requested=None):
    """Whether to draw a bar: ``requested`` if given, else ``CELLKIT_PROGRESS``, else "is this interactive?"."""
    if requested is not None:
        return bool(requested)
    env = os.environ.get("CELLKIT_PROGRESS")
    if env is not None and env.strip():
        return env.strip().lower() not in ("0", "false", "no", "off")
    if _in_jupyter_kernel():
        return True
    stream = sys.stderr
    return bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())


def _make_tqdm(**kwargs):
    """A ``tqdm.auto`` bar; the console bar if the notebook one cannot be drawn (no ipywidgets)."""
    try:
        from tqdm.auto import tqdm
        return tqdm(**kwargs)
    except Exception:
        from tqdm.std import tqdm
        return tqdm(**kwargs)


class ProgressBar:
    """One bar over ``total`` steps (``None``: unknown), or nothing at all when disabled.

    >>> bar = ProgressBar(total=3, desc="epoch 1/1", enabled=False)
    >>> bar.step(loss=None); bar.close()
    """

    def __init__(self, total=None, desc="", enabled=False, unit="step"):
        self._bar = None
        self._last_refresh = 0.0
        if enabled:
            try:
                self._bar = _make_tqdm(total=total, desc=desc, unit=unit, leave=True, dynamic_ncols=True)
            except ImportError:  # tqdm is a dependency, but a broken install must not stop training
                self._bar = None

    @property
    def active(self):
        return self._bar is not None

    def step(self, loss=None):
        """Advance by one; show ``loss`` (a Tensor or float) now and then."""
        if self._bar is None:
            return
        self._bar.update(1)
        now = time.perf_counter()
        if loss is not None and now - self._last_refresh >= _REFRESH_SECONDS:
            self._last_refresh = now
            self._bar.set_postfix(loss=f"{_as_float(loss):.4f}", refresh=False)

    def finish(self, values):
        """Show final values (a dict: mean loss, metrics) on the bar."""
        if self._bar is None:
            return
        shown = {k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in values.items() if v is not None}
        if shown:
            self._bar.set_postfix(shown, refresh=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _as_float(value):
    asnumpy = getattr(value, "asnumpy", None)
    if asnumpy is not None:
        return float(asnumpy().mean())
    return float(value)
