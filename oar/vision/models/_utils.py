"""Shared by the model builders."""


def no_pretrained(arch, pretrained):
    if pretrained:
        raise ValueError(f"{arch}(pretrained=True): oar does not download pretrained weights. Fetch Paddle's "
                         f"{arch}.pdparams yourself, then load it from the local file:\n"
                         f"    model = {arch}()\n"
                         f"    model.set_state_dict(paddle.load('{arch}.pdparams'))")
