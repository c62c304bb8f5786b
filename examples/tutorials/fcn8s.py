"""FCN-8s semantic segmentation: the steps of tutorials/source_en/cv/fcn8s.md, shrunk.

A PASCAL VOC 2012-style folder (JPEG images, palette PNG masks, the train/val id lists; written by
make_data.voc_segmentation instead of the download) is packed into MindRecord files with
``mindrecord.FileWriter`` (the tutorial downloads its MindRecord file ready-made; the columns are
the same: the encoded image and mask bytes) and read back with ``MindDataset``; the tutorial's
``SegDataset`` decodes them, rescales by a random factor, normalises, pads, crops at a random place
and flips at random, then shuffles and batches.  Then: the FCN-8s network (a VGG-16-style backbone
of convolution, BatchNorm and ReLU blocks with five max-pools, the conv6/conv7 layers that stand for
VGG's fully-connected ones, 1x1 score layers, ``Conv2dTranspose`` upsampling and the skip fusions
with pool4 and pool3), loading "pretrained" backbone weights from a checkpoint, the tutorial's four
metric classes on a confusion matrix (pixel accuracy, mean pixel accuracy, mean IoU, frequency
weighted IoU), a cosine-decay learning rate, ``nn.CrossEntropyLoss(ignore_index=255)``, Momentum
with weight decay, a ``DynamicLossScaleManager``, ``Model.train`` with TimeMonitor, LossMonitor and
ModelCheckpoint, ``Model.eval`` of the saved checkpoint, and a prediction.

NumPy and Pillow instead of OpenCV: the tutorial decodes, resizes (bicubic for images, nearest for
masks) and pads with cv2, which is not among cellkit's dependencies.  Pillow decodes the JPEG (its
RGB channels are reversed to the BGR order that cv2 gives and that the tutorial's mean and std are
written for) and the palette PNG (whose pixel values are the class indices, 255 the "void" border),
and resizes; ``np.pad`` pads.

Shrunk: 56x48 images cropped to 64x64 instead of 512x512, 24 training and 8 validation images,
batches of 4, channel widths 4/8/16/32/32 and 64 for conv6/conv7 instead of 64/128/256/512/512 and
4096, two epochs instead of one, a checkpoint every 3 steps instead of 10. The "pretrained" VGG-16
weights are fixed NumPy values written to a checkpoint here (nothing is downloaded), the score
layers start from fixed NumPy values too and the upsampling layers from bilinear kernels (as the
tutorial's text describes), so both frameworks start from the same weights. Before the tutorial's
augmented, shuffled training (whose numbers depend on the seed, so only their words are compared),
one epoch of ``Model.train`` runs on an unaugmented, unshuffled pipeline (scale 1, the crop at the
corner, no flip) and its losses and metrics are compared with MindSpore's number by number, at a
learning rate of 0.002: at the tutorial's rate the two frameworks' float32 rounding grows
chaotically within a few steps (measured against a float64 run of the first step's gradients,
MindSpore 2.10's CPU kernels are about ten times further off than cellkit's, 9e-5 against 8e-6). The
tutorial evaluates the checkpoint it downloads; here the checkpoint saved by the training is
evaluated, and the tutorial's plots are printed as shapes and counts.

Where MindSpore 2.10 refuses the tutorial's step on CPU: ``Model`` does not take a
``DynamicLossScaleManager`` there ("Only loss_scale_manager=None or FixedLossScaleManager(
drop_overflow_update=False) are supported on device CPU"), so the dynamic manager is built as the
tutorial builds it and its scale handed to a ``FixedLossScaleManager(drop_overflow_update=False)``,
with the optimizer's ``loss_scale`` set to the same value (as that manager requires, so that the
gradients are unscaled); and ``num_parallel_workers`` may not exceed the number of CPUs, so the map
uses 2 workers where the tutorial asks for 4.
"""
import io
import os
import shutil

import numpy as np
from PIL import Image

