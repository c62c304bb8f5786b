"""Small datasets in the real on-disk formats the tutorials read, made here instead of downloaded.

- ``mnist(root)``: ``root/train`` and ``root/test`` with the four idx files of MNIST
  (``train-images-idx3-ubyte`` ...), 28x28 grey images of ten classes.  Each class is a
  stroke pattern (bars, a box, a cross ...) drawn at a jittered place with noise, so a small
  network learns it in a few epochs.

Only NumPy is used: the same files serve cellkit and MindSpore (``tools/record_tutorials.py``).

    python examples/tutorials/make_data.py   # writes ./MNIST_Data
"""
from __future__ import annotations

import os
import struct

import numpy as np


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


if __name__ == "__main__":
    print("wrote", mnist())
