"""``OcclusionSensitivity``: how much a model's score for a label drops when part of the input is hidden."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .metric import Metric, check_type, explain_errors, rearrange_inputs

__all__ = ["OcclusionSensitivity"]


def _bounding_box(b_box, image_shape):
    """``(lower, upper)`` corners (inclusive) of the analysed box, or ``(None, None)`` for the whole image."""
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(image_shape):
        raise ValueError("For 'OcclusionSensitivity', the bounding box must give a lower and an upper bound for every "
                         f"dimension except the batch, so 'b_box' must have {2 * len(image_shape)} values, but got "
                         f"{len(b_box)}.")
    lower = np.array(b_box[::2])
    upper = np.array(b_box[1::2])
    lower[lower < 0] = 0
    upper[upper < 0] = image_shape[upper < 0] - 1
    if np.any(upper >= image_shape):
        raise ValueError("For 'OcclusionSensitivity', maximum bounding box must be smaller than image size for all "
                         "values.")
    if np.any(lower > upper):
        raise ValueError("For 'OcclusionSensitivity', minimum bounding box must be smaller than maximum bounding box "
                         "for all values.")
    return lower, upper


class OcclusionSensitivity(Metric):
    """An occlusion-sensitivity map of a classifier for one input.

    ``update(model, x, label)``: ``model`` is a Cell returning class scores ``(batch, C)``;
    ``x`` one input (batch dimension 1, then e.g. ``(channels, H, W)`` or ``(features,)``);
    ``label`` the class whose score is watched (one value).  For every position of ``x`` (or of
    the bounding box) a cube of half-width ``margin`` (from ``i - margin`` up to, not
    including, ``i + margin``) is set to ``pad_val`` and the model is run (``n_batch`` hidden
    copies per call).  ``eval()`` returns the unhidden score minus each hidden score, in the
    shape of the positions (size-1 axes dropped): large values mark the parts the decision
    rests on.

    Parameters
    ----------
    pad_val : float
        The value written into the hidden cube.
    margin : int or list
        Half-width of the hidden cube.
    n_batch : int
        Hidden copies per model call.
    b_box : list, optional
        ``[min1, max1, min2, max2, ...]`` for every axis after the batch (inclusive; a negative
        maximum means the last index): analyse only that box.

    Raises
    ------
    TypeError
        Wrong argument types (``pad_val`` must be a float).

    Examples
    --------
    >>> import numpy as np
    >>> import cellkit as ms
    >>> from cellkit import nn
    >>> from cellkit.train import OcclusionSensitivity
    >>> net = nn.Dense(3, 2, weight_init=ms.Tensor(np.array([[1.0, 0, 0], [0, 2.0, 1.0]], np.float32)),
    ...                bias_init="zeros")
    >>> metric = OcclusionSensitivity(margin=1)
    >>> metric.update(net, np.array([[1.0, 1.0, 1.0]], np.float32), np.array(1))
    >>> metric.eval().tolist()
    [0.0, 2.0, 3.0]
    """

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = check_type("pad_val", pad_val, [float])
        self.margin = check_type("margin", margin, [int, list])
        self.n_batch = check_type("n_batch", n_batch, [int])
        self.b_box = b_box if b_box is None else check_type("b_box", b_box, [list])
        self.clear()

    def clear(self):
        """Forget the stored map."""
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Compute the map for one input: ``update(model, x, label)``.

        Raises
        ------
        ValueError
            Not three inputs, or a bad bounding box.
        TypeError
            If ``model`` is not a Cell.
        RuntimeError
            If ``x`` holds more than one sample, or ``label`` not exactly one value.
        """
        from ..nn import Cell

        if len(inputs) != 3:
            raise ValueError("For 'OcclusionSensitivity.update', it needs 3 inputs (classification model, predicted "
                             f"value, label), but got {len(inputs)}.")
        model = inputs[0]
        x = self._convert_data(inputs[1])
        label = self._convert_data(inputs[2])
        check_type("model", model, [Cell])
        if x.shape[0] > 1:
            raise RuntimeError("For 'OcclusionSensitivity.update', the shape at index 0 of the predicted value "
                               f"(input[1]) must be 1, but got {x.shape[0]}.")
        if np.prod(label.shape) != x.shape[0]:
            raise RuntimeError("For 'OcclusionSensitivity.update', the number of the label (input[2]) must be same as "
                               f"the batches, but got the label number {np.prod(label.shape)}, and batches "
                               f"{x.shape[0]}.")
        label = label.reshape(())       # one value, however it was wrapped
        image_shape = np.array(x.shape[1:])
        lower, upper = _bounding_box(self.b_box, image_shape)
        self._baseline = model(Tensor(x)).asnumpy()[0, label].item()
        out_shape = image_shape if self.b_box is None else upper - lower + 1
        count = int(np.prod(out_shape))
        scores = []
        for start in range(0, count, self.n_batch):
            hidden = []
            for flat in range(start, min(start + self.n_batch, count)):
                position = np.unravel_index(flat, out_shape)
                if lower is not None:
                    position = position + lower
                low = [max(0, p - self.margin) for p in position]
                high = [min(n, p + self.margin) for p, n in zip(position, image_shape)]
                copy = x.copy()
                copy[(...,) + tuple(slice(a, b) for a, b in zip(low, high))] = self.pad_val
                hidden.append(copy)
            outputs = model(Tensor(np.vstack(hidden))).asnumpy()
            scores.append(outputs[np.arange(len(hidden)), np.full(len(hidden), label)])
        self._sensitivity_im = np.concatenate(scores).reshape(-1, 1).reshape(out_shape)
        self._is_update = True

    @explain_errors
    def eval(self):
        """The map: the unhidden score minus each hidden score (a NumPy array).

        Raises
        ------
        RuntimeError
            If ``update`` was not called.
        """
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._baseline - np.squeeze(self._sensitivity_im)