import cellkit as ms
import cellkit.dataset as ds
import cellkit.nn as nn
import cellkit.train as train
from cellkit import Tensor, load_checkpoint, load_param_into_net
from cellkit.mindrecord import FileWriter
from cellkit.train import ModelCheckpoint, CheckpointConfig, LossMonitor, TimeMonitor, Model

import make_data

ms.set_seed(11)

# ---- the data: a VOC-style folder packed into MindRecord files --------------------------------------
data_root = "./dataset/dataset_fcn8s"
voc_dir = make_data.voc_segmentation(data_root)


def voc_to_mindrecord(voc_dir, split, mindrecord_file):
    """One record per image id of ``split``: its name, the JPEG bytes and the mask's PNG bytes."""
    with open(os.path.join(voc_dir, "ImageSets", "Segmentation", split + ".txt")) as f:
        ids = [line.strip() for line in f if line.strip()]
    writer = FileWriter(mindrecord_file, shard_num=1, overwrite=True)
    writer.add_schema({"file_name": {"type": "string"}, "label": {"type": "bytes"},
                       "data": {"type": "bytes"}}, "fcn8s voc " + split)
    rows = []
    for image_id in ids:
        with open(os.path.join(voc_dir, "JPEGImages", image_id + ".jpg"), "rb") as f:
            data = f.read()
        with open(os.path.join(voc_dir, "SegmentationClass", image_id + ".png"), "rb") as f:
            label = f.read()
        rows.append({"file_name": image_id + ".jpg", "label": label, "data": data})
    writer.write_raw_data(rows)
    writer.commit()
    return len(rows)


DATA_FILE = os.path.join(data_root, "mindname.mindrecord")
EVAL_FILE = os.path.join(data_root, "mindname_val.mindrecord")
print("records:", voc_to_mindrecord(voc_dir, "train", DATA_FILE), voc_to_mindrecord(voc_dir, "val", EVAL_FILE))


class SegDataset:
    """The tutorial's pipeline: decode, random scale, normalise, pad, random crop and flip, shuffle, batch.

    ``augment=False`` keeps the scale at 1, crops at the top-left corner and never flips; with
    ``shuffle=False`` the order is the file's (the fixed pipeline compared number by number).
    """

    def __init__(self, image_mean, image_std, data_file="", batch_size=32, crop_size=512, max_scale=2.0,
                 min_scale=0.5, ignore_label=255, num_classes=21, num_readers=2, num_parallel_calls=4,
                 augment=True, shuffle=True):
        if max_scale <= min_scale:
            raise ValueError(f"max_scale ({max_scale}) must be above min_scale ({min_scale})")
        self.data_file = data_file
        self.batch_size = batch_size
        self.crop_size = crop_size
        self.image_mean = np.array(image_mean, dtype=np.float32)
        self.image_std = np.array(image_std, dtype=np.float32)
        self.max_scale, self.min_scale = max_scale, min_scale
        self.ignore_label = ignore_label
        self.num_classes = num_classes
        self.num_readers = num_readers
        self.num_parallel_calls = num_parallel_calls
        self.augment, self.shuffle = augment, shuffle

    def preprocess_dataset(self, image, label):
        picture = Image.open(io.BytesIO(np.frombuffer(image, dtype=np.uint8).tobytes())).convert("RGB")
        mask = Image.open(io.BytesIO(np.frombuffer(label, dtype=np.uint8).tobytes()))  # palette: class indices
        scale = np.random.uniform(self.min_scale, self.max_scale) if self.augment else 1.0
        new_w, new_h = int(scale * picture.width), int(scale * picture.height)
        picture = picture.resize((new_w, new_h), Image.BICUBIC)
        mask = mask.resize((new_w, new_h), Image.NEAREST)
        bgr = np.asarray(picture, dtype=np.float32)[:, :, ::-1]  # cv2's channel order
        image_out = (bgr - self.image_mean) / self.image_std
        label_out = np.asarray(mask, dtype=np.uint8)
        out_h, out_w = max(new_h, self.crop_size), max(new_w, self.crop_size)
        pad_h, pad_w = out_h - new_h, out_w - new_w
        if pad_h > 0 or pad_w > 0:
            image_out = np.pad(image_out, ((0, pad_h), (0, pad_w), (0, 0)), constant_values=0)
            label_out = np.pad(label_out, ((0, pad_h), (0, pad_w)), constant_values=self.ignore_label)
        if self.augment:
            top = np.random.randint(0, out_h - self.crop_size + 1)
            left = np.random.randint(0, out_w - self.crop_size + 1)
        else:
            top = left = 0
        image_out = image_out[top:top + self.crop_size, left:left + self.crop_size]
        label_out = label_out[top:top + self.crop_size, left:left + self.crop_size]
        if self.augment and np.random.uniform(0.0, 1.0) > 0.5:
            image_out, label_out = image_out[:, ::-1], label_out[:, ::-1]
        image_out = np.ascontiguousarray(image_out.transpose((2, 0, 1)), dtype=np.float32)
        return image_out, np.ascontiguousarray(label_out).astype(np.int32)

    def get_dataset(self):
        ds.config.set_numa_enable(True)
        dataset = ds.MindDataset(self.data_file, columns_list=["data", "label"], shuffle=self.shuffle,
                                 num_parallel_workers=self.num_readers)
        dataset = dataset.map(operations=self.preprocess_dataset, input_columns=["data", "label"],
                              output_columns=["data", "label"], num_parallel_workers=self.num_parallel_calls)
        if self.shuffle:
            dataset = dataset.shuffle(buffer_size=self.batch_size * 10)
        return dataset.batch(self.batch_size, drop_remainder=True)


