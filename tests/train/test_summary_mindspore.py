"""cellkit's summary files against the ones MindSpore 2.10 wrote (``tools/record_summary.py``).

The scenarios in ``summary_scenarios.py`` run here with cellkit; the events must equal MindSpore's field by field
(wall times apart; the values of a training run to float32 rounding, since the two frameworks sum in different
orders).  cellkit must also read MindSpore's files, and its bytes for the same event must be MindSpore's bytes.
"""
import glob
import importlib.util
import json
import os
import re

import numpy as np
import pytest

import cellkit as ms
import cellkit.dataset as ds
from cellkit.train.summary import read_events
from cellkit.train.summary.records import frame, split_records

HERE = os.path.dirname(__file__)
FIXTURES = os.path.join(HERE, "..", "fixtures", "summary")
with open(os.path.join(FIXTURES, "expected.json")) as _handle:
    EXPECTED = json.load(_handle)

_spec = importlib.util.spec_from_file_location("summary_scenarios", os.path.join(HERE, "summary_scenarios.py"))
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)


def fixture(name):
    return os.path.join(FIXTURES, name)


def only(folder, pattern):
    found = glob.glob(os.path.join(folder, pattern))
    assert len(found) == 1, found
    return found[0]


def _decoded_png(data):
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _repeated(field):
    flag = getattr(field, "is_repeated", None)  # protobuf >= 6 (``label`` is gone in 7)
    return flag if flag is not None else field.label == field.LABEL_REPEATED


def assert_same_message(mine, theirs, path="event", rtol=0.0, atol=0.0):
    """Field-by-field equality (PNG images compared by pixels; floats within rtol/atol; wall_time skipped)."""
    mine_fields = {f.name: v for f, v in mine.ListFields()}
    their_fields = {f.name: v for f, v in theirs.ListFields()}
    mine_fields.pop("wall_time", None)
    their_fields.pop("wall_time", None)
    assert sorted(mine_fields) == sorted(their_fields), f"{path}: fields {sorted(mine_fields)} != {sorted(their_fields)}"
    for name, value in their_fields.items():
        field = theirs.DESCRIPTOR.fields_by_name[name]
        here = f"{path}.{name}"
        got = mine_fields[name]
        if name == "encoded_image":
            np.testing.assert_array_equal(_decoded_png(got), _decoded_png(value), err_msg=here)
        elif field.type == field.TYPE_MESSAGE and _repeated(field):
            if field.message_type.GetOptions().map_entry:
                assert dict(got) == dict(value), here
                continue
            assert len(got) == len(value), f"{here}: {len(got)} items != {len(value)}"
            for i, (a, b) in enumerate(zip(got, value)):
                assert_same_message(a, b, f"{here}[{i}]", rtol, atol)
        elif field.type == field.TYPE_MESSAGE:
            assert_same_message(got, value, here, rtol, atol)
        elif field.type in (field.TYPE_FLOAT, field.TYPE_DOUBLE):
            np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(value, np.float64), rtol=rtol,
                                       atol=atol, err_msg=here)
        else:
            if _repeated(field):
                got, value = list(got), list(value)
            assert got == value, f"{here}: {got!r} != {value!r}"


def assert_same_events(mine, theirs, rtol=0.0, atol=0.0):
    assert len(mine) == len(theirs)
    for i, (a, b) in enumerate(zip(mine, theirs)):
        assert_same_message(a, b, f"event[{i}]", rtol, atol)


# ---------------------------------------------------------------------------- reading MindSpore's files
def test_summary_read_events_reads_mindspore_values():
    events = read_events(fixture("values_MS"))
    assert events[0].version == "MindSpore.Event:1"
    assert [e.step for e in events[1:]] == [1, 2, 3, 4, 5]
    first = {v.tag: v for v in events[1].summary.value}
    assert first["loss"].scalar_value == 0.25 and first["count"].scalar_value == 3.0
    w = first["w"].tensor
    assert list(w.dims) == [2, 3] and w.data_type == 11
    np.testing.assert_allclose(w.float_data, np.arange(6, dtype=np.float32) / 7, rtol=1e-6)
    assert first["h"].histogram.nan_count == 2 and first["h"].histogram.pos_inf_count == 1
    assert (first["rgb"].image.height, first["rgb"].image.width, first["rgb"].image.colorspace) == (4, 10, 3)
    assert [v.tag for v in events[2].summary.value] == ["loss", "loss"]  # plugin_filter kept the scalars only
    assert [v.tag for v in events[3].summary.value] == ["x_sum", "y", "x", "x_img"]  # the summary ops


