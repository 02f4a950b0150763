"""OCR models written as PaddleOCR writes them (small sizes): a CRNN recognizer (conv backbone, im2seq, BiLSTM
encoder, CTC head) and a DBNet text detector head (probability and threshold maps, differentiable binarization)."""
import math

import paddle
import paddle.nn.functional as F
from paddle import ParamAttr, nn
from paddle.regularizer import L2Decay


class ConvBNLayer(nn.Layer):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, groups=1, act=None, name=None):
        super(ConvBNLayer, self).__init__()
        self.conv = nn.Conv2D(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size,
                              stride=stride, padding=padding, groups=groups,
                              weight_attr=ParamAttr(name=name + "_weights"), bias_attr=False)
        self.bn = nn.BatchNorm(num_channels=out_channels, act=act, param_attr=ParamAttr(name="bn_" + name + "_scale"),
                               bias_attr=ParamAttr(name="bn_" + name + "_offset"),
                               moving_mean_name="bn_" + name + "_mean",
                               moving_variance_name="bn_" + name + "_variance")

    def forward(self, x):
        return self.bn(self.conv(x))


class CRNNBackbone(nn.Layer):
    def __init__(self, in_channels=3):
        super().__init__()
        self.conv1 = ConvBNLayer(in_channels, 8, 3, padding=1, act="relu", name="conv1")
        self.pool1 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = ConvBNLayer(8, 16, 3, padding=1, act="relu", name="conv2")
        self.pool2 = nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv3 = ConvBNLayer(16, 16, 3, padding=1, act="relu", name="conv3")
        self.pool3 = nn.MaxPool2D(kernel_size=(2, 1), stride=(2, 1))
        self.conv4 = ConvBNLayer(16, 32, 3, padding=1, act="relu", name="conv4")
        self.pool4 = nn.MaxPool2D(kernel_size=(2, 1), stride=(2, 1))
        self.out_channels = 32

    def forward(self, x):
        x = self.pool1(self.conv1(x))
        x = self.pool2(self.conv2(x))
        x = self.pool3(self.conv3(x))
        return self.pool4(self.conv4(x))


class Im2Seq(nn.Layer):
    def __init__(self, in_channels, **kwargs):
        super().__init__()
        self.out_channels = in_channels

    def forward(self, x):
        B, C, H, W = x.shape
        assert H == 1
        x = x.squeeze(axis=2)
        return x.transpose([0, 2, 1])  # (NTC)(batch, width, channels)


class EncoderWithRNN(nn.Layer):
    def __init__(self, in_channels, hidden_size):
        super(EncoderWithRNN, self).__init__()
        self.out_channels = hidden_size * 2
        self.lstm = nn.LSTM(in_channels, hidden_size, direction="bidirectional", num_layers=2)

    def forward(self, x):
        x, _ = self.lstm(x)
        return x


class CTCHead(nn.Layer):
    def __init__(self, in_channels, out_channels, fc_decay=0.0004):
        super(CTCHead, self).__init__()
        stdv = 1.0 / math.sqrt(in_channels * 1.0)
        weight_attr = ParamAttr(regularizer=L2Decay(fc_decay), initializer=nn.initializer.Uniform(-stdv, stdv))
        bias_attr = ParamAttr(regularizer=L2Decay(fc_decay), initializer=nn.initializer.Uniform(-stdv, stdv))
        self.fc = nn.Linear(in_channels, out_channels, weight_attr=weight_attr, bias_attr=bias_attr)
        self.out_channels = out_channels

    def forward(self, x, targets=None):
        predicts = self.fc(x)
        if not self.training:
            predicts = F.softmax(predicts, axis=2)
        return predicts


class CRNN(nn.Layer):
    def __init__(self, num_classes=12):
        super().__init__()
        self.backbone = CRNNBackbone()
        self.neck = nn.Sequential(Im2Seq(32), EncoderWithRNN(32, 16))
        self.head = CTCHead(32, num_classes)

    def forward(self, x):
        return self.head(self.neck(self.backbone(x)))


class DBHeadBranch(nn.Layer):
    def __init__(self, in_channels, kernel_list=(3, 2, 2)):
        super(DBHeadBranch, self).__init__()
        self.conv1 = nn.Conv2D(in_channels=in_channels, out_channels=in_channels // 4, kernel_size=kernel_list[0],
                               padding=int(kernel_list[0] // 2), weight_attr=ParamAttr(), bias_attr=False)
        self.conv_bn1 = nn.BatchNorm(num_channels=in_channels // 4, param_attr=ParamAttr(
            initializer=paddle.nn.initializer.Constant(value=1.0)), bias_attr=ParamAttr(
            initializer=paddle.nn.initializer.Constant(value=1e-4)), act="relu")
        self.conv2 = nn.Conv2DTranspose(in_channels=in_channels // 4, out_channels=in_channels // 4,
                                        kernel_size=kernel_list[1], stride=2,
                                        weight_attr=ParamAttr(initializer=paddle.nn.initializer.KaimingUniform()))
        self.conv_bn2 = nn.BatchNorm(num_channels=in_channels // 4, act="relu")
        self.conv3 = nn.Conv2DTranspose(in_channels=in_channels // 4, out_channels=1, kernel_size=kernel_list[2],
                                        stride=2)

    def forward(self, x):
        x = self.conv_bn1(self.conv1(x))
        x = self.conv_bn2(self.conv2(x))
        return F.sigmoid(self.conv3(x))


class DBNet(nn.Layer):
    def __init__(self, k=50):
        super().__init__()
        self.k = k
        self.backbone = nn.Sequential(ConvBNLayer(3, 8, 3, stride=2, padding=1, act="relu", name="db_stem"),
                                      ConvBNLayer(8, 16, 3, stride=2, padding=1, act="relu", name="db_c2"))
        self.binarize = DBHeadBranch(16)
        self.thresh = DBHeadBranch(16)

    def step_function(self, x, y):
        return paddle.reciprocal(1 + paddle.exp(-self.k * (x - y)))

    def forward(self, x):
        feat = self.backbone(x)
        shrink_maps = self.binarize(feat)
        threshold_maps = self.thresh(feat)
        binary_maps = self.step_function(shrink_maps, threshold_maps)
        return paddle.concat([shrink_maps, threshold_maps, binary_maps], axis=1)


ZOO = {
    "crnn_ctc": (CRNN, [("float32", [2, 3, 16, 40])]),
    "dbnet": (DBNet, [("float32", [1, 3, 16, 16])]),
}
