"""Refs made outside a jit, a loop or a cond and read or written inside it, and Refs passed to
jit, as JAX 0.10.2 threads them (its array_refs guide, and the programs below run under JAX
0.10.2 on 2026-11-26: each expected value here is what JAX printed for the same program)."""
import numpy as np
import pytest
from doc_examples import check_docstring_examples
from numerics import assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
import locations  # tests/support


def values(ref) -> list:
    return np.asarray(ref[...]).tolist()


def test_docstring_examples():
    check_docstring_examples("jxkernel.transforms.jit.refs")


def test_jit_writes_a_closed_over_ref_on_every_call():
    x_ref = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def f():
        x_ref[1] += 1.

    f()
    f()
    assert values(x_ref) == [0.0, 2.0, 0.0] and repr(x_ref) == "Ref([0., 2., 0.], dtype=float32)"
    assert f._cache_size() == 1         # one program, each call reading the Ref anew


def test_jit_reads_the_refs_value_of_each_call():
    e = jax.new_ref(2.0)
    h = jax.jit(lambda x: x * e[...])
    assert float(jax.grad(h)(1.0)) == 2.0
    e[...] = 5.0
    assert float(jax.grad(h)(1.0)) == 5.0 and float(h(1.0)) == 5.0


def test_ref_arguments_are_each_calls_own():
    @jax.jit
    def scale(a_ref, x):
        a_ref[...] = a_ref[...] * x
        return x + 1

    a, b = jax.new_ref(jnp.ones(2)), jax.new_ref(jnp.ones(2) * 3)
    assert float(scale(a, 2.0)) == 3.0 and float(scale(b, 2.0)) == 3.0
    assert values(a) == [2.0, 2.0] and values(b) == [6.0, 6.0]
    assert scale._cache_size() == 1

    @jax.jit
    def sin_inplace(x_ref):
        x_ref[...] = jnp.sin(x_ref[...])
    r = jax.new_ref(jnp.arange(3.))
    sin_inplace(r)
    # (sin compiled by XLA: within the elementwise ulp bound of NumPy's)
    assert_allclose_ulp(np.asarray(r[...]), np.sin(np.arange(3, dtype=np.float32)), 4)


def test_nested_jits_and_internal_refs():
    c = jax.new_ref(jnp.zeros(2))

    @jax.jit
    def inner(v):
        c[...] += v
        return c[0]

    @jax.jit
    def outer(v):
        return inner(v) + inner(v * 2)
    assert float(outer(jnp.ones(2))) == 4.0 and values(c) == [3.0, 3.0]

    @jax.jit
    def pure(x):                        # a Ref made inside: nothing leaves the function
        ref = jax.new_ref(x)
        ref[...] = ref[...] + ref[...]
        return ref[...]
    assert float(pure(2.0)) == 4.0 and float(jax.grad(pure)(3.0)) == 2.0


def test_grad_of_a_jit_writing_a_stopped_value():
    q = jax.new_ref(1.0)

    @jax.jit
    def loss(x):
        q[...] += lax.stop_gradient(x)
        return x * x
    assert float(jax.grad(loss)(3.0)) == 6.0 and float(q[...]) == 4.0


def test_vmap_of_a_jit_reading_a_ref():
    q = jax.new_ref(3.0)
    out = jax.vmap(jax.jit(lambda x: x + q[...]))(jnp.arange(3.))
    assert np.asarray(out).tolist() == [3.0, 4.0, 5.0]


def test_scan_carries_a_written_ref_eagerly_and_under_jit():
    r = jax.new_ref(0)                  # the guide's foreach
    ys = lax.scan(lambda _, x: (None, (r.__setitem__(..., r[...] + x), x * 2)[1]), None,
                  jnp.arange(10))[1]
    assert repr(r) == "Ref(45, dtype=int32)" and np.asarray(ys).tolist() == list(range(0, 20, 2))

    acc = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def run(xs):
        def body(c, x):
            acc[...] += x
            return c + 1, acc[0]
        return lax.scan(body, 0, xs)
    n, firsts = run(jnp.ones((4, 3)))
    assert int(n) == 4 and np.asarray(firsts).tolist() == [1.0, 2.0, 3.0, 4.0]
    run(jnp.ones((4, 3)))
    assert values(acc) == [8.0, 8.0, 8.0]


