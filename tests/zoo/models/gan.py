"""GAN models written as PaddleGAN writes them (small sizes): a DCGAN generator, a PatchGAN discriminator with
instance norm and spectral-free leaky ReLUs, and a CycleGAN ResNet generator with reflection padding."""
import functools

import paddle
import paddle.nn as nn


def build_norm_layer(norm_type="instance"):
    if norm_type == "batch":
        return functools.partial(nn.BatchNorm2D, weight_attr=paddle.ParamAttr(
            initializer=nn.initializer.Normal(1.0, 0.02)), bias_attr=paddle.ParamAttr(
            initializer=nn.initializer.Constant(0.0)))
    if norm_type == "instance":
        return functools.partial(nn.InstanceNorm2D, weight_attr=False, bias_attr=False)
    raise NotImplementedError("normalization layer [%s] is not found" % norm_type)


class DCGenerator(nn.Layer):
    def __init__(self, input_nz=16, input_nc=3, output_nc=3, ngf=8, norm_type="batch"):
        super(DCGenerator, self).__init__()
        norm_layer = build_norm_layer(norm_type)
        use_bias = norm_type == "instance"
        mult = 4
        model = [nn.Conv2DTranspose(input_nz, ngf * mult, kernel_size=4, stride=1, padding=0, bias_attr=use_bias),
                 norm_layer(ngf * mult), nn.ReLU()]
        for i in range(1, 3):
            mult = 2 ** (2 - i)
            model += [nn.Conv2DTranspose(ngf * mult * 2, ngf * mult, kernel_size=4, stride=2, padding=1,
                                         bias_attr=use_bias),
                      norm_layer(ngf * mult), nn.ReLU()]
        model += [nn.Conv2DTranspose(ngf, output_nc, kernel_size=4, stride=2, padding=1, bias_attr=use_bias),
                  nn.Tanh()]
        self.model = nn.Sequential(*model)

    def forward(self, x):
        return self.model(x)


class NLayerDiscriminator(nn.Layer):
    def __init__(self, input_nc=3, ndf=8, n_layers=2, norm_type="instance"):
        super(NLayerDiscriminator, self).__init__()
        norm_layer = build_norm_layer(norm_type)
        use_bias = isinstance(norm_layer, functools.partial) and norm_layer.func == nn.InstanceNorm2D
        kw, padw = 4, 1
        sequence = [nn.Conv2D(input_nc, ndf, kernel_size=kw, stride=2, padding=padw), nn.LeakyReLU(0.2)]
        nf_mult = 1
        for n in range(1, n_layers):
            nf_mult_prev, nf_mult = nf_mult, min(2 ** n, 8)
            sequence += [nn.Conv2D(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=2, padding=padw,
                                   bias_attr=use_bias), norm_layer(ndf * nf_mult), nn.LeakyReLU(0.2)]
        nf_mult_prev, nf_mult = nf_mult, min(2 ** n_layers, 8)
        sequence += [nn.Conv2D(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=1, padding=padw,
                               bias_attr=use_bias), norm_layer(ndf * nf_mult), nn.LeakyReLU(0.2)]
        sequence += [nn.Conv2D(ndf * nf_mult, 1, kernel_size=kw, stride=1, padding=padw)]
        self.model = nn.Sequential(*sequence)

    def forward(self, input):
        return self.model(input)


class ResnetBlock(nn.Layer):
    def __init__(self, dim, padding_type, norm_layer, use_dropout, use_bias):
        super(ResnetBlock, self).__init__()
        self.conv_block = self.build_conv_block(dim, padding_type, norm_layer, use_dropout, use_bias)

    def build_conv_block(self, dim, padding_type, norm_layer, use_dropout, use_bias):
        conv_block = []
        for i in range(2):
            p = 0
            if padding_type == "reflect":
                conv_block += [nn.Pad2D(padding=[1, 1, 1, 1], mode="reflect")]
            elif padding_type == "replicate":
                conv_block += [nn.Pad2D(padding=[1, 1, 1, 1], mode="replicate")]
            else:
                p = 1
            conv_block += [nn.Conv2D(dim, dim, kernel_size=3, padding=p, bias_attr=use_bias), norm_layer(dim)]
            if i == 0:
                conv_block += [nn.ReLU()]
                if use_dropout:
                    conv_block += [nn.Dropout(0.5)]
        return nn.Sequential(*conv_block)

    def forward(self, x):
        return x + self.conv_block(x)


class ResnetGenerator(nn.Layer):
    def __init__(self, input_nc=3, output_nc=3, ngf=8, norm_type="instance", use_dropout=True, n_blocks=2,
                 padding_type="reflect"):
        super(ResnetGenerator, self).__init__()
        norm_layer = build_norm_layer(norm_type)
        use_bias = isinstance(norm_layer, functools.partial) and norm_layer.func == nn.InstanceNorm2D
        model = [nn.Pad2D(padding=[3, 3, 3, 3], mode="reflect"),
                 nn.Conv2D(input_nc, ngf, kernel_size=7, padding=0, bias_attr=use_bias), norm_layer(ngf), nn.ReLU()]
        mult = 1
        model += [nn.Conv2D(ngf, ngf * 2, kernel_size=3, stride=2, padding=1, bias_attr=use_bias),
                  norm_layer(ngf * 2), nn.ReLU()]
        mult = 2
        for i in range(n_blocks):
            model += [ResnetBlock(ngf * mult, padding_type=padding_type, norm_layer=norm_layer,
                                  use_dropout=use_dropout, use_bias=use_bias)]
        model += [nn.Conv2DTranspose(ngf * mult, ngf, kernel_size=3, stride=2, padding=1, output_padding=1,
                                     bias_attr=use_bias), norm_layer(ngf), nn.ReLU()]
        model += [nn.Pad2D(padding=[3, 3, 3, 3], mode="reflect"), nn.Conv2D(ngf, output_nc, kernel_size=7, padding=0),
                  nn.Tanh()]
        self.model = nn.Sequential(*model)

    def forward(self, x):
        return self.model(x)


ZOO = {
    "dcgan_generator": (DCGenerator, [("float32", [2, 16, 1, 1])]),
    "patchgan_discriminator": (NLayerDiscriminator, [("float32", [1, 3, 32, 32])]),
    "cyclegan_resnet_generator": (ResnetGenerator, [("float32", [1, 3, 16, 16])]),
}
