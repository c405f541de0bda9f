"""What JAX 0.10.2's own tests/lax_control_flow_test.py and tests/batching_test.py found
jxkernel doing differently, run the same way with JAX and with jxkernel
(reference/make_control_flow_gaps_reference.py records JAX's answers in
tests/data/control_flow_gaps_reference.json; tests/lax/test_control_flow_gaps.py compares).

`errors(jax)`: name -> a thunk that raises; recorded: the exception's class name and the
first two lines of its message. `values(jax)`: name -> a thunk returning a pytree of arrays;
recorded: each leaf's dtype, shape and values (exact: ints and bools, or floats computed
exactly)."""
import importlib

import numpy as np


def errors(jax):
    jnp, lax = jax.numpy, jax.lax
    return {
        "while_loop_not_callable": lambda: lax.while_loop(42, 42, 0),
        "switch_not_callable": lambda: lax.switch(0, [42]),
        "switch_no_branches": lambda: lax.switch(0, []),
        "switch_float_index": lambda: lax.switch(1.0, [lambda: 1, lambda: 2]),
        "cond_pred_none": lambda: lax.cond(None, lambda: 1, lambda: 2),
        "cond_pred_string": lambda: lax.cond("yes", lambda: 1, lambda: 2),
        "cond_pred_object": lambda: lax.cond(_Opaque(), lambda: 1, lambda: 2),
        "scan_not_callable": lambda: lax.scan(42, 0, 1),
        "scan_body_numpy_scalar": lambda: lax.scan(lambda c, x: np.float32(0.), 0,
                                                   jnp.arange(5.)),
        "scan_negative_unroll": lambda: lax.scan(lambda x, _: (x, x), 0, jnp.arange(5),
                                                 unroll=-1),
        "switch_function_index": lambda: lax.switch(_Opaque(), [lambda: 2., lambda: 3.]),
        "switch_string_index": lambda: lax.switch("foo", [lambda _: 2., lambda _: 3.], 1.),
        "switch_tuple_index": lambda: lax.switch((1., 1.), [lambda _: 2., lambda _: 3.], 1.),
        "cond_pred_array": lambda: lax.cond(np.array([1., 2.]), lambda: 1, lambda: 2),
        "while_loop_cond_returns_pair": lambda: lax.while_loop(lambda c: (1., 1.),
                                                               lambda c: c, 0.),
        "while_loop_cond_returns_float": lambda: lax.while_loop(
            lambda c: np.float32(1.), lambda c: c, np.float32(0.)),
        "scan_traced_length": lambda: jax.jit(
            lambda n, x: lax.scan(lambda c, z: (c, z), x, (), n))(3, 1.),
        "scan_traced_unroll": lambda: jax.jit(
            lambda n, x: lax.scan(lambda c, z: (c, z), x, (), 10, unroll=n))(True, 1.),
        "scan_param_reverse": lambda: _check_changed(jax, _scan_jaxpr(jax), "scan", "reverse",
                                                     4),
        "scan_param_num_consts": lambda: _check_changed(jax, _scan_jaxpr(jax), "scan",
                                                        "num_consts", -3),
        "scan_param_jaxpr": lambda: _check_changed(jax, _scan_jaxpr(jax), "scan", "jaxpr", 4),
        "cond_param_branches": lambda: _check_changed(jax, _switch_jaxpr(jax), "cond",
                                                      "branches", (4, 2)),
        "cond_param_no_branches": lambda: _check_changed(jax, _switch_jaxpr(jax), "cond",
                                                         "branches", ()),
        "vmap_string_output": lambda: jax.vmap(lambda x: "hello")(np.arange(5)),
        "vmap_type_output": lambda: jax.vmap(lambda x: (x, {"a": object}))(np.arange(5)),
        "scan_zero_length_disable_jit": _without_jit(jax, lambda: lax.scan(
            lambda c, x: (c + x, x), 0., np.array([]))),
    }