IMAGE_MEAN = [103.53, 116.28, 123.675]
IMAGE_STD = [57.375, 57.120, 58.395]
train_batch_size = 4
crop_size = 64
min_scale = 0.5
max_scale = 2.0
ignore_label = 255
num_classes = 21


def seg_dataset(data_file, augment=True, shuffle=True):
    return SegDataset(image_mean=IMAGE_MEAN, image_std=IMAGE_STD, data_file=data_file,
                      batch_size=train_batch_size, crop_size=crop_size, max_scale=max_scale,
                      min_scale=min_scale, ignore_label=ignore_label, num_classes=num_classes,
                      num_readers=2, num_parallel_calls=2, augment=augment, shuffle=shuffle).get_dataset()


dataset = seg_dataset(DATA_FILE)
print(dataset.get_dataset_size(), dataset.get_col_names())
# What the tutorial plots: a batch of normalised images (clipped to [0, 1]) and their masks.
show_data = next(dataset.create_dict_iterator())
show_images = np.clip(show_data["data"].asnumpy(), 0, 1)
print(show_data["data"].shape, show_data["data"].dtype, show_data["label"].shape, show_data["label"].dtype)
print(f"clipped image mean {show_images.mean():.4f}, {len(np.unique(show_data['label'].asnumpy()))} mask values")
fixed = next(seg_dataset(DATA_FILE, augment=False, shuffle=False).create_dict_iterator(output_numpy=True))
print(f"unaugmented batch: mean {fixed['data'].mean():.5f} std {fixed['data'].std():.5f}, "
      f"mask values {np.unique(fixed['label'])}, void pixels {(fixed['label'] == 255).sum()}")


# ---- the network ------------------------------------------------------------------------------------
def conv_block(widths):
    """Convolution 3x3, BatchNorm, ReLU for each consecutive pair of ``widths``."""
    layers = []
    for c_in, c_out in zip(widths[:-1], widths[1:]):
        layers += [nn.Conv2d(in_channels=c_in, out_channels=c_out, kernel_size=3, weight_init="xavier_uniform"),
                   nn.BatchNorm2d(c_out), nn.ReLU()]
    return nn.SequentialCell(*layers)


