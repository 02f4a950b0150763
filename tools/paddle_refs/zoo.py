"""Writes tests/zoo/paddle_zoo_refs.npz: for each model of the zoo (tests/zoo/models/*.py, Paddle programs written as
Paddle's model libraries write them), Paddle's eval-mode outputs for weights set by a formula from each state-dict
entry's name and shape (tests/zoo/formulas.py), on formula inputs, and a digest of each parameter's gradient of the
loss ``sum_j sum(out_j * loss_weight_j)``. Only outputs and digests are stored, not the weights.

Run with a Python that has paddlepaddle installed (never needed by oar or its tests):
    /work/paddle_venv/bin/python tools/paddle_refs/zoo.py [model ...]
"""
import importlib.util
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZOO_DIR = ROOT / "tests" / "zoo"
OUT = ZOO_DIR / "paddle_zoo_refs.npz"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


FORMULAS = load(ZOO_DIR / "formulas.py", "zoo_formulas")


def zoo():
    """name -> (builder, input specs) over every model file, in file order (``import paddle`` in them resolves to
    whatever ``paddle`` is importable: Paddle here, oar under tests/zoo/paddle_alias.py)."""
    models = {}
    for path in sorted((ZOO_DIR / "models").glob("*.py")):
        models.update(load(path, "zoo_" + path.stem).ZOO)
    return models


def run(paddle, build, specs):
    """Builds the model with formula weights and returns (outputs, {param: (digest, l1)}, state keys)."""
    paddle.seed(0)
    net = build()
    state = net.state_dict()
    values = FORMULAS.weights({k: (list(v.shape), str(v.dtype)) for k, v in state.items()
                               if FORMULAS.is_set(k, dict(net.named_parameters()))})
    net.set_state_dict({k: paddle.to_tensor(v) for k, v in values.items()})
    net.eval()
    FORMULAS.rnns_to_train(net)
    outs = net(*[paddle.to_tensor(FORMULAS.make_input(s, k)) for k, s in enumerate(specs)])
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    loss = None
    for j, o in enumerate(outs):
        if "float" in str(o.dtype):
            term = (o * paddle.to_tensor(FORMULAS.loss_weight(int(np.prod(o.shape)), j).reshape(o.shape)
                                         .astype("float32"))).sum()
            loss = term if loss is None else loss + term
    loss.backward()
    grads = {n: FORMULAS.grad_digest(n, p.grad.numpy()) for n, p in net.named_parameters() if p.grad is not None}
    return [o.numpy() for o in outs], grads, list(state)


def main(names):
    import paddle
    old = dict(np.load(OUT)) if OUT.exists() and names else {}
    refs = {k: v for k, v in old.items() if k.split("/")[0] not in names}
    for name, (build, specs) in zoo().items():
        if names and name not in names:
            continue
        outs, grads, keys = run(paddle, build, specs)
        for j, o in enumerate(outs):
            refs[f"{name}/out{j}"] = o
        refs[f"{name}/grad_names"] = np.array(list(grads))
        refs[f"{name}/grads"] = np.array(list(grads.values()), np.float64).reshape(-1, 2)
        refs[f"{name}/state_keys"] = np.array(keys)
        print(name, [(o.shape, str(o.dtype), float(np.std(o))) for o in outs], len(grads), "grads")
    refs["paddle_version"] = np.array(paddle.__version__)
    np.savez_compressed(OUT, **refs)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
