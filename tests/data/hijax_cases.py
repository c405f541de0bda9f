"""Cases for jax.experimental.hijax (high types and HiPrimitives) run alike by JAX 0.10.2
(reference/make_hijax_reference.py, into hijax_reference.json) and by jxkernel
(tests/jax_compat/test_hijax.py): each returns text, compared exactly.

`jax` is the library (jax, or jxkernel under JAX's names), `hijax` its jax._src.hijax (Box and
its primitives live there in JAX), `cur_qdd` its jax.experimental.cur_qdd, `public` its
jax.experimental.hijax.
"""


def run_cases(jax, hijax, cur_qdd, public) -> dict:
    out = {}
    log = []

    class Incr(hijax.HiPrimitive):
        def impl(self, x, *, by):
            log.append("impl")
            return x + by

        def to_lojax(self, x, *, by):
            log.append("to_lojax")
            return x + by

        def abstract_eval(self, x, *, by):
            return x, set()

    incr_p = Incr("incr_hijax_case")
    out["eager_result"] = repr(incr_p.bind(1.0, by=2))
    out["eager_runs"] = repr(log)
    log.clear()
    out["incr_jaxpr"] = str(jax.make_jaxpr(lambda x: incr_p.bind(x, by=2))(1.0))
    out["incr_jit"] = repr(float(jax.jit(lambda x: incr_p.bind(x, by=2))(1.0)))
    out["incr_jit_runs"] = repr(log)

    Box = hijax.Box

    def body(x):
        b = Box(x)
        b.set(b.get() * 2)
        return b.get() + 1

    out["box_body_jaxpr"] = str(jax.make_jaxpr(body)(1.0))
    out["box_body_eval_shape"] = repr(jax.eval_shape(body, 1.0))
    out["box_body_jit"] = repr(float(jax.jit(body)(3.0)))
    out["box_body_jit_in_jit"] = repr(float(jax.jit(lambda x: jax.jit(body)(x) * 2)(3.0)))
    out["box_body_eager"] = repr(float(body(3.0)))

    box = Box(2.0)
    out["box_eager_get"] = repr(float(box.get()))     # (JAX's eager bind holds a TypedFloat)
    out["box_eager_qdd"] = repr(cur_qdd(box))
    out["typeof_box"] = repr(jax.typeof(box))

    def update(b, x):
        b.set(b.get() + x)
        return x * 2

    out["box_arg_jaxpr"] = str(jax.make_jaxpr(update)(box, 1.0))
    out["box_arg_eval_shape"] = repr(jax.eval_shape(update, box, 1.0))
    out["box_after_tracing"] = repr(float(box.get()))
    out["box_arg_jit"] = repr((float(jax.jit(update)(box, 1.0)), float(box.get())))
    out["box_arg_jit_again"] = repr((float(jax.jit(update)(box, 1.0)), float(box.get())))
    out["box_returned_eval_shape"] = repr(jax.eval_shape(lambda x: Box(x), 1.0))
    out["box_closed_over_eval_shape"] = repr((jax.eval_shape(lambda x: update(box, x), 1.0),
                                              float(box.get())))

    seen = {}

    def inside(x):
        b = Box(x)
        b.set((x, x * 2))
        seen["qdd"] = repr(cur_qdd(b))
        seen["isinstance"] = repr(isinstance(b, Box))
        seen["method"] = repr(b.get)
        seen["typeof"] = repr(jax.typeof(b))
        try:
            b.nope
        except AttributeError:
            seen["missing_attribute"] = "AttributeError"
        return b.get()[1]

    out["tuple_box_jaxpr"] = str(jax.make_jaxpr(inside)(1.0))
    out.update(("traced_" + k, v) for k, v in seen.items())

    # a jit inside make_jaxpr keeps its high equations (new_box, box_set, box_get), as JAX's
    # jit equation does; a traced Box passed to it goes in as `BoxTy` and holds what it set
    def tupset(b, x):
        b.set((x, x * 3))
        return x

    out["jit_box_body_jaxpr"] = str(jax.make_jaxpr(jax.jit(body))(1.0))
    out["jit_in_fn_box_body_jaxpr"] = str(jax.make_jaxpr(lambda x: jax.jit(body)(x) * 2)(1.0))
    out["jit_box_arg_jaxpr"] = str(jax.make_jaxpr(jax.jit(update))(Box(2.0), 1.0))
    out["jit_tuple_box_jaxpr"] = str(jax.make_jaxpr(jax.jit(inside))(1.0))
    out["jit_box_arg_new_type_jaxpr"] = str(jax.make_jaxpr(
        lambda b, x: jax.jit(tupset)(b, x) + b.get()[1])(Box(2.0), 1.0))
    box = Box(2.0)
    out["jit_in_jit_box_arg"] = repr((float(jax.jit(
        lambda b, x: jax.jit(tupset)(b, x) + b.get()[1])(box, 1.0)),
        [float(v) for v in box.get()]))

    # an immutable high type whose tracers' + is its type's _add (as every JAX tracer's)
    class PairTy(hijax.HiType):
        def __eq__(self, other):
            return isinstance(other, PairTy)

        def __hash__(self):
            return hash(PairTy)

        def __repr__(self):
            return "PairTy()"

        def str_short(self, short_dtypes=False, **_):
            return "Pair"

        def _add(self, p, q):
            return add_pair_p.bind(p, q)

        # names jnp gives array tracers as a method and a property: a high type's own win
        sum = public.aval_method(lambda p: first_p.bind(p) + second_p.bind(p))
        T = public.aval_property(lambda p: make_pair_p.bind(second_p.bind(p), first_p.bind(p)))

    class MakePair(hijax.HiPrimitive):
        def abstract_eval(self, x, y):
            return PairTy(), set()

        def to_lojax(self, x, y):
            return (x, y)

    class AddPair(hijax.HiPrimitive):
        def abstract_eval(self, p, q):
            return PairTy(), set()

        def to_lojax(self, p, q):
            return (p[0] + q[0], p[1] + q[1])

    class First(hijax.HiPrimitive):
        def abstract_eval(self, p):
            return jax.core.ShapedArray((), jax.numpy.float32), set()

        def to_lojax(self, p):
            return p[0]

    class Second(First):
        def to_lojax(self, p):
            return p[1]

    make_pair_p, add_pair_p, first_p = MakePair("make_pair"), AddPair("add_pair"), First("first")
    second_p = Second("second")

    def pairs(x, y):
        p = make_pair_p.bind(x, y) + make_pair_p.bind(y, x)
        return first_p.bind(p) * 10

    x, y = jax.numpy.float32(1.0), jax.numpy.float32(2.0)
    out["pair_jaxpr"] = str(jax.make_jaxpr(pairs)(x, y))
    out["pair_jit"] = repr(float(jax.jit(pairs)(x, y)))

    def methods(x, y):
        p = make_pair_p.bind(x, y)
        return p.sum() * 10 + first_p.bind(p.T)

    out["pair_methods_jaxpr"] = str(jax.make_jaxpr(methods)(x, y))
    out["pair_methods_jit"] = repr(float(jax.jit(methods)(x, y)))

    class NoAbstractEval(hijax.HiPrimitive):
        def to_lojax(self, x):
            return x

    no_ae = NoAbstractEval("no_abstract_eval")
    try:
        jax.jit(lambda x: no_ae.bind(x))(1.0)
    except BaseException as e:      # JAX's assertion, by type and text
        out["no_abstract_eval"] = f"{type(e).__name__}: {e}"

    class ImplOnly(hijax.HiPrimitive):
        def impl(self, x):
            return x

    try:
        ImplOnly("impl_only").bind(1.0)
    except BaseException as e:
        out["impl_only_eager"] = f"{type(e).__name__}: {e}"

    # a box captured by a scan body (made outside it): its state goes through the loop, and
    # the box holds the final one after; a body that reads but never writes it, and a weakly
    # typed state made strong by the body
    captured = Box(1.0)

    def add_x(c, x):
        captured.set(captured.get() + x)
        return c + captured.get(), captured.get() * 2

    carry, ys = jax.lax.scan(add_x, 0.0, jax.numpy.arange(3.0))
    out["scan_captured_box"] = repr((float(carry), ys.tolist(), float(captured.get())))
    carry, _ = jax.lax.scan(add_x, 0.0, jax.numpy.arange(3.0), reverse=True)
    out["scan_captured_box_reverse"] = repr((float(carry), float(captured.get())))
    read_only = Box(jax.numpy.float32(2.0))
    carry, _ = jax.lax.scan(lambda c, x: (c * read_only.get(), None), 1.0, None, length=4)
    out["scan_captured_box_read"] = repr((float(carry), float(read_only.get())))
    staged = Box(1.0)

    def add_one(c, x):
        staged.set(staged.get() + 1.0)
        return c, None

    jax.make_jaxpr(lambda: jax.lax.scan(add_one, 0.0, None, length=3))()
    out["scan_captured_box_after_make_jaxpr"] = repr(float(staged.get()))
    out.update(captured_by_loops_conds_and_jits(jax, Box))
    out.update(staged_with_captured_boxes(jax, Box))
    out.update(jit_trace_counts(jax, Box))
    return out


