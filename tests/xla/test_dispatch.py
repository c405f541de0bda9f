"""Eager dispatch's and jit's hot paths (a primitive's last run, a jit's last hit): results
stay right when operands, params or the config change between calls. Each test runs twice:
with the compiled fast path (core/native.py, where it was built at install) and with the
Python path (no Hit made, so each entry point calls its Python method; a whole process with
JXKERNEL_FASTPATH=0 is tests/xla/test_fastpath.py's)."""
import re
import sys

import numpy as np
import pytest
from dispatch_paths import forget_hits, path, python_frames  # noqa: F401  (path: autouse)
from fresh_process import run_json

import backend_tier  # tests/support: which backend this run's programs run on
import locations  # tests/support: the repository's folders

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.core.config import config
from jxkernel.transforms.jit.cache import LAST_HIT, NO_HITS
from jxkernel.core.native import STATE
from jxkernel.xla import dispatch, fastpath


def arr(x, dtype=np.float32):
    return jax.device_put(np.asarray(x, dtype))


def test_hits_run_through_the_compiled_path_where_it_is_on(path):
    f = jax.jit(lambda x, y: (x * y, {"a": x}))
    x, y = arr([1.0, 2.0]), arr([3.0, 4.0])
    for _ in range(3):
        out = f(x, y)
        assert np.asarray(out[0]).tolist() == [3.0, 8.0] and out[1]["a"].dtype == np.float32
        assert type(out[0]) is type(x) and not out[0].weak_type
        assert jnp.sin(x).shape == (2,)
    hit, run = f._last[LAST_HIT].newest.native, dispatch._last_run[lax.sin_p].native
    assert (hit is not None, run is not None) == ((True, True) if path == "compiled" else
                                                  (False, False))
    assert f.cache_hits() == 2
    if path == "compiled":                    # a mismatch is a MISS, never a wrong answer
        assert hit((x,)) is fastpath.MISS and hit((x, arr([1, 2], np.int32))) is fastpath.MISS
        assert run((x,), {"accuracy": "other"}) is fastpath.MISS
        assert np.asarray(hit((x, y))[0]).tolist() == [3.0, 8.0]


def test_compiled_hits_run_no_python_frame_of_ours(path):
    # Where the extension is on, Jitted.__call__, Primitive.bind and Array.block_until_ready
    # are its entry points: a hit then reaches XLA with no Python frame in between
    f = jax.jit(lambda x: x + 1)
    x = arr([1.0, 2.0])
    for _ in range(3):
        f(x), lax.neg_p.bind(x)
    jit_frames = python_frames(lambda: f(x))
    bind_frames = python_frames(lambda: lax.neg_p.bind(x))
    ready_frames = python_frames(lambda: x.block_until_ready())
    if path == "compiled":
        assert jit_frames == bind_frames == ready_frames == []
    else:                                        # (a Hit-less call falls back to Python)
        assert "_python_call" in jit_frames and "apply_primitive" in bind_frames
    assert np.asarray(f(x)).tolist() == [2.0, 3.0]
    assert np.asarray(f(x=x)).tolist() == [2.0, 3.0]            # (keywords: their own hit)
    assert x.block_until_ready() is x


def test_a_deleted_array_waits_with_jaxs_error(path):
    x = arr([1.0])
    x.block_until_ready()
    x.delete()
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"^INVALID_ARGUMENT: BlockHostUntilReady"
                       r"\(\) called on deleted or donated buffer\. \.delete\(\) was called on it\.$"):
        x.block_until_ready()


def test_python_scalar_arguments_hit_in_c_with_their_own_values_and_types(path):
    f = jax.jit(lambda x, a: (x * a, a))
    x = arr([1.0, 2.0])
    for a in [2.0, 2.0, 2.0, 3.0, -0.0, 0.0]:            # warm, then each value its own
        out, got = f(x, a)
        assert np.asarray(out).tolist() == [a, 2 * a] and got.weak_type
        assert np.copysign(1.0, float(got)) == np.copysign(1.0, a)
    hit = f._last[LAST_HIT].newest
    assert hit.kinds == (None, float)
    assert (hit.native is not None) == (path == "compiled")
    if path == "compiled":                               # another type there: a MISS
        assert hit.native((x, 2)) is fastpath.MISS and hit.native((x, True)) is fastpath.MISS
    assert f(x, 2)[1].dtype == np.int32 and f(x, True)[1].dtype == np.bool_
    assert f(x, jax.device_put(5.0))[1].item() == 5.0    # an Array where a scalar was
    g = jax.jit(lambda a, b: a - b)                      # scalars alone: the default device
    for _ in range(3):
        assert g(5, 3).item() == 2 and g(5, 3).dtype == np.int32
    with pytest.raises(OverflowError, match="whose argument path is a"):     # (JAX's words)
        g(2 ** 40, 3)                                    # the Python path's error
    assert g(7, 3).item() == 4


