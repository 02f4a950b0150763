"""Run on N ranks (mpiexec): DataParallel training against one process training on the whole batch.

Each rank trains the same model twice: a reference copy on the concatenated batch of all ranks (what one process
would do) and a DataParallel copy on its own slice; after 20 steps the parameters must agree. Variants: several
small buckets, gradient accumulation with no_sync, find_unused_parameters with a branch left unused, an inner
layer converted with to_static, a whole training step converted with to_static (its program all-reduces), and
oar.Model.fit. Writes ``{variant: max abs difference}`` to
``<out_dir>/result.<rank>.json``."""
import json
import os
import sys

import numpy as np

import oar
import oar.distributed as dist

dist.init_parallel_env(timeout=60)
RANK, N = dist.get_rank(), dist.get_world_size()
oar.set_default_dtype("float64")
B, STEPS = 4, 20  # samples per rank per step


class Net(oar.nn.Layer):
    def __init__(self, unused=False):
        super().__init__()
        self.conv = oar.nn.Conv2D(1, 3, 3)
        self.fc1 = oar.nn.Linear(3 * 4 * 4, 8)
        self.fc2 = oar.nn.Linear(8, 3)
        self.extra = oar.nn.Linear(8, 3) if unused else None

    def forward(self, x):
        h = oar.nn.functional.relu(self.conv(x)).flatten(1)
        h = oar.tanh(self.fc1(h))
        return self.fc2(h) + self.fc2(h) * 0.5  # fc2 read twice: two gradient contributions per step


def batches():
    g = np.random.default_rng(123)
    for _ in range(STEPS):
        yield g.standard_normal((N * B, 1, 6, 6)), g.integers(0, 3, (N * B,))


def loss_of(model, x, y):
    return oar.nn.functional.cross_entropy(model(oar.to_tensor(x)), oar.to_tensor(y))


def max_diff(a, b):
    return max(float(np.abs(p.numpy() - q.numpy()).max()) for p, q in zip(a.parameters(), b.parameters()))


def make(seed, unused=False):
    oar.seed(seed)
    return Net(unused)


def train_pair(wrap=lambda m: oar.DataParallel(m), accumulate=1, unused=False, convert=False):
    ref = make(1, unused)
    local = make(1 + RANK, unused)  # a different start on every rank: DataParallel broadcasts rank 0's
    if convert:
        ref.forward = oar.jit.to_static(ref.forward)
        local.forward = oar.jit.to_static(local.forward)
    dp = wrap(local)
    assert max_diff(ref, local) < 1e-12, "parameters not broadcast from rank 0"
    opt_ref = oar.optimizer.Momentum(0.1, parameters=ref.parameters())
    opt = oar.optimizer.Momentum(0.1, parameters=dp.parameters())
    for x, y in batches():
        loss_of(ref, x, y).backward()
        opt_ref.step()
        opt_ref.clear_grad()
        mine = slice(RANK * B, (RANK + 1) * B)
        xs, ys = x[mine], y[mine]
        parts = np.array_split(np.arange(B), accumulate)
        for k, idx in enumerate(parts):
            scale = len(idx) / B
            if k < accumulate - 1:
                with dp.no_sync():
                    (loss_of(dp, xs[idx], ys[idx]) * scale).backward()
            else:
                (loss_of(dp, xs[idx], ys[idx]) * scale).backward()
        opt.step()
        opt.clear_grad()
    if unused:
        assert local.extra.weight.grad is None, "a parameter no rank used must keep grad None"
    return max_diff(ref, local), dp


def model_fit(convert=False):
    """`convert`: the network's forward converted by to_static, so each fit step is one captured program whose
    DataParallel all-reduce is ops of that program."""
    ref, local = make(1), make(1 + RANK)
    if convert:
        local = oar.jit.to_static(local)
    xs, ys = zip(*batches())
    x, y = np.concatenate(xs), np.concatenate(ys)[:, None]
    data = oar.io.TensorDataset([oar.to_tensor(x), oar.to_tensor(y)])
    opt_ref = oar.optimizer.SGD(0.1, parameters=ref.parameters())
    for i in range(STEPS):  # one process, batches of N*B consecutive samples
        sl = slice(i * N * B, (i + 1) * N * B)
        loss_of(ref, x[sl], y[sl, 0]).backward()
        opt_ref.step()
        opt_ref.clear_grad()
    model = oar.Model(local)
    model.prepare(oar.optimizer.SGD(0.1, parameters=model.parameters()), oar.nn.CrossEntropyLoss())
    # fit wraps the network in DataParallel and gives rank r every N-th block of B samples (Paddle's
    # DistributedBatchSampler), so step i covers samples i*N*B .. (i+1)*N*B-1 as the reference does
    model.fit(data, batch_size=B, epochs=1, shuffle=False, verbose=0)
    if convert:
        assert "c_allreduce" in str(model._captured.concrete_program.main_program)
    return max_diff(ref, local)