def values(jax):
    jnp, lax = jax.numpy, jax.lax
    return {
        "scan_unroll_true": lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(5),
                                             unroll=True),
        "scan_unroll_false": lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(5),
                                              unroll=False),
        # which unrolls keep a while loop in the compiled program: a fully unrolled scan (True,
        # 0, or the length) is straight-line code
        "scan_unroll_while_in_hlo": lambda: np.array([
            "while(" in jax.jit(lambda c, xs: lax.scan(lambda c, x: (c * x, c), c, xs,
                                                       unroll=u)).lower(
                1., jnp.ones(4)).as_text("hlo") for u in (1, 2, 3, 4, True, 0)]),
        "scan_unroll_zero": lambda: lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(5),
                                             unroll=0),
        # a y that is the body's x: pruned from the body, the xs passed through
        "scan_forwards_xs_to_ys_jaxpr": lambda: np.array(str(jax.make_jaxpr(
            lambda x: lax.scan(lambda c, x: (c + 1, x), 0, x))(jnp.arange(3.)))),
        "scan_forwards_numpy_xs": lambda: lax.scan(lambda c, x: (c + 1, (x, 2 * x)), 0,
                                                   np.arange(3.), reverse=True),
        # under disable_jit the bodies run as Python on concrete values (float() of a tracer
        # would raise), each iteration once
        "scan_disable_jit": _without_jit(jax, lambda: _seen(lambda seen: lax.scan(
            lambda c, x: (seen.append(float(c)) or c + x, c), 0., jnp.arange(4.),
            reverse=True))),
        "while_loop_disable_jit": _without_jit(jax, lambda: _seen(lambda seen: lax.while_loop(
            lambda c: seen.append(float(c)) or c < 3, lambda c: c + 1, 0.))),
        "cond_disable_jit": _without_jit(jax, lambda: _seen(lambda seen: lax.cond(
            True, lambda x: seen.append(float(x)) or x, lambda x: x, 2.))),
        "switch_disable_jit": _without_jit(jax, lambda: _seen(lambda seen: lax.switch(
            7, [lambda x: x, lambda x: seen.append(float(x)) or -x], 2.))),
        # a container vmap maps by its own rules (register_vmappable), its spec of its own type
        "vmappable_in_and_out": lambda: _with_vmappable(jax, lambda: jax.vmap(
            lambda p: _Named(p.names, p.data * 2.), in_axes=_Spec("i", 0),
            out_axes=_Spec("i", 1), axis_size=3)(_Named(["i", "j"],
                                                        jnp.arange(6.).reshape(3, 2)))),
        "vmappable_under_jit": lambda: _with_vmappable(jax, lambda: jax.jit(jax.vmap(
            lambda p: _Named(p.names, p.data + 1.), in_axes=_Spec("i", 0),
            out_axes=_Spec("i", 0), axis_size=2))(_Named(["i"], jnp.arange(2.)))),
        # jit of a pytree whose unflatten needs its arrays (names the results without one)
        "jit_of_fragile_pytree": lambda: _with_vmappable(jax, lambda: jax.jit(
            lambda p: _Named(p.names, p.data * 3.))(_Named(["i"], jnp.arange(2.)))),
        "fori_loop_zero_trips_disable_jit": _without_jit(jax, lambda: lax.fori_loop(
            0, 0, lambda i, x: x + i, 1.)),
        # a NumPy carry is not changed in place by the body's `+=` (JAX's lax.asarray)
        "while_loop_numpy_carry_disable_jit": _without_jit(jax, lambda: lax.while_loop(
            lambda c: c[0] < 10, _add_in_place, (np.array(1.0), np.array(1.0)))),
        "while_loop_vmap_disable_jit": _without_jit(jax, lambda: jax.vmap(
            lambda y: lax.while_loop(lambda x: x < 10.0, lambda x: x + 1.0, y))(
                jnp.array([3.0, 4.0]))),
    }


def _scan_jaxpr(jax):
    jnp = jax.numpy
    return jax.make_jaxpr(lambda c, xs: jax.lax.scan(lambda c, x: (jnp.sin(c * x.sum()), c),
                                                     c, xs))(jnp.ones(4), jnp.ones((5, 3)))


