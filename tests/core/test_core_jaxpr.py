"""Tracing to jaxprs: printing in JAX's format (golden strings from JAX 0.10.2), literals and
constvars, nested jaxprs, source info, the type checker, and the IR invariants."""
import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel as jax
from jxkernel import lax
import jxkernel.numpy as jnp
from jxkernel.core import JaxprTypeError, check_jaxpr
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
    assert [a.str_short(short_dtypes=True) for a in closed.in_avals] == ["f32[2]"]
    assert [a.str_short(short_dtypes=True) for a in closed.out_avals] == ["f32[2]", "f32[]"]
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


def test_eval_shape_takes_avals_and_duck_typed_arrays():
    # JAX abstractifies anything with `shape` and `dtype` (Flax Linen passes ShapedArrays)
    class Duck:
        shape, dtype = (4,), np.dtype(np.float64)
    out = jax.eval_shape(lambda a, b, d: (a @ b, d * 2), ShapedArray((2, 3), np.float32),
                         ShapedArray((3,), np.float32), Duck())
    assert out == (jax.ShapeDtypeStruct((2,), np.float32), jax.ShapeDtypeStruct((4,), np.float32))
    assert jax.jit(lambda a: a + 1).trace(Duck()).jaxpr.in_avals == [ShapedArray((4,), np.float32)]
    assert str(jax.make_jaxpr(lambda a: a + 1)(ShapedArray((2,), np.float32))) == \
        "{ lambda ; a:f32[2]. let b:f32[2] = add a 1.0:f32[] in (b,) }"
    # named by the function's parameter, in JAX's words ("... at path b.")
    with pytest.raises(TypeError, match=r"^Error interpreting argument to <function .*> as an "
                                        r"abstract array\. The problematic value is of type "
                                        r"<class 'object'> and was passed to the function at "
                                        r"path b\.\n"):
        jax.eval_shape(lambda a, b: a, 1.0, object())


def test_shape_dtype_struct_like():
    # values from JAX 0.10.2: shape, canonical dtype and weak type of each kind of value
    S = jax.ShapeDtypeStruct
    assert S.like(np.ones((2, 3))) == S((2, 3), np.float32)
    assert S.like(1.0) == S((), np.float32, weak_type=True)
    assert S.like(3) == S((), np.int32, weak_type=True)
    assert S.like(True) == S((), np.bool_)
    assert S.like(np.float64(2.0)) == S((), np.float32)
    assert S.like(S((2,), np.int32)) == S((2,), np.int32)
    assert S.like(ShapedArray((2,), np.float32, weak_type=True)) == \
        S((2,), np.float32, weak_type=True)
    like = S.like(jnp.ones(3))
    assert (like.shape, like.dtype, like.weak_type) == ((3,), np.float32, False)


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


def test_literals_print_as_jaxs():
    # JAX 0.10.2 holds weak Python ints/complexes as TypedInt/TypedComplex, other literals
    # as arrays that print their value (recorded with JAX 0.10.2, Writing custom interpreters)
    def literals(f, x):
        return [repr(v) for e in jax.make_jaxpr(f)(x).jaxpr.eqns for v in e.invars
                if type(v).__name__ == "Literal"]
    assert literals(lambda x: x + 1, 1) == ["Literal(TypedInt(1, dtype=int32))"]
    assert literals(lambda x: x * (1 + 2j), 1.0) == \
        ["Literal(TypedComplex((1+2j), dtype=complex64))"]
    assert literals(lambda x: x + 1, 1.0) == ["Literal(1.0)"]
    assert literals(lambda x: x * np.int32(2), 1) == ["Literal(2)"]
    assert literals(lambda x: x & True, True) == ["Literal(True)"]


def test_check_jaxpr_catches_bad_ir():
    a = Var(ShapedArray((3,), np.float32))
    b = Var(ShapedArray((4,), np.float32))       # wrong: sin keeps the shape
    bad = Jaxpr([], [a], [b], [Eqn([a], [b], lax.sin_p, {})])
    # JAX's words: what is wrong, the equation, its source, the jaxpr around it
    with pytest.raises(JaxprTypeError) as bad_type:
        check_jaxpr(bad)
    assert str(bad_type.value) == (
        "Value for variable 'b' inconsistently typed as f32[3] for let-binder of type f32[4]"
        "\n\nin equation:\n\nb:f32[4] = sin a\n\nfrom source: \n\nwhile checking jaxpr:"
        "\n\n{ lambda ; a:f32[3]. let b:f32[4] = sin a in (b,) }")
    c = Var(ShapedArray((3,), np.float32))
    undefined = Jaxpr([], [a], [c], [Eqn([c], [b], lax.sin_p, {})])
    # (the unread result prints `_`, so `c` is named `b`, as JAX names it)
    with pytest.raises(JaxprTypeError, match="^Variable 'b' not defined\n\nin equation:"):
        check_jaxpr(undefined)


def test_check_jaxpr_errors_are_jaxs():
    # JAX 0.10.2's whole messages (core_test's JaxprTypeChecks), for a jaxpr whose binder,
    # call or cond was edited: tests/data/check_jaxpr_reference.json
    import check_jaxpr_cases as cases
    import locations
    want = locations.recorded("check_jaxpr_reference.json")
    from jxkernel._jax._src import core
    got = cases.run(jax, core)
    assert sorted(got) == sorted(want["cases"])
    for name, text in want["cases"].items():
        assert got[name] == text, name


