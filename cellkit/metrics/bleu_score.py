"""``BleuScore``: BLEU of candidate sentences against reference sentences."""
from __future__ import annotations

from collections import Counter

import numpy as np

from .metric import Metric, check_type, explain_errors, rearrange_inputs

__all__ = ["BleuScore"]


def _ngrams(tokens, n_gram):
    """Counts of every 1..n_gram-gram of ``tokens`` (tuples of tokens)."""
    counts = Counter()
    for n in range(1, n_gram + 1):
        for start in range(len(tokens) - n + 1):
            counts[tuple(tokens[start:start + n])] += 1
    return counts


class BleuScore(Metric):
    """Corpus BLEU: the geometric mean of clipped n-gram precisions times a brevity penalty.

    ``update(candidates, references)``: a list of token lists and, for each, a list of
    reference token lists.  Counts add up over updates.

    Parameters
    ----------
    n_gram : int
        The longest n-gram, 1 to 4.
    smooth : bool
        Add 1 to every precision's numerator and denominator.

    Raises
    ------
    TypeError
        If ``n_gram`` is not an int or ``smooth`` not a bool.
    ValueError
        If ``n_gram`` is not in 1..4.

    Examples
    --------
    >>> from cellkit.train import BleuScore
    >>> metric = BleuScore(n_gram=2)
    >>> metric.update([["the", "cat", "sat"]], [[["the", "cat", "sat", "down"]]])
    >>> round(float(metric.eval()), 4)
    0.7165
    """

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = check_type("n_gram", n_gram, [int])
        if not 1 <= self.n_gram <= 4:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, but got {n_gram}.")
        self.smooth = check_type("smooth", smooth, [bool])
        self.clear()

    def clear(self):
        """Forget every sentence."""
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._precision_scores = np.zeros(self.n_gram)
        self._c = 0.0
        self._r = 0.0
        self._trans_len = 0
        self._ref_len = 0
        self._is_update = False

    @rearrange_inputs
    @explain_errors
    def update(self, *inputs):
        """Count one batch of sentences: ``update(candidates, references)``.

        Raises
        ------
        ValueError
            Not two inputs, or not one reference list per candidate.
        """
        if len(inputs) != 2:
            raise ValueError("For 'BleuScore.update', it needs 2 inputs (candidate_corpus, reference_corpus), but got "
                             f"{len(inputs)}.")
        candidates, references_list = inputs
        if len(candidates) != len(references_list):
            raise ValueError("For 'BleuScore.update', 'translate_corpus' (inputs[0]) and 'reference_corpus' (inputs[1]) "
                             f"should be equal in length, but got {len(candidates)}, {len(references_list)}")
        for candidate, references in zip(candidates, references_list):
            self._c += len(candidate)
            lengths = [len(ref) for ref in references]
            gaps = [abs(len(candidate) - n) for n in lengths]
            self._r += lengths[gaps.index(min(gaps))]          # the closest reference length (first on ties)
            found = _ngrams(candidate, self.n_gram)
            allowed = Counter()
            for ref in references:
                allowed |= _ngrams(ref, self.n_gram)
            for gram, count in (found & allowed).items():
                self._numerator[len(gram) - 1] += count
            for gram, count in found.items():
                self._denominator[len(gram) - 1] += count
        self._trans_len = np.array(self._c)
        self._ref_len = np.array(self._r)
        self._is_update = True

    @explain_errors
    def eval(self):
        """The BLEU score (a NumPy float; a 0-d array 0.0 when some n-gram order never matched).

        Raises
        ------
        RuntimeError
            If ``update`` was not called.
        """
        if self._is_update is False:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precisions = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precisions = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.full(self.n_gram, 1.0 / self.n_gram) * np.log(precisions)))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1 - self._ref_len / self._trans_len)
        return penalty * geometric_mean
