"""Layers: Dense, Conv1d/Conv2d, pooling, normalization, dropout, embedding, activations, containers."""
from .activation import *  # noqa: F401,F403
from .basic import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .conv_nd import *  # noqa: F401,F403
from .combined import *  # noqa: F401,F403
from .normalization_extra import *  # noqa: F401,F403
from .pooling_nd import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .image import *  # noqa: F401,F403
from .activation_extra import *  # noqa: F401,F403
from .dropout_nd import *  # noqa: F401,F403
from .basic_extra import *  # noqa: F401,F403
from .loss_extra import *  # noqa: F401,F403
from .embedding_lookup import *  # noqa: F401,F403
from .math_extra import *  # noqa: F401,F403
from .sparse_extra import *  # noqa: F401,F403
from .rnn_cells import *  # noqa: F401,F403  (RNNCell, LSTMCell, GRUCell)
from .rnn import *  # noqa: F401,F403  (RNN, LSTM, GRU)
from .attention import *  # noqa: F401,F403  (MultiheadAttention)
from .transformer import *  # noqa: F401,F403  (Transformer, TransformerEncoder(Layer), TransformerDecoder(Layer))