def test_closed_jaxpr_runs_with_eval_jaxpr():
    closed = jax.make_jaxpr(lambda x: lax.mul(lax.sin(x), 2.0))(ones(3))
    out, = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, ones(3))
    np.testing.assert_allclose(np.asarray(out), 2 * np.sin(np.ones(3)), rtol=1e-6)


def test_weak_types_follow_jax():
    closed = jax.make_jaxpr(lambda x: lax.mul(x, 2.0))(3.0)
    assert closed.out_avals[0].weak_type
    closed = jax.make_jaxpr(lambda x: lax.mul(x, 2.0))(np.float32(3))
    assert not closed.out_avals[0].weak_type


# JAX 0.10.2's text: nested jaxprs used twice, or of more than 10 equations, are printed once
# up front as `let name = ... in`, named after their equation's `name` param
LET_GOLDEN_CALLS = """\
let small = { lambda ; a:f32[3]. let
    b:f32[3] = sin a
    c:f32[3] = mul b 2.0:f32[]
  in (c,) } in
let big = { lambda ; d:f32[3]. let
    e:f32[3] = add d 0.0:f32[]
    f:f32[3] = add e 1.0:f32[]
    g:f32[3] = add f 2.0:f32[]
    h:f32[3] = add g 3.0:f32[]
    i:f32[3] = add h 4.0:f32[]
    j:f32[3] = add i 5.0:f32[]
    k:f32[3] = add j 6.0:f32[]
    l:f32[3] = add k 7.0:f32[]
    m:f32[3] = add l 8.0:f32[]
    n:f32[3] = add m 9.0:f32[]
    o:f32[3] = add n 10.0:f32[]
    p:f32[3] = add o 11.0:f32[]
  in (p,) } in
{ lambda ; q:f32[3]. let
    r:f32[3] = jit[name=small jaxpr=small] q
    s:f32[3] = mul q 3.0:f32[]
    t:f32[3] = jit[name=small jaxpr=small] s
    u:f32[3] = add r t
    v:f32[3] = jit[name=big jaxpr=big] q
    w:f32[3] = add u v
  in (w,) }"""

LET_GOLDEN_SCAN = """\
let jaxpr = { lambda ; a:f32[3]. let
    b:f32[3] = mul a 1.5:f32[]
    c:f32[3] = mul b 1.5:f32[]
    d:f32[3] = mul c 1.5:f32[]
    e:f32[3] = mul d 1.5:f32[]
    f:f32[3] = mul e 1.5:f32[]
    g:f32[3] = mul f 1.5:f32[]
    h:f32[3] = mul g 1.5:f32[]
    i:f32[3] = mul h 1.5:f32[]
    j:f32[3] = mul i 1.5:f32[]
    k:f32[3] = mul j 1.5:f32[]
    l:f32[3] = mul k 1.5:f32[]
  in (l, l) } in
{ lambda ; m:f32[3]. let
    n:f32[3] o:f32[3,3] = scan[
      jaxpr=jaxpr
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] m
  in (n, o) }"""


def test_shared_and_long_jaxprs_are_hoisted_into_lets():
    @jax.jit
    def small(x):
        return jnp.sin(x) * 2

    @jax.jit
    def big(x):
        for i in range(12):
            x = x + i
        return x

    x = np.ones(3, np.float32)
    assert str(jax.make_jaxpr(lambda x: small(x) + small(x * 3) + big(x))(x)) == LET_GOLDEN_CALLS

    def body(c, _):
        for _ in range(11):
            c = c * 1.5
        return c, c
    closed = jax.make_jaxpr(lambda c: lax.scan(body, c, None, length=3))(x)
    assert str(closed) == LET_GOLDEN_SCAN
    check_jaxpr(closed.jaxpr)


def test_ir_docstring_examples_run():
    # _fill's example printed a newline where its docstring meant the two characters "\n"
    # (the docstring was not raw), so the example failed
    check_docstring_examples("jxkernel.core.ir")


def test_source_info_docstring_examples_run():
    # SourceInfo's and stack_text's examples (run with ir.py's before they moved home)
    check_docstring_examples("jxkernel.core.source_info")
    check_docstring_examples("jxkernel.core.name_stack")


def test_an_equations_effects_come_from_the_tables_or_its_primitives_own_effects_of():
    # JaxprEqn.effects answers "none" without calling effects_of for a Primitive in neither
    # effect table; a subclass's own effects_of must still be asked, and the tables read
    from jxkernel.core.ir import Effect, effect_rules
    from jxkernel.core.primitive import Primitive

    told = Effect()

    class Effectful(Primitive):
        def effects_of(self, params, avals=None):
            return frozenset({told})

    plain, own, ruled = (Primitive("plain_effects_test"), Effectful("own_effects_test"),
                         Primitive("ruled_effects_test"))
    effect_rules[ruled] = lambda params: frozenset({told})
    try:
        x = Var(ShapedArray((), np.float32))
        eqn = lambda p: Eqn([x], [Var(ShapedArray((), np.float32))], p, {})
        assert (Primitive.plain_effects, Effectful.plain_effects) == (True, False)
        assert eqn(plain).effects == frozenset()
        assert eqn(own).effects == frozenset({told})
        assert eqn(ruled).effects == frozenset({told})
    finally:
        del effect_rules[ruled]
