"""SummaryRecord / SummaryCollector / read_events: framing, files, limits, modes (MindSpore 2.10's behaviour)."""
import glob
import os
import struct

import numpy as np
import pytest

import cellkit as ms
from cellkit.train import Model, SummaryCollector, SummaryRecord
from cellkit.train.summary import message_class, read_events
from cellkit.train.summary.crc32c import crc32c, masked_crc32c
from cellkit.train.summary.records import frame, split_records
from cellkit.train.summary.values import histogram_bins


@pytest.fixture(autouse=True)
def _one_record_at_a_time():
    SummaryRecord.count = 0
    yield
    SummaryRecord.count = 0


def test_summary_crc32c_known_values():
    assert crc32c(b"") == 0
    assert crc32c(b"123456789") == 0xE3069283          # the CRC-32C check value
    assert crc32c(bytes(32)) == 0x8A9136AA             # RFC 3720, 32 zero bytes
    assert crc32c(b"\xff" * 32) == 0x62A8AB43          # RFC 3720, 32 bytes of 0xFF
    assert crc32c(b"6789", crc32c(b"12345")) == 0xE3069283
    assert masked_crc32c(b"") == 0xA282EAD8


def test_summary_frame_layout():
    data = b"hello"
    framed = frame(data)
    assert struct.unpack("<Q", framed[:8])[0] == 5
    assert struct.unpack("<I", framed[8:12])[0] == masked_crc32c(framed[:8])
    assert framed[12:17] == data
    assert struct.unpack("<I", framed[17:])[0] == masked_crc32c(data)


@pytest.mark.parametrize("damage", ["truncate_header", "truncate_data", "flip_length", "flip_data"])
def test_summary_read_events_refuses_damaged_files(tmp_path, damage):
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("scalar", "a", ms.Tensor(1.0))
        record.record(1)
        path = record.log_dir
    data = bytearray(open(path, "rb").read())
    if damage == "truncate_header":
        data = data[:-(len(data) - 50)]
    elif damage == "truncate_data":
        data = data[:-3]
    elif damage == "flip_length":
        data[44] ^= 1
    else:
        data[-6] ^= 0x40
    broken = tmp_path / "broken_MS"
    broken.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="broken_MS"):
        read_events(str(broken))


def test_summary_read_events_refuses_a_record_that_is_no_event(tmp_path):
    path = tmp_path / "junk_MS"
    path.write_bytes(frame(b"\xff\xff\xff"))
    with pytest.raises(ValueError, match="not a Event message"):
        read_events(str(path))
    with pytest.raises(ValueError, match="'kind'"):
        read_events(str(path), kind="graph")


