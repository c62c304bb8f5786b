"""``shuffle(buffer_size)``: MindSpore's buffer shuffle, on blocks.

The buffer starts with the first ``buffer_size`` rows.  Then, for every further row, a random
slot of the buffer is emitted and the new row takes its place; at the end the rows left in the
buffer come out in random order.  A row can thus move up to ``buffer_size`` places earlier and
arbitrarily later; with a buffer at least as large as the epoch it is a uniform permutation.

The draws decide only *which* input row goes out next, so they are made on row numbers; the rows
themselves stay in their blocks until they are gathered into output blocks.
"""
from __future__ import annotations

import numpy as np

from . import checks
from .columns import Block
from .dataset import Dataset

__all__ = ["ShuffleDataset", "buffer_order"]

OUTPUT_ROWS = 256


def buffer_order(total, buffer_size, rng):
    """The output order (input row numbers) of a buffer shuffle of ``total`` rows.

    >>> import numpy as np
    >>> order = buffer_order(10, 3, np.random.default_rng(0))
    >>> sorted(order.tolist()) == list(range(10))
    True
    """
    order = np.empty(total, dtype=np.int64)
    slots = list(range(min(buffer_size, total)))
    draws = (rng.random(max(0, total - len(slots))) * len(slots)).astype(np.int64) if slots else []
    out = 0
    for incoming, pick in zip(range(len(slots), total), draws):
        order[out] = slots[pick]
        slots[pick] = incoming
        out += 1
    order[out:] = rng.permutation(np.asarray(slots, dtype=np.int64))
    return order


class ShuffleDataset(Dataset):
    """The result of :meth:`Dataset.shuffle`."""

    def __init__(self, child, buffer_size):
        super().__init__(child)
        checks.check_type(buffer_size, (int,), "buffer_size")
        if not 2 <= buffer_size <= checks.INT32_MAX:
            raise ValueError(f"Input buffer_size is not within the required interval of [2, {checks.INT32_MAX}], "
                             f"but got {buffer_size}.")
        self.buffer_size = buffer_size
        self.reshuffle_each_epoch = True

    def is_shuffled(self):
        return True

    def _blocks(self, run):
        rng = run.generator(self)
        if not self.reshuffle_each_epoch:
            rng = np.random.default_rng([run.root, 0x5EED])  # the same order every epoch (split uses it)
        stored = {}          # first input row number -> block
        starts = []          # sorted first row numbers of the stored blocks
        remaining = {}       # first row number -> rows of it not yet emitted
        slots = []
        received = 0
        pending_out = []

        def gather(numbers):
            numbers = np.asarray(numbers, dtype=np.int64)
            where = np.searchsorted(starts, numbers, side="right") - 1
            parts, order = [], []
            for b in np.unique(where):
                start = starts[b]
                chosen = np.flatnonzero(where == b)
                parts.append(stored[start].take(numbers[chosen] - start))
                order.append(chosen)
                remaining[start] -= len(chosen)
            joined = Block.concat(parts) if len(parts) > 1 else parts[0]
            inverse = np.argsort(np.concatenate(order), kind="stable")
            result = joined.take(inverse) if len(parts) > 1 or not np.array_equal(inverse, np.arange(len(inverse))) \
                else joined
            for start in [s for s in starts if remaining[s] == 0]:
                del stored[start], remaining[start]
                starts.remove(start)
            return result

        for block in self.children[0]._blocks(run):
            if not block.size:
                continue
            stored[received] = block
            starts.append(received)
            remaining[received] = block.size
            numbers = range(received, received + block.size)
            received += block.size
            fill = min(self.buffer_size - len(slots), len(numbers))
            slots.extend(numbers[:fill])
            rest = numbers[fill:]
            if len(rest):
                picks = (rng.random(len(rest)) * len(slots)).astype(np.int64)
                for incoming, pick in zip(rest, picks):
                    pending_out.append(slots[pick])
                    slots[pick] = incoming
            while len(pending_out) >= OUTPUT_ROWS:
                chunk, pending_out = pending_out[:OUTPUT_ROWS], pending_out[OUTPUT_ROWS:]
                yield gather(chunk)
        if slots:
            pending_out.extend(rng.permutation(np.asarray(slots, dtype=np.int64)).tolist())
        for k in range(0, len(pending_out), OUTPUT_ROWS):
            yield gather(pending_out[k:k + OUTPUT_ROWS])
