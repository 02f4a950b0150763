"""`paddle.utils.run_check()` (module `install_check`, as Paddle's): is oar installed and working? What Paddle
users run first.

Prints the version and where oar is imported from, the device (the CPU: NumPy, its BLAS library and thread
count), the optional backends found (ONNX Runtime, MPI, serving), then trains a tiny network one step eagerly and
one step with the whole step converted by `to_static`, checks both give the same loss and parameters, and prints
Paddle's closing lines. Raises RuntimeError when the converted step disagrees with the eager one.
"""
import importlib.util
import os
import platform
import shutil
import sys
from importlib import metadata

import numpy as np

from ..core.info import DISTRIBUTION, VERSION, install_hint


def _dist_version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def blas_info():
    """(BLAS description, thread count or None) of NumPy's BLAS: from threadpoolctl when installed (the library
    actually loaded, and its live thread count), else from NumPy's build configuration (no thread count)."""
    if importlib.util.find_spec("threadpoolctl") is not None:
        from threadpoolctl import threadpool_info
        libs = [i for i in threadpool_info() if i.get("user_api") == "blas"]
        if libs:
            lib = libs[0]
            layer = f" ({lib['threading_layer']})" if lib.get("threading_layer") not in (None, "unknown") else ""
            return f"{lib.get('internal_api')} {lib.get('version') or ''}".strip() + layer, int(lib["num_threads"])
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version') or ''}".strip() + " (NumPy's build configuration)", None
    except (TypeError, KeyError, AttributeError):   # NumPy < 1.25 has no mode="dicts"
        return "unknown (NumPy < 1.25 does not report it; install threadpoolctl)", None


def backends():
    """{name: description} of the optional backends: what was found, or how to install it."""
    found = {}
    ort, onnx = _dist_version("onnxruntime"), _dist_version("onnx")
    found["ONNX Runtime"] = (f"onnxruntime {ort}, onnx {onnx or 'missing: ' + install_hint('onnx')}" if ort
                             else f"not installed ({install_hint('onnx')})")
    mpi4py, mpiexec = _dist_version("mpi4py"), shutil.which("mpiexec", path=os.path.dirname(sys.executable)
                                                            + os.pathsep + os.environ.get("PATH", ""))
    found["MPI"] = (f"mpi4py {mpi4py}, mpiexec {mpiexec or 'not found'}" if mpi4py
                    else f"not installed ({install_hint('distributed')})")
    uvicorn, starlette = _dist_version("uvicorn"), _dist_version("starlette")
    found["serving"] = (f"uvicorn {uvicorn}, starlette {starlette}" if uvicorn and starlette
                        else f"not installed ({install_hint('serve')})")
    return found


def _clash():
    """A line when a distribution named 'oar' (the same import name) is installed beside oar-dl, else None.

    Only installed distributions count (their metadata names the INSTALLER): the ``oar.egg-info`` folder an old
    editable build left in a checkout, found when Python runs from there, installs nothing."""
    installed = [d for d in metadata.distributions(name="oar") if d.read_text("INSTALLER") is not None]
    if not installed:
        return None
    other = installed[0]
    return (f"WARNING: the distribution 'oar' {other.version} is installed too ({other.metadata.get('Summary')!r}): "
            f"an older install of this project under its former name, or the unrelated project of that name; both "
            f"provide the same `oar` package. Run `pip uninstall -y oar {DISTRIBUTION}`, then `{install_hint()}`.")


def _tiny_step():
    """(eager loss, converted loss, max parameter difference) after one Adam step of the same Linear(4, 2)."""
    from ..eager.tensor import to_tensor
    from ..jit import to_static
    from ..nn import CrossEntropyLoss, Linear
    from ..optimizer import Adam
    rng = np.random.RandomState(0)
    x = to_tensor(rng.standard_normal((8, 4)).astype("float32"))
    y = to_tensor(rng.randint(0, 2, (8, 1)).astype("int64"))
    w0, b0 = rng.standard_normal((4, 2)).astype("float32"), np.zeros(2, "float32")
    results = []
    for convert in (False, True):
        net = Linear(4, 2)
        net.weight.set_value(w0)
        net.bias.set_value(b0)
        opt = Adam(0.1, parameters=net.parameters())
        loss_fn = CrossEntropyLoss()

        def step(x, y):
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        step = to_static(step) if convert else step
        losses = [float(step(x, y)) for _ in range(2)]   # the second loss sees the first step's update
        results.append((losses, net.weight.numpy().copy()))
    (eager, w_eager), (static, w_static) = results
    return eager, static, float(np.abs(w_eager - w_static).max())


def run_check():
    """Checks that oar works here and prints what it found (version, CPU and BLAS, optional backends), then trains
    a tiny network one step eagerly and converted. Raises RuntimeError when the two disagree.

    Example:
        >>> oar.utils.run_check()   # doctest: +ELLIPSIS
        Running verify oar program ...
        oar ...
        oar works well on 1 CPU.
        oar is installed successfully! Let's start deep learning with oar now.
    """
    print("Running verify oar program ...")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"oar {VERSION} (distribution {DISTRIBUTION}) from {here}; Python {platform.python_version()}")
    clash = _clash()
    if clash:
        print(clash)
    blas, threads = blas_info()
    print(f"device: CPU ({os.cpu_count()} cores; oar computes with NumPy, no GPU is used)")
    print(f"  NumPy {np.__version__}, BLAS: {blas}, "
          + (f"{threads} threads" if threads is not None else f"thread count unknown ({install_hint('threads')})"))
    print("optional backends:")
    for name, text in backends().items():
        print(f"  {name}: {text}")
    eager, static, dw = _tiny_step()
    if not np.allclose(eager, static, rtol=1e-5, atol=1e-6) or dw > 1e-5:
        raise RuntimeError(f"run_check: the converted training step disagrees with the eager one: losses {eager} "
                           f"vs {static}, weights differ by {dw:.2e}. Please report this with the lines above.")
    print(f"converted training step (Linear, Adam, to_static): loss {static[0]:.4f} -> {static[1]:.4f}, "
          f"same as eager (weights within {dw:.1e})")
    print("oar works well on 1 CPU.")
    print("oar is installed successfully! Let's start deep learning with oar now.")