def test_fori_while_and_cond_write_refs():
    count = jax.new_ref(0)

    def body(i, c):
        count[...] += 1
        return c + i
    assert int(jax.jit(lambda n: lax.fori_loop(0, n, body, 0))(5)) == 10
    assert int(lax.fori_loop(0, 3, body, 0)) == 3 and int(count[...]) == 8

    s = jax.new_ref(jnp.zeros(2))

    @jax.jit
    def branch(p, v):
        def t(v):
            s[0] = v
            return v

        def f(v):
            s[1] = v
            return -v
        return lax.cond(p, t, f, v)
    assert float(branch(True, 3.0)) == 3.0 and float(branch(False, 4.0)) == -4.0
    assert values(s) == [3.0, 4.0]

    w = jax.new_ref(jnp.array(2.0))

    @jax.jit
    def loop(x):
        # JAX 0.10.2's cond_fun reads the Ref's value from before the loop: 25.0 and 7.0
        return lax.while_loop(lambda v: v < w[...] * 10,
                              lambda v: (w.__setitem__(..., w[...] + 1.0), v + w[...])[1], x)
    assert float(loop(0.0)) == 25.0 and float(w[...]) == 7.0


def test_make_jaxpr_leaves_the_ref_as_it_was():
    a = jax.new_ref(jnp.ones(2))

    @jax.jit
    def double(a_ref):
        a_ref[...] = a_ref[...] * 2
    jax.make_jaxpr(double)(a)
    assert values(a) == [1.0, 1.0]
    double(a)
    assert values(a) == [2.0, 2.0]


def test_jaxs_error_for_a_ref_made_in_a_jit_and_returned_names_its_line():
    # JAX 0.10.2: "...cannot be returned.\n\nThe returned mutable array was created on line
    # <file>:<line>:<column> (f)." (empty where no user line made it: jit(new_ref))
    @jax.jit
    def made(x):
        r = jax.new_ref(x)
        return r
    with pytest.raises(ValueError, match=r"cannot be returned.\n\nThe returned mutable array "
                       r"was created on line .*test_refs.py:\d+:12 \(.*made\).$"):
        made(1.0)
    with pytest.raises(ValueError, match=r"cannot be returned.\n\nThe returned mutable array "
                       r"was created on line .$"):
        jax.jit(jax.new_ref)(jax.numpy.arange(3))


def test_jaxs_errors_for_refs_passed_twice_returned_or_passed_and_closed_over():
    x_ref = jax.new_ref(0.)

    @jax.jit
    def err1(x_ref):
        x_ref[...] = 5.
        return x_ref
    with pytest.raises(ValueError, match=r"^function err1 at .*test_refs.py:\d+ traced for jit "
                       r"returned a mutable array reference of type Ref\{float32\[\]\}, but "
                       r"mutable array references cannot be returned.\n\nThe returned mutable "
                       r"array was passed in as the argument x_ref.$"):
        err1(x_ref)

    @jax.jit
    def err2(x_ref, y_ref):
        ...
    with pytest.raises(ValueError, match=r"^only one reference to a mutable array may be passed "
                       r"as an argument to a function, but when tracing err2 at .*:\d+ for jit "
                       r"the mutable array reference of type Ref\{float32\[\]\} appeared at both "
                       r"x_ref and y_ref.$"):
        err2(x_ref, x_ref)

    @jax.jit
    def err3(y_ref):
        y_ref[...] = x_ref[...]
    with pytest.raises(ValueError, match=r"^when tracing err3 at .*:\d+ for jit, a mutable array "
                       r"reference of type Ref\{float32\[\]\} was both closed over and passed as "
                       r"the argument y_ref$"):
        err3(x_ref)
    assert float(x_ref[...]) == 0.0     # nothing half-done


def test_lower_compile_and_eval_shape_of_a_jit_using_a_ref():
    r = jax.new_ref(jnp.ones(4))
    h = jax.jit(lambda x: (r.__setitem__(..., r[...] + x), x * 2)[1])
    compiled = h.lower(jnp.ones(4)).compile()
    assert np.asarray(compiled(jnp.ones(4))).tolist() == [2.0] * 4 and values(r) == [2.0] * 4
    assert h.eval_shape(jnp.ones(4)).shape == (4,) and values(r) == [2.0] * 4
    assert "stablehlo.add" in h.lower(jnp.ones(4)).as_text()


def test_writes_under_remat_and_differentiated_writes():
    r = jax.new_ref(jnp.ones(4))
    f = jax.jit(jax.checkpoint(lambda x: (r.__setitem__(..., r[...] + x), x)[1]))
    f(jnp.ones(4))
    assert values(r) == [2.0] * 4

    def err6(x, some_plumbing_ref):        # the guide's: a value with a tangent into a Ref
        y = x + x
        some_plumbing_ref[...] += y
        return y
    for grad in (jax.grad(err6), jax.jit(jax.grad(err6))):
        with pytest.raises(Exception, match=r"^performing a set/swap operation with a "
                           r"differentiated value on a non-differentiated array reference of "
                           r"type Ref\{float32\[\]\}. Move the array reference to be an "
                           r"argument of the differentiated function\?$"):
            grad(1., jax.new_ref(0.))


