"""Common layers: Linear, Bilinear, Embedding, Flatten, Identity, Dropout family, Upsample, PixelShuffle, Pad."""
from ...ops import manipulation as S
from .. import functional as F
from ..initializer import Uniform
from .layers import Layer
from ..functional.fused import fused_linear


class Linear(Layer):
    """``y = x @ weight + bias`` with weight ``[in_features, out_features]`` (XavierUniform) and zero bias.

    Example:
        >>> fc = oar.nn.Linear(784, 10)
        >>> fc(oar.ones([16, 784])).shape
        [16, 10]
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._name = name
        self._in_features, self._out_features = in_features, out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        dt = self.weight.dtype.name if self.weight is not None else "float32"
        return f"in_features={self._in_features}, out_features={self._out_features}, dtype={dt}"


class Bilinear(Layer):
    """``out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o]``.

    Example:
        >>> m = oar.nn.Bilinear(3, 4, 5)
        >>> m(oar.ones([2, 3]), oar.ones([2, 4])).shape, m.weight.shape
        ([2, 5], [5, 3, 4])
    """

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._name = name
        self._in1, self._in2, self._out = in1_features, in2_features, out_features
        bound = 1.0 / in1_features ** 0.5
        self.weight = self.create_parameter([out_features, in1_features, in2_features], attr=weight_attr,
                                            default_initializer=Uniform(-bound, bound))
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return f"in1_features={self._in1}, in2_features={self._in2}, out_features={self._out}"


class Embedding(Layer):
    """Lookup table ``[num_embeddings, embedding_dim]`` (XavierUniform); `padding_idx` rows are zero.

    Example:
        >>> emb = oar.nn.Embedding(10, 4, padding_idx=0)
        >>> emb(oar.to_tensor([[0, 3]])).shape
        [1, 2, 4]
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False, weight_attr=None, name=None):
        super().__init__()
        self._name = name
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        if padding_idx is not None and not 0 <= padding_idx < num_embeddings:
            raise ValueError(f"padding_idx must be in [-{num_embeddings}, {num_embeddings}), got {padding_idx}")
        self._padding_idx = padding_idx
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr)
        if padding_idx is not None and hasattr(self.weight, "_data"):
            self.weight._data[padding_idx] = 0

    def forward(self, x):
        return F.embedding(x, self.weight, self._padding_idx)

    def extra_repr(self):
        return f"{self._num_embeddings}, {self._embedding_dim}" + \
            (f", padding_idx={self._padding_idx}" if self._padding_idx is not None else "")


class Flatten(Layer):
    """Flattens dims `start_axis`..`stop_axis` (default 1..-1).

    Example:
        >>> oar.nn.Flatten()(oar.ones([2, 3, 4])).shape
        [2, 12]
    """

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return S.flatten(input, self.start_axis, self.stop_axis)


