"""JAX's key-reuse checker (`jax.debug_key_reuse`, jax.experimental.key_reuse) on learner
programs, and what typed keys' operators answer: run by reference/make_key_reuse_reference.py
(JAX 0.10.2, into key_reuse_reference.json) and by tests/random/test_key_reuse_reference.py
(jxkernel), which compares the two.

Each case is a program run under `debug_key_reuse(True)` (the checker on) unless its name says
otherwise; it records "ok" or the error's class and message. A message that goes on to print the
loop's signature, equation and jaxpr (scan's and while's) is recorded by its first line. An
eager error also records the message of its `__cause__` where that is a KeyReuseError (JAX's
"first used at the above location" context).
"""
import importlib


def _said(f):
    try:
        out = f()
        return "ok" if out is None else {"ok": out}
    except Exception as e:
        text = str(e)
        said = {"error": type(e).__name__, "message": text}
        if text.count("\n") > 1:          # a printed signature and jaxpr follow
            said.update(message=text.splitlines()[0], first_line_only=True)
        if type(e.__cause__).__name__ == "KeyReuseError":
            said["cause"] = str(e.__cause__)
        return said


def _programs(jax):
    r = importlib.import_module(f"{jax.__name__}.random")
    jnp = importlib.import_module(f"{jax.__name__}.numpy")
    lax = importlib.import_module(f"{jax.__name__}.lax")
    kr = importlib.import_module(f"{jax.__name__}.experimental.key_reuse._core")
    jit, vmap, grad = jax.jit, jax.vmap, jax.grad
    P = {}

    def case(f):
        P[f.__name__] = f
        return f

    # ---- eager: a key array remembers that it was consumed
    @case
    def eager_normal_twice():
        k = r.key(0)
        r.normal(k)
        r.normal(k)

    @case
    def eager_bits_twice():
        k = r.key(0)
        r.bits(k)
        r.bits(k)

    @case
    def eager_split_then_normal():
        k = r.key(0)
        r.split(k)
        r.normal(k)

    @case
    def eager_split_twice():
        k = r.key(0)
        r.split(k)
        r.split(k)

    @case
    def eager_split_subkeys_once_each():
        k = r.key(0)
        k1, k2 = r.split(k)
        r.normal(k1)
        r.uniform(k2)

    @case
    def eager_subkey_twice():
        k1, k2 = r.split(r.key(0))
        r.normal(k1)
        r.uniform(k1)

    @case
    def eager_loop_with_split():
        k = r.key(0)
        for _ in range(3):
            k, sub = r.split(k)
            r.normal(sub)

    @case
    def eager_fold_in_twice_then_normal():
        k = r.key(0)
        r.normal(r.fold_in(k, 1))
        r.normal(r.fold_in(k, 2))
        r.normal(k)

    @case
    def eager_clone():
        k = r.key(0)
        r.normal(r.clone(k))
        r.normal(k)

    @case
    def eager_clone_of_consumed():
        k = r.key(0)
        r.normal(k)
        r.normal(r.clone(k))

    @case
    def eager_key_data_does_not_consume():
        k = r.key(0)
        r.key_data(k)
        r.key_data(k)
        r.normal(k)

    @case
    def eager_rewrapped_data_is_fresh():
        k = r.key(0)
        r.normal(k)
        r.normal(r.wrap_key_data(r.key_data(k)))

    @case
    def eager_legacy_keys_unchecked():
        k = r.PRNGKey(0)
        r.normal(k)
        r.normal(k)

    @case
    def eager_index_of_split_twice():
        ks = r.split(r.key(0), 3)
        r.normal(ks[0])
        r.normal(ks[0])

    @case
    def eager_jit_consumes_its_argument():
        f = jit(lambda k: r.normal(k))
        k = r.key(0)
        f(k)
        f(k)

    @case
    def eager_jit_returns_its_argument():
        k = r.key(0)
        r.normal(k)
        r.normal(jit(lambda k: k)(k))

    @case
    def eager_jit_returns_fresh_keys():
        k = r.key(0)
        new = jit(lambda k: r.split(k))(k)
        r.normal(new[0])
        r.normal(new[1])

    @case
    def eager_cond_then_reuse():
        k = r.key(0)
        lax.cond(True, r.normal, r.uniform, k)
        r.normal(k)

    @case
    def eager_vmap_twice():
        ks = r.split(r.key(0), 3)
        vmap(r.normal)(ks)
        vmap(r.normal)(ks)

    @case
    def eager_grad_twice():
        k = r.key(0)
        f = lambda x, k: x * r.normal(k)      # noqa: E731
        grad(f)(1.0, k)
        grad(f)(1.0, k)

    # a primitive with no rule of its own, run eagerly, consumes every key it is given (JAX
    # runs it as a jit of its one equation); one a key passes through unchanged (transpose
    # by the identity), a custom_jvp function's call and a cond's do not
    def _then_split(make):
        ks = r.split(r.key(0), 2)
        make(ks)
        r.split(ks[0])

    @case
    def eager_rev_then_use():
        _then_split(lambda ks: lax.rev(ks, (0,)))

    @case
    def eager_select_n_then_use():
        _then_split(lambda ks: lax.select_n(jnp.array([True, False]), ks, ks))

    @case
    def eager_select_n_twice():
        ks = r.split(r.key(0), 2)
        lax.select_n(jnp.array([True, False]), ks, ks)
        lax.select_n(jnp.array([True, False]), ks, ks)

    @case
    def eager_stack_then_use():
        _then_split(lambda ks: jnp.stack([ks, ks]))

    @case
    def eager_transpose_identity_then_use():
        _then_split(lambda ks: lax.transpose(ks, (0,)))

    @case
    def eager_custom_jvp_identity_then_use():
        ident = jax.custom_jvp(lambda k: k)
        ident.defjvp(lambda p, t: (p[0], t[0]))
        _then_split(ident)

    @case
    def eager_cond_passes_then_use():
        _then_split(lambda ks: lax.cond(True, lambda k: k, lambda k: k, ks))

    @case
    def eager_vmap_cond_batched_predicate():
        # both branches run, each given the keys (selected for it): the second raises
        def draw(k, p):
            return lax.cond(p, lambda k: r.normal(k), lambda k: r.uniform(k), k)
        vmap(draw)(r.split(r.key(0), 2), jnp.array([True, False]))

    @case
    def checker_off_allows_reuse():
        with jax.debug_key_reuse(False):
            k = r.key(0)
            r.normal(k)
            r.normal(k)

    @case
    def off_then_on():
        with jax.debug_key_reuse(False):
            k = r.key(0)
            r.normal(k)
        r.normal(k)

    # ---- under jit: the jaxpr is checked as it is traced
    @case
    def jit_normal_twice():
        jit(lambda k: (r.normal(k), r.normal(k)))(r.key(0))

    @case
    def jit_split_then_use_each():
        jit(lambda k: [r.normal(s) for s in r.split(k)])(r.key(0))

    @case
    def jit_split_then_reuse_parent():
        jit(lambda k: (r.split(k), r.normal(k)))(r.key(0))

    @case
    def jit_fold_in_twice():
        jit(lambda k: (r.normal(r.fold_in(k, 1)), r.normal(r.fold_in(k, 2))))(r.key(0))

    @case
    def jit_clone():
        jit(lambda k: (r.normal(r.clone(k)), r.normal(k)))(r.key(0))

    @case
    def jit_rewrap_key_data():
        jit(lambda k: (r.normal(r.wrap_key_data(r.key_data(k))), r.normal(k)))(r.key(0))

    @case
    def jit_index_same_key_twice():
        jit(lambda ks: (r.normal(ks[0]), r.normal(ks[0])))(r.split(r.key(0)))

    @case
    def jit_index_different_keys():
        jit(lambda ks: (r.normal(ks[0]), r.normal(ks[1])))(r.split(r.key(0)))

    @case
    def jit_nested_jit_reuse():
        inner = jit(lambda k: r.normal(k))
        jit(lambda k: (inner(k), inner(k)))(r.key(0))

    @case
    def jit_made_key_used_twice():
        jit(lambda: (r.normal(r.key(1)), r.uniform(r.key(1))))()

    @case
    def jit_one_key_made_used_twice():
        def f():
            k = r.key(1)
            return r.normal(k), r.uniform(k)
        jit(f)()

    @case
    def check_consume_then_assert_consumed():
        def f(k):
            r.normal(k)
            kr.assert_consumed(k)
        kr.check_key_reuse(f, r.key(0))

    @case
    def check_assert_unconsumed_fails():
        def f(k):
            r.normal(k)
            kr.assert_unconsumed(k)
        kr.check_key_reuse(f, r.key(0))

    @case
    def check_consume_then_split():
        def f(k):
            k = kr.consume(k)
            return r.split(k)
        kr.check_key_reuse(f, r.key(0))

    @case
    def jit_cond_then_reuse():
        jit(lambda p, k: (lax.cond(p, r.normal, r.uniform, k), r.normal(k)))(True, r.key(0))

    @case
    def jit_cond_one_branch_consumes():
        jit(lambda p, k: (lax.cond(p, r.normal, lambda k: 0.0, k), r.normal(k)))(True, r.key(0))

    @case
    def jit_cond_branches_split():
        def f(p, k):
            k = lax.cond(p, lambda k: r.split(k)[0], lambda k: r.split(k)[1], k)
            return r.normal(k)
        jit(f)(True, r.key(0))

    @case
    def jit_scan_consumes_closed_key():
        def f(k):
            return lax.scan(lambda c, _: (c + r.normal(k), None), 0.0, None, length=3)[0]
        jit(f)(r.key(0))

    @case
    def jit_scan_splits_carry():
        def body(k, _):
            k, sub = r.split(k)
            return k, r.normal(sub)
        jit(lambda k: lax.scan(body, k, None, length=3))(r.key(0))

    @case
    def jit_scan_reuses_carry():
        jit(lambda k: lax.scan(lambda k, _: (k, r.normal(k)), k, None, length=3))(r.key(0))

    @case
    def jit_scan_over_keys():
        jit(lambda ks: lax.scan(lambda c, k: (c + r.normal(k), None), 0.0, ks))(
            r.split(r.key(0), 3))

    @case
    def jit_fori_loop_splits_carry():
        def body(i, c):
            k, x = c
            k, sub = r.split(k)
            return k, x + r.normal(sub)
        jit(lambda k: lax.fori_loop(0, 3, body, (k, 0.0)))(r.key(0))

    @case
    def jit_while_consumes_closed_key():
        def f(k):
            return lax.while_loop(lambda c: c < 3.0, lambda c: c + r.uniform(k), 0.0)
        jit(f)(r.key(0))

    @case
    def jit_while_splits_carry():
        def body(c):
            k, i = c
            k, sub = r.split(k)
            r.normal(sub)
            return k, i + 1
        jit(lambda k: lax.while_loop(lambda c: c[1] < 3, body, (k, 0)))(r.key(0))

    @case
    def jit_while_reuses_carry():
        def body(c):
            k, x = c
            return k, x + r.uniform(k)
        jit(lambda k: lax.while_loop(lambda c: c[1] < 3.0, body, (k, 0.0)))(r.key(0))

    @case
    def jit_vmap_normal_twice():
        jit(vmap(lambda k: (r.normal(k), r.normal(k))))(r.split(r.key(0), 3))

    @case
    def jit_grad_normal_twice():
        jit(grad(lambda x, k: x * r.normal(k) + r.normal(k)))(1.0, r.key(0))

    @case
    def jit_custom_jvp_reuse():
        @jax.custom_jvp
        def f(x, k):
            return x * r.normal(k)
        f.defjvp(lambda p, t: (f(*p), t[0]))
        jit(lambda x, k: (f(x, k), r.normal(k)))(1.0, r.key(0))

    @case
    def jit_checkpoint_reuse():
        g = jax.checkpoint(lambda x, k: x * r.normal(k))
        jit(lambda x, k: (g(x, k), r.normal(k)))(1.0, r.key(0))

    @case
    def jit_broadcast_then_use_both():
        jit(lambda k: [r.normal(x) for x in jnp.broadcast_to(k, (2,))])(r.key(0))

    @case
    def make_jaxpr_reuse_without_jit():
        jax.make_jaxpr(lambda k: (r.normal(k), r.normal(k)))(r.key(0))

    @case
    def check_key_reuse_function():
        kr.check_key_reuse(lambda k: (r.normal(k), r.normal(k)), r.key(0))

    @case
    def check_key_reuse_function_clean():
        kr.check_key_reuse(lambda k: r.split(k), r.key(0))

    return P


