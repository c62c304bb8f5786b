"""Small networks the display tests draw (deterministic values)."""
import numpy as np

import cellkit as ms
from cellkit import nn, ops


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


# ---------------------------------------------------------------------------- the models of issue 18
def fixed(cell, seed, scale=0.5):
    """``cell`` with every Parameter set to reproducible values (running statistics left as they are)."""
    rng = np.random.default_rng(seed)
    for key, p in cell.parameters_and_names():
        if key.rsplit(".", 1)[-1] in ("moving_mean", "moving_variance"):
            continue
        p.set_data(ms.Tensor((rng.standard_normal(p.shape) * scale).astype(np.float32)))
    return cell


class BasicBlock(nn.Cell):
    """ResNet's basic block: two 3x3 convolutions with BatchNorm, a residual add, a downsample when needed."""

    def __init__(self, c_in, c_out, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=stride, pad_mode="pad", padding=1, has_bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(c_out, c_out, 3, pad_mode="pad", padding=1, has_bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.SequentialCell(nn.Conv2d(c_in, c_out, 1, stride=stride, has_bias=False),
                                                nn.BatchNorm2d(c_out))

    def construct(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet(nn.Cell):
    """A ResNet-18 layout at small widths: 71 Cells (stem, four stages of two blocks, head)."""

    def __init__(self, widths=(4, 8, 16, 32), classes=10):
        super().__init__()
        self.stem = nn.SequentialCell(nn.Conv2d(3, widths[0], 3, pad_mode="pad", padding=1, has_bias=False),
                                      nn.BatchNorm2d(widths[0]), nn.ReLU(), nn.MaxPool2d(2, 2))
        stages, c_in = [], widths[0]
        for i, width in enumerate(widths):
            stages.append(nn.SequentialCell(BasicBlock(c_in, width, 1 if i == 0 else 2), BasicBlock(width, width)))
            c_in = width
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.pool = nn.AvgPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(p=0.1)
        self.fc = nn.Dense(widths[-1], classes)

    def construct(self, x):
        x = self.stem(x)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.dropout(self.flatten(self.pool(x))))


def resnet_input(batch=2):
    return ms.Tensor(np.random.default_rng(0).standard_normal((batch, 3, 32, 32)).astype(np.float32))


class Attention(nn.Cell):
    """Causal self-attention whose products run in its own construct (between its two Dense children)."""

    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Dense(d, 3 * d)
        self.proj = nn.Dense(d, d)
        self.d = d

    def construct(self, x):
        q, k, v = ops.split(self.qkv(x), self.d, axis=-1)
        scores = ops.matmul(q, ops.swapaxes(k, -1, -2)) / float(np.sqrt(self.d))
        t = x.shape[1]
        mask = ms.Tensor(np.triu(np.full((t, t), -1e9, np.float32), 1))
        return self.proj(ops.matmul(ops.softmax(scores + mask, axis=-1), v))


class GPTBlock(nn.Cell):
    def __init__(self, d):
        super().__init__()
        self.ln1 = nn.LayerNorm((d,))
        self.attn = Attention(d)
        self.ln2 = nn.LayerNorm((d,))
        self.mlp = nn.SequentialCell(nn.Dense(d, 4 * d), nn.GELU(), nn.Dense(4 * d, d))

    def construct(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Cell):
    """A small GPT: token and position embeddings, pre-norm blocks, a head tied to the token embedding."""

    def __init__(self, vocab=64, d=16, n_blocks=2, context=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(context, d)
        self.blocks = nn.CellList([GPTBlock(d) for _ in range(n_blocks)])
        self.ln_f = nn.LayerNorm((d,))
        self.head = nn.Dense(d, vocab, has_bias=False)
        self.head.weight = self.tok.embedding_table  # tied: one Parameter, two places

    def construct(self, ids):
        positions = ms.Tensor(np.arange(ids.shape[1], dtype=np.int32))
        x = self.tok(ids) + self.pos(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def gpt_tokens(batch=2, context=8, vocab=64):
    return ms.Tensor(np.random.default_rng(1).integers(0, vocab, (batch, context)).astype(np.int32))


class AutoEncoder(nn.Cell):
    """Encoder and decoder share one weight; the encoder's bias is frozen; a BatchNorm sits in the middle."""

    def __init__(self, d=8):
        super().__init__()
        self.encoder = fixed_dense(d, d, 11)
        self.norm = nn.BatchNorm1d(d)
        self.act = nn.ReLU()
        self.decoder = fixed_dense(d, d, 12)
        self.decoder.weight = self.encoder.weight  # tied
        self.encoder.bias.requires_grad = False   # frozen

    def construct(self, x):
        return self.decoder(self.act(self.norm(self.encoder(x))))


def sigmoid_stack(depth=12, width=8, seed=0, scale=0.0127):
    """``depth`` Dense+Sigmoid layers with small weights: the first weight's gradient norm is about 4e-23

    (on :func:`sigmoid_input`): its float32 squares underflow, so a float32 norm says 0.
    """
    rng = np.random.default_rng(seed)
    layers = []
    for i in range(depth):
        dense = nn.Dense(width, width)
        dense.weight.set_data(ms.Tensor((rng.standard_normal((width, width)) * scale).astype(np.float32)))
        dense.bias.set_data(ms.Tensor(np.zeros((width,), np.float32)))
        layers += [dense, nn.Sigmoid()]
    layers.append(fixed_dense(width, 1, 99))
    return nn.SequentialCell(layers)


class NaNMaker(nn.Cell):
    """fc1, fc2, then ``ops.log`` in its own construct (negative values: NaN), then fc3."""

    def __init__(self):
        super().__init__()
        self.fc1 = fixed_dense(4, 4, 21)
        self.fc2 = fixed_dense(4, 4, 22)
        self.fc3 = fixed_dense(4, 2, 23)

    def construct(self, x):
        x = self.fc2(self.fc1(x))
        x = ops.log(x)  # the line that makes the NaN
        return self.fc3(x)


NAN_LINE = "x = ops.log(x)  # the line that makes the NaN"


def sigmoid_input():
    return ms.Tensor(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32))
