"""What JAX does with a jitted function's Python side effects that run at its trace alone
(tests/notebook/test_effect_notes.py compares): a global set, an outside list or dict changed,
the clock read, each silent in JAX 0.10.2; and the fixes the notes advise, run as advised.
`run(jax)` gives the facts; the reference (effect_notes_reference.json) is real JAX 0.10.2's,
written by reference/make_effect_notes_reference.py."""
import time

COUNT = 0               # the global the counter below sets
KEPT = None             # the global a tracer is stored in
LOG = []                # the outside list appended to
SEEN = {}               # the outside dict set


def _global_counter(jax) -> dict:
    """`global COUNT; COUNT += 1` in a jitted function: set once, at the trace; passing the
    count in and returning it counts every call (the note's fix)."""
    global COUNT
    COUNT = 0

    def step(x):
        global COUNT
        COUNT += 1
        return x + 1

    fast = jax.jit(step)
    for value in (1.0, 2.0, 3.0):
        fast(value)
    after = COUNT

    def step_counting(x, count):
        return x + 1, count + 1

    fast2, count = jax.jit(step_counting), 0
    for value in (1.0, 2.0, 3.0):
        _, count = fast2(value, count)
    return {"count_after_3_calls": after, "count_returned": int(count)}


def _global_tracer(jax) -> dict:
    """`global KEPT; KEPT = x`: the global holds the trace's tracer afterwards (JAX's sharp
    bits' impure_saves_global); returning the value gives it (the fix)."""
    global KEPT
    KEPT = None

    def saves(x):
        global KEPT
        KEPT = x
        return x

    jax.jit(saves)(4.0)
    tracer = isinstance(KEPT, jax.core.Tracer)
    KEPT = jax.jit(lambda x: x)(4.0)
    return {"global_is_a_tracer": tracer, "returned": float(KEPT)}


def _list_append(jax) -> dict:
    """`LOG.append(x)` in a jitted function: one append, at the trace, of a tracer; the fixes:
    return it and append outside, or jax.debug.callback(LOG.append, x) on every call."""
    LOG.clear()

    def f(x):
        LOG.append(x)
        return x * 2

    fast = jax.jit(f)
    fast(1.0)
    fast(2.0)
    facts = {"appended": len(LOG), "kept_a_tracer": isinstance(LOG[0], jax.core.Tracer)}
    try:
        LOG[0] + 1
    except Exception as e:  # noqa: BLE001  the error is the answer
        facts["using_it"] = type(e).__name__
    LOG.clear()

    def g(x):
        return x * 2, x

    fast_g = jax.jit(g)
    for value in (1.0, 2.0):
        y, kept = fast_g(value)
        LOG.append(kept)
    facts["returned_and_appended"] = [float(v) for v in LOG]
    LOG.clear()

    def h(x):
        jax.debug.callback(LOG.append, x)
        return x * 2

    fast_h = jax.jit(h)
    fast_h(1.0)
    fast_h(2.0)
    jax.effects_barrier()
    facts["callback_appended"] = [float(v) for v in LOG]
    LOG.clear()
    return facts


def _dict_set(jax) -> dict:
    """`SEEN["last"] = x` in a jitted function: set once, at the trace, to a tracer."""
    SEEN.clear()

    def f(x):
        SEEN["last"] = x
        return x + 1

    fast = jax.jit(f)
    fast(1.0)
    SEEN["last"] = "replaced"
    fast(2.0)
    return {"after_second_call": SEEN["last"]}


def _method_list(jax) -> dict:
    """`self.losses.append(loss)` in a method jitted as jax.jit(t.step): one append, of a
    tracer; the callback in its place appends on every call (the note's fix)."""
    jnp = jax.numpy

    class Trainer:
        def __init__(self):
            self.losses = []

        def step(self, w):
            loss = jnp.sum(w ** 2)
            self.losses.append(loss)
            return w * 0.8

        def step_told(self, w):
            loss = jnp.sum(w ** 2)
            jax.debug.callback(self.losses.append, loss)
            return w * 0.8

    t = Trainer()
    fast = jax.jit(t.step)
    w = fast(jnp.ones(2))
    fast(w)
    facts = {"appended": len(t.losses), "kept_a_tracer": isinstance(t.losses[0], jax.core.Tracer)}
    told = Trainer()
    fast = jax.jit(told.step_told)
    w = fast(jnp.ones(2))
    fast(w)
    jax.effects_barrier()
    facts["callback_appended"] = [round(float(v), 4) for v in told.losses]
    return facts


