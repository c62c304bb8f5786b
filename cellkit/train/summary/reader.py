"""``read_events``: cellkit's reader of summary and lineage files (MindSpore has none in its API)."""
from __future__ import annotations

import os

from .messages import message_class
from .records import RecordError, split_records

__all__ = ["read_events"]


def read_events(path, kind=None):
    """Read a summary (or lineage) file and return its events, in order.

    This is cellkit's own helper -- MindSpore leaves reading to MindInsight --
    for students who want to look at what was recorded, and for tests.  It
    reads files written by MindSpore and by cellkit alike.

    Parameters
    ----------
    path : str
        The file (``SummaryRecord.log_dir`` gives the summary file's path).
    kind : {'summary', 'lineage'}, optional
        Which messages the file holds; by default, ``'lineage'`` for a name
        ending in ``_lineage`` and ``'summary'`` otherwise.

    Returns
    -------
    list
        Protobuf messages: ``Event`` for a summary file (the first holds
        ``version``; the others ``step``, ``wall_time`` and ``summary.value``,
        each with a ``tag`` and one of ``scalar_value``, ``tensor``, ``image``,
        ``histogram``), ``LineageEvent`` for a lineage file.

    Raises
    ------
    ValueError
        A damaged or truncated file (a record's length or checksum is wrong, a
        message does not parse), naming the file.
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> import tempfile, cellkit as ms
    >>> from cellkit.train.summary import read_events
    >>> with ms.SummaryRecord(tempfile.mkdtemp()) as summary:
    ...     summary.add_value("scalar", "acc", ms.Tensor(0.75))
    ...     _ = summary.record(2)
    >>> [(v.tag, v.scalar_value) for v in read_events(summary.log_dir)[1].summary.value]
    [('acc', 0.75)]
    """
    path = os.fspath(path)
    if kind is None:
        kind = "lineage" if path.endswith("_lineage") else "summary"
    if kind not in ("summary", "lineage"):
        raise ValueError(f"For 'read_events', 'kind' must be 'summary', 'lineage' or None, but got {kind!r}")
    cls = message_class("LineageEvent" if kind == "lineage" else "Event")
    with open(path, "rb") as handle:
        buffer = handle.read()
    events = []
    try:
        for data in split_records(buffer):
            events.append(cls.FromString(data))
    except RecordError as exc:
        raise ValueError(f"The summary file {path!r} is damaged: {exc}") from None
    except Exception as exc:  # protobuf's DecodeError: a record that is not an event
        raise ValueError(f"The summary file {path!r} holds a record that is not a {cls.__name__} message "
                         f"(record {len(events) + 1}): {exc}") from None
    return events
