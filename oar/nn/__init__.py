"""`oar.nn`: layers, containers, losses and initializers (Paddle 2.x names). `oar.nn.functional` holds the
implementations; every layer is a thin class around them. The layer classes live in `oar.nn.layer.<family>`, laid
out as Paddle's `paddle.nn.layer`."""
from . import functional, initializer, utils
from . import layer  # noqa: F401
from .layer import loss  # noqa: F401  (paddle.nn.loss: Paddle's examples reach the loss layers this way)
from .layer.layers import Layer
from .layer.container import Sequential, LayerList, LayerDict, ParameterList
from .layer.common import (Linear, Bilinear, Embedding, Flatten, Identity, Dropout, Dropout2D, Dropout3D,
                           AlphaDropout, Upsample, UpsamplingNearest2D, UpsamplingBilinear2D, PixelShuffle,
                           PixelUnshuffle, Pad1D, Pad2D, Pad3D, CosineSimilarity, Unfold, Fold, ZeroPad2D,
                           ChannelShuffle, Unflatten, PairwiseDistance)
from .layer.activation import (ReLU, ReLU6, LeakyReLU, PReLU, ELU, SELU, GELU, Silu, Swish, Mish, Sigmoid, Tanh,
                               Hardswish, Hardsigmoid, Hardtanh, Hardshrink, Softshrink, Softplus, Softsign,
                               LogSigmoid, Tanhshrink, ThresholdedReLU, Softmax, LogSoftmax, GLU, CELU, Maxout,
                               Softmax2D, RReLU)
from .layer.conv import Conv1D, Conv2D, Conv3D, Conv1DTranspose, Conv2DTranspose, Conv3DTranspose
from .layer.pooling import (MaxPool1D, MaxPool2D, MaxPool3D, AvgPool1D, AvgPool2D, AvgPool3D, AdaptiveAvgPool1D,
                            AdaptiveAvgPool2D, AdaptiveAvgPool3D, AdaptiveMaxPool1D, AdaptiveMaxPool2D,
                            AdaptiveMaxPool3D, MaxUnPool1D, MaxUnPool2D, MaxUnPool3D)
from .layer.norm import (BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, SyncBatchNorm, LayerNorm, GroupNorm,
                         InstanceNorm1D, InstanceNorm2D, InstanceNorm3D, LocalResponseNorm, SpectralNorm)
from .layer.loss import (CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, BCELoss, BCEWithLogitsLoss,
                         KLDivLoss, MarginRankingLoss, HingeEmbeddingLoss, MultiLabelSoftMarginLoss, CTCLoss,
                         SoftMarginLoss, CosineEmbeddingLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
                         MultiMarginLoss, GaussianNLLLoss, PoissonNLLLoss, HSigmoidLoss)
from .layer.rnn import RNNCellBase, SimpleRNNCell, LSTMCell, GRUCell, RNN, BiRNN, SimpleRNN, LSTM, GRU
from . import decode  # noqa: F401  (paddle.nn.decode)
from .decode import BeamSearchDecoder, dynamic_decode
from .layer.transformer import (MultiHeadAttention, TransformerEncoderLayer, TransformerEncoder,
                                TransformerDecoderLayer, TransformerDecoder, Transformer)
from .param_attr import ParamAttr  # noqa: F401
from .clip import ClipGradBase, ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm  # noqa: F401  (optimizer engineer's module)
