"""``model.history``: what training produced, as plain lists a plot can use directly.

>>> from cellkit.train.history import TrainingHistory
>>> h = TrainingHistory()
>>> h.add_steps([1.0, 0.5, 0.0])
>>> h.add_epoch(1, {"accuracy": 0.8})
>>> h.step_loss, h.epochs, h.epoch_loss, h.metrics
([1.0, 0.5, 0.0], [1], [0.5], {'accuracy': [0.8]})
"""
from __future__ import annotations

__all__ = ["TrainingHistory"]


class TrainingHistory:
    """Per-step losses and per-epoch summaries of every ``train`` / ``fit`` call on one Model.

    Attributes
    ----------
    step_loss : list of float
        The loss of every training step, in order (across calls).
    epochs : list of int
        The epoch numbers that finished (1-based, as the callbacks count them).
    epoch_loss : list of float
        The mean step loss of each finished epoch (aligned with ``epochs``).
    epoch_end_step : list of int
        How many steps had run when each epoch ended (to place epochs on a
        step axis).
    metrics : dict of str to list
        Metrics evaluated during ``fit``, one value per evaluated epoch.
    metric_epochs : list of int
        The epochs those metrics belong to.
    """

    def __init__(self):
        self.step_loss = []
        self.epochs = []
        self.epoch_loss = []
        self.epoch_end_step = []
        self.metrics = {}
        self.metric_epochs = []
        self._epoch_start = 0

    def add_steps(self, losses):
        """Append step losses (floats) of the epoch in progress."""
        self.step_loss.extend(float(v) for v in losses)

    def add_epoch(self, epoch, metrics=None):
        """Close an epoch: its mean loss and, if given, its evaluated metrics."""
        losses = self.step_loss[self._epoch_start:]
        self.epochs.append(int(epoch))
        self.epoch_loss.append(sum(losses) / len(losses) if losses else float("nan"))
        self.epoch_end_step.append(len(self.step_loss))
        self._epoch_start = len(self.step_loss)
        if metrics:
            self.metric_epochs.append(int(epoch))
            for name, value in metrics.items():
                self.metrics.setdefault(name, []).append(_plain(value))

    def as_dict(self):
        """Everything as one dict of lists (``loss`` is the per-step loss)."""
        out = {
            "loss": list(self.step_loss),
            "epoch": list(self.epochs),
            "epoch_loss": list(self.epoch_loss),
            "epoch_end_step": list(self.epoch_end_step),
            "metric_epoch": list(self.metric_epochs),
        }
        for name, values in self.metrics.items():
            out[name] = list(values)
        return out

    def __getitem__(self, key):
        return self.as_dict()[key]

    def __len__(self):
        return len(self.step_loss)

    def __repr__(self):
        last = f", last loss {self.step_loss[-1]:.4g}" if self.step_loss else ""
        names = f", metrics {sorted(self.metrics)}" if self.metrics else ""
        return f"TrainingHistory({len(self.step_loss)} steps, {len(self.epochs)} epochs{last}{names})"


def _plain(value):
    """Python numbers rather than NumPy scalars, so the lists print and serialise plainly."""
    item = getattr(value, "item", None)
    if item is not None and getattr(value, "ndim", 1) == 0:
        return item()
    return value
