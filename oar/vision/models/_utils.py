"""Shared by the model builders."""


def no_pretrained(arch, pretrained):
    if pretrained:
        raise ValueError(f"{arch}(pretrained=True): oar cannot download pretrained weights (no network access). "
                         f"Build {arch}(pretrained=False) and load weights with "
                         "model.set_state_dict(oar.load(path)) from a local file")
