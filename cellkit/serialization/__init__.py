"""Checkpoints: MindSpore's ``.ckpt`` files (and ``.safetensors``), both ways.

A file written here loads in MindSpore 2.10 and a MindSpore file loads here:
``.ckpt`` files use MindSpore's own protobuf layout (see
:mod:`cellkit.serialization.ckpt_format`), ``.safetensors`` files go through
the ``safetensors`` package.  Loading never unpickles; saving is atomic.

The protobuf messages are built at run time by the ``protobuf`` package from
a descriptor written out in ``ckpt_format`` (no ``protoc``, no generated
code): untrusted files are then parsed by protobuf's own checked parser
rather than by hand-written wire-format code, and the descriptor reads like
the ``.proto`` it mirrors.

* :mod:`~cellkit.serialization.checkpoint` -- ``save_checkpoint``,
  ``load_checkpoint``, ``load_param_into_net``;
* :mod:`~cellkit.serialization.ckpt_format` -- the protobuf records, dtype
  names and CRC trailer of a ``.ckpt`` file;
* :mod:`~cellkit.serialization.safetensors_format` -- the safetensors side;
* :mod:`~cellkit.serialization.cipher` -- ``enc_key`` / ``dec_key``;
* :mod:`~cellkit.serialization.convert` -- ``ckpt_to_safetensors``, ``safetensors_to_ckpt``,
  ``load_checkpoint_async``, ``merge_sliced_parameter``.

>>> import os, tempfile
>>> import cellkit as ms
>>> from cellkit import nn, ops
>>> net = nn.Dense(2, 1)
>>> path = os.path.join(tempfile.mkdtemp(), "dense.ckpt")
>>> ms.save_checkpoint(net, path)
>>> new_params = {name: ms.Parameter(ops.ones_like(p.data), name=name)
...               for name, p in ms.load_checkpoint(path).items()}
>>> ms.load_param_into_net(net, new_params)
([], [])
>>> print(net.weight.asnumpy(), net.bias.asnumpy())
[[1. 1.]] [1.]
"""
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from .convert import (async_ckpt_thread_status, ckpt_to_safetensors, load_checkpoint_async, merge_sliced_parameter,
                      safetensors_to_ckpt)

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "ckpt_to_safetensors", "safetensors_to_ckpt",
           "load_checkpoint_async", "merge_sliced_parameter", "async_ckpt_thread_status"]
from .distributed import (build_searched_strategy, get_ckpt_path_with_strategy, load_distributed_checkpoint,  # noqa: E402
                          restore_group_info_list)

__all__ += ["build_searched_strategy", "restore_group_info_list", "get_ckpt_path_with_strategy",
            "load_distributed_checkpoint"]
from .unify import unified_safetensors  # noqa: E402

__all__ += ["unified_safetensors"]
