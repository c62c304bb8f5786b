"""``SummaryLandscape``: loss landscapes around a training path, from the checkpoints SummaryCollector saved.

A landscape is the loss drawn over a small plane through parameter space.
This module computes one in four steps, each a small piece below:

1. *directions* -- two directions ``v`` and ``w`` spanning the plane: the two
   principal directions of the training path (PCA), or two random ones; each
   scaled, parameter by parameter, to that parameter's size;
2. *grid* -- the ``size x size`` points ``(alpha, beta)`` of the plane where
   the loss is measured;
3. *evaluation* -- :class:`_LossProbe` sets the network's parameters to
   ``centre + alpha * v + beta * w`` and runs the user's data through it;
4. *writing* -- one ``LossLandscape`` message per picture, added to a
   :class:`SummaryRecord`.

The settings come from ``ckpt_dir/train_metadata.json``, which SummaryCollector
writes at the end of training; the ``_check_*`` functions hold MindSpore's
messages for a bad file or bad overrides.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import stat
from collections import namedtuple

import numpy as np

from ...tensor import Tensor
from .messages import message_class
from .record import SummaryRecord, _train_utils_type_check, given, make_directory
from .values import fill_tensor

__all__ = ["SummaryLandscape"]

_log = logging.getLogger("cellkit.train.summary")

# x, y and loss values of a set of points in the plane (a grid, a path or a single point).
PlanePoints = namedtuple("PlanePoints", "x y z")

_PCA_MARGIN = 0.2        # a PCA grid reaches 20% of the path's extent past it on every side
_RANDOM_REACH = 1.0      # a random-direction grid spans [-1, 1] in both directions
_METADATA_KEYS = ("epoch_group", "model_params_file_map", "step_per_epoch", "unit", "num_samples",
                  "landscape_size", "create_landscape")
_OVERRIDE_KEYS = ("landscape_size", "unit", "num_samples", "create_landscape", "intervals")
_METADATA_NAME = "train_metadata.json"


# ---------------------------------------------------------------------------------------------------- checks
def _check_size(size):
    _train_utils_type_check("landscape_size", size, (int,))
    if not 3 <= size <= 256:
        raise ValueError('For "SummaryLandscape", "landscape_size" in train_metadata.json should be between 3 '
                         f"and 256, but got the: {size}")


def _check_unit(unit):
    _train_utils_type_check("unit", unit, (str,))
    if unit not in ("step", "epoch"):
        raise ValueError('For "SummaryLandscape", the "unit" in train_metadata.json should be step or epoch, '
                         f"but got the: {unit}")


def _check_create(create):
    _train_utils_type_check("create_landscape", create, (dict,))
    for which, flag in create.items():
        if which not in ("train", "result"):
            raise ValueError('For "SummaryLandscape", the key of "create_landscape" should be in '
                             f'["train", "result"], but got the: {which}.')
        if len(create) < 2:
            raise ValueError('For "SummaryLandscape", the key of "create_landscape" should be train and result, '
                             f"but only got the: {which}")
        _train_utils_type_check(which, flag, (bool,))


def _check_intervals(intervals):
    _train_utils_type_check("intervals", intervals, (list,))
    for group in intervals:
        _train_utils_type_check("each interval in intervals", group, (list,))
        if len(group) < 3:
            raise ValueError('For "SummaryLandscape", the length of each list in "intervals" should not be less '
                             f"than three, but got the: {group}.")
        bad = [number for number in group if not isinstance(number, int)]
        if bad:
            raise TypeError('For "SummaryLandscape", the type of each value in "intervals" should be int, '
                            f"but got the: {type(bad[0])}.")


def _check_overrides(overrides):
    """The ``collect_landscape`` argument of ``gen_landscapes_with_multi_process``."""
    _train_utils_type_check("collect_landscape", overrides, (dict,))
    unknown = [key for key in overrides if key not in _OVERRIDE_KEYS]
    if unknown:
        raise ValueError('For "SummaryLandscape", the key of collect landscape should be landscape_size, '
                         f"unit, num_samples create_landscape or intervals, but got the: {unknown[0]}. ")
    checks = {"landscape_size": _check_size, "unit": _check_unit,
              "num_samples": lambda n: _train_utils_type_check("num_samples", n, (int,)),
              "create_landscape": _check_create, "intervals": _check_intervals}
    for key in _OVERRIDE_KEYS:  # in this order, whatever the order of the dict
        if key in overrides:
            checks[key](overrides[key])


def _check_device_ids(device_ids):
    _train_utils_type_check("device_ids", device_ids, (list,))
    for device in device_ids:
        if not isinstance(device, int):
            raise TypeError('For "SummaryLandscape.gen_landscapes_with_multi_process", the parameter '
                            f'"device_ids" type should be int, but got the: {type(device)}.{given(device)}')
        if not 0 <= device <= 7:
            raise ValueError('For "SummaryLandscape.gen_landscapes_with_multi_process", the parameter '
                             f'"device_ids" should be between 0 and 7, but got {device}.')


def _check_metadata(data, folder):
    """A ``train_metadata.json`` read back: its keys, its intervals against its checkpoints, its settings."""
    unknown = [key for key in data if key not in _METADATA_KEYS]
    if unknown:
        raise ValueError(f'"train_metadata" json file should be {list(_METADATA_KEYS)}, but got the: {unknown[0]}')
    try:
        groups, files = data["epoch_group"], data["model_params_file_map"]
        settings = [data[key] for key in ("step_per_epoch", "unit", "num_samples", "landscape_size",
                                          "create_landscape")]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"train_metadata.json in {folder} lacks {exc}") from None
    steps_per_epoch, unit, num_samples, size, create = settings
    for group in groups.values():
        if len(group) < 3:
            raise ValueError('For "SummaryLandscape", the "epoch_group" in train_metadata.json, length of each '
                             f'list in "epoch_group" should not be less than 3, but got: {len(group)}. ')
        missing = [number for number in group if str(number) not in files]
        if missing:
            raise ValueError('For "SummaryLandscape", the "model_params_file_map" in train_metadata.json '
                             f"does not exist {missing[0]}th checkpoint in intervals.")
    _train_utils_type_check("step_per_epoch", steps_per_epoch, (int,))
    _check_size(size)
    _check_unit(unit)
    _train_utils_type_check("num_samples", num_samples, (int,))
    _check_create(create)


# ---------------------------------------------------------------------------------------------------- directions
def _moves(name):
    """Whether a landscape moves this parameter: weights and biases do, optimizer moments do not."""
    return ("weight" in name or "bias" in name) and "moment" not in name


def _moving_vector(params):
    """The moving parameters of one checkpoint, end to end in one flat array."""
    return np.concatenate([p.asnumpy().reshape(-1) for p in params if _moves(p.name)])


def _cut(vector, params, moving_only):
    """Cut a flat direction into one float32 array per parameter, shaped like it.

    With ``moving_only`` the vector covers only the moving parameters and the
    others get a copy of their own values (zeroed later by :func:`_scaled`).
    """
    pieces, offset = [], 0
    for param in params:
        value = param.asnumpy()
        if moving_only and not _moves(param.name):
            pieces.append(np.array(value, dtype=np.float32))
            continue
        piece = vector[offset:offset + value.size].reshape(value.shape)
        pieces.append(np.array(piece, dtype=np.float32))
        offset += value.size
    return pieces


def _scaled(params, pieces):
    """Each piece rescaled to the norm of its parameter ("filter normalisation"); zero where nothing moves."""
    out = []
    for param, piece in zip(params, pieces):
        if _moves(param.name):
            out.append(piece * (np.linalg.norm(param.asnumpy()) / np.linalg.norm(piece)))
        else:
            out.append(piece * 0)
    return out


def _principal_directions(columns, count=2):
    """The first ``count`` principal components of the rows of ``columns`` (each scaled by its singular value).

    Plain full SVD: the matrix has one column per checkpoint, so it is thin even for a large network.  (MindSpore
    switches to a randomized SVD past 500 rows, which is not reproducible from run to run.)
    """
    centred = columns - columns.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    # Deterministic signs: the largest entry of each column of u is positive.
    rows = np.argmax(np.abs(u), axis=0)
    u = u * np.sign(u[rows, np.arange(u.shape[1])])
    s = np.where(s == 0, 1e-19, s)
    return u[:, :count] * s[:count]


def _pca_plane(snapshots):
    """Directions ``v``, ``w`` from the path's principal components, and each snapshot's (x, y) in that plane.

    The plane goes through the last snapshot; the path is the other snapshots
    minus the last one.
    """
    final = snapshots[-1]
    path = np.vstack([_moving_vector(params) for params in snapshots])
    components = _principal_directions((path[:-1] - path[-1]).T)
    v = _scaled(final, _cut(components[:, 0], final, moving_only=True))
    w = _scaled(final, _cut(components[:, -1], final, moving_only=True))
    moving = [_moves(p.name) for p in final]
    v_moving = np.concatenate([piece.reshape(-1) for piece, keep in zip(v, moving) if keep])
    w_moving = np.concatenate([piece.reshape(-1) for piece, keep in zip(w, moving) if keep])
    plane = np.vstack([v_moving, w_moving]).T
    centre = _moving_vector(final)
    coords = np.array([np.linalg.lstsq(plane, point - centre, rcond=None)[0] for point in path])
    return v, w, coords


def _random_plane(params):
    """Two random directions (NumPy's global generator, ``v`` drawn first), scaled to the parameters."""
    total = sum(p.asnumpy().size for p in params)
    v_draw = np.random.normal(size=total)
    w_draw = np.random.normal(size=total)
    return (_scaled(params, _cut(v_draw, params, moving_only=False)),
            _scaled(params, _cut(w_draw, params, moving_only=False)))


# ---------------------------------------------------------------------------------------------------- grid
def _axis_around(values, size):
    """``size`` points covering ``values`` with a margin on both ends (float64, as MindSpore's)."""
    low, high = float(values.min()), float(values.max())
    reach = _PCA_MARGIN * (high - low)
    return np.linspace(low - reach, high + reach, size)


def _pca_grid(coords, size):
    return np.meshgrid(_axis_around(coords[:, 0], size), _axis_around(coords[:, 1], size))


def _random_grid(size):
    axis = np.linspace(-_RANDOM_REACH, _RANDOM_REACH, size)
    return axis, np.meshgrid(axis, axis)


# ---------------------------------------------------------------------------------------------------- evaluation
class _LossProbe:
    """Measures the loss of the user's model with its parameters moved to ``centre + alpha * v + beta * w``.

    ``callback_fn`` gives a fresh ``(model, network, dataset, metrics)``; only
    the first ``num_samples`` samples of the dataset are used.
    """

    def __init__(self, callback_fn, num_samples, centre, v, w):
        from ...parameter import Parameter

        self.model, self.network, dataset, self.metrics = callback_fn()
        self.dataset = dataset.take(num_samples // dataset.get_batch_size())
        self.base = [p.asnumpy() for p in centre]
        self.slots = [Parameter(Tensor(value), name=p.name, requires_grad=True) for value, p in zip(self.base, centre)]
        self.v, self.w = v, w

    def loss_at(self, alpha, beta):
        """The "Loss" metric at one point of the plane."""
        from ...serialization import load_param_into_net

        moved = {}
        for slot, base, dv, dw in zip(self.slots, self.base, self.v, self.w):
            slot.set_data(Tensor((base + alpha * dv + beta * dw).astype(np.float32)))
            moved[slot.name] = slot
        load_param_into_net(self.network, moved)
        return self._metric_values().get("Loss")

    def _metric_values(self):
        """Run ``model.train_network`` over the data (in train mode, as MindSpore does) and evaluate the metrics."""
        from ..metrics import get_metrics
        from ..model import _batches

        metrics = get_metrics(self.metrics)
        for metric in metrics.values():
            metric.clear()
        network = self.model.train_network
        network.set_train(True)
        for batch in _batches(self.dataset):
            result = network(*batch)
            if isinstance(result, Tensor):
                result = (result,)
            elif not isinstance(result, tuple):
                raise ValueError(f"The argument 'outputs' should be tuple, but got {type(result)}. "
                                 "Modify 'output' to Tensor or tuple. ")
            loss = result[0]
            for metric in metrics.values():
                metric.update(loss)
        return {name: metric.eval() for name, metric in metrics.items()}

    def along(self, coords):
        """Losses at each (x, y) of a path, with a progress line per point."""
        losses = []
        for done, (alpha, beta) in enumerate(coords, start=1):
            losses.append(np.float64(self.loss_at(alpha, beta)))
            print(f"Drawing landscape path total progress is {done}/{len(coords)}, landscape path loss is "
                  f"{losses[-1]}.")
        return np.array(losses)

    def over(self, x_points, y_points):
        """Losses on a grid, row by row (one beta per row), with progress lines."""
        rows = []
        for row, (alphas, betas) in enumerate(zip(x_points, y_points), start=1):
            print(f"Drawing landscape total progress: {row}/{len(y_points)}.")
            losses = []
            for done, alpha in enumerate(alphas, start=1):
                loss = self.loss_at(alpha, betas[0])
                print(f"Current local landscape progress is {done}/{len(alphas)}, landscape loss is {loss}.")
                losses.append(loss)
            rows.append(np.asarray(losses, dtype=np.float64))
        return np.vstack(rows)


# ---------------------------------------------------------------------------------------------------- writing
def _landscape_message(grid, intervals, decomposition, unit, steps_per_epoch, path=None, convergence=None):
    """A ``LossLandscape`` message: the grid, optionally the path over it, and the point training ended at."""
    message = message_class("LossLandscape")()
    fill_tensor("x", grid.x[0], message.landscape.x)
    fill_tensor("y", grid.y[:, 0], message.landscape.y)
    fill_tensor("z", grid.z, message.landscape.z)
    if path is not None:
        message.loss_path.intervals.extend(intervals)
        for axis in ("x", "y", "z"):
            fill_tensor(axis, getattr(path, axis), getattr(message.loss_path.points, axis))
    if convergence is not None:
        for axis in ("x", "y", "z"):
            fill_tensor(axis, getattr(convergence, axis), getattr(message.convergence_point, axis))
    message.metadata.decomposition = decomposition
    message.metadata.unit = unit
    message.metadata.step_per_epoch = steps_per_epoch
    return message


class SummaryLandscape:
    """Compute loss landscapes from what :class:`SummaryCollector` saved, and write them for MindInsight.

    During training, ``SummaryCollector`` (with ``collect_landscape``) saves the
    network's parameters at the steps (or epochs) of each interval, in
    ``<summary_dir>/ckpt_dir``, and a ``train_metadata.json``.  This class reads
    them and evaluates the loss on a ``landscape_size x landscape_size`` grid:

    - for each interval (``create_landscape['train']``): in the plane of the two
      principal directions of the parameters' path (PCA of the checkpoints
      minus the last one), with the path itself and its end point;
    - for the last checkpoint (``create_landscape['result']``): in the plane of
      two random directions (NumPy's global generator: seed it with
      ``np.random.seed`` for a repeatable picture).

    Directions are scaled per parameter to the parameter's norm (filter-style
    normalisation); only parameters named ``*weight*`` or ``*bias*`` move.
    Each landscape is one ``LossLandscape`` value in a summary file, tagged
    ``landscape_[first, last]`` (or ``landscape_[last]``).

    Parameters
    ----------
    summary_dir : str
        The SummaryCollector's folder (``ckpt_dir`` is created in it if missing).

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> import cellkit as ms
    >>> from cellkit.train import Model, SummaryCollector, SummaryLandscape, Loss
    >>> def build():
    ...     net = ms.nn.Dense(2, 1, weight_init=ms.Tensor(np.array([[0.3, -0.2]], np.float32)))
    ...     return net, ms.nn.MSELoss()
    >>> x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(8, 2)
    >>> data = ms.dataset.NumpySlicesDataset({"x": x, "y": x[:, :1] * 2}, shuffle=False).batch(4)
    >>> folder = tempfile.mkdtemp()
    >>> net, loss = build()
    >>> landscape = {"landscape_size": 3, "num_samples": 8, "intervals": [[1, 2, 3]],
    ...              "create_landscape": {"train": True, "result": False}}
    >>> collector = SummaryCollector(folder, collect_specified_data={"collect_landscape": landscape})
    >>> Model(net, loss, ms.nn.SGD(net.trainable_params(), 0.1)).train(2, data, callbacks=[collector])
    >>> def callback_fn():
    ...     net, loss = build()
    ...     return Model(net, loss, metrics={"Loss": Loss()}), net, data, {"Loss": Loss()}
    >>> SummaryLandscape(folder).gen_landscapes_with_multi_process(callback_fn, device_ids=[0])  # doctest: +ELLIPSIS
    Drawing landscape path total progress is 1/3, ...
    """

    def __init__(self, summary_dir):
        if not isinstance(summary_dir, str):
            raise TypeError(f"For 'SummaryLandscape', 'summary_dir' must be a str{given(summary_dir)}")
        self._home = os.path.realpath(summary_dir)
        self._saved = os.path.join(self._home, "ckpt_dir")
        make_directory(self._saved, "path", "SummaryLandscape")

    def clean_ckpt(self):
        """Delete ``ckpt_dir`` (the saved parameters and the metadata)."""
        shutil.rmtree(self._saved, ignore_errors=True)

    def gen_landscapes_with_multi_process(self, callback_fn, collect_landscape=None, device_ids=None, output=None):
        """Compute the landscapes and write them to a summary file.

        Parameters
        ----------
        callback_fn : callable
            Called with no argument; returns ``(model, network, dataset,
            metrics)``: a ``Model`` whose ``train_network`` returns the loss
            (build it without an optimizer), the network whose parameters are
            moved, a batched dataset, and ``{"Loss": Loss()}``.
        collect_landscape : dict, optional
            Overrides of the saved settings (``landscape_size``, ``unit``,
            ``num_samples``, ``create_landscape``, ``intervals``); written back
            to ``train_metadata.json``.
        device_ids : list of int, optional
            MindSpore spreads the grid over these devices' processes; cellkit
            computes it in this process whatever is given (values 0..7 are
            checked as MindSpore checks them).  None means one device (MindSpore
            2.10 fails on its own default None).
        output : str, optional
            Where to write the summary file (default: ``summary_dir``).

        Raises
        ------
        FileNotFoundError
            No ``train_metadata.json`` in ``ckpt_dir``.
        TypeError, ValueError
            Bad ``device_ids`` or ``collect_landscape``; a damaged metadata file.
        """
        device_ids = [0] if device_ids is None else device_ids
        target = self._home if output is None else os.path.realpath(output)
        _check_device_ids(device_ids)
        writer = SummaryRecord(target)
        try:
            if collect_landscape is not None:  # even {}: the metadata file must then exist
                self._apply_overrides(collect_landscape)
            # One picture at a time: each is written (and flushed) before the next is computed.
            for interval, message in self._pictures(callback_fn):
                writer.add_value("landscape", f"landscape_{interval}", message)
                writer.record(0)
                writer.flush()
        finally:
            writer.close()

    # --- the metadata file
    def _metadata_file(self):
        return os.path.join(self._saved, _METADATA_NAME)

    def _apply_overrides(self, overrides):
        """Write the user's overrides into ``train_metadata.json`` (a read-only file, made writable meanwhile)."""
        _check_overrides(overrides)
        path = self._metadata_file()
        if not os.path.exists(path):
            raise FileNotFoundError(f'For "SummaryLandscape", train_metadata.json file path of {path} not exists.')
        with open(path, encoding="utf-8") as handle:
            metadata = json.load(handle)
        metadata.update({key: value for key, value in overrides.items() if key in metadata})
        if "intervals" in overrides:
            metadata["epoch_group"] = {index: list(group) for index, group in enumerate(overrides["intervals"])}
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(metadata, handle)
        os.chmod(path, stat.S_IRUSR)

    def _metadata(self):
        path = self._metadata_file()
        if not os.path.exists(path):
            raise FileNotFoundError('For "SummaryLandscape", train_metadata.json file does not exist under the path, '
                                    "please use summary_collector to collect information to create the json file")
        with open(path, encoding="utf-8") as handle:
            metadata = json.load(handle)
        _check_metadata(metadata, self._saved)
        return metadata

    # --- the pictures
    def _pictures(self, callback_fn):
        """``(interval, LossLandscape message)`` for each picture the metadata asks for, computed lazily."""
        from ...serialization import load_checkpoint

        metadata = self._metadata()
        files = metadata["model_params_file_map"]
        groups = list(metadata["epoch_group"].values())
        size, samples = metadata["landscape_size"], metadata["num_samples"]
        unit, steps_per_epoch = metadata["unit"], metadata["step_per_epoch"]

        def snapshot(number):
            return list(load_checkpoint(files[str(number)]).values())

        if metadata["create_landscape"]["train"]:
            for group in groups:
                snapshots = [snapshot(number) for number in group]
                v, w, coords = _pca_plane(snapshots)
                x_points, y_points = _pca_grid(coords, size)
                probe = _LossProbe(callback_fn, samples, snapshots[-1], v, w)
                path = PlanePoints(coords[:, 0], coords[:, 1], probe.along(coords))
                grid = PlanePoints(x_points, y_points, probe.over(x_points, y_points))
                end = int(np.flatnonzero(path.x == 0)[0])  # the last snapshot sits at the origin of the plane
                convergence = PlanePoints(np.array([0]), np.array([0]), np.array([path.z[end]]))
                yield [group[0], group[-1]], _landscape_message(grid, group, "PCA", unit, steps_per_epoch,
                                                                path, convergence)
        if metadata["create_landscape"]["result"]:
            last = [groups[-1][-1]]
            final = snapshot(last[0])
            v, w = _random_plane(final)
            axis, (x_points, y_points) = _random_grid(size)
            probe = _LossProbe(callback_fn, samples, final, v, w)
            grid = PlanePoints(x_points, y_points, probe.over(x_points, y_points))
            middle = len(axis) // 2
            convergence = PlanePoints(np.array([axis[middle]]), np.array([axis[middle]]),
                                 np.array([grid.z[middle][middle]]))
            yield last, _landscape_message(grid, last, "Random", unit, steps_per_epoch, None, convergence)
