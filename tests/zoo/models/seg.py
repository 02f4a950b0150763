"""Semantic segmentation models written as PaddleSeg writes them (small sizes): U-Net, DeepLabV3+ (ASPP with image
pooling, separable convolutions), and a PP-LiteSeg-style decoder with unified attention fusion."""
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


def kaiming_normal_init(param, **kwargs):
    initializer = nn.initializer.KaimingNormal(**kwargs)
    initializer(param, param.block)


def constant_init(param, **kwargs):
    initializer = nn.initializer.Constant(**kwargs)
    initializer(param, param.block)


class ConvBNReLU(nn.Layer):
    def __init__(self, in_channels, out_channels, kernel_size, padding="same", **kwargs):
        super().__init__()
        self._conv = nn.Conv2D(in_channels, out_channels, kernel_size, padding=padding, **kwargs)
        self._batch_norm = nn.BatchNorm2D(out_channels, data_format="NCHW")
        self._relu = nn.ReLU()

    def forward(self, x):
        return self._relu(self._batch_norm(self._conv(x)))


class ConvBN(nn.Layer):
    def __init__(self, in_channels, out_channels, kernel_size, padding="same", **kwargs):
        super().__init__()
        self._conv = nn.Conv2D(in_channels, out_channels, kernel_size, padding=padding, **kwargs)
        self._batch_norm = nn.BatchNorm2D(out_channels)

    def forward(self, x):
        return self._batch_norm(self._conv(x))


class SeparableConvBNReLU(nn.Layer):
    def __init__(self, in_channels, out_channels, kernel_size, padding="same", **kwargs):
        super().__init__()
        self.depthwise_conv = ConvBN(in_channels, out_channels=in_channels, kernel_size=kernel_size,
                                     padding=padding, groups=in_channels, **kwargs)
        self.piontwise_conv = ConvBNReLU(in_channels, out_channels, kernel_size=1, groups=1, bias_attr=False)

    def forward(self, x):
        return self.piontwise_conv(self.depthwise_conv(x))


