#!/usr/bin/env bash
# The package as users install it: build the wheel (python -m build), install it into a NEW venv (no editable
# install, no checkout on sys.path), then import it, run one converted model, load the MNIST images the wheel
# ships (oar/data) and run `oar --version`, `oar inspect` and `oar.utils.run_check()`. Needs only the package
# index (numpy, safetensors and the build backend setuptools).
# Usage: bash tools/wheel_check.sh [PYTHON]   (PYTHON needs the `build` package: the `test` extra has it)
set -euo pipefail
PY="${1:-python3}"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
t0=$SECONDS

"$PY" -m build --wheel --outdir "$WORK/dist" "$REPO" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }
rm -rf "$REPO/build"   # setuptools' staging folder in the checkout
WHEEL="$(ls "$WORK"/dist/*.whl)"
echo "wheel-check: built $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB) in $((SECONDS - t0)) s"

"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$WHEEL"
echo "wheel-check: installed into a new venv in $((SECONDS - t0)) s"

cd "$WORK"   # not the checkout: `import oar` must find the installed wheel
"$WORK/venv/bin/python" - "$WORK" <<'PY'
import os, sys
import numpy as np
import oar
from oar.static import InputSpec

work = sys.argv[1]
assert oar.__file__.startswith(os.path.join(work, "venv")), f"imported {oar.__file__}, not the installed wheel"
assert oar.__version__ == oar.version.full_version
net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 2))
x = oar.to_tensor(np.arange(12, dtype="float32").reshape(3, 4))
eager = net(x).numpy()
static = oar.jit.to_static(net, input_spec=[InputSpec([None, 4], "float32", "x")])
np.testing.assert_allclose(static(x).numpy(), eager, rtol=1e-6)
oar.jit.save(static, os.path.join(work, "model", "net"))
out, = oar.lite.load(os.path.join(work, "model", "net")).run([x.numpy()])
np.testing.assert_allclose(out, eager, rtol=1e-6)
ds = oar.vision.datasets.MNIST(mode="test", download=False)   # package data: oar/data/*.gz
assert len(ds) == 10000 and ds[0][0].shape == (28, 28)
print(f"wheel-check: import oar {oar.__version__} from the venv, converted model == eager, saved and run by "
      f"oar.lite, {len(ds)} shipped MNIST images read")
PY
version="$("$WORK/venv/bin/oar" --version)"
echo "$version"
[[ "$version" == *"from $WORK/venv/"* ]] || { echo "wheel-check: oar --version names another install"; exit 1; }
"$WORK/venv/bin/oar" inspect "$WORK/model/net" >/dev/null
"$WORK/venv/bin/python" -c "import oar; oar.utils.run_check()" | tail -1
echo "wheel-check: OK in $((SECONDS - t0)) s"
