"""Small datasets in the real on-disk formats the tutorials read, made here instead of downloaded.

- ``mnist(root)``: ``root/train`` and ``root/test`` with the four idx files of MNIST
  (``train-images-idx3-ubyte`` ...), 28x28 grey images of ten classes.  Each class is a
  stroke pattern (bars, a box, a cross ...) drawn at a jittered place with noise, so a small
  network learns it in a few epochs.

- ``cifar10(root)``: ``root/cifar-10-batches-bin`` in CIFAR-10's binary format: ``data_batch_1.bin``
  and ``test_batch.bin`` (10000 records each, a few hundred distinct), each record one label byte then the 32x32 red,
  green and blue planes (3072 bytes), and ``batches.meta.txt`` with the class names.  Each class
  is a coloured shape on a noisy background.

- ``image_folder(root)``: ``root/<class>/<n>.jpg`` (or ``.png``), the folder-per-class layout that
  ``ImageFolderDataset`` reads, written with Pillow: coloured blobs on a noisy background, one
  colour per class, width and height as asked.

- ``imdb(root)``: ``root/aclImdb_v1.tar.gz``, a tar of ``aclImdb/{train,test}/{pos,neg}/<n>_<r>.txt``
  short reviews as in the IMDB archive, and ``root/glove.6B.zip`` holding ``glove.6B.100d.txt``
  (one word and its 100 numbers a line) for the words used.

- ``voc_segmentation(root)``: ``root/VOCdevkit/VOC2012`` laid out as PASCAL VOC 2012's segmentation
  part: ``JPEGImages/<id>.jpg``, ``SegmentationClass/<id>.png`` (palette PNGs whose pixel values are
  class indices, 255 on object borders as in VOC) and ``ImageSets/Segmentation/{train,val}.txt``
  (one image id a line).  Each image holds a few coloured rectangles and discs of VOC classes on a
  noisy background; the mask marks them.

Only NumPy (and Pillow for ``image_folder`` and ``voc_segmentation``) is used: the same files serve cellkit and MindSpore (``tools/record_tutorials.py``).

    python examples/tutorials/make_data.py   # writes ./MNIST_Data
"""
from __future__ import annotations

import fcntl
import functools
import os
import struct

import numpy as np


def _one_writer_at_a_time(writer):
    """Scripts run side by side (the tests run them in parallel) and share these files: a lock in the
    working folder lets one write while the others wait, then find the files complete and skip."""
    @functools.wraps(writer)
    def locked(*args, **kwargs):
        with open(".make_data.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return writer(*args, **kwargs)
    return locked


def _digit_like(label, rng):
    """One 28x28 uint8 image of class ``label``: a class-specific stroke pattern, shifted and noisy."""
    canvas = np.zeros((28, 28), np.float32)
    dy, dx = rng.integers(-2, 3, size=2)
    rows, cols = slice(6 + dy, 22 + dy), slice(6 + dx, 22 + dx)
    block = np.zeros((16, 16), np.float32)
    if label == 0:
        block[[0, -1], :] = 1
        block[:, [0, -1]] = 1
    elif label == 1:
        block[:, 7:9] = 1
    elif label == 2:
        block[[0, 7, 15], :] = 1
    elif label == 3:
        block[:, [3, 12]] = 1
    elif label == 4:
        block[7:9, :] = 1
        block[:, 7:9] = 1
    elif label == 5:
        np.fill_diagonal(block, 1)
    elif label == 6:
        np.fill_diagonal(np.fliplr(block), 1)
    elif label == 7:
        block[:8, :8] = 1
    elif label == 8:
        block[8:, 8:] = 1
    else:
        block[::3, ::3] = 1
    canvas[rows, cols] = block
    canvas += rng.uniform(0, 0.3, canvas.shape)
    return (np.clip(canvas, 0, 1) * 255).astype(np.uint8)


def _write_idx(path, array):
    """An idx file: magic (0, 0, dtype code 0x08 = uint8, number of dimensions), the sizes, the bytes."""
    with open(path, "wb") as f:
        f.write(struct.pack(">BBBB", 0, 0, 0x08, array.ndim))
        f.write(struct.pack(f">{array.ndim}I", *array.shape))
        f.write(array.astype(np.uint8).tobytes())


@_one_writer_at_a_time
def mnist(root="MNIST_Data", train=640, test=128, seed=0):
    """Write ``root/train`` and ``root/test`` in MNIST's idx format (skipped if already there)."""
    rng = np.random.default_rng(seed)
    for split, count, prefix in (("train", train, "train"), ("test", test, "t10k")):
        folder = os.path.join(root, split)
        images_path = os.path.join(folder, f"{prefix}-images-idx3-ubyte")
        if os.path.exists(images_path):
            continue
        os.makedirs(folder, exist_ok=True)
        labels = rng.integers(0, 10, size=count).astype(np.uint8)
        images = np.stack([_digit_like(int(k), rng) for k in labels])
        _write_idx(images_path, images)
        _write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), labels)
    return root


CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


def _cifar_like(label, rng):
    """One 32x32x3 uint8 image of class ``label``: a class colour and shape on a noisy background."""
    image = rng.uniform(0, 0.35, (32, 32, 3)).astype(np.float32)
    colour = np.array([(label * 37 % 10) / 9, (label * 53 % 10) / 9, (label * 71 % 10) / 9], np.float32)
    dy, dx = rng.integers(-3, 4, size=2)
    yy, xx = np.mgrid[0:32, 0:32]
    yy, xx = yy - (16 + dy), xx - (16 + dx)
    shapes = (np.abs(yy) < 8) & (np.abs(xx) < 8), yy ** 2 + xx ** 2 < 64, np.abs(yy) < 3, np.abs(xx) < 3, \
        np.abs(yy - xx) < 3, np.abs(yy + xx) < 3, (np.abs(yy) < 10) & (np.abs(xx) < 4), yy > 4, xx > 4, \
        (yy ** 2 + xx ** 2 < 100) & (yy ** 2 + xx ** 2 > 36)
    image[shapes[label]] = 0.3 + 0.7 * colour
    return (np.clip(image, 0, 1) * 255).astype(np.uint8)


@_one_writer_at_a_time
def cifar10(root="datasets-cifar10-bin", train_files=1, unique=160, seed=1):
    """Write ``root/cifar-10-batches-bin`` in CIFAR-10's binary format (skipped if already there).

    Every batch file holds CIFAR-10's 10000 records (MindSpore's reader requires that count); only
    ``unique`` images per file are drawn and then repeated, so the files are quick to make.  The
    real set has five training files; ``train_files`` of them are written here.
    """
    folder = os.path.join(root, "cifar-10-batches-bin")
    if os.path.exists(os.path.join(folder, "batches.meta.txt")):
        return folder
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    names = [f"data_batch_{i}.bin" for i in range(1, train_files + 1)] + ["test_batch.bin"]
    for name in names:
        labels = rng.integers(0, 10, size=unique).astype(np.uint8)
        planes = np.stack([_cifar_like(int(k), rng).transpose(2, 0, 1) for k in labels])  # HWC -> R, G, B planes
        records = np.concatenate([labels[:, None], planes.reshape(unique, -1)], axis=1)
        records = np.resize(records, (10000, records.shape[1]))  # cycle through the drawn images
        with open(os.path.join(folder, name), "wb") as f:
            f.write(records.tobytes())
    with open(os.path.join(folder, "batches.meta.txt"), "w") as f:
        f.write("\n".join(CIFAR10_CLASSES) + "\n\n")
    return folder


@_one_writer_at_a_time
def image_folder(root="faces", classes=("faces",), per_class=32, size=(24, 20), fmt="jpg", seed=2):
    """Write ``root/<class>/<n>.<fmt>`` images of ``size`` (width, height) (skipped if already there)."""
    from PIL import Image

    if os.path.isdir(root):
        return root
    rng = np.random.default_rng(seed)
    width, height = size
    yy, xx = np.mgrid[0:height, 0:width]
    for k, name in enumerate(classes):
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        colour = np.array([(k * 3 + 1) % 4, (k * 5 + 2) % 4, (k * 7 + 3) % 4], np.float32) / 3
        for n in range(per_class):
            image = rng.uniform(0, 0.3, (height, width, 3)).astype(np.float32)
            cy, cx = rng.uniform(0.3, 0.7) * height, rng.uniform(0.3, 0.7) * width
            radius = rng.uniform(0.2, 0.35) * min(width, height)
            blob = (yy - cy) ** 2 + (xx - cx) ** 2 < radius ** 2
            image[blob] = 0.25 + 0.75 * colour * rng.uniform(0.8, 1.0)
            pixels = (np.clip(image, 0, 1) * 255).astype(np.uint8)
            Image.fromarray(pixels).save(os.path.join(folder, f"{n:04d}.{fmt}"), quality=95)
    return root


_POSITIVE = ["great", "wonderful", "loved", "brilliant", "moving", "fun", "superb", "enjoyed"]
_NEGATIVE = ["awful", "boring", "hated", "terrible", "dull", "waste", "poor", "worst"]
_NEUTRAL = ["the", "film", "movie", "was", "a", "and", "acting", "plot", "it", "story", "i", "this", "of"]


