"""Pooling layers over `oar.nn.functional` pooling."""
from .. import functional as F
from .layers import Layer


class _Pool(Layer):
    # Paddle's MaxPoolND order; the average pools pass `exclusive` by keyword
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format=None,
                 name=None, exclusive=True):
        super().__init__()
        self._name = name
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.exclusive, self.data_format = return_mask, ceil_mode, exclusive, \
            data_format

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool1D(_Pool):
    """1-D max pooling of ``[N, C, L]``.

    Example:
        >>> oar.nn.MaxPool1D(kernel_size=2)(oar.to_tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy().tolist()
        [[[3.0, 2.0]]]
    """

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
        [1, 1, 2, 2, 2]
    """
    def forward(self, x):
        return F.max_pool3d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format or "NCDHW")


class AvgPool1D(_Pool):
    """1-D average pooling over ``[N, C, L]`` (padding excluded from the mean when `exclusive`).

    Example:
        >>> oar.nn.AvgPool1D(2)(oar.ones([1, 2, 6])).shape
        [1, 2, 3]
    """
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive)
        self._name = name

    def forward(self, x):
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive, self.ceil_mode)


class AvgPool2D(_Pool):
    """2-D average pooling; ``exclusive=True`` leaves padding out of the average.

    Example:
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> oar.nn.AvgPool2D(kernel_size=2, stride=2)(x).numpy().tolist()
        [[[[2.5, 4.5], [10.5, 12.5]]]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive,
                         data_format=data_format)
        self._name = name
        self.divisor_override = divisor_override

    def forward(self, x):
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive,
                            self.divisor_override, self.data_format)


class AvgPool3D(AvgPool2D):
    """3-D average pooling over NCDHW input.

    Example:
        >>> oar.nn.AvgPool3D(2)(oar.ones([1, 1, 4, 4, 4])).shape
        [1, 1, 2, 2, 2]
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)
        self._name = name

    def forward(self, x):
        return F.avg_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive,
                            self.divisor_override, self.data_format)


class _Adaptive(Layer):
    def __init__(self, output_size, data_format=None, return_mask=False, name=None):
        super().__init__()
        self._name = name
        self._output_size, self._data_format, self._return_mask = output_size, data_format, return_mask

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool1D(_Adaptive):
    """Average pooling of ``[N, C, L]`` to `output_size` windows (Paddle's floor/ceil bounds).

    Example:
        >>> oar.nn.AdaptiveAvgPool1D(3)(oar.ones([1, 2, 7])).shape
        [1, 2, 3]
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
        self._name = name

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self._output_size, self._data_format)


class AdaptiveAvgPool3D(_Adaptive):
    """Average pooling of NCDHW input to `output_size` windows.

    Example:
        >>> oar.nn.AdaptiveAvgPool3D(2)(oar.ones([1, 3, 4, 5, 6])).shape
        [1, 3, 2, 2, 2]
    """
    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size, data_format)
        self._name = name

    def forward(self, x):
        return F.adaptive_avg_pool3d(x, self._output_size, self._data_format)


class AdaptiveMaxPool1D(_Adaptive):
    """Max pooling of ``[N, C, L]`` to `output_size` windows (with the argmax indices when `return_mask`).

    Example:
        >>> x = oar.to_tensor([[[1.0, 5.0, 2.0, 0.0]]])
        >>> oar.nn.AdaptiveMaxPool1D(2)(x).numpy().tolist()
        [[[5.0, 2.0]]]
    """
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask=return_mask)
        self._name = name

    def forward(self, x):
        return F.adaptive_max_pool1d(x, self._output_size, self._return_mask)


class AdaptiveMaxPool2D(_Adaptive):
    """Max pooling to a fixed output size.

    Example:
        >>> out, mask = oar.nn.AdaptiveMaxPool2D(1, return_mask=True)(oar.to_tensor([[[[1.0, 4.0], [3.0, 2.0]]]]))
        >>> out.numpy().tolist(), mask.numpy().tolist()
        ([[[[4.0]]]], [[[[1]]]])
    """

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask=return_mask)
        self._name = name

    def forward(self, x):
        return F.adaptive_max_pool2d(x, self._output_size, self._return_mask)


class AdaptiveMaxPool3D(_Adaptive):
    """Max pooling of [N, C, D, H, W] to a fixed output size (with flat argmax indices when `return_mask`).

    Example:
        >>> oar.nn.AdaptiveMaxPool3D([1, 2, 2])(oar.ones([1, 3, 4, 5, 6])).shape
        [1, 3, 1, 2, 2]
    """

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask=return_mask)
        self._name = name

    def forward(self, x):
        return F.adaptive_max_pool3d(x, self._output_size, self._return_mask)


class _MaxUnPool(Layer):
    _fn, _format = None, None

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None, output_size=None, name=None):
        super().__init__()
        self._name = name
        self.ksize, self.stride, self.padding, self.output_size = kernel_size, stride, padding, output_size
        self.data_format = data_format or self._format

    def forward(self, x, indices):
        return type(self)._fn(x, indices, self.ksize, self.stride, self.padding, self.data_format, self.output_size)


class MaxUnPool1D(_MaxUnPool):
    """`F.max_unpool1d` as a layer: forward(x, indices).

    Example:
        >>> out, idx = oar.nn.functional.max_pool1d(oar.to_tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2, return_mask=True)
        >>> oar.nn.MaxUnPool1D(2)(out, idx).numpy().tolist()
        [[[0.0, 3.0, 2.0, 0.0]]]
    """
    _fn, _format = staticmethod(F.max_unpool1d), "NCL"


class MaxUnPool2D(_MaxUnPool):
    """`F.max_unpool2d` as a layer: forward(x, indices).

    Example:
        >>> out, idx = oar.nn.functional.max_pool2d(oar.to_tensor([[[[1.0, 2.0], [4.0, 3.0]]]]), 2, return_mask=True)
        >>> oar.nn.MaxUnPool2D(2)(out, idx).numpy().tolist()
        [[[[0.0, 0.0], [4.0, 0.0]]]]
    """
    _fn, _format = staticmethod(F.max_unpool2d), "NCHW"


class MaxUnPool3D(_MaxUnPool):
    """`F.max_unpool3d` as a layer: forward(x, indices).

    Example:
        >>> out, idx = oar.nn.functional.max_pool3d(oar.ones([1, 1, 2, 2, 2]), 2, return_mask=True)
        >>> oar.nn.MaxUnPool3D(2)(out, idx).shape
        [1, 1, 2, 2, 2]
    """
    _fn, _format = staticmethod(F.max_unpool3d), "NCDHW"
