"""Writes tests/vision/paddle_model_refs.json: the eval-mode outputs of Paddle's vision models for weights set by a
fixed formula from the state dict's order and shapes (so oar, whose state dicts have the same keys, shapes and
order, can set the same weights), on a fixed input. Only the outputs are stored, not the weights.

Run with a Python that has paddlepaddle installed (never needed by oar or its tests):
    /work/paddle_venv/bin/python tools/paddle_refs/vision_models.py
"""
import json
import pathlib

import numpy as np

MODELS = {"shufflenet_v2_x0_25": 64, "shufflenet_v2_swish": 64, "resnext50_32x4d": 64, "wide_resnet50_2": 32,
          "mobilenet_v1": 64, "alexnet": 224, "squeezenet1_0": 64, "squeezenet1_1": 64,
          "mobilenet_v3_small": 64, "mobilenet_v3_large": 64, "densenet121": 64,
          "googlenet": 224, "inception_v3": 299}
OUT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "vision" / "paddle_model_refs.json"


def weights(state):
    """name -> array from ``s = sin(0.7 i + k)`` for the k-th entry: matrices and filters ``s sqrt(6 / fan_in)``
    (activations keep their size through deep nets), batch-norm scales ``0.5 + 0.1 s``, variances ``1 + 0.5 |s|``,
    other vectors ``0.05 s``."""
    out = {}
    for k, (name, shape) in enumerate(state):
        s = np.sin(np.arange(int(np.prod(shape))) * 0.7 + k).reshape(shape)
        if len(shape) >= 2:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 2 else shape[0]
            w = s * np.sqrt(6.0 / fan_in)
        elif name.endswith("_variance"):
            w = 1 + 0.5 * np.abs(s)
        elif name.endswith(".weight") and not name.endswith("fc.weight"):
            w = 0.5 + 0.1 * s
        else:
            w = 0.05 * s
        out[name] = w.astype(np.float32)
    return out


def image(size):
    return np.sin(np.arange(3 * size * size) * 0.1).reshape(1, 3, size, size).astype(np.float32)


def main():
    import paddle
    import paddle.vision.models as models
    refs = {}
    for arch, size in MODELS.items():
        net = getattr(models, arch)()
        net.set_state_dict({k: paddle.to_tensor(v) for k, v in
                            weights([(k, list(v.shape)) for k, v in net.state_dict().items()]).items()})
        net.eval()
        outs = net(paddle.to_tensor(image(size)))
        outs = [o.numpy().reshape(-1) for o in (outs if isinstance(outs, (tuple, list)) else [outs])]
        print(arch, "output std", [float(o.std()) for o in outs])
        refs[arch] = {"input_size": size, "outputs": [[float(f"{v:.7g}") for v in o] for o in outs]}
    OUT.write_text(json.dumps({"paddle_version": paddle.__version__, "models": refs}) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