def _outcome(f):
    try:
        return repr(f())
    except Exception as e:          # JAX's refusal, by class and words
        return f"{type(e).__name__}: {e}"


def captured_by_loops_conds_and_jits(jax, Box) -> dict:
    """A box made outside and captured by a while_loop or fori_loop body, a cond or switch
    branch, or a jit called inside another trace: its state threaded through, as JAX 0.10.2
    does (each case with a new box and new functions: JAX caches a body's trace by the
    function, and a cached one holds the box it was traced with)."""
    jnp, lax = jax.numpy, jax.lax
    out = {}

    def fori(run):
        b = Box(1.0)

        def body(i, c):
            b.set(b.get() + i)
            return c + b.get()
        return float(run(body)), float(b.get())

    out["fori_static_captured_box"] = _outcome(lambda: fori(
        lambda body: lax.fori_loop(0, 3, body, 0.0)))
    out["fori_traced_captured_box"] = _outcome(lambda: fori(
        lambda body: lax.fori_loop(0, jnp.int32(3), body, 0.0)))
    out["fori_jit_captured_box"] = _outcome(lambda: fori(
        lambda body: jax.jit(lambda n: lax.fori_loop(0, n, body, 0.0))(3)))

    def while_(run, cond_reads=False):
        b = Box(1.0)

        def body(c):
            b.set(b.get() * 2)
            return c + 1
        cond = (lambda c: b.get() < 10.0) if cond_reads else (lambda c: c < 3)
        return int(run(cond, body)), float(b.get())

    out["while_captured_box"] = _outcome(lambda: while_(
        lambda c, w: lax.while_loop(c, w, 0)))
    out["while_cond_reads_captured_box"] = _outcome(lambda: while_(
        lambda c, w: lax.while_loop(c, w, 0), cond_reads=True))
    out["while_jit_captured_box"] = _outcome(lambda: while_(
        lambda c, w: jax.jit(lambda: lax.while_loop(c, w, 0))()))
    out["while_jit_twice_captured_box"] = _outcome(lambda: while_(
        lambda c, w: [int(f()) for f in [jax.jit(lambda: lax.while_loop(c, w, 0))] * 2][1]))

    def cond(run):
        b = Box(1.0)

        def add(x):
            b.set(b.get() + x)
            return x * 2
        return float(run(add, lambda x: x)), float(b.get())

    out["cond_true_captured_box"] = _outcome(lambda: cond(
        lambda t, f: lax.cond(True, t, f, 3.0)))
    out["cond_false_captured_box"] = _outcome(lambda: cond(
        lambda t, f: lax.cond(False, t, f, 3.0)))
    out["cond_traced_captured_box"] = _outcome(lambda: cond(
        lambda t, f: lax.cond(jnp.bool_(True), t, f, 3.0)))
    out["cond_jit_captured_box"] = _outcome(lambda: [cond(
        lambda t, f: jax.jit(lambda p, x: lax.cond(p, t, f, x))(p, 3.0)) for p in (True, False)])
    out["switch_jit_captured_box"] = _outcome(lambda: cond(
        lambda t, f: jax.jit(lambda i, x: lax.switch(i, [f, t, f], x))(1, 3.0)))

    def inner_jit(run):
        b = Box(1.0)

        @jax.jit
        def inner(x):
            b.set(b.get() + x)
            return x
        return run(inner), float(b.get())

    out["jit_in_jit_captured_box"] = _outcome(lambda: inner_jit(
        lambda inner: [float(jax.jit(lambda x: inner(x) + 1)(2.0)) for _ in range(2)]))
    out["jit_in_make_jaxpr_captured_box"] = _outcome(lambda: inner_jit(
        lambda inner: str(jax.make_jaxpr(lambda x: inner(x) + 1)(1.0))))
    out["jit_in_scan_captured_box"] = _outcome(lambda: inner_jit(
        lambda inner: float(lax.scan(lambda c, x: (c + inner(x), None), 0.0,
                                     jnp.arange(3.0))[0])))
    out["jit_in_grad_captured_box"] = _outcome(lambda: inner_jit(
        lambda inner: float(jax.grad(lambda x: inner(x) * 3)(1.0))))
    out["jit_in_vmap_captured_box"] = _outcome(lambda: inner_jit(
        lambda inner: jax.vmap(lambda x: inner(x) + 1)(jnp.arange(2.0)).tolist()))

    def reading():
        b = Box(2.0)

        @jax.jit
        def inner(x):
            return x * b.get()
        return (float(jax.jit(lambda x: inner(x) + 1)(3.0)),
                float(jax.grad(lambda x: inner(x))(3.0)), float(b.get()))

    out["jit_reading_captured_box_in_traces"] = _outcome(reading)

    # a jit closing over a Box, called again and again with the Box set between calls: to
    # another value of its type (jxkernel: the last call's program again, with the new
    # value), to another shape, dtype or type and back (each its program), and one that
    # writes it (the box's value each call's result)
    def box_set_between_calls():
        box, seen = Box(jnp.ones(3)), []
        reads = jax.jit(lambda x: x * 2 + box.get())
        x = jnp.arange(3.0)
        for value in [jnp.ones(3), jnp.ones(3), jnp.full(3, 10.0), jnp.full(3, -1.0),
                      jnp.ones(4), jnp.arange(3), 2.5, jnp.full(3, 7.0), jnp.full(3, 8.0)]:
            box.set(value)
            seen += [_outcome(lambda: (reads(x).tolist(), str(reads(x).dtype)))
                     for _ in range(2)]
        return seen

    def box_written_each_call():
        box = Box(jnp.zeros(2))

        @jax.jit
        def step(x):
            box.set(box.get() + x)
            return box.get() * 2
        seen = [(step(jnp.ones(2)).tolist(), box.get().tolist()) for _ in range(3)]
        box.set(jnp.full(2, 100.0))
        seen += [(step(jnp.ones(2)).tolist(), box.get().tolist()) for _ in range(2)]
        box.set(jnp.zeros(2, jnp.int32))          # another dtype: its own program
        seen += [(step(jnp.ones(2, jnp.int32)).tolist(), str(box.get().dtype)) for _ in range(2)]
        return seen

    # a jit closing over a Box, its caches cleared (f.clear_cache(), then jax.clear_caches()):
    # the traces each clearing costs (a cleared program traced again, as a plain jit's; the
    # first call's own count left out: jxkernel traces it twice, finding the box the first time)
    def box_jit_cleared():
        box, traces = Box(jnp.ones(3)), []

        def read(x):
            traces.append(1)
            return x * 2 + box.get()
        reads, x = jax.jit(read), jnp.arange(3.0)
        seen = [reads(x).tolist(), reads(x).tolist()]
        first = len(traces)
        reads.clear_cache()
        seen += [reads(x).tolist(), reads(x).tolist(), len(traces) - first]
        jax.clear_caches()
        box.set(jnp.full(3, 5.0))
        return seen + [reads(x).tolist(), len(traces) - first]

    out["jit_captured_box_set_between_calls"] = _outcome(box_set_between_calls)
    out["jit_captured_box_cleared"] = _outcome(box_jit_cleared)
    out["jit_captured_box_written_each_call"] = _outcome(box_written_each_call)
    return out


