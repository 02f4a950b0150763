"""The Executor: compiles a Block once into a flat plan and runs it.

A plan is straight-line Python generated from the block: one line per kept op, each a call of the op's kernel
with its attributes pre-bound (``functools.partial``), values held in Python locals (slots), and a ``del`` right
after a value's last use so dead buffers are released. Ops with sub-blocks are lowered by their OpDef's
``lower(compiler, op)`` into one callable, so the plan (and this file) has no op-specific branches. Errors inside
a kernel are re-raised with the op's IR line and the user's source line.

Example:
    >>> oar.enable_static()
    >>> main, startup = oar.static.Program(), oar.static.Program()
    >>> with oar.static.program_guard(main, startup):
    ...     x = oar.static.data('x', [None, 3])
    ...     loss = (x * 2.0).mean()
    >>> exe = oar.static.Executor(oar.CPUPlace())
    >>> _ = exe.run(startup)
    >>> x_np = np.ones([4, 3], 'float32')
    >>> loss_value, = exe.run(main, feed={'x': x_np}, fetch_list=[loss])
    >>> float(loss_value)
    2.0
    >>> oar.disable_static()
"""
import functools
import itertools

import numpy as np

from ..core.devices import RUNTIME as _DEVICE, is_device_array, to_host

from ..core.info import FLAGS
from ..ops.registry import REGISTRY, check_finite
from . import budget, feeders, liveness
from ..ir import Program
from .variable import Variable
from ..ir.printer import format_op
from .scope import global_scope, value_of
from ..core.weakmap import WeakIdMap

_LINE_OPS = "__oar_line_ops__"  # a plan's global: {line number: Operator}, for error reports (dies with the plan)
_ids = itertools.count()