def _argument_dict(jax) -> dict:
    """`params["w"] = ...` on a dict argument of a jitted function that does not return it: the
    caller's dict is left as it was (jit rebuilt it for the trace), where the same function
    without jit changes it; returned and kept, the update counts (the note's fix), also with
    `-=` beside a returned loss."""
    jnp = jax.numpy

    def update(params, g):
        params["w"] = params["w"] - 0.5 * g

    def update_returned(params, g):
        params["w"] = params["w"] - 0.5 * g
        return params

    def step(params, g):
        params["w"] -= 0.5 * g
        return jnp.sum(g)

    def step_returned(params, g):
        params["w"] -= 0.5 * g
        return jnp.sum(g), params

    g = jnp.ones(2)
    params = {"w": jnp.ones(2)}
    jax.jit(update)(params, g)
    jitted = [float(v) for v in params["w"]]
    update(params, g)
    plain = [float(v) for v in params["w"]]
    params = {"w": jnp.ones(2)}
    params = jax.jit(update_returned)(params, g)
    returned = [float(v) for v in params["w"]]
    params = {"w": jnp.ones(2)}
    jax.jit(step)(params, g)
    stepped = [float(v) for v in params["w"]]
    loss, params = jax.jit(step_returned)(params, g)
    return {"jitted_leaves_it": jitted, "plain_changes_it": plain, "returned": returned,
            "step_leaves_it": stepped, "step_returned": [float(v) for v in params["w"]],
            "loss": float(loss)}


def _callbacks(jax) -> dict:
    """What a function handed to a host callback does runs at each call: a lambda appending to
    an outside list, a def inside the function and a global function appending too (the notes
    say nothing of them, and no stale read of the list)."""
    LOG.clear()

    def f(x):
        jax.debug.callback(lambda v: LOG.append(v), x)
        return x * 2

    fast = jax.jit(f)
    fast(1.0)
    fast(2.0)
    jax.effects_barrier()
    facts = {"lambda_appended": [float(v) for v in LOG]}
    LOG.clear()

    def g(x):
        def inner(v):
            LOG.append(v)
        jax.debug.callback(inner, x)
        jax.debug.callback(_record, x)
        return x

    fast = jax.jit(g)
    fast(1.0)
    fast(2.0)
    jax.effects_barrier()
    facts["def_and_global_appended"] = len(LOG)
    LOG.clear()
    return facts


def _record(v):
    LOG.append(-1.0)


def _history_entry(jax) -> dict:
    """metrics_history['loss'].append(loss) in a jitted train step (the pattern of Flax's
    tutorials, written inside the step): one append, of a tracer; the callback in its place
    appends each step's loss (the note's fix)."""
    jnp = jax.numpy
    history = {"loss": []}

    def train_step(w, x):
        loss = jnp.mean((x @ w) ** 2)
        history["loss"].append(loss)
        return w * 0.5

    def train_step_told(w, x):
        loss = jnp.mean((x @ w) ** 2)
        jax.debug.callback(history["loss"].append, loss)
        return w * 0.5

    x = jnp.ones((3, 2))
    fast = jax.jit(train_step)
    fast(fast(jnp.ones(2), x), x)
    facts = {"appended": len(history["loss"]),
             "kept_a_tracer": isinstance(history["loss"][0], jax.core.Tracer)}
    history["loss"].clear()
    fast = jax.jit(train_step_told)
    fast(fast(jnp.ones(2), x), x)
    jax.effects_barrier()
    facts["callback_appended"] = [float(v) for v in history["loss"]]
    return facts


def _clock(jax) -> dict:
    """time.time() in a jitted function: read at the trace, the same number on every call;
    passed in as an argument, a new number each call (the note's fix)."""
    def stamped(x):
        return x * 0 + time.time()

    fast = jax.jit(stamped)
    first = float(fast(1.0))
    time.sleep(0.01)
    same = first == float(fast(1.0))

    def stamped_in(x, now):
        return x * 0 + now

    fast2 = jax.jit(stamped_in)
    return {"same_twice": same,
            "passed_in_differs": float(fast2(1.0, 1.0)) != float(fast2(1.0, 2.0))}


def run(jax) -> dict:
    return {"global_counter": _global_counter(jax), "global_tracer": _global_tracer(jax),
            "list_append": _list_append(jax), "dict_set": _dict_set(jax),
            "method_list": _method_list(jax), "argument_dict": _argument_dict(jax),
            "callbacks": _callbacks(jax), "history_entry": _history_entry(jax),
            "clock": _clock(jax)}