def _switch_jaxpr(jax):
    jnp = jax.numpy
    return jax.make_jaxpr(lambda x: jax.lax.switch(0, [jnp.sin, jnp.cos], x))(1.)


def _check_changed(jax, closed, primitive, param, value):
    """check_jaxpr (JAX's private core's) of `closed` after its `primitive` equation's
    `param` is set to `value`, as JAX's typecheck tests change them."""
    core = importlib.import_module(jax.__name__ + "._src.core")
    eqn = next(e for e in closed.jaxpr.eqns if e.primitive.name == primitive)
    eqn.params[param] = value
    core.check_jaxpr(closed.jaxpr)


def lapack_values(jax):
    """name -> a thunk returning floats computed by LAPACK (compared within LAPACK's ulps)."""
    jnp = jax.numpy
    a = np.array([[4., 2., 0.6], [2., 5., 1.], [0.6, 1., 3.]], np.float32)
    scales = np.array([[0.5], [1.], [2.]], np.float32)

    def loss(s):
        return jnp.sum(jnp.linalg.cholesky(s[jnp.newaxis] * a) ** 2)
    return {
        # cholesky's jvp rule under vmap, with implicit rank promotion an error (JAX's
        # batching_test runs so)
        "cholesky_grad_vmap_rank_promotion_raise": lambda: _rank_promotion_raise(
            jax, lambda: jax.grad(lambda s: jnp.sum(jax.vmap(loss)(s)))(scales)),
    }


def _rank_promotion_raise(jax, thunk):
    with jax.numpy_rank_promotion("raise"):
        return thunk()


class _Named:
    """An array with a name per axis: vmap maps it by name (batching_test's NamedArray)."""
    def __init__(self, names, data):
        assert len(names) == data.ndim
        self.names, self.data = list(names), data


class _Spec:
    """Which name, at which axis, vmap maps (batching_test's NamedMapSpec)."""
    def __init__(self, name, axis):
        self.name, self.axis = name, axis


def _named_to_elt(cont, _, value, spec):
    names = list(value.names)
    assert names.pop(spec.axis) == spec.name
    return _Named(names, cont(value.data, spec.axis))


def _named_from_elt(cont, size, elt, spec):
    names = list(elt.names)
    names.insert(spec.axis, spec.name)
    return _Named(names, cont(size, elt.data, spec.axis))


def _with_vmappable(jax, thunk):
    """(names, data) of what `thunk` returns with _Named registered as a pytree and as
    vmappable (unregistered after)."""
    batching = importlib.import_module(jax.__name__ + ".interpreters.batching")
    if _Named not in _registered:
        jax.tree_util.register_pytree_node(_Named, lambda x: ((x.data,), tuple(x.names)),
                                           lambda names, xs: _Named(names, xs[0]))
        _registered.append(_Named)
    batching.register_vmappable(_Named, _Spec, int, _named_to_elt, _named_from_elt, None)
    try:
        out = thunk()
    finally:
        batching.unregister_vmappable(_Named)
    return np.array(out.names), out.data


_registered = []


def counts(jax):
    """name -> a thunk counting something JAX bounds (programs lowered): jxkernel's count
    may be lower than JAX's, never higher."""
    return {
        # ten conds over Python ints: the int predicate is compared in Python (no program
        # for it), the branches and the cond compiled once
        "cond_int_pred_lowerings": lambda: _cond_lowerings(jax),
    }


def _cond_lowerings(jax):
    jtu = importlib.import_module(jax.__name__ + "._src.test_util")
    f, g = (lambda x: x + 1), (lambda x: x + 2)
    with jtu.count_jit_and_pmap_lowerings() as count:
        for x in range(10):
            jax.lax.cond(x, f, g, x)
    return count()


def _without_jit(jax, thunk):
    def run():
        with jax.disable_jit():
            return thunk()
    return run


def _seen(loop):
    """(what `loop(seen)` returned, the values its bodies appended to `seen`)."""
    seen = []
    return loop(seen), seen


def _add_in_place(carry):
    x, y = carry
    x += 1
    return x, y + x


class _Opaque:
    """A value of no array type, printed the same in every process."""
    def __repr__(self):
        return "<opaque>"
