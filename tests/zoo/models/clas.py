"""Image classification models written as PaddleClas writes them (small sizes): ResNet-vd, MobileNetV3, ViT (patches
by unfold), ConvNeXt, Swin (shifted windows by roll), GhostNet."""
import math

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle import ParamAttr
from paddle.nn import AdaptiveAvgPool2D, Conv2D, Linear
from paddle.nn.initializer import Constant, KaimingNormal, TruncatedNormal, Uniform
from paddle.regularizer import L2Decay

trunc_normal_ = TruncatedNormal(std=0.02)
zeros_ = Constant(value=0.0)
ones_ = Constant(value=1.0)


class ConvBNLayer(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1, is_vd_mode=False, act=None,
                 name=None):
        super(ConvBNLayer, self).__init__()
        self.is_vd_mode = is_vd_mode
        self._pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0, ceil_mode=True)
        self._conv = Conv2D(in_channels=num_channels, out_channels=num_filters, kernel_size=filter_size,
                            stride=stride, padding=(filter_size - 1) // 2, groups=groups,
                            weight_attr=ParamAttr(name=name + "_weights"), bias_attr=False)
        bn_name = "bn" + name[3:] if name.startswith("res") else "bn_" + name
        self._batch_norm = nn.BatchNorm(num_filters, act=act,
                                        param_attr=ParamAttr(name=bn_name + "_scale", regularizer=L2Decay(0.0)),
                                        bias_attr=ParamAttr(bn_name + "_offset", regularizer=L2Decay(0.0)),
                                        moving_mean_name=bn_name + "_mean", moving_variance_name=bn_name + "_variance")

    def forward(self, inputs):
        if self.is_vd_mode:
            inputs = self._pool2d_avg(inputs)
        y = self._conv(inputs)
        y = self._batch_norm(y)
        return y


class BasicBlock(nn.Layer):
    def __init__(self, num_channels, num_filters, stride, shortcut=True, if_first=False, name=None):
        super(BasicBlock, self).__init__()
        self.stride = stride
        self.conv0 = ConvBNLayer(num_channels, num_filters, 3, stride=stride, act="relu", name=name + "_branch2a")
        self.conv1 = ConvBNLayer(num_filters, num_filters, 3, act=None, name=name + "_branch2b")
        if not shortcut:
            self.short = ConvBNLayer(num_channels, num_filters, 1, stride=1,
                                     is_vd_mode=False if if_first else True, name=name + "_branch1")
        self.shortcut = shortcut

    def forward(self, inputs):
        y = self.conv0(inputs)
        conv1 = self.conv1(y)
        short = inputs if self.shortcut else self.short(inputs)
        y = paddle.add(x=short, y=conv1)
        y = F.relu(y)
        return y


class ResNetVd(nn.Layer):
    def __init__(self, class_num=10):
        super(ResNetVd, self).__init__()
        self.conv1_1 = ConvBNLayer(3, 8, 3, stride=2, act="relu", name="conv1_1")
        self.conv1_2 = ConvBNLayer(8, 8, 3, stride=1, act="relu", name="conv1_2")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_list = []
        num_channels, shortcut = 8, False
        for block, num_filters in enumerate([8, 16]):
            for i in range(2):
                conv_name = "res" + str(block + 2) + chr(97 + i)
                basic_block = self.add_sublayer(
                    "bb_%d_%d" % (block, i),
                    BasicBlock(num_channels, num_filters, stride=2 if i == 0 and block != 0 else 1,
                               shortcut=shortcut, if_first=block == i == 0, name=conv_name))
                self.block_list.append(basic_block)
                num_channels, shortcut = num_filters, True
            shortcut = False
        self.pool2d_avg = AdaptiveAvgPool2D(1)
        self.pool2d_avg_channels = 16
        stdv = 1.0 / math.sqrt(self.pool2d_avg_channels * 1.0)
        self.out = Linear(self.pool2d_avg_channels, class_num,
                          weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv), name="fc_0.w_0"),
                          bias_attr=ParamAttr(name="fc_0.b_0"))

    def forward(self, inputs):
        y = self.conv1_2(self.conv1_1(inputs))
        y = self.pool2d_max(y)
        for block in self.block_list:
            y = block(y)
        y = self.pool2d_avg(y)
        y = paddle.reshape(y, shape=[-1, self.pool2d_avg_channels])
        return self.out(y)