def test_numpy_arguments_hit_in_c_and_are_copied_at_each_call(path):
    # f(batch) of NumPy data, what a data loader yields: a hit (in C where it is on, as JAX's
    # C++ jit takes NumPy arguments), the data copied at each call as a transfer copies it
    f = jax.jit(lambda x, y: (x * 2 + y, x))
    a, y = np.arange(3, dtype=np.float32), arr([1.0, 1.0, 1.0])
    for _ in range(3):
        out, got = f(a, y)
        assert np.asarray(out).tolist() == [1.0, 3.0, 5.0] and got.dtype == np.float32
        assert not got.weak_type
    hit = f._last[LAST_HIT].newest
    assert hit.kinds == (np.dtype(np.float32), None)
    assert (hit.native is not None) == (path == "compiled")
    frames = python_frames(lambda: f(a, y))
    assert ("_python_call" in frames) == (path == "python"), frames
    if path == "compiled":          # another dtype, shape or class there: a MISS
        assert hit.native((a.astype(np.int32), y)) is fastpath.MISS
        assert hit.native((np.ones(4, np.float32), y)) is fastpath.MISS
        assert hit.native((a.reshape(1, 3), y)) is fastpath.MISS
        assert hit.native((np.ma.masked_array(a), y)) is fastpath.MISS
        assert hit.native((a.astype(">f4"), y)) is fastpath.MISS      # (equal shape, other order)
        assert hit.native((2.0, y)) is fastpath.MISS and hit.native((y, y)) is fastpath.MISS
    a[0] = 10.0                                          # changed in place: the next call sees it
    assert np.asarray(f(a, y)[0]).tolist() == [21.0, 3.0, 5.0]
    b = np.ones(3, np.float32)
    out = f(b, y)[1]
    b[:] = 100.0                                         # a copy was taken: the result keeps it
    assert np.asarray(out).tolist() == [1.0, 1.0, 1.0]
    view = np.arange(6, dtype=np.float32)[::2]           # strided data of the same dtype and shape
    assert np.asarray(f(view, y)[0]).tolist() == [1.0, 5.0, 9.0]
    assert f._cache_size() == 1
    # float64 data without x64 is float32 (as a transfer makes it), int64 int32: their own hits
    wide = jax.jit(lambda x: x + 1)
    for _ in range(3):
        assert wide(np.arange(2.0)).dtype == np.float32 and wide(np.arange(2)).dtype == np.int32
    assert wide(np.arange(2.0)).tolist() == [1.0, 2.0] and wide._cache_size() == 2
    with pytest.raises(TypeError, match="^Error interpreting argument to .* as an abstract "
                       "array. The problematic value is of type <class 'numpy.ndarray'> and was "
                       "passed to the function at path x."):    # strings: JAX 0.10.2's words
        wide(np.array(["a", "b"]))
    with jax.transfer_guard("disallow"):
        with pytest.raises(RuntimeError, match="host-to-device"):
            f(a, y)
    assert np.asarray(f(a, y)[0]).tolist() == [21.0, 3.0, 5.0]


# jnp's eager operations on NumPy data, each result's dtype and weak type as JAX 0.10.2 gave
# them (recorded by hand from .venv-jax; values follow from the dtypes): the data is put on the
# device first, as an Array of its canonical dtype, before promotion
NUMPY_OPERAND_CASES = {
    "sin_f32": (lambda x: jnp.sin(np.ones(3, np.float32)), "float32", False),
    "sin_i32": (lambda x: jnp.sin(np.arange(3, dtype=np.int32)), "float32", False),
    "sin_f64": (lambda x: jnp.sin(np.arange(3.0)), "float32", False),
    "add_arr_f64": (lambda x: x + np.arange(3.0), "float32", False),
    "add_f64_arr": (lambda x: np.arange(3.0) + x, "float32", False),
    "mul_i64_arr": (lambda x: jnp.multiply(np.arange(3), x), "float32", False),
    "add_i64_i64": (lambda x: jnp.add(np.arange(3), np.arange(3)), "int32", False),
    "add_bool_bool": (lambda x: jnp.add(np.ones(3, bool), np.ones(3, bool)), "bool", False),
    "sub_0d": (lambda x: jnp.subtract(x, np.array(2.0)), "float32", False),
    "maximum_u8_i8": (lambda x: jnp.maximum(np.ones(3, np.uint8), np.ones(3, np.int8)), "int16",
                      False),
}


@pytest.mark.parametrize("case", NUMPY_OPERAND_CASES)
def test_eager_operations_on_numpy_data_promote_as_jaxs(path, case):
    op, dtype, weak = NUMPY_OPERAND_CASES[case]
    x = arr([1.0, 1.0, 1.0])
    for _ in range(2):                                   # (the second: a last run's hit)
        out = op(x)
        assert (str(out.dtype), out.weak_type) == (dtype, weak) and type(out) is type(x)
    if case == "sin_i32":               # float32 sin within 4 ulps of NumPy's (XLA's polynomial)
        np.testing.assert_allclose(np.asarray(out), np.sin(np.arange(3, dtype=np.float32)),
                                   rtol=4 * 2 ** -23)
    if case.startswith("add_"):                          # (exact: small integers)
        assert np.asarray(out).tolist() == ([1.0, 2.0, 3.0] if "arr" in case else
                                            [0, 2, 4] if "i64" in case else [True] * 3)
    with jax.enable_x64(True):
        if case == "add_arr_f64":                        # float64 data stays so with x64
            assert op(x).dtype == np.float64


def test_a_jit_closing_over_arrays_hits_with_its_constants(path):
    c = arr([10.0, 20.0])                                # a closed-over Array: a constant
    g = jax.jit(lambda v: v * c)
    f = jax.jit(lambda v, s: (v * c + s, {"c": c}))
    x = arr([1.0, 2.0])
    for s in [1.0, 1.0, 1.0, 2.0]:
        out, d = f(x, s)
        assert np.asarray(out).tolist() == [10 + s, 40 + s]
        assert np.asarray(d["c"]).tolist() == [10.0, 20.0]
        assert np.asarray(g(x)).tolist() == [10.0, 40.0]
    assert g.cache_hits() == 3 and f.cache_hits() == 3
    assert (g._last[LAST_HIT].newest.native is not None) == (path == "compiled")
    if path == "compiled":
        assert python_frames(lambda: g(x)) == []