def test_what_is_refused_says_what_to_do():
    r = jax.new_ref(1.0)

    def writes(x):
        r[...] = x
        return x
    with pytest.raises(NotImplementedError, match="writes a Ref made outside it"):
        lax.custom_root(lambda x: writes(x) - 2.0, 1.0, lambda f, x0: x0,
                        lambda f, y: y)
    mesh = jax.make_mesh((1,), ("i",))
    sharded = jax.jit(writes, out_shardings=jax.sharding.NamedSharding(mesh,
                                                                      jax.sharding.PartitionSpec()))
    with pytest.raises(NotImplementedError, match="writes a Ref, and is a jit with shardings"):
        sharded(2.0)
    assert float(r[...]) == 1.0


def test_math_on_a_ref_is_a_type_error_as_in_jax():
    # JAX 0.10.2's jnp.sin is a jit, which traces the Ref as its tracer class: "sin requires
    # ndarray or scalar arguments, got <class 'jax._src.interpreters.partial_eval.
    # DynamicJaxprTracer'> at position 0." (jxkernel's class answers at that path under jxkernel.)
    expected = (r"^sin requires ndarray or scalar arguments, got <class "
                r"'jxkernel._src.interpreters.partial_eval.DynamicJaxprTracer'> at position 0.$")
    with pytest.raises(TypeError, match=expected):
        jnp.sin(jax.new_ref(1.0))
    with pytest.raises(TypeError, match=expected):
        jax.jit(jnp.sin)(jax.new_ref(1.0))
    # a primitive given one, under jit: JAX's ValueError
    with pytest.raises(ValueError, match=r"^Attempting to pass a Ref Ref\{float32\[2\]\} to a "
                                         r"primitive: sin -- did you forget to unpack"):
        jax.jit(lambda r: jax.lax.sin(r))(jax.new_ref(jnp.zeros(2)))


def test_jit_traces_refs_passed_and_made_inside_as_tracers_as_jax():
    # JAX 0.10.2 (checked by hand): a Ref argument and a Ref made inside are tracers of Ref
    # type, printed JitTracer(Ref{...}), instances of jax.Ref; one closed over is the Ref itself
    from jxkernel._src.interpreters.partial_eval import DynamicJaxprTracer
    outside = jax.new_ref(jnp.zeros(2))
    seen = {}

    @jax.jit
    def f(r):
        made = jax.new_ref(jnp.ones(2))
        seen.update(passed=r, made=made, closed=outside, typeof=jax.typeof(r))
        outside[...] += made[...]
        r[...] += 1.0

    arg = jax.new_ref(1.0)
    f(arg)
    assert isinstance(seen["passed"], DynamicJaxprTracer)
    assert isinstance(seen["made"], DynamicJaxprTracer)
    assert type(seen["closed"]) is jax.Ref and seen["closed"] is outside
    assert repr(seen["passed"]) == "JitTracer(Ref{float32[]})"
    assert repr(seen["made"]) == "JitTracer(Ref{float32[2]})"
    assert isinstance(seen["passed"], jax.Ref) and isinstance(seen["made"], jax.Ref)
    assert repr(seen["typeof"]) == "Ref{float32[]}"
    assert outside[...].tolist() == [1.0, 1.0] and float(arg[...]) == 2.0
    f(arg)                              # the compiled program again: each call's own Ref
    assert outside[...].tolist() == [2.0, 2.0] and float(arg[...]) == 3.0


def test_a_jit_with_ref_arguments_leaks_no_tracer():
    # the stand-ins jit keeps for its Ref arguments let go of their trace as it finishes
    r = jax.new_ref(jnp.zeros(2))

    @jax.jit
    def f(r, x):
        r[...] += x
        return x * 2

    with jax.checking_leaks():
        assert f(r, jnp.ones(2)).tolist() == [2.0, 2.0]
    assert r[...].tolist() == [1.0, 1.0]


def test_vmap_of_a_jit_taking_a_ref():
    # (each row of the mapped Ref written by the jit inside: JAX 0.10.2 gives rows of ones)
    @jax.jit
    def f(r, x):
        r[...] += x
        return x

    rows = jax.new_ref(jnp.zeros((3, 2)))
    jax.vmap(lambda r: f(r, jnp.ones(2)))(rows)
    assert rows[...].tolist() == [[1.0, 1.0]] * 3


