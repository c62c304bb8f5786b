"""``Model``: the high-level training loop of ``mindspore.train.Model``.

``Model(network, loss_fn, optimizer, metrics)`` wraps the network into a
:class:`~cellkit.nn.TrainOneStepCell` for training and a
:class:`~cellkit.nn.WithEvalCell` for evaluation, then ``train`` /
``fit`` / ``eval`` / ``predict`` run them over datasets -- any re-iterable of
``(data, label)`` batches (NumPy arrays or Tensors), or a
:class:`~cellkit.train.NumpySlicesDataset`.  Every run records its losses in
``model.history``; a ``tqdm`` bar shows progress when the session is
interactive.

>>> import numpy as np
>>> import cellkit as ms
>>> from cellkit import nn
>>> from cellkit.train import Model
>>> ms.set_seed(0)
>>> x = np.random.default_rng(0).normal(size=(64, 2)).astype(np.float32)
>>> y = (x[:, 0] > 0).astype(np.int32)
>>> batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
>>> net = nn.Dense(2, 2)
>>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
>>> model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"accuracy"})
>>> model.train(20, batches)
>>> model.eval(batches)["accuracy"] > 0.9
True
>>> len(model.history.step_loss), len(model.history.epoch_loss)
(80, 20)
>>> model.predict(x[:3]).shape
(3, 2)
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import backend as _backend
from ..nn.cell import Cell
from ..nn.optim.optimizer import Optimizer
from ..amp.mixed_precision import build_train_network
from ..nn.wrap import WithEvalCell, WithLossCell
from ..tensor import Tensor
from .callback import RunContext, _CallbackList, _CallbackParams
from .history import TrainingHistory
from .metrics import Loss, get_metrics
from .progress import ProgressBar, progress_enabled

__all__ = ["Model"]

_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")


class Model:
    """Train, evaluate and run a network with one object.

    Parameters
    ----------
    network : Cell
        The network (``loss_fn`` given) or a network that already returns the
        loss (``loss_fn=None``).
    loss_fn : Cell, optional
        Called as ``loss_fn(network(data), label)``.
    optimizer : Optimizer, optional
        Without one, ``train`` computes losses but updates nothing.
    metrics : dict or set, optional
        ``{'accuracy', 'loss'}`` or ``{'name': Metric(), ...}``: what
        :meth:`eval` reports.
    eval_network : Cell, optional
        Returns ``(loss, outputs, label)``-like tuples for the metrics; by
        default ``WithEvalCell(network, loss_fn)``.
    eval_indexes : list of 3 ints, optional
        Which outputs of ``eval_network`` are the loss, the outputs and the
        label (all outputs go to every metric when not given).
    amp_level : str
        ``'O0'`` (default), ``'O1'``, ``'O2'`` or ``'O3'``: the training
        network is built by :func:`cellkit.amp.build_train_network` at that
        level (``'O2'`` brings a :class:`DynamicLossScaleManager`).
    boost_level : str
        Accepted (``'O0'``, ``'O1'``, ``'O2'``); cellkit has no boost mode.
    **kwargs
        ``loss_scale_manager`` (a :class:`LossScaleManager`: with
        ``drop_overflow_update`` a step whose gradients overflow leaves the
        Parameters as they were, and the manager follows the scale),
        ``keep_batchnorm_fp32``; ``boost_config_dict`` and ``acc_level`` are
        accepted.

    Attributes
    ----------
    history : TrainingHistory
        Per-step losses, per-epoch mean losses and ``fit``'s metrics.

    Raises
    ------
    TypeError
        If ``network`` is not a Cell, or ``optimizer`` not an Optimizer.
    ValueError
        If ``metrics`` are given without ``loss_fn`` or ``eval_network``, for
        unknown keyword arguments or levels, or ``amp_level`` /
        ``loss_scale_manager`` without an optimizer.
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, Cell):
            raise TypeError(f"For 'Model', 'network' must be a Cell, but got {type(network).__name__}")
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'Model', 'optimizer' must be an nn.Optimizer, but got {type(optimizer).__name__}")
        for key in kwargs:
            if key not in _KWARGS:
                raise ValueError(
                    f"The argument in 'kwargs' should be one of {list(_KWARGS)}, but got '{key}'."
                )
        if optimizer is None and amp_level != "O0":
            raise ValueError("Auto mixed precision will not work because 'optimizer' is None.Please set "
                             "amp_level='O0' to disable auto mixed precision or set 'optimizer' not be None to use "
                             "auto mixed precision.")
        self._amp_level = amp_level
        self._boost_level = boost_level
        self._loss_scale_manager = kwargs.get("loss_scale_manager")
        self._loss_scale_manager_set = "loss_scale_manager" in kwargs
        self._keep_bn_fp32 = kwargs.get("keep_batchnorm_fp32")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metrics = metrics
        self._train_network = self._build_train_network()
        self._metric_fns = get_metrics(metrics) or {}
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network, eval_indexes)
        self._predict_network = network
        self.history = TrainingHistory()
        self._step_count = 0
        self._epoch_count = 0

    # ------------------------------------------------------------ networks
    def _build_train_network(self):
        network = self._network
        if self._loss_scale_manager is not None and self._optimizer is None:
            raise ValueError("The argument 'optimizer' can not be None when set 'loss_scale_manager'.")
        if self._optimizer is not None:
            amp_config = {}
            if self._loss_scale_manager_set:
                amp_config["loss_scale_manager"] = self._loss_scale_manager
            if self._keep_bn_fp32 is not None:
                amp_config["keep_batchnorm_fp32"] = self._keep_bn_fp32
            return build_train_network(network, self._optimizer, self._loss_fn, level=self._amp_level,
                                       boost_level=self._boost_level, **amp_config)
        if self._loss_fn is not None:
            return WithLossCell(network, self._loss_fn)
        return network

    def _build_eval_network(self, eval_network, eval_indexes):
        if not self._metric_fns:
            return eval_network, eval_indexes
        if eval_network is not None:
            if eval_indexes is not None and not (isinstance(eval_indexes, list) and len(eval_indexes) == 3):
                raise ValueError(
                    "The argument 'eval_indexes' must be a list or None. If 'eval_indexes' is a list, length of it "
                    f"must be three. But got 'eval_indexes' {eval_indexes}"
                )
            return eval_network, eval_indexes
        if self._loss_fn is None:
            raise ValueError(
                "If `metrics` is set, `eval_network` must not be None. Give `loss_fn` (the Model then evaluates "
                "WithEvalCell(network, loss_fn)) or an `eval_network` returning (loss, outputs, label)."
            )
        return WithEvalCell(self._network, self._loss_fn, self._amp_level in ("O2", "O3", "auto")), [0, 1, 2]

    @property
    def train_network(self):
        """The Cell one training step calls (a TrainOneStepCell when there is an optimizer)."""
        return self._train_network

    @property
    def eval_network(self):
        """The Cell evaluation calls (``None`` without metrics)."""
        return self._eval_network

    @property
    def predict_network(self):
        """The network itself."""
        return self._predict_network

    # ------------------------------------------------------------ training
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0,
              *, progress=None):
        """Train for epochs ``initial_epoch + 1 .. epoch``.

        Parameters
        ----------
        epoch : int
            The epoch to stop after (the total, counting ``initial_epoch``).
        train_dataset : iterable
            Re-iterable batches: ``(data, label)`` tuples, dicts, or a dataset
            with ``create_tuple_iterator``.  NumPy arrays become Tensors.
        callbacks : Callback or list of Callback, optional
        dataset_sink_mode : bool
            Accepted; cellkit always feeds batches from Python (sink mode
            needs a device queue), so callbacks see every step.
        sink_size : int
            Ignored (see ``dataset_sink_mode``).
        initial_epoch : int
            Epochs already done (numbering continues from it).
        progress : bool, optional
            Show a progress bar (default: only in interactive sessions).

        Raises
        ------
        ValueError
            Bad ``epoch``/``initial_epoch``, an empty dataset, or a NaN loss
            seen by ``LossMonitor``.
        TypeError
            A one-shot iterator given for more than one epoch.
        """
        self._run_training(epoch, train_dataset, callbacks, dataset_sink_mode, initial_epoch, progress)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0, *, progress=None):
        """Train, and evaluate ``valid_dataset`` every ``valid_frequency`` epochs (as MindSpore: not after the last unless due).

        Arguments as in :meth:`train`; ``valid_dataset_sink_mode`` and
        ``sink_size`` are accepted and ignored (no dataset sink in cellkit).

        ``valid_frequency`` may also be a list of epoch numbers.  The metrics
        are passed to the callbacks (``cb_params.metrics``: ``LossMonitor``
        prints them) and recorded in ``model.history.metrics``.
        """
        if valid_dataset is not None and not self._metric_fns:
            raise ValueError("For 'Model.fit', evaluating 'valid_dataset' needs 'metrics' given to the Model")
        if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, (int, list)):
            raise TypeError(f"For 'Model.fit', 'valid_frequency' must be an int or a list, but got {valid_frequency!r}")
        if isinstance(valid_frequency, int) and valid_frequency < 1:
            raise ValueError(f"For 'Model.fit', 'valid_frequency' must be >= 1, but got {valid_frequency}")
        self._run_training(epoch, train_dataset, callbacks, dataset_sink_mode, initial_epoch, progress,
                           valid_dataset=valid_dataset, valid_frequency=valid_frequency)

    def _run_training(self, epoch, dataset, callbacks, sink_mode, initial_epoch, progress,
                      valid_dataset=None, valid_frequency=1):
        _check_epochs(epoch, initial_epoch)
        _check_reiterable(dataset, epoch - initial_epoch, "train_dataset")
        if sink_mode:
            warnings.warn("cellkit has no dataset sink: dataset_sink_mode=True trains step by step", stacklevel=3)
        show = progress_enabled(progress)
        batch_num = _dataset_size(dataset)
        cb_list = _CallbackList(callbacks)
        cb_params = _CallbackParams(
            train_network=self._train_network, network=self._network, loss_fn=self._loss_fn,
            optimizer=self._optimizer, epoch_num=epoch - initial_epoch, batch_num=batch_num, cur_epoch_num=initial_epoch,
            cur_step_num=0, dataset_sink_mode=False, mode="train",
            train_dataset=dataset, train_dataset_element=None, net_outputs=None, list_callback=cb_list,
            parallel_mode="stand_alone", device_number=1, metrics=None, last_save_ckpt_step=None,
            latest_ckpt_file=None, loss_scale_mananger=self._loss_scale_manager, eval_results=None,
        )
        run_context = RunContext(cb_params)
        with cb_list:
            cb_list.on_train_begin(run_context)
            for epoch_index in range(initial_epoch, epoch):
                cb_params.cur_epoch_num = epoch_index + 1
                cb_params.metrics = None
                self._train_network.set_train(True)
                cb_list.on_train_epoch_begin(run_context)
                bar = ProgressBar(total=batch_num, desc=f"epoch {epoch_index + 1}/{epoch}", enabled=show)
                try:
                    losses = self._train_epoch(dataset, cb_list, cb_params, run_context, bar)
                    if not losses and not run_context.get_stop_requested():
                        raise ValueError(
                            f"train_dataset yielded no batches in epoch {epoch_index + 1}; give a re-iterable "
                            "(a list of batches or a NumpySlicesDataset)"
                        )
                    if cb_params.batch_num is None:
                        cb_params.batch_num = len(losses)
                    self.history.add_steps(_losses_to_host(losses))
                    metrics = None
                    if valid_dataset is not None and _due(epoch_index + 1, epoch, valid_frequency):
                        metrics = self._evaluate(valid_dataset, _CallbackList(_fit_eval_callbacks(cb_list)), False,
                                                 train_params=cb_params)
                        cb_params.metrics = metrics
                    self.history.add_epoch(epoch_index + 1, metrics)
                    shown = {"loss": self.history.epoch_loss[-1]}
                    shown.update({f"eval_{name}": value for name, value in (metrics or {}).items()})
                    bar.finish(shown)
                finally:
                    bar.close()
                self._epoch_count = epoch_index + 1
                cb_list.on_train_epoch_end(run_context)
                cb_params.metrics = cb_params.eval_results = None
                if run_context.get_stop_requested():
                    break
            cb_list.on_train_end(run_context)

    def _train_epoch(self, dataset, cb_list, cb_params, run_context, bar):
        losses = []
        network = self._train_network
        for batch in _batches(dataset):
            cb_params.train_dataset_element = batch
            cb_list.on_train_step_begin(run_context)
            outputs = network(*batch)
            cb_params.cur_step_num += 1
            self._step_count += 1
            cb_params.net_outputs = outputs
            manager = self._loss_scale_manager
            if manager is not None and manager.get_drop_overflow_update():
                manager.update_loss_scale(bool(np.all(outputs[1].asnumpy())))
            loss = _first_tensor(outputs)
            if loss is not None:
                losses.append(loss)
            cb_list.on_train_step_end(run_context)
            bar.step(loss)
            if run_context.get_stop_requested():
                break
        return losses

    # ---------------------------------------------------------- evaluation
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False, *, progress=None):
        """Run the metrics over ``valid_dataset``; returns ``{name: value}`` (Python floats).

        The network is put in inference mode (``set_train(False)``) first.

        Raises
        ------
        ValueError
            If the Model has no metrics, or the dataset yields no batches.
        """
        if not self._metric_fns:
            raise ValueError("For 'Model.eval', the Model needs 'metrics' (for example metrics={'accuracy'})")
        return self._evaluate(valid_dataset, _CallbackList(callbacks), progress_enabled(progress), own_callbacks=True)

    def _evaluate(self, dataset, cb_list, show, own_callbacks=False, train_params=None):
        batch_num = _dataset_size(dataset)
        cb_params = _CallbackParams(
            eval_network=self._eval_network, network=self._network, valid_dataset=dataset, metrics=None,
            batch_num=batch_num, cur_step_num=0, cur_epoch_num=1, dataset_sink_mode=False, mode="eval",
            net_outputs=None, list_callback=cb_list, eval_dataset_element=None,
        )
        if train_params is not None:  # fit: the evaluation runs within the training epoch
            cb_params.cur_epoch_num = train_params.cur_epoch_num
        run_context = RunContext(cb_params)
        for metric in self._metric_fns.values():
            metric.clear()
        self._eval_network.set_train(False)
        bar = ProgressBar(total=batch_num, desc="eval", enabled=show)

        def run():
            cb_list.on_eval_begin(run_context)
            cb_list.on_eval_epoch_begin(run_context)
            steps = 0
            last_outputs = None
            for batch in _batches(dataset):
                cb_params.eval_dataset_element = batch
                cb_list.on_eval_step_begin(run_context)
                outputs = self._eval_network(*batch)
                steps += 1
                cb_params.cur_step_num = steps
                cb_params.net_outputs = outputs
                cb_list.on_eval_step_end(run_context)
                self._update_metrics(outputs)
                last_outputs = outputs
                bar.step()
            if steps == 0:
                raise ValueError("valid_dataset yielded no batches to evaluate")
            results = {name: _plain_number(metric.eval()) for name, metric in self._metric_fns.items()}
            cb_params.metrics = results
            if train_params is not None:
                # As MindSpore 2.10: 'eval_loss' is the loss of the last evaluated batch.
                train_params.eval_results = dict(results, eval_loss=_eval_loss(last_outputs, self._eval_indexes))
            cb_list.on_eval_epoch_end(run_context)
            cb_list.on_eval_end(run_context)
            bar.finish(results)
            return results

        try:
            if own_callbacks:
                with cb_list:
                    return run()
            return run()
        finally:
            bar.close()

    def _update_metrics(self, outputs):
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, (tuple, list)):
            raise ValueError(f"The eval network must return a Tensor or a tuple, but got {type(outputs).__name__}")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"The eval network must return (loss, outputs, label), but returned {len(outputs)} values")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    # ---------------------------------------------------------- prediction
    def predict(self, *predict_data, backend=None, config=None):
        """``network(*predict_data)`` in inference mode; NumPy inputs become Tensors.

        ``backend`` and ``config`` (MindSpore Lite inference) are accepted and
        ignored: cellkit runs the network itself.

        >>> import numpy as np
        >>> import cellkit as ms
        >>> from cellkit import nn
        >>> from cellkit.train import Model
        >>> Model(nn.Dense(3, 2, weight_init="ones", bias_init="zeros")).predict(np.ones((1, 3), np.float32))
        Tensor(shape=[1, 2], dtype=Float32, value=
        [[ 3.00000000e+00,  3.00000000e+00]])
        """
        self._predict_network.set_train(False)
        return self._predict_network(*_as_tensors(predict_data))

    def __repr__(self):
        return (f"Model(network={type(self._network).__name__}, loss_fn={type(self._loss_fn).__name__ if self._loss_fn else None}, "
                f"optimizer={type(self._optimizer).__name__ if self._optimizer else None}, "
                f"metrics={sorted(self._metric_fns) or None})")


