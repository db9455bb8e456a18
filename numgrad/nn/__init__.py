"""numgrad.nn: modules, parameters, layers, losses, initialisation and functional forms.

>>> import numgrad as ng
>>> net = ng.nn.Sequential(ng.nn.Linear(2, 8), ng.nn.ReLU(), ng.nn.Linear(8, 3))
>>> loss = ng.nn.functional.cross_entropy(net(ng.randn(4, 2)), ng.tensor([0, 1, 2, 0]))
>>> loss.backward()
>>> net[0].weight.grad.shape
numgrad.Size([8, 2])
"""
from . import aten_forms, functional, init, utils
from .activation import (CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh,
                         LeakyReLU, LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, Sigmoid, SiLU,
                         Softmax, Softmin, Softplus, Softshrink, Softsign, Tanh, Tanhshrink,
                         Threshold)
from .activation_more import RReLU, Softmax2d
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .attention import MultiheadAttention
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .conv3d import Conv3d, ConvTranspose3d, LazyConv3d, LazyConvTranspose3d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d
from .embedding_bag import EmbeddingBag
from .fold import Fold, Unfold
from .flatten import Flatten, Unflatten
from .layers_more import (ChannelShuffle, ConvTranspose1d, DataParallel, Dropout3d,
                          FeatureAlphaDropout, InstanceNorm3d, NLLLoss2d, UpsamplingBilinear2d,
                          UpsamplingNearest2d)
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d,
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyInstanceNorm1d,
                   LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear)
from .linear import Bilinear, Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss,
                   GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss,
                   MarginRankingLoss, MSELoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                   NLLLoss, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss)
from .loss_more import CTCLoss, MultiLabelMarginLoss, TripletMarginWithDistanceLoss
from .module import Module
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d,
                            InstanceNorm2d, LayerNorm, LocalResponseNorm, RMSNorm)
from .buffer import Buffer
from .cross_map_lrn import CrossMapLRN2d
from .parameter import Parameter
from .uninitialized import UninitializedBuffer, UninitializedParameter
from .padding import (ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d,
                      ReplicationPad1d, ReplicationPad2d, ZeroPad2d)
from .padding_more import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad3d,
                           ReflectionPad3d, ReplicationPad3d, ZeroPad1d, ZeroPad3d)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
                      MaxPool1d, MaxPool2d)
from .pooling_more import (AdaptiveMaxPool1d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d,
                           LPPool2d, MaxUnpool1d, MaxUnpool2d)
from .pooling_3d import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool3d, MaxPool3d,
                         MaxUnpool3d)
from .resample import PixelShuffle, PixelUnshuffle, Upsample
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)
from . import parallel
