"""The small rules behind ``ModelCheckpoint``: where files go, what they are called, when one is due, which stay.

Each rule is a function or a small class that knows one thing:

* :func:`_ensure_folder` turns the ``directory`` a user gave into an absolute folder that exists;
* :func:`_free_prefix` picks ``CKP``, ``CKP_1``, ``CKP_2`` ... so that a new run never mixes its
  files with those an earlier run left in the same folder;
* :func:`_periodic_file_name` and :func:`_breakpoint_file_name` spell the file names;
* :class:`_SaveSchedule` answers "should this step be saved?" (every N steps, or every N seconds);
* :class:`_Retention` deletes old files before a new one is written (keep the newest N, or keep
  one file per N minutes).

``ModelCheckpoint`` (in ``checkpoint_callback.py``) only wires them together.

>>> _periodic_file_name("net", epoch=2, step_in_epoch=5, extension="ckpt")
'net-2_5.ckpt'
>>> _breakpoint_file_name("net", epoch=1, step_in_epoch=3)
'net-1_3_breakpoint.ckpt'
"""
from __future__ import annotations

import os
import time

_BREAKPOINT_TAIL = "_breakpoint.ckpt"
_SAVED_EXTENSIONS = (".ckpt", ".safetensors")


# --------------------------------------------------------------------------------------------- folders and names


def _ensure_folder(path, arg_name="path"):
    """Create ``path`` if needed and give back its absolute, symlink-free form.

    ``arg_name`` is the user's argument name, used in the error message.
    """
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"The '{arg_name}' should be a non-empty string, but got {path!r}.")
    absolute = os.path.realpath(os.path.expanduser(path))
    try:
        os.makedirs(absolute, exist_ok=True)
    except OSError as exc:  # a plain file already has that name, no permission, a name the disk refuses ...
        raise ValueError(f"The '{arg_name}' must be a folder that exists or can be created, but got {path!r}: "
                         f"the directory {absolute!r} cannot be created ({exc})") from None
    return absolute


def _counts_for_runs(file_name, breakpoints):
    """Whether ``file_name`` is the kind of file whose prefix marks a run (periodic or breakpoint)."""
    is_breakpoint = file_name.endswith(_BREAKPOINT_TAIL)
    if breakpoints:
        return is_breakpoint
    return not is_breakpoint and os.path.splitext(file_name)[1] in _SAVED_EXTENSIONS


def _run_index(tail):
    """The run number written just after the prefix, or None when ``tail`` does not look like one.

    ``tail`` is what follows the prefix in a file name: ``-3_7.ckpt`` was written by the first
    run (0), ``_2-3_7.ckpt`` by run 2.
    """
    dash = tail.find("-")
    if dash == 0:
        return 0
    digits = tail[1:dash] if dash > 0 else ""
    return int(digits) if digits.isdigit() else None


def _free_prefix(folder, prefix, breakpoints=False):
    """``prefix`` if no earlier run used it in ``folder``, else ``prefix_<one more than the last run>``.

    With ``breakpoints=True`` only ``*_breakpoint.ckpt`` files are looked at; otherwise only the
    periodic ``.ckpt`` / ``.safetensors`` files.
    """
    last_run = None
    for file_name in os.listdir(folder):
        if not _counts_for_runs(file_name, breakpoints) or not file_name.startswith(prefix):
            continue
        tail = file_name[len(prefix):]
        if not tail or tail[0].isalpha():  # "netA-1_1.ckpt" belongs to the prefix "netA", not "net"
            continue
        run = _run_index(tail)
        if run is not None and (last_run is None or run > last_run):
            last_run = run
    return prefix if last_run is None else f"{prefix}_{last_run + 1}"


def _periodic_file_name(prefix, epoch, step_in_epoch, extension):
    """``<prefix>-<epoch>_<step in epoch>.<extension>``."""
    return f"{prefix}-{epoch}_{step_in_epoch}.{extension}"