class BlockCompiler:
    """Compiles blocks of one Program into Python functions ``fn(*in_values) -> tuple(out_values)``.

    `lower(compiler, op)` implementations call `compiler.compile_block(block_idx, in_names, out_names)` for their
    sub-blocks.
    """

    def __init__(self, program, check_nan_inf=False):
        self.program = program
        self.check_nan_inf = check_nan_inf  # every op's outputs checked (FLAGS_check_nan_inf)
        self._side = {}
        self._folded_bytes = 0

    # ---- analysis ------------------------------------------------------------------------------------------
    def has_side_effects(self, op):
        """`Operator.has_side_effects`, memoized for this compilation."""
        key = id(op)
        r = self._side.get(key)
        if r is None:
            r = self._side[key] = op.has_side_effects()
        return r

    def prune(self, ops, feed_names, out_names):
        """The ops needed for `out_names` given `feed_names`, plus side-effecting ops (in order)."""
        return liveness.needed_ops(ops, out_names, feed_names, self.has_side_effects)

    # ---- code generation -----------------------------------------------------------------------------------
    def compile_block(self, block, in_names, out_names, allow_free=False, override=False):
        """Returns ``(fn, free_names)``: `fn(*in_values, *free_values)` runs the needed ops of `block` and returns
        the tuple of `out_names` values. `free_names` are values read but neither given nor computed (persistable
        variables at the top level); they are an error in a sub-block unless `allow_free`. With `override` (the
        top-level feed) a given name replaces what an op would compute: its producer is pruned or ignored;
        otherwise given names are initial values that ops of the block may overwrite."""
        if isinstance(block, int):
            block = self.program.blocks[block]
        fed = set(in_names) if override else set()
        ops = self.prune(block.ops, fed, out_names)
        free = liveness.read_before_written(ops, in_names)
        defined = set(in_names).union(*(op.output_names() for op in ops))
        for n in out_names:
            if n not in defined and n not in free:
                free.append(n)
        if free and not allow_free:
            raise RuntimeError(f"block {block.idx} reads {free} but nobody feeds or computes them; "
                               "a control-flow op must list every outer variable its sub-blocks read")
        local = _Locals()
        params = [local(n) for n in list(in_names) + free]
        last = liveness.last_reads(ops)
        keep = set(out_names) | fed
        fname = f"<oar plan {next(_ids)}: block {block.idx}>"
        lines = [f"def plan({', '.join(params)}):"]
        lineops, env, consts = {}, {}, {}
        held = _Held(budget.active(), env, lines)
        for k, op in enumerate(ops):
            d = REGISTRY.get(op.type)
            if d is None:
                raise ValueError(f"unknown op {op.type!r} in block {block.idx}: {format_op(op)}")
            if d.lower is not None:
                fn = d.lower(self, op)
            else:
                fn = budget.guard(d, _kernel(d, op.attrs), op)
            if self.check_nan_inf and d.lower is None:
                fn = _finite_guard(d.name, fn)
            kname = f"k{k}"
            folded = self._fold(op, d, fn, consts, fed)
            if folded is not None:  # computed once here; the plan only loads the values
                for j, (n, value) in enumerate(zip(op.output_names(), folded)):
                    env[f"{kname}_{j}"] = value
                    lines.append(f"    {local(n)} = {kname}_{j}")
                held.forget(op.output_names(), local)
            else:
                args = [local(n) for n in op.input_names()]
                outs = [("_" if n in fed else local(n)) for n in op.output_names()]
                env[kname] = fn
                if held.on and d.lower is None:  # marked ops check their output on top of what is held
                    env[kname] = budget.guard(d, _kernel(d, op.attrs), op, held.budget)
                    args = ["_held"] + args
                held.before([n for n in op.output_names() if n not in fed], local)
                if d.lower is not None or d.multi_out:
                    lhs = (", ".join(outs) + ", = ") if outs else ""
                else:
                    lhs = outs[0] + " = "
                lines.append(f"    {lhs}{kname}({', '.join(args)})")
                lineops[len(lines)] = op
                held.after([n for n in op.output_names() if n not in fed], local, [local(n) for n in op.input_names()])
            lineops[len(lines)] = op  # (the line checking what is held, too)
            gone = [n for n in liveness.dies_at(ops, k, last, keep) if n in local.map and local(n) != "_"]
            held.release(gone, local)
            if gone:
                lines.append(f"    del {', '.join(local(n) for n in gone)}")
        ret = ", ".join(local(n) for n in out_names)
        lines.append(f"    return ({ret}{',' if len(out_names) == 1 else ''})")
        src = "\n".join(lines) + "\n"
        code = compile(src, fname, "exec")
        exec(code, env)
        env[_LINE_OPS] = lineops
        fn = env["plan"]
        fn.source = src
        return fn, free

    def _fold(self, op, d, fn, consts, fed):
        """Output values of `op` when all its inputs are compile-time constants (e.g. `full` ops), else None.

        Random, side-effecting and control-flow ops are never folded; a kernel error is left to run time, where
        it is reported with the op's context. Folded arrays are read-only, so no kernel can change them between
        runs. An output name an unfolded op (re)defines stops being a constant."""
        ins, out_names = op.input_names(), op.output_names()
        outs = None
        if not (d.lower is not None or d.random or any(n not in consts for n in ins) or self.has_side_effects(op)
                or any(n in fed for n in out_names)):
            try:
                with np.errstate(all="ignore"):
                    out = fn(*[consts[n] for n in ins])
                outs = tuple(out) if d.multi_out else (out,)
            except Exception:
                outs = None
        if outs is None or not all(isinstance(v, np.ndarray) for v in outs):
            for n in out_names:
                consts.pop(n, None)
            return None
        b = budget.active()
        if b is not None and b.max_bytes is not None:  # folded values live as long as the plan: bounded together
            self._folded_bytes += sum(v.nbytes for v in outs)
            if self._folded_bytes > b.max_bytes:
                for n in out_names:
                    consts.pop(n, None)
                return None
        for n, v in zip(out_names, outs):
            v.flags.writeable = False
            consts[n] = v
        return outs


