"""``ms.export`` / ``ms.load`` / ``nn.GraphCell`` as MindSpore 2.10 behaves (CPU).

The file each framework writes is its own (MindIR there, cellkit's JSON format here), so the cases
compare what a user sees: a loaded ``GraphCell`` gives the exported network's outputs, on the example
input and on another of the same shape; its Parameters; and the errors for formats, names and files.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _tmp(name):
    import os
    import tempfile

    return os.path.join(tempfile.mkdtemp(), name)


def _net(ms, nn, np):
    ms.set_seed(1)
    net = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
    weights = np.arange(12, dtype=np.float32).reshape(4, 3) / 10 - 0.5
    net[0].weight.set_data(ms.Tensor(weights))
    net[2].weight.set_data(ms.Tensor(np.ones((2, 4), np.float32) * 0.25))
    net[0].bias.set_data(ms.Tensor(np.array([0.1, -0.2, 0.3, 0.0], np.float32)))
    net[2].bias.set_data(ms.Tensor(np.array([0.5, -0.5], np.float32)))
    return net


@case
def exported_cell_runs_again_from_the_file(ms, ops, nn, np):
    net = _net(ms, nn, np)
    x = ms.Tensor(np.array([[1.0, -2.0, 0.5]], np.float32))
    other = ms.Tensor(np.array([[0.0, 3.0, -1.0]], np.float32))
    path = _tmp("net")
    ms.export(net, x, file_name=path, file_format="MINDIR")
    cell = nn.GraphCell(ms.load(path + ".mindir"))
    return [cell(x), net(x), cell(other), net(other), sorted(p.name for p in cell.trainable_params()), repr(cell)]


@case
def exported_function_of_two_inputs(ms, ops, nn, np):
    def f(a, b):
        return a * b + 1

    x = ms.Tensor(np.ones((1, 3), np.float32))
    path = _tmp("fn")
    ms.export(f, x, x, file_name=path, file_format="MINDIR")
    return nn.GraphCell(ms.load(path + ".mindir"))(x, x * 2)


@case
def a_name_ending_in_mindir_is_kept(ms, ops, nn, np):
    import os

    path = _tmp("kept.mindir")
    ms.export(nn.ReLU(), ms.Tensor(np.ones((2,), np.float32)), file_name=path, file_format="MINDIR")
    return [os.path.exists(path), os.path.exists(path + ".mindir")]


@case
def export_air_on_cpu_is_refused(ms, ops, nn, np):
    ms.export(nn.ReLU(), ms.Tensor(np.ones((2,), np.float32)), file_name=_tmp("a"), file_format="AIR")


@case
def export_unknown_format_is_refused(ms, ops, nn, np):
    ms.export(nn.ReLU(), ms.Tensor(np.ones((2,), np.float32)), file_name=_tmp("a"), file_format="XYZ")


@case
def export_lowercase_format_is_refused(ms, ops, nn, np):
    ms.export(nn.ReLU(), ms.Tensor(np.ones((2,), np.float32)), file_name=_tmp("a"), file_format="mindir")


@case
def export_needs_file_format(ms, ops, nn, np):
    ms.export(nn.ReLU(), ms.Tensor(np.ones((2,), np.float32)), file_name=_tmp("a"))


@case
def load_a_missing_file(ms, ops, nn, np):
    ms.load(_tmp("missing.mindir"))


@case
def load_a_number(ms, ops, nn, np):
    ms.load(3)


@case
def load_a_damaged_file(ms, ops, nn, np):
    path = _tmp("bad.mindir")
    with open(path, "w") as f:
        f.write("junk")
    ms.load(path)


@case
def graph_cell_of_a_number(ms, ops, nn, np):
    nn.GraphCell(3)
