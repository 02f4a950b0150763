"""`oar.nn.functional`: the functional forms of layers, activations and losses (the real implementations)."""
# the layer ops live in oar/ops/nn/ (below the executor, for oar.lite); their functional forms are exported here
from ...ops.nn.activation import (relu, relu_, relu6, leaky_relu, prelu, elu, selu, gelu, silu, swish, mish, sigmoid,
                                  tanh, hardswish, hardsigmoid, hardtanh, softplus, softsign, log_sigmoid, tanhshrink,
                                  thresholded_relu, softmax, log_softmax, glu)
from ...ops.nn.common import (linear, bilinear, dropout, dropout2d, dropout3d, alpha_dropout, embedding, one_hot, pad,
                              interpolate, upsample, pixel_shuffle, pixel_unshuffle, cosine_similarity)
from ...ops.nn.conv import conv1d, conv2d, conv3d, conv1d_transpose, conv2d_transpose, conv3d_transpose
from ...ops.nn.pooling import (max_pool1d, max_pool2d, max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d,
                               adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                               adaptive_max_pool2d)
from ...ops.nn.norm import batch_norm, layer_norm, group_norm, instance_norm, normalize, local_response_norm
from .loss import (cross_entropy, softmax_with_cross_entropy, nll_loss, mse_loss, square_error_cost, l1_loss,
                   smooth_l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits, sigmoid_focal_loss, kl_div,
                   margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, ctc_loss, label_smooth)
from .attention import scaled_dot_product_attention
from ...ops.manipulation import flatten  # noqa: F401  (Paddle exposes it here too)
