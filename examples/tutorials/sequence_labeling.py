"""Sequence labelling with a BiLSTM and a CRF: the steps of tutorials/source_en/nlp/sequence_labeling.md.

The CRF's score of a tag path, its normaliser (log-sum-exp over all paths, by the forward
algorithm) and Viterbi decoding written with ``ops`` and ``mindspore.numpy``; a CRF Cell with
``sequence_mask``; the BiLSTM-CRF (Embedding, bidirectional LSTM with ``seq_length``, Dense, CRF);
a word and tag vocabulary, padded batches, training with value_and_grad and SGD, then decoding
and mapping the best paths back to tags.

The tutorial's two sentences are replaced by a few generated ones (entity names tagged B/I among
other words tagged O) of several lengths, so padding and the masks matter.  Three training steps
instead of 500 (the CRF's Python loops make each step slow on MindSpore's PyNative CPU backend:
recording 120 steps there took over ten minutes), so the decoded paths are those of a barely
trained model; cellkit runs 120 steps in about a second.  The weights start from fixed NumPy
values so that MindSpore and cellkit print the same losses and paths.
"""
import numpy as np

import cellkit as ms
import cellkit.nn as nn
import cellkit.ops as ops
import cellkit.numpy as mnp
from cellkit.common.initializer import initializer, Uniform


def path_score(emissions, tags, seq_ends, mask, trans, start_trans, end_trans):
    """Score of the given tag paths: start + emissions + transitions (masked) + end.  Time-major."""
    seq_length, batch_size = tags.shape
    mask = mask.astype(emissions.dtype)
    batch = mnp.arange(batch_size)
    score = start_trans[tags[0]]
    score += emissions[0, batch, tags[0]]
    for i in range(1, seq_length):
        score += trans[tags[i - 1], tags[i]] * mask[i]
        score += emissions[i, batch, tags[i]] * mask[i]
    last_tags = tags[seq_ends, batch]
    score += end_trans[last_tags]
    return score


def log_partition(emissions, mask, trans, start_trans, end_trans):
    """log of the summed exp-scores of every path (the forward algorithm)."""
    seq_length = emissions.shape[0]
    score = start_trans + emissions[0]
    for i in range(1, seq_length):
        candidates = score.expand_dims(2) + trans + emissions[i].expand_dims(1)
        candidates = ops.logsumexp(candidates, dim=1)
        score = mnp.where(mask[i].expand_dims(1), candidates, score)
    score += end_trans
    return ops.logsumexp(score, dim=1)


def viterbi_decode(emissions, mask, trans, start_trans, end_trans):
    """Best final scores and, per step, the best previous tag of every tag."""
    seq_length = mask.shape[0]
    score = start_trans + emissions[0]
    history = ()
    for i in range(1, seq_length):
        candidates = score.expand_dims(2) + trans + emissions[i].expand_dims(1)
        history += (candidates.argmax(axis=1),)
        best = candidates.max(axis=1)
        score = mnp.where(mask[i].expand_dims(1), best, score)
    score += end_trans
    return score, history


def post_decode(score, history, seq_length):
    """Follow the back-pointers from each sequence's best last tag."""
    best_paths = []
    seq_ends = seq_length - 1
    for idx in range(seq_length.shape[0]):
        tag = score[idx].argmax(axis=0)
        path = [int(tag.asnumpy())]
        for hist in reversed(history[:seq_ends[idx]]):
            tag = hist[idx][path[-1]]
            path.append(int(tag.asnumpy()))
        best_paths.append(path[::-1])
    return best_paths


def sequence_mask(seq_length, max_length, batch_first=False):
    """1 where a position is inside its sequence, 0 in the padding."""
    positions = mnp.arange(0, max_length, 1, seq_length.dtype)
    result = positions < seq_length.view(seq_length.shape + (1,))
    if batch_first:
        return result.astype(ms.int64)
    return result.astype(ms.int64).swapaxes(0, 1)


class CRF(nn.Cell):
    def __init__(self, num_tags: int, batch_first: bool = False, reduction: str = "sum") -> None:
        if num_tags <= 0:
            raise ValueError(f"invalid number of tags: {num_tags}")
        super().__init__()
        if reduction not in ("none", "sum", "mean", "token_mean"):
            raise ValueError(f"invalid reduction: {reduction}")
        self.num_tags = num_tags
        self.batch_first = batch_first
        self.reduction = reduction
        self.start_transitions = ms.Parameter(initializer(Uniform(0.1), (num_tags,)), name="start_transitions")
        self.end_transitions = ms.Parameter(initializer(Uniform(0.1), (num_tags,)), name="end_transitions")
        self.transitions = ms.Parameter(initializer(Uniform(0.1), (num_tags, num_tags)), name="transitions")

    def construct(self, emissions, tags=None, seq_length=None):
        if tags is None:
            return self._decode(emissions, seq_length)
        return self._forward(emissions, tags, seq_length)

    def _forward(self, emissions, tags=None, seq_length=None):
        if self.batch_first:
            batch_size, max_length = tags.shape
            emissions = emissions.swapaxes(0, 1)
            tags = tags.swapaxes(0, 1)
        else:
            max_length, batch_size = tags.shape
        if seq_length is None:
            seq_length = mnp.full((batch_size,), max_length, ms.int64)
        mask = sequence_mask(seq_length, max_length)
        numerator = path_score(emissions, tags, seq_length - 1, mask, self.transitions,
                               self.start_transitions, self.end_transitions)
        denominator = log_partition(emissions, mask, self.transitions, self.start_transitions,
                                    self.end_transitions)
        nll = denominator - numerator
        if self.reduction == "none":
            return nll
        if self.reduction == "sum":
            return nll.sum()
        if self.reduction == "mean":
            return nll.mean()
        return nll.sum() / mask.astype(emissions.dtype).sum()

    def _decode(self, emissions, seq_length=None):
        batch_size, max_length = emissions.shape[:2]
        if self.batch_first:
            emissions = emissions.swapaxes(0, 1)
        if seq_length is None:
            seq_length = mnp.full((batch_size,), max_length, ms.int64)
        mask = sequence_mask(seq_length, max_length)
        return viterbi_decode(emissions, mask, self.transitions, self.start_transitions, self.end_transitions)


