"""Vision Transformer image classification: the steps of tutorials/source_en/cv/vit.md, shrunk.

ImageNet-style class folders (small JPEG files written with Pillow by make_data.image_folder
instead of the download) read with ``ImageFolderDataset``; the training pipeline with
RandomCropDecodeResize, RandomHorizontalFlip, Normalize and HWC2CHW, the validation one with
Decode, Resize, CenterCrop; multi-head attention (BatchMatMul, unstack), the feed-forward and
residual cells, the transformer encoder, the patch embedding, the ViT with its class token and
position embedding; a cosine-decay learning rate with Adam, a label-smoothing cross-entropy
built on OneHot, ``Model.train`` with ModelCheckpoint/CheckpointConfig, LossMonitor and
TimeMonitor, ``Model.eval`` with Top-1/Top-5 accuracy and loss, and a prediction.

Shrunk: 16x16 images in 4x4 patches, embeddings of 16, two layers of two heads, six classes,
batches of 8, two epochs, no pretrained checkpoint.  The augmented, shuffled training's numbers
depend on the seed (only their words are compared); before it, one epoch of ``Model.train`` runs
on the unaugmented, unshuffled validation-style pipeline from fixed NumPy weights, and its losses
and the evaluation are compared with MindSpore's number by number.

Adapted for cellkit: the loss reads ``logit.shape[1]`` where the tutorial calls
``ops.shape(logit)[1]``: ``cellkit.ops.shape`` is the module of the shape operations, not
MindSpore's ``ops.shape`` function (a difference reported to the lead).
"""
import os
import shutil
from typing import Optional

import numpy as np

import cellkit as ms
from cellkit import nn, ops, train
from cellkit.dataset import ImageFolderDataset
import cellkit.dataset.vision as transforms
from cellkit.common.initializer import Normal, initializer
from cellkit import Parameter
from cellkit.nn import LossBase
from cellkit.train import LossMonitor, TimeMonitor, CheckpointConfig, ModelCheckpoint

import make_data

ms.set_seed(5)
data_path = "./dataset/"
classes = ("bee", "cat", "dog", "elk", "fox", "owl")  # at least five: Top-5 accuracy needs them
make_data.image_folder(os.path.join(data_path, "train"), classes=classes, per_class=8, seed=5)
make_data.image_folder(os.path.join(data_path, "val"), classes=classes, per_class=4, seed=6)
image_size, batch_size, num_classes = 16, 8, len(classes)
mean = [0.485 * 255, 0.456 * 255, 0.406 * 255]
std = [0.229 * 255, 0.224 * 255, 0.225 * 255]

dataset_train = ImageFolderDataset(os.path.join(data_path, "train"), shuffle=True)
print(dataset_train.get_dataset_size(), dataset_train.get_class_indexing())
trans_train = [
    transforms.RandomCropDecodeResize(size=image_size, scale=(0.08, 1.0), ratio=(0.75, 1.333)),
    transforms.RandomHorizontalFlip(prob=0.5),
    transforms.Normalize(mean=mean, std=std),
    transforms.HWC2CHW(),
]
dataset_train = dataset_train.map(operations=trans_train, input_columns=["image"])
dataset_train = dataset_train.batch(batch_size=batch_size, drop_remainder=True)


def val_pipeline(folder):
    dataset = ImageFolderDataset(os.path.join(data_path, folder), shuffle=False)
    trans_val = [
        transforms.Decode(),
        transforms.Resize(image_size + 4),
        transforms.CenterCrop(image_size),
        transforms.Normalize(mean=mean, std=std),
        transforms.HWC2CHW(),
    ]
    dataset = dataset.map(operations=trans_val, input_columns=["image"])
    return dataset.batch(batch_size=batch_size, drop_remainder=True)


dataset_val = val_pipeline("val")
image, label = next(dataset_val.create_tuple_iterator(output_numpy=True))
print(image.shape, label, f"{image.mean():.5f} {image.std():.5f}")