def test_static_arguments_hit_in_c_each_value_under_its_typed_key(path):
    # A jit with static arguments (by position or name, passed either way) hits in C where
    # the extension is on: each call's statics find their own last hit (jit.args.static_key),
    # so values used in turn each hit, and values of equal value and other type are other
    # programs (True and 1, 4.0 and 4: JAX's Static). (One last hit per static key: f(x, 2)
    # and f(i, 2) in turn would take the Python path's dict, as f(x) and f(i) do.)
    f = jax.jit(lambda x, n: x * 10 if n is True else x * n, static_argnums=1)
    g = jax.jit(lambda x, *, n: x * n, static_argnames="n")
    h = jax.jit(lambda x, n, m=1: x * n + m, static_argnames=("n", "m"))
    x, i = arr([1.0, 2.0]), arr([1, 2], np.int32)
    c = jax.device_put(np.ones(2, np.float32), jax.devices()[0])     # committed
    calls = {"f(x, 2)": (lambda: f(x, 2), [2.0, 4.0], np.float32),
             "f(x, 3)": (lambda: f(x, 3), [3.0, 6.0], np.float32),
             "f(i, True)": (lambda: f(i, True), [10, 20], np.int32),
             "f(i, 1)": (lambda: f(i, 1), [1, 2], np.int32),
             "f(i, 4.0)": (lambda: f(i, 4.0), [4.0, 8.0], np.float32),
             "f(i, 4)": (lambda: f(i, 4), [4, 8], np.int32),
             "g(x, n=2)": (lambda: g(x, n=2), [2.0, 4.0], np.float32),
             "g(i, n=2.0)": (lambda: g(i, n=2.0), [2.0, 4.0], np.float32),
             "h(x, 2)": (lambda: h(x, 2), [3.0, 5.0], np.float32),
             "h(x, n=2)": (lambda: h(x, n=2), [3.0, 5.0], np.float32),
             "h(x, 2, m=0)": (lambda: h(x, 2, m=0), [2.0, 4.0], np.float32),
             "h(x, m=0, n=3)": (lambda: h(x, m=0, n=3), [3.0, 6.0], np.float32)}
    for _ in range(3):                                  # in turn: each its own last hit
        for name, (call, want, dtype) in calls.items():
            out = call()
            assert np.asarray(out).tolist() == want and out.dtype == dtype, name
        assert [f(c, 2).committed, f(x, 2).committed] == [True, False]   # where it ran
    # (f(c, 2) on a committed array is a program of its own, as in JAX: compile_level_cases)
    assert f._cache_size() == 7 and g._cache_size() == 2 and h._cache_size() == 4
    for name, (call, _, _) in calls.items():
        frames = python_frames(call)
        assert (frames == []) == (path == "compiled"), (name, frames)
        assert path == "compiled" or "_python_call" in frames
    assert f.cache_hits() == 3 * 8 - 7 + 6     # all but the compiles, and the frames' calls
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        f(x, [2])                                       # JAX's error, the hits warm


def test_keyword_static_calls_hit_the_cache_and_miss_on_a_new_value(path):
    # Jitted's C base takes the call's keyword names as the call site has them: a static
    # passed by keyword hits (no Python frame where compiled), in either keyword order (one
    # program, as JAX's: recompile_cases' static_keywords_in_another_order), and a new value,
    # or a value of another type, compiles its own. The cache sizes are JAX 0.10.2's.
    h = jax.jit(lambda x, n, m=1: x * n + m, static_argnames=("n", "m"))
    x, i = arr([1.0, 2.0]), arr([1, 2], np.int32)
    for _ in range(3):
        assert np.asarray(h(x, n=3)).tolist() == [4.0, 7.0]
        assert np.asarray(h(x, n=3, m=0)).tolist() == [3.0, 6.0]
        assert np.asarray(h(x, m=0, n=3)).tolist() == [3.0, 6.0]    # the same program
    assert h._cache_size() == 2 and h.cache_hits() == 3 * 3 - 2
    if path == "compiled":
        assert python_frames(lambda: h(x, n=3)) == python_frames(lambda: h(x, m=0, n=3)) == []
    assert np.asarray(h(x, n=4)).tolist() == [5.0, 9.0] and h._cache_size() == 3
    assert h(i, n=4).dtype == np.int32 and h(i, n=4.0).dtype == np.float32
    assert h._cache_size() == 5
    assert np.asarray(h(x=x, n=3)).tolist() == [4.0, 7.0] and h._cache_size() == 6  # x by name
    assert np.asarray(h(x, 3)).tolist() == [4.0, 7.0] and h._cache_size() == 7  # n by position
    assert np.asarray(h(x, n=3)).tolist() == [4.0, 7.0] and h._cache_size() == 7


