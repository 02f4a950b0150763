"""`paddle.base.unique_name`: `generate(key)` (``key_0``, ``key_1``, ...) and `guard()` (fresh counters for a
body), the same counters that name layers and parameters."""
from ..nn.layer.layers import UNIQUE_NAMES

generate = UNIQUE_NAMES.generate
guard = UNIQUE_NAMES.guard
