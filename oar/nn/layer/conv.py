"""Convolution layers (weights ``[out, in/groups, *k]``; transposed ``[in, out/groups, *k]``)."""
import math

from .. import functional as F
from ...kernels.conv import SCRATCH
from ...ops.nn.conv import padding_attrs
from ..initializer import Normal
from .layers import Layer


def _ntuple(v, n):
    return [int(a) for a in v] if isinstance(v, (list, tuple)) else [int(v)] * n


class _ConvNd(Layer):
    _nd, _fn, _fmt, _transposed = 2, None, "NCHW", False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format=None, output_padding=0):
        super().__init__()
        nd = self._nd
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{type(self).__name__}: in_channels={in_channels} and out_channels={out_channels} "
                             f"must be divisible by groups={groups}")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', "
                             f"got {padding_mode!r}")
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = _ntuple(kernel_size, nd)
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._groups, self._padding_mode = groups, padding_mode
        self._data_format = data_format or self._fmt
        self._output_padding = output_padding
        if self._transposed:
            shape = [in_channels, out_channels // groups] + self._kernel_size
            init = None  # Paddle: XavierUniform for transposed convolutions
        else:
            shape = [out_channels, in_channels // groups] + self._kernel_size
            fan_in = math.prod(self._kernel_size) * in_channels
            init = Normal(0.0, (2.0 / fan_in) ** 0.5)
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=init)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)
        self._scratch_lease = SCRATCH.lease()  # the kernels' scratch buffers are kept while a conv layer lives

    def _pad_input(self, x):
        """Non-zero padding modes pad explicitly, then convolve without padding."""
        if self._padding_mode == "zeros" or isinstance(self._padding, str):
            return x, self._padding
        _, pairs = padding_attrs(self._padding, self._nd, self._data_format[-1] == "C")
        flat = [p for pr in reversed(pairs) for p in pr]
        return F.pad(x, flat, mode=self._padding_mode, data_format=self._data_format), 0

    def forward(self, x):
        x, padding = self._pad_input(x)
        return type(self)._fn(x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups,
                              self._data_format)

    def extra_repr(self):
        """Paddle's form: stride, padding, padding_mode, output_padding, dilation and groups when not the default,
        the data format always."""
        def listed(v):
            return [v] * self._nd if isinstance(v, int) else list(v)

        def ones(v):
            return listed(v) == [1] * self._nd
        s = f"{self._in_channels}, {self._out_channels}, kernel_size={listed(self._kernel_size)}"
        if not ones(self._stride):
            s += f", stride={listed(self._stride)}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            s += f", padding_mode={self._padding_mode}"
        if getattr(self, "_output_padding", 0) not in (0, [0] * self._nd):
            s += f", output_padding={self._output_padding}"
        if not ones(self._dilation):
            s += f", dilation={listed(self._dilation)}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + f", data_format={self._data_format}"


class Conv1D(_ConvNd):
    """1-D convolution over ``[N, C, L]``.

    Example:
        >>> conv = oar.nn.Conv1D(4, 8, kernel_size=3, padding=1)
        >>> conv(oar.ones([2, 4, 10])).shape, conv.weight.shape
        ([2, 8, 10], [8, 4, 3])
    """
    _nd, _fn, _fmt = 1, staticmethod(F.conv1d), "NCL"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class Conv2D(_ConvNd):
    """2-D convolution over NCHW (or NHWC) input; weight init Normal(0, sqrt(2/fan_in)) as Paddle.

    Example:
        >>> conv = oar.nn.Conv2D(1, 20, 5)
        >>> conv(oar.ones([2, 1, 28, 28])).shape
        [2, 20, 24, 24]
    """
    _nd, _fn, _fmt = 2, staticmethod(F.conv2d), "NCHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class Conv3D(_ConvNd):
    """3-D convolution over NCDHW input.

    Example:
        >>> conv = oar.nn.Conv3D(2, 4, kernel_size=3)
        >>> conv(oar.ones([1, 2, 5, 5, 5])).shape
        [1, 4, 3, 3, 3]
    """
    _nd, _fn, _fmt = 3, staticmethod(F.conv3d), "NCDHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, "zeros",
                         weight_attr, bias_attr, data_format, output_padding)

    def forward(self, x, output_size=None):
        return type(self)._fn(x, self.weight, self.bias, self._stride, self._padding,
                              0 if output_size is not None else self._output_padding, self._groups, self._dilation,
                              output_size, self._data_format)


class Conv1DTranspose(_ConvTransposeNd):
    """Transposed 1-D convolution; weight ``[in, out/groups, k]``.

    Example:
        >>> oar.nn.Conv1DTranspose(4, 2, 3, stride=2)(oar.ones([1, 4, 5])).shape
        [1, 2, 11]
    """
    _nd, _fn, _fmt = 1, staticmethod(F.conv1d_transpose), "NCL"


class Conv2DTranspose(_ConvTransposeNd):
    """Transposed 2-D convolution; weight ``[in, out/groups, kh, kw]``.

    Example:
        >>> up = oar.nn.Conv2DTranspose(4, 2, 3, stride=2)
        >>> up(oar.ones([1, 4, 5, 5])).shape
        [1, 2, 11, 11]
    """
    _nd, _fn, _fmt = 2, staticmethod(F.conv2d_transpose), "NCHW"


class Conv3DTranspose(_ConvTransposeNd):
    """Transposed 3-D convolution; weight ``[in, out/groups, kd, kh, kw]``.

    Example:
        >>> oar.nn.Conv3DTranspose(2, 1, 2, stride=2)(oar.ones([1, 2, 2, 2, 2])).shape
        [1, 1, 4, 4, 4]
    """
    _nd, _fn, _fmt = 3, staticmethod(F.conv3d_transpose), "NCDHW"
