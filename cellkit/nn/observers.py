"""The Cell observer protocol, where the Cell's users look for it.

It lives in :mod:`cellkit.observers`, below ``cellkit.nn``, so that tools in
lower layers (:mod:`cellkit.memory`) can watch Cells without importing them.
"""
from ..observers import *  # noqa: F401,F403
from ..observers import add_observer, call_hook, emit, new_call_id, observers_of, remove_observer  # noqa: F401
