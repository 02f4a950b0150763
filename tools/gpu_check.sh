#!/usr/bin/env bash
# The GPU check of issue 29, one prepared script for a machine with an NVIDIA GPU (CUDA 12):
#   1. installs the [gpu] and [test] extras (CuPy for CUDA 12, pytest) unless CuPy and pytest already import
#      (machines without network: install the cupy-cuda12x wheel first, or set OAR_GPU_WHEEL=/path/to/cupy_cuda12x-*.whl);
#   2. the op table, forward and gradients, GPU vs CPU within float32 tolerance, plus the device tests (places,
#      transfers, mixed-device errors, optimizers, AMP, to_static, captured steps, jit.save / load(place=), the
#      predictor with Config.enable_use_gpu, the DataLoader's device feed, DataParallel over MPI when mpi4py and
#      mpiexec are there) on the real GPU: OAR_GPU_CHECK_BACKEND=cuda;
#   3. 20 training steps of LeNet, resnet18 and the LSTM LM, eager and converted, GPU vs CPU;
#   4. bench/gpu.py: oar GPU vs oar CPU vs torch on the GPU (when torch with CUDA is installed).
# Usage: tools/gpu_check.sh [--no-bench] [--fake]   (run from anywhere; exits non-zero on the first failing step)
#   --fake: the whole script on the fake device (no GPU, nothing installed, small sizes): proves the script runs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-$(command -v python || command -v python3)}
BENCH=1
BACKEND=cuda
for arg in "$@"; do
    case "$arg" in
        --no-bench) BENCH=0 ;;
        --fake) BACKEND=fake ;;
        *) echo "usage: tools/gpu_check.sh [--no-bench] [--fake]" >&2; exit 2 ;;
    esac
done
# a shell left with the test suite's fake device selected would check the fake instead of the GPU
unset OAR_DEVICE_BACKEND OAR_TEST_DEVICE
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's oar, whatever else is installed

echo "== 1. GPU backend ($BACKEND)"
if [ "$BACKEND" = cuda ]; then
    if ! "$PY" -c "import cupy, pytest" 2>/dev/null; then
        if [ -n "${OAR_GPU_WHEEL:-}" ]; then
            "$PY" -m pip install --no-deps "$OAR_GPU_WHEEL"
            "$PY" -m pip install -e '.[test]'
        else
            "$PY" -m pip install -e '.[gpu,test]'
        fi
    fi
    "$PY" -c "import cupy, oar; oar.set_device('gpu'); print('CuPy', cupy.__version__, '-', \
oar.device.cuda.device_count(), 'GPU(s):', cupy.cuda.runtime.getDeviceProperties(0)['name'].decode())"
else
    OAR_DEVICE_BACKEND=fake "$PY" -c "import oar; oar.set_device('gpu'); print('fake device:', oar.get_device())"
fi

echo "== 2. op table and device tests on the GPU (GPU vs CPU)"
OAR_GPU_CHECK_BACKEND=$BACKEND "$PY" -m pytest tests/device/test_fake_device_ops.py tests/device/test_fake_device.py \
    tests/device/test_device_dataloader.py tests/distributed/test_device_data_parallel.py \
    -p no:cacheprovider -W ignore::RuntimeWarning

echo "== 3. training steps, eager and converted, GPU vs CPU"
if [ "$BACKEND" = cuda ]; then
    "$PY" tools/gpu_training_check.py --backend cuda --steps 20
else
    "$PY" tools/gpu_training_check.py --backend fake --steps 2 --small
fi

if [ "$BENCH" = 1 ]; then
    echo "== 4. bench/gpu.py"
    if [ "$BACKEND" = cuda ]; then
        "$PY" -c "import torch" 2>/dev/null || echo "(torch is not installed: the torch column will read n/a; \
pip install torch torchvision for it)"
        "$PY" bench/gpu.py
    else
        "$PY" bench/gpu.py --dry-run
    fi
fi
echo "GPU check passed ($BACKEND)"
