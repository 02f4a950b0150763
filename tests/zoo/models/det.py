"""Object detection models written as PaddleDetection writes them (small sizes): a DarkNet + YOLOv3 FPN head with
the IoU-aware branch decoded by ``yolo_box``, an FCOS head with learned per-level scales, and a two-stage RoIAlign box
head."""
import math

import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle import ParamAttr
from paddle.nn.initializer import Constant, Normal
from paddle.regularizer import L2Decay


class ConvBNLayer(nn.Layer):
    def __init__(self, ch_in, ch_out, filter_size=3, stride=1, groups=1, padding=0, act="leaky"):
        super(ConvBNLayer, self).__init__()
        self.conv = nn.Conv2D(in_channels=ch_in, out_channels=ch_out, kernel_size=filter_size, stride=stride,
                              padding=padding, groups=groups, bias_attr=False)
        self.batch_norm = nn.BatchNorm2D(ch_out, weight_attr=ParamAttr(regularizer=L2Decay(0.0)),
                                         bias_attr=ParamAttr(regularizer=L2Decay(0.0)))
        self.act = act

    def forward(self, inputs):
        out = self.batch_norm(self.conv(inputs))
        if self.act == "leaky":
            out = F.leaky_relu(out, 0.1)
        return out


class DownSample(nn.Layer):
    def __init__(self, ch_in, ch_out):
        super(DownSample, self).__init__()
        self.conv_bn_layer = ConvBNLayer(ch_in, ch_out, filter_size=3, stride=2, padding=1)

    def forward(self, inputs):
        return self.conv_bn_layer(inputs)


class BasicBlock(nn.Layer):
    def __init__(self, ch_in, ch_out):
        super(BasicBlock, self).__init__()
        self.conv1 = ConvBNLayer(ch_in, ch_out, filter_size=1, stride=1, padding=0)
        self.conv2 = ConvBNLayer(ch_out, ch_out * 2, filter_size=3, stride=1, padding=1)

    def forward(self, inputs):
        return paddle.add(x=inputs, y=self.conv2(self.conv1(inputs)))


