"""``BasicTokenizer`` and ``BertTokenizer``: BERT's text splitting, in Python's Unicode database.

``BasicTokenizer`` drops control characters, turns every whitespace character into a space,
and splits on whitespace, on every punctuation character and around every CJK ideograph;
``lower_case`` also case-folds and strips accents (NFD, combining marks removed), otherwise
``normalization_form`` is applied.  ``preserve_unused_token`` keeps ``[CLS]``, ``[SEP]``,
``[UNK]``, ``[PAD]``, ``[MASK]`` and ``[unusedN]`` whole (and unchanged).  Offsets are UTF-8
byte positions in the original string.  ``BertTokenizer`` then splits each token into word
pieces of a vocabulary (:class:`WordpieceTokenizer`).

>>> from cellkit.dataset import text
>>> text.BasicTokenizer(lower_case=True)("Héllo, World!")
array(['hello', ',', 'world', '!'], dtype='<U5')
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np

from ..transforms.base import TensorOperation
from ..vision.checks import check_range, check_type
from .transforms import NormalizeForm, WordpieceTokenizer, _check_bool, _scalar_string, _string_array
from .vocab import Vocab

__all__ = ["BasicTokenizer", "BertTokenizer"]

_UNUSED = re.compile(r"\[CLS\]|\[SEP\]|\[UNK\]|\[PAD\]|\[MASK\]|\[unused\d+\]")
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
_FORMS = {1: "NFC", 2: "NFKC", 3: "NFD", 4: "NFKD"}


def _is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch):
    return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf")


def _is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch):
    cp = ord(ch)
    return any(low <= cp <= high for low, high in _CJK)


class BasicTokenizer(TensorOperation):
    """BERT's basic splitting of a string (see the module docstring)."""

    def __init__(self, lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        for name, value in (("lower_case", lower_case), ("keep_whitespace", keep_whitespace),
                            ("preserve_unused_token", preserve_unused_token), ("with_offsets", with_offsets)):
            _check_bool(value, name)
        if normalization_form not in (0, 1, 2, 3, 4) or isinstance(normalization_form, bool):
            raise TypeError(f"Argument normalization_form with value {normalization_form!r} is not of type "
                            f"[<enum 'NormalizeForm'>].")
        self.lower_case, self.keep_whitespace = lower_case, keep_whitespace
        self.normalization_form, self.preserve_unused_token = normalization_form, preserve_unused_token
        self.with_offsets = with_offsets

    def _normal(self, ch):
        if self.lower_case:
            decomposed = unicodedata.normalize("NFD", ch.casefold())
            return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
        form = _FORMS.get(int(self.normalization_form))
        return unicodedata.normalize(form, ch) if form else ch

    def _tokens(self, text):
        """(token, start char, end char) of the original string."""
        kept = {}
        if self.preserve_unused_token:
            for m in _UNUSED.finditer(text):
                kept[m.start()] = m.end()
        tokens, word, word_start = [], [], None
        space_start = None

        def close_word(end):
            nonlocal word, word_start
            if word:
                tokens.append(("".join(word), word_start, end))
            word, word_start = [], None

        def close_space(end):
            nonlocal space_start
            if space_start is not None:
                if self.keep_whitespace:
                    tokens.append((" " * (end - space_start), space_start, end))
                space_start = None

        i = 0
        while i < len(text):
            if i in kept:
                close_word(i)
                close_space(i)
                tokens.append((text[i:kept[i]], i, kept[i]))
                i = kept[i]
                continue
            ch = text[i]
            if _is_control(ch) or ch == "\ufffd" or ord(ch) == 0:
                i += 1
                continue
            if _is_whitespace(ch):
                close_word(i)
                if space_start is None:
                    space_start = i
                i += 1
                continue
            close_space(i)
            normal = self._normal(ch)
            if _is_punctuation(ch) or _is_cjk(ch):
                close_word(i)
                if normal:
                    tokens.append((normal, i, i + 1))
            elif normal:
                if word_start is None:
                    word_start = i
                word.append(normal)
            i += 1
        close_word(len(text))
        close_space(len(text))
        return tokens

    def _compute(self, array):
        text = _scalar_string(array, type(self).__name__)
        tokens = self._tokens(text)
        words = _string_array([t for t, _, _ in tokens])
        if not self.with_offsets:
            return words
        prefix = [0]
        for ch in text:
            prefix.append(prefix[-1] + len(ch.encode("utf-8")))
        starts = np.array([prefix[s] for _, s, _ in tokens] or [0], np.uint32)
        ends = np.array([prefix[e] for _, _, e in tokens] or [0], np.uint32)
        return words, starts, ends


class BertTokenizer(TensorOperation):
    """:class:`BasicTokenizer`, then each token split into word pieces of ``vocab``."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Argument vocab with value {vocab!r} is not of type [<class 'Vocab'>], "
                            f"but got {type(vocab)}.")
        check_type(max_bytes_per_token, (int,), "max_bytes_per_token")
        check_range(max_bytes_per_token, 0, 2147483647, "max_bytes_per_token")
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token, True)
        self.wordpiece = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token, unknown_token, True)
        self.with_offsets = with_offsets

    def _compute(self, array):
        words, starts, _ = self.basic._compute(array)
        tokens, token_starts, token_ends = [], [], []
        for word, start in zip(words.tolist(), starts.tolist()):
            if word == "" and len(words) == 1:
                break
            pieces, piece_starts, piece_ends = self.wordpiece._compute(np.array([word]))
            tokens += pieces.tolist()
            token_starts += [start + int(s) for s in piece_starts]
            token_ends += [start + int(e) for e in piece_ends]
        out = _string_array(tokens)
        if not self.with_offsets:
            return out
        return out, np.array(token_starts or [0], np.uint32), np.array(token_ends or [0], np.uint32)