class Attention(nn.Cell):
    def __init__(self, dim: int, num_heads: int = 8, keep_prob: float = 1.0, attention_keep_prob: float = 1.0):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = ms.Tensor(head_dim ** -0.5)
        self.qkv = nn.Dense(dim, dim * 3)
        self.attn_drop = nn.Dropout(p=1.0 - attention_keep_prob)
        self.out = nn.Dense(dim, dim)
        self.out_drop = nn.Dropout(p=1.0 - keep_prob)
        self.attn_matmul_v = ops.BatchMatMul()
        self.q_matmul_k = ops.BatchMatMul(transpose_b=True)
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x):
        b, n, c = x.shape
        qkv = ops.reshape(self.qkv(x), (b, n, 3, self.num_heads, c // self.num_heads))
        qkv = ops.transpose(qkv, (2, 0, 3, 1, 4))
        q, k, v = ops.unstack(qkv, axis=0)
        attn = ops.mul(self.q_matmul_k(q, k), self.scale)
        attn = self.attn_drop(self.softmax(attn))
        out = ops.transpose(self.attn_matmul_v(attn, v), (0, 2, 1, 3))
        out = ops.reshape(out, (b, n, c))
        return self.out_drop(self.out(out))


class FeedForward(nn.Cell):
    def __init__(self, in_features: int, hidden_features: Optional[int] = None, out_features: Optional[int] = None,
                 activation: nn.Cell = nn.GELU, keep_prob: float = 1.0):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.dense1 = nn.Dense(in_features, hidden_features)
        self.activation = activation()
        self.dense2 = nn.Dense(hidden_features, out_features)
        self.dropout = nn.Dropout(p=1.0 - keep_prob)

    def construct(self, x):
        x = self.dropout(self.activation(self.dense1(x)))
        return self.dropout(self.dense2(x))


class ResidualCell(nn.Cell):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def construct(self, x):
        return self.cell(x) + x


class TransformerEncoder(nn.Cell):
    def __init__(self, dim: int, num_layers: int, num_heads: int, mlp_dim: int, keep_prob: float = 1.0,
                 attention_keep_prob: float = 1.0, activation: nn.Cell = nn.GELU, norm: nn.Cell = nn.LayerNorm):
        super().__init__()
        layers = []
        for _ in range(num_layers):
            attention = Attention(dim, num_heads, keep_prob, attention_keep_prob)
            feedforward = FeedForward(dim, mlp_dim, activation=activation, keep_prob=keep_prob)
            layers.append(nn.SequentialCell([
                ResidualCell(nn.SequentialCell([norm((dim,)), attention])),
                ResidualCell(nn.SequentialCell([norm((dim,)), feedforward])),
            ]))
        self.layers = nn.SequentialCell(layers)

    def construct(self, x):
        return self.layers(x)


class PatchEmbedding(nn.Cell):
    def __init__(self, image_size: int = 224, patch_size: int = 16, embed_dim: int = 768, input_channels: int = 3):
        super().__init__()
        self.image_size = image_size
        self.patch_size = patch_size
        self.num_patches = (image_size // patch_size) ** 2
        self.conv = nn.Conv2d(input_channels, embed_dim, kernel_size=patch_size, stride=patch_size, has_bias=True)

    def construct(self, x):
        x = self.conv(x)
        b, c, h, w = x.shape
        x = ops.reshape(x, (b, c, h * w))
        return ops.transpose(x, (0, 2, 1))


def init(init_type, shape, dtype, name, requires_grad):
    initial = initializer(init_type, shape, dtype).init_data()
    return Parameter(initial, name=name, requires_grad=requires_grad)


class ViT(nn.Cell):
    def __init__(self, image_size: int = 224, input_channels: int = 3, patch_size: int = 16, embed_dim: int = 768,
                 num_layers: int = 12, num_heads: int = 12, mlp_dim: int = 3072, keep_prob: float = 1.0,
                 attention_keep_prob: float = 1.0, activation: nn.Cell = nn.GELU,
                 norm: Optional[nn.Cell] = nn.LayerNorm, pool: str = "cls") -> None:
        super().__init__()
        self.patch_embedding = PatchEmbedding(image_size=image_size, patch_size=patch_size, embed_dim=embed_dim,
                                              input_channels=input_channels)
        num_patches = self.patch_embedding.num_patches
        self.cls_token = init(init_type=Normal(sigma=1.0), shape=(1, 1, embed_dim), dtype=ms.float32,
                              name="cls", requires_grad=True)
        self.pos_embedding = init(init_type=Normal(sigma=1.0), shape=(1, num_patches + 1, embed_dim),
                                  dtype=ms.float32, name="pos_embedding", requires_grad=True)
        self.pool = pool
        self.pos_dropout = nn.Dropout(p=1.0 - keep_prob)
        self.norm = norm((embed_dim,))
        self.transformer = TransformerEncoder(embed_dim, num_layers, num_heads, mlp_dim, keep_prob,
                                              attention_keep_prob, activation, norm)
        self.dropout = nn.Dropout(p=1.0 - keep_prob)
        self.dense = nn.Dense(embed_dim, num_classes)

    def construct(self, x):
        x = self.patch_embedding(x)
        cls_tokens = ops.tile(self.cls_token.astype(x.dtype), (x.shape[0], 1, 1))
        x = ops.concat((cls_tokens, x), axis=1)
        x += self.pos_embedding
        x = self.pos_dropout(x)
        x = self.norm(self.transformer(x))
        x = x[:, 0]
        if self.training:
            x = self.dropout(x)
        return self.dense(x)


def fixed_weights(net, seed=8):
    """Start from the same values on every framework (their random generators differ)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        if "gamma" in param.name:
            value = np.ones(param.shape)
        elif "beta" in param.name or "bias" in param.name:
            value = np.zeros(param.shape)
        else:
            value = rng.normal(0, 0.2, param.shape)
        param.set_data(ms.Tensor(value.astype(np.float32)))
    return net


def tiny_vit():
    return ViT(image_size=image_size, patch_size=4, embed_dim=16, num_layers=2, num_heads=2, mlp_dim=32)


class CrossEntropySmooth(LossBase):
    """Cross-entropy against one-hot labels smoothed by ``smooth_factor``."""

    def __init__(self, sparse=True, reduction="mean", smooth_factor=0., num_classes=1000):
        super().__init__()
        self.onehot = ops.OneHot()
        self.sparse = sparse
        self.on_value = ms.Tensor(1.0 - smooth_factor, ms.float32)
        self.off_value = ms.Tensor(1.0 * smooth_factor / (num_classes - 1), ms.float32)
        self.ce = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)

    def construct(self, logit, label):
        if self.sparse:
            label = self.onehot(label, logit.shape[1], self.on_value, self.off_value)
        return self.ce(logit, label)


epoch_size = 2
step_size = dataset_train.get_dataset_size()
lr = nn.cosine_decay_lr(min_lr=float(0), max_lr=0.003, total_step=epoch_size * step_size,
                        step_per_epoch=step_size, decay_epoch=epoch_size)
print([f"{v:.6f}" for v in lr])
network_loss = CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1, num_classes=num_classes)
eval_metrics = {"Top_1_Accuracy": train.Top1CategoricalAccuracy(),
                "Top_5_Accuracy": train.Top5CategoricalAccuracy(),
                "Loss": nn.Loss()}

# Checked number by number: one epoch on the fixed-order, unaugmented training images.
network = fixed_weights(tiny_vit())
network_opt = nn.Adam(network.trainable_params(), lr, 0.9)
model = train.Model(network, loss_fn=network_loss, optimizer=network_opt, metrics=eval_metrics, amp_level="O0")
print("before:", {k: round(float(v), 5) for k, v in sorted(model.eval(dataset_val).items())})
model.train(1, val_pipeline("train"), callbacks=[LossMonitor(2)], dataset_sink_mode=False)
print("after one epoch:", {k: round(float(v), 5) for k, v in sorted(model.eval(dataset_val).items())})

# The tutorial's training: augmented and shuffled, with checkpoints and monitors.
network = fixed_weights(tiny_vit())
network_opt = nn.Adam(network.trainable_params(), lr, 0.9)
shutil.rmtree("./ViT", ignore_errors=True)  # a fresh folder: ModelCheckpoint renames around old files
ckpt_config = CheckpointConfig(save_checkpoint_steps=step_size, keep_checkpoint_max=100)
ckpt_callback = ModelCheckpoint(prefix="vit_b_16", directory="./ViT", config=ckpt_config)
model = train.Model(network, loss_fn=network_loss, optimizer=network_opt, metrics={"acc"}, amp_level="O0")
model.train(epoch_size, dataset_train, callbacks=[ckpt_callback, LossMonitor(3), TimeMonitor(3)],
            dataset_sink_mode=False)
print(sorted(f for f in os.listdir("./ViT") if f.endswith(".ckpt")))

network = tiny_vit()
param_not_load, _ = ms.load_param_into_net(network, ms.load_checkpoint(f"./ViT/vit_b_16-{epoch_size}_{step_size}.ckpt"))
print(param_not_load)
model = train.Model(network, loss_fn=network_loss, optimizer=network_opt, metrics=eval_metrics)
result = model.eval(dataset_val)
print(sorted(result), all(0 <= result[k] <= 1 for k in ("Top_1_Accuracy", "Top_5_Accuracy")))
pred = model.predict(ms.Tensor(image)).asnumpy().argmax(axis=1)
print("predicted:", pred, "labels:", label)
