"""``mindspore.dataset.text.utils``: ``Vocab``, ``NormalizeForm`` and the string helpers.

>>> from cellkit.dataset.text.utils import Vocab
>>> Vocab.from_list(["a"]).vocab()
{'a': 0}
"""
from .transforms import NormalizeForm, to_bytes, to_str  # noqa: F401
from .vocab import Vocab  # noqa: F401