def _signatures(jax):
    r = importlib.import_module(f"{jax.__name__}.random")
    kr = importlib.import_module(f"{jax.__name__}.experimental.key_reuse._core")
    k = r.key(0)
    sig = kr.function_type_signature
    return {
        "split": repr(sig(lambda k: r.split(k), k)),
        "normal": repr(sig(lambda k: r.normal(k), k)),
        "fold_in": repr(sig(lambda k: r.fold_in(k, 1), k)),
        "clone": repr(sig(lambda k: r.clone(k), k)),
        "identity": repr(sig(lambda k: k, k)),
        "key_data": repr(sig(lambda k: r.key_data(k), k)),
        "wrap_key_data": repr(sig(lambda d: r.wrap_key_data(d), r.key_data(k))),
        "index": repr(sig(lambda ks: ks[1], r.split(k, 3))),
        "two_args": repr(sig(lambda a, b: (r.normal(b), a), k, k)),
        "make_key": repr(sig(lambda: r.key(1))),
    }


def _operators(jax):
    """What typed keys' operators answer, eagerly and under jit (no checker)."""
    r = importlib.import_module(f"{jax.__name__}.random")
    k = r.key(0)
    ks = r.split(r.key(1), 3)
    ops = {
        "k + 1": lambda k: k + 1, "1 + k": lambda k: 1 + k, "k + k": lambda k: k + k,
        "k - 1": lambda k: k - 1, "k * 2": lambda k: k * 2, "k * 2.0": lambda k: k * 2.0,
        "k / 2": lambda k: k / 2, "k // 2": lambda k: k // 2, "k % 2": lambda k: k % 2,
        "k ** 2": lambda k: k ** 2, "k < k": lambda k: k < k, "k <= 1": lambda k: k <= 1,
        "k > k": lambda k: k > k, "k == k": lambda k: k == k, "k != k": lambda k: k != k,
        "k == 1": lambda k: k == 1, "k @ k": lambda k: k @ k, "-k": lambda k: -k,
        "+k": lambda k: +k, "abs(k)": lambda k: abs(k), "~k": lambda k: ~k,
        "k & 1": lambda k: k & 1, "k | k": lambda k: k | k, "k ^ 1": lambda k: k ^ 1,
        "k << 1": lambda k: k << 1, "k[None]": lambda k: k[None],
    }
    out = {}
    for name, op in ops.items():
        def eager(op=op):
            return str(jax.typeof(op(k)))
        out[f"eager {name}"] = _said(eager)
        out[f"jit {name}"] = _said(lambda op=op: str(jax.typeof(jax.jit(op)(k))))
    out["eager ks[0]"] = _said(lambda: str(jax.typeof(ks[0])))
    out["eager ks + ks"] = _said(lambda: str(jax.typeof(ks + ks)))
    out["eager ks @ ks"] = _said(lambda: str(jax.typeof(ks @ ks)))
    out["bool(k)"] = _said(lambda: bool(k))
    out["int(k)"] = _said(lambda: int(k))
    out["float(k)"] = _said(lambda: float(k))
    out["hash(k)"] = _said(lambda: hash(k))
    out["len(k)"] = _said(lambda: len(k))
    out["len(ks)"] = _said(lambda: len(ks))
    out["iter(k)"] = _said(lambda: str(type(iter(k))))
    out["k.astype(int32)"] = _said(lambda: str(jax.typeof(k.astype("int32"))))
    return out


def run(jax):
    out = {}
    with jax.debug_key_reuse(True):
        for name, program in _programs(jax).items():
            out[f"reuse/{name}"] = _said(program)
    for name, text in _signatures(jax).items():
        out[f"signature/{name}"] = text
    for name, said in _operators(jax).items():
        out[f"operator/{name}"] = said
    return out