class _Held:
    """The accounting a plan compiled under a load budget does (`oar.graph.budget`): the local ``_held`` sums
    the bytes of the values the plan computed and still holds (each value's count in ``c<i>`` beside its
    ``v<i>``), marked ops check their output on top of it before allocating, and every op checks the sum after
    it runs. Inputs, parameters and folded constants are not counted (constants have their own cap)."""

    def __init__(self, b, env, lines):
        self.on = b is not None and b.max_bytes is not None
        self.budget, self.lines, self.counted = b, lines, set()
        if self.on:
            env.update(_nb=budget.owned_nbytes, _over=functools.partial(budget.raise_held, b), _max=b.max_bytes)
            lines.append("    _held = 0")

    def forget(self, names, local):
        """`names` now hold folded constants (not counted): drop their old counts."""
        self.before(names, local)

    def before(self, names, local):
        """An op is about to overwrite `names`: their old values stop counting."""
        old = [local(n).replace("v", "c", 1) for n in names if n in self.counted]
        if self.on and old:
            self.lines.append(f"    _held -= {' + '.join(old)}")
        self.counted.difference_update(names)

    def after(self, names, local, inputs):
        """Counts the op's outputs `names` (read from the op's `inputs` adds nothing), then checks the sum."""
        if not self.on or not names:
            return
        ins = "".join(f", {a}" for a in inputs)
        cs = [local(n).replace("v", "c", 1) for n in names]
        self.lines.append("    " + "; ".join(f"{c} = _nb({local(n)}{ins})" for c, n in zip(cs, names))
                          + f"; _held += {' + '.join(cs)}")
        self.lines.append("    if _held > _max: _over(_held)")
        self.counted.update(names)

    def release(self, names, local):
        """`names` are deleted: their counts leave the sum."""
        gone = [local(n).replace("v", "c", 1) for n in names if n in self.counted]
        if self.on and gone:
            self.lines.append(f"    _held -= {' + '.join(gone)}")
        self.counted.difference_update(names)


def _finite_guard(name, fn):
    """`fn` whose outputs are checked for NaN/Inf (a failure is reported with the op's IR and source line)."""
    def checked(*arrays):
        out = fn(*arrays)
        check_finite(name, out)
        return out
    return checked


class _Locals:
    """Maps variable names to Python identifiers v0, v1, ..."""

    def __init__(self):
        self.map = {}

    def __call__(self, name):
        s = self.map.get(name)
        if s is None:
            s = self.map[name] = f"v{len(self.map)}"
        return s


# ---- errors ----------------------------------------------------------------------------------------------------

def _failing_op(tb):
    op = None
    while tb is not None:
        lines = tb.tb_frame.f_globals.get(_LINE_OPS)
        if lines is not None:
            op = lines.get(tb.tb_lineno, op)
        tb = tb.tb_next
    return op


def op_run_error(exc, op):
    """`exc` re-raised with the failing op's IR line and the user's source line (file:line and text)."""
    msg = f"{exc}\n  [operator] {format_op(op, with_loc=False)}"
    if op.loc:
        msg += f"\n  File \"{op.loc[0]}\", line {op.loc[1]}, created by the user code:\n    {op.loc[2]}" \
               f"\n  (at {op.loc[0]}:{op.loc[1]})"
    try:
        new = type(exc)(msg)
    except Exception:
        new = RuntimeError(msg)
    new._oar_op_error = True
    return new


# ---- compiled programs -----------------------------------------------------------------------------------------

