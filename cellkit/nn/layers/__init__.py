"""Layers: Dense, Conv2d, activations, containers."""
from .activation import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
