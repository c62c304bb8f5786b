"""Static graphs: the beginner tutorial's steps (tutorials/source_en/beginner/accelerate_with_static_graph.md).

One network run four ways: PyNative, GRAPH_MODE through set_context, a function under the
``@ms.jit`` decorator, and ``ms.jit(function)``.  Weights come from fixed NumPy values, so every
way must print the same numbers.
"""
import numpy as np

import cellkit as ms
from cellkit import Tensor, nn

rng = np.random.default_rng(3)
WEIGHTS = [rng.uniform(-0.2, 0.2, shape).astype(np.float32) for shape in [(16, 36), (16,), (4, 16), (4,)]]


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(nn.Dense(6 * 6, 16), nn.ReLU(), nn.Dense(16, 4))
        for param, value in zip(self.trainable_params(), WEIGHTS):
            param.set_data(Tensor(value))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


images = Tensor(np.linspace(-1, 1, 2 * 36).reshape(2, 1, 6, 6).astype(np.float32))

ms.set_context(mode=ms.PYNATIVE_MODE)
print("PyNative:\n", Network()(images))

ms.set_context(mode=ms.GRAPH_MODE)
print("GRAPH_MODE:\n", Network()(images))
ms.set_context(mode=ms.PYNATIVE_MODE)


@ms.jit
def run(x):
    return Network()(x)


print("@ms.jit:\n", run(images))


def run_plain(x):
    return Network()(x)


print("ms.jit(run_plain):\n", ms.jit(run_plain)(images))
