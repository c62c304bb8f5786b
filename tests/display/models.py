"""Small networks the display tests draw (deterministic values)."""
import numpy as np

import cellkit as ms
from cellkit import nn


def fixed_dense(n_in, n_out, seed):
    """A Dense layer with reproducible values (weights in [-1, 1), bias in [0, 1))."""
    rng = np.random.default_rng(seed)
    dense = nn.Dense(n_in, n_out)
    dense.weight.set_data(ms.Tensor(rng.uniform(-1, 1, (n_out, n_in)).astype(np.float32)))
    dense.bias.set_data(ms.Tensor(rng.uniform(0, 1, (n_out,)).astype(np.float32)))
    return dense


class Block(nn.Cell):
    """352 parameters: attn 8x8+8, mlp 8x16+16 and 16x8+8."""

    def __init__(self, seed=0):
        super().__init__()
        self.attn = fixed_dense(8, 8, seed)
        self.mlp = nn.SequentialCell(fixed_dense(8, 16, seed + 1), nn.ReLU(), fixed_dense(16, 8, seed + 2))

    def construct(self, x):
        return self.mlp(self.attn(x))


class Net(nn.Cell):
    """embed 40 + 24 blocks x 352 + head 18 = 8,506 parameters (34,024 bytes)."""

    def __init__(self, n_blocks=24):
        super().__init__()
        self.embed = fixed_dense(4, 8, 100)
        self.blocks = nn.CellList([Block(3 * i) for i in range(n_blocks)])
        self.head = fixed_dense(8, 2, 200)

    def construct(self, x):
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class Leaf(nn.Cell):
    """Ten Parameters of ``width`` elements each."""

    def __init__(self, width):
        super().__init__()
        for i in range(10):
            setattr(self, f"p{i}", ms.Parameter(ms.Tensor(np.full((width,), float(i), np.float32))))

    def construct(self, x):
        return x


class Group(Leaf):
    """Ten Parameters of its own and nine different Leaves: ten Cells, a hundred Parameters."""

    def __init__(self, g):
        super().__init__(1 + g % 7)
        for k in range(9):
            setattr(self, f"leaf{k}", Leaf(1 + (g * 9 + k) % 97))


def big_net(n_groups=100):
    """1 + 10 * n_groups Cells, 100 * n_groups Parameters, no two sibling sub-trees alike."""
    return nn.SequentialCell([Group(g) for g in range(n_groups)])