def test_custom_vjp_stashes_gradients_in_a_ref_as_the_guide_does():
    @jax.custom_vjp
    def stash_grads(grads_ref, x):
        return x

    def stash_grads_fwd(grads_ref, x):
        return x, grads_ref

    def stash_grads_bwd(grads_ref, g):
        grads_ref[...] = g
        return None, g
    stash_grads.defvjp(stash_grads_fwd, stash_grads_bwd)

    def f(x, grads_ref):
        return stash_grads(grads_ref, jnp.sin(x))
    g = jax.new_ref(0.)
    f(1., g)
    assert repr(g) == "Ref(0., dtype=float32, weak_type=True)"      # as JAX prints it
    for grad in (jax.grad(f), jax.jit(jax.grad(f))):
        g[...] = 0.
        # cos(1) from XLA's cos: within the elementwise bound of NumPy's
        assert_allclose_ulp(np.asarray(grad(1., g)), np.cos(np.float32(1)), 4)
        assert repr(g) == "Ref(1., dtype=float32)"


def _in_place_programs():
    @jax.jit
    def sin_inplace(x_ref):
        x_ref[...] = jnp.sin(x_ref[...])

    @jax.jit
    def reads_only(x_ref):
        return x_ref[...] * 2
    return sin_inplace, reads_only


def test_no_array_the_user_holds_is_a_refs_buffer():
    # JAX 0.10.2 (these programs run under it): new_ref, whole reads and whole writes copy, so
    # donating a Ref's buffer to a jit call (below) never deletes an Array the user holds
    sin_inplace, _ = _in_place_programs()
    x = jnp.arange(3.)
    r = jax.new_ref(x)
    y = r[...]
    sin_inplace(r)
    assert x.tolist() == y.tolist() == [0., 1., 2.]
    assert_allclose_ulp(np.asarray(r[...]), np.sin(np.arange(3, dtype=np.float32)), 1)
    w = jnp.ones(3)
    r[...] = w
    sin_inplace(r)
    assert w.tolist() == [1., 1., 1.] and jax.freeze(r).tolist() == values(r)
    sin_inplace(r)
    assert w.tolist() == [1., 1., 1.]


@pytest.mark.xla_only("XLA compiler")
def test_a_jit_call_updates_every_ref_in_place_as_jax_donates_them():
    # JAX 0.10.2 (the array_refs guide's "Refs and performance", and these programs run under
    # it): a top-level call donates each Ref's buffer to the Ref's final value, written or
    # only read, passed or closed over, so the Ref keeps its buffer
    sin_inplace, reads_only = _in_place_programs()
    x = jnp.arange(3.)
    r = jax.new_ref(x)
    y = r[...]
    assert r.unsafe_buffer_pointer() not in (x.unsafe_buffer_pointer(),
                                             y.unsafe_buffer_pointer())
    p = r.unsafe_buffer_pointer()
    sin_inplace(r)
    assert r.unsafe_buffer_pointer() == p
    assert_allclose_ulp(np.asarray(reads_only(r)), 2 * np.sin(np.arange(3, dtype=np.float32)), 1)
    assert r.unsafe_buffer_pointer() == p
    c = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def closes():
        c[...] += 1

    p = c.unsafe_buffer_pointer()
    closes()
    assert c.unsafe_buffer_pointer() == p and values(c) == [1., 1., 1.]
    # each Ref's buffer aliased to its own final value, as JAX's lowering marks it
    text = reads_only.lower(r).as_text()
    assert "%arg0: tensor<3xf32> {tf.aliasing_output = 1 : i32}" in text
    assert "{tf.aliasing_output = 0 : i32}" in sin_inplace.lower(r).as_text()


def test_a_ref_has_its_arrays_sharding():
    # as JAX 0.10.2's (mutable_array_test's test_sharding_persists: new_ref(x).sharding == s)
    mesh = jax.make_mesh((1,), ("i",))
    x = jax.device_put(jax.numpy.arange(2), jax.sharding.NamedSharding(mesh, jax.P("i")))
    a = jax.new_ref(x)
    assert a.sharding == x.sharding and a[...].sharding == x.sharding
    assert jax.new_ref(jax.numpy.arange(2)).sharding == \
        jax.sharding.SingleDeviceSharding(jax.devices()[0])


