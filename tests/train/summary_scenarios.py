"""The summary-file scenarios run twice: by ``tools/record_summary.py`` under MindSpore 2.10 (the fixtures in
``tests/fixtures/summary/``) and by ``tests/train/test_summary_mindspore.py`` under cellkit.

Every function takes the framework module (``mindspore`` or ``cellkit``) as ``ms`` and a folder, and does the
same calls on both.  Values are fixed (no random initialisation), so the events must agree field by field.
"""
import numpy as np


def _values(ms):
    t = ms.Tensor
    h = np.linspace(-2.0, 3.0, 23).astype(np.float32)
    h[[2, 5]] = np.nan
    h[7] = np.inf
    h[11] = -np.inf
    return [
        ("scalar", "loss", t(np.float32(0.25))),
        ("scalar", "acc", t(np.array([0.5], np.float32))),
        ("scalar", "count", t(np.array(3, np.int32))),
        ("scalar", "big", t(np.array(1e10, np.float64))),
        ("tensor", "w", t(np.arange(6, dtype=np.float32).reshape(2, 3) / 7)),
        ("tensor", "ids", t(np.array([1, -2, 3], np.int64))),
        ("tensor", "half", t(np.array([[0.5, 1.5]], np.float16))),
        ("tensor", "flags", t(np.array([True, False]))),
        ("histogram", "h", t(h)),
        ("histogram", "ints", t(np.arange(-7, 40, 3, dtype=np.int32).reshape(4, 4))),
        ("histogram", "const", t(np.full((3,), 2.5, np.float32))),
        ("histogram", "nan", t(np.array([np.nan, np.inf], np.float32))),
        ("histogram", "many", t(np.sin(np.arange(1000, dtype=np.float64)))),
        ("image", "rgb", t(np.linspace(0, 1, 2 * 3 * 4 * 5).astype(np.float32).reshape(2, 3, 4, 5))),
        ("image", "grey", t(np.arange(9, dtype=np.uint8).reshape(1, 1, 3, 3) * 30)),
        ("image", "wide", t(np.linspace(-1, 3, 9 * 1 * 2 * 2).astype(np.float32).reshape(9, 1, 2, 2))),
    ]


def record_values(ms, folder):
    """SummaryRecord with every kind of value, plugin_filter, the summary ops, eval mode."""
    nn, ops = ms.nn, ms.ops

    class Reporter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scalar = ops.ScalarSummary()
            self.tensor = ops.TensorSummary()
            self.histogram = ops.HistogramSummary()
            self.image = ops.ImageSummary()

        def construct(self, x):
            y = x * 2
            self.scalar("x_sum", x.sum())
            self.tensor("y", y)
            self.histogram("x", x)
            self.image("x_img", x.reshape((1, 1, 2, 3)))
            return y

    net = Reporter()
    x = ms.Tensor(np.array([[0.125, 0.25, 0.375], [0.5, 0.625, 0.75]], np.float32))
    with ms.SummaryRecord(folder) as record:
        for plugin, name, value in _values(ms):
            record.add_value(plugin, name, value)
        record.record(1)
        record.add_value("scalar", "loss", ms.Tensor(np.float32(0.5)))
        record.add_value("tensor", "w", ms.Tensor(np.ones((2,), np.float32)))
        record.add_value("scalar", "loss", ms.Tensor(np.float32(0.75)))  # a duplicate: both kept
        record.record(2, plugin_filter=lambda plugin: plugin == "scalar")
        net(x)
        record.record(3)
        record.set_mode("eval")
        net(x * 3)
        record.add_value("scalar", "eval_only", ms.Tensor(np.float32(1.0)))
        record.record(4)
        record.set_mode("train")
        record.record(5)  # the values the ops noted in eval mode are recorded now
        record.record(6)  # nothing left: no event
        path = record.log_dir
    return path


def record_small(ms, folder):
    """One scalar at one step: the smallest file (a fixed-content record for the framing test)."""
    with ms.SummaryRecord(folder, file_prefix="small", file_suffix="_x") as record:
        record.add_value("scalar", "s", ms.Tensor(np.float32(1.5)))
        record.record(7)
        path = record.log_dir
    return path


