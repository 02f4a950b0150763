"""The BLAS thread policy (`oar/kernels/threads.py`): one thread by default once oar is imported, whatever BLAS
started with; the environment and `set_flags` override it. Each case runs in a fresh interpreter (the count is
process-wide). The count is read back through threadpoolctl; nothing here times anything."""
import os
import subprocess
import sys

import pytest

from oar.kernels import threads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(threads.blas_threads() is None, reason="threadpoolctl is not installed")


def _run(code, **env):
    e = {k: v for k, v in os.environ.items() if k not in threads.BLAS_ENV + (threads.FLAG_ENV,)}
    e.update(env)
    pre = ("import numpy, threadpoolctl\n"
           "c = threadpoolctl.ThreadpoolController()\n"
           "c.limit(limits=2, user_api='blas')\n"        # as a fresh multi-core process starts, before oar loads
           "count = lambda: max(i['num_threads'] for i in c.info() if i['user_api'] == 'blas')\n")
    r = subprocess.run([sys.executable, "-c", pre + code], cwd=ROOT, env=e, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_default_is_one_thread_for_eager_and_static():
    out = _run("import oar\n"
               "a = count()\n"
               "x = oar.to_tensor(numpy.ones([64, 64], 'float32'), stop_gradient=False)\n"
               "oar.matmul(x, x).sum().backward()\n"
               "print(a, count(), oar.get_flags('FLAGS_paddle_num_threads')['FLAGS_paddle_num_threads'])")
    assert out == ["1", "1", "1"]


def test_set_flags_raises_the_count():
    out = _run("import oar\n"
               "oar.set_flags({'FLAGS_paddle_num_threads': 2})\n"
               "print(count(), oar.get_flags('FLAGS_paddle_num_threads')['FLAGS_paddle_num_threads'])")
    assert out == ["2", "2"]


def test_environment_flag_and_users_blas_setting():
    assert _run("import oar\nprint(count())", FLAGS_paddle_num_threads="2") == ["2"]
    # a count given to BLAS itself is the user's choice: oar leaves it (2, as the process set it above)
    assert _run("import oar\nprint(count())", OMP_NUM_THREADS="2") == ["2"]


def test_executor_and_predictor_run_under_the_policy(tmp_path):
    out = _run("import oar, sys\n"
               "oar.enable_static()\n"
               "main, start = oar.static.Program(), oar.static.Program()\n"
               "with oar.static.program_guard(main, start):\n"
               "    x = oar.static.data('x', [None, 8], 'float32')\n"
               "    y = oar.static.nn.fc(x, 4)\n"
               "exe = oar.static.Executor()\n"
               "exe.run(start)\n"
               "exe.run(main, feed={'x': numpy.ones([2, 8], 'float32')}, fetch_list=[y])\n"
               "a = count()\n"
               "oar.disable_static()\n"
               "from oar.static import InputSpec\n"
               f"oar.jit.save(oar.nn.Linear(8, 4), {str(tmp_path / 'm')!r}, "
               "input_spec=[InputSpec([None, 8], 'float32', 'x')])\n"
               "from oar import inference\n"
               f"p = inference.create_predictor(inference.Config({str(tmp_path / 'm')!r}))\n"
               "p.run([numpy.ones([2, 8], 'float32')])\n"
               "print(a, count())")
    assert out == ["1", "1"]


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match=">= 1"):
        threads.set_blas_threads(0)
    with pytest.raises(ValueError, match="FLAGS_paddle_num_threads"):
        threads.default_threads({"FLAGS_paddle_num_threads": "many"})
