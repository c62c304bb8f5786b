"""``Vocab``: a mapping from words to ids, built from a list, a dict, a file or a dataset column.

>>> from cellkit.dataset import text
>>> vocab = text.Vocab.from_list(["hello", "world"], special_tokens=["<pad>"])
>>> vocab.tokens_to_ids(["world", "other"])
[2, -1]
"""
from __future__ import annotations

import collections
import os

import numpy as np

__all__ = ["Vocab"]


def _check_list_of_str(value, name):
    if not isinstance(value, list):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'list'>], but got {type(value)}.")
    for k, item in enumerate(value):
        if not isinstance(item, str):
            raise TypeError(f"Argument {name}[{k}] with value {item!r} is not of type [<class 'str'>], "
                            f"but got {type(item)}.")


def _check_special(special_tokens, special_first):
    if special_tokens is not None:
        _check_list_of_str(special_tokens, "special_tokens")
        seen = set()
        for token in special_tokens:
            if token in seen:
                raise ValueError(f"special_tokens contains duplicate word: {token}.")
            seen.add(token)
    if not isinstance(special_first, bool):
        raise TypeError(f"Argument special_first with value {special_first!r} is not of type [<class 'bool'>], "
                        f"but got {type(special_first)}.")
    return list(special_tokens or [])


def _with_specials(words, specials, special_first):
    clash = set(words) & set(specials)
    if clash:
        raise ValueError(f"special_tokens and word_list contain duplicate word :{clash}.")
    ordered = specials + words if special_first else words + specials
    return {word: index for index, word in enumerate(ordered)}


