"""What JAX says for learners' mistakes whose advice or message jxkernel's notebook layer
words itself (tests/notebook/test_learner_mistakes.py compares): `run(jax)` gives, per case,
the exception's class and its first line (None where the call works), or a fact about a
warning. Where a card or message advises a fix, a case runs the fix as advised, so the test
can check that the advice works under JAX too. The reference (learner_mistakes_reference.json)
is real JAX 0.10.2's, written by reference/make_learner_mistakes_reference.py."""
import functools
import re
import warnings


def _said(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__, "first_line": str(e).splitlines()[0]}
    return None


def _said_lines(fn, lines):
    """_said with the message's first `lines` lines."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        return {"error": type(e).__name__, "lines": str(e).splitlines()[:lines]}
    return None


def _argument_named(fn):
    """The argument a tracer error says the value depends on (JAX: "depends on the value of
    the argument v.", jxkernel: "depends on the argument v, which is traced")."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  the error is the answer
        found = re.search(r"depends on (?:the value of )?the argument (.+?)(?:\.$|, which)",
                          str(e), re.M)
        return found.group(1) if found else None
    return None


def run(jax):
    jnp = jax.numpy

    def typo(x):                        # an attribute a tracer has not
        return x.foo

    def zeros(x, shape):                # a list as a static argument, used as a shape
        return jnp.zeros(shape) + x

    def item(x):                        # .item() of a traced argument
        return x.item()

    def count(n):                       # range() of a traced argument, under @jax.jit
        total = 0
        for i in range(n):
            total += i
        return total

    decorated = jax.jit(count)          # what `@jax.jit` above `def count` makes

    def branch(v, w=None):              # `if` on a traced value, under make_jaxpr/eval_shape
        return v if v > 0 else -v

    def branch_tree(p, q):
        return q if p["a"] > 0 else -q

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jnp.array([1.0], dtype=jnp.float64)     # float64 asked for, x64 off: a warning
    return {
        "attribute_of_tracer": _said(lambda: jax.jit(typo)(1.0)),
        "static_list": _said(lambda: jax.jit(zeros, static_argnums=1)(1.0, [2, 3])),
        # the advice: a tuple instead works; a traced shape does not
        "static_list_as_tuple": _said(lambda: jax.jit(zeros, static_argnums=1)(1.0, (2, 3))),
        "static_list_traced": _said(lambda: jax.jit(zeros)(1.0, jnp.asarray([2, 3]))),
        "item_of_tracer": _said(lambda: jax.jit(item)(1.0)),
        # "make x static" for .item(): x is then a Python float, which has no .item()
        "item_made_static": _said(lambda: jax.jit(item, static_argnames=("x",))(1.0)),
        "item_dropped": _said(lambda: jax.jit(lambda x: x)(1.0)),
        "range_of_tracer": _said(lambda: decorated(5)),
        # static advice for a decorated function: wrapping the jit object again leaves its own
        # jit tracing n (the same error); the decorator itself must take static_argnames
        "range_rejitted_static": _said(lambda: jax.jit(decorated, static_argnames=("n",))(5)),
        "range_decorator_static": _said(
            lambda: functools.partial(jax.jit, static_argnames=("n",))(count)(5)),
        # a traced size in x.reshape: JAX's shape TypeError, not __index__'s
        "reshape_traced_size": _said(lambda: jax.jit(lambda x, n: x.reshape(n, -1))(
            jnp.arange(6.0), 2)),
        # jnp.nonzero without size=: the count (int32[]) is what is not concrete
        "nonzero_without_size": _said(lambda: jax.jit(lambda x: jnp.nonzero(x))(jnp.arange(3))),
        # a seed where a key goes
        "seed_as_key": _said(lambda: jax.random.normal(0)),
        "scalar_array_as_key": _said(lambda: jax.random.normal(jnp.array(0))),
        # .tolist() of a traced array: JAX's second line names the method
        "tolist_of_tracer": _said_lines(lambda: jax.jit(lambda x: x.tolist())(jnp.ones(2)), 2),
        # a string dtype, named as the user wrote it
        "astype_str": _said(lambda: jnp.ones(3).astype("str")),
        # make_jaxpr and eval_shape name the argument by the function's parameters
        "make_jaxpr_argument": _argument_named(lambda: jax.make_jaxpr(branch)(1.0)),
        "make_jaxpr_leaf": _argument_named(lambda: jax.make_jaxpr(branch_tree)({"a": 1.0}, 2.0)),
        "make_jaxpr_star_args": _argument_named(
            lambda: jax.make_jaxpr(lambda *a: branch(a[0]))(1.0)),
        "eval_shape_argument": _argument_named(lambda: jax.eval_shape(branch, 1.0)),
        # the float64 warning names the line that asked for it (stacklevel reaches the caller)
        "float64_warning": {"category": caught[0].category.__name__,
                            "at_caller": caught[0].filename == __file__,
                            "first_line": str(caught[0].message).splitlines()[0]},
    }
