"""Writing events to a summary file: the file name, lazy creation, the size limit.

MindSpore writes from a pool of background processes; cellkit writes in the
calling thread, when ``record`` is called (a record is a few hundred bytes; a
classroom notebook has no use for a process pool, and errors then reach the
caller at once when ``raise_exception=True``).  The bytes in the file are the
same: the version event first, then one framed event per ``record``.

A file is created when its first record is written (an evaluation that collects
no summary data leaves no empty ``_MS`` file, as in MindSpore), made
owner-read/write while open and owner-read-only once closed (MindSpore's modes).

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> w = EventFileWriter(os.path.join(folder, "events.out.events.summary.1.0.host_MS"), version_event=True)
>>> w.write(b"\\x09" + bytes(8))     # an Event with wall_time 0.0
>>> w.close()
>>> os.path.getsize(w.path)        # the version event, then ours: each framed with 16 bytes
69
"""
from __future__ import annotations

import logging
import os
import platform
import shutil
import stat
import time

from .messages import message_class
from .records import FOOTER_BYTES, HEADER_BYTES, frame

__all__ = ["EventFileWriter", "event_file_name", "VERSION", "FILE_MARK"]

_log = logging.getLogger("cellkit.train.summary")

FILE_MARK = ".out.events.summary."
VERSION = "MindSpore.Event:1"
_FREE_SPACE_FACTOR = 32
_CLOSED_MODE = stat.S_IRUSR


def event_file_name(prefix, suffix, time_second):
    """``<prefix>.out.events.summary.<seconds>.<device id>.<host name><suffix>`` (MindSpore's pattern)."""
    from ...context import get_context

    return f"{prefix}{FILE_MARK}{time_second}.{get_context('device_id')}.{platform.node()}{suffix}"


class SizeLimitReached(RuntimeWarning):
    """The next record would pass ``max_file_size``: the writer stops (MindSpore warns and stops too)."""


class EventFileWriter:
    """Appends framed records to one file, created at the first write.

    Parameters
    ----------
    path : str
    version_event : bool
        Write MindSpore's version ``Event`` as the first record (summary files;
        lineage files have none).
    max_file_size : int or None
        Bytes the file may hold (records with their framing); a record that
        does not fit raises :class:`SizeLimitReached` and nothing is written.
    """

    def __init__(self, path, version_event=False, max_file_size=None):
        self.path = path
        self._version_event = version_event
        self._budget = max_file_size
        self._file = None
        self.closed = False

    def _open(self):
        if self._file is None:
            self._file = open(self.path, "wb")
            os.chmod(self.path, stat.S_IRUSR | stat.S_IWUSR)
            if self._version_event:
                event = message_class("Event")(wall_time=time.time(), version=VERSION)
                self.write(event.SerializeToString())
        return self._file

    def write(self, data):
        """Frame ``data`` (one serialized message) and append it."""
        handle = self._open()
        required = len(data) + HEADER_BYTES + FOOTER_BYTES
        if shutil.disk_usage(os.path.dirname(self.path) or ".").free < required * _FREE_SPACE_FACTOR:
            raise RuntimeError(f"The disk space may be soon exhausted by the '{self.path}'.")
        if self._budget is not None:
            if self._budget < required:
                raise SizeLimitReached(f"'max_file_size' reached: There are {self._budget} bytes remaining, but the "
                                       f"'{self.path}' requires to write {required} bytes.")
            self._budget -= required
        handle.write(frame(data))

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self.closed:
            return
        self.closed = True
        if self._file is not None:
            self._file.close()
            try:
                os.chmod(self.path, _CLOSED_MODE)
            except FileNotFoundError:
                _log.debug("The summary file %r has been removed.", self.path)