def test_summary_read_events_reads_mindspore_lineage():
    train = read_events(fixture("collect_lineage"))
    lineage = train[-1].train_lineage
    assert lineage.hyper_parameters.optimizer == "Momentum"
    assert lineage.hyper_parameters.loss_function == "SoftmaxCrossEntropyWithLogits"
    evaluation = read_events(fixture("collect_eval_lineage"))
    assert json.loads(evaluation[0].evaluation_lineage.metric) == EXPECTED["eval_metrics"]


# ---------------------------------------------------------------------------- the same calls, the same events
def test_summary_record_writes_mindspores_events(tmp_path):
    path = scenarios.record_values(ms, str(tmp_path / "values"))
    assert sorted(os.listdir(tmp_path / "values")) == [os.path.basename(path)]
    assert_same_events(read_events(path), read_events(fixture("values_MS")))


def test_summary_file_names_follow_mindspore(tmp_path):
    path = scenarios.record_values(ms, str(tmp_path / "values"))
    pattern = r"^events\.out\.events\.summary\.\d+\.0\.[^/]+_MS$"
    assert re.match(pattern, os.path.basename(path))
    assert re.match(pattern, EXPECTED["names"]["values"])
    small = scenarios.record_small(ms, str(tmp_path / "small"))
    assert re.match(r"^small\.out\.events\.summary\.\d+\.0\..+_x$", os.path.basename(small))
    assert re.match(r"^small\.out\.events\.summary\.\d+\.0\..+_x$", EXPECTED["names"]["small"])


def test_summary_bytes_equal_mindspores(tmp_path):
    """With MindSpore's wall times put in, cellkit's file is MindSpore's file, byte for byte."""
    path = scenarios.record_small(ms, str(tmp_path / "small"))
    theirs = read_events(fixture("small_x"))
    mine = read_events(path)
    assert len(mine) == len(theirs) == 2
    rebuilt = b""
    for event, reference in zip(mine, theirs):
        event.wall_time = reference.wall_time
        rebuilt += frame(event.SerializeToString())
    with open(fixture("small_x"), "rb") as handle:
        assert rebuilt == handle.read()


def test_summary_framing_equals_mindspores_writer():
    """MindSpore's C++ EventWriter_ framed b'', b'cellkit' and 768 bytes: cellkit frames them the same."""
    with open(fixture("frame.bin"), "rb") as handle:
        theirs = handle.read()
    payloads = [b"", b"cellkit", bytes(range(256)) * 3]
    assert b"".join(frame(p) for p in payloads) == theirs
    assert list(split_records(theirs)) == payloads


def test_summary_reserialized_mindspore_file_is_identical():
    """Every event of MindSpore's files, parsed and written again by cellkit's messages, gives the same bytes."""
    for name in ("values_MS", "collect_MS", "specified_MS", "small_x", "collect_lineage", "collect_eval_lineage"):
        with open(fixture(name), "rb") as handle:
            records = list(split_records(handle.read()))
        events = read_events(fixture(name))
        assert len(events) == len(records)
        for event, record in zip(events, records):
            if name.endswith("lineage") and event.HasField("dataset_graph"):
                continue  # protobuf maps with several entries have no fixed order on the wire
            assert frame(event.SerializeToString()) == frame(record), name


