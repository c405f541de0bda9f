"""A learner's script whose functions fail inside jit, grad, vmap, lax.scan, a custom_vjp's
backward pass, jit's and export's factories, an eager lax.scatter_add, an eager jnp.log under
jax_debug_nans, ...: run as `python traceback_filter_program.py jax|jxkernel` in a fresh
process (JAX_TRACEBACK_FILTERING set by the caller), it prints one JSON object, per case, of
what the learner's traceback shows: its frames (the user's as "function: line", the library's
as "<library>"), its notes, and the cause's type and user frames.

reference/make_traceback_filter_reference.py records JAX 0.10.2's answers;
tests/core/test_traceback_filtering.py compares jxkernel's."""
import importlib
import json
import linecache
import os
import sys
import traceback

jax = importlib.import_module(sys.argv[1])
jnp = importlib.import_module(sys.argv[1] + ".numpy")
lax = importlib.import_module(sys.argv[1] + ".lax")
export_module = importlib.import_module(sys.argv[1] + ".export")
HERE = os.path.abspath(__file__)


def step(x):
    return x @ jnp.ones((3, 2))         # a shape mistake, found while tracing


@jax.jit
def loss(x):
    return step(x).sum()


def body(carry, x):
    assert carry.shape == (5,), "carry must have 5 entries"
    return carry, x


@jax.custom_vjp
def clip(x):
    return x


def clip_fwd(x):
    return x, None


def clip_bwd(_, g):
    return (g.undefined_name,)


clip.defvjp(clip_fwd, clip_bwd)


def log_of_a_negative():
    jax.config.update("jax_debug_nans", True)
    try:
        return jnp.log(-1.0)            # eagerly: a NaN, which jax_debug_nans raises for
    finally:
        jax.config.update("jax_debug_nans", False)

CASES = {
    "jit": lambda: loss(jnp.ones((4, 4))),
    "grad_of_jit": lambda: jax.grad(loss)(jnp.ones((4, 4))),
    "vmap": lambda: jax.vmap(step)(jnp.ones((2, 4, 4))),
    "scan": lambda: lax.scan(body, jnp.zeros(3), jnp.arange(3.0)),
    "custom_vjp_bwd": lambda: jax.grad(lambda x: clip(x).sum())(jnp.ones(2)),
    "jit_lower": lambda: jax.jit(step).lower(jnp.ones((4, 4))),
    # entry points that raise before tracing anything (jit's and export's factories) and
    # lax's scatters, run eagerly: JAX 0.10.2 filters each
    "jit_static_and_donated": lambda: jax.jit(step, static_argnums=0, donate_argnums=0),
    "export_of_a_plain_function": lambda: export_module.export(step),
    "shard_map": lambda: jax.shard_map(step, mesh=jax.make_mesh((1,), ("i",)),
                                       in_specs=jax.P("i"), out_specs=jax.P("i"))(
        jnp.ones((4, 4))),
    "shard_map_body": lambda: jax.shard_map(step, mesh=jax.make_mesh((1,), ("i",)),
                                            in_specs=jax.P(), out_specs=jax.P())(
        jnp.ones((4, 4))),
    "pmap": lambda: jax.pmap(step)(jnp.ones((1, 4, 4))),
    "scatter_add_rank": lambda: lax.scatter_add(
        jnp.zeros(3), jnp.array([[0]]), jnp.ones((2, 2)),
        lax.ScatterDimensionNumbers((), (0,), (0,))),
    # eager operations (JAX's are jits of one primitive, each an api boundary): a NaN under
    # jax_debug_nans, a shape rule's error
    "eager_debug_nans": log_of_a_negative,
    "eager_add_shapes": lambda: lax.add(jnp.ones(3), jnp.ones(2)),
}


def frames(tb, hidden=False):
    """The frames a learner sees: the user's as "function: source line", each run of the
    library's as one "<library>" (how many differs between libraries)."""
    out = []
    for frame, lineno in traceback.walk_tb(tb):
        if hidden and "__tracebackhide__" in frame.f_locals:
            continue
        if os.path.abspath(frame.f_code.co_filename) == HERE:
            out.append(f"{frame.f_code.co_name}: "
                       f"{linecache.getline(HERE, lineno).strip()}")
        elif not out or out[-1] != "<library>":
            out.append("<library>")
    return out


def seen(e):
    mode = os.environ.get("JAX_TRACEBACK_FILTERING", "auto")
    cause = e.__cause__
    return {
        "type": type(e).__name__,
        "frames": frames(e.__traceback__, hidden=mode == "tracebackhide"),
        "notes": getattr(e, "__notes__", []),
        "cause": None if cause is None else {
            "type": type(cause).__name__,
            # the message's last lines: JAX's words after the exception's own
            "tail": str(cause).splitlines()[-4:] if type(cause).__name__ ==
            "UnfilteredStackTrace" else None,
            "user_frames": [f for f in frames(cause.__traceback__) if f != "<library>"]},
    }


results = {}
for name, case in CASES.items():
    try:
        case()
        results[name] = None
    except Exception as e:  # noqa: BLE001  (what each case raises is the answer)
        results[name] = seen(e)
print(json.dumps(results, sort_keys=True))
