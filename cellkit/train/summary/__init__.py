"""Summary files for MindInsight, as MindSpore writes them: ``SummaryRecord``, ``SummaryCollector``.

A summary file is a sequence of records (a length, a masked CRC-32C of it, one
protobuf ``Event``, a masked CRC-32C of that), the format MindInsight reads.
The pieces, one concern per module:

- :mod:`.crc32c` -- the checksum; :mod:`.records` -- the framing;
- :mod:`.messages` -- the protobuf messages, built at run time from a descriptor;
- :mod:`.values` -- scalars, tensors, images and histograms as message fields;
- :mod:`.writer` -- the files; :mod:`.record` -- ``SummaryRecord``;
- :mod:`.collector` -- ``SummaryCollector``, the training callback;
- :mod:`.landscape` -- ``SummaryLandscape``, loss landscapes from the collector's checkpoints;
- :mod:`.reader` -- ``read_events``, cellkit's own reader (not in MindSpore).

>>> from cellkit.train.summary import SummaryRecord, SummaryCollector, read_events
"""
from .collector import SummaryCollector
from .landscape import SummaryLandscape
from .messages import message_class
from .reader import read_events
from .record import SummaryRecord

__all__ = ["SummaryRecord", "SummaryCollector", "SummaryLandscape", "read_events", "message_class"]