def staged_with_captured_boxes(jax, Box) -> dict:
    """make_jaxpr of a while_loop, fori_loop, scan, cond or switch whose body reads or writes
    a box captured from outside (or made earlier in the traced function): JAX 0.10.2 stages
    the loop or cond high, the box a `BoxTy` const with its box_get and box_set inside; jit
    of the same lowers them, threading the box's state (each case with a new box)."""
    jnp, lax = jax.numpy, jax.lax
    out = {}

    def jaxpr(f, *args):
        return _outcome(lambda: str(jax.make_jaxpr(f)(*args)))

    def adding():
        b = Box(1.0)

        def body(i, c):
            b.set(b.get() + i)
            return c + b.get()
        return b, body

    _, body = adding()
    out["staged_fori_static_box"] = jaxpr(lambda x: lax.fori_loop(0, 3, body, x), 0.0)
    _, body = adding()
    out["staged_fori_traced_box"] = jaxpr(lambda n, x: lax.fori_loop(0, n, body, x), 3, 0.0)
    # (a box made by the traced function itself: its new_box and box_set come first)
    out["staged_fori_box_made_inside"] = jaxpr(
        lambda x: lax.fori_loop(0, 3, adding()[1], x), 0.0)
    b, body = adding()
    out["staged_fori_jit_in_jaxpr_box"] = jaxpr(
        lambda n: jax.jit(lambda m: lax.fori_loop(0, m, body, 0.0))(n), 3)

    def doubling(cond_reads=False, held=1.0):
        b = Box(held)

        def body(c):
            b.set(b.get() * 2)
            return c + 1
        cond = (lambda c: b.get() < 10.0) if cond_reads else (lambda c: c < 3)
        return b, cond, body

    _, cond, body = doubling()
    out["staged_while_box"] = jaxpr(lambda x: lax.while_loop(cond, body, x), 0)
    _, cond, body = doubling(cond_reads=True)
    out["staged_while_cond_reads_box"] = jaxpr(lambda x: lax.while_loop(cond, body, x), 0)
    _, cond, body = doubling(held=jnp.arange(3.0))
    out["staged_while_array_box"] = jaxpr(lambda x: lax.while_loop(cond, body, x), 0)
    reads = Box(1.0)
    out["staged_while_reads_box"] = jaxpr(
        lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + reads.get(), x), 0.0)
    retyped = Box(1.0)
    out["staged_while_retypes_box"] = jaxpr(lambda x: lax.while_loop(
        lambda c: c < 3, lambda c: (retyped.set((retyped.get(), 1.0)), c + 1)[1], x), 0)

    scanned = Box(1.0)

    def add_x(c, x):
        scanned.set(scanned.get() + x)
        return c + scanned.get(), scanned.get() * 2
    out["staged_scan_box"] = jaxpr(lambda xs: lax.scan(add_x, 0.0, xs), jnp.arange(3.0))
    nested = Box(1.0)

    def step(c, x):
        def body(i):
            nested.set(nested.get() * 2.0)
            return i + 1
        return c + lax.while_loop(lambda i: i < 2, body, 0), None
    out["staged_while_in_scan_box"] = jaxpr(lambda: lax.scan(step, 0, None, length=3))
    out["jit_while_in_scan_box"] = _outcome(lambda: (
        int(jax.jit(lambda: lax.scan(step, 0, None, length=3)[0])()), float(nested.get())))

    def made_inside(x):
        b = Box(x)
        n = lax.while_loop(lambda c: c < 3, lambda c: (b.set(b.get() * 2), c + 1)[1], 0)
        return b.get() + n
    out["staged_while_box_made_inside"] = jaxpr(made_inside, 1.0)
    out["jit_while_box_made_inside"] = _outcome(lambda: float(jax.jit(made_inside)(1.0)))

    def adder():
        b = Box(1.0)

        def add(x):
            b.set(b.get() + x)
            return x * 2
        return add

    out["staged_cond_box"] = jaxpr(
        lambda p, x: lax.cond(p, adder(), lambda x: x, x), True, 3.0)
    out["staged_switch_box"] = jaxpr(
        lambda i, x: lax.switch(i, [lambda x: x, adder(), lambda x: x], x), 1, 3.0)
    scale = Box(2.0)
    out["staged_cond_reads_box"] = jaxpr(
        lambda p, x: lax.cond(p, lambda x: x * scale.get(), lambda x: x, x), True, 3.0)
    out["staged_cond_static_pred_box"] = jaxpr(
        lambda x: lax.cond(True, lambda x: x * scale.get(), lambda x: x, x), 3.0)
    paired = Box(1.0)
    out["staged_cond_retypes_box"] = jaxpr(lambda p, x: lax.cond(
        p, lambda x: (paired.set((x, x)), x)[1], lambda x: x, x), True, 1.0)

    def two_boxes():
        b1, b2 = Box(1.0), Box(10.0)

        def t(x):
            b1.set(b1.get() + x)
            return x * b2.get()

        def f(x):
            b2.set(b2.get() - x)
            return x
        return b1, b2, t, f

    _, _, t, f = two_boxes()
    out["staged_cond_two_boxes"] = jaxpr(lambda p, x: lax.cond(p, t, f, x), True, 2.0)
    b1, b2, t, f = two_boxes()
    g = jax.jit(lambda p, x: lax.cond(p, t, f, x))
    out["jit_cond_two_boxes"] = _outcome(lambda: (
        [float(g(p, 2.0)) for p in (True, False, True)], float(b1.get()), float(b2.get())))

    # one trace of a body serves make_jaxpr (staged high, the box untouched), an eager call
    # and a jit (each threading the box's state); a body without boxes is traced once for all
    counted = Box(1.0)

    def count(c):
        counted.set(counted.get() + 1.0)
        return c + 1

    def loop():
        return lax.while_loop(lambda c: c < 3, count, 0)

    def runs():
        jax.make_jaxpr(loop)()
        seen = [float(counted.get())]
        for f in (loop, jax.jit(loop), loop):
            seen.append((int(f()), float(counted.get())))
        return seen
    out["staged_then_eager_and_jit_box"] = _outcome(runs)
    traces = []

    def plain(c, x):
        traces.append(1)
        return c + x, None
    xs = jnp.arange(3.0)
    lax.scan(plain, 0.0, xs)
    jax.jit(lambda: lax.scan(plain, 0.0, xs))()
    jax.make_jaxpr(lambda: lax.scan(plain, 0.0, xs))()
    out["body_traced_once_eager_jit_and_staged"] = repr(len(traces))
    return out


