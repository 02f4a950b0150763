"""`paddle.version`: the version of oar, with the attributes and functions Paddle's module has.

oar computes on the CPU with NumPy, so the CUDA/cuDNN/XPU versions are ``'False'`` as in a CPU build of Paddle.
`commit` is the git commit of the checkout oar was imported from, or ``'unknown'`` for an installed wheel.

Example:
    >>> oar.version.full_version == oar.__version__
    True
    >>> (oar.version.major, oar.version.minor, oar.version.patch) == tuple(oar.__version__.split("."))
    True
    >>> oar.version.cuda()
    'False'
"""
import os
import subprocess

from .core.info import VERSION as full_version

major, minor, patch = full_version.split(".")[:3]
rc = "0"
is_tagged = True  # a released version number (Paddle: False for a nightly build, whose show() prints the commit)
cuda_version = cudnn_version = nccl_version = "False"
xpu_xre_version = xpu_xccl_version = xpu_xhpc_version = cinn_version = "False"
hip_version = None
tensorrt_version = "None"
with_mkl = "OFF"   # oar calls NumPy's BLAS; `oar.utils.run_check()` names it
compiled_cuda_archs = []

__all__ = ["cuda", "cudnn", "nccl", "show", "xpu", "xpu_xre", "xpu_xccl", "xpu_xhpc", "tensorrt", "cuda_archs",
           "hip", "mkl"]


def _git_commit():
    """HEAD of the git checkout holding this package (an editable install), else 'unknown' (a wheel)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.exists(os.path.join(root, ".git")):
        return "unknown"
    try:
        r = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return r.stdout.strip() if r.returncode == 0 else "unknown"


def _commit():
    if "commit" not in globals():   # computed on first read: `import oar` runs no subprocess
        globals()["commit"] = _git_commit()
    return globals()["commit"]


def __getattr__(name):
    if name == "commit":
        return _commit()
    raise AttributeError(f"module 'oar.version' has no attribute {name!r}")


def show():
    """Prints the version fields as Paddle's ``paddle.version.show()`` does (CPU build: cuda/cudnn False).

    Example:
        >>> oar.version.show()   # doctest: +ELLIPSIS
        full_version: ...
        major: ...
    """
    print("full_version:", full_version)
    print("major:", major)
    print("minor:", minor)
    print("patch:", patch)
    print("rc:", rc)
    print("commit:", _commit())
    print("cuda:", cuda_version)
    print("cudnn:", cudnn_version)
    print("hip:", hip_version)
    print("nccl:", nccl_version)
    print("xpu_xre:", xpu_xre_version)
    print("xpu_xccl:", xpu_xccl_version)
    print("xpu_xhpc:", xpu_xhpc_version)
    print("cinn:", cinn_version)
    print("tensorrt_version:", tensorrt_version)
    print("cuda_archs:", compiled_cuda_archs)


def cuda():
    """The CUDA version of the build: ``'False'`` (oar runs on the CPU).

    Example:
        >>> oar.version.cuda()
        'False'
    """
    return cuda_version


def cudnn():
    """The cuDNN version of the build: ``'False'``.

    Example:
        >>> oar.version.cudnn()
        'False'
    """
    return cudnn_version


def nccl():
    """The NCCL version of the build: ``'False'`` (oar's collectives run on MPI).

    Example:
        >>> oar.version.nccl()
        'False'
    """
    return nccl_version


def xpu():
    """The XPU runtime version of the build: ``'False'``.

    Example:
        >>> oar.version.xpu()
        'False'
    """
    return xpu_xre_version


def xpu_xre():
    """As `xpu`.

    Example:
        >>> oar.version.xpu_xre()
        'False'
    """
    return xpu_xre_version


def xpu_xccl():
    """The XPU collective library version: ``'False'``.

    Example:
        >>> oar.version.xpu_xccl()
        'False'
    """
    return xpu_xccl_version


def xpu_xhpc():
    """The XPU kernel library version: ``'False'``.

    Example:
        >>> oar.version.xpu_xhpc()
        'False'
    """
    return xpu_xhpc_version


def tensorrt():
    """The TensorRT version of the build: ``'None'``.

    Example:
        >>> oar.version.tensorrt()
        'None'
    """
    return tensorrt_version


def cuda_archs():
    """The CUDA architectures compiled for: none.

    Example:
        >>> oar.version.cuda_archs()
        []
    """
    return compiled_cuda_archs


def hip():
    """The ROCm/HIP version of the build: None.

    Example:
        >>> oar.version.hip() is None
        True
    """
    return hip_version


def mkl():
    """Whether the build uses MKL: ``'OFF'`` (NumPy's BLAS does the math; `oar.utils.run_check()` names it).

    Example:
        >>> oar.version.mkl()
        'OFF'
    """
    return with_mkl
