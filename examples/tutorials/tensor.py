"""Tensors: the beginner tutorial's steps (mindspore-ai/docs: tutorials/source_en/beginner/tensor.md).

Create tensors from data, NumPy arrays and initializers; read their attributes; index them; compute
with them; join them; move them to and from NumPy (sharing memory with ``from_numpy``); sparse tensors.
"""
import numpy as np

import cellkit as ms
from cellkit import COOTensor, CSRTensor, Tensor, ops
from cellkit.common.initializer import One, Normal

# --- creating tensors
values = [1, 0, 1, 0]
from_list = Tensor(values)
print(from_list, from_list.shape, from_list.dtype)
from_numpy = Tensor(np.array(values))
print(from_numpy, from_numpy.shape, from_numpy.dtype)

ms.set_seed(1)
ones = Tensor(shape=(2, 2), dtype=ms.float32, init=One())
normal = Tensor(shape=(2, 2), dtype=ms.float32, init=Normal())
print("ones:\n", ones)
print("normal:\n", normal)
print("normal's shape and dtype:", normal.shape, normal.dtype)

print(f"ones_like:\n {ops.ones_like(from_list)}\n")
print(f"zeros_like:\n {ops.zeros_like(from_list)}\n")

# --- attributes
m = Tensor(np.array([[1, 2], [3, 4]]), ms.int32)
print("shape:", m.shape)
print("dtype:", m.dtype)
print("itemsize:", m.itemsize)
print("nbytes:", m.nbytes)
print("ndim:", m.ndim)
print("size:", m.size)
print("strides:", m.strides)

# --- indexing
grid = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
print("first row: {}".format(grid[0]))
print("bottom right: {}".format(grid[1, 1]))
print("last column: {}".format(grid[:, -1]))
print("first column: {}".format(grid[..., 0]))

# --- arithmetic
a = Tensor(np.array([1, 2, 3]), ms.float32)
b = Tensor(np.array([4, 5, 6]), ms.float32)
print("add:", a + b)
print("sub:", a - b)
print("mul:", a * b)
print("div:", b / a)
print("mod:", b % a)
print("floordiv:", b // a)

# --- joining
top = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
bottom = Tensor(np.array([[4, 5], [6, 7]]).astype(np.float32))
joined = ops.concat((top, bottom), axis=0)
print(joined)
print("shape:\n", joined.shape)
stacked = ops.stack([top, bottom])
print(stacked)
print("shape:\n", stacked.shape)

# --- NumPy round trips
t = Tensor([1., 1., 1., 1., 1.])
print(f"t: {t}", type(t).__name__)
n = t.asnumpy()
print(f"n: {n}", type(n).__name__)
shared = np.ones(5)
view = Tensor.from_numpy(shared)
np.add(shared, 1, out=shared)  # from_numpy shares memory: the tensor sees the change
print(f"n: {shared}")
print(f"t: {view}")

# --- sparse tensors
indptr = Tensor([0, 1, 2])
indices = Tensor([0, 1])
csr_values = Tensor([1, 2], dtype=ms.float32)
csr = CSRTensor(indptr, indices, csr_values, (2, 4))
print(csr.shape, csr.dtype)
coo = COOTensor(Tensor([[0, 1], [1, 2]], dtype=ms.int32), Tensor([1, 2], dtype=ms.float32), (3, 4))
print(coo.values, coo.indices, coo.shape)
print(coo.astype(ms.float64).dtype)