# ---------------------------------------------------------------- helpers


def _check_epochs(epoch, initial_epoch):
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise ValueError(f"'epoch' must be a positive int, but got {epoch!r}")
    if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, int) or not 0 <= initial_epoch < epoch:
        raise ValueError(f"'initial_epoch' must be an int in [0, epoch), but got {initial_epoch!r} (epoch={epoch})")


def _check_reiterable(dataset, epochs, name):
    if dataset is None:
        raise ValueError(f"'{name}' must not be None")
    if hasattr(dataset, "create_tuple_iterator"):
        return
    try:
        iterator = iter(dataset)
    except TypeError:
        raise TypeError(f"'{name}' must be an iterable of batches, but got {type(dataset).__name__}") from None
    if iterator is dataset and epochs > 1:
        raise TypeError(
            f"'{name}' is a one-shot iterator (a generator?): it would be empty after the first epoch. Give a list of "
            "batches or a NumpySlicesDataset"
        )


def _dataset_size(dataset):
    size = getattr(dataset, "get_dataset_size", None)
    if callable(size):
        return int(size())
    try:
        return len(dataset)
    except TypeError:
        return None


def _batches(dataset):
    """Each batch as a tuple of Tensors."""
    source = dataset.create_tuple_iterator() if hasattr(dataset, "create_tuple_iterator") else dataset
    for item in source:
        if isinstance(item, dict):
            item = tuple(item.values())
        elif isinstance(item, (tuple, list)):
            item = tuple(item)
        else:
            item = (item,)
        yield _as_tensors(item)