def _breakpoint_file_name(prefix, epoch, step_in_epoch):
    """The file written when training raises: ``<prefix>-<epoch>_<step>_breakpoint.ckpt``."""
    return f"{prefix}-{epoch}_{step_in_epoch}{_BREAKPOINT_TAIL}"


# --------------------------------------------------------------------------------------------- when to save


class _SaveSchedule:
    """Decides whether the step that just ended should be saved.

    Saving by steps wins when ``every_steps`` is positive; otherwise saving by time is used when
    ``every_seconds`` is positive; with neither, nothing is ever due (not even at the end).
    A step already saved is never saved twice.

    >>> schedule = _SaveSchedule(every_steps=3, every_seconds=None)
    >>> schedule.due(2), schedule.due(3)
    (False, True)
    >>> schedule.saved(3)
    >>> schedule.due(5), schedule.due(6), schedule.due(5, at_end=True)
    (False, True, True)
    """

    def __init__(self, every_steps, every_seconds):
        self._every_steps = every_steps if every_steps and every_steps > 0 else 0
        self._every_seconds = every_seconds if every_seconds and every_seconds > 0 else 0
        self._clock_start = time.time()  # by-time saving counts from here, then from each due check
        self._saved_step = 0

    def due(self, step, at_end=False):
        """True when ``step`` should be saved now (``at_end``: the run is over, save if the mode allows)."""
        if step == self._saved_step:
            return False
        if self._every_steps:
            return at_end or step >= self._saved_step + self._every_steps
        if self._every_seconds:
            now = time.time()
            if at_end or now - self._clock_start > self._every_seconds:
                self._clock_start = now
                return True
        return False

    def saved(self, step):
        """Remember that ``step`` was written."""
        self._saved_step = step


# --------------------------------------------------------------------------------------------- which files stay


class _Retention:
    """Before a new file of ``prefix`` is written to ``folder``, delete the files that should go.

    ``keep_newest`` (when positive): once that many files of the prefix exist, the one with the
    oldest modification time is deleted.  Otherwise ``one_per_minutes`` (when positive): if the
    previous save was less than that many minutes ago, of the files written in the last
    ``one_per_minutes`` minutes only the oldest is kept.

    Files of the prefix are ``<prefix>-<numbers>.<extension>``; a file with a letter after the
    prefix (a breakpoint file, another prefix) is never touched.
    """

    def __init__(self, keep_newest, one_per_minutes, extension):
        self._keep_newest = keep_newest if keep_newest and keep_newest > 0 else 0
        self._window = 60 * one_per_minutes if one_per_minutes and one_per_minutes > 0 else 0
        self._extension = f".{extension}"
        self._previous_save = time.time()

    def _files_of(self, folder, prefix):
        found = []
        for file_name in os.listdir(folder):
            if not file_name.startswith(prefix + "-") or os.path.splitext(file_name)[1] != self._extension:
                continue
            numbers = file_name[len(prefix):-len(self._extension)]
            if not any(char.isalpha() for char in numbers):
                found.append(os.path.join(folder, file_name))
        return found

    @staticmethod
    def _delete(path):
        try:
            os.remove(path)
        except OSError:  # already gone, or not ours to delete: nothing to do
            pass

    def _thin_recent(self, files, now):
        """Of the files modified less than the window ago, keep only the oldest."""
        recent, survivor, survivor_time = [], "", now
        for path in files:
            modified = os.path.getmtime(path)
            if now - modified >= self._window:
                continue
            recent.append(path)
            if modified < survivor_time:
                survivor, survivor_time = path, modified
        for path in recent:
            if path != survivor:
                self._delete(path)

    def make_room(self, folder, prefix):
        """Apply the rule to ``folder``; call it just before writing the next file."""
        files = self._files_of(folder, prefix)
        if self._keep_newest and len(files) >= self._keep_newest:
            self._delete(min(files, key=os.path.getmtime))
        elif self._window:
            now = time.time()
            if now - self._previous_save < self._window:
                self._thin_recent(files, now)
        self._previous_save = time.time()