class Compiled:
    """A Program compiled for one set of feed and fetch names. `run(feed, scope)` returns the fetches in order."""

    def __init__(self, program, feed_names, fetch_names):
        self.program = program
        self.feed_names, self.fetch_names = tuple(feed_names), tuple(fetch_names)
        gb = program.global_block()
        for n in self.feed_names:
            if n not in gb.vars:
                raise ValueError(f"feed '{n}' is not a variable of the program's global block")
        for n in self.fetch_names:
            if n not in gb.vars:
                raise ValueError(f"fetch '{n}' is not a variable of the program's global block"
                                 + (" (a clone(for_test=True) has no backward or optimizer variables)"
                                    if n.endswith("@GRAD") else ""))
        # the kernel scratch caches its ops use stay kept while this plan lives (`OpDef.scratch`)
        self._leases = {id(d.scratch): d.scratch.lease() for b in program.blocks for op in b.ops
                        if (d := REGISTRY.get(op.type)) is not None and d.scratch is not None}
        compiler = BlockCompiler(program)
        self._checked_fn = None  # the plan with NaN/Inf checks, compiled when FLAGS_check_nan_inf is first on
        ops = compiler.prune(gb.ops, self.feed_names, self.fetch_names)
        writes = []
        for op in ops:
            for n in op.output_names():
                v = gb.vars.get(n)
                if v is not None and v.persistable and n not in writes and n not in self.feed_names:
                    writes.append(n)
        self.writes = writes
        self._out_names = out_names = list(self.fetch_names) + writes
        self.fn, free = compiler.compile_block(gb, self.feed_names, out_names, allow_free=True, override=True)
        self.reads = []
        for n in free:
            v = gb.vars.get(n)
            if v is None or not v.persistable:
                raise ValueError(f"variable '{n}' is needed (to compute {list(self.fetch_names)}) but it is not fed "
                                 f"and no op computes it; feed it (feed={{'{n}': ...}})")
            self.reads.append(n)
        self.n_fetch = len(self.fetch_names)
        self.checks = []
        for n in self.feed_names:
            v = gb.vars[n]
            self.checks.append((n, v.dtype.np, tuple(v.shape), v.is_data))

    def _plan(self):
        """The plan function to run now: with every op's outputs checked while FLAGS_check_nan_inf is on."""
        if not FLAGS.check_nan_inf:
            return self.fn
        if self._checked_fn is None:
            self._checked_fn = BlockCompiler(self.program, check_nan_inf=True).compile_block(
                self.program.global_block(), self.feed_names, self._out_names, allow_free=True, override=True)[0]
        return self._checked_fn

    def _feed_values(self, feed):
        try:
            return [feed[name] for name in self.feed_names]
        except KeyError:
            name = next(n for n in self.feed_names if n not in feed)
            raise ValueError(f"feed is missing variable '{name}' (declared {self._declared(name)})") from None

    def _declared(self, name):
        for n, npdt, shape, _ in self.checks:
            if n == name:
                return f"{np.dtype(npdt).name}{list(shape)}"

    def _check_values(self, vals):
        """Makes the fed values ndarrays (in place: `vals` is a fresh list) and checks the declared dtype and shape
        of data variables."""
        for i, (a, (name, npdt, shape, strict)) in enumerate(zip(vals, self.checks)):
            if type(a) is not np.ndarray:
                a = getattr(a, "_data", a)
                if type(a) is not np.ndarray and not is_device_array(a):
                    a = np.asarray(a, dtype=npdt if not isinstance(a, np.generic) else None)
                vals[i] = a
            if strict:
                if a.dtype != npdt:
                    raise TypeError(f"the data type of fed variable '{name}' must be {np.dtype(npdt).name}, but "
                                    f"received {a.dtype.name} (shape {list(a.shape)}); cast it with "
                                    f".astype('{np.dtype(npdt).name}')")
                if len(a.shape) != len(shape) or any(d != s and d >= 0 for d, s in zip(shape, a.shape)):
                    raise ValueError(f"the shape of fed variable '{name}' must be {list(shape)} (-1 is any size), "
                                     f"but received {list(a.shape)}")
        return vals

    def run(self, feed, scope=None):
        """Runs the plan; returns the fetched values (ndarrays) in fetch order."""
        return self.run_trusted(self._check_values(self._feed_values(feed)), scope)

    def run_values(self, values, scope=None):
        """`run` with the fed values given as a sequence in `feed_names` order (no feed dict to build)."""
        if len(values) != len(self.checks):
            raise ValueError(f"expected {len(self.checks)} fed values ({list(self.feed_names)}), got {len(values)}")
        return self.run_trusted(self._check_values(list(values)), scope)

    def bound_runner(self, scope=None, convert=None):
        """``run(values) -> outputs`` with the persistable values read from `scope` (`global_scope()` when None)
        once, now: for a predictor, whose weights do not change between runs. Values that are not ndarrays of the
        declared dtype, rank and fixed dims go through ``convert(list) -> list`` first (default: the checks of
        `run_values`). None when `scope` lacks a value the plan reads, or the plan writes persistables (run
        `run_values` then)."""
        sc = scope if scope is not None else global_scope()
        if self.writes or any(n not in sc.vars for n in self.reads):
            return None
        consts = [sc.array(n) for n in self.reads]
        n_in = len(self.checks)
        slow = self._check_values if convert is None else (lambda vals: self._check_values(convert(vals)))
        # per feed: dtype, rank and the (axis, size) pairs the declared shape fixes (non-data feeds: no checks)
        specs = [(npdt, len(shape), [(i, d) for i, d in enumerate(shape) if d >= 0]) if strict else None
                 for _, npdt, shape, strict in self.checks]

        def checked(values):
            if len(values) != n_in:
                raise ValueError(f"expected {n_in} fed values ({list(self.feed_names)}), got {len(values)}")
            for a, spec in zip(values, specs):
                if spec is None or type(a) is not np.ndarray or a.dtype != spec[0] or a.ndim != spec[1]:
                    return slow(list(values))
                shape = a.shape
                for i, d in spec[2]:
                    if shape[i] != d:
                        return slow(list(values))  # raises the error naming the feed
            return values

        def run(values):
            try:
                outs = self._plan()(*checked(values), *consts)
            except Exception as e:
                op = _failing_op(e.__traceback__)
                if op is None or getattr(e, "_oar_op_error", False):
                    raise
                raise op_run_error(e, op) from None
            for a in outs:
                if type(a) is not np.ndarray or not a.flags.writeable:
                    return [a if type(a) is list else _owned(a) for a in outs]
            return list(outs)
        return run

    def run_trusted(self, args, scope=None):
        """Runs the plan on feed values already known to match the declared variables (a fresh list in
        `feed_names` order; the persistable values, read from `scope` (`global_scope()` when None), are appended
        to it). `oar.jit`'s runner uses this: its program cache key has already checked the shapes and dtypes."""
        sc = None  # the scope's table, looked up only by a plan that reads or writes persistables
        if self.reads:
            sc = (scope if scope is not None else global_scope()).vars
            try:  # live eager Tensors (oar.jit) or ndarrays (a static Executor's scope)
                args += [v if type(v) is np.ndarray else v._data for v in [sc[name] for name in self.reads]]
            except (KeyError, AttributeError):
                args += self._read(sc)
        try:
            outs = self._plan()(*args)
        except Exception as e:
            op = _failing_op(e.__traceback__)
            if op is None or getattr(e, "_oar_op_error", False):
                raise
            raise op_run_error(e, op) from None
        nf = self.n_fetch
        if self.writes:
            if sc is None:
                sc = (scope if scope is not None else global_scope()).vars
            for name, a in zip(self.writes, outs[nf:]):
                t = sc.get(name)
                held = getattr(t, "_data", None)
                if type(held) is np.ndarray or is_device_array(held):  # a live Tensor: it takes the new array
                    if a is not t._data:  # (an in-place update hands back the array it was given)
                        t._data = _owned(a)
                    t._version += 1
                else:
                    sc[name] = _owned(a)
            outs = outs[:nf]
        for a in outs:
            if type(a) is not np.ndarray or not a.flags.writeable:
                return [a if type(a) is list else _owned(a) for a in outs]
        return list(outs)

    def _read(self, values):
        """The values of `reads` from a scope's table (ndarrays or live Tensors), naming the first one missing."""
        out = []
        for name in self.reads:
            v = values.get(name)
            if v is None:
                raise RuntimeError(f"persistable variable '{name}' has no value in the scope: run the startup "
                                   "program first (exe.run(startup_program)) or pass the scope that holds it")
            out.append(value_of(v))
        return out


