"""Sentiment classification with an LSTM: the steps of tutorials/source_en/nlp/sentiment_analysis.md.

Reviews read straight from an IMDB-style ``aclImdb_v1.tar.gz`` (a small archive made by
make_data.imdb instead of the download) by a random-access Python class, wrapped in
GeneratorDataset; a GloVe-style ``glove.6B.zip`` read into a ``text.Vocab`` (``from_list`` with
``<unk>``/``<pad>``) and an embedding matrix; ``text.Lookup``, ``transforms.PadEnd`` and
``TypeCast`` through map; ``split`` into training and validation; a two-layer bidirectional LSTM
over the pretrained embeddings with a Dense head; BCEWithLogitsLoss and Adam; the training and
evaluation loops keeping the best checkpoint; and the prediction of two sentences.

Shrunk: reviews of a few words over a vocabulary of thirty, padded to 24 instead of 500, hidden
size 16 instead of 256, batches of 8, three epochs; the progress bars are replaced by printed
averages.  The split and the training order follow the seed (only their words are compared);
before training, the model from fixed NumPy weights is evaluated on the fixed-order test split
and its predictions are compared with MindSpore's number by number.
"""
import math
import os
import re
import string
import tarfile
import zipfile

import numpy as np

import cellkit as ms
import cellkit.dataset as ds
import cellkit.nn as nn
import cellkit.ops as ops
from cellkit.common.initializer import Uniform, HeUniform

import make_data

ms.set_seed(9)
cache_dir = "./imdb_cache"
imdb_path, glove_path = make_data.imdb(cache_dir)


class IMDBData:
    """The reviews of one split (``mode``) of the archive, positive then negative."""

    label_map = {"pos": 1, "neg": 0}

    def __init__(self, path, mode="train"):
        self.mode = mode
        self.path = path
        self.docs, self.labels = [], []
        self._load("pos")
        self._load("neg")

    def _load(self, label):
        pattern = re.compile(r"aclImdb/{}/{}/.*\.txt$".format(self.mode, label))
        with tarfile.open(self.path) as tarf:
            for member in tarf:
                if pattern.match(member.name):
                    text = tarf.extractfile(member).read().decode().strip()
                    text = text.translate(str.maketrans("", "", string.punctuation)).lower()
                    self.docs.append(text.split())
                    self.labels.append([self.label_map[label]])

    def __getitem__(self, idx):
        return self.docs[idx], self.labels[idx]

    def __len__(self):
        return len(self.docs)


imdb_train = IMDBData(imdb_path, "train")
print(len(imdb_train), imdb_train[0])


def load_imdb(imdb_path):
    imdb_train = ds.GeneratorDataset(IMDBData(imdb_path, "train"), column_names=["text", "label"], shuffle=True)
    imdb_test = ds.GeneratorDataset(IMDBData(imdb_path, "test"), column_names=["text", "label"], shuffle=False)
    return imdb_train, imdb_test


imdb_train, imdb_test = load_imdb(imdb_path)
print(imdb_train.get_dataset_size(), imdb_test.get_dataset_size(), imdb_train.get_col_names())


def load_glove(glove_path):
    glove_100d_path = os.path.join(cache_dir, "glove.6B.100d.txt")
    if not os.path.exists(glove_100d_path):
        with zipfile.ZipFile(glove_path) as glove_zip:
            glove_zip.extractall(cache_dir)
    embeddings = []
    tokens = []
    with open(glove_100d_path, encoding="utf-8") as gf:
        for glove in gf:
            word, embedding = glove.split(maxsplit=1)
            tokens.append(word)
            embeddings.append(np.array(embedding.split(), dtype=np.float32))
    embeddings.append(np.random.rand(100))  # <unk>
    embeddings.append(np.zeros((100,), np.float32))  # <pad>
    vocab = ds.text.Vocab.from_list(tokens, special_tokens=["<unk>", "<pad>"], special_first=False)
    return vocab, np.array(embeddings).astype(np.float32)


vocab, embeddings = load_glove(glove_path)
embeddings[-2] = 0.5  # the <unk> row: the same on every framework
print(len(vocab.vocab()), embeddings.shape)
idx = vocab.tokens_to_ids("the")
print(idx, embeddings[idx][:4], vocab.tokens_to_ids(["<unk>", "<pad>", "great"]), vocab.ids_to_tokens([0, 1]))

max_len = 24
lookup_op = ds.text.Lookup(vocab, unknown_token="<unk>")
pad_op = ds.transforms.PadEnd([max_len], pad_value=vocab.tokens_to_ids("<pad>"))
type_cast_op = ds.transforms.TypeCast(ms.float32)

imdb_train = imdb_train.map(operations=[lookup_op, pad_op], input_columns=["text"])
imdb_train = imdb_train.map(operations=[type_cast_op], input_columns=["label"])


def test_pipeline(imdb_test):
    """The test split's pipeline (a pipeline is a tree: each use below builds its own)."""
    imdb_test = imdb_test.map(operations=[lookup_op, pad_op], input_columns=["text"])
    return imdb_test.map(operations=[type_cast_op], input_columns=["label"])