def _model(ms, image_input):
    nn = ms.nn
    if image_input:
        x = np.linspace(-1, 1, 8 * 1 * 2 * 2, dtype=np.float32).reshape(8, 1, 2, 2)
    else:
        x = np.linspace(-1, 1, 8 * 4, dtype=np.float32).reshape(8, 4)
    y = (np.arange(8) % 2).astype(np.int32)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(4, 3, weight_init=ms.Tensor(np.linspace(-0.5, 0.5, 12, dtype=np.float32)
                                                           .reshape(3, 4)),
                               bias_init=ms.Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
            self.out = nn.Dense(3, 2, weight_init=ms.Tensor(np.linspace(0.3, -0.3, 6, dtype=np.float32)
                                                            .reshape(2, 3)),
                                bias_init=ms.Tensor(np.array([0.05, -0.05], np.float32)))

        def construct(self, x):
            return self.out(self.fc(self.flatten(x)))

    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = ms.train.Model(net, loss, opt, metrics={"acc": ms.train.Accuracy()})
    return model, {"x": x, "y": y}


def collect_training(ms, dataset_module, folder, eval_folder):
    """SummaryCollector during a 2-epoch Model.train (3 steps an epoch, collect_freq=2), then Model.eval."""
    model, columns = _model(ms, image_input=True)
    data = dataset_module.NumpySlicesDataset(columns, shuffle=False).batch(3)
    collector = ms.train.SummaryCollector(folder, collect_freq=2,
                                          custom_lineage_data={"teacher": "lee", "run": 3, "rate": 0.5})
    model.train(2, data, callbacks=[collector], dataset_sink_mode=False)
    metrics = model.eval(data, callbacks=[ms.train.SummaryCollector(eval_folder)], dataset_sink_mode=False)
    return metrics


def collect_specified(ms, dataset_module, folder):
    """Only the histograms of parameters matching a pattern, no landscape; vector inputs (no image)."""
    model, columns = _model(ms, image_input=False)
    data = dataset_module.NumpySlicesDataset(columns, shuffle=False).batch(4)
    collector = ms.train.SummaryCollector(folder, collect_freq=1, keep_default_action=False,
                                          collect_specified_data={"histogram_regular": "^fc", "collect_metric": True})
    model.train(1, data, callbacks=[collector], dataset_sink_mode=False)


def error_cases(ms, folder):
    """(label, thunk) pairs: bad arguments whose exception type and message are recorded."""
    t = ms.Tensor
    cases = []

    def with_record(action):
        def run():
            record = ms.SummaryRecord(folder)
            try:
                action(record)
            finally:
                record.close()
        return run

    cases += [
        ("log_dir_int", lambda: ms.SummaryRecord(3)),
        ("log_dir_blank", lambda: ms.SummaryRecord("  ")),
        ("prefix_int", lambda: ms.SummaryRecord(folder, file_prefix=1)),
        ("suffix_bad", lambda: ms.SummaryRecord(folder, file_suffix="a-b")),
        ("prefix_bad", lambda: ms.SummaryRecord(folder, file_prefix="x/y")),
        ("max_size_float", lambda: ms.SummaryRecord(folder, max_file_size=1.5)),
        ("raise_exception_int", lambda: ms.SummaryRecord(folder, raise_exception=1)),
        ("export_list", lambda: ms.SummaryRecord(folder, export_options=["npy"])),
        ("export_key", lambda: ms.SummaryRecord(folder, export_options={"image_format": "npy"})),
        ("export_value", lambda: ms.SummaryRecord(folder, export_options={"tensor_format": "csv"})),
        ("two_records", with_record(lambda r: ms.SummaryRecord(folder))),
        ("plugin_unknown", with_record(lambda r: r.add_value("text", "a", t(1.0)))),
        ("name_empty", with_record(lambda r: r.add_value("scalar", "", t(1.0)))),
        ("name_int", with_record(lambda r: r.add_value("tensor", 3, t([1.0])))),
        ("value_numpy", with_record(lambda r: r.add_value("scalar", "a", np.float32(1.0)))),
        ("value_float", with_record(lambda r: r.add_value("histogram", "a", 1.0))),
        ("scalar_vector", with_record(lambda r: r.add_value("scalar", "a", t([1.0, 2.0])))),
        ("image_3d", with_record(lambda r: r.add_value("image", "a", t(np.zeros((3, 2, 2), np.float32))))),
        ("tensor_0d", with_record(lambda r: r.add_value("tensor", "a", t(1.0)))),
        ("histogram_0d", with_record(lambda r: r.add_value("histogram", "a", t(1.0)))),
        ("lineage_wrong", with_record(lambda r: r.add_value("train_lineage", "a", t(1.0)))),
        ("step_float", with_record(lambda r: r.record(1.0))),
        ("step_bool", with_record(lambda r: r.record(True))),
        ("train_network_int", with_record(lambda r: r.record(1, train_network=3))),
        ("mode_bad", with_record(lambda r: r.set_mode("test"))),
        ("enter_closed", with_record(lambda r: (r.close(), r.__enter__()))),
        ("op_scalar_vector", with_record(lambda r: (ms.ops.ScalarSummary()("v", t([1.0, 2.0])), r.record(1)))),
        ("op_image_2d", with_record(lambda r: (ms.ops.ImageSummary()("v", t(np.zeros((2, 2), np.float32))),
                                               r.record(1)))),
        ("op_tensor_0d", with_record(lambda r: (ms.ops.TensorSummary()("v", t(1.0)), r.record(1)))),
        ("collect_freq_zero", lambda: ms.train.SummaryCollector(folder, collect_freq=0)),
        ("collect_freq_float", lambda: ms.train.SummaryCollector(folder, collect_freq=1.5)),
        ("collect_tensor_freq_neg", lambda: ms.train.SummaryCollector(folder, collect_tensor_freq=-1)),
        ("max_file_size_zero", lambda: ms.train.SummaryCollector(folder, max_file_size=0)),
        ("keep_default_int", lambda: ms.train.SummaryCollector(folder, keep_default_action=1)),
        ("specified_list", lambda: ms.train.SummaryCollector(folder, collect_specified_data=[1])),
        ("specified_key", lambda: ms.train.SummaryCollector(folder, collect_specified_data={"collect_loss": True})),
        ("specified_bool", lambda: ms.train.SummaryCollector(folder, collect_specified_data={"collect_metric": 1})),
        ("histogram_regular_int", lambda: ms.train.SummaryCollector(
            folder, collect_specified_data={"histogram_regular": 3})),
        ("histogram_regular_bad", lambda: ms.train.SummaryCollector(
            folder, collect_specified_data={"histogram_regular": "(["})),
        ("custom_lineage_list", lambda: ms.train.SummaryCollector(folder, custom_lineage_data=[1])),
        ("custom_lineage_value", lambda: ms.train.SummaryCollector(folder, custom_lineage_data={"a": [1]})),
        ("custom_lineage_key", lambda: ms.train.SummaryCollector(folder, custom_lineage_data={1: 1})),
        ("landscape_size", lambda: ms.train.SummaryCollector(
            folder, collect_specified_data={"collect_landscape": {"landscape_size": 2,
                                                                  "intervals": [[1, 2, 3]]}})),
        ("landscape_unit", lambda: ms.train.SummaryCollector(
            folder, collect_specified_data={"collect_landscape": {"unit": "day", "intervals": [[1, 2, 3]]}})),
        ("landscape_interval_short", lambda: ms.train.SummaryCollector(
            folder, collect_specified_data={"collect_landscape": {"intervals": [[1, 2]]}})),
        ("landscape_key", lambda: ms.train.SummaryCollector(
            folder, collect_specified_data={"collect_landscape": {"size": 3, "intervals": [[1, 2, 3]]}})),
        ("summary_dir_int", lambda: ms.train.SummaryCollector(5)),
        ("landscape_no_metadata", lambda: ms.train.SummaryLandscape(folder + "/empty")
         .gen_landscapes_with_multi_process(lambda: None, device_ids=[0])),
        ("landscape_device_ids_str", lambda: ms.train.SummaryLandscape(folder + "/empty")
         .gen_landscapes_with_multi_process(lambda: None, device_ids="0")),
        ("landscape_device_id_8", lambda: ms.train.SummaryLandscape(folder + "/empty")
         .gen_landscapes_with_multi_process(lambda: None, device_ids=[8])),
        ("landscape_device_id_float", lambda: ms.train.SummaryLandscape(folder + "/empty")
         .gen_landscapes_with_multi_process(lambda: None, device_ids=[1.0])),
        ("landscape_collect_key", lambda: ms.train.SummaryLandscape(folder + "/empty")
         .gen_landscapes_with_multi_process(lambda: None, collect_landscape={"size": 3}, device_ids=[0])),
        ("landscape_collect_size", lambda: ms.train.SummaryLandscape(folder + "/empty")
         .gen_landscapes_with_multi_process(lambda: None, collect_landscape={"landscape_size": 300},
                                            device_ids=[0])),
        ("landscape_collect_no_metadata", lambda: ms.train.SummaryLandscape(folder + "/empty")
         .gen_landscapes_with_multi_process(lambda: None, collect_landscape={"landscape_size": 5}, device_ids=[0])),
    ]
    return cases


def landscape(ms, dataset_module, folder):
    """SummaryCollector saving landscape checkpoints over 3 epochs, then SummaryLandscape's PCA and random
    landscapes (NumPy's global generator seeded for the random directions)."""
    model, columns = _model(ms, image_input=False)
    data = dataset_module.NumpySlicesDataset(columns, shuffle=False).batch(4)
    settings = {"landscape_size": 4, "unit": "step", "num_samples": 8,
                "create_landscape": {"train": True, "result": True}, "intervals": [[1, 2, 3, 4], [3, 4, 5, 6]]}
    collector = ms.train.SummaryCollector(folder, collect_freq=100, keep_default_action=False,
                                          collect_specified_data={"collect_landscape": settings})
    model.train(3, data, callbacks=[collector], dataset_sink_mode=False)

    def callback_fn():
        fresh, _ = _model(ms, image_input=False)
        net = fresh.predict_network
        eval_model = ms.train.Model(net, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                                    metrics={"Loss": ms.train.Loss()})
        eval_data = dataset_module.NumpySlicesDataset(columns, shuffle=False).batch(4)  # a pipeline of its own
        return eval_model, net, eval_data, {"Loss": ms.train.Loss()}

    np.random.seed(0)
    ms.train.SummaryLandscape(folder).gen_landscapes_with_multi_process(
        callback_fn, device_ids=[0], output=folder + "/landscape")
