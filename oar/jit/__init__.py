"""`oar.jit`: dynamic-to-static conversion (`to_static`), and saving/loading converted models."""
from .api import to_static, not_to_static, ignore_module, enable_to_static, set_code_level, set_verbosity  # noqa
from .static_function import StaticFunction, ConcreteProgram  # noqa: F401
from .runner import ProgramRunner  # noqa: F401
from .save_load import save, load  # noqa: F401,E402
from .translated import TranslatedLayer  # noqa: F401,E402