first = next(test_pipeline(imdb_test).create_tuple_iterator(output_numpy=True))
print(first[0], first[0].dtype, first[1], first[1].dtype)

imdb_train, imdb_valid = imdb_train.split([0.7, 0.3])
print(imdb_train.get_dataset_size(), imdb_valid.get_dataset_size())
imdb_train = imdb_train.batch(8, drop_remainder=True)
imdb_valid = imdb_valid.batch(8, drop_remainder=True)


class RNN(nn.Cell):
    def __init__(self, embeddings, hidden_dim, output_dim, n_layers, bidirectional, pad_idx):
        super().__init__()
        vocab_size, embedding_dim = embeddings.shape
        self.embedding = nn.Embedding(vocab_size, embedding_dim, embedding_table=ms.Tensor(embeddings),
                                      padding_idx=pad_idx)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                           batch_first=True)
        weight_init = HeUniform(math.sqrt(5))
        bias_init = Uniform(1 / math.sqrt(hidden_dim * 2))
        self.fc = nn.Dense(hidden_dim * 2, output_dim, weight_init=weight_init, bias_init=bias_init)

    def construct(self, inputs):
        embedded = self.embedding(inputs)
        _, (hidden, _) = self.rnn(embedded)
        hidden = ops.concat((hidden[-2, :, :], hidden[-1, :, :]), axis=1)
        return self.fc(hidden)


def fixed_weights(net, seed=6):
    """Start from the same values on every framework (the embedding table stays GloVe's)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        if "embedding" not in param.name:
            param.set_data(ms.Tensor(rng.uniform(-0.25, 0.25, param.shape).astype(np.float32)))
    return net


hidden_size = 16
output_size = 1
num_layers = 2
bidirectional = True
lr = 0.01
pad_idx = vocab.tokens_to_ids("<pad>")
model = fixed_weights(RNN(embeddings, hidden_size, output_size, num_layers, bidirectional, pad_idx))
print(len(model.trainable_params()), sum(p.size for p in model.trainable_params()))
loss_fn = nn.BCEWithLogitsLoss(reduction="mean")
optimizer = nn.Adam(model.trainable_params(), learning_rate=lr)


def forward_fn(data, label):
    logits = model(data)
    return loss_fn(logits, label)


grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)


def train_step(data, label):
    loss, grads = grad_fn(data, label)
    optimizer(grads)
    return loss


def train_one_epoch(model, train_dataset, epoch=0):
    model.set_train()
    loss_total = 0
    step_total = 0
    for i in train_dataset.create_tuple_iterator():
        loss = train_step(*i)
        loss_total += loss.asnumpy()
        step_total += 1
    print(f"Epoch {epoch}: train loss {loss_total / step_total:.4f}")


def binary_accuracy(preds, y):
    rounded_preds = np.around(ops.sigmoid(preds).asnumpy())
    correct = (rounded_preds == y).astype(np.float32)
    return correct.sum() / len(correct)


def evaluate(model, test_dataset, criterion, epoch=0):
    total = test_dataset.get_dataset_size()
    epoch_loss = 0
    epoch_acc = 0
    model.set_train(False)
    for i in test_dataset.create_tuple_iterator():
        predictions = model(i[0])
        epoch_loss += criterion(predictions, i[1]).asnumpy()
        epoch_acc += binary_accuracy(predictions, i[1].asnumpy())
    print(f"Epoch {epoch}: loss {epoch_loss / total:.4f}, acc {epoch_acc / total:.4f}")
    return epoch_loss / total


score_map = {1: "Positive", 0: "Negative"}


def predict_sentiment(model, vocab, sentence):
    model.set_train(False)
    indexed = vocab.tokens_to_ids(sentence.lower().split())
    tensor = ms.Tensor(indexed, ms.int32).expand_dims(0)
    prediction = model(tensor)
    probability = ops.sigmoid(prediction).asnumpy().item()
    return probability, score_map[int(np.round(probability))]


# Checked number by number: the model from fixed weights on the fixed-order test split.
evaluate(model, test_pipeline(load_imdb(imdb_path)[1]).batch(8), loss_fn, epoch=-1)
print("This film was terrible ->", "%.4f %s" % predict_sentiment(model, vocab, "This film was terrible"))

num_epochs = 3
best_valid_loss = float("inf")
ckpt_file_name = os.path.join(cache_dir, "sentiment-analysis.ckpt")
for epoch in range(num_epochs):
    train_one_epoch(model, imdb_train, epoch)
    valid_loss = evaluate(model, imdb_valid, loss_fn, epoch)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        ms.save_checkpoint(model, ckpt_file_name)

param_dict = ms.load_checkpoint(ckpt_file_name)
print(ms.load_param_into_net(model, param_dict)[0])
imdb_test = test_pipeline(load_imdb(imdb_path)[1]).batch(8)
evaluate(model, imdb_test, loss_fn)
for sentence in ("This film was terrible", "This film was great"):
    probability, verdict = predict_sentiment(model, vocab, sentence)
    print(sentence, "->", f"{probability:.3f}")