def test_keyword_array_calls_hit_in_c_under_their_names(path):
    # f(x=a) on a jit with no static argument (Flax, Equinox and optax pass arrays by
    # keyword): the call's keyword names key a last hit whose values are dynamic, as JAX's
    # C++ path keys them. The names in either order run one program (recompile_cases'
    # array_keywords_in_another_order: JAX 0.10.2 lowers f(x=a, y=b), f(y=b, x=a) once, and
    # f(a, y=b) again); each order hits with its own stack order.
    f = jax.jit(lambda x, y: (x - y, {"y": y}))
    g = jax.jit(lambda x, y=None, *, s=1.0: x * s if y is None else x * s + y)
    x, y, i = arr([1.0, 2.0]), arr([10.0, 30.0]), arr([1, 2], np.int32)
    calls = {"f(x=x, y=y)": (lambda: f(x=x, y=y)[0], [-9.0, -28.0], np.float32),
             "f(y=y, x=x)": (lambda: f(y=y, x=x)[0], [-9.0, -28.0], np.float32),
             "f(y=x, x=y)": (lambda: f(y=x, x=y)[0], [9.0, 28.0], np.float32),
             "f(x, y=y)": (lambda: f(x, y=y)[0], [-9.0, -28.0], np.float32),
             "f(x=i, y=i)": (lambda: f(x=i, y=i)[1]["y"], [1, 2], np.int32),
             "g(x=x)": (lambda: g(x=x), [1.0, 2.0], np.float32),
             "g(x, s=2.0)": (lambda: g(x, s=2.0), [2.0, 4.0], np.float32),
             "g(x=x, s=3)": (lambda: g(x=x, s=3), [3.0, 6.0], np.float32),
             "g(s=2.0, y=y, x=x)": (lambda: g(s=2.0, y=y, x=x), [12.0, 34.0], np.float32)}
    for _ in range(3):                                   # in turn: each its own last hit
        for name, (call, want, dtype) in calls.items():
            out = call()
            assert np.asarray(out).tolist() == want and out.dtype == dtype, name
    assert f._cache_size() == 3 and g._cache_size() == 4    # (the orders: one program)
    assert f.cache_hits() == 3 * 5 - 3 and g.cache_hits() == 3 * 4 - 4
    for name, (call, _, _) in calls.items():      # (one last hit per names: f(x=i, y=i)
        call()                                     # took f(x=x, y=y)'s, as a new shape would)
        frames = [f for f in python_frames(call) if f not in ("scalar_buffer", "_scalar")]
        assert (frames == []) == (path == "compiled"), (name, frames)  # (a scalar: its buffer)
    assert np.asarray(f(x=arr([1.0]), y=arr([2.0]))[0]).tolist() == [-1.0]   # a new shape
    assert f(x=x, y=i)[0].dtype == np.float32 and f._cache_size() == 5       # a new dtype
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'z'"):
        f(x=x, z=y)                                      # the Python path's error


def test_keyword_array_hits_follow_config_changes_and_nan_checks(path):
    f = jax.jit(lambda x, y: x / y)
    x, zero = arr([0.0, 1.0]), arr([0.0, 1.0])
    for _ in range(3):
        assert np.isnan(np.asarray(f(x=x, y=zero))[0])
    with jax.config.override("jax_debug_nans", True):    # checked: never the last hit
        with pytest.raises(FloatingPointError):
            f(x=x, y=zero)
    with jax.config.override("jax_enable_x64", True):
        assert f(x=x, y=zero).dtype == np.float32 and f(x=x, y=2.0).dtype == np.float32
    assert f(x=x, y=zero).dtype == np.float32
    d = jax.jit(lambda x, y: x * y, donate_argnames="x")   # donated: the Python path's
    for _ in range(3):
        v = arr([1.0, 2.0])
        assert np.asarray(d(x=v, y=x)).tolist() == [0.0, 2.0] and v.is_deleted()


def test_a_donating_jit_hits_in_c_and_deletes_what_it_donates(path):
    # as JAX's C++ path: a donating jit's hit runs in C, and marks each donated Array there too
    # (deleted, and a Gone saying why: no Python frame); an Array donated before is JAX's
    # ValueError (deleted_arrays_reference's donate/same_jit_again), hot or not
    f = jax.jit(lambda x, y: x * 2 + y, donate_argnums=0)
    x, y = arr([0.0, 1.0]), arr([1.0, 1.0])
    for _ in range(4):
        old, x = x, f(x, y)
        assert old.is_deleted() and not y.is_deleted()
    assert np.asarray(x).tolist() == [15.0, 31.0] and f.cache_hits() == 3
    frames = python_frames(lambda: f(x, y))
    assert ("_python_call" in frames) == (path == "python")
    assert (frames == []) == (path == "compiled"), frames
    with pytest.raises(RuntimeError, match=r"^Array has been deleted with shape=float32\[2\]\. "
                       r"It was donated to jit\(<lambda>\) as its argument 'x'"):
        np.asarray(x)
    with pytest.raises(ValueError, match=r"^INVALID_ARGUMENT: Invalid buffer passed to Execute\(\)"
                       r" as argument 0 to replica 0: INVALID_ARGUMENT: Buffer has been deleted "
                       r"or donated\. It was donated to jit\(<lambda>\) as its argument 'x'"):
        f(x, y)
    held = arr([5.0, 6.0])
    view = np.asarray(held)                # a NumPy view of ours: dropped, the Array deleted
    assert np.asarray(f(held, y)).tolist() == [11.0, 13.0] and held.is_deleted()
    assert view.tolist() == [5.0, 6.0]
    assert f(arr([1, 2], np.int32), 2).dtype == np.int32 and f._cache_size() == 2
    step = jax.jit(lambda s, b: jax.tree_util.tree_map(lambda a: a + b, s), donate_argnums=0)
    state = {"w": arr([0.0, 1.0]), "b": [arr([5, 6], np.int32)]}     # a training state
    for _ in range(4):
        old, state = state, step(state, 1)
        assert old["w"].is_deleted() and old["b"][0].is_deleted()
    assert np.asarray(state["w"]).tolist() == [4.0, 5.0] and state["b"][0].dtype == np.int32
    assert step.cache_hits() == 3


def _reference(case) -> str:
    return locations.recorded("deleted_arrays_reference.json")[case]["message"]