class Identity(Layer):
    """Returns its input.

    Example:
        >>> oar.nn.Identity()(oar.to_tensor([1.0, 2.0])).numpy().tolist()
        [1.0, 2.0]
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Dropout(Layer):
    """Randomly zeroes elements with probability `p` in training mode (see `F.dropout` for `mode`, `axis`).

    Example:
        >>> drop = oar.nn.Dropout(0.5)
        >>> drop.eval()(oar.ones([2])).numpy()
        array([1., 1.], dtype=float32)
    """

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self._name = name
        self.p, self.axis, self.mode = p, axis, mode

    def forward(self, input):
        return F.dropout(input, self.p, self.axis, self.training, self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}"


class Dropout2D(Layer):
    """Drops whole channels of NCHW input.

    Example:
        >>> m = oar.nn.Dropout2D(p=0.5)
        >>> m.eval()
        Dropout2D()
        >>> bool((m(oar.ones([1, 4, 2, 2])) == 1).all())
        True
    """

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self.p, self.data_format = p, data_format

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.data_format)


class Dropout3D(Layer):
    """Drops whole channels of NCDHW input (identity in eval mode).

    Example:
        >>> _ = oar.seed(0)
        >>> y = oar.nn.Dropout3D(p=0.5)(oar.ones([1, 8, 2, 2, 2]))
        >>> sorted(set(y.numpy().ravel().tolist()))
        [0.0, 2.0]
    """
    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__()
        self._name = name
        self.p, self.data_format = p, data_format

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.data_format)


class AlphaDropout(Layer):
    """Dropout that keeps the mean and variance of SELU activations (identity in eval mode).

    Example:
        >>> m = oar.nn.AlphaDropout(p=0.5)
        >>> m.eval()
        AlphaDropout()
        >>> m(oar.ones([2, 3])).numpy().tolist()
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
        >>> m.train()
        AlphaDropout()
        >>> m(oar.ones([2, 3])).shape
        [2, 3]
    """
    def __init__(self, p=0.5, name=None):
        super().__init__()
        self._name = name
        self.p = p

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class Upsample(Layer):
    """Resizes by `size` or `scale_factor` ('nearest', 'bilinear', 'linear', 'trilinear').

    Example:
        >>> oar.nn.Upsample(scale_factor=2)(oar.ones([1, 1, 2, 3])).shape
        [1, 1, 4, 6]
        >>> oar.nn.Upsample(size=[5, 5], mode='bilinear')(oar.ones([1, 1, 2, 3])).shape
        [1, 1, 5, 5]
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, data_format

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners, self.align_mode,
                             self.data_format)


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour `Upsample` of NCHW input.

    Example:
        >>> oar.nn.UpsamplingNearest2D(scale_factor=2)(oar.to_tensor([[[[1.0, 2.0]]]])).numpy().tolist()
        [[[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0]]]]
    """
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", data_format=data_format)
        self._name = name


class UpsamplingBilinear2D(Upsample):
    """Bilinear `Upsample` of NCHW input (``align_corners=True``, as Paddle).

    Example:
        >>> oar.nn.UpsamplingBilinear2D(size=[1, 3])(oar.to_tensor([[[[0.0, 2.0]]]])).numpy().tolist()
        [[[[0.0, 1.0, 2.0]]]]
    """
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", align_corners=True, data_format=data_format)
        self._name = name


class PixelShuffle(Layer):
    """``[N, C*r*r, H, W] -> [N, C, H*r, W*r]``.

    Example:
        >>> oar.nn.PixelShuffle(2)(oar.ones([1, 8, 3, 3])).shape
        [1, 2, 6, 6]
    """

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self.upscale_factor, self.data_format = upscale_factor, data_format

    def forward(self, x):
        return F.pixel_shuffle(x, self.upscale_factor, self.data_format)


class PixelUnshuffle(Layer):
    """``[N, C, H*r, W*r] -> [N, C*r*r, H, W]``, the inverse of `PixelShuffle`.

    Example:
        >>> oar.nn.PixelUnshuffle(2)(oar.ones([1, 2, 6, 6])).shape
        [1, 8, 3, 3]
    """
    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self.downscale_factor, self.data_format = downscale_factor, data_format

    def forward(self, x):
        return F.pixel_unshuffle(x, self.downscale_factor, self.data_format)


class _PadNd(Layer):
    _fmt = "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        self._name = name
        n = {"NCL": 1, "NCHW": 2, "NCDHW": 3}[self._fmt]
        self.padding = [padding] * (2 * n) if isinstance(padding, int) else list(padding)
        self.mode, self.value, self.data_format = mode, value, data_format or self._fmt

    def forward(self, x):
        return F.pad(x, self.padding, self.mode, self.value, self.data_format)


class Pad1D(_PadNd):
    """Pads the last dim of ``[N, C, L]`` by ``[left, right]`` ('constant', 'reflect', 'replicate' or 'circular').

    Example:
        >>> oar.nn.Pad1D([1, 2], value=9.0)(oar.ones([1, 1, 2])).numpy().tolist()
        [[[9.0, 1.0, 1.0, 9.0, 9.0]]]
    """
    _fmt = "NCL"


class Pad2D(_PadNd):
    """Pads H and W of ``[N, C, H, W]`` by ``[left, right, top, bottom]``.

    Example:
        >>> oar.nn.Pad2D([1, 1, 0, 2], mode='replicate')(oar.ones([1, 1, 2, 2])).shape
        [1, 1, 4, 4]
    """
    _fmt = "NCHW"


class Pad3D(_PadNd):
    """Pads D, H and W of ``[N, C, D, H, W]`` by ``[left, right, top, bottom, front, back]``.

    Example:
        >>> oar.nn.Pad3D(1)(oar.ones([1, 1, 2, 2, 2])).shape
        [1, 1, 4, 4, 4]
    """
    _fmt = "NCDHW"


class CosineSimilarity(Layer):
    """Cosine similarity of two inputs along `axis` (see `F.cosine_similarity`).

    Example:
        >>> m = oar.nn.CosineSimilarity(axis=1)
        >>> a, b = oar.to_tensor([[1.0, 0.0], [1.0, 1.0]]), oar.to_tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> [round(v, 4) for v in m(a, b).numpy().tolist()]
        [1.0, 0.7071]
    """
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self.axis, self.eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.axis, self.eps)


class Unfold(Layer):
    """Sliding blocks of an image as columns ``[N, C*kh*kw, L]`` (see `F.unfold`).

    Example:
        >>> oar.nn.Unfold(kernel_sizes=[2, 2])(oar.ones([1, 3, 4, 4])).shape
        [1, 12, 9]
    """

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self._name = name
        self.kernel_sizes, self.dilations, self.paddings, self.strides = kernel_sizes, dilations, paddings, strides

    def forward(self, x):
        return F.unfold(x, self.kernel_sizes, self.strides, self.paddings, self.dilations)


class Fold(Layer):
    """Columns ``[N, C*kh*kw, L]`` summed back into an image of `output_sizes` (see `F.fold`).

    Example:
        >>> oar.nn.Fold(output_sizes=[3, 3], kernel_sizes=2)(oar.ones([1, 4, 4])).shape
        [1, 1, 3, 3]
    """

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self._name = name
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, x):
        return F.fold(x, self.output_sizes, self.kernel_sizes, self.strides, self.paddings, self.dilations)


class FusedLinear(Layer):
    """Paddle's `paddle.incubate.nn.FusedLinear`: a Linear whose weight may be stored transposed (``[out, in]``
    with ``transpose_weight=True``). Paddle runs it only on GPUs (one fused GEMM + bias kernel); here it is the
    same matmul and bias, which oar's `fuse_linear` pass fuses in saved programs.

    Example:
        >>> from oar.incubate.nn import FusedLinear
        >>> layer = FusedLinear(3, 2, transpose_weight=True)
        >>> layer.weight.shape, layer(oar.ones([4, 3])).shape
        ([2, 3], [4, 2])
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, transpose_weight=False,
                 name=None):
        super().__init__()
        self._name = name
        self.transpose_weight = bool(transpose_weight)
        shape = [out_features, in_features] if transpose_weight else [in_features, out_features]
        self.weight = self.create_parameter(shape, attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return fused_linear(x, self.weight, self.bias, self.transpose_weight)


class ZeroPad2D(Layer):
    """Zero padding of the spatial dims: `padding` an int or ``[left, right, top, bottom]`` (see `F.zeropad2d`).

    Example:
        >>> oar.nn.ZeroPad2D([1, 0, 0, 2])(oar.ones([1, 1, 2, 2])).shape
        [1, 1, 4, 3]
    """

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self._padding, self._data_format = padding, data_format

    def forward(self, x):
        return F.zeropad2d(x, self._padding, self._data_format)


class ChannelShuffle(Layer):
    """ShuffleNet's channel shuffle (see `F.channel_shuffle`).

    Example:
        >>> x = oar.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> oar.nn.ChannelShuffle(2)(x).flatten().numpy().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._name = name
        self._groups, self._data_format = groups, data_format

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)


class Unflatten(Layer):
    """Splits dim `axis` into `shape` (the inverse of `Flatten`).

    Example:
        >>> oar.nn.Unflatten(1, [2, 3])(oar.ones([4, 6])).shape
        [4, 2, 3]
    """

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self._name = name
        self.axis, self.shape = axis, shape

    def forward(self, x):
        from ...ops.rearrange import unflatten
        return unflatten(x, self.axis, self.shape)


class PairwiseDistance(Layer):
    """The p-norm of ``x - y + epsilon`` over the last dim (see `F.pairwise_distance`).

    Example:
        >>> d = oar.nn.PairwiseDistance(p=1, epsilon=0)(oar.to_tensor([[1.0, 2.0]]), oar.to_tensor([[0.0, 1.0]]))
        >>> d.numpy().tolist()
        [2.0]
    """

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self._name = name
        self.p, self.epsilon, self.keepdim = p, epsilon, keepdim

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)
