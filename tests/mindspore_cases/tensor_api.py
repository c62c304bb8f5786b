"""The Tensor object's own API: storage and device queries, conversions, ``new_*``, ``clone`` ...

Where MindSpore 2.10's CPU build lacks the kernel a documented method needs (``clone``,
``new_empty``, ``new_ones``, ``new_full`` "Ascend only", ``pin_memory``, ``fills``, ``delete_``),
the case is marked ``mindspore_wrong`` and compared with the documented result.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case


def _x(ms, np, dtype="float32"):
    return ms.Tensor(np.arange(6).reshape(2, 3).astype(dtype))


_NO_KERNEL = "MindSpore 2.10's CPU build has no kernel for it (RuntimeError); the documented result"


@case
def data_property(ms, ops, nn, np):
    x = _x(ms, np)
    return x.data, x.data is x


@case
def data_setter(ms, ops, nn, np):
    x = _x(ms, np)
    x.data = ms.Tensor(np.array([7.0, 8.0], np.float32))
    return x


@case
def data_ptr_is_an_int(ms, ops, nn, np):
    return isinstance(_x(ms, np).data_ptr(), int)


@case
def device(ms, ops, nn, np):
    return _x(ms, np).device


@case
def strides(ms, ops, nn, np):
    return _x(ms, np).strides, _x(ms, np, "int64").strides


@case
def stride(ms, ops, nn, np):
    x = _x(ms, np)
    return x.stride(), x.stride(0), x.stride(-1)


@case
def storage_offset_and_contiguity(ms, ops, nn, np):
    x = _x(ms, np)
    return x.storage_offset(), x.is_contiguous(), x.contiguous()


@case(mindspore_wrong=True, expected=lambda np: np.arange(6).reshape(2, 3).astype(np.float32), note=_NO_KERNEL)
def clone(ms, ops, nn, np):
    return _x(ms, np).clone()


@case(mindspore_wrong=True, expected=lambda np: np.ones(2, np.float32), note=_NO_KERNEL)
def clone_gradient(ms, ops, nn, np):
    return ms.grad(lambda x: (x.clone() * 1).sum())(ms.Tensor(np.array([1.0, 2.0], np.float32)))


@case
def new_empty(ms, ops, nn, np):
    x = _x(ms, np)
    return x.new_empty((2, 2)) * 0, x.new_empty(3, dtype=ms.int32) * 0


@case(mindspore_wrong=True, expected=lambda np: (np.full((2,), 3.0, np.float32), np.full((2, 1), 3, np.int32)),
      note="MindSpore 2.10 raises NotImplementedError ('new_full method support Ascend only') on the CPU; the "
           "documented result")
def new_full(ms, ops, nn, np):
    x = _x(ms, np)
    return x.new_full((2,), 3), x.new_full((2, 1), 3.5, dtype=ms.int32)


@case
def new_ones(ms, ops, nn, np):
    x = _x(ms, np)
    return x.new_ones((2,)), x.new_ones((1, 2), ms.float64)


@case
def new_ones_dtype_must_be_a_dtype(ms, ops, nn, np):
    return _x(ms, np).new_ones(2, 3)


@case
def new_zeros(ms, ops, nn, np):
    x = _x(ms, np)
    return x.new_zeros((2,), dtype=ms.int64), x.new_zeros((1, 2))


@case
def type_name_and_conversion(ms, ops, nn, np):
    x = _x(ms, np)
    return x.type(), x.type(ms.float16), x.type_as(ms.Tensor(np.array([1], np.int32)))


@case
def byte_short_bfloat16(ms, ops, nn, np):
    x = _x(ms, np)
    return x.byte(), x.short(), x.bfloat16().astype(ms.float32), str(x.bfloat16().dtype)


@case(mindspore_wrong=True, expected=lambda np: (np.arange(6).reshape(2, 3).astype(np.float32), True),
      note="MindSpore 2.10 (CPU) raises RuntimeError ('Unsupported op [Free] on CPU'); the tensor is already on "
           "the CPU, so it comes back as it is")
def to_in_place_device(ms, ops, nn, np):
    x = _x(ms, np)
    out = x.to_("CPU")
    return out, out is x


@case
def to_without_device_refused(ms, ops, nn, np):
    return _x(ms, np).to_()


@case
def from_numpy(ms, ops, nn, np):
    return ms.Tensor.from_numpy(np.array([1.0, 2.0])), ms.Tensor.from_numpy(np.array([[1, 2]], np.int32))


@case
def from_numpy_shares_memory(ms, ops, nn, np):
    a = np.array([1.0, 2.0], np.float32)
    t = ms.Tensor.from_numpy(a)
    a[0] = 5.0
    return t


@case
def dlpack_round_trip(ms, ops, nn, np):
    x = _x(ms, np)
    return ms.Tensor.from_dlpack(x.to_dlpack())


@case(mindspore_wrong=True, expected=lambda np: (np.arange(6).reshape(2, 3).astype(np.float32), False),
      note="MindSpore 2.10 (CPU) raises RuntimeError (no device context for pinned memory); on the host the values "
           "come back, unpinned")
def pin_memory(ms, ops, nn, np):
    x = _x(ms, np)
    return x.pin_memory(), x.is_pinned()


@case
def is_pinned_and_shared(ms, ops, nn, np):
    x = _x(ms, np)
    return x.is_pinned(), x.is_shared()


@case
def untyped_storage(ms, ops, nn, np):
    s = _x(ms, np).untyped_storage()
    return s.nbytes(), _x(ms, np).storage().nbytes()


@case
def offload_to_file(ms, ops, nn, np):
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "offload.data")
    x = _x(ms, np)
    done = x.offload(path)
    return done, os.path.getsize(path), x


@case
def move_to_cpu(ms, ops, nn, np):
    x = _x(ms, np)
    out = x.move_to("CPU")
    return out, out is x


@case
def move_to_unknown_device(ms, ops, nn, np):
    return _x(ms, np).move_to("TPU")


@case
def requires_grad_returns_none(ms, ops, nn, np):
    x = _x(ms, np)
    return x.requires_grad_(), x.requires_grad_(False)


@case
def assign_value(ms, ops, nn, np):
    x = ms.Tensor(np.array([1, 2, 3, 4]))
    out = x.assign_value(ms.Tensor(np.array([[1, 2], [3, 4]])))
    return out, x


@case(mindspore_wrong=True, expected=lambda np: (np.zeros(4, np.int64), np.array([5, 6], np.int64)),
      note="MindSpore 2.10 (CPU) raises RuntimeError; its documentation shows the released tensor as zeros until "
           "new data is given")
def delete_(ms, ops, nn, np):
    x = ms.Tensor(np.array([1, 2, 3, 4]))
    released = x.delete_() * 1
    x.data = ms.Tensor(np.array([5, 6]))
    return released, x


@case
def ndimension(ms, ops, nn, np):
    return _x(ms, np).ndimension(), ms.Tensor(1.0).ndimension()


@case
def init_and_is_init(ms, ops, nn, np):
    x = _x(ms, np)
    return x.init, x.is_init()


@case
def set_dtype(ms, ops, nn, np):
    x = ms.Tensor(np.array([1.5, 2.5], np.float32))
    d = x.set_dtype(ms.float16)
    return d, x.dtype


@case
def value(ms, ops, nn, np):
    return _x(ms, np).value()


@case
def is_signed(ms, ops, nn, np):
    return (_x(ms, np).is_signed(), ms.Tensor(np.array([1], np.uint8)).is_signed(),
            ms.Tensor(np.array([1], np.int8)).is_signed(), ms.Tensor(np.array([True])).is_signed())


@case
def fill_is_out_of_place(ms, ops, nn, np):
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    return x.fill(3.0), x


@case(mindspore_wrong=True, expected=lambda np: (np.full(2, 4.0, np.float32), np.array([1.0, 2.0], np.float32)),
      note="MindSpore 2.10 (CPU) raises RuntimeError for Tensor.fills; its documentation gives a filled copy")
def fills(ms, ops, nn, np):
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    return x.fills(4.0), x


@case
def to_coo_and_to_csr(ms, ops, nn, np):
    x = ms.Tensor(np.array([[0.0, 2.0], [3.0, 0.0]], np.float32))
    coo, csr = x.to_coo(), x.to_csr()
    return coo.to_tuple(), csr.to_tuple()
