import jax
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad

multiply_add_p = Primitive("multiply_add")


def multiply_add_prim(x, y, z):
    return multiply_add_p.bind(x, y, z)


def multiply_add_impl(x, y, z):
    return np.add(np.multiply(x, y), z)


def multiply_add_abstract_eval(xs, ys, zs):
    assert xs.shape == ys.shape == zs.shape
    return jax.core.ShapedArray(xs.shape, xs.dtype)


multiply_add_p.def_impl(multiply_add_impl)
multiply_add_p.def_abstract_eval(multiply_add_abstract_eval)
print(multiply_add_prim(2., 3., 10.))
print(jax.make_jaxpr(multiply_add_prim)(2., 3., 10.))


def multiply_add_jvp(primals, tangents):
    x, y, z = primals
    xt, yt, zt = tangents
    return multiply_add_prim(x, y, z), xt * y + x * yt + zt


ad.primitive_jvps[multiply_add_p] = multiply_add_jvp
print(jax.jvp(multiply_add_prim, (2., 3., 10.), (1., 1., 1.)))
