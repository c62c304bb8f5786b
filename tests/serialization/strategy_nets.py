"""The small networks the distributed-checkpoint fixtures are loaded into, for MindSpore and for cellkit.

``tools/record_strategy.py`` builds them with MindSpore's modules, the tests with cellkit's: the
function takes the modules as arguments, so one text serves both (as ``tests/mindspore_cases`` do).
"""


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