def test_summary_collector_matches_mindspore(tmp_path):
    metrics = scenarios.collect_training(ms, ds, str(tmp_path / "c"), str(tmp_path / "e"))
    assert metrics == EXPECTED["eval_metrics"]
    names = lambda folder: sorted(re.sub(r"\d+\.0\.[^_]+", "T.0.HOST", n) for n in os.listdir(folder))
    expect = lambda key: sorted(re.sub(r"\d+\.0\.[^_]+", "T.0.HOST", n) for n in EXPECTED["names"][key])
    assert names(tmp_path / "c") == expect("collect_files")
    assert names(tmp_path / "e") == expect("collect_eval_files")
    # Training values agree to float32 rounding (the frameworks accumulate in different orders).
    assert_same_events(read_events(only(tmp_path / "c", "*_MS")), read_events(fixture("collect_MS")),
                       rtol=2e-5, atol=1e-7)
    theirs = [e for e in read_events(fixture("collect_lineage")) if not e.HasField("dataset_graph")]
    assert_same_events(read_events(only(tmp_path / "c", "*_lineage")), theirs, rtol=2e-5, atol=1e-7)
    assert_same_events(read_events(only(tmp_path / "e", "*_lineage")), read_events(fixture("collect_eval_lineage")))


def test_summary_collector_landscape_files_match_mindspore(tmp_path):
    scenarios.collect_training(ms, ds, str(tmp_path / "collect"), str(tmp_path / "e"))
    with open(fixture("collect_landscape.json")) as handle:
        expected = json.load(handle)
    ckpt_dir = tmp_path / "collect" / "ckpt_dir"
    assert sorted(os.listdir(ckpt_dir)) == expected["files"]
    with open(ckpt_dir / "train_metadata.json") as handle:
        meta = json.load(handle)
    meta["model_params_file_map"] = {k: os.path.relpath(v, tmp_path) for k, v in meta["model_params_file_map"].items()}
    assert meta == expected["metadata"]
    params = ms.load_checkpoint(str(ckpt_dir / "Net_1_step.ckpt"))
    assert sorted(params) == ["fc.bias", "fc.weight", "out.bias", "out.weight"]


def test_summary_collector_specified_data_matches_mindspore(tmp_path):
    scenarios.collect_specified(ms, ds, str(tmp_path / "s"))
    assert sorted(os.listdir(tmp_path / "s")) == [n for n in os.listdir(tmp_path / "s") if n.endswith("_MS")]
    assert_same_events(read_events(only(tmp_path / "s", "*_MS")), read_events(fixture("specified_MS")),
                       rtol=2e-5, atol=1e-7)


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("label", sorted(EXPECTED["errors"]))
def test_summary_errors_match_mindspore(label, tmp_path):
    expected = EXPECTED["errors"][label]
    cases = dict(scenarios.error_cases(ms, str(tmp_path / "errors")))
    ms.SummaryRecord.count = 0
    try:
        if expected is None:
            cases[label]()
            return
        with pytest.raises(Exception) as info:
            cases[label]()
    finally:
        ms.SummaryRecord.count = 0
    error = info.value
    assert type(error).__name__ == expected["type"] or isinstance(error, getattr(__builtins__, expected["type"], ())) \
        or expected["type"] in [c.__name__ for c in type(error).__mro__], (type(error), expected)
    message = str(error).replace(str(tmp_path), "<work>")
    # MindSpore's words, then (where MindSpore does not say it) what was given: "... (given: int 3)".
    assert message.startswith(expected["message"]), (message, expected["message"])


def test_summary_landscape_matches_mindspore(tmp_path, capsys):
    """SummaryLandscape after a 3-epoch training: two PCA landscapes (one per interval) and a random one
    (NumPy's generator seeded as in the recording), equal to MindSpore's to float32 rounding."""
    scenarios.landscape(ms, ds, str(tmp_path))
    assert "Drawing landscape total progress: 4/4." in capsys.readouterr().out
    mine = read_events(only(tmp_path / "landscape", "*_MS"))
    theirs = read_events(fixture("landscape_MS"))
    assert [[v.tag for v in e.summary.value] for e in mine[1:]] == [
        ["landscape_[1, 4]"], ["landscape_[3, 6]"], ["landscape_[6]"]]
    assert_same_events(mine, theirs, rtol=1e-4, atol=1e-6)
