"""Neural-network functionals beyond the basic layers: more activations, pooling variants, resizing, normalisations and losses.

Each op follows the op pattern of ``cellkit/ops/_core.py``, and is declared in the op
catalogue (``tests/op_catalogue``) with its samples, aliases and MindSpore fixtures.
The ops live in modules of one concern each, gathered here:

- ``nn_activation``: CELU, SELU, the shrinks, hardtanh, softsign, PReLU, RReLU, GLU, Gumbel-softmax ...
- ``nn_conv``: 1-D and 3-D convolutions, transposed convolutions, deformable convolution;
- ``nn_pool``: 1-D/3-D, adaptive, Lp, fractional pooling and max-unpooling;
- ``nn_resize``: interpolation in every mode, grid sampling, pixel and channel shuffles;
- ``nn_norm``: group norm, LRN, L2 normalisation, cosine similarity, clipping by norm, bilinear layers;
- ``nn_loss``: the losses beyond the basic ones, CTC included;
- ``nn_detection``: bounding boxes, IoU, non-maximum suppression, ROI align, CTC decoding, colour adjustments.

(The channel-dropout variants live with ``dropout`` in ``ops/random.py``.)

>>> import cellkit as ms
>>> from cellkit import ops
>>> print(ops.celu(ms.Tensor([1.0])))
[1.]
"""
from __future__ import annotations

from . import nn_activation as _activation
from . import nn_conv as _conv
from .nn_activation import *  # noqa: F401,F403
from . import nn_pool as _pool
from . import nn_detection as _detection
from . import nn_loss as _loss
from . import nn_norm as _norm
from . import nn_resize as _resize
from .nn_conv import *  # noqa: F401,F403
from .nn_pool import *  # noqa: F401,F403
from .nn_detection import *  # noqa: F401,F403
from .nn_loss import *  # noqa: F401,F403
from .nn_norm import *  # noqa: F401,F403
from .nn_resize import *  # noqa: F401,F403

__all__ = (list(_activation.__all__) + list(_conv.__all__) + list(_pool.__all__) + list(_resize.__all__)
           + list(_norm.__all__) + list(_loss.__all__) + list(_detection.__all__))

# Tensor methods this module gives the Tensor class (name -> function), installed by cellkit.ops.
TENSOR_METHODS = dict(_activation.TENSOR_METHODS)
