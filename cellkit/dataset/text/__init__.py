"""``mindspore.dataset.text``: vocabularies, tokenizers and text transforms in pure Python.

>>> import numpy as np
>>> from cellkit.dataset import text
>>> vocab = text.Vocab.from_list(["a", "b"], ["<unk>"])
>>> text.Lookup(vocab, "<unk>")(np.array(["b", "zz"]))
array([2, 0], dtype=int32)

Left out: the tokenizers and embeddings that need native libraries or downloaded models
(``JiebaTokenizer``, ``SentencePieceTokenizer``/``SentencePieceVocab``, ``FastText``, ``GloVe``,
``CharNGram``, ``Vectors``, ``ToVectors``), ``UnicodeScriptTokenizer`` (Python's Unicode database has
no script property) and ``FilterWikipediaXML``.
"""
from .transforms import (AddToken, CaseFold, Lookup, Ngram, NormalizeForm, NormalizeUTF8, PythonTokenizer,
                         RegexReplace, RegexTokenizer, SlidingWindow, ToNumber, Truncate, TruncateSequencePair,
                         UnicodeCharTokenizer, WhitespaceTokenizer, WordpieceTokenizer, to_bytes, to_str)
from .vocab import Vocab
from .bert import BasicTokenizer, BertTokenizer

__all__ = ["Vocab", "Lookup", "SlidingWindow", "ToNumber", "WhitespaceTokenizer", "UnicodeCharTokenizer", "Ngram",
           "Truncate", "TruncateSequencePair", "AddToken", "CaseFold", "RegexReplace", "RegexTokenizer",
           "PythonTokenizer", "WordpieceTokenizer", "NormalizeUTF8", "NormalizeForm", "to_str", "to_bytes",
           "BasicTokenizer", "BertTokenizer"]