class Vocab:
    """Words and their ids (MindSpore's ``text.Vocab``); build one with a ``from_*`` class method."""

    def __init__(self):
        self._ids = {}
        self._words = {}

    @classmethod
    def _of(cls, mapping):
        vocab = cls()
        vocab._ids = dict(mapping)
        vocab._words = {}
        for word, index in vocab._ids.items():
            vocab._words.setdefault(index, word)
        return vocab

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order; ``special_tokens`` take the first ids (or the last ones)."""
        _check_list_of_str(word_list, "word_list")
        seen = set()
        for word in word_list:
            if word in seen:
                raise ValueError(f"word_list contains duplicate word: {word}.")
            seen.add(word)
        specials = _check_special(special_tokens, special_first)
        return cls._of(_with_specials(list(word_list), specials, special_first))

    @classmethod
    def from_dict(cls, word_dict):
        """The given word -> id mapping (ids non-negative integers)."""
        if not isinstance(word_dict, dict):
            raise TypeError(f"Argument word_dict with value {word_dict!r} is not of type [<class 'dict'>], "
                            f"but got {type(word_dict)}.")
        for word, index in word_dict.items():
            if not isinstance(word, str):
                raise TypeError(f"Argument word with value {word!r} is not of type [<class 'str'>], "
                                f"but got {type(word)}.")
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError(f"Argument word_id with value {index!r} is not of type [<class 'int'>], "
                                f"but got {type(index)}.")
            if not 0 <= index <= 2147483647:
                raise ValueError(f"Input word_id is not within the required interval of [0, 2147483647].")
        return cls._of(word_dict)

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None, special_first=True):
        """One word per line (the text before ``delimiter`` when given), the first ``vocab_size`` lines."""
        if not isinstance(file_path, str):
            raise TypeError(f"Argument file_path with value {file_path!r} is not of type [<class 'str'>], "
                            f"but got {type(file_path)}.")
        if not os.path.isfile(file_path):
            raise ValueError(f"The file {file_path} does not exist or permission denied!")
        if not isinstance(delimiter, str):
            raise TypeError(f"Argument delimiter with value {delimiter!r} is not of type [<class 'str'>], "
                            f"but got {type(delimiter)}.")
        if vocab_size is not None and (not isinstance(vocab_size, int) or isinstance(vocab_size, bool)
                                       or vocab_size <= 0):
            raise ValueError(f"Input vocab_size must be a positive integer, but got {vocab_size!r}.")
        specials = _check_special(special_tokens, special_first)
        words = []
        with open(file_path, encoding="utf-8") as handle:
            for line in handle:
                line = line.rstrip("\r\n")
                word = line.split(delimiter, 1)[0] if delimiter else line
                if word in words:
                    raise RuntimeError(f"from_file: word_list contains duplicate word: {word} in {file_path}.")
                words.append(word)
                if vocab_size is not None and len(words) >= vocab_size:
                    break
        return cls._of(_with_specials(words, specials, special_first))

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None,
                     special_first=True):
        """The words of string ``columns`` of ``dataset``, most frequent first (ties in word order),
        those whose count is within ``freq_range`` (min, max), at most ``top_k`` of them."""
        if isinstance(columns, str):
            columns = [columns]
        if columns is not None:
            _check_list_of_str(columns, "columns")
        low, high = 0, None
        if freq_range is not None:
            if not isinstance(freq_range, tuple) or len(freq_range) != 2:
                raise ValueError(f"freq_range needs to be a tuple of 2 elements, but got {freq_range!r}.")
            low, high = freq_range
            low = 0 if low is None else low
            for name, v in (("freq_range[0]", low), ("freq_range[1]", high)):
                if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                    raise ValueError(f"Input {name} is not within the required interval of [0, 2147483647].")
            if high is not None and low > high:
                raise ValueError(f"frequency range [a,b] should be 0 <= a <= b (a,b are inclusive), "
                                 f"but got {freq_range}.")
        if top_k is not None and (not isinstance(top_k, int) or isinstance(top_k, bool) or top_k <= 0):
            raise ValueError(f"Input top_k is not within the required interval of [1, 2147483647].")
        specials = _check_special(special_tokens, special_first)
        names = dataset.get_col_names()
        chosen = names if columns is None else columns
        for column in chosen:
            if column not in names:
                raise RuntimeError(f"from_dataset: column {column!r} does not exist in the dataset (columns "
                                   f"{names}).")
        counts = collections.Counter()
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for column in chosen:
                value = np.asarray(row[column])
                if value.dtype.kind not in "US":
                    raise RuntimeError(f"from_dataset: column {column!r} holds {value.dtype}, not strings.")
                for word in value.reshape(-1).tolist():
                    counts[word.decode() if isinstance(word, bytes) else word] += 1
        kept = [(w, c) for w, c in counts.items() if c >= low and (high is None or c <= high)]
        kept.sort(key=lambda wc: (-wc[1], wc[0]))
        if top_k is not None:
            kept = kept[:top_k]
        return cls._of(_with_specials([w for w, _ in kept], specials, special_first))

    def vocab(self):
        """The word -> id dict."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """The id of a word (or a list of ids); -1 for unknown words."""
        if isinstance(tokens, np.ndarray):
            tokens = tokens.tolist()
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        if not isinstance(tokens, list):
            raise TypeError(f"Argument tokens with value {tokens!r} is not of type [<class 'list'>, "
                            f"<class 'numpy.ndarray'>, <class 'str'>], but got {type(tokens)}.")
        return [self._ids.get(t, -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """The word of an id (or a list of words); '' for unknown ids."""
        if isinstance(ids, np.ndarray):
            ids = ids.tolist()
        if isinstance(ids, int) and not isinstance(ids, bool):
            if ids < 0:
                raise ValueError(f"Input ids is not within the required interval of [0, 2147483647].")
            return self._words.get(ids, "")
        if not isinstance(ids, list):
            raise TypeError(f"Argument ids with value {ids!r} is not of type [<class 'list'>, "
                            f"<class 'numpy.ndarray'>, <class 'int'>], but got {type(ids)}.")
        for i in ids:
            if not isinstance(i, int) or i < 0:
                raise ValueError(f"Input ids is not within the required interval of [0, 2147483647].")
        return [self._words.get(i, "") for i in ids]

    def __len__(self):
        return len(self._ids)

    def __repr__(self):
        return f"Vocab(size={len(self._ids)})"
