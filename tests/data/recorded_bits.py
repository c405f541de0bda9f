"""An array as the case files record it, the same under JAX and jxkernel: dtype, shape and the
bits of each element (floats as unsigned ints of their width, bools as 0/1), so that ints and
PRNG bits compare exactly and floats within a stated ulp bound (tests/support/numerics.py's
assert_bits_close decodes them).

    >>> array_bits(np.float32([1.0]))
    {'dtype': 'float32', 'shape': [1], 'bits': [1065353216]}
"""
import numpy as np


def array_bits(x) -> dict:
    x = np.asarray(x)
    kind = x.dtype.kind
    view = x.view(f"u{x.dtype.itemsize}") if kind == "f" else x.astype(np.uint8) \
        if kind == "b" else x
    return {"dtype": str(x.dtype), "shape": list(x.shape), "bits": [int(v) for v in view.ravel()]}