class DarkNet(nn.Layer):
    def __init__(self, return_idx=(2, 3)):
        super(DarkNet, self).__init__()
        self.return_idx = return_idx
        self.conv0 = ConvBNLayer(3, 8, filter_size=3, stride=1, padding=1)
        self.downsample0 = DownSample(8, 16)
        self._out_channels = []
        self.darknet_conv_block_list = []
        self.downsample_list = []
        ch_in = [16, 32, 64, 128]
        for i in range(4):
            name = "stage.{}".format(i)
            conv_block = self.add_sublayer(name, BasicBlock(ch_in[i], ch_in[i] // 2))
            self.darknet_conv_block_list.append(conv_block)
            if i in return_idx:
                self._out_channels.append(ch_in[i])
            if i < 3:
                down = self.add_sublayer("stage.{}.downsample".format(i), DownSample(ch_in[i], ch_in[i + 1]))
                self.downsample_list.append(down)

    def forward(self, x):
        out = self.downsample0(self.conv0(x))
        blocks = []
        for i, conv_block_i in enumerate(self.darknet_conv_block_list):
            out = conv_block_i(out)
            if i in self.return_idx:
                blocks.append(out)
            if i < 3:
                out = self.downsample_list[i](out)
        return blocks


class YoloDetBlock(nn.Layer):
    def __init__(self, ch_in, channel):
        super(YoloDetBlock, self).__init__()
        self.conv_module = nn.Sequential()
        for j, (conv_name, c_in, c_out, k) in enumerate([("conv0", ch_in, channel, 1),
                                                         ("conv1", channel, channel * 2, 3),
                                                         ("route", channel * 2, channel, 1)]):
            self.conv_module.add_sublayer(conv_name, ConvBNLayer(c_in, c_out, filter_size=k, padding=(k - 1) // 2))
        self.tip = ConvBNLayer(channel, channel * 2, filter_size=3, padding=1)

    def forward(self, inputs):
        route = self.conv_module(inputs)
        return route, self.tip(route)


class YOLOv3FPN(nn.Layer):
    def __init__(self, in_channels=(64, 128)):
        super(YOLOv3FPN, self).__init__()
        self.num_blocks = len(in_channels)
        self._out_channels = []
        self.yolo_blocks = []
        self.routes = []
        for i in range(self.num_blocks):
            in_channel = in_channels[-i - 1]
            if i > 0:
                in_channel += 32 // (2 ** i)
            channel = 32 // (2 ** i)
            yolo_block = self.add_sublayer("yolo_block.{}".format(i), YoloDetBlock(in_channel, channel))
            self.yolo_blocks.append(yolo_block)
            self._out_channels.append(channel * 2)
            if i < self.num_blocks - 1:
                route = self.add_sublayer("yolo_transition.{}".format(i),
                                          ConvBNLayer(channel, channel // 2, filter_size=1))
                self.routes.append(route)

    def forward(self, blocks):
        blocks = blocks[::-1]
        yolo_feats, route = [], None
        for i, block in enumerate(blocks):
            if i > 0:
                block = paddle.concat([route, block], axis=1)
            route, tip = self.yolo_blocks[i](block)
            yolo_feats.append(tip)
            if i < self.num_blocks - 1:
                route = self.routes[i](route)
                route = F.interpolate(route, scale_factor=2.0)
        return yolo_feats


def _de_sigmoid(x, eps=1e-7):
    x = paddle.clip(x, eps, 1.0 / eps)
    x = paddle.clip(1.0 / x - 1.0, eps, 1.0 / eps)
    return -paddle.log(x)


class YOLOv3Head(nn.Layer):
    def __init__(self, in_channels=(64, 32), anchors=((30, 61, 62, 45), (10, 13, 16, 30)), num_classes=3,
                 iou_aware=True, iou_aware_factor=0.4):
        super(YOLOv3Head, self).__init__()
        self.num_classes, self.anchors = num_classes, anchors
        self.iou_aware, self.iou_aware_factor = iou_aware, iou_aware_factor
        self.num_outputs = num_classes + 5
        self.yolo_outputs = []
        for i in range(len(anchors)):
            na = len(anchors[i]) // 2
            num_filters = na * (self.num_outputs + 1) if iou_aware else na * self.num_outputs
            conv = nn.Conv2D(in_channels=in_channels[i], out_channels=num_filters, kernel_size=1, stride=1,
                             padding=0, bias_attr=ParamAttr(regularizer=L2Decay(0.0)))
            conv.skip_quant = True
            yolo_output = self.add_sublayer("yolo_output.{}".format(i), conv)
            self.yolo_outputs.append(yolo_output)

    def forward(self, feats):
        yolo_outputs = [self.yolo_outputs[i](feat) for i, feat in enumerate(feats)]
        if self.training or not self.iou_aware:
            return yolo_outputs
        y = []
        for i, out in enumerate(yolo_outputs):
            na = len(self.anchors[i]) // 2
            ioup, x = out[:, 0:na, :, :], out[:, na:, :, :]
            b, c, h, w = x.shape
            no = c // na
            x = x.reshape((b, na, no, h * w))
            ioup = ioup.reshape((b, na, 1, h * w))
            obj = x[:, :, 4:5, :]
            ioup = F.sigmoid(ioup)
            obj = F.sigmoid(obj)
            obj_t = (obj ** (1 - self.iou_aware_factor)) * (ioup ** self.iou_aware_factor)
            obj_t = _de_sigmoid(obj_t)
            loc_t = x[:, :, :4, :]
            cls_t = x[:, :, 5:, :]
            y_t = paddle.concat([loc_t, obj_t, cls_t], axis=2)
            y.append(y_t.reshape((b, c, h, w)))
        return y


class YOLOv3(nn.Layer):
    """DarkNet + FPN + IoU-aware head; eval returns the head maps, the decoded boxes and their scores."""

    def __init__(self, downsample_ratios=(16, 8), conf_thresh=0.005):
        super().__init__()
        self.backbone = DarkNet()
        self.neck = YOLOv3FPN()
        self.yolo_head = YOLOv3Head()
        self.downsample_ratios, self.conf_thresh = downsample_ratios, conf_thresh

    def forward(self, image, im_shape):
        head_outs = self.yolo_head(self.neck(self.backbone(image)))
        boxes_list, scores_list = [], []
        for i, head_out in enumerate(head_outs):
            boxes, scores = paddle.vision.ops.yolo_box(head_out, im_shape, list(self.yolo_head.anchors[i]),
                                                       self.yolo_head.num_classes, self.conf_thresh,
                                                       self.downsample_ratios[i], clip_bbox=True, scale_x_y=1.05)
            boxes_list.append(boxes)
            scores_list.append(paddle.transpose(scores, perm=[0, 2, 1]))
        return head_outs[0], head_outs[1], paddle.concat(boxes_list, axis=1), paddle.concat(scores_list, axis=2)


class ScaleReg(nn.Layer):
    def __init__(self):
        super(ScaleReg, self).__init__()
        self.scale_reg = self.create_parameter(shape=[1], attr=ParamAttr(initializer=Constant(value=1.0)),
                                               dtype="float32")

    def forward(self, inputs):
        return inputs * self.scale_reg


class FCOSFeat(nn.Layer):
    def __init__(self, feat_in=16, feat_out=16, num_convs=2, norm_type="gn"):
        super(FCOSFeat, self).__init__()
        self.cls_subnet_convs = []
        self.reg_subnet_convs = []
        for i in range(num_convs):
            in_c = feat_in if i == 0 else feat_out
            for kind, lst in (("cls", self.cls_subnet_convs), ("reg", self.reg_subnet_convs)):
                conv = self.add_sublayer("fcos_head_{}_tower_conv_{}".format(kind, i), nn.Sequential(
                    nn.Conv2D(in_c, feat_out, 3, padding=1, weight_attr=ParamAttr(initializer=Normal(0, 0.01)),
                              bias_attr=ParamAttr(initializer=Constant(0.0))),
                    nn.GroupNorm(4, feat_out)))
                lst.append(conv)

    def forward(self, fpn_feat):
        cls_feat, reg_feat = fpn_feat, fpn_feat
        for i in range(len(self.cls_subnet_convs)):
            cls_feat = F.relu(self.cls_subnet_convs[i](cls_feat))
            reg_feat = F.relu(self.reg_subnet_convs[i](reg_feat))
        return cls_feat, reg_feat


class FCOS(nn.Layer):
    def __init__(self, num_classes=4, fpn_stride=(8, 16), prior_prob=0.01):
        super().__init__()
        self.fpn_stride = fpn_stride
        self.stem = nn.Sequential(nn.Conv2D(3, 16, 3, stride=4, padding=1), nn.ReLU())
        self.down = nn.Conv2D(16, 16, 3, stride=2, padding=1)
        self.fcos_feat = FCOSFeat()
        bias_init_value = -math.log((1 - prior_prob) / prior_prob)
        self.fcos_head_cls = nn.Conv2D(16, num_classes, 3, padding=1, weight_attr=ParamAttr(
            initializer=Normal(mean=0.0, std=0.01)), bias_attr=ParamAttr(initializer=Constant(value=bias_init_value)))
        self.fcos_head_reg = nn.Conv2D(16, 4, 3, padding=1)
        self.fcos_head_centerness = nn.Conv2D(16, 1, 3, padding=1)
        self.scales_regs = [self.add_sublayer("p{}_feat".format(i), ScaleReg()) for i in range(len(fpn_stride))]

    def forward(self, image):
        p3 = self.stem(image)
        fpn_feats = [p3, self.down(p3)]
        cls_logits_list, bboxes_reg_list, centerness_list = [], [], []
        for scale_reg, fpn_stride, fpn_feat in zip(self.scales_regs, self.fpn_stride, fpn_feats):
            fcos_cls_feat, fcos_reg_feat = self.fcos_feat(fpn_feat)
            cls_logits = self.fcos_head_cls(fcos_cls_feat)
            bbox_reg = scale_reg(self.fcos_head_reg(fcos_reg_feat))
            bbox_reg = F.relu(bbox_reg) * fpn_stride
            centerness = self.fcos_head_centerness(fcos_reg_feat)
            cls_logits_list.append(F.sigmoid(cls_logits).flatten(2))
            bboxes_reg_list.append(bbox_reg.flatten(2))
            centerness_list.append(F.sigmoid(centerness).flatten(2))
        cls = paddle.concat(cls_logits_list, axis=2)
        scores = cls * paddle.concat(centerness_list, axis=2)
        return scores, paddle.concat(bboxes_reg_list, axis=2)


class RoIAlignHead(nn.Layer):
    """The second stage of Faster R-CNN: RoIAlign features of given boxes, two fully connected layers, class scores
    and box deltas."""

    def __init__(self, num_classes=3, resolution=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2D(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2D(8, 8, 3, stride=2, padding=1), nn.ReLU())
        self.resolution = resolution
        fan = 8 * resolution * resolution
        self.fc6 = nn.Linear(fan, 16, weight_attr=ParamAttr(initializer=paddle.nn.initializer.KaimingUniform(
            fan_in=fan)))
        self.fc7 = nn.Linear(16, 16)
        self.bbox_score = nn.Linear(16, num_classes + 1, weight_attr=ParamAttr(initializer=Normal(0.0, 0.01)))
        self.bbox_delta = nn.Linear(16, 4 * num_classes, weight_attr=ParamAttr(initializer=Normal(0.0, 0.001)))

    def forward(self, image, rois, rois_num):
        feat = self.backbone(image)
        roi_feat = paddle.vision.ops.roi_align(feat, rois, rois_num, self.resolution, spatial_scale=0.25,
                                               sampling_ratio=2, aligned=True)
        feat = F.relu(self.fc7(F.relu(self.fc6(paddle.flatten(roi_feat, start_axis=1, stop_axis=-1)))))
        return F.softmax(self.bbox_score(feat)), self.bbox_delta(feat)


ROIS = ("const", "float32", [[2.0, 2.0, 20.0, 20.0], [8.0, 4.5, 30.0, 28.0], [0.0, 0.0, 31.0, 31.0]])
ZOO = {
    "yolov3_darknet_iou_aware": (YOLOv3, [("float32", [1, 3, 64, 64]), ("const", "int32", [[608, 640]])]),
    "fcos": (FCOS, [("float32", [1, 3, 32, 32])]),
    "faster_rcnn_roi_align_head": (RoIAlignHead, [("float32", [1, 3, 32, 32]), ROIS, ("const", "int32", [3])]),
}
