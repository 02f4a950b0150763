"""`concat` / `stack` refuse tensors of different dtypes, as Paddle 3.3.1 does (it raises for every mixed pair,
float32+float64 and int32+int64 included); oar used to promote them silently. Under `auto_cast` the AMP cast rules
decide instead (a float16 activation meets a float32 one there)."""
import numpy as np
import pytest

import oar


@pytest.mark.parametrize("a, b", [("int32", "float32"), ("float32", "float64"), ("float16", "float32"),
                                  ("int32", "int64"), ("bool", "int32")])
@pytest.mark.parametrize("fn", [oar.concat, oar.stack])
def test_mixed_dtypes_raise(fn, a, b):
    with pytest.raises(ValueError, match=f"tensor 1 has dtype {b}, tensor 0 has {a}"):
        fn([oar.ones([2], dtype=a), oar.ones([2], dtype=b)])


def test_one_dtype_joins():
    out = oar.concat([oar.ones([2], dtype="int64"), oar.zeros([1], dtype="int64")])
    assert out.dtype == oar.int64 and out.numpy().tolist() == [1, 1, 0]


@pytest.mark.parametrize("fn, shape", [(oar.concat, [4, 2]), (oar.stack, [2, 2, 2])])
def test_under_auto_cast_mixed_precision_joins(fn, shape):
    x = oar.to_tensor(np.ones((2, 2), np.float32))
    with oar.amp.auto_cast(level="O1"):
        h = oar.matmul(x, x)  # float16 (white list)
        out = fn([h, x])
    assert out.shape == shape and out.dtype == oar.float32