def test_static_and_array_keywords_together_hit_in_c_under_the_static_key(path):
    # g(x, y=b, n=3), n static and y an array by keyword (what nnx.jit and filter_jit pass):
    # the call's static key (jit.args.static_key of the static names, built in C too) finds a
    # last hit whose Hit takes the dynamic arguments in flat order, the keywords in either
    # order (h(x, 2, y=y) and h(i, 3, y=i): each static key its own hits).
    g = jax.jit(lambda x, y, *, n: x * n - y, static_argnames="n")
    h = jax.jit(lambda x, n, y: x * n + y, static_argnums=1)   # positional static, y by name
    x, y, i = arr([1.0, 2.0]), arr([1.0, 1.0]), arr([1, 2], np.int32)
    calls = {"g(x, y=y, n=3)": (lambda: g(x, y=y, n=3), [2.0, 5.0], np.float32),
             "g(x, n=3, y=y)": (lambda: g(x, n=3, y=y), [2.0, 5.0], np.float32),
             "g(y=y, x=x, n=2)": (lambda: g(y=y, x=x, n=2), [1.0, 3.0], np.float32),
             "g(i, y=i, n=2)": (lambda: g(i, y=i, n=2), [1, 2], np.int32),
             "g(x, y=2.0, n=5)": (lambda: g(x, y=2.0, n=5), [3.0, 8.0], np.float32),
             "h(x, 2, y=y)": (lambda: h(x, 2, y=y), [3.0, 5.0], np.float32),
             "h(i, 3, y=i)": (lambda: h(i, 3, y=i), [4, 8], np.int32)}
    for _ in range(3):                                  # in turn: each its own last hit
        for name, (call, want, dtype) in calls.items():
            out = call()
            assert np.asarray(out).tolist() == want and out.dtype == dtype, name
    assert g._cache_size() == 4 and h._cache_size() == 2   # (n=3, y=y: x, n=3, y=y's)
    assert g.cache_hits() == 5 * 3 - 4 and h.cache_hits() == 2 * 3 - 2
    for name, (call, _, _) in calls.items():
        frames = [f for f in python_frames(call) if f not in ("scalar_buffer", "_scalar")]
        assert (frames == []) == (path == "compiled"), (name, frames)
        assert path == "compiled" or "_python_call" in frames
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'z'"):
        g(x, z=y, n=3)                                   # the Python path's error, hits warm
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        g(x, y=y, n=[3])
    made = []                   # two signatures under one key in turn: both held there, each
    for _ in range(3):          # entry's LastHit made once (tests/xla/test_multihit.py: more)
        for call in (lambda: h(x, 2, y=y), lambda: h(i, 2, y=i)):
            call()
            made.extend(h._last.get((("y",), 2, int), NO_HITS).hits)
    assert len(set(map(id, made))) == (2 if path == "compiled" else 0)
    assert h(x, 2, y=y).dtype == np.float32 and h(i, 2, y=i).dtype == np.int32


def test_a_hot_mixed_keyword_call_that_misses_compiles_and_is_explained(path):
    # after hits in C, a new static value, or a new dtype of an array by keyword, takes the
    # general path: it compiles, and the compile record's explainer says why
    def keyword_scaled(x, y, *, n):
        return x * n - y
    g = jax.jit(keyword_scaled, static_argnames="n")
    x, y, i = arr([1.0, 2.0]), arr([1.0, 1.0]), arr([1, 2], np.int32)
    for _ in range(3):
        g(x, y=y, n=3)
    assert np.asarray(g(x, y=y, n=4)).tolist() == [3.0, 7.0] and g._cache_size() == 2
    assert jax.compile_events("keyword_scaled")[-1].reason == "static n: 3 -> 4"
    for _ in range(3):
        assert np.asarray(g(x, y=y, n=3)).tolist() == [2.0, 5.0] and g._cache_size() == 2
    assert g(x, y=i, n=3).dtype == np.float32 and g._cache_size() == 3
    assert [(c.path, c.kind, c.old, c.new) for c in      # (against the last compile)
            jax.compile_events("keyword_scaled")[-1].changes] == \
        [("n", "static", "4", "3"), ("y", "dtype", "f32[2]", "i32[2]")]
    assert g.cache_hits() == 2 + 3


def test_static_and_donating_calls_hit_in_c_and_mark_what_they_donate(path):
    # a donating jit with a static argument (by position, or by name beside an array by
    # name): its hits run in C, delete and mark what they donate there, and an Array
    # donated before gives JAX's ValueError (deleted_arrays_reference's hot_static_jit_again,
    # by_keyword_beside_a_static_again), with why
    d = jax.jit(lambda x, n: x * n, static_argnums=1, donate_argnums=0)
    k = jax.jit(lambda y, x, *, n: x * n + y, static_argnames="n", donate_argnames="x")
    x, y, z = arr([1.0, 2.0]), arr([1.0, 1.0]), arr([0.0, 1.0])
    for _ in range(4):
        old, x = x, d(x, 2.0)
        assert old.is_deleted() and type(old._buf).__name__ == "Gone"
        older, z = z, k(y, x=z, n=3)
        assert older.is_deleted() and not y.is_deleted()
    assert np.asarray(x).tolist() == [16.0, 32.0] and np.asarray(z).tolist() == [40.0, 121.0]
    assert d.cache_hits() == 3 and k.cache_hits() == 3
    assert np.asarray(k(y, n=3, x=arr([1.0, 1.0]))).tolist() == [4.0, 4.0]   # (the order)
    w = arr([1.0, 1.0])
    for call in (lambda: d(x, 2.0), lambda: k(y, x=z, n=3), lambda: k(y, n=3, x=w)):
        frames = python_frames(call)
        assert (frames == []) == (path == "compiled"), frames
    why = "It was donated to jit(<lambda>) as its argument 'x': use that call's result"
    with pytest.raises(RuntimeError, match=r"^Array has been deleted with shape=float32\[2\]\. "
                       + re.escape(why)):
        np.asarray(old)
    for call, case in ((lambda: d(old, 2.0), "hot_static_jit_again"),
                       (lambda: k(y, x=older, n=3), "by_keyword_beside_a_static_again")):
        with pytest.raises(ValueError) as raised:
            call()
        assert str(raised.value).startswith(_reference(f"donate/{case}") + " " + why)
    held = arr([5.0, 6.0])
    view = np.asarray(held)                # a NumPy view of ours: dropped, the Array deleted
    assert np.asarray(d(held, 2.0)).tolist() == [10.0, 12.0] and held.is_deleted()
    assert view.tolist() == [5.0, 6.0] and d._cache_size() == k._cache_size() == 1
    s = jax.jit(lambda v, n: v * n, static_argnums=1, donate_argnums=0)
    assert float(s(2.0, 3)) == float(s(2.0, 3)) == 6.0   # a donated Python scalar: no Hit
    w = jax.device_put(2.0)                  # the same program on an Array: its Hit, made now
    for _ in range(3):
        w = s(w, 3)
    assert float(w) == 54.0 and s._cache_size() == 1
    assert (python_frames(lambda: s(w, 3)) == []) == (path == "compiled")


