"""Functional ops and Primitive classes, MindSpore's ``mindspore.ops``.

Every op computes on the current backend's arrays and, while a gradient
transform records, records its backward rule (the op pattern: ``ops/_core.py``).  Import as in MindSpore::

    from cellkit import ops
    ops.add(x, y)
    relu = ops.ReLU()

>>> import cellkit as ms
>>> from cellkit import ops
>>> x = ms.Tensor([1, 2, 3], ms.float32)
>>> y = ms.Tensor([4, 5, 6], ms.float32)
>>> print(ops.add(x, y))
[5. 7. 9.]
"""
from ..transforms import GradOperation, grad, value_and_grad, vjp  # noqa: F401
from ..jacobians import jacfwd, jacrev, jvp  # noqa: F401
from . import _tensor_methods  # noqa: F401  (gives Tensor its methods and operators)
from .activation import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .gradient_control import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .primitive import Primitive, PrimitiveWithCheck, PrimitiveWithInfer, constexpr, prim_attr_register  # noqa: F401
from .primitives import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .reduce import *  # noqa: F401,F403
from .shape_ops import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .layout import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from .nn_functional import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .communication import *  # noqa: F401,F403
from .misc import *  # noqa: F401,F403
from .introspection import *  # noqa: F401,F403
# Last on purpose: importing the submodule ``ops/norm.py`` (BatchNorm, LayerNorm ...) bound the
# name ``norm`` to that module; MindSpore's ``ops.norm`` is the function.
from .norms import norm  # noqa: F401,E402

from ..vmap import vmap  # noqa: F401,E402  (ops.vmap, as in MindSpore)
from . import (communication, elementwise, fft, indexing, layout, misc, nn_functional, sparse,  # noqa: E402
               statistics)
_tensor_methods.install(communication, elementwise, fft, indexing, layout, misc, nn_functional, sparse, statistics)
from . import _rule_math  # noqa: E402
_rule_math._install()  # the tape's backward rules now have their array and Tensor namespaces
from .custom import Custom, PyFunc  # noqa: F401,E402  (issue 17: ops.Custom, func_type="pyfunc")
