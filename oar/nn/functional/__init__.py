"""`oar.nn.functional`: the functional forms of layers, activations and losses (the real implementations).

The layer ops live in `oar/ops/nn/` (below the executor, for `oar.lite`); the submodules here are Paddle's
(`paddle.nn.functional.activation`, `.common`, `.conv`, `.input`, `.loss`, `.norm`, `.pooling`, `.vision`,
`.flash_attention`, `.distance`, `.extension`), each naming its functions, so model code importing them runs unchanged.
"""
from .activation import (relu, relu_, relu6, leaky_relu, prelu, elu, selu, gelu, silu, swish, mish, sigmoid,  # noqa: F401
                         tanh, hardswish, hardsigmoid, hardtanh, hardshrink, softshrink, softplus, softsign,
                         log_sigmoid, tanhshrink, thresholded_relu, softmax, log_softmax, glu, swiglu, celu, maxout,
                         tanh_, elu_, softmax_, hardtanh_, leaky_relu_, thresholded_relu_)
from .common import (linear, bilinear, dropout, dropout2d, dropout3d, alpha_dropout, pad, interpolate,  # noqa: F401
                     upsample, cosine_similarity, unfold, fold, zeropad2d)
from .input import embedding, one_hot  # noqa: F401
from .vision import pixel_shuffle, pixel_unshuffle, channel_shuffle  # noqa: F401
from .distance import pairwise_distance  # noqa: F401
from .extension import sequence_mask  # noqa: F401
from .conv import conv1d, conv2d, conv3d, conv1d_transpose, conv2d_transpose, conv3d_transpose  # noqa: F401
from .pooling import (max_pool1d, max_pool2d, max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d,  # noqa: F401
                      adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                      adaptive_max_pool2d)
from .norm import batch_norm, layer_norm, group_norm, instance_norm, normalize, local_response_norm  # noqa: F401
from .loss import (cross_entropy, softmax_with_cross_entropy, nll_loss, mse_loss, square_error_cost,  # noqa: F401
                   l1_loss, smooth_l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits,
                   sigmoid_focal_loss, kl_div, margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss,
                   multi_label_soft_margin_loss, ctc_loss, label_smooth, soft_margin_loss, log_loss, dice_loss)
from .loss import (triplet_margin_loss, triplet_margin_with_distance_loss, multi_margin_loss,  # noqa: F401
                   npair_loss, gaussian_nll_loss, poisson_nll_loss)
from .loss_hsigmoid import hsigmoid_loss  # noqa: F401
from .activation_random import rrelu, gumbel_softmax  # noqa: F401
from .vision import affine_grid, grid_sample, temporal_shift  # noqa: F401
from .pooling import max_unpool1d, max_unpool2d, max_unpool3d, adaptive_max_pool3d  # noqa: F401
from .extension import gather_tree  # noqa: F401
from .class_center import class_center_sample  # noqa: F401
from .flash_attention import scaled_dot_product_attention  # noqa: F401
from ...ops.manipulation import flatten  # noqa: F401  (Paddle exposes it here too)