def _owned(a):
    """`a` as an ndarray the caller may modify: constants folded at compile time (and views of them) are
    read-only and shared by every run, so they are handed out as copies."""
    if type(a) is not np.ndarray:
        return a if is_device_array(a) else np.asarray(a)
    return a if a.flags.writeable else a.copy()


class PlanCache:
    """Compiled plans owned by their user (an `Executor`): per program (held weakly), the plans of its current
    version keyed by feed and fetch names. A plan refers to its program's ops, so an entry lives as long as the
    cache does; the cache keeps the `max_programs` programs used last."""

    def __init__(self, max_programs=32):
        self._plans = WeakIdMap()   # program (held weakly) -> (version, {(feeds, fetches): Compiled})
        self.max_programs = max_programs

    def get(self, program, key):
        entry = self._plans.get(program)
        return entry[1].get(key) if entry is not None and entry[0] == program.version else None

    def put(self, program, key, plan):
        entry = self._plans.get(program)
        if entry is None or entry[0] != program.version:
            entry = (program.version, {})
            self._plans.pop(program, None)
            while len(self._plans) >= self.max_programs:
                self._plans.pop(next(iter(self._plans)))
            self._plans[program] = entry
        entry[1][key] = plan


def compile_program(program, feed_names, fetch_names, cache=None):
    """The `Compiled` plan of `program` for these feed and fetch names: from `cache` (a `PlanCache`, recompiled
    when the program changed) when one is given, else compiled now and owned by the caller.

    Example:
        >>> from oar.graph.executor import PlanCache
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [2], 'float32')
        ...     y = x * 2.0
        >>> oar.disable_static()
        >>> plans = PlanCache()
        >>> plan = oar.static.compile_program(main, ['x'], [y.name], plans)
        >>> plan is oar.static.compile_program(main, ['x'], [y.name], plans)
        True
    """
    if cache is None:
        return Compiled(program, feed_names, fetch_names)
    key = (tuple(feed_names), tuple(fetch_names))
    c = cache.get(program, key)
    if c is None:
        c = Compiled(program, feed_names, fetch_names)
        cache.put(program, key, c)
    return c


