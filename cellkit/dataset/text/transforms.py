"""The text transforms: tokenizers, ``Lookup``, ``Ngram``, ``SlidingWindow``, ``ToNumber`` and the
string helpers, on NumPy string arrays as MindSpore's text operations take and give them.

Offsets (``with_offsets=True``) count UTF-8 bytes, as MindSpore's do: a tokenizer then returns
(tokens, offsets_start, offsets_limit) with uint32 offsets.

>>> import numpy as np
>>> from cellkit.dataset import text
>>> text.WhitespaceTokenizer()("the quick  fox")
array(['the', 'quick', 'fox'], dtype='<U5')
>>> text.SlidingWindow(2)(np.array([1, 2, 3]))
array([[1, 2],
       [2, 3]])
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np

from ... import dtype as _mstype
from ..transforms.base import TensorOperation
from ..transforms.tensor_ops import numpy_dtype
from ..vision.checks import check_range, check_type
from .vocab import Vocab

__all__ = ["Lookup", "SlidingWindow", "ToNumber", "WhitespaceTokenizer", "UnicodeCharTokenizer", "Ngram",
           "Truncate", "TruncateSequencePair", "AddToken", "CaseFold", "RegexReplace", "RegexTokenizer",
           "PythonTokenizer", "WordpieceTokenizer", "NormalizeUTF8", "NormalizeForm", "to_str", "to_bytes"]


def _strings(array, name):
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    if array.dtype.kind != "U":
        raise RuntimeError(f"{name}: the input should be of type string, but got {array.dtype}.")
    return array


def _scalar_string(array, name):
    array = _strings(array, name)
    if array.ndim != 0:
        raise RuntimeError(f"{name}: the input tensor should be scalar string tensor, but got rank: {array.ndim}")
    return str(array)


def _string_array(tokens):
    return np.array(tokens if tokens else [""])


def _byte_offsets(text, spans):
    """Character (start, end) spans as UTF-8 byte offsets (two uint32 arrays)."""
    prefix = [0]
    for ch in text:
        prefix.append(prefix[-1] + len(ch.encode("utf-8")))
    starts = np.array([prefix[s] for s, _ in spans] or [0], np.uint32)
    ends = np.array([prefix[e] for _, e in spans] or [0], np.uint32)
    return starts, ends


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'bool'>], "
                        f"but got {type(value)}.")


class _Tokenizer(TensorOperation):
    """A tokenizer of one string: ``_spans(text)`` gives the (start, end) character spans of its tokens."""

    def __init__(self, with_offsets=False):
        _check_bool(with_offsets, "with_offsets")
        self.with_offsets = with_offsets

    def _compute(self, array):
        text = _scalar_string(array, type(self).__name__)
        spans = self._spans(text)
        tokens = _string_array([text[s:e] for s, e in spans])
        if not self.with_offsets:
            return tokens
        starts, ends = _byte_offsets(text, spans)
        return tokens, starts, ends


class WhitespaceTokenizer(_Tokenizer):
    """Split a string at runs of whitespace."""

    def _spans(self, text):
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """Split a string into its characters (code points)."""

    def _spans(self, text):
        return [(k, k + 1) for k in range(len(text))]


class RegexTokenizer(_Tokenizer):
    """Split a string at matches of ``delim_pattern``; delimiters that match ``keep_delim_pattern``
    are kept as tokens."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        check_type(delim_pattern, (str,), "delim_pattern")
        check_type(keep_delim_pattern, (str,), "keep_delim_pattern")
        super().__init__(with_offsets)
        self.delim_pattern, self.keep_delim_pattern = delim_pattern, keep_delim_pattern
        self._delim = re.compile(delim_pattern)
        self._keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text):
        spans, start = [], 0
        for m in self._delim.finditer(text):
            if m.start() == m.end():
                continue
            if m.start() > start:
                spans.append((start, m.start()))
            if self._keep is not None and self._keep.fullmatch(m.group()):
                spans.append(m.span())
            start = m.end()
        if start < len(text):
            spans.append((start, len(text)))
        return spans


