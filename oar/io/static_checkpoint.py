"""`paddle.static.save` / `load`, `load_program_state` / `set_program_state`: the training checkpoint of a whole
static program: ``path.pdparams`` (parameters) and ``path.pdopt`` (the other persistables: optimizer state,
statistics), written with `oar.save` (so `oar.load` and Paddle's pickles read the same way), and ``path.pdmodel``
(the program JSON)."""
import json
import os

import numpy as np

from ..core.safe_files import write_files
from ..graph.serialize import program_to_dict
from .save_load import load as load_object, save as save_object

__all__ = ["save", "load", "load_program_state", "set_program_state"]


def save(program, model_path, protocol=4, **configs):
    """Saves a whole program's state: ``model_path.pdparams`` (parameters), ``model_path.pdopt`` (the other
    persistables: optimizer state, statistics) and ``model_path.pdmodel`` (the program), from the global scope.

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([2], 'float32', name='w_save')
        >>> exe = oar.static.Executor()
        >>> _ = exe.run(startup)
        >>> oar.static.save(main, 'ckpt/model')
        >>> state = oar.static.load_program_state('ckpt/model')
        >>> oar.disable_static()
        >>> sorted(state), state['w_save'].shape
        (['w_save'], (2,))
    """
    if configs:
        raise TypeError(f"static.save: unexpected arguments {sorted(configs)}")
    model_path = os.fspath(model_path)
    save_object(program.state_dict("param"), model_path + ".pdparams", protocol=protocol)
    save_object(program.state_dict("opt"), model_path + ".pdopt", protocol=protocol)
    write_files({model_path + ".pdmodel": json.dumps(program_to_dict(program), separators=(",", ":")).encode()})


def load_program_state(model_path, var_list=None):
    """name -> ndarray from ``model_path.pdparams`` and ``.pdopt`` (`save`'s files, or Paddle's); `var_list`
    (Variables or names) keeps only those.

    Example:
        >>> oar.static.load_program_state('absent/model')
        Traceback (most recent call last):
        ValueError: absent/model.pdparams: file not found (load_program_state expects the path given to static.save)
    """
    model_path = os.fspath(model_path)
    if not os.path.exists(model_path + ".pdparams"):
        raise ValueError(f"{model_path}.pdparams: file not found (load_program_state expects the path given to "
                         "static.save)")
    state = {}
    for suffix in (".pdparams", ".pdopt"):
        if os.path.exists(model_path + suffix):
            state.update({k: np.asarray(getattr(v, "_data", v)) for k, v in load_object(model_path + suffix).items()})
    if var_list is not None:
        names = [getattr(v, "name", v) for v in var_list]
        absent = [n for n in names if n not in state]
        if absent:
            raise ValueError(f"load_program_state: {absent} are not in {model_path}")
        state = {n: state[n] for n in names}
    return state


def set_program_state(program, state_dict):
    """Writes `state_dict` (from `load_program_state`) into the program's persistables in the global scope
    (`Program.set_state_dict`).

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([2], 'float32', name='w_sps')
        >>> _ = oar.static.Executor().run(startup)
        >>> oar.static.set_program_state(main, {'w_sps': np.array([3.0, 4.0], 'float32')})
        >>> oar.disable_static()
        >>> main.state_dict()['w_sps'].numpy().tolist()
        [3.0, 4.0]
    """
    program.set_state_dict(state_dict)


def load(program, model_path, executor=None, var_list=None):
    """Loads `save`'s ``.pdparams`` / ``.pdopt`` into the program's persistables (`var_list`: only those).

    Example:
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     w = oar.static.create_parameter([2], 'float32', name='w_load')
        >>> _ = oar.static.Executor().run(startup)
        >>> oar.static.save(main, 'ckpt2/model')
        >>> main.set_state_dict({'w_load': np.zeros([2], 'float32')})
        >>> oar.static.load(main, 'ckpt2/model')
        >>> oar.disable_static()
        >>> bool((main.state_dict()['w_load'].numpy() != 0).any())
        True
    """
    set_program_state(program, load_program_state(model_path, var_list))