def captured_step(accumulate=1, unused=False, **dp_args):
    """The whole step (forward, backward, step, clear_grad) converted by to_static on a DataParallel model: its one
    program averages the gradients with c_allreduce ops between the backward and the updates. With `accumulate`
    2, the first half-batch's backward runs under no_sync inside the converted function (no all-reduce for it).
    `unused`: a layer the loss never reaches (its zero or absent gradient must leave it as the reference's)."""
    ref, local = make(1, unused), make(1 + RANK, unused)
    dp = oar.DataParallel(local, **dp_args)
    opt_ref = oar.optimizer.Momentum(0.1, parameters=ref.parameters())
    opt = oar.optimizer.Momentum(0.1, parameters=dp.parameters())

    def loss_t(model, x, y):
        return oar.nn.functional.cross_entropy(model(x), y)

    @oar.jit.to_static
    def step(x, y):
        if accumulate == 1:
            loss = loss_t(dp, x, y)
            loss.backward()
        else:
            h = B // 2
            with dp.no_sync():
                (loss_t(dp, x[:h], y[:h]) * 0.5).backward()
            loss = loss_t(dp, x[h:], y[h:]) * 0.5
            loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    mine = slice(RANK * B, (RANK + 1) * B)
    for x, y in batches():
        loss_of(ref, x, y).backward()
        opt_ref.step()
        opt_ref.clear_grad()
        step(oar.to_tensor(x[mine]), oar.to_tensor(y[mine]))
    ops = [op.type for op in step.concrete_program.main_program.global_block().ops]
    reduces = [i for i, t in enumerate(ops) if t == "c_allreduce"]
    last_grad = max(i for i, t in enumerate(ops) if t.endswith("_grad"))
    first_update = min(i for i, t in enumerate(ops) if "momentum" in t)
    assert reduces and last_grad < reduces[0] and reduces[-1] < first_update, ops
    assert len(step.program_cache) == 1
    return max_diff(ref, local), len(reduces), len(dp._reducer.buckets)


def static_fleet():
    """A static program trained with fleet.distributed_optimizer on every rank vs the plain program fed the whole
    batch; the reference starts from the parameters the fleet startup program broadcast from rank 0."""
    from oar.distributed import fleet
    fleet.init(is_collective=True)
    oar.seed(7 + RANK)  # a different initialisation on every rank: the startup program broadcasts rank 0's

    def build(distributed):
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [None, 36], "float64")
            y = oar.static.data("y", [None], "int64")
            h = oar.static.nn.fc(x, 8, activation="tanh")
            loss = oar.nn.functional.cross_entropy(oar.static.nn.fc(h, 3), y)
            opt = oar.optimizer.Momentum(0.1)
            (fleet.distributed_optimizer(opt) if distributed else opt).minimize(loss)
        return main, startup, loss

    oar.enable_static()
    try:
        exe = oar.static.Executor()
        scope = oar.static.global_scope()
        dmain, dstart, _ = build(True)
        rmain, rstart, _ = build(False)
        assert any(op.type == "c_allreduce" for op in dmain.global_block().ops)
        exe.run(dstart)
        exe.run(rstart)
        pairs = list(zip(dmain.all_parameters(), rmain.all_parameters()))
        for d, _ in pairs:  # the startup program's broadcast made every rank start alike
            w = np.array(scope.find_var(d.name).get_tensor())
            everyone = dist.comm.all_gather(w, dist.get_group())
            assert all(np.array_equal(w, o) for o in everyone), "startup did not broadcast " + d.name
        for d, r in pairs:
            scope.var(r.name).get_tensor().set(np.array(scope.find_var(d.name).get_tensor()))
        mine = slice(RANK * B, (RANK + 1) * B)
        for x, y in batches():
            x = x.reshape(len(x), -1)
            exe.run(dmain, feed={"x": x[mine], "y": y[mine]})
            exe.run(rmain, feed={"x": x, "y": y})
        return max(float(np.abs(np.array(scope.find_var(d.name).get_tensor())
                                - np.array(scope.find_var(r.name).get_tensor())).max()) for d, r in pairs)
    finally:
        oar.disable_static()


results = {}
results["static_fleet"] = static_fleet()
diff, dp = train_pair()
results["default"] = diff
results["early_buckets"] = dp._reducer.stats["early"]
diff, dp = train_pair(lambda m: oar.DataParallel(m, comm_buffer_size=0.0005, last_comm_buffer_size=0.0002))
results["small_buckets"] = diff
results["small_buckets_count"] = len(dp._reducer.buckets)
results["small_buckets_early"] = dp._reducer.stats["early"] / dp._reducer.stats["steps"]
results["no_sync"] = train_pair(accumulate=2)[0]
results["find_unused"] = train_pair(lambda m: oar.DataParallel(m, find_unused_parameters=True), unused=True)[0]
results["to_static"] = train_pair(convert=True)[0]
diff, results["captured_allreduces"], results["captured_buckets"] = captured_step()
results["captured_step"] = diff
diff, results["captured_small_allreduces"], results["captured_small_buckets"] = captured_step(
    comm_buffer_size=0.0005, last_comm_buffer_size=0.0002)
results["captured_step_small_buckets"] = diff
diff, results["captured_no_sync_allreduces"], _ = captured_step(accumulate=2)
results["captured_step_no_sync"] = diff
results["captured_step_unused"] = captured_step(unused=True)[0]
results["captured_step_find_unused"] = captured_step(unused=True, find_unused_parameters=True)[0]
results["state_dict_keys"] = sorted(oar.DataParallel(Net()).state_dict())[:2]
results["model_fit"] = model_fit()
results["model_fit_converted"] = model_fit(convert=True)
with open(os.path.join(sys.argv[1], f"result.{RANK}.json"), "w") as f:
    json.dump(results, f)
