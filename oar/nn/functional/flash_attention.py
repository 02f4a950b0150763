"""`paddle.nn.functional.flash_attention`: where Paddle 2.6 defines `scaled_dot_product_attention` (a plain
softmax attention here, `attention.py`)."""
from .attention import scaled_dot_product_attention  # noqa: F401
