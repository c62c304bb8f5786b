"""Building a network: the beginner tutorial's steps (tutorials/source_en/beginner/model.md).

A Cell subclass with a Flatten and a SequentialCell of Dense and ReLU layers; a forward pass and
its predicted class; each layer on its own; the parameters by name.
"""
import cellkit as ms
from cellkit import nn, ops

ms.set_seed(7)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(8 * 8, 32, weight_init="normal", bias_init="zeros"),
            nn.ReLU(),
            nn.Dense(32, 32, weight_init="normal", bias_init="zeros"),
            nn.ReLU(),
            nn.Dense(32, 10, weight_init="normal", bias_init="zeros"),
        )

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


model = Network()
print(model)

images = ops.ones((1, 8, 8), ms.float32)
logits = model(images)
print(logits.shape, logits.dtype)
probabilities = nn.Softmax(axis=1)(logits)
print(f"Predicted class: {probabilities.argmax(1)}")
print("probabilities add up to one:", abs(float(probabilities.sum()) - 1.0) < 1e-5)

# The layers one at a time
batch = ops.ones((3, 8, 8), ms.float32)
print(batch.shape)
flatten = nn.Flatten()
flat = flatten(batch)
print(flat.shape)
layer1 = nn.Dense(in_channels=8 * 8, out_channels=5)
hidden = layer1(flat)
print(hidden.shape)
print(f"Before ReLU: {hidden}\n")
hidden = nn.ReLU()(hidden)
print(f"After ReLU: {hidden}")
print("no negative value left:", bool((hidden >= 0).all()))

sequence = nn.SequentialCell(flatten, layer1, nn.ReLU(), nn.Dense(5, 4))
logits = sequence(batch)
print(logits.shape)
print(nn.Softmax(axis=1)(logits).shape)

# The parameters, by name
for name, param in model.parameters_and_names():
    print(f"Layer: {name}\nSize: {param.shape}\nDtype: {param.dtype}\n")