class PythonTokenizer(TensorOperation):
    """Tokenize a string with a Python function returning a list of strings."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError(f"tokenizer is not a callable Python function, but got {tokenizer!r}.")
        self.tokenizer = tokenizer

    def __call__(self, text):
        if not isinstance(text, np.ndarray):
            raise TypeError(f"input should be a NumPy array. Got {type(text)}.")
        return self._compute(text)

    def _compute(self, array):
        array = _strings(array, "PythonTokenizer")
        return _string_array(list(self.tokenizer(str(array))))


class WordpieceTokenizer(_Tokenizer):
    """Split each word of a 1-D string array into the longest pieces found in ``vocab`` (pieces after
    the first carry ``suffix_indicator``); a word that cannot be split becomes ``unknown_token``
    (or stays whole when ``unknown_token`` is '')."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 with_offsets=False):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Argument vocab with value {vocab!r} is not of type [<class 'Vocab'>], "
                            f"but got {type(vocab)}.")
        check_type(suffix_indicator, (str,), "suffix_indicator")
        check_type(max_bytes_per_token, (int,), "max_bytes_per_token")
        check_range(max_bytes_per_token, 0, 2147483647, "max_bytes_per_token")
        check_type(unknown_token, (str,), "unknown_token")
        super().__init__(with_offsets)
        self.vocab, self.suffix_indicator = vocab, suffix_indicator
        self.max_bytes_per_token, self.unknown_token = max_bytes_per_token, unknown_token

    def _pieces(self, word):
        known = self.vocab._ids
        if len(word.encode("utf-8")) > self.max_bytes_per_token:
            return None
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.suffix_indicator + word[start:end]
                if piece in known:
                    pieces.append((piece, start, end))
                    break
                end -= 1
            if end == start:
                return None
            start = end
        return pieces

    def _compute(self, array):
        words = _strings(array, "WordpieceTokenizer")
        if words.ndim != 1:
            raise RuntimeError(f"WordpieceTokenizer: the input tensor should be 1-D, but got rank: {words.ndim}")
        tokens, starts, ends = [], [], []
        for word in words.tolist():
            pieces = self._pieces(word)
            nbytes = len(word.encode("utf-8"))
            if pieces is None:
                tokens.append(self.unknown_token or word)
                starts.append(0)
                ends.append(nbytes)
                continue
            for piece, s, e in pieces:
                tokens.append(piece)
                starts.append(len(word[:s].encode("utf-8")))
                ends.append(len(word[:e].encode("utf-8")))
        out = _string_array(tokens)
        if not self.with_offsets:
            return out
        return out, np.array(starts or [0], np.uint32), np.array(ends or [0], np.uint32)


class Lookup(TensorOperation):
    """Words to their ids in ``vocab`` (``unknown_token``'s id for unknown words), as ``data_type``."""

    def __init__(self, vocab, unknown_token=None, data_type=_mstype.int32):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Argument vocab with value {vocab!r} is not of type [<class 'Vocab'>], "
                            f"but got {type(vocab)}.")
        if unknown_token is not None:
            check_type(unknown_token, (str,), "unknown_token")
        self.vocab, self.unknown_token = vocab, unknown_token
        self.data_type = numpy_dtype(data_type)
        if self.data_type.kind not in "iuf":
            raise TypeError(f"Lookup: data_type should be numeric, but got {data_type}.")

    def _compute(self, array):
        words = _strings(array, "Lookup")
        known = self.vocab._ids
        default = None
        if self.unknown_token is not None:
            if self.unknown_token not in known:
                raise RuntimeError(f"Lookup: {self.unknown_token} doesn't exist in vocab.")
            default = known[self.unknown_token]
        flat = []
        for word in words.reshape(-1).tolist():
            index = known.get(word, default)
            if index is None:
                raise RuntimeError(f"Lookup: invalid data, token: \"{word}\" doesn't exist in vocab and "
                                   f"no unknown token is specified.")
            flat.append(index)
        return np.array(flat, dtype=self.data_type).reshape(words.shape)


