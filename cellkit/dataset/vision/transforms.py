"""``mindspore.dataset.vision.transforms``: the module MindSpore defines its image transforms in.

The same classes as :mod:`cellkit.dataset.vision`, for code that imports them from here.

>>> from cellkit.dataset.vision.transforms import Resize
>>> Resize(4).size
4
"""
from . import (augment, bbox, color, convert, erase, geometry, mixing)  # noqa: F401
from .augment import *  # noqa: F401,F403
from .bbox import *  # noqa: F401,F403
from .color import *  # noqa: F401,F403
from .convert import *  # noqa: F401,F403
from .erase import *  # noqa: F401,F403
from .files import *  # noqa: F401,F403
from .geometry import *  # noqa: F401,F403
from .mixing import *  # noqa: F401,F403
from .utils import get_image_num_channels, get_image_size  # noqa: F401
