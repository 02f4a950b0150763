"""Parameter values live in one Scope that the owner passes to the compiled plan: no Program holds a live value."""
import numpy as np

import oar
from oar.jit.runner import ProgramRunner
from oar.static import Scope
from oar.eager.tensor import Tensor


def _tensors_in(obj, seen=None, path="program"):
    """Paths of every eager Tensor reachable from `obj` through attributes and containers."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, bool, type(None), type, np.ndarray, np.dtype)):
        return []
    seen.add(id(obj))
    if isinstance(obj, Tensor):
        return [path]
    if isinstance(obj, dict):
        items = [(f"{path}[{k!r}]", v) for k, v in obj.items()]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
    elif hasattr(obj, "__dict__") and not callable(obj):
        items = [(f"{path}.{k}", v) for k, v in vars(obj).items()]
    else:
        return []
    found = []
    for p, v in items:
        found += _tensors_in(v, seen, p)
    return found


def test_walker_finds_a_tensor_held_by_a_program():
    p = oar.static.Program()
    p.stash = {"w": [Tensor(np.ones(2, "float32"))]}   # what the walk below must report
    assert _tensors_in(p) == ["program.stash['w'][0]"]


def test_converted_layer_programs_hold_no_live_values():
    layers = oar.nn.Sequential(oar.nn.Linear(3, 4), oar.nn.BatchNorm1D(4), oar.nn.ReLU())
    net = oar.jit.to_static(layers, build_strategy=oar.static.BuildStrategy())
    x = oar.ones([5, 3])
    net(x).sum().backward()
    cp = net.forward.concrete_program
    runner = cp.runner
    programs = [cp.main_program, cp.run_program, runner.program, runner._bwd[0]]
    for prog in programs:
        assert _tensors_in(prog) == []
    # the values are in the owner's scope: the layer's own Parameters, live
    assert {id(t) for t in cp.scope.vars.values()} >= {id(p) for p in net.parameters()}
    net.eval()
    net(x)   # constant folding of the eval program writes into a scope of its own, not into any program
    eval_cp = net.forward.concrete_program
    assert eval_cp.passes[0] == "constant_folding" and eval_cp.run_scope is not eval_cp.scope
    assert set(eval_cp.scope.vars) <= set(eval_cp.run_scope.vars)
    assert _tensors_in(eval_cp.run_program) == [] and _tensors_in(eval_cp.main_program) == []


def test_loaded_layer_and_predictor_programs_hold_no_live_values(tmp_path):
    net = oar.nn.Linear(3, 2)
    spec = [oar.static.InputSpec([None, 3], "float32", "x")]
    oar.jit.save(net, str(tmp_path / "m"), input_spec=spec)
    loaded = oar.jit.load(str(tmp_path / "m"))
    loaded(oar.ones([2, 3]))
    assert _tensors_in(loaded.program()) == []
    pred = oar.inference.create_predictor(oar.inference.Config(str(tmp_path / "m")))
    pred.run([np.ones([2, 3], "float32")])
    assert _tensors_in(pred.program) == []


def test_two_runners_over_one_program_read_their_own_scopes():
    net = oar.nn.Linear(3, 2)
    cp = oar.jit.to_static(net).forward.get_concrete_program(oar.ones([4, 3]))
    ins, outs = [v.name for v in cp.inputs], [v.name for v in cp.outputs]
    scopes = []
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        scopes.append(Scope({n: oar.Parameter(rng.standard_normal(t.shape).astype("float32"), name=n)
                             for n, t in cp.scope.vars.items()}))
    runners = [ProgramRunner(cp.main_program, ins, outs, scope=s) for s in scopes]
    x = np.arange(12, dtype="float32").reshape(4, 3)
    w_name, b_name = net.weight.name, net.bias.name
    for runner, scope in zip(runners, scopes):
        out, = runner(oar.to_tensor(x))
        w, b = scope.vars[w_name], scope.vars[b_name]
        np.testing.assert_allclose(out.numpy(), x @ w.numpy() + b.numpy(), rtol=1e-5)
        out.sum().backward()   # the gradient reaches this scope's tensors, not the other's or the layer's
        np.testing.assert_allclose(w.grad.numpy(), x.T @ np.ones([4, 2], "float32"), rtol=1e-5)
    assert net.weight.grad is None
    # a scope's value replaced by an eager update is what the next run reads
    scopes[0].vars[w_name]._data = np.zeros([3, 2], "float32")
    out, = runners[0](oar.to_tensor(x))
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(scopes[0].vars[b_name].numpy(), (4, 2)), rtol=1e-6)