class SlidingWindow(TensorOperation):
    """The windows of ``width`` consecutive elements of a 1-D array, as rows of a 2-D array."""

    def __init__(self, width, axis=0):
        check_type(width, (int,), "width")
        check_range(width, 1, 2147483647, "width")
        check_type(axis, (int,), "axis")
        self.width, self.axis = width, axis

    def _compute(self, array):
        if array.ndim != 1:
            raise RuntimeError(f"SlidingWindow: SlidingWindow supports 1D input only for now, but got {array.ndim}D.")
        if self.axis not in (0, -1):
            raise RuntimeError(f"SlidingWindow: axis {self.axis} is out of the input's dimensions.")
        if array.shape[0] < self.width:
            return np.zeros(0, array.dtype)
        windows = np.lib.stride_tricks.sliding_window_view(array, self.width)
        return np.ascontiguousarray(windows)


_INT_PREFIX = re.compile(r"\s*[+-]?\d+")
_FLOAT_PREFIX = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)


class ToNumber(TensorOperation):
    """Strings to numbers of ``data_type`` (out-of-range or unreadable strings are refused)."""

    def __init__(self, data_type):
        try:
            self.data_type = numpy_dtype(data_type)
        except TypeError:
            raise TypeError(f"data_type: {data_type} is not numeric data type.") from None
        if self.data_type.kind not in "iuf":
            raise TypeError(f"data_type: {data_type} is not numeric data type.")

    def _compute(self, array):
        words = _strings(array, "ToNumber")
        out = np.empty(words.shape, self.data_type)
        flat = out.reshape(-1)
        for k, word in enumerate(words.reshape(-1).tolist()):
            flat[k] = self._number(word)
        return out

    def _number(self, word):
        dtype = self.data_type
        if dtype.kind in "iu":
            match = _INT_PREFIX.match(word)
            if not match:
                raise RuntimeError(f"ToNumber: string input {word} is not a valid integer.")
            value = int(match.group())
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise RuntimeError(f"ToNumber: string input {word} will be out of bounds if cast to {dtype}. "
                                   f"The valid range is: [{info.min}, {info.max}].")
            return value
        match = _FLOAT_PREFIX.match(word)
        if not match:
            raise RuntimeError(f"ToNumber: string input {word} is not a valid floating point number.")
        value = float(match.group())
        info = np.finfo(dtype)
        if np.isfinite(value) and abs(value) > info.max:
            raise RuntimeError(f"ToNumber: string input {word} will be out of bounds if cast to {dtype}. "
                               f"The valid range is: [{-info.max}, {info.max}].")
        return value


def _check_pad(pad, name):
    if not isinstance(pad, tuple) or len(pad) != 2 or not isinstance(pad[0], str) or \
            not isinstance(pad[1], int) or isinstance(pad[1], bool):
        raise TypeError(f"{name} should be a tuple of (str, int), but got {pad!r}.")
    if pad[1] < 0:
        raise ValueError(f"padding width need to be positive numbers, but got {pad[1]}.")
    return pad


