"""Static graph API (Paddle 2.x `paddle.static`)."""
from .ir import Program, Block, Variable, Operator
from .builder import (default_main_program, default_startup_program, program_guard, data, create_parameter,
                      enable_static, disable_static)