class FCN8s(nn.Cell):
    # VGG-16's widths are 64, 128, 256, 512, 512 and 4096 for conv6/conv7; here they are shrunk
    widths = (4, 8, 16, 32, 32)
    head = 64

    def __init__(self, n_class):
        super().__init__()
        self.n_class = n_class
        w1, w2, w3, w4, w5 = self.widths
        self.conv1 = conv_block((3, w1, w1))
        self.pool1 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.conv2 = conv_block((w1, w2, w2))
        self.pool2 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.conv3 = conv_block((w2, w3, w3, w3))
        self.pool3 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.conv4 = conv_block((w3, w4, w4, w4))
        self.pool4 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.conv5 = conv_block((w4, w5, w5, w5))
        self.pool5 = nn.MaxPool2d(kernel_size=2, stride=2)
        # VGG's fully-connected layers as convolutions: 7x7, then 1x1
        self.conv6 = nn.SequentialCell(
            nn.Conv2d(in_channels=w5, out_channels=self.head, kernel_size=7, weight_init="xavier_uniform"),
            nn.BatchNorm2d(self.head), nn.ReLU())
        self.conv7 = nn.SequentialCell(
            nn.Conv2d(in_channels=self.head, out_channels=self.head, kernel_size=1, weight_init="xavier_uniform"),
            nn.BatchNorm2d(self.head), nn.ReLU())
        self.score_fr = nn.Conv2d(in_channels=self.head, out_channels=n_class, kernel_size=1,
                                  weight_init="xavier_uniform")
        self.upscore2 = nn.Conv2dTranspose(in_channels=n_class, out_channels=n_class, kernel_size=4, stride=2,
                                           weight_init="xavier_uniform")
        self.score_pool4 = nn.Conv2d(in_channels=w4, out_channels=n_class, kernel_size=1,
                                     weight_init="xavier_uniform")
        self.upscore_pool4 = nn.Conv2dTranspose(in_channels=n_class, out_channels=n_class, kernel_size=4,
                                                stride=2, weight_init="xavier_uniform")
        self.score_pool3 = nn.Conv2d(in_channels=w3, out_channels=n_class, kernel_size=1,
                                     weight_init="xavier_uniform")
        self.upscore8 = nn.Conv2dTranspose(in_channels=n_class, out_channels=n_class, kernel_size=16, stride=8,
                                           weight_init="xavier_uniform")

    def construct(self, x):
        p3 = self.pool3(self.conv3(self.pool2(self.conv2(self.pool1(self.conv1(x))))))  # 1/8
        p4 = self.pool4(self.conv4(p3))  # 1/16
        p5 = self.pool5(self.conv5(p4))  # 1/32
        score = self.score_fr(self.conv7(self.conv6(p5)))
        fused4 = self.score_pool4(p4) + self.upscore2(score)  # FCN-16s
        fused3 = self.score_pool3(p3) + self.upscore_pool4(fused4)  # FCN-8s
        return self.upscore8(fused3)


def bilinear_kernel(channels, size):
    """Transposed-convolution weights (in, out, size, size) that upsample each channel bilinearly."""
    factor = (size + 1) // 2
    centre = factor - 1 if size % 2 == 1 else factor - 0.5
    ramp = 1 - np.abs(np.arange(size) - centre) / factor
    weight = np.zeros((channels, channels, size, size), np.float32)
    weight[np.arange(channels), np.arange(channels)] = np.outer(ramp, ramp)
    return weight


def write_pretrained_backbone(net, path, seed=12):
    """Stand-in for the downloaded VGG-16 checkpoint: fixed NumPy values for the backbone's convolutions."""
    rng = np.random.default_rng(seed)
    entries = []
    for param in net.trainable_params():
        if param.name.startswith("conv") and param.name.endswith(".weight"):
            fan_in = int(np.prod(param.shape[1:]))
            value = rng.normal(0, np.sqrt(2.0 / fan_in), param.shape).astype(np.float32)
            entries.append({"name": param.name, "data": Tensor(value)})
    ms.save_checkpoint(entries, path)