class Ngram(TensorOperation):
    """The n-grams (for each n of ``n``) of a 1-D string array, padded at both ends, joined by ``separator``."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        ns = [n] if isinstance(n, int) and not isinstance(n, bool) else n
        if not isinstance(ns, list) or not ns:
            raise TypeError(f"n should be an int or a non-empty list of ints, but got {n!r}.")
        for k, v in enumerate(ns):
            check_type(v, (int,), f"n[{k}]")
            check_range(v, 1, 2147483647, f"gram[{k}]")
        self.n = list(ns)
        self.left_pad, self.right_pad = _check_pad(left_pad, "left_pad"), _check_pad(right_pad, "right_pad")
        check_type(separator, (str,), "separator")
        self.separator = separator

    def _compute(self, array):
        words = _strings(array, "Ngram")
        if words.ndim != 1:
            raise RuntimeError(f"Ngram: input tensor must be 1-D, but got rank: {words.ndim}")
        words = words.tolist()
        grams = []
        for n in self.n:
            left = [self.left_pad[0]] * min(self.left_pad[1], n - 1)
            right = [self.right_pad[0]] * min(self.right_pad[1], n - 1)
            padded = left + words + right
            grams += [self.separator.join(padded[i:i + n]) for i in range(len(padded) - n + 1)]
        return _string_array(grams)


class Truncate(TensorOperation):
    """The first ``max_seq_len`` elements of a 1-D (or the last axis of a 2-D) array."""

    def __init__(self, max_seq_len):
        check_type(max_seq_len, (int,), "max_seq_len")
        check_range(max_seq_len, 1, 2147483647, "max_seq_len")
        self.max_seq_len = max_seq_len

    def _compute(self, array):
        if array.ndim not in (1, 2):
            raise RuntimeError(f"Truncate: the input tensor should be of dimension 1 or 2, but got {array.ndim}.")
        return array[..., :self.max_seq_len].copy()


class TruncateSequencePair(TensorOperation):
    """Shorten the longer of two 1-D arrays, one element at a time, until both fit in ``max_length``."""

    def __init__(self, max_length):
        check_type(max_length, (int,), "max_length")
        check_range(max_length, 0, 2147483647, "max_length")
        self.max_length = max_length

    def _compute(self, first, second):
        for a in (first, second):
            if a.ndim != 1:
                raise RuntimeError(f"TruncateSequencePair: the input tensors should be 1-D, but got rank {a.ndim}.")
        n1, n2 = len(first), len(second)
        while n1 + n2 > self.max_length:
            if n1 > n2:
                n1 -= 1
            else:
                n2 -= 1
        return first[:n1].copy(), second[:n2].copy()


class AddToken(TensorOperation):
    """``token`` added at the beginning (or the end) of a 1-D string array."""

    def __init__(self, token, begin=True):
        check_type(token, (str,), "token")
        _check_bool(begin, "begin")
        self.token, self.begin = token, begin

    def _compute(self, array):
        words = _strings(array, "AddToken")
        if words.ndim != 1:
            raise RuntimeError(f"AddToken: input tensor rank should be 1, but got {words.ndim}.")
        words = words.tolist()
        return np.array([self.token] + words if self.begin else words + [self.token])


def _map_strings(array, name, fn):
    words = _strings(array, name)
    flat = [fn(w) for w in words.reshape(-1).tolist()]
    return np.array(flat or [""], dtype=str).reshape(words.shape) if flat else words.copy()


class CaseFold(TensorOperation):
    """Unicode case folding with compatibility normalization (``"Straße"`` -> ``"strasse"``)."""

    def _compute(self, array):
        return _map_strings(array, "CaseFold",
                            lambda s: unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", s).casefold()))


class NormalizeForm:
    """Unicode normalization forms of :class:`NormalizeUTF8`."""
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class NormalizeUTF8(TensorOperation):
    """Unicode normalization of every string (``NormalizeForm.NFC``, ``NFKC``, ``NFD``, ``NFKD`` or ``NONE``)."""

    _FORMS = {1: "NFC", 2: "NFKC", 3: "NFD", 4: "NFKD"}

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if normalize_form not in (0, 1, 2, 3, 4) or isinstance(normalize_form, bool):
            raise TypeError(f"Argument normalize_form with value {normalize_form!r} is not of type "
                            f"[<enum 'NormalizeForm'>].")
        self.normalize_form = normalize_form

    def _compute(self, array):
        form = self._FORMS.get(int(self.normalize_form))
        return _map_strings(array, "NormalizeUTF8", (lambda s: s) if form is None
                            else (lambda s: unicodedata.normalize(form, s)))


def _python_replacement(replace):
    # ICU writes group references as $1; Python's re as \g<1>
    return re.sub(r"\$(\d+)", r"\\g<\1>", replace.replace("\\", "\\\\"))


class RegexReplace(TensorOperation):
    """Replace matches of ``pattern`` with ``replace`` in every string (all matches, or the first)."""

    def __init__(self, pattern, replace, replace_all=True):
        check_type(pattern, (str,), "pattern")
        check_type(replace, (str,), "replace")
        _check_bool(replace_all, "replace_all")
        self.pattern, self.replace, self.replace_all = pattern, replace, replace_all
        self._regex = re.compile(pattern)
        self._replacement = _python_replacement(replace)

    def _compute(self, array):
        count = 0 if self.replace_all else 1
        return _map_strings(array, "RegexReplace", lambda s: self._regex.sub(self._replacement, s, count=count))


def to_str(array, encoding="utf8"):
    """A NumPy array of bytes strings decoded to str."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array, but got {type(array)}.")
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8"):
    """A NumPy array of str encoded to bytes strings."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"input should be a NumPy array, but got {type(array)}.")
    return np.char.encode(array, encoding)