class BiLSTM_CRF(nn.Cell):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, num_tags, padding_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=padding_idx)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim // 2, bidirectional=True, batch_first=True)
        self.hidden2tag = nn.Dense(hidden_dim, num_tags, "he_uniform")
        self.crf = CRF(num_tags, batch_first=True)

    def construct(self, inputs, seq_length, tags=None):
        embeds = self.embedding(inputs)
        outputs, _ = self.lstm(embeds, seq_length=seq_length)
        feats = self.hidden2tag(outputs)
        return self.crf(feats, tags, seq_length)


def make_sentences(count=6, seed=0):
    """Sentences of plain words (tag O) with one or two names of one to three words (B, I, I)."""
    rng = np.random.default_rng(seed)
    names = ["georgia", "tech", "apple", "corporation", "wall", "street", "journal", "new", "york", "times"]
    words = ["the", "reported", "today", "that", "made", "money", "is", "a", "university", "in", "said", "of"]
    data = []
    for _ in range(count):
        sentence, tags = [], []
        for part in range(int(rng.integers(2, 5))):
            if part % 2 == 0:
                name = list(rng.choice(names, size=int(rng.integers(1, 4)), replace=False))
                sentence += name
                tags += ["B"] + ["I"] * (len(name) - 1)
            else:
                plain = list(rng.choice(words, size=int(rng.integers(1, 4)), replace=False))
                sentence += plain
                tags += ["O"] * len(plain)
        data.append(([str(w) for w in sentence], tags))
    return data


embedding_dim = 16
hidden_dim = 32
training_data = make_sentences()
for sentence, tags in training_data:
    print(" ".join(sentence), "|", " ".join(tags))

word_to_idx = {"<pad>": 0}
for sentence, tags in training_data:
    for word in sentence:
        if word not in word_to_idx:
            word_to_idx[word] = len(word_to_idx)
tag_to_idx = {"B": 0, "I": 1, "O": 2}
print(len(word_to_idx))


def fixed_weights(net, seed=3):
    """Start from the same values on every framework (their random generators differ)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        param.set_data(ms.Tensor(rng.uniform(-0.3, 0.3, param.shape).astype(np.float32)))
    return net


model = fixed_weights(BiLSTM_CRF(len(word_to_idx), embedding_dim, hidden_dim, len(tag_to_idx)))
print([(p.name, p.shape) for p in model.trainable_params()])
optimizer = nn.SGD(model.trainable_params(), learning_rate=0.01, weight_decay=1e-4)
grad_fn = ms.value_and_grad(model, None, optimizer.parameters)


def train_step(data, seq_length, label):
    loss, grads = grad_fn(data, seq_length, label)
    optimizer(grads)
    return loss


def prepare_sequence(seqs, word_to_idx, tag_to_idx):
    """Index and pad the sentences and their tags to the longest one; also their lengths."""
    seq_outputs, label_outputs, seq_length = [], [], []
    max_len = max(len(s[0]) for s in seqs)
    for seq, tag in seqs:
        seq_length.append(len(seq))
        idxs = [word_to_idx[w] for w in seq] + [word_to_idx["<pad>"]] * (max_len - len(seq))
        labels = [tag_to_idx[t] for t in tag] + [tag_to_idx["O"]] * (max_len - len(seq))
        seq_outputs.append(idxs)
        label_outputs.append(labels)
    return (ms.Tensor(seq_outputs, ms.int64), ms.Tensor(label_outputs, ms.int64), ms.Tensor(seq_length, ms.int64))


data, label, seq_length = prepare_sequence(training_data, word_to_idx, tag_to_idx)
print(data.shape, label.shape, seq_length.shape, seq_length)

steps = 3
for i in range(steps):
    loss = train_step(data, seq_length, label)
    if i % 20 == 0 or i == steps - 1:
        print(f"step {i}: loss {loss.asnumpy():.5f}")

score, history = model(data, seq_length)
print(score)
predict = post_decode(score, history, seq_length)
print(predict)
idx_to_tag = {idx: tag for tag, idx in tag_to_idx.items()}


def sequence_to_tag(sequences, idx_to_tag):
    return [[idx_to_tag[i] for i in seq] for seq in sequences]


for tags, (_, want) in zip(sequence_to_tag(predict, idx_to_tag), training_data):
    print(" ".join(tags), "| right" if tags == want else "| wrong")
