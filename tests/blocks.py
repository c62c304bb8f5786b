"""The residual MLP block that the memory, offload and memory-view tests build networks from.

``x + Dense(hidden, width)(GELU(Dense(width, hidden)(x)))``: the block of
``benchmarks/recompute.py``, small enough for a test.  (``tests/test_recompute.py``
keeps its own variant, which counts its runs and takes a dtype.)
"""
from cellkit import nn


class ResidualBlock(nn.Cell):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Dense(width, hidden)
        self.act = nn.GELU()
        self.down = nn.Dense(hidden, width)

    def construct(self, x):
        return x + self.down(self.act(self.up(x)))
