"""``cellkit.common``: initializers (``cellkit.common.initializer``)."""
from . import initializer  # noqa: F401
