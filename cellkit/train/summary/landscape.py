"""``SummaryLandscape``: loss landscapes around a training path, from the checkpoints SummaryCollector saved."""
from __future__ import annotations

import json
import logging
import os
import shutil
import stat
from collections import defaultdict, namedtuple

import numpy as np

from ...tensor import Tensor
from .messages import message_class
from .record import SummaryRecord, _train_utils_type_check, make_directory
from .values import fill_tensor

__all__ = ["SummaryLandscape"]

_log = logging.getLogger("cellkit.train.summary")

Points = namedtuple("Points", ["x", "y", "z"])
_MARGIN = 0.2          # the grid reaches 20% past the path's extent on each side
_RANDOM_EXTENT = 5     # the random-direction grid spans +-_MARGIN * 5 = +-1 in each direction
_METADATA_KEYS = ("epoch_group", "model_params_file_map", "step_per_epoch", "unit", "num_samples",
                  "landscape_size", "create_landscape")


def _is_weight(name):
    """Parameters a landscape moves: weights and biases, not optimizer moments."""
    return ("weight" in name or "bias" in name) and "moment" not in name


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


def _loss_landscape_message(landscape, intervals, decomposition, unit, step_per_epoch, path=None, convergence=None):
    message = message_class("LossLandscape")()
    fill_tensor("x", landscape.x[0], message.landscape.x)
    fill_tensor("y", landscape.y[:, 0], message.landscape.y)
    fill_tensor("z", landscape.z, message.landscape.z)
    if path is not None:
        message.loss_path.intervals.extend(intervals)
        fill_tensor("x", path.x, message.loss_path.points.x)
        fill_tensor("y", path.y, message.loss_path.points.y)
        fill_tensor("z", path.z, message.loss_path.points.z)
    if convergence is not None:
        fill_tensor("x", convergence.x, message.convergence_point.x)
        fill_tensor("y", convergence.y, message.convergence_point.y)
        fill_tensor("z", convergence.z, message.convergence_point.z)
    message.metadata.decomposition = decomposition
    message.metadata.unit = unit
    message.metadata.step_per_epoch = step_per_epoch
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
            raise TypeError(f"For 'SummaryLandscape', 'summary_dir' must be a str{_given(summary_dir)}")
        self._summary_dir = os.path.realpath(summary_dir)
        self._ckpt_dir = os.path.join(self._summary_dir, "ckpt_dir")
        make_directory(self._ckpt_dir, "path", "SummaryLandscape")
        self._model_params_file_map = {}
        self._epoch_group = defaultdict(list)
        self._metric_fns = None

    def clean_ckpt(self):
        """Delete ``ckpt_dir`` (the saved parameters and the metadata)."""
        shutil.rmtree(self._ckpt_dir, ignore_errors=True)

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
        if device_ids is None:
            device_ids = [0]
        output_path = os.path.realpath(output) if output is not None else self._summary_dir
        self._check_device_ids(device_ids)
        record = SummaryRecord(output_path)
        try:
            if collect_landscape is not None:
                self._update_metadata(collect_landscape)
            for interval, landscape in self._list_landscapes(callback_fn):
                record.add_value("landscape", f"landscape_{interval}", landscape)
                record.record(0)
                record.flush()
        finally:
            record.close()

    # ------------------------------------------------------------------ metadata
    def _metadata_path(self):
        return os.path.join(self._ckpt_dir, "train_metadata.json")

    def _update_metadata(self, collect_landscape):
        self._check_collect_landscape_data(collect_landscape)
        path = self._metadata_path()
        if not os.path.exists(path):
            raise FileNotFoundError(f'For "SummaryLandscape", train_metadata.json file path of {path} not exists.')
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        for key, value in collect_landscape.items():
            if key in data:
                data[key] = value
        if "intervals" in collect_landscape:
            for index, interval in enumerate(collect_landscape["intervals"]):
                self._epoch_group[index].extend(interval)
            data["epoch_group"] = self._epoch_group
        if os.path.exists(path):
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.chmod(path, stat.S_IRUSR)

    def _read_metadata(self):
        path = self._metadata_path()
        if not os.path.exists(path):
            raise FileNotFoundError('For "SummaryLandscape", train_metadata.json file does not exist under the path, '
                                    "please use summary_collector to collect information to create the json file")
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        self._check_json_file_data(data)
        return data

    # ------------------------------------------------------------------ landscapes
    def _list_landscapes(self, callback_fn):
        data = self._read_metadata()
        self._epoch_group = data["epoch_group"]
        self._model_params_file_map = data["model_params_file_map"]
        size = data["landscape_size"]
        if data["create_landscape"]["train"]:
            for epochs in self._epoch_group.values():
                path, grid, convergence = self._landscape_by_pca(epochs, size, callback_fn)
                yield [epochs[0], epochs[-1]], _loss_landscape_message(
                    grid, epochs, "PCA", data["unit"], data["step_per_epoch"], path, convergence)
        if data["create_landscape"]["result"]:
            final = [list(self._epoch_group.values())[-1][-1]]
            grid, convergence = self._landscape_by_random(final, size, callback_fn)
            yield final, _loss_landscape_message(grid, final, "Random", data["unit"], data["step_per_epoch"],
                                                 None, convergence)

    def _checkpoints(self, epochs):
        from ...serialization import load_checkpoint

        return [list(load_checkpoint(self._model_params_file_map[str(epoch)]).values()) for epoch in epochs]

    def _landscape_by_pca(self, epochs, size, callback_fn):
        snapshots = self._checkpoints(epochs)
        flat = np.vstack([np.concatenate([p.asnumpy().reshape(-1) for p in params if _is_weight(p.name)])
                          for params in snapshots])
        directions = _principal_directions((flat[:-1] - flat[-1]).T)
        final = snapshots[-1]
        v = self._normalized(final, self._reshape(directions[:, 0], final))
        w = self._normalized(final, self._reshape(directions[:, -1], final))
        moved = [p for p in final if _is_weight(p.name)]
        v_flat = np.concatenate([a.reshape(-1) for a, p in zip(v, final) if _is_weight(p.name)])
        w_flat = np.concatenate([a.reshape(-1) for a, p in zip(w, final) if _is_weight(p.name)])
        basis = np.vstack([v_flat, w_flat]).T
        origin = np.concatenate([p.asnumpy().reshape(-1) for p in moved])
        coefs = np.array([np.linalg.lstsq(basis, row - origin, rcond=None)[0] for row in flat])
        xs, ys = coefs[:, 0], coefs[:, 1]
        # The grid in float64 (as MindSpore's is), the path in the checkpoints' float32.
        x_low, x_high, y_low, y_high = (float(v) for v in (xs.min(), xs.max(), ys.min(), ys.max()))
        x_axis = np.linspace(x_low - _MARGIN * (x_high - x_low), x_high + _MARGIN * (x_high - x_low), size)
        y_axis = np.linspace(y_low - _MARGIN * (y_high - y_low), y_high + _MARGIN * (y_high - y_low), size)
        x_points, y_points = np.meshgrid(x_axis, y_axis)
        path_losses, z_points = self._evaluate(callback_fn, final, v, w, x_points, y_points, coefs)
        path = Points(xs, ys, np.array(path_losses).T[0])
        zero = int(np.argwhere(path.x == 0).reshape(-1)[0])
        convergence = Points(np.array([0]), np.array([0]), np.array([path.z[zero]]))
        return path, Points(x_points, y_points, np.vstack(z_points)), convergence

    def _landscape_by_random(self, epochs, size, callback_fn):
        final = self._checkpoints(epochs)[-1]
        arrays = [p.asnumpy() for p in final]
        total = sum(a.size for a in arrays)
        v_rand = np.random.normal(size=total)
        w_rand = np.random.normal(size=total)
        v = self._normalized(final, self._split(v_rand, arrays))
        w = self._normalized(final, self._split(w_rand, arrays))
        axis = np.linspace(-_MARGIN * _RANDOM_EXTENT, _MARGIN * _RANDOM_EXTENT, size)
        x_points, y_points = np.meshgrid(axis, axis)
        _, z_points = self._evaluate(callback_fn, final, v, w, x_points, y_points, None)
        middle = len(axis) // 2
        convergence = Points(np.array([axis[middle]]), np.array([axis[middle]]),
                             np.array([z_points[middle][middle]]))
        return Points(x_points, y_points, np.vstack(z_points)), convergence

    @staticmethod
    def _reshape(vector, params):
        """A flat direction over the moved parameters, as one array per parameter (the others copied)."""
        out, start = [], 0
        for param in params:
            data = param.asnumpy()
            if not _is_weight(param.name):
                out.append(np.array(data, dtype=np.float32))
                continue
            out.append(np.array(vector[start:start + data.size].reshape(data.shape), dtype=np.float32))
            start += data.size
        return out

    @staticmethod
    def _split(vector, arrays):
        out, start = [], 0
        for data in arrays:
            out.append(np.array(vector[start:start + data.size].reshape(data.shape), dtype=np.float32))
            start += data.size
        return out

    @staticmethod
    def _normalized(params, direction):
        """Each parameter's slice of ``direction`` scaled to that parameter's norm (zero for the ones not moved)."""
        for i, param in enumerate(params):
            if _is_weight(param.name):
                direction[i] = direction[i] * (np.linalg.norm(param.asnumpy()) / np.linalg.norm(direction[i]))
            else:
                direction[i] = direction[i] * 0
        return direction

    def _evaluate(self, callback_fn, final, v, w, x_points, y_points, coefs):
        """Losses along the path (for ``coefs``) and on every row of the grid."""
        from ...parameter import Parameter

        model, network, dataset, metrics = callback_fn()
        data = self._read_metadata()
        dataset = dataset.take(data["num_samples"] // dataset.get_batch_size())
        final_arrays = [p.asnumpy() for p in final]
        params = [Parameter(Tensor(a), name=p.name, requires_grad=True) for a, p in zip(final_arrays, final)]
        path = []
        if coefs is not None:
            for i, coef in enumerate(coefs):
                loss = self._losses(dataset, network, model, metrics, params, final_arrays, [coef[0]], coef[1], v, w,
                                    path=True)
                path.append(loss)
                print(f"Drawing landscape path total progress is {i + 1}/{len(coefs)}, landscape path loss is "
                      f"{loss[0]}.")
        rows = []
        for i, y_row in enumerate(y_points):
            print(f"Drawing landscape total progress: {i + 1}/{len(y_points)}.")
            rows.append(self._losses(dataset, network, model, metrics, params, final_arrays, x_points[i], y_row[0],
                                     v, w))
        return path, rows

    def _losses(self, dataset, network, model, metrics, params, final_arrays, alphas, beta, v, w, path=False):
        from ...serialization import load_param_into_net

        values = []
        for i, alpha in enumerate(alphas):
            moved = {}
            for j, param in enumerate(params):
                target = final_arrays[j] + alpha * v[j] + beta * w[j]
                param.set_data(Tensor(target.astype(np.float32)))
                moved[param.name] = param
            load_param_into_net(network, moved)
            loss = self._loss(model, dataset, metrics)
            if not path:
                print(f"Current local landscape progress is {i + 1}/{len(alphas)}, landscape loss is "
                      f"{loss.get('Loss')}.")
            values = np.append(values, loss.get("Loss"))
        return values

    def _loss(self, model, dataset, metrics):
        """Run ``model.train_network`` over ``dataset`` and return the metrics (MindSpore runs it in train mode)."""
        from ..metrics import get_metrics
        from ..model import _batches

        self._metric_fns = get_metrics(metrics)
        for metric in self._metric_fns.values():
            metric.clear()
        network = model.train_network
        network.set_train(True)
        for batch in _batches(dataset):
            outputs = network(*batch)
            if isinstance(outputs, Tensor):
                outputs = (outputs,)
            if not isinstance(outputs, tuple):
                raise ValueError(f"The argument 'outputs' should be tuple, but got {type(outputs)}. "
                                 "Modify 'output' to Tensor or tuple. ")
            for metric in self._metric_fns.values():
                metric.update(outputs[0])
        return {name: metric.eval() for name, metric in self._metric_fns.items()}

    # ------------------------------------------------------------------ checks (MindSpore's messages)
    def _check_device_ids(self, device_ids):
        _train_utils_type_check("device_ids", device_ids, (list,))
        for item in device_ids:
            if not isinstance(item, int):
                raise TypeError('For "SummaryLandscape.gen_landscapes_with_multi_process", the parameter '
                                f'"device_ids" type should be int, but got the: {type(item)}.{_given(item)}')
            if item < 0 or item > 7:
                raise ValueError('For "SummaryLandscape.gen_landscapes_with_multi_process", the parameter '
                                 f'"device_ids" should be between 0 and 7, but got {item}.')

    @staticmethod
    def _check_unit(unit):
        _train_utils_type_check("unit", unit, (str,))
        if unit not in ("step", "epoch"):
            raise ValueError('For "SummaryLandscape", the "unit" in train_metadata.json should be step or epoch, '
                             f"but got the: {unit}")

    @staticmethod
    def _check_landscape_size(size):
        _train_utils_type_check("landscape_size", size, (int,))
        if size < 3 or size > 256:
            raise ValueError('For "SummaryLandscape", "landscape_size" in train_metadata.json should be between 3 '
                             f"and 256, but got the: {size}")

    @staticmethod
    def _check_create_landscape(create):
        _train_utils_type_check("create_landscape", create, (dict,))
        for key, value in create.items():
            if key not in ("train", "result"):
                raise ValueError('For "SummaryLandscape", the key of "create_landscape" should be in '
                                 f'["train", "result"], but got the: {key}.')
            if len(create) < 2:
                raise ValueError('For "SummaryLandscape", the key of "create_landscape" should be train and result, '
                                 f"but only got the: {key}")
            _train_utils_type_check(key, value, (bool,))

    @staticmethod
    def _check_intervals(intervals):
        _train_utils_type_check("intervals", intervals, (list,))
        for interval in intervals:
            _train_utils_type_check("each interval in intervals", interval, (list,))
            if len(interval) < 3:
                raise ValueError('For "SummaryLandscape", the length of each list in "intervals" should not be less '
                                 f"than three, but got the: {interval}.")
            for item in interval:
                if not isinstance(item, int):
                    raise TypeError('For "SummaryLandscape", the type of each value in "intervals" should be int, '
                                    f"but got the: {type(item)}.")

    def _check_collect_landscape_data(self, collect_landscape):
        _train_utils_type_check("collect_landscape", collect_landscape, (dict,))
        for key in collect_landscape:
            if key not in ("landscape_size", "unit", "num_samples", "create_landscape", "intervals"):
                raise ValueError('For "SummaryLandscape", the key of collect landscape should be landscape_size, '
                                 f"unit, num_samples create_landscape or intervals, but got the: {key}. ")
        if "landscape_size" in collect_landscape:
            self._check_landscape_size(collect_landscape["landscape_size"])
        if "unit" in collect_landscape:
            self._check_unit(collect_landscape["unit"])
        if "num_samples" in collect_landscape:
            _train_utils_type_check("num_samples", collect_landscape["num_samples"], (int,))
        if "create_landscape" in collect_landscape:
            self._check_create_landscape(collect_landscape["create_landscape"])
        if "intervals" in collect_landscape:
            self._check_intervals(collect_landscape["intervals"])

    def _check_json_file_data(self, data):
        for key in data:
            if key not in _METADATA_KEYS:
                raise ValueError(f'"train_metadata" json file should be {list(_METADATA_KEYS)}, but got the: {key}')
        try:
            groups, files = data["epoch_group"], data["model_params_file_map"]
            step_per_epoch, unit, num_samples = data["step_per_epoch"], data["unit"], data["num_samples"]
            size, create = data["landscape_size"], data["create_landscape"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"train_metadata.json in {self._ckpt_dir} lacks {exc}") from None
        for epochs in groups.values():
            if len(epochs) < 3:
                raise ValueError('For "SummaryLandscape", the "epoch_group" in train_metadata.json, length of each '
                                 f'list in "epoch_group" should not be less than 3, but got: {len(epochs)}. ')
            for epoch in epochs:
                if str(epoch) not in files:
                    raise ValueError('For "SummaryLandscape", the "model_params_file_map" in train_metadata.json '
                                     f"does not exist {epoch}th checkpoint in intervals.")
        _train_utils_type_check("step_per_epoch", step_per_epoch, (int,))
        self._check_landscape_size(size)
        self._check_unit(unit)
        _train_utils_type_check("num_samples", num_samples, (int,))
        self._check_create_landscape(create)


def _given(value):
    from .record import given

    return given(value)