def _as_tensors(values):
    out = []
    for v in values:
        if isinstance(v, Tensor) or v is None:
            out.append(v)
        elif isinstance(v, (np.ndarray, np.number)):
            out.append(Tensor(v))
        else:
            out.append(v)
    return tuple(out)


def _first_tensor(outputs):
    if isinstance(outputs, Tensor):
        return outputs
    if isinstance(outputs, (tuple, list)):
        for o in outputs:
            if isinstance(o, Tensor):
                return o
    return None


def _losses_to_host(losses):
    """The step losses as floats: one stacked copy to the host per epoch, not one per step."""
    if not losses:
        return []
    be = _backend.current()
    xp = be.xp
    arrays = [xp.reshape(xp.mean(t._data) if t.ndim else t._data, ()) for t in losses]
    host = be.to_host(xp.stack(arrays))
    return np.asarray(host, dtype=np.float64).tolist()


# MindSpore's own callbacks: during fit's evaluation only TimeMonitor of them runs (and the user's own).
_INTERNAL_CALLBACKS = ("Callback", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "FlopsUtilizationCollector",
                       "SummaryCollector", "CheckpointConfig", "RunContext", "LearningRateScheduler",
                       "SummaryLandscape", "History", "LambdaCallback", "ReduceLROnPlateau", "EarlyStopping",
                       "OnRequestExit", "BackupAndRestore", "TrainFaultTolerance")


def _fit_eval_callbacks(cb_list):
    return [cb for cb in cb_list.callbacks
            if type(cb).__name__ not in _INTERNAL_CALLBACKS or type(cb).__name__ == "TimeMonitor"]


def _eval_loss(outputs, indexes):
    if isinstance(outputs, Tensor):
        outputs = (outputs,)
    if not outputs:
        return None
    loss = outputs[indexes[0]] if indexes is not None else outputs[0]
    if not isinstance(loss, Tensor):
        return loss
    return float(np.mean(loss.asnumpy()))


def _due(epoch_number, last_epoch, frequency):
    """As MindSpore: every ``frequency``-th epoch (or the listed epochs); the last epoch is not special."""
    if isinstance(frequency, list):
        return epoch_number in frequency
    return epoch_number % frequency == 0


def _plain_number(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    return value