def jit_trace_counts(jax, Box) -> dict:
    """How many times a jit closing over a box traces its function (what a learner sees as a
    `print` in it printing), with what it computed: read, written, both, called twice, with a
    new value or type between calls, after clear_cache, inside another jit, under make_jaxpr
    then eagerly, under grad (JAX 0.10.2 traces each once per new type of what the box holds)."""
    jnp = jax.numpy
    out = {}

    def counted(run):
        box, traces = Box(1.0), []

        def with_count(f):
            def traced(*args):
                traces.append(1)
                return f(box, *args)
            return traced
        return _outcome(lambda: (run(box, with_count), len(traces),
                                 jnp.asarray(box.get()).tolist()))

    def add(b, x):
        b.set(b.get() + x)
        return x * 2

    out["jit_box_traces_read"] = counted(lambda b, c: [float(
        f(x)) for f in [jax.jit(c(lambda b, x: b.get() * x))] for x in (2.0, 3.0)])
    out["jit_box_traces_write"] = counted(lambda b, c: [
        f(x) for f in [jax.jit(c(lambda b, x: b.set(x)))] for x in (2.0, 3.0)])
    out["jit_box_traces_read_write"] = counted(lambda b, c: [
        float(f(x)) for f in [jax.jit(c(add))] for x in (2.0, 3.0)])

    def new_value(b, c):
        f = jax.jit(c(add))
        seen = [float(f(2.0))]
        b.set(5.0)                      # the same type: no new trace
        seen.append(float(f(2.0)))
        b.set(jnp.ones(2))              # a new type: traced again
        return seen + [f(1.0).tolist()]
    out["jit_box_traces_new_value"] = counted(new_value)

    def cleared(b, c):
        f = jax.jit(c(add))
        seen = [float(f(2.0))]
        f.clear_cache()
        return seen + [float(f(2.0)), float(f(2.0))]
    out["jit_box_traces_after_clear_cache"] = counted(cleared)

    def nested(b, c):
        inner = jax.jit(c(add))
        outer = jax.jit(lambda x: inner(x) + 1)
        return [float(outer(2.0)), float(outer(3.0)), float(inner(1.0))]
    out["jit_box_traces_jit_in_jit"] = counted(nested)

    def staged_then_eager(b, c):
        f = jax.jit(c(add))
        jax.make_jaxpr(f)(1.0)
        return [float(f(1.0)), float(f(1.0))]
    out["jit_box_traces_make_jaxpr_then_eager"] = counted(staged_then_eager)

    def grad_of(b, c):
        f = jax.jit(c(lambda b, x: b.get() * x * x))
        return [float(jax.grad(f)(x)) for x in (2.0, 3.0)] + [float(f(2.0))]
    out["jit_box_traces_under_grad"] = counted(grad_of)

    def eager_then_grad_of_nested(b, c):
        f = jax.jit(c(lambda b, x: b.get() * x * x))
        outer = jax.jit(lambda x: f(x) + 1)
        return [float(f(2.0))] + [float(jax.grad(outer)(x)) for x in (2.0, 3.0)]
    out["jit_box_traces_eager_then_grad_of_jit_in_jit"] = counted(eager_then_grad_of_nested)
    return out
