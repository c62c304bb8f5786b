"""cellkit.dataset against MindSpore's own dataset engine, on the same files, in one run.

Two tutorial pipelines over generated files in the real formats:

- MNIST-style: idx files (``MnistDataset``), ``Rescale(1/255, 0)``, ``Normalize``, ``HWC2CHW`` on
  the images, ``TypeCast(int32)`` on the labels, ``shuffle(buffer)``, ``batch(64)``;
- CIFAR-style: binary batches (``Cifar10Dataset``), ``RandomCrop(32, padding=4)``,
  ``RandomHorizontalFlip``, ``Rescale``, ``Normalize``, ``HWC2CHW``, ``TypeCast``, ``batch(64)``.

Each engine runs ``--epochs`` epochs through one iterator (``num_epochs``), output as NumPy
arrays; the figure is the time per epoch, best of the epochs after the first (the first includes
reading the files).  MindSpore runs in a subprocess of ``--mindspore-python`` (its own venv) on
the same files.  Usage::

    python benchmarks/dataset.py [--images 20000] [--epochs 4] [--mindspore-python /work/msvenv/bin/python]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_mnist(folder, count):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (count, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, count, dtype=np.uint8)
    with open(os.path.join(folder, "train-images-idx3-ubyte"), "wb") as f:
        f.write(np.array([2051, count, 28, 28], ">u4").tobytes() + images.tobytes())
    with open(os.path.join(folder, "train-labels-idx1-ubyte"), "wb") as f:
        f.write(np.array([2049, count], ">u4").tobytes() + labels.tobytes())


def write_cifar(folder, count):
    """``count`` // 10000 training batches of 10000 records (MindSpore reads whole 10000-record files)."""
    rng = np.random.default_rng(1)
    for k in range(max(count // 10000, 1)):
        records = np.empty((10000, 3073), np.uint8)
        records[:, 0] = rng.integers(0, 10, 10000)
        records[:, 1:] = rng.integers(0, 256, (10000, 3072))
        records.tofile(os.path.join(folder, f"data_batch_{k + 1}.bin"))


def pipelines(ms, ds, vision, transforms, mnist_dir, cifar_dir):
    mnist = ds.MnistDataset(mnist_dir, usage="train", shuffle=False)
    mnist = mnist.map([vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                       vision.HWC2CHW()], "image")
    mnist = mnist.map(transforms.TypeCast(ms.int32), "label")
    mnist = mnist.shuffle(buffer_size=1000).batch(64)
    cifar = ds.Cifar10Dataset(cifar_dir, usage="train", shuffle=True)
    cifar = cifar.map([vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(),
                       vision.Rescale(1.0 / 255.0, 0.0),
                       vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]), vision.HWC2CHW()],
                      "image")
    cifar = cifar.map(transforms.TypeCast(ms.int32), "label").batch(64)
    return {"mnist": mnist, "cifar": cifar}


def measure(engine, mnist_dir, cifar_dir, epochs):
    if engine == "mindspore":
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.dataset import transforms, vision
    else:
        sys.path.insert(0, ROOT)
        import cellkit as ms
        import cellkit.dataset as ds
        from cellkit.dataset import transforms, vision
    ds.config.set_seed(0)
    out = {}
    for name, data in pipelines(ms, ds, vision, transforms, mnist_dir, cifar_dir).items():
        iterator = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
        times, shapes = [], None
        for _ in range(epochs):
            start = time.perf_counter()
            batches = 0
            for image, label in iterator:
                batches += 1
                shapes = (list(image.shape), str(image.dtype), str(label.dtype))
            times.append(time.perf_counter() - start)
        out[name] = {"epoch_seconds": times, "batches": batches, "last_batch": shapes}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=20000, help="images per dataset (CIFAR: a multiple of 10000)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--mindspore-python", default="/work/msvenv/bin/python")
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "MNIST", "CIFAR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child[0], args.child[1], args.child[2], args.epochs)))
        return
    with tempfile.TemporaryDirectory() as folder:
        mnist_dir, cifar_dir = os.path.join(folder, "mnist"), os.path.join(folder, "cifar")
        os.makedirs(mnist_dir)
        os.makedirs(cifar_dir)
        write_mnist(mnist_dir, args.images)
        write_cifar(cifar_dir, args.images)
        results = {}
        for engine, python in (("cellkit", sys.executable), ("mindspore", args.mindspore_python)):
            if engine == "mindspore" and not os.path.exists(python):
                print(f"(no MindSpore at {python}: its figures are skipped)")
                continue
            env = dict(os.environ, GLOG_v="3", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
            done = subprocess.run([python, os.path.abspath(__file__), "--epochs", str(args.epochs), "--child",
                                   engine, mnist_dir, cifar_dir], capture_output=True, text=True, env=env)
            if done.returncode:
                raise RuntimeError(f"{engine} run failed:\n{done.stderr[-3000:]}")
            results[engine] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{args.images} images per dataset, {args.epochs} epochs, batch 64; seconds per epoch "
          f"(first epoch / best later epoch)")
    for name in ("mnist", "cifar"):
        line = [f"{name:6s}"]
        best = {}
        for engine, result in results.items():
            times = result[name]["epoch_seconds"]
            best[engine] = min(times[1:]) if len(times) > 1 else times[0]
            line.append(f"{engine}: {times[0]:.3f} / {best[engine]:.3f} ({result[name]['batches']} batches, "
                        f"{result[name]['last_batch']})")
        if len(best) == 2:
            line.append(f"ratio cellkit/mindspore: {best['cellkit'] / best['mindspore']:.2f}x")
        print("  ".join(line))


if __name__ == "__main__":
    main()