def test_containers_of_arrays_hit_in_c_with_their_structure(path):
    # a dict of arrays, a model's parameter tree, a tuple, None among the arguments: the Hit
    # flattens the arguments (the registry's flatten, jaxlib's C++) and compares the structure,
    # as JAX's C++ path does; another structure, key, leaf type or placement is a miss
    f = jax.jit(lambda d, s=None: jax.tree_util.tree_map(lambda v: v * 2, d) if s is None else s)
    g = jax.jit(lambda p, x: (p["w"] @ x + p["b"][0], p["b"][1] * 2))
    x, i = arr([1.0, 2.0]), arr([1, 2], np.int32)
    d, p = {"a": x, "b": i}, {"w": arr(np.eye(2)), "b": (arr([1.0, 1.0]), 3.0)}
    calls = {"f(d)": (lambda: f(d)["a"], [2.0, 4.0], np.float32),
             "f(d, None)": (lambda: f(d, None)["b"], [2, 4], np.int32),
             "g(p, x)": (lambda: g(p, x)[0], [2.0, 3.0], np.float32),
             "g(p, x)[1]": (lambda: g(p, x)[1], 6.0, np.float32),
             "g(x=x, p=p)": (lambda: g(x=x, p=p)[0], [2.0, 3.0], np.float32),
             "g(p, x=x)": (lambda: g(p, x=x)[0], [2.0, 3.0], np.float32)}
    for _ in range(3):
        for name, (call, want, dtype) in calls.items():
            out = call()
            assert np.asarray(out).tolist() == want and out.dtype == dtype, name
    for name, (call, _, _) in calls.items():      # (scalar leaves: their buffer's Python)
        call()
        frames = [f for f in python_frames(call) if f not in ("scalar_buffer", "_scalar")]
        assert ("_python_call" in frames) == (path == "python"), (name, frames)
        assert path == "python" or frames == [], (name, frames)
    assert f._cache_size() == 2 and g._cache_size() == 3
    assert np.asarray(f({"a": x, "c": i})["c"]).tolist() == [2, 4]           # another key
    assert np.asarray(f({"a": i, "b": i})["a"]).tolist() == [2, 4]           # another type
    assert np.asarray(f({"a": x, "b": (i,)})["b"][0]).tolist() == [2, 4]      # another tree
    assert np.asarray(f(d, x)).tolist() == [1.0, 2.0] and f._cache_size() == 6
    c = jax.device_put(np.ones(2, np.float32), jax.devices()[0])              # committed
    assert f({"a": c, "b": i})["a"].committed and not f(d)["a"].committed
    with pytest.raises(TypeError, match=r"as an abstract array\. The problematic value is of "
                       r"type <class 'str'> and was passed to the function at path d\['b'\]"):
        f({"a": x, "b": "text"})                                   # (the Python path's error)


def test_a_new_static_value_after_hits_compiles_and_is_explained(path):
    # a hot static jit's miss takes the general path: the compile record and its explainer
    def scaled_by_a_static(x, n):
        return x * n
    f = jax.jit(scaled_by_a_static, static_argnums=1)
    x = arr([1.0, 2.0])
    for _ in range(3):
        f(x, 2)
    assert np.asarray(f(x, 5)).tolist() == [5.0, 10.0] and f._cache_size() == 2
    events = jax.compile_events("scaled_by_a_static")
    assert [e.reason for e in events][-1] == "static n: 2 -> 5"
    assert np.asarray(f(x, 2.0)).tolist() == [2.0, 4.0] and f._cache_size() == 3
    assert [(c.kind, c.old, c.new) for c in jax.compile_events("scaled_by_a_static")[-1]
            .changes] == [("static", "2", "2.0")]


def test_a_static_jits_hits_follow_config_changes_and_donate(path):
    f = jax.jit(lambda x, n: x + jnp.zeros(n), static_argnums=1)
    x = arr([1.0, 2.0])
    for _ in range(3):
        assert f(x, 2).dtype == np.float32
    with jax.config.override("jax_enable_x64", True):     # zeros are f64 there: retraced
        assert f(x, 2).dtype == np.float64 and f(x, 2).dtype == np.float64
    assert f(x, 2).dtype == np.float32 and f._cache_size() == 2
    d = jax.jit(lambda x, n: x * n, static_argnums=1, donate_argnums=0)
    for _ in range(3):
        y = arr([1.0, 2.0])
        assert np.asarray(d(y, 3)).tolist() == [3.0, 6.0] and y.is_deleted()


def test_static_last_hits_leave_with_the_entries_the_cache_drops(path):
    f = jax.jit(lambda x, n: x * n, static_argnums=1)
    f._cache.resize(2)
    x = arr([1.0, 2.0])
    for n in range(1, 6):
        for _ in range(3):
            assert np.asarray(f(x, n)).tolist() == [n, 2.0 * n]
    kept = set(map(id, f._cache.values()))
    assert f._cache_size() == 2 and len(f._last) == 2
    assert all(id(getattr(hit.entry, "entry", hit.entry)) in kept    # (an entry's twin: its)
               for recent in f._last.values() for hit in recent.hits)
    f.clear_cache()
    assert not f._last and np.asarray(f(x, 1)).tolist() == [1.0, 2.0]