def test_jaxs_error_for_a_ref_returned_by_a_scan_body_or_a_cond_branch():
    # JAX 0.10.2: "function <lambda> at <file>:<line> traced for scan returned a mutable array
    # reference of type Ref{int32[]} at output tree path result[0], but mutable array
    # references cannot be returned.\n\nThe returned mutable array was created on line ...";
    # cond's says the same without a tree path (jxkernel names none for either)
    with pytest.raises(ValueError, match=r"^function <lambda> at .*test_refs.py:\d+ traced for "
                       r"scan returned a mutable array reference of type Ref\{int32\[\]\}.* but "
                       r"mutable array references cannot be returned.\n\nThe returned mutable "
                       r"array was created on line .*test_refs.py:\d+:\d+ \(.*\).$"):
        jax.lax.scan(lambda c, x: (jax.new_ref(c), x), 0, jax.numpy.arange(3))
    with pytest.raises(ValueError, match=r"traced for cond returned a mutable array reference "
                       r"of type Ref\{float32\[\]\}, but mutable array references cannot be "
                       r"returned."):
        jax.lax.cond(True, lambda: jax.new_ref(1.0), lambda: jax.new_ref(2.0))


def test_a_ref_freed_in_a_jit_cannot_be_read_or_written():
    # JAX 0.10.2: free_ref gives the Ref the freed type: "`get` must be called on `Ref` types:
    # ~float32[]." (`swap` for a write); eagerly free_ref changes nothing, as JAX's
    def use(op):
        @jax.jit
        def f(x):
            ref = jax.new_ref(x)
            jax.free_ref(ref)
            if op == "get":
                return ref[...]
            ref[...] = 2.0
        return f
    for op in ("get", "swap"):
        with pytest.raises(ValueError, match=rf"^`{op}` must be called on `Ref` types: "
                           r"~float32\[\].$"):
            use(op)(1.0)
    r = jax.new_ref(1.0)
    assert jax.free_ref(r) == () and float(r[...]) == 1.0


def test_jaxs_error_for_one_ref_passed_twice_to_a_vmap():
    # JAX 0.10.2: "only one reference to a mutable array may be passed as an argument to a
    # function, but when tracing f at <file>:<line> for vmap the mutable array reference of
    # type Ref{float32[3,3]} appeared at both ref_1 and ref_2."
    def f(ref_1, ref_2):
        pass
    x_ref = jax.new_ref(jax.numpy.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"^only one reference to a mutable array may be passed "
                       r"as an argument to a function, but when tracing f at .*test_refs.py:\d+ "
                       r"for vmap the mutable array reference of type Ref\{float32\[3,3\]\} "
                       r"appeared at both ref_1 and ref_2.$"):
        jax.vmap(f)(x_ref, x_ref)
    with pytest.raises(ValueError, match=r"appeared at both t\[0\] and t\[1\].$"):
        jax.vmap(lambda t: None)((x_ref, x_ref))


def test_writes_inside_a_vmap_that_does_not_map_the_ref_as_jax():
    # JAX 0.10.2 (tests/data/ref_vmap_write_cases.py, recorded by
    # reference/make_ref_vmap_write_reference.py) refuses any write to a Ref inside a vmap
    # that neither maps it nor made it, even of an unbatched value
    import json
    import locations
    import ref_vmap_write_cases
    recorded = locations.jax_answers("ref_vmap_write_reference.json")
    assert ref_vmap_write_cases.run(jax) == recorded


def test_writes_of_another_shape_or_dtype_are_refused_as_jax():
    # JAX 0.10.2 (tests/data/ref_write_types_cases.py, recorded by
    # reference/make_ref_write_types_reference.py) neither broadcasts a value written into a
    # Ref (`r[...] = 1.0` into a Ref of shape (3,)) nor converts its dtype, but a weak float
    # into a float Ref and any integer into an integer one: "Invalid shape for `swap`" /
    # "Invalid dtype for `addupdate`", with the index's NDIndexer in its words
    import json
    import locations
    import ref_write_types_cases
    recorded = locations.jax_answers("ref_write_types_reference.json")
    assert ref_write_types_cases.run(jax) == recorded


def test_a_loop_or_cond_writing_a_ref_runs_its_body_once_as_jax():
    # JAX 0.10.2 (tests/data/ref_loop_traces_cases.py, recorded by
    # reference/make_ref_loop_traces_reference.py) traces a scan/while/fori body or a
    # cond/switch branch that writes a Ref made outside once; jxkernel traced it a second
    # time to carry the Ref's value (a print in it printed twice), and now evaluates the
    # first trace (lax/_cf_refs.discharged)
    import json
    import locations
    import ref_loop_traces_cases
    recorded = locations.jax_answers("ref_loop_traces_reference.json")
    assert ref_loop_traces_cases.run(jax) == recorded