def test_summary_record_creates_files_lazily_and_closes_them_read_only(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        record.record(1)  # nothing added: no event, no file
        assert os.listdir(tmp_path) == []
        record.add_value("scalar", "a", ms.Tensor(1.0))
        record.record(2)
        record.flush()
        assert os.path.isfile(record.log_dir)
    assert os.stat(record.log_dir).st_mode & 0o777 == 0o400
    assert [e.step for e in read_events(record.log_dir)] == [0, 2]


def test_summary_record_after_close(tmp_path, caplog):
    record = SummaryRecord(str(tmp_path))
    record.close()
    assert record.record(1) is False
    assert "closed" in caplog.text
    record.close()  # twice is harmless, and lowers the count once
    assert SummaryRecord.count == 0
    with SummaryRecord(str(tmp_path)):
        with pytest.raises(RuntimeError, match="only one instance"):
            SummaryRecord(str(tmp_path))


def test_summary_record_max_file_size_stops_writing(tmp_path, caplog):
    with SummaryRecord(str(tmp_path / "a"), max_file_size=10) as record:
        record.add_value("scalar", "a", ms.Tensor(1.0))
        record.record(1)
    assert os.path.getsize(record.log_dir) == 0  # not even the version event fits (MindSpore: the same)
    with SummaryRecord(str(tmp_path / "b"), max_file_size=100) as record:
        for step in (1, 2, 3):
            record.add_value("scalar", "a", ms.Tensor(1.0))
            record.record(step)
    assert os.path.getsize(record.log_dir) == 83  # version + 1 event; the third would pass 100 bytes
    assert "'max_file_size' reached" in caplog.text


def test_summary_record_exports_tensors_as_npy(tmp_path):
    with SummaryRecord(str(tmp_path), export_options={"tensor_format": "npy"}) as record:
        record.add_value("tensor", "a/b c", ms.Tensor([1.0, 2.0]))
        record.add_value("scalar", "s", ms.Tensor(1.0))
        record.record(4)
    (exported,) = glob.glob(str(tmp_path / "export_*" / "tensor" / "*.npy"))
    assert os.path.basename(exported) == "a%2Fb%20c_4.npy"
    np.testing.assert_array_equal(np.load(exported), [1.0, 2.0])


def test_summary_record_accepts_lineage_messages(tmp_path):
    message = message_class("TrainLineage")()
    message.hyper_parameters.epoch = 3
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("train_lineage", "x", message)
        record.record(1)
    (lineage,) = glob.glob(str(tmp_path / "*_lineage"))
    (event,) = read_events(lineage)
    assert event.train_lineage.hyper_parameters.epoch == 3
    assert not glob.glob(str(tmp_path / "*_MS"))


def test_summary_record_name_error_is_both_kinds(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        with pytest.raises(TypeError):
            record.add_value("scalar", "", ms.Tensor(1.0))
        with pytest.raises(ValueError):
            record.add_value("scalar", 5, ms.Tensor(1.0))


def test_summary_histogram_bins():
    assert [histogram_bins(n) for n in (0, 1, 5, 6, 10, 11, 880, 881, 10**6)] == [1, 2, 2, 3, 3, 2, 89, 90, 90]


def _model():
    net = ms.nn.Dense(2, 1, weight_init=ms.Tensor(np.array([[0.5, -0.5]], np.float32)), bias_init="zeros")
    return Model(net, ms.nn.MSELoss(), ms.nn.SGD(net.trainable_params(), 0.1))


def _batches(n):
    return [(ms.Tensor(np.full((2, 2), i, np.float32)), ms.Tensor(np.ones((2, 1), np.float32))) for i in range(n)]


def test_summary_collector_steps_follow_collect_freq(tmp_path):
    model = _model()
    collector = SummaryCollector(str(tmp_path), collect_freq=3, collect_specified_data={"collect_landscape": None})
    model.train(2, _batches(4), callbacks=[collector])
    (path,) = glob.glob(str(tmp_path / "*_MS"))
    steps = [e.step for e in read_events(path)[1:]]
    # first step; every 3rd step; 6 again at the end of epoch 2? no: epoch ends are steps 4 and 8 (not due)
    assert steps == [1, 3, 6]
    (lineage,) = glob.glob(str(tmp_path / "*_lineage"))
    (train,) = [e.train_lineage for e in read_events(lineage)]
    assert train.hyper_parameters.optimizer == "SGD" and train.hyper_parameters.epoch == 2
    assert not train.train_dataset.HasField("train_dataset_size")  # a plain list has no batch size to report


def test_summary_collector_records_summary_ops_of_the_network(tmp_path):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = ms.nn.Dense(2, 1)
            self.report = ms.ops.ScalarSummary()

        def construct(self, x):
            y = self.dense(x)
            self.report("y_mean", y.mean())
            return y

    net = Net()
    model = Model(net, ms.nn.MSELoss(), ms.nn.SGD(net.trainable_params(), 0.1))
    collector = SummaryCollector(str(tmp_path), collect_freq=1, keep_default_action=False,
                                 collect_specified_data={"collect_metric": True})
    model.train(1, _batches(2), callbacks=[collector])
    (path,) = glob.glob(str(tmp_path / "*_MS"))
    events = read_events(path)[1:]
    # As MindSpore: the collector's first record (meant for the graph) already takes what the ops noted.
    assert [(e.step, [v.tag for v in e.summary.value]) for e in events] == [
        (1, ["y_mean"]), (1, ["loss/auto"]), (2, ["loss/auto", "y_mean"]), (2, ["loss/auto"])]


def test_summary_collector_refuses_two_in_one_run(tmp_path):
    model = _model()
    callbacks = [SummaryCollector(str(tmp_path / "a")), SummaryCollector(str(tmp_path / "b"))]
    # As MindSpore: the second one cannot open its SummaryRecord while the first holds one.
    with pytest.raises(RuntimeError, match="only one instance"):
        model.train(1, _batches(1), callbacks=callbacks)


def test_summary_collector_eval_writes_only_lineage(tmp_path):
    net = ms.nn.Dense(2, 1)
    model = Model(net, ms.nn.MSELoss(), metrics={"mae": ms.train.MAE()})
    model.eval(_batches(2), callbacks=[SummaryCollector(str(tmp_path))])
    names = os.listdir(tmp_path)
    assert [n for n in names if n.endswith("_MS")] == []
    (lineage,) = glob.glob(str(tmp_path / "*_lineage"))
    assert "mae" in read_events(lineage)[0].evaluation_lineage.metric


def test_summary_collector_tensor_range():
    from cellkit.train.summary.collector import tensor_steps

    # one epoch of 600 steps, collect_freq 10: TensorSummary values thinned out to 20 steps
    assert list(tensor_steps(1 * 600, 10, None)) == list(range(0, 601, 31))[:20]
    assert list(tensor_steps(1 * 600, 10, 100)) == list(range(0, 601, 100))


def test_summary_ops_in_graph_mode_report_every_step(tmp_path):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.report = ms.ops.ScalarSummary()

        def construct(self, x):
            y = x * 2
            self.report("ysum", y.sum())
            return y

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        with SummaryRecord(str(tmp_path)) as record:
            for i in range(3):
                net(ms.Tensor(np.full((2,), float(i), np.float32)))
                record.record(i + 1)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    values = [[v.scalar_value for v in e.summary.value] for e in read_events(record.log_dir)[1:]]
    assert values == [[0.0], [4.0], [8.0]]


def test_summary_record_graph_plugin_writes_the_model_graph(tmp_path):
    model = message_class("ModelProto")(ir_version=1, graph=b"\x0a\x03abc")
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("graph", "g", model.SerializeToString())
        record.record(1)
        with pytest.raises(TypeError, match="ModelProto"):
            record.add_value("graph", "g", "not bytes")
    graph_event = read_events(record.log_dir)[1]
    assert graph_event.graph_def == b"\x0a\x03abc" and not graph_event.HasField("step")
