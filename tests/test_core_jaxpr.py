"""Tracing to jaxprs: printing in JAX's format (golden strings from JAX 0.10.2), literals and
constvars, nested jaxprs, source info, the type checker, and the IR invariants."""
import numpy as np
import pytest

import jxkernel as jax
from jxkernel import lax
from jxkernel.core import ClosedJaxpr, JaxprTypeError, check_jaxpr
from jxkernel.core.ir import Eqn, Jaxpr, Var
from jxkernel.core.avals import ShapedArray


def ones(*shape):
    return jax.device_put(np.ones(shape, np.float32))


GOLDEN = [
    (lambda x, y: lax.mul(lax.sin(x), y), (ones(3), 2.0),
     "{ lambda ; a:f32[3] b:f32[]. let c:f32[3] = sin a; d:f32[3] = mul c b in (d,) }"),
    (lambda x: lax.add(x, 2.0), (ones(2, 3),),
     "{ lambda ; a:f32[2,3]. let b:f32[2,3] = add a 2.0:f32[] in (b,) }"),
    (lambda x: (x, lax.mul(x, np.arange(3.0, dtype=np.float32))), (ones(3),),
     "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = mul b a in (b, c) }"),
    (lambda x: lax.convert_element_type(x, np.int32), (1.0,),
     "{ lambda ; a:f32[]. let\n    b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
     "  in (b,) }"),
    (lambda x: jax.jit(lambda a, b: (lax.exp(a), lax.mul(a, b)))(x, x), (1.0,),
     "{ lambda ; a:f32[]. let\n    b:f32[] c:f32[] = jit[\n      name=<lambda>\n"
     "      jaxpr={ lambda ; a:f32[] d:f32[]. let\n          b:f32[] = exp a\n"
     "          c:f32[] = mul a d\n        in (b, c) }\n    ] a a\n  in (b, c) }"),
    (jax.grad(lambda x: lax.mul(lax.sin(x), x)), (1.0,),
     "{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = cos a\n    _:f32[] = mul b a\n"
     "    d:f32[] = mul b 1.0:f32[]\n    e:f32[] = mul 1.0:f32[] a\n    f:f32[] = mul e c\n"
     "    g:f32[] = add_any d f\n  in (g,) }"),
    (jax.grad(lambda x, y: lax.mul(lax.exp(x), y), argnums=(0, 1)), (1.0, 2.0),
     "{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = exp a\n    _:f32[] = mul c b\n"
     "    d:f32[] = mul c 1.0:f32[]\n    e:f32[] = mul 1.0:f32[] b\n    f:f32[] = mul e c\n"
     "  in (f, d) }"),
]


@pytest.mark.parametrize("fun,args,expected", GOLDEN)
def test_golden_jaxpr_text(fun, args, expected):
    closed = jax.make_jaxpr(fun)(*args)
    check_jaxpr(closed)
    assert str(closed) == expected


def test_make_jaxpr_attributes_and_return_shape():
    closed, shape = jax.make_jaxpr(lambda x: (lax.sin(x), 1.0), return_shape=True)(ones(2))
    assert [a.str_short() for a in closed.in_avals] == ["f32[2]"]
    assert [a.str_short() for a in closed.out_avals] == ["f32[2]", "f32[]"]
    assert closed.consts == [] and len(closed.eqns) == 1
    assert shape[0] == jax.ShapeDtypeStruct((2,), np.float32)
    assert shape[1].weak_type


def test_static_argnums_in_make_jaxpr():
    closed = jax.make_jaxpr(lambda x, n: lax.integer_pow(x, n), static_argnums=1)(ones(3), 3)
    assert str(closed) == "{ lambda ; a:f32[3]. let b:f32[3] = integer_pow[y=3] a in (b,) }"


def test_eval_shape_computes_nothing():
    out = jax.eval_shape(lambda x, y: (lax.mul(x, y), lax.convert_element_type(x, np.int8)),
                         jax.ShapeDtypeStruct((2, 5), np.float32), 3.0)
    assert out[0] == jax.ShapeDtypeStruct((2, 5), np.float32)
    assert out[1] == jax.ShapeDtypeStruct((2, 5), np.int8)


def test_names_past_z_and_unused_results():
    def chain(x):
        for _ in range(30):
            x = lax.sin(x)
        lax.cos(x)           # unused: printed as _
        return x
    text = str(jax.make_jaxpr(chain)(1.0))
    assert "ba:f32[] = sin z" in text and "_:f32[] = cos" in text


def test_source_info_points_at_user_line():
    def f(x):
        return lax.sin(x)   # the line recorded
    closed = jax.make_jaxpr(f)(1.0)
    info = closed.eqns[0].source_info
    assert info.file == __file__ and info.function == "f"
    import inspect
    assert info.line == inspect.getsourcelines(f)[1] + 1
    assert f"# {__file__}" in closed.pretty_print(source_info=True)


def test_check_jaxpr_catches_bad_ir():
    a = Var(ShapedArray((3,), np.float32))
    b = Var(ShapedArray((4,), np.float32))       # wrong: sin keeps the shape
    bad = Jaxpr([], [a], [b], [Eqn([a], [b], lax.sin_p, {})])
    with pytest.raises(JaxprTypeError, match="output typed f32\\[4\\]"):
        check_jaxpr(bad)
    c = Var(ShapedArray((3,), np.float32))
    undefined = Jaxpr([], [a], [c], [Eqn([c], [b], lax.sin_p, {})])
    with pytest.raises(JaxprTypeError, match="used before it is defined"):
        check_jaxpr(undefined)


def test_closed_jaxpr_runs_with_eval_jaxpr():
    closed = jax.make_jaxpr(lambda x: lax.mul(lax.sin(x), 2.0))(ones(3))
    out, = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, ones(3))
    np.testing.assert_allclose(np.asarray(out), 2 * np.sin(np.ones(3)), rtol=1e-6)


def test_weak_types_follow_jax():
    closed = jax.make_jaxpr(lambda x: lax.mul(x, 2.0))(3.0)
    assert closed.out_avals[0].weak_type
    closed = jax.make_jaxpr(lambda x: lax.mul(x, 2.0))(np.float32(3))
    assert not closed.out_avals[0].weak_type