def _fetch_name(f):
    if isinstance(f, Variable):
        return f.name
    if isinstance(f, str):
        return f
    name = getattr(f, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError(f"fetch_list items must be Variables or names, got {type(f).__name__}")


class Executor:
    """Runs Programs on a place (oar computes on the CPU).

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 3])
        ...     y = oar.static.nn.fc(x, size=2)
        >>> exe = oar.static.Executor(oar.CPUPlace())
        >>> _ = exe.run(startup)
        >>> out, = exe.run(main, feed={'x': np.ones([2, 3], 'float32')}, fetch_list=[y])
        >>> out.shape
        (2, 2)
        >>> oar.disable_static()
    """

    def __init__(self, place=None):
        self.place = place
        self._plans = PlanCache()   # this executor's compiled plans

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed", fetch_var_name="fetch",
            scope=None, return_numpy=True, use_program_cache=True, use_prune=False):
        """Runs `program` (the default main program when None) and returns the fetched values in order.

        Args:
            program: a Program (or a CompiledProgram wrapping one).
            feed: ``{name: array}`` for `data` variables (any variable may be fed: it overrides its producer).
            fetch_list: Variables or names to return (one Variable is also accepted).
            scope: where persistable variables live; `global_scope()` (see `scope_guard`) when None.
            return_numpy: ndarrays when True, eager `Tensor`s when False.
            feed_var_name, fetch_var_name, use_program_cache, use_prune: Paddle's; they change nothing here:
                oar feeds and fetches by name without feed/fetch ops, always caches plans (per Executor, rebuilt
                when the program changes) and always runs only the ops the fetches need.

        Example:
            >>> oar.enable_static()
            >>> main = oar.static.Program()
            >>> with oar.static.program_guard(main):
            ...     x = oar.static.data('x', [None, 2])
            ...     loss = (x * x).sum()
            >>> exe = oar.static.Executor()
            >>> x_np = np.array([[1.0, 2.0]], 'float32')
            >>> loss_value, = exe.run(main, feed={'x': x_np}, fetch_list=[loss])
            >>> float(loss_value)
            5.0
            >>> exe.run(main, feed={'x': x_np}, fetch_list=[loss], return_numpy=False)[0].shape
            []
            >>> oar.disable_static()
        """
        from .builder import default_main_program
        if program is None:
            program = default_main_program()
        built = getattr(program, "program", program)      # the program minimize registered inputs for
        program = getattr(program, "_program", program)  # CompiledProgram wrappers
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run expects a Program, got {type(program).__name__}")
        feed = feed or {}
        if isinstance(feed, (list, tuple)):
            feed = feed[0] if feed else {}
        if fetch_list is None:
            fetch_list = []
        elif not isinstance(fetch_list, (list, tuple)):
            fetch_list = [fetch_list]
        fetch_names = [_fetch_name(f) for f in fetch_list]
        feed = feeders.fill(built, feed)  # e.g. an LRScheduler's current learning rate
        compiled = compile_program(program, tuple(feed), fetch_names, self._plans)
        outs = compiled.run(feed, scope)
        if not return_numpy:
            from ..eager.tensor import Tensor
            return [Tensor(a) if isinstance(a, np.ndarray) or is_device_array(a) else a for a in outs]
        return [to_host(a) if is_device_array(a) else a for a in outs]  # NumPy, as Paddle: fetches from a GPU copied

    def close(self):
        pass


def _kernel(d, attrs):
    """The kernel call of op `d` in a plan. While a GPU backend is loaded it is placed by its inputs as an eager
    op is, except that host values (fed arrays, folded constants) join the device of the others."""
    if not _DEVICE.types:
        return functools.partial(d.impl, **attrs) if attrs else d.impl
    from ..ops.device import run

    def kernel(*arrays):
        return run(d, arrays, attrs, host_joins=True)
    return kernel
