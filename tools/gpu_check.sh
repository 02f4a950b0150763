#!/usr/bin/env bash
# The GPU check of issue 29, one prepared script for a machine with an NVIDIA GPU (CUDA 12):
#   1. installs the [gpu] extra (CuPy for CUDA 12) unless CuPy already imports (machines without network: install
#      the cupy-cuda12x wheel first, or set OAR_GPU_WHEEL=/path/to/cupy_cuda12x-*.whl);
#   2. the op table, forward and gradients, GPU vs CPU within float32 tolerance, plus the device tests (places,
#      transfers, mixed-device errors, optimizers, AMP, to_static, captured steps, jit.save / load(place=), the
#      predictor with Config.enable_use_gpu) on the real GPU: OAR_GPU_CHECK_BACKEND=cuda;
#   3. 20 training steps of LeNet, resnet18 and the LSTM LM, eager and converted, GPU vs CPU;
#   4. bench/gpu.py: oar GPU vs oar CPU vs torch on the GPU (when torch with CUDA is installed).
# Usage: tools/gpu_check.sh [--no-bench]      (run from anywhere; exits non-zero on the first failing step)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}

echo "== 1. GPU backend"
if ! "$PY" -c "import cupy" 2>/dev/null; then
    if [ -n "${OAR_GPU_WHEEL:-}" ]; then
        "$PY" -m pip install --no-deps "$OAR_GPU_WHEEL"
    else
        "$PY" -m pip install -e '.[gpu]'
    fi
fi
"$PY" -c "import cupy, oar; oar.set_device('gpu'); print('CuPy', cupy.__version__, '-', \
oar.device.cuda.device_count(), 'GPU(s):', cupy.cuda.runtime.getDeviceProperties(0)['name'].decode())"

echo "== 2. op table and device tests on the GPU (GPU vs CPU)"
OAR_GPU_CHECK_BACKEND=cuda "$PY" -m pytest tests/device/test_fake_device_ops.py tests/device/test_fake_device.py \
    -q -p no:cacheprovider -W ignore::RuntimeWarning

echo "== 3. 20 training steps, eager and converted, GPU vs CPU"
"$PY" tools/gpu_training_check.py --backend cuda --steps 20

if [ "${1:-}" != "--no-bench" ]; then
    echo "== 4. bench/gpu.py"
    "$PY" bench/gpu.py
fi
echo "GPU check passed"
