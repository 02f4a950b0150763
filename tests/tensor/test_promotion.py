"""Type promotion against Paddle's documented tables (guides/advanced/auto_type_promotion), tensor-tensor and
tensor-scalar, for operators and the functional API alike."""
import pytest

import oar

try:
    import ml_dtypes  # noqa: F401
    FLOATS = ["bfloat16", "float16", "float32", "float64"]
except ImportError:
    FLOATS = ["float16", "float32", "float64"]

# Paddle's tensor-tensor table among floating types (row + column)
FLOAT_TABLE = {
    ("bfloat16", "bfloat16"): "bfloat16", ("bfloat16", "float16"): "float32", ("bfloat16", "float32"): "float32",
    ("bfloat16", "float64"): "float64", ("float16", "float16"): "float16", ("float16", "float32"): "float32",
    ("float16", "float64"): "float64", ("float32", "float32"): "float32", ("float32", "float64"): "float64",
    ("float64", "float64"): "float64",
}
REALS = FLOATS + ["bool", "uint8", "int8", "int16", "int32", "int64"]


def _pairs():
    for (a, b), want in FLOAT_TABLE.items():
        if a in FLOATS and b in FLOATS:
            yield a, b, want
    for r in REALS:  # complex with any real type: the complex type, c128 when the real is float64
        yield r, "complex64", "complex128" if r == "float64" else "complex64"
        yield r, "complex128", "complex128"
    yield "complex64", "complex128", "complex128"


@pytest.mark.parametrize("a, b, want", list(_pairs()))
@pytest.mark.parametrize("op", [lambda x, y: x + y, oar.subtract, lambda x, y: x * y, oar.divide])
def test_tensor_tensor_table(a, b, want, op):
    x, y = oar.ones([2], a), oar.ones([2], b)
    assert op(x, y).dtype == want and op(y, x).dtype == want


# Paddle's tensor-scalar table: the scalar's kind against the tensor's dtype
@pytest.mark.parametrize("tensor, scalar, want", [
    ("bool", True, "bool"), ("bool", 2, "int64"), ("bool", 2.5, "float32"), ("bool", 1j, "complex64"),
    ("int32", True, "int32"), ("int32", 2, "int32"), ("int32", 2.5, "float32"), ("int32", 1j, "complex64"),
    ("uint8", 2, "uint8"), ("int64", 2.5, "float32"),
    ("float16", 2, "float16"), ("float16", 2.5, "float16"), ("float16", 1j, "complex64"),
    ("float32", 2.5, "float32"), ("float64", 2, "float64"), ("float64", 1j, "complex128"),
    ("complex64", 2.5, "complex64"), ("complex128", 2, "complex128"),
])
def test_tensor_scalar_table(tensor, scalar, want):
    x = oar.ones([2], tensor)
    assert (x + scalar).dtype == want and (scalar + x).dtype == want
    assert (x * scalar).dtype == want and oar.add(x, scalar).dtype == want


def test_tensor_scalar_follows_default_dtype():
    try:
        oar.set_default_dtype("float64")
        assert (oar.ones([2], "int32") + 2.5).dtype == oar.float64
    finally:
        oar.set_default_dtype("float32")


def test_integer_true_division_gives_the_default_float():
    i = oar.to_tensor([1, 2], dtype="int32")
    assert (i / i).dtype == oar.float32 and (i / 2).dtype == oar.float32
    assert (i / 2).numpy().tolist() == [0.5, 1.0]
    assert (i // 2).dtype == oar.int32


def test_outside_paddles_table_oar_promotes_like_numpy():
    """Paddle raises for these mixes; oar promotes (documented in `oar.core.dtype.promote`)."""
    assert (oar.ones([2], "int64") + oar.ones([2], "float32")).dtype == oar.float32
    assert (oar.ones([2], "int32") + oar.ones([2], "int64")).dtype == oar.int64
    assert (oar.ones([2], "uint8") + oar.ones([2], "int8")).dtype == oar.int16
    assert (oar.ones([2], "bool") + oar.ones([2], "int32")).dtype == oar.int32
