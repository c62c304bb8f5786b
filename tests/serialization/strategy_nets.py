"""What ``tools/record_strategy.py`` (under MindSpore) and the distributed-checkpoint tests (under cellkit) share.

The networks the fixtures are loaded into -- built from the modules passed in, so one text serves
both, as ``tests/mindspore_cases`` do -- and the plain-data view of a layout that both compare.
"""


def layout_record(layout):
    """What a ParallelLayouts message holds, as plain data (MindSpore's and cellkit's alike)."""
    return {
        "dev_matrix": [list(m.dim) for m in layout.dev_matrix],
        "tensor_map": [list(m.dim) for m in layout.tensor_map],
        "param_split_shape": [list(m.dim) for m in layout.param_split_shape],
        "indices_offset": [list(m.dim) for m in layout.indices_offset],
        "field": layout.field,
        "opt_weight_shard_step": layout.opt_weight_shard_step,
        "opt_weight_shard_size": layout.opt_weight_shard_size,
        "type": type(layout).__name__,
    }


def make_nets(ms, nn, np):
    """``(Net, OptNet, EmbNet)``: Parameters cut by rows, by columns, replicated, optimizer-sharded, field-sliced."""

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(6, 8)
            self.row = ms.Parameter(ms.Tensor(np.zeros((8, 4), np.float32)), name="row")
            self.col = ms.Parameter(ms.Tensor(np.zeros((4, 6), np.float32)), name="col")
            self.rep = ms.Parameter(ms.Tensor(np.zeros((3,), np.float32)), name="rep")
            self.extra = ms.Parameter(ms.Tensor(np.full((2,), 7, np.float32)), name="extra")

    class OptNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.zeros((8, 3), np.float32)), name="w")

    class EmbNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = ms.Parameter(ms.Tensor(np.zeros((5, 2), np.float32)), name="emb")

    return Net, OptNet, EmbNet
