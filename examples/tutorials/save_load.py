"""Saving and loading models: the steps of tutorials/source_en/beginner/save_load.md.

Save a network's Parameters to a checkpoint and load them into a fresh network
(``save_checkpoint``, ``load_checkpoint``, ``load_param_into_net``); then, in graph mode, export
the network with ``export`` and run the loaded graph through ``nn.GraphCell``.  cellkit's
``export(..., file_format="MINDIR")`` writes its own graph format (not MindIR) under the same file
name; the script only reads the file back with the same framework, so the steps are the same.
The hidden layers are 64 wide instead of 512, and the weights start from fixed NumPy values so
that the printed outputs are the same on MindSpore and cellkit.
"""
import numpy as np

import cellkit
from cellkit import nn
from cellkit import Tensor


def network():
    return nn.SequentialCell(
        nn.Flatten(),
        nn.Dense(28 * 28, 64),
        nn.ReLU(),
        nn.Dense(64, 64),
        nn.ReLU(),
        nn.Dense(64, 10))


def fixed_weights(net, seed=2):
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        param.set_data(Tensor(rng.uniform(-0.1, 0.1, param.shape).astype(np.float32)))
    return net


inputs = Tensor(np.linspace(0, 1, 2 * 28 * 28).reshape(2, 1, 28, 28).astype(np.float32))

model = fixed_weights(network())
expected = model(inputs)
print(expected)
cellkit.save_checkpoint(model, "model.ckpt")

# A fresh network (random weights) takes the saved values.
model = network()
param_dict = cellkit.load_checkpoint("model.ckpt")
print(sorted(param_dict))
print(param_dict["1.weight"].shape, param_dict["1.weight"].dtype)
param_not_load, _ = cellkit.load_param_into_net(model, param_dict)
print(param_not_load)
print(np.allclose(model(inputs).asnumpy(), expected.asnumpy(), atol=1e-6))

# Load only some Parameters: the rest are reported as not loaded.
partial = cellkit.load_checkpoint("model.ckpt", choice_func=lambda name: name.startswith("1."))
print(sorted(partial))
param_not_load, _ = cellkit.load_param_into_net(network(), partial)
print(sorted(param_not_load))

# Export the traced graph with its Parameters, load it, run it.
cellkit.set_context(mode=cellkit.GRAPH_MODE, jit_syntax_level=cellkit.STRICT)
model = fixed_weights(network())
single = Tensor(np.ones([1, 1, 28, 28]).astype(np.float32))
cellkit.export(model, single, file_name="model", file_format="MINDIR")
graph = cellkit.load("model.mindir")
graph_model = nn.GraphCell(graph)
outputs = graph_model(single)
print(outputs.shape)
print(outputs)
print(np.allclose(outputs.asnumpy(), model(single).asnumpy(), atol=1e-6))