def fixed_head(net, seed=13):
    """The layers the backbone checkpoint leaves out: fixed score layers, bilinear upsampling."""
    rng = np.random.default_rng(seed)
    for cell in (net.score_fr, net.score_pool4, net.score_pool3):
        cell.weight.set_data(Tensor(rng.normal(0, 0.05, cell.weight.shape).astype(np.float32)))
    for cell, size in ((net.upscore2, 4), (net.upscore_pool4, 4), (net.upscore8, 16)):
        cell.weight.set_data(Tensor(bilinear_kernel(net.n_class, size)))
    return net


def load_vgg16(net, ckpt_vgg16="fcn8s_vgg16_pretrain.ckpt"):
    param_vgg = load_checkpoint(ckpt_vgg16)
    param_not_load, _ = load_param_into_net(net, param_vgg)
    return param_not_load


net = FCN8s(n_class=num_classes)
print(len(net.trainable_params()), sum(p.size for p in net.trainable_params()))
write_pretrained_backbone(net, "fcn8s_vgg16_pretrain.ckpt")
not_loaded = load_vgg16(net)
print(f"{len(not_loaded)} parameters not in the backbone checkpoint:", not_loaded[:4], not_loaded[-6:])
fixed_head(net)
print(net(Tensor(fixed["data"])).shape)


# ---- the metrics: a confusion matrix over the pixels whose label is a class (void excluded) ------------
class _ConfusionMetric(train.Metric):
    def __init__(self, num_class=21):
        super().__init__()
        self.num_class = num_class
        self.clear()

    def _generate_matrix(self, gt_image, pre_image):
        keep = (gt_image >= 0) & (gt_image < self.num_class)
        pairs = self.num_class * gt_image[keep].astype(int) + pre_image[keep]
        return np.bincount(pairs, minlength=self.num_class ** 2).reshape(self.num_class, self.num_class)

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_class,) * 2)

    def update(self, *inputs):
        y_pred = inputs[0].asnumpy().argmax(axis=1)
        y = inputs[1].asnumpy().reshape(train_batch_size, crop_size, crop_size)
        self.confusion_matrix += self._generate_matrix(y, y_pred)

    def _per_class_iou(self):
        matrix = self.confusion_matrix
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.diag(matrix) / (matrix.sum(axis=1) + matrix.sum(axis=0) - np.diag(matrix))


class PixelAccuracy(_ConfusionMetric):
    def eval(self):
        return np.diag(self.confusion_matrix).sum() / self.confusion_matrix.sum()