@_one_writer_at_a_time
def imdb(root=".", per_label=24, seed=3):
    """Write ``root/aclImdb_v1.tar.gz`` and ``root/glove.6B.zip`` (skipped if already there)."""
    import io
    import tarfile
    import zipfile

    tar_path = os.path.join(root, "aclImdb_v1.tar.gz")
    glove_path = os.path.join(root, "glove.6B.zip")
    if os.path.exists(tar_path) and os.path.exists(glove_path):
        return tar_path, glove_path
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(seed)
    with tarfile.open(tar_path, "w:gz") as tar:
        for mode in ("train", "test"):
            for label, words in (("pos", _POSITIVE), ("neg", _NEGATIVE)):
                for n in range(per_label if mode == "train" else per_label // 2):
                    length = int(rng.integers(6, 16))
                    text = [str(w) for w in rng.choice(_NEUTRAL, size=length)]
                    for k in rng.choice(length, size=2, replace=False):
                        text[k] = str(rng.choice(words))
                    body = (" ".join(text).capitalize() + ". Really, " + str(rng.choice(words)) + "!").encode()
                    info = tarfile.TarInfo(f"aclImdb/{mode}/{label}/{n}_{7 if label == 'pos' else 2}.txt")
                    info.size = len(body)
                    tar.addfile(info, io.BytesIO(body))
    vocabulary = _NEUTRAL + _POSITIVE + _NEGATIVE + ["really"]
    lines = [w + " " + " ".join(f"{v:.5f}" for v in rng.normal(0, 0.4, 100)) for w in vocabulary]
    with zipfile.ZipFile(glove_path, "w") as archive:
        archive.writestr("glove.6B.100d.txt", "\n".join(lines) + "\n")
    return tar_path, glove_path


def _voc_palette():
    """PASCAL VOC's colour map: class k's colour spreads the bits of k over the high bits of R, G, B."""
    palette = np.zeros((256, 3), np.uint8)
    for k in range(256):
        value, r, g, b = k, 0, 0, 0
        for shift in range(7, -1, -1):
            r |= (value & 1) << shift
            g |= ((value >> 1) & 1) << shift
            b |= ((value >> 2) & 1) << shift
            value >>= 3
        palette[k] = r, g, b
    return palette


@_one_writer_at_a_time
def voc_segmentation(root="VOCdevkit_tiny", train=24, val=8, size=(56, 48), classes=21, seed=9):
    """Write ``root/VOCdevkit/VOC2012`` with VOC 2012's segmentation layout (skipped if already there).

    ``train`` + ``val`` images of ``size`` (width, height) and their palette masks; the ids are
    ``2007_<n>`` as in VOC, listed in ``ImageSets/Segmentation/train.txt`` and ``val.txt``.
    """
    from PIL import Image

    voc = os.path.join(root, "VOCdevkit", "VOC2012")
    lists = os.path.join(voc, "ImageSets", "Segmentation")
    if os.path.exists(os.path.join(lists, "val.txt")):
        return voc
    for folder in ("JPEGImages", "SegmentationClass", lists):
        os.makedirs(folder if folder == lists else os.path.join(voc, folder), exist_ok=True)
    rng = np.random.default_rng(seed)
    palette = _voc_palette()
    width, height = size
    yy, xx = np.mgrid[0:height, 0:width]
    ids = [f"2007_{n:06d}" for n in range(train + val)]
    for image_id in ids:
        image = rng.uniform(0, 0.25, (height, width, 3)).astype(np.float32)
        mask = np.zeros((height, width), np.uint8)
        for _ in range(int(rng.integers(1, 4))):
            label = int(rng.integers(1, classes))
            cy, cx = rng.uniform(0.2, 0.8) * height, rng.uniform(0.2, 0.8) * width
            ry, rx = rng.uniform(0.12, 0.3) * height, rng.uniform(0.12, 0.3) * width
            if rng.uniform() < 0.5:
                shape = (np.abs(yy - cy) < ry) & (np.abs(xx - cx) < rx)
            else:
                shape = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 < 1
            mask[shape] = label
            image[shape] = 0.3 + 0.7 * palette[label] / 255.0 * rng.uniform(0.8, 1.0)
        # VOC marks the outline of every object "void" (255): pixels next to another class
        edge = np.zeros_like(mask, dtype=bool)
        edge[1:, :] |= mask[1:, :] != mask[:-1, :]
        edge[:, 1:] |= mask[:, 1:] != mask[:, :-1]
        mask[edge] = 255
        pixels = (np.clip(image + rng.normal(0, 0.03, image.shape), 0, 1) * 255).astype(np.uint8)
        Image.fromarray(pixels).save(os.path.join(voc, "JPEGImages", image_id + ".jpg"), quality=95)
        png = Image.fromarray(mask, mode="P")
        png.putpalette(palette.reshape(-1).tolist())
        png.save(os.path.join(voc, "SegmentationClass", image_id + ".png"))
    for name, part in (("train", ids[:train]), ("val", ids[train:])):
        with open(os.path.join(lists, name + ".txt"), "w") as f:
            f.write("\n".join(part) + "\n")
    return voc


if __name__ == "__main__":
    print("wrote", mnist())
    print("wrote", cifar10())
