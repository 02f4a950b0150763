"""A stand-in ConcreteProgram built with the static API, for testing save/load below the dy2static layer."""
import numpy as np

import oar
from oar.static import Program, program_guard, data
from oar.graph.builder import BUILDER, static_mode


class FakeConcrete:
    def __init__(self, fn, feeds):
        self.main_program = Program()
        self.scope = oar.static.Scope()
        with static_mode(), program_guard(self.main_program), BUILDER.binding(self.main_program, self.scope):
            self.inputs = [data(n, s, d) for n, s, d in feeds]
            out = fn(*self.inputs)
        self._single = not isinstance(out, (list, tuple))
        self.outputs = [out] if self._single else list(out)
        self.parameters = dict(self.scope.vars)

    def pack_outputs(self, flat):
        return flat[0] if self._single else list(flat)


def param(shape, seed=0):
    return oar.Parameter(np.random.default_rng(seed).standard_normal(shape).astype("float32"))
