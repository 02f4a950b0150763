"""Pooling layers over `oar.nn.functional` pooling."""
from . import functional as F
from .layer import Layer


class _Pool(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, exclusive=True,
                 data_format=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.exclusive, self.data_format = return_mask, ceil_mode, exclusive, \
            data_format

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool1D(_Pool):
    """1-D max pooling of ``[N, C, L]``."""

    def forward(self, x):
        return F.max_pool1d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode)


class MaxPool2D(_Pool):
    """2-D max pooling (stride defaults to the kernel size).

    Example:
        >>> oar.nn.MaxPool2D(2)(oar.ones([1, 1, 4, 4])).shape
        [1, 1, 2, 2]
    """

    def forward(self, x):
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format or "NCHW")


class MaxPool3D(_Pool):
    """3-D max pooling over NCDHW input.

    Example:
        >>> oar.nn.MaxPool3D(2)(oar.ones([1, 1, 4, 4, 4])).shape
    """
    def forward(self, x):
        return F.max_pool3d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format or "NCDHW")


class AvgPool1D(_Pool):
    """1-D average pooling over ``[N, C, L]`` (padding excluded from the mean when `exclusive`).

    Example:
        >>> oar.nn.AvgPool1D(2)(oar.ones([1, 2, 6])).shape
    """
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive)

    def forward(self, x):
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive, self.ceil_mode)


class AvgPool2D(_Pool):
    """2-D average pooling; ``exclusive=True`` leaves padding out of the average."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive,
                         data_format=data_format)
        self.divisor_override = divisor_override

    def forward(self, x):
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive,
                            self.divisor_override, self.data_format)


class AvgPool3D(AvgPool2D):
    """3-D average pooling over NCDHW input.

    Example:
        >>> oar.nn.AvgPool3D(2)(oar.ones([1, 1, 4, 4, 4])).shape
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)

    def forward(self, x):
        return F.avg_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive,
                            self.divisor_override, self.data_format)


class _Adaptive(Layer):
    def __init__(self, output_size, data_format=None, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._data_format, self._return_mask = output_size, data_format, return_mask

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool1D(_Adaptive):
    """Average pooling of ``[N, C, L]`` to `output_size` windows (Paddle's floor/ceil bounds).

    Example:
        >>> oar.nn.AdaptiveAvgPool1D(3)(oar.ones([1, 2, 7])).shape
    """
    def forward(self, x):
        return F.adaptive_avg_pool1d(x, self._output_size)


class AdaptiveAvgPool2D(_Adaptive):
    """Average pooling to a fixed output size.

    Example:
        >>> oar.nn.AdaptiveAvgPool2D(1)(oar.ones([2, 8, 7, 7])).shape
        [2, 8, 1, 1]
    """

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size, data_format)

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self._output_size, self._data_format)


class AdaptiveAvgPool3D(_Adaptive):
    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size, data_format)

    def forward(self, x):
        return F.adaptive_avg_pool3d(x, self._output_size, self._data_format)


class AdaptiveMaxPool1D(_Adaptive):
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask=return_mask)

    def forward(self, x):
        return F.adaptive_max_pool1d(x, self._output_size, self._return_mask)


class AdaptiveMaxPool2D(_Adaptive):
    """Max pooling to a fixed output size."""

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask=return_mask)

    def forward(self, x):
        return F.adaptive_max_pool2d(x, self._output_size, self._return_mask)
