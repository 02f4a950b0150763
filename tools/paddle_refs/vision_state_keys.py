"""Writes tests/vision/paddle_state_keys.json: the state_dict keys and shapes of Paddle's vision models whose
published weights `pretrained=True` loads, so a test can check oar's models take those checkpoints.

Run where paddlepaddle is installed: ``python tools/paddle_refs/vision_state_keys.py``."""
import json
import os

import paddle

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "vision", "paddle_state_keys.json")
models = {"resnet18": paddle.vision.models.resnet18, "resnet50": paddle.vision.models.resnet50,
          "vgg16": paddle.vision.models.vgg16, "mobilenet_v2": paddle.vision.models.mobilenet_v2,
          "inception_v3": paddle.vision.models.inception_v3}
keys = {name: {k: list(v.shape) for k, v in fn().state_dict().items()} for name, fn in models.items()}
with open(OUT, "w") as f:
    json.dump(keys, f, indent=0, sort_keys=True)
print({k: len(v) for k, v in keys.items()})