class UNet(nn.Layer):
    def __init__(self, num_classes=2):
        super().__init__()
        self.double_conv = nn.Sequential(ConvBNReLU(3, 8, 3), ConvBNReLU(8, 8, 3))
        self.down_stages = nn.LayerList([nn.Sequential(nn.MaxPool2D(kernel_size=2, stride=2),
                                                       ConvBNReLU(c, 2 * c, 3), ConvBNReLU(2 * c, 2 * c, 3))
                                         for c in (8, 16)])
        self.up_stages = nn.LayerList()
        for c in (32, 16):
            double_conv = nn.Sequential(ConvBNReLU(c, c // 2, 3), ConvBNReLU(c // 2, c // 2, 3))
            self.up_stages.append(nn.LayerList([nn.Conv2DTranspose(c, c // 2, kernel_size=2, stride=2), double_conv]))
        self.cls = nn.Conv2D(8, num_classes, kernel_size=3, stride=1, padding=1)

    def forward(self, x):
        short_cuts = []
        x = self.double_conv(x)
        for down in self.down_stages:
            short_cuts.append(x)
            x = down(x)
        for i, (deconv, double_conv) in enumerate(self.up_stages):
            x = deconv(x)
            x = paddle.concat([x, short_cuts[-(i + 1)]], axis=1)
            x = double_conv(x)
        return [self.cls(x)]


class ASPPModule(nn.Layer):
    def __init__(self, aspp_ratios, in_channels, out_channels, align_corners, use_sep_conv=False,
                 image_pooling=False):
        super().__init__()
        self.align_corners = align_corners
        self.aspp_blocks = nn.LayerList()
        for ratio in aspp_ratios:
            conv_func = SeparableConvBNReLU if use_sep_conv and ratio > 1 else ConvBNReLU
            self.aspp_blocks.append(conv_func(in_channels, out_channels, kernel_size=1 if ratio == 1 else 3,
                                              dilation=ratio, padding=0 if ratio == 1 else ratio))
        out_size = len(self.aspp_blocks)
        if image_pooling:
            self.global_avg_pool = nn.Sequential(nn.AdaptiveAvgPool2D(output_size=(1, 1)),
                                                 ConvBNReLU(in_channels, out_channels, kernel_size=1, bias_attr=False))
            out_size += 1
        self.image_pooling = image_pooling
        self.conv_bn_relu = ConvBNReLU(out_channels * out_size, out_channels, kernel_size=1)
        self.dropout = nn.Dropout(p=0.1)

    def forward(self, x):
        outputs = []
        interpolate_shape = paddle.shape(x)[2:]
        for block in self.aspp_blocks:
            y = block(x)
            y = F.interpolate(y, interpolate_shape, mode="bilinear", align_corners=self.align_corners)
            outputs.append(y)
        if self.image_pooling:
            img_avg = self.global_avg_pool(x)
            img_avg = F.interpolate(img_avg, interpolate_shape, mode="bilinear", align_corners=self.align_corners)
            outputs.append(img_avg)
        x = paddle.concat(outputs, axis=1)
        return self.dropout(self.conv_bn_relu(x))


class DeepLabV3P(nn.Layer):
    def __init__(self, num_classes=3, align_corners=False):
        super().__init__()
        self.align_corners = align_corners
        self.stem = ConvBNReLU(3, 8, 3, stride=2, padding=1)
        self.layer2 = ConvBNReLU(8, 16, 3, stride=2, padding=1)
        self.aspp = ASPPModule((1, 2, 3), 16, 16, align_corners, use_sep_conv=True, image_pooling=True)
        self.conv_bn_relu1 = ConvBNReLU(8, 8, 1)
        self.conv_bn_relu2 = SeparableConvBNReLU(24, 16, 3, padding=1)
        self.conv = nn.Conv2D(16, num_classes, 1)
        self.init_weight()

    def init_weight(self):
        for layer in self.sublayers():
            if isinstance(layer, nn.Conv2D):
                kaiming_normal_init(layer.weight)
            elif isinstance(layer, (nn.BatchNorm, nn.SyncBatchNorm, nn.BatchNorm2D)):
                constant_init(layer.weight, value=1.0)
                constant_init(layer.bias, value=0.0)

    def forward(self, x):
        low_level_feat = self.stem(x)
        feat = self.layer2(low_level_feat)
        x = self.aspp(feat)
        low_level_feat = self.conv_bn_relu1(low_level_feat)
        x = F.interpolate(x, paddle.shape(low_level_feat)[2:], mode="bilinear", align_corners=self.align_corners)
        x = paddle.concat([x, low_level_feat], axis=1)
        logit = self.conv(self.conv_bn_relu2(x))
        return [F.interpolate(logit, paddle.shape(low_level_feat)[2:] * 2, mode="bilinear",
                              align_corners=self.align_corners)]


def avg_max_reduce_channel(x):
    if not isinstance(x, (list, tuple)):
        x = [x]
    res = []
    for xi in x:
        res.append(paddle.mean(xi, axis=1, keepdim=True))
        res.append(paddle.max(xi, axis=1, keepdim=True))
    return paddle.concat(res, axis=1)


class UAFM_SpAtten(nn.Layer):
    """Fuses a low-level and an upsampled high-level feature with a spatial attention map."""

    def __init__(self, x_ch, y_ch, out_ch, ksize=3, resize_mode="bilinear"):
        super().__init__()
        self.conv_x = ConvBNReLU(x_ch, y_ch, kernel_size=ksize, padding=ksize // 2, bias_attr=False)
        self.conv_out = ConvBNReLU(y_ch, out_ch, kernel_size=3, padding=1, bias_attr=False)
        self.resize_mode = resize_mode
        self.conv_xy_atten = nn.Sequential(ConvBNReLU(4, 2, kernel_size=3, padding=1, bias_attr=False),
                                           ConvBN(2, 1, kernel_size=3, padding=1, bias_attr=False))
        self._scale = self.create_parameter(shape=[1], attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(value=1.0)), dtype="float32")

    def forward(self, x, y):
        x = self.conv_x(x)
        y = F.interpolate(y, paddle.shape(x)[2:], mode=self.resize_mode)
        atten = F.sigmoid(self.conv_xy_atten(avg_max_reduce_channel([x, y])))
        out = x * atten + y * (self._scale - atten)
        return self.conv_out(out)


class PPLiteSegLike(nn.Layer):
    def __init__(self, num_classes=2):
        super().__init__()
        self.s1 = ConvBNReLU(3, 8, 3, stride=2, padding=1, bias_attr=False)
        self.s2 = ConvBNReLU(8, 16, 3, stride=2, padding=1, bias_attr=False)
        self.s3 = ConvBNReLU(16, 16, 3, stride=2, padding=1, bias_attr=False)
        self.arm2 = UAFM_SpAtten(16, 16, 8)
        self.arm1 = UAFM_SpAtten(8, 8, 8)
        self.seg_head = nn.Sequential(ConvBNReLU(8, 8, 3, padding=1, bias_attr=False),
                                      nn.Conv2D(8, num_classes, kernel_size=1, bias_attr=False))

    def forward(self, x):
        x_hw = paddle.shape(x)[2:]
        f1 = self.s1(x)
        f2 = self.s2(f1)
        f3 = self.s3(f2)
        out = self.arm1(f1, self.arm2(f2, f3))
        logit = self.seg_head(out)
        return [F.interpolate(logit, x_hw, mode="bilinear", align_corners=False)]


ZOO = {
    "unet": (UNet, [("float32", [1, 3, 16, 16])]),
    "deeplabv3p": (DeepLabV3P, [("float32", [1, 3, 16, 16])]),
    "pp_liteseg_uafm": (PPLiteSegLike, [("float32", [1, 3, 16, 16])]),
}
