"""Shared by the model builders: Paddle's published pretrained weights, fetched on request."""
from ...dataset import download

# arch -> (url, md5): the weights Paddle's model zoo publishes for `paddle.vision.models` (same files, same sums)
WEIGHTS = {
    "resnet18": ("https://paddle-hapi.bj.bcebos.com/models/resnet18.pdparams", "cf548f46534aa3560945be4b95cd11c4"),
    "resnet34": ("https://paddle-hapi.bj.bcebos.com/models/resnet34.pdparams", "8d2275cf8706028345f78ac0e1d31969"),
    "resnet50": ("https://paddle-hapi.bj.bcebos.com/models/resnet50.pdparams", "ca6f485ee1ab0492d38f323885b0ad80"),
    "resnet101": ("https://paddle-hapi.bj.bcebos.com/models/resnet101.pdparams", "02f35f034ca3858e1e54d4036443c92d"),
    "resnet152": ("https://paddle-hapi.bj.bcebos.com/models/resnet152.pdparams", "7ad16a2f1e7333859ff986138630fd7a"),
    "vgg16": ("https://paddle-hapi.bj.bcebos.com/models/vgg16.pdparams", "89bbffc0f87d260be9b8cdc169c991c4"),
    "vgg19": ("https://paddle-hapi.bj.bcebos.com/models/vgg19.pdparams", "23b18bb13d8894f60f54e642be79a0dd"),
    "mobilenetv2_1.0": ("https://paddle-hapi.bj.bcebos.com/models/mobilenet_v2_x1.0.pdparams",
                        "0340af0a901346c8d46f4529882fb63d"),
    "mobilenetv1_1.0": ("https://paddle-hapi.bj.bcebos.com/models/mobilenetv1_1.0.pdparams",
                        "3033ab1975b1670bef51545feb65fc45"),
    "mobilenet_v3_small_x1.0": ("https://paddle-hapi.bj.bcebos.com/models/mobilenet_v3_small_x1.0.pdparams",
                                "34fe0e7c1f8b00b2b056ad6788d0590c"),
    "mobilenet_v3_large_x1.0": ("https://paddle-hapi.bj.bcebos.com/models/mobilenet_v3_large_x1.0.pdparams",
                                "118db5792b4e183b925d8e8e334db3df"),
    "alexnet": ("https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/AlexNet_pretrained.pdparams",
                "7f0f9f737132e02732d75a1459d98a43"),
    "googlenet": ("https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/GoogLeNet_pretrained.pdparams",
                  "80c06f038e905c53ab32c40eca6e26ae"),
    "squeezenet1_0": ("https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/SqueezeNet1_0_pretrained.pdparams",
                      "30b95af60a2178f03cf9b66cd77e1db1"),
    "squeezenet1_1": ("https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/SqueezeNet1_1_pretrained.pdparams",
                      "a11250d3a1f91d7131fd095ebbf09eee"),
    "inception_v3": ("https://paddle-hapi.bj.bcebos.com/models/inception_v3.pdparams",
                     "649a4547c3243e8b59c656f41fe330b8"),
}


def with_pretrained(model, arch, pretrained):
    """`model` with Paddle's published weights for `arch` loaded when `pretrained`: fetched into
    ``oar.dataset.download.WEIGHTS_HOME`` on first use (MD5-checked, resumable, with a progress bar), read with the
    restricted unpickler (arrays and containers only) and set with every key and shape checked."""
    if not pretrained:
        return model
    if arch not in WEIGHTS:
        raise ValueError(f"{arch}(pretrained=True): oar lists no published pretrained weights for {arch} (those "
                         f"it fetches: {sorted(WEIGHTS)}); build it with pretrained=False and load a local file with "
                         f"model.set_state_dict(oar.load(path))")
    from ...io.save_load import load
    url, md5 = WEIGHTS[arch]
    path = download.get_weights_path_from_url(url, md5)
    state = load(path)
    own = model.state_dict()
    missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
    if missing or unexpected:
        raise ValueError(f"{path}: the weights do not fit {arch} with these arguments (missing {missing[:5]}, "
                         f"unexpected {unexpected[:5]})")
    model.set_state_dict(state)
    return model