def test_operators_on_two_arrays_of_one_type_run_their_last_run(path):
    # Array's + - * / in C take the primitive's last run only for operands jnp would not
    # promote (one dtype, weak type and shape; not bool; inexact for /): check each neighbour
    x, y = arr([6.0, 8.0]), arr([2.0, 4.0])
    i, j = arr([7, 9], np.int32), arr([2, 4], np.int32)
    for _ in range(3):                                 # (a primitive keeps one last run)
        assert (i + j).dtype == np.int32 and np.asarray(i * j).tolist() == [14, 36]
    for _ in range(3):
        assert np.asarray(x + y).tolist() == [8.0, 12.0] and np.asarray(x - y).tolist() == [4, 4]
        assert np.asarray(x * y).tolist() == [12.0, 32.0] and np.asarray(x / y).tolist() == [3, 2]
    if path == "compiled":
        assert python_frames(lambda: x + y) == python_frames(lambda: x / y) == []
    quotient = i / j                                   # ints divide as floats (the Python path)
    assert quotient.dtype == np.float32 and np.asarray(quotient).tolist() == [3.5, 2.25]
    t, f = arr([True, True], np.bool_), arr([True, False], np.bool_)
    assert np.asarray(t * f).tolist() == [True, False] and (t + f).dtype == np.bool_
    w = jax.device_put(np.float32(2.0)) * 1.0           # a weak f32 scalar meets a strong f32[2]
    assert np.asarray(x + x).tolist() == [12.0, 16.0]
    assert (x + jax.device_put(2.0)).tolist() == [8.0, 10.0] and not (x + w).weak_type
    assert (x + arr([1.0])).shape == (2,)             # broadcasting: promoted in Python
    assert (x + arr([1, 1], np.int32)).dtype == np.float32
    assert (x.astype(np.float16) + y.astype(np.float16)).dtype == np.float16


def test_a_failing_hit_raises_the_python_paths_error(path):
    f = jax.jit(lambda x: x + 1)
    x = arr([1.0, 2.0])
    for _ in range(3):
        f(x)
    x.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(x)


def test_a_primitive_run_again_with_other_params_uses_them():
    x = arr([1.0, 2.0, 3.0])
    for _ in range(3):                        # each params' run becomes the last one in turn
        assert np.asarray(lax.integer_pow(x, 2)).tolist() == [1.0, 4.0, 9.0]
        assert np.asarray(lax.integer_pow(x, 3)).tolist() == [1.0, 8.0, 27.0]


def test_a_primitive_run_again_on_other_operand_types_gives_their_types():
    for _ in range(2):
        assert jnp.sin(arr([0.0, 0.0])).shape == (2,)
        assert jnp.sin(arr([0.0, 0.0, 0.0])).shape == (3,)
        assert jnp.sin(arr([0.0], np.float16)).dtype == np.float16
        assert jnp.sin(jax.device_put(0.0)).weak_type
        assert not jnp.sin(arr(0.0)).weak_type


def test_turning_nan_checks_on_after_warm_calls_checks_the_next_call():
    x = arr([-1.0])
    f = jax.jit(jnp.log)
    for _ in range(3):                        # eager: last run; jit: last hit
        assert np.isnan(np.asarray(jnp.log(x))[0]) and np.isnan(np.asarray(f(x))[0])
    with jax.config.override("jax_debug_nans", True):
        with pytest.raises(FloatingPointError):
            jnp.log(x)
        with pytest.raises(FloatingPointError):
            f(x)
    assert np.isnan(np.asarray(jnp.log(x))[0])


def test_a_jit_alternating_between_two_signatures_runs_each_ones_program():
    f = jax.jit(lambda x: x * 2)
    a, b = arr([1.0, 2.0]), arr([1, 2, 3], np.int32)
    for _ in range(3):                        # each hit replaces the other as the last hit
        assert np.asarray(f(a)).tolist() == [2.0, 4.0] and f(a).dtype == np.float32
        assert np.asarray(f(b)).tolist() == [2, 4, 6] and f(b).dtype == np.int32
    assert f.cache_hits() == 10 and f._cache_size() == 2


def test_eager_programs_are_bounded_and_the_hot_paths_let_go_of_dropped_ones():
    """Issue 45: a loop over new shapes makes a new eager program each time; the LRU keeps
    PROGRAMS of them and what it drops leaves the fast dict too (so it is freed)."""
    from jxkernel.core.lru import PROGRAMS
    eager = dispatch
    eager._executables.resize(6)
    try:
        for n in range(1, 20):
            np.testing.assert_allclose(np.asarray(jnp.cos(jnp.zeros(n))), np.ones(n))
        assert len(eager._executables) == 6
        dropped = {id(run.exe) for run in eager._fast.values()} - \
            {id(e) for exe in eager._executables.values() for e in (exe, exe._twin)}
        assert not dropped
    finally:
        eager._executables.resize(PROGRAMS)


