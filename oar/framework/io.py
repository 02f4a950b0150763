"""`oar.framework.io` (Paddle's `paddle.framework.io`): `save` and `load`, defined in `oar.io.save_load`."""
from ..io.save_load import save, load  # noqa: F401