def make_divisible(v, divisor=8, min_value=None):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvBNAct(nn.Layer):
    def __init__(self, in_c, out_c, filter_size, stride, padding, num_groups=1, if_act=True, act=None):
        super().__init__()
        self.conv = Conv2D(in_c, out_c, filter_size, stride=stride, padding=padding, groups=num_groups,
                           bias_attr=False)
        self.bn = nn.BatchNorm2D(out_c, weight_attr=ParamAttr(regularizer=L2Decay(0.0)),
                                 bias_attr=ParamAttr(regularizer=L2Decay(0.0)))
        self.if_act = if_act
        self.act = {"relu": nn.ReLU, "hardswish": nn.Hardswish}[act]() if act else None

    def forward(self, x):
        x = self.bn(self.conv(x))
        if self.if_act:
            x = self.act(x)
        return x


class SEModule(nn.Layer):
    def __init__(self, channel, reduction=4):
        super().__init__()
        self.avg_pool = AdaptiveAvgPool2D(1)
        self.conv1 = Conv2D(channel, channel // reduction, 1)
        self.relu = nn.ReLU()
        self.conv2 = Conv2D(channel // reduction, channel, 1)

    def forward(self, x):
        identity = x
        x = self.relu(self.conv1(self.avg_pool(x)))
        x = F.hardsigmoid(self.conv2(x), slope=0.2, offset=0.5)
        return paddle.multiply(x=identity, y=x)


class ResidualUnit(nn.Layer):
    def __init__(self, in_c, mid_c, out_c, filter_size, stride, use_se, act=None):
        super().__init__()
        self.if_shortcut = stride == 1 and in_c == out_c
        self.if_se = use_se
        self.expand_conv = ConvBNAct(in_c, mid_c, 1, 1, 0, if_act=True, act=act)
        self.bottleneck_conv = ConvBNAct(mid_c, mid_c, filter_size, stride, int((filter_size - 1) // 2),
                                         num_groups=mid_c, if_act=True, act=act)
        if self.if_se:
            self.mid_se = SEModule(mid_c)
        self.linear_conv = ConvBNAct(mid_c, out_c, 1, 1, 0, if_act=False, act=None)

    def forward(self, x):
        identity = x
        x = self.bottleneck_conv(self.expand_conv(x))
        if self.if_se:
            x = self.mid_se(x)
        x = self.linear_conv(x)
        if self.if_shortcut:
            x = paddle.add(identity, x)
        return x


class MobileNetV3Small(nn.Layer):
    # k, exp, c, se, act, s
    CFG = [[3, 16, 16, True, "relu", 2], [3, 24, 16, False, "relu", 1], [5, 32, 24, True, "hardswish", 2],
           [5, 48, 24, True, "hardswish", 1]]

    def __init__(self, scale=1.0, class_num=10):
        super().__init__()
        inplanes = make_divisible(16 * scale)
        self.conv = ConvBNAct(3, inplanes, 3, 2, 1, if_act=True, act="hardswish")
        blocks = []
        for k, exp, c, se, act, s in self.CFG:
            blocks.append(ResidualUnit(inplanes, make_divisible(scale * exp), make_divisible(scale * c), k, s, se,
                                       act))
            inplanes = make_divisible(scale * c)
        self.blocks = nn.Sequential(*blocks)
        self.last_conv = ConvBNAct(inplanes, 48, 1, 1, 0, if_act=True, act="hardswish")
        self.avg_pool = AdaptiveAvgPool2D(1)
        self.last = Conv2D(48, 64, 1, bias_attr=False)
        self.hardswish = nn.Hardswish()
        self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
        self.flatten = nn.Flatten(start_axis=1, stop_axis=-1)
        self.fc = Linear(64, class_num)

    def forward(self, x):
        x = self.last_conv(self.blocks(self.conv(x)))
        x = self.hardswish(self.last(self.avg_pool(x)))
        x = self.dropout(x)
        return self.fc(self.flatten(x))


class PatchEmbed(nn.Layer):
    """Image to patch embedding, the patches cut by ``F.unfold`` (Paddle's ViT tutorial)."""

    def __init__(self, img_size=16, patch_size=4, in_chans=3, embed_dim=32):
        super().__init__()
        self.patch_size = patch_size
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Linear(in_chans * patch_size * patch_size, embed_dim)

    def forward(self, x):
        x = F.unfold(x, kernel_sizes=self.patch_size, strides=self.patch_size)
        return self.proj(x.transpose((0, 2, 1)))


class Mlp(nn.Layer):
    def __init__(self, in_features, hidden_features, act_layer=nn.GELU, drop=0.0):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = act_layer()
        self.fc2 = nn.Linear(hidden_features, in_features)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return self.drop(self.fc2(self.drop(self.act(self.fc1(x)))))


class Attention(nn.Layer):
    def __init__(self, dim, num_heads=2, qkv_bias=True):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias_attr=qkv_bias)
        self.proj = nn.Linear(dim, dim)
        self.attn_drop = nn.Dropout(0.0)

    def forward(self, x):
        N, C = x.shape[1:]
        qkv = self.qkv(x).reshape((-1, N, 3, self.num_heads, C // self.num_heads)).transpose((2, 0, 3, 1, 4))
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q.matmul(k.transpose((0, 1, 3, 2)))) * self.scale
        attn = self.attn_drop(nn.functional.softmax(attn, axis=-1))
        x = (attn.matmul(v)).transpose((0, 2, 1, 3)).reshape((-1, N, C))
        return self.proj(x)


class DropPath(nn.Layer):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep_prob = paddle.to_tensor(1 - self.drop_prob, dtype=x.dtype)
        shape = (paddle.shape(x)[0],) + (1,) * (x.ndim - 1)
        random_tensor = paddle.floor(keep_prob + paddle.rand(shape, dtype=x.dtype))
        return x.divide(keep_prob) * random_tensor


class Block(nn.Layer):
    def __init__(self, dim, num_heads, mlp_ratio=2.0, drop_path=0.1, epsilon=1e-6):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, epsilon=epsilon)
        self.attn = Attention(dim, num_heads=num_heads)
        self.drop_path = DropPath(drop_path)
        self.norm2 = nn.LayerNorm(dim, epsilon=epsilon)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))

    def forward(self, x):
        x = x + self.drop_path(self.attn(self.norm1(x)))
        return x + self.drop_path(self.mlp(self.norm2(x)))