class PixelAccuracyClass(_ConfusionMetric):
    def eval(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            per_class = np.diag(self.confusion_matrix) / self.confusion_matrix.sum(axis=1)
        return np.nanmean(per_class)


class MeanIntersectionOverUnion(_ConfusionMetric):
    def eval(self):
        return np.nanmean(self._per_class_iou())


class FrequencyWeightedIntersectionOverUnion(_ConfusionMetric):
    def eval(self):
        freq = self.confusion_matrix.sum(axis=1) / self.confusion_matrix.sum()
        present = freq > 0
        return (freq[present] * self._per_class_iou()[present]).sum()


def seg_metrics():
    return {"pixel accuracy": PixelAccuracy(), "mean pixel accuracy": PixelAccuracyClass(),
            "mean IoU": MeanIntersectionOverUnion(), "frequency weighted IoU": FrequencyWeightedIntersectionOverUnion()}


def show(result):
    return {k: round(float(v), 5) for k, v in result.items()}


# ---- the learning rate, the loss, the optimizer ---------------------------------------------------------
min_lr = 0.0005
base_lr = 0.05
train_epochs = 2
iters_per_epoch = dataset.get_dataset_size()
total_step = iters_per_epoch * train_epochs
lr_scheduler = nn.cosine_decay_lr(min_lr, base_lr, total_step, iters_per_epoch, decay_epoch=2)
print([f"{v:.6f}" for v in lr_scheduler])
lr = Tensor(lr_scheduler[-1])  # as in the tutorial: the schedule's last value, kept constant
loss = nn.CrossEntropyLoss(ignore_index=255)
print(f"loss of the starting weights: {float(loss(net(Tensor(fixed['data'])), Tensor(fixed['label']))):.5f}")
scale_factor = 4
scale_window = 3000


# Positionally, the tutorial's two numbers are the initial loss scale and the factor of the dynamic manager.
dynamic_manager = ms.amp.DynamicLossScaleManager(scale_factor, scale_window)
print("dynamic loss scale:", dynamic_manager.get_loss_scale(), dynamic_manager.get_drop_overflow_update())


def build_model(net, lr=lr):
    # MindSpore 2.10 refuses a dynamic manager in Model on CPU: a fixed scale that never drops a step
    # instead, with the optimizer dividing the gradients by the same scale (as that manager asks)
    scale = dynamic_manager.get_loss_scale()
    optimizer = nn.Momentum(params=net.trainable_params(), learning_rate=lr, momentum=0.9, weight_decay=0.0001,
                            loss_scale=scale)
    loss_scale_manager = ms.amp.FixedLossScaleManager(scale, drop_overflow_update=False)
    return Model(net, loss_fn=loss, optimizer=optimizer, loss_scale_manager=loss_scale_manager,
                 metrics=seg_metrics())


# Checked number by number: one epoch over the unaugmented training images in the file's order, at a
# smaller rate: at the tutorial's, the two frameworks' float32 rounding (MindSpore's CPU kernels round
# ten times more than cellkit's, measured against float64) grows chaotically within a few steps.
compared_lr = 0.002
model = build_model(net, compared_lr)
plain_eval = seg_dataset(EVAL_FILE, augment=False, shuffle=False)
print("before:", show(model.eval(plain_eval, dataset_sink_mode=False)))
model.train(1, seg_dataset(DATA_FILE, augment=False, shuffle=False), callbacks=[LossMonitor()],
            dataset_sink_mode=False)
print("after one epoch:", show(model.eval(plain_eval, dataset_sink_mode=False)))

# ---- the tutorial's training: augmented, shuffled, with the monitors and checkpoints ------------------
net = FCN8s(n_class=num_classes)
load_vgg16(net)
fixed_head(net)
model = build_model(net)
time_callback = TimeMonitor(data_size=iters_per_epoch)
loss_callback = LossMonitor()
callbacks = [time_callback, loss_callback]
keep_checkpoint_max = 5
shutil.rmtree("./ckpt", ignore_errors=True)  # a fresh folder: ModelCheckpoint renames around old files
config_ckpt = CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=keep_checkpoint_max)
ckpt_callback = ModelCheckpoint(prefix="FCN8s", directory="./ckpt", config=config_ckpt)
callbacks.append(ckpt_callback)
model.train(train_epochs, dataset, callbacks=callbacks, dataset_sink_mode=False)
print(sorted(f for f in os.listdir("./ckpt") if f.endswith(".ckpt")))

# ---- evaluation of the saved checkpoint ------------------------------------------------------------------
net = FCN8s(n_class=num_classes)
param_dict = load_checkpoint(f"./ckpt/FCN8s-{train_epochs}_{iters_per_epoch}.ckpt")
print("not loaded:", load_param_into_net(net, param_dict)[0])
model = build_model(net)
dataset_eval = seg_dataset(EVAL_FILE)
result = model.eval(dataset_eval, dataset_sink_mode=False)
print(sorted(result), all(0 <= v <= 1 for v in result.values()))
print("evaluation:", show(result))

# ---- inference: the classes predicted for a batch of validation images -----------------------------------
net.set_train(False)
show_data = next(dataset_eval.create_dict_iterator())
res = net(show_data["data"]).asnumpy().argmax(axis=1)
mask_images = show_data["label"].asnumpy().reshape([train_batch_size, crop_size, crop_size])
in_masks = np.unique(mask_images[mask_images != 255])
print(res.shape, f"{len(np.unique(res))} classes predicted, {len(in_masks)} in the masks")