def test_each_hit_gives_its_calls_results_committed_as_jax_does(path):
    """Results are committed where an argument is (put on a device by name), not where none
    is (JAX 0.10.2's rule, placement_cases): the hot paths, which compare the first
    argument's placement, tell the two kinds apart and take no call that mixes them."""
    c, u = jax.device_put(np.ones(3, np.float32), jax.devices()[0]), jnp.ones(3)
    f, g = jax.jit(lambda a: a * 2), jax.jit(lambda a, b: a * b)
    assert c.committed and not u.committed
    for _ in range(3):
        assert [f(c).committed, f(u).committed, g(u, u).committed, g(u, c).committed,
                g(c, u).committed, g(c, 2.0).committed, g(u, 2.0).committed] == \
            [True, False, False, True, True, True, False]
        assert [(c * c).committed, (u * u).committed, (u * c).committed,
                jnp.sin(u).committed, jnp.sin(c).committed] == [True, False, True, False, True]
    # a program for each kind, as JAX 0.10.2 compiles one for each (its compile cache keys
    # the committed argument's sharding: tests/data/compile_level_reference.json)
    assert f.cache_hits() == 4 and f._cache_size() == 2


@pytest.mark.cpu_only("simulated CPU devices")
@pytest.mark.xla_only("several devices")
def test_placement_and_committed_flags_are_jaxs_on_four_devices(path):
    """tests/data/placement_cases.py (each case twice: the second where the caches are warm),
    recorded with JAX 0.10.2 by reference/make_placement_reference.py, run with jxkernel on four
    CPU devices; on the Python paths the process has no compiled fast path."""
    out = run_json("""
        import json
        import jxkernel as jax
        import placement_cases
        print(json.dumps(placement_cases.run(jax)))
        """, {"JXKERNEL_CPU_DEVICES": "4", **({"JXKERNEL_FASTPATH": "0"} if path == "python"
                                              else {})})
    reference = locations.jax_answers("placement_reference.json")
    assert {k for k, v in out.items() if v != reference[k]} == set()
    assert reference["uncommitted_d1_plus_1"] == [[False, [0]]]     # moved to the default
    assert reference["jit_committed_d1_committed_d2"].startswith(
        "ValueError: Received incompatible devices for jitted computation.")


def test_unused_arguments_hit_in_c_and_are_not_passed(path):
    # jit drops the arguments its function never reads (as JAX's kept_var_idx): the program
    # takes the others, and a hit (C or Python) checks every argument but passes those alone
    c = arr([10.0, 20.0])
    f = jax.jit(lambda x, y, z: x * c + z)                # y unused; c a constant, written in
    g = jax.jit(lambda x, y: x - 1, donate_argnums=(0, 1))  # y donated, unused: kept alive
    x, y, z = arr([1.0, 2.0]), arr([5.0, 6.0, 7.0]), arr([1.0, 1.0])
    for a in [y, y, 2.0, 2.0, y]:
        assert np.asarray(f(x, a, z)).tolist() == [11.0, 41.0]
        donated, kept = arr([3.0]), arr([4.0])
        assert np.asarray(g(donated, kept)).tolist() == [2.0]
        assert donated.is_deleted() and not kept.is_deleted()
    hit, = [h.native for h in f._last[LAST_HIT].hits if h.kinds is None]   # (y an Array)
    # (x, z: y dropped, c written into the module, as JAX's, and dropped from each call too;
    # the NumPy backend has no module to write c into: it passes c, its argument 0)
    kept = (0, 1, 3) if backend_tier.on_numpy_backend() else (1, 3)
    assert f._cache[next(iter(f._cache))].exe.kept == kept
    assert (hit is not None) == (path == "compiled") and f.cache_hits() == 3   # (2 signatures)
    if path == "compiled":
        assert python_frames(lambda: f(x, y, z)) == []
        assert hit((x, arr([1.0]), z)) is fastpath.MISS       # still checked: another type
        assert np.asarray(hit((x, y, z))).tolist() == [11.0, 41.0]


@pytest.mark.parametrize("run", ["eager", "linearize", "jit"])
def test_running_leaves_no_reference_cycles(run):
    # JAX's core_test (test_reference_cycles): what a call builds (its StableHLO module,
    # whose blocks point back at their function and module) is freed by reference counting
    import jxkernel
    import jxkernel.numpy as jnp

    def f(x):
        return x.sum()
    x = jnp.zeros([])
    calls = {"eager": lambda: f(x + 1.0), "linearize": lambda: jxkernel.linearize(f, x),
             "jit": lambda: jxkernel.jit(f)(x).block_until_ready()}
    assert _cycles_made_by(calls[run]) == []


def _cycles_made_by(call, hold_what_was_there=True) -> list:
    """The types of the objects `call` left in reference cycles (the first 10). What was
    there before it is held for the while: a bounded cache or log (the compile log's 10,000
    events, a jit's 1024 signatures) dropping its oldest entry during the call, in a process
    that ran long, frees an older object's cycle, not one the call made (--dist loadfile ran
    this test after whole files: 151 objects of a PjitFunction the compile log let go).
    `hold_what_was_there` False: every cycle left unreachable after the call counts."""
    import gc
    gc.collect()
    held = gc.get_objects() if hold_what_was_there else []
    debug = gc.get_debug()
    try:
        call()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return [type(g).__name__ for g in gc.garbage[:10]]
    finally:
        gc.set_debug(debug)
        gc.garbage.clear()
        del held


def test_an_entry_the_jit_cache_drops_is_freed_by_reference_counting():
    """A compiled signature the cache's bound drops is unlinked from its LastHits and twin,
    which point back at it: its executable and constants go at once, not at the next gc."""
    import jxkernel
    import jxkernel.numpy as jnp
    f = jxkernel.jit(lambda v: v * 2.0)
    x = jnp.arange(3.0)
    committed = jxkernel.device_put(x, jxkernel.devices()[0])
    for _ in range(3):              # fast-path hits: LastHits; a committed call: the twin
        f(x), f(committed)
    entries = list(f._cache.values())
    assert any(e.last_hit is not None for e in entries) and any(e.twin for e in entries)
    del entries
    # (what the cache held is what is to be freed: not held here)
    assert _cycles_made_by(lambda: f._cache.resize(0), hold_what_was_there=False) == []