class VisionTransformer(nn.Layer):
    def __init__(self, img_size=16, patch_size=4, class_num=10, embed_dim=32, depth=2, num_heads=2):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch_size, 3, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.pos_embed = self.create_parameter(shape=(1, num_patches + 1, embed_dim), default_initializer=zeros_)
        self.add_parameter("pos_embed", self.pos_embed)
        self.cls_token = self.create_parameter(shape=(1, 1, embed_dim), default_initializer=zeros_)
        self.add_parameter("cls_token", self.cls_token)
        self.blocks = nn.LayerList([Block(embed_dim, num_heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim, epsilon=1e-6)
        self.head = Linear(embed_dim, class_num)
        trunc_normal_(self.pos_embed)
        trunc_normal_(self.cls_token)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            trunc_normal_(m.weight)
            if m.bias is not None:
                zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            zeros_(m.bias)
            ones_(m.weight)

    def forward(self, x):
        B = paddle.shape(x)[0]
        x = self.patch_embed(x)
        cls_tokens = self.cls_token.expand((B, -1, -1))
        x = paddle.concat((cls_tokens, x), axis=1)
        x = x + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        return self.head(x[:, 0])


class ChannelsFirstLayerNorm(nn.Layer):
    def __init__(self, normalized_shape, epsilon=1e-6):
        super().__init__()
        self.weight = self.create_parameter(shape=[normalized_shape], default_initializer=ones_)
        self.bias = self.create_parameter(shape=[normalized_shape], default_initializer=zeros_)
        self.epsilon = epsilon

    def forward(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / paddle.sqrt(s + self.epsilon)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class ConvNeXtBlock(nn.Layer):
    def __init__(self, dim, layer_scale_init_value=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2D(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, epsilon=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = paddle.create_parameter(shape=[dim], dtype="float32",
                                             default_initializer=Constant(value=layer_scale_init_value))

    def forward(self, x):
        input = x
        x = self.dwconv(x).transpose([0, 2, 3, 1])
        x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
        x = (self.gamma * x).transpose([0, 3, 1, 2])
        return input + x


class ConvNeXt(nn.Layer):
    def __init__(self, class_num=10, depths=(1, 1), dims=(16, 32)):
        super().__init__()
        self.downsample_layers = nn.LayerList()
        self.downsample_layers.append(nn.Sequential(nn.Conv2D(3, dims[0], 4, stride=4),
                                                    ChannelsFirstLayerNorm(dims[0])))
        self.downsample_layers.append(nn.Sequential(ChannelsFirstLayerNorm(dims[0]),
                                                    nn.Conv2D(dims[0], dims[1], 2, stride=2)))
        self.stages = nn.LayerList([nn.Sequential(*[ConvNeXtBlock(dims[i]) for _ in range(depths[i])])
                                    for i in range(2)])
        self.norm = nn.LayerNorm(dims[-1], epsilon=1e-6)
        self.head = nn.Linear(dims[-1], class_num)

    def forward(self, x):
        for i in range(2):
            x = self.stages[i](self.downsample_layers[i](x))
        return self.head(self.norm(x.mean([-2, -1])))


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.reshape([B, H // window_size, window_size, W // window_size, window_size, C])
    return x.transpose([0, 1, 3, 2, 4, 5]).reshape([-1, window_size, window_size, C])


def window_reverse(windows, window_size, H, W, C):
    x = windows.reshape([-1, H // window_size, W // window_size, window_size, window_size, C])
    return x.transpose([0, 1, 3, 2, 4, 5]).reshape([-1, H, W, C])


class WindowAttention(nn.Layer):
    def __init__(self, dim, window_size, num_heads):
        super().__init__()
        self.dim, self.window_size, self.num_heads = dim, window_size, num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.relative_position_bias_table = self.create_parameter(
            shape=((2 * window_size - 1) * (2 * window_size - 1), num_heads), default_initializer=zeros_)
        self.add_parameter("relative_position_bias_table", self.relative_position_bias_table)
        coords_h = paddle.arange(window_size)
        coords_w = paddle.arange(window_size)
        coords = paddle.stack(paddle.meshgrid([coords_h, coords_w]))
        coords_flatten = paddle.flatten(coords, 1)
        relative_coords = coords_flatten.unsqueeze(-1) - coords_flatten.unsqueeze(1)
        relative_coords = relative_coords.transpose([1, 2, 0])
        relative_coords[:, :, 0] += window_size - 1
        relative_coords[:, :, 1] += window_size - 1
        relative_coords[:, :, 0] *= 2 * window_size - 1
        self.register_buffer("relative_position_index", relative_coords.sum(-1))
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.softmax = nn.Softmax(axis=-1)

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape([B_, N, 3, self.num_heads, C // self.num_heads]).transpose([2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = paddle.mm(q * self.scale, k.transpose([0, 1, 3, 2]))
        index = self.relative_position_index.reshape([-1])
        bias = paddle.index_select(self.relative_position_bias_table, index)
        bias = bias.reshape([N, N, -1]).transpose([2, 0, 1])
        attn = attn + bias.unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.reshape([B_ // nW, nW, self.num_heads, N, N]) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.reshape([-1, self.num_heads, N, N])
        attn = self.softmax(attn)
        x = paddle.mm(attn, v).transpose([0, 2, 1, 3]).reshape([B_, N, C])
        return self.proj(x)


class SwinBlock(nn.Layer):
    def __init__(self, dim, resolution, num_heads, window_size=2, shift_size=1):
        super().__init__()
        self.resolution, self.window_size, self.shift_size = resolution, window_size, shift_size
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, window_size, num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, dim * 2)
        if self.shift_size > 0:
            H = W = resolution
            img_mask = np.zeros((1, H, W, 1), "float32")
            slices = (slice(0, -window_size), slice(-window_size, -shift_size), slice(-shift_size, None))
            cnt = 0
            for h in slices:
                for w in slices:
                    img_mask[:, h, w, :] = cnt
                    cnt += 1
            mask_windows = window_partition(paddle.to_tensor(img_mask), window_size)
            mask_windows = mask_windows.reshape([-1, window_size * window_size])
            attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
            huns = -100.0 * paddle.ones_like(attn_mask)
            attn_mask = huns * (attn_mask != 0).astype("float32")
        else:
            attn_mask = None
        self.register_buffer("attn_mask", attn_mask)

    def forward(self, x):
        H = W = self.resolution
        B, L, C = x.shape
        shortcut = x
        x = self.norm1(x).reshape([B, H, W, C])
        if self.shift_size > 0:
            x = paddle.roll(x, shifts=(-self.shift_size, -self.shift_size), axis=(1, 2))
        x_windows = window_partition(x, self.window_size).reshape([-1, self.window_size * self.window_size, C])
        attn_windows = self.attn(x_windows, mask=self.attn_mask)
        attn_windows = attn_windows.reshape([-1, self.window_size, self.window_size, C])
        x = window_reverse(attn_windows, self.window_size, H, W, C)
        if self.shift_size > 0:
            x = paddle.roll(x, shifts=(self.shift_size, self.shift_size), axis=(1, 2))
        x = shortcut + x.reshape([B, H * W, C])
        return x + self.mlp(self.norm2(x))


class SwinTiny(nn.Layer):
    def __init__(self, class_num=10, dim=16):
        super().__init__()
        self.patch_embed = nn.Conv2D(3, dim, 4, stride=4)
        self.blocks = nn.LayerList([SwinBlock(dim, 4, 2, shift_size=0), SwinBlock(dim, 4, 2, shift_size=1)])
        self.norm = nn.LayerNorm(dim)
        self.avgpool = nn.AdaptiveAvgPool1D(1)
        self.head = nn.Linear(dim, class_num)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose([0, 2, 1])
        for blk in self.blocks:
            x = blk(x)
        x = self.avgpool(self.norm(x).transpose([0, 2, 1]))
        return self.head(paddle.flatten(x, 1))


class GhostModule(nn.Layer):
    def __init__(self, in_channels, output_channels, kernel_size=1, ratio=2, dw_size=3, relu=True):
        super().__init__()
        init_channels = int(math.ceil(output_channels / ratio))
        new_channels = int(init_channels * (ratio - 1))
        self._output_channels = output_channels
        self.primary_conv = nn.Sequential(
            nn.Conv2D(in_channels, init_channels, kernel_size, padding=kernel_size // 2,
                      weight_attr=ParamAttr(initializer=KaimingNormal()), bias_attr=False),
            nn.BatchNorm2D(init_channels), nn.ReLU() if relu else nn.Identity())
        self.cheap_operation = nn.Sequential(
            nn.Conv2D(init_channels, new_channels, dw_size, padding=dw_size // 2, groups=init_channels,
                      bias_attr=False),
            nn.BatchNorm2D(new_channels), nn.ReLU() if relu else nn.Identity())

    def forward(self, inputs):
        x = self.primary_conv(inputs)
        y = self.cheap_operation(x)
        out = paddle.concat([x, y], axis=1)
        return out[:, :self._output_channels]


class GhostNet(nn.Layer):
    def __init__(self, class_num=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2D(3, 8, 3, stride=2, padding=1, bias_attr=False), nn.BatchNorm2D(8),
                                  nn.ReLU())
        self.ghost1 = GhostModule(8, 13)
        self.ghost2 = GhostModule(13, 8, relu=False)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(8, class_num)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.ghost2(self.ghost1(x))
        return self.fc(paddle.flatten(self.pool(x), 1))


IMG = ("float32", [2, 3, 32, 32])
ZOO = {
    "resnet18_vd": (ResNetVd, [IMG]),
    "mobilenet_v3_small": (MobileNetV3Small, [IMG]),
    "vit_unfold": (VisionTransformer, [("float32", [2, 3, 16, 16])]),
    "convnext": (ConvNeXt, [IMG]),
    "swin_shifted_window": (SwinTiny, [("float32", [1, 3, 16, 16])]),
    "ghostnet": (GhostNet, [IMG]),
}
