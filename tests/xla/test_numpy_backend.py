"""The NumPy backend (platform "numpy"): jxkernel without jaxlib, and beside XLA's backends.

Where jaxlib cannot be imported (Pyodide), `import jxkernel` must work and programs run on
the NumPy backend; a fresh interpreter whose imports of jaxlib and SciPy fail (a meta path
finder refuses them, as in a venv of numpy, ml_dtypes and opt_einsum alone) runs jit, grad,
vmap, scan, control flow, PRNG, linalg and fft, and
its values are held against the same program run by XLA's CPU backend in another fresh
interpreter: PRNG bits, integers, shapes and dtypes exactly, floats within 8 ulp of each
result's largest magnitude (NumPy's and XLA's sin, tanh and erf_inv differ in the last bits,
and a last-bit difference in linspace's values moves cos(x) by a few ulp more; measured: at
most 4).
"""
import gc
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from fresh_process import NO_JAXLIB, child_env, run_json
import locations  # tests/support: the repository's folders, recorded answers
import gpu_tier
from numerics import assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel.core.config import config
from jxkernel.core import compile_record

# A program over what a first notebook does; its last line prints each result as
# [dtype, shape, values] in JSON, with the backend and whether jaxlib was imported.
PROGRAM = """
import json, sys
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp

x = jnp.linspace(-2.0, 2.0, 7)
f = jax.jit(lambda x: jnp.sum(jnp.tanh(x) ** 2))
def body(c, v):
    return c * 0.5 + v, jnp.sin(c)
key = jax.random.key(42)
results = {
    "eager": jnp.sin(x) * 2 + jnp.exp(-x),
    "jit": f(x),
    "jit_again": f(x[:4] + 1),
    "grad": jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))(x),
    "vmap": jax.vmap(lambda v: v @ v)(jnp.arange(12.0).reshape(3, 4)),
    "scan": jax.lax.scan(body, 0.0, x)[1],
    "while": jax.lax.while_loop(lambda c: c < 100, lambda c: c * 3, 1),
    "cond": jax.jit(lambda x: jax.lax.cond(x.sum() > 0, jnp.cos, jnp.sin, x))(x),
    "bits": jax.random.bits(key, (4,)),
    "normal": jax.random.normal(key, (5,)),
    "uniform": jax.random.uniform(jax.random.split(key)[1], (3,)),
    "hessian": jax.hessian(lambda x: jnp.sum(x ** 3))(x[:3]),
    "inv": jnp.linalg.inv(jnp.eye(3) * 2 + 0.5),
    "fft": jnp.abs(jnp.fft.fft(x)),
    "gelu": jax.grad(lambda x: jnp.sum(jax.nn.gelu(x, approximate=False)))(x),
    "truncated": jax.random.truncated_normal(key, -1.0, 1.0, (4,)),
}
out = {k: [str(np.asarray(v).dtype), list(np.shape(v)), np.asarray(v).ravel().tolist()]
       for k, v in results.items()}
out["_backend"] = jax.default_backend()
out["_devices"] = [repr(d) for d in jax.devices()]
out["_jaxlib"] = any(m.partition(".")[0] in ("jaxlib", "scipy") for m in sys.modules)
out["_cache"] = f._cache_size()
print(json.dumps(out))
"""


# One process per device count (and with or without jaxlib) runs, in turn, the programs below
# that need NumPy devices of that count (JAX_PLATFORMS=numpy, JXKERNEL_CPU_DEVICES=n): the
# count is fixed at a process's start, but what they check is not a process's start, and each
# started its own interpreter (~0.55 s of CPU each: 16 programs, 4 processes). Each program
# runs in a fresh namespace with its own output captured; its last line is its JSON answer,
# an exception its traceback, raised in the test that sent it.
_WORKER = r"""
import contextlib, io, json, sys, traceback
for line in sys.stdin:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(json.loads(line), "<program>", "exec"), {"__name__": "__main__"})
        answer = {"json": out.getvalue().strip().splitlines()[-1]}
    except BaseException:   # noqa: BLE001 -- the test that sent the program fails with it
        answer = {"error": out.getvalue() + traceback.format_exc()}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""
_WORKERS = {}


def _on_numpy_devices(code: str, devices: int, without_jaxlib: bool = False):
    """The JSON object `code` prints last, run in the module's process of `devices` NumPy
    devices (started on first use), one whose imports of jaxlib fail if `without_jaxlib`."""
    worker = _WORKERS.get((devices, without_jaxlib))
    if worker is None:
        env = child_env({"JAX_PLATFORMS": "numpy", "JXKERNEL_CPU_DEVICES": str(devices)})
        worker = _WORKERS[devices, without_jaxlib] = subprocess.Popen(
            [sys.executable, "-c", (NO_JAXLIB if without_jaxlib else "") + _WORKER],
            cwd=locations.ROOT, env=env, text=True, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    worker.stdin.write(json.dumps(code) + "\n")
    worker.stdin.flush()
    line = worker.stdout.readline()
    assert line, f"the process of {devices} NumPy devices ended (exit {worker.wait()})"
    answer = json.loads(line)
    assert "error" not in answer, answer.get("error")
    return json.loads(answer["json"])


@pytest.fixture(autouse=True, scope="module")
def _numpy_device_workers_ended():
    yield
    for worker in _WORKERS.values():
        worker.stdin.close()
        worker.wait(timeout=60)
    _WORKERS.clear()


@pytest.fixture(scope="module")
def runs():
    without = run_json(NO_JAXLIB + PROGRAM, {"JAX_PLATFORMS": ""})
    with_xla = run_json(PROGRAM, {"JAX_PLATFORMS": "cpu"})
    return without, with_xla


def test_import_without_jaxlib_runs_on_the_numpy_backend(runs):
    without, with_xla = runs
    assert without["_jaxlib"] is False
    assert without["_backend"] == "numpy" and without["_devices"] == ["NumpyDevice(id=0)"]
    assert without["_cache"] == 2          # jit caches per signature there too
    assert with_xla["_backend"] == "cpu" and with_xla["_jaxlib"] is True


@pytest.mark.parametrize("name", ["eager", "jit", "jit_again", "grad", "vmap", "scan", "while",
                                  "cond", "bits", "normal", "uniform", "hessian", "inv",
                                  "fft", "gelu", "truncated"])
def test_values_without_jaxlib_match_xla(runs, name):
    (dtype, shape, values), (want_dtype, want_shape, want) = runs[0][name], runs[1][name]
    assert (dtype, shape) == (want_dtype, want_shape)
    got, want = np.asarray(values, dtype), np.asarray(want, want_dtype)
    if np.issubdtype(got.dtype, np.floating):
        assert_allclose_ulp(got, want, 8, scale=np.abs(want).max(), err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.fixture(autouse=True, scope="module")
def numpy_backend_stopped_after():
    """The tests here start the NumPy backend in this process; later tests in the same worker
    see the backends as a process that never chose it does (jax.backends(), live arrays)."""
    from jxkernel.xla import client
    started = "numpy" in client._backends
    yield
    if not started and config.jax_platforms != "numpy":
        client._backends.pop("numpy", None)


@pytest.fixture
def numpy_device():
    return jax.devices("numpy")[0]


def test_the_backend_and_its_device(numpy_device):
    assert repr(numpy_device) == "NumpyDevice(id=0)" and numpy_device.platform == "numpy"
    assert numpy_device.id == 0 and jax.device_count("numpy") == 1
    x = jax.device_put(np.arange(3.0, dtype=np.float32), numpy_device)
    assert x.device is numpy_device and x.platform == "numpy"
    assert type(x).__name__ == "ArrayImpl" and isinstance(x, jax.Array)
    assert x.sharding.device_set == {numpy_device}
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(x)[0] = 5.0                          # Arrays are immutable there too


def test_the_client_lists_every_device_as_jaxlibs(numpy_device):
    # colocated_python's serialization reads devices by id from every device of the client
    # (jaxlib's _get_all_devices); without it the NumPy backend raised an AttributeError
    # naming that method where JAX's own refusal of non-CPU devices is due
    client = numpy_device.client
    assert client._get_all_devices() == client.local_devices() == jax.devices("numpy")


def test_the_client_refuses_to_compile_a_module_saying_why(numpy_device):
    # autodidax compiles its own StableHLO with xla_bridge.get_backend().compile_and_load;
    # on the NumPy backend (JupyterLite) its learner got "'NumpyClient' object has no
    # attribute 'compile_and_load'"
    client = numpy_device.client
    for method in (client.compile_and_load, client.compile):
        with pytest.raises(NotImplementedError, match=r"compiling an MLIR module \(StableHLO\)"
                           r" with XLA .* is not available on the 'numpy' backend.*jax\.jit"):
            method("module {}", client.devices()[:1])


def test_a_users_primitive_without_a_numpy_rule_is_refused_under_jit_saying_why(numpy_device):
    # a Primitive with def_impl and no lowering (JAX's primitives guide, before it adds one):
    # eagerly its impl runs; jitted, XLA finds no lowering and the NumPy backend refuses it in
    # JAX's words, then what runs there (the learner got "NumPy evaluation rule for
    # 'multiply_add' not implemented"; api_test's test_unimplemented_interpreter_rules)
    from jxkernel.extend.core import Primitive
    p = Primitive("multiply_add_mine")
    p.def_impl(lambda x, y: np.add(np.multiply(x, y), y))
    p.def_abstract_eval(lambda x, y: x)
    with config.override("jax_platforms", "numpy"):
        assert float(p.bind(np.float32(2), np.float32(3))) == 9.0
        with pytest.raises(NotImplementedError, match=r"^MLIR translation rule for primitive "
                           r"'multiply_add_mine' not found \(in jit\(f\)\).*'numpy' backend.*"
                           r"def_impl.*mlir.register_lowering.*JAX_PLATFORMS=cpu"):
            def f(x):
                return p.bind(x, x)
            jax.jit(f)(np.float32(2))


USERS_PRIMITIVE = """
import json, numpy as np, jxkernel as jax
from jxkernel.extend.core import Primitive
from jxkernel.interpreters import mlir

def never(ctx, *args, **params):        # XLA's lowering: raises, so the NumPy backend runs the impl
    raise AssertionError("lowered")

multiply_add = Primitive("multiply_add")          # JAX's primitives guide, as a learner types it
multiply_add.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
multiply_add.def_abstract_eval(lambda x, y, z: x)
mlir.register_lowering(multiply_add, never, platform="cpu")
from jxkernel._jax._src import effects

class Logged(effects.Effect):
    pass

effects.lowerable_effects.add_type(Logged)      # unordered: a pmap may hold it
log, logged = [], Logged()
log_p = Primitive("log_mine")                     # jaxpr_effects_test's callback primitive
log_p.multiple_results = True
log_p.def_impl(lambda x, *, callback: (callback(x), [])[1])
log_p.def_effectful_abstract_eval(lambda x, *, callback: ([], {logged}))
mlir.register_lowering(log_p, never)
square_add = lambda a, b: multiply_add.bind(a, a, b)
out = {"jit": jax.jit(square_add)(np.float32(2), np.float32(10)).tolist(),
       "vector": jax.jit(square_add)(np.arange(3.0), np.ones(3)).tolist(),
       "pmap": jax.pmap(square_add)(np.arange(2.0), np.ones(2)).tolist()}
f = jax.jit(lambda x: log_p.bind(x, callback=lambda v: log.append(float(v))))
f(np.float32(2)); f(np.float32(3))
jax.pmap(lambda x: log_p.bind(x, callback=lambda v: log.append(v.tolist())))(np.arange(2.0))
out["log"] = log
from functools import partial
from jxkernel._jax._src import dispatch
compiled = Primitive("compiled_mine")             # lax_control_flow_test's: its impl compiles it
compiled.def_abstract_eval(lambda x: x)
mlir.register_lowering(compiled, never, platform="cpu")
compiled.def_impl(partial(dispatch.apply_primitive, compiled))
try:
    jax.jit(lambda x: compiled.bind(x))(1.0)
except NotImplementedError as e:
    out["compiled"] = str(e)
print(json.dumps(out))
"""


def test_a_users_primitive_with_def_impl_and_a_lowering_runs_its_impl_under_jit():
    # JAX's primitives guide: a Primitive with def_impl and an MLIR lowering rule. Under jit
    # XLA runs the lowering; the NumPy backend, which runs no MLIR, runs its impl on NumPy
    # values (it refused the primitive: "Call it outside jit"), in a pmap once per device
    # with that device's block (jaxpr_effects_test's callback primitive: no vmap rule; the
    # devices' calls in any order, an unordered effect's, as that test compares them)
    got = _on_numpy_devices(USERS_PRIMITIVE, 2, without_jaxlib=True)
    assert got["log"][:2] == [2.0, 3.0] and sorted(got.pop("log")[2:]) == [0.0, 1.0]
    # an impl that compiles the primitive again is refused, saying so (a RecursionError else)
    assert "its def_impl compiles it again (dispatch.apply_primitive)" in got.pop("compiled")
    assert got == {"jit": 14.0, "vector": [1.0, 2.0, 5.0], "pmap": [1.0, 2.0]}


def test_a_users_primitive_lowered_by_lower_fun_runs_under_jit(numpy_device):
    # mlir.register_lowering(p, mlir.lower_fun(fun)): the lowering is a traceable function, so
    # the NumPy backend runs its jaxpr (a Ref inside too: mutable_array_test's
    # test_what_if_you_lower_fun_something_with_internal_effects); it refused the primitive as
    # one without a NumPy rule. JAX 0.10.2 on its CPU gives [1, 3, 5] and [6, 8, 10]
    from jxkernel.extend.core import Primitive
    from jxkernel.interpreters import mlir
    p, q = Primitive("twice_plus_one_mine"), Primitive("ref_round_trip_mine")
    for prim in (p, q):
        prim.def_abstract_eval(lambda aval: aval)
    mlir.register_lowering(p, mlir.lower_fun(lambda x: x * 2 + 1, multiple_results=False))

    def with_ref(x):
        r = jax.new_ref(x)
        r[...] += 3
        return jax.freeze(r)
    mlir.register_lowering(q, mlir.lower_fun(with_ref, multiple_results=False))
    try:
        with config.override("jax_platforms", "numpy"):
            assert jax.jit(p.bind)(jnp.arange(3.0)).tolist() == [1.0, 3.0, 5.0]
            assert jax.jit(lambda x: q.bind(x) * 2)(jnp.arange(3.0)).tolist() == [6, 8, 10]
    finally:        # (the rule tables are global: tests/core checks every NumPy rule's cases)
        from jxkernel.core.primitive import lowering_rules, numpy_rules
        for prim in (p, q):
            numpy_rules.pop(prim, None)
            lowering_rules.pop(prim, None)


def test_jax_platforms_numpy_makes_it_the_default():
    with config.override("jax_platforms", "numpy"):
        assert jax.default_backend() == "numpy"
        assert jax.devices() == [jax.devices("numpy")[0]]
        assert jnp.ones(2).device.platform == "numpy"
    assert jax.default_backend() != "numpy" or config.jax_platforms == "numpy"


def test_jit_caches_per_signature_and_records_its_compiles(numpy_device):
    def scaled(x, n):
        return jnp.cos(x) * n
    f = jax.jit(scaled, static_argnums=1)
    x = jax.device_put(np.linspace(0, 1, 4, dtype=np.float32), numpy_device)
    before = compile_record.last_seq() + 1     # (last_seq() is the previous test's last event)
    first, again = f(x, 2), f(x, 2)
    f(x[:3], 2)
    f(x, 3)
    assert f._cache_size() == 3 and f.cache_hits() == 1
    events = [e for e in compile_record.events_since(before) if e.function == "scaled"]
    assert [e.backend for e in events] == ["numpy"] * 3
    assert events[0].reason == "first call" and "static" in events[2].reason
    assert first.device is numpy_device
    assert_allclose_ulp(np.asarray(first), np.cos(np.asarray(x)) * 2, 2)
    np.testing.assert_array_equal(np.asarray(first), np.asarray(again))


def test_eager_and_jit_agree_with_xla(numpy_device):
    if jax.default_backend() == "numpy":
        pytest.skip("the suite runs on the numpy backend: no XLA device to compare with")
    values = np.linspace(-3, 3, 11, dtype=np.float32)

    def fun(x):
        return jnp.log1p(jnp.exp(x)) * jnp.tanh(x) + jnp.cumsum(x) @ x
    runs = (fun, jax.jit(fun), jax.grad(lambda x: fun(x).sum()))
    want = [run(jnp.asarray(values)) for run in runs]
    with config.override("jax_platforms", "numpy"):    # (constants made inside go there too)
        got = [run(jax.device_put(values, numpy_device)) for run in runs]
    for g, w in zip(got, want):
        assert g.device is numpy_device and g.dtype == w.dtype
        assert_allclose_ulp(np.asarray(g), np.asarray(w), 8, scale=np.abs(w).max())


def test_donation_deletes_the_argument(numpy_device):
    x = jax.device_put(np.ones(3, np.float32), numpy_device)
    y = jax.jit(lambda x: x * 2, donate_argnums=0)(x)
    assert x.is_deleted() and not y.is_deleted()
    np.testing.assert_array_equal(np.asarray(y), [2.0, 2.0, 2.0])
    # its errors say where it went, as on XLA (xla/deleted.py): read, or given again
    why = ("It was donated to jit(<lambda>) as its argument 'x': use that call's result in "
           "its place, or do not donate it.")
    with pytest.raises(RuntimeError) as read:
        repr(x)
    assert str(read.value) == f"Array has been deleted with shape=float32[3]. {why}"
    donor = jax.jit(lambda v: v + 1, donate_argnums=0)
    donor(y)                                # y was read into NumPy above: that view goes too
    with pytest.raises(RuntimeError, match="It was donated to jit"):
        np.asarray(y)
    with pytest.raises(ValueError, match=r"^INVALID_ARGUMENT: Invalid buffer passed to "
                                         r"Execute\(\) as argument 0 .* It was donated to"):
        donor(y)
    z = jax.device_put(np.ones(3, np.float32), numpy_device)
    z.delete()                              # not a "Gone" buffer: JAX's error, then why
    with pytest.raises(RuntimeError, match=r"deleted with shape=float32\[3\]\. \.delete\(\) "
                                           r"was called on it\.$"):
        jax.jit(lambda v: v * 3)(z)


def test_dead_code_is_dropped_as_xla_drops_it(numpy_device):
    # keep_unused keeps the jaxpr's dead equations, but XLA's compiler drops them: a
    # pure_callback nothing reads is not called there, and not on the NumPy backend either
    calls = []

    def f(x):
        jax.pure_callback(lambda v: calls.append("pure") or v,
                          jax.ShapeDtypeStruct((), np.float32), x)
        jax.experimental.io_callback(lambda v: calls.append("io") or v,
                                     jax.ShapeDtypeStruct((), np.float32), x)
        return x * 2
    x = jax.device_put(np.float32(1), numpy_device)
    assert float(jax.jit(f, keep_unused=True)(x)) == 2.0 and calls == ["io"]


def test_the_client_lists_its_live_executables_and_refuses_a_donation_used_again(numpy_device):
    # as jaxlib's client: a jit's program is live until its cache lets it go
    client = numpy_device.client
    f = jax.jit(lambda v, w: v * w + 7.0)
    x = jax.device_put(np.float32([1, 2]), numpy_device)
    gc.collect()
    before = len(client.live_executables())
    f(x, x)
    assert len(client.live_executables()) == before + 1
    f.clear_cache()
    gc.collect()
    assert len(client.live_executables()) == before
    # XLA's runtime error where a donated Array is an argument again later in the same call
    g = jax.jit(lambda v, w: v + w, donate_argnums=0)
    with pytest.raises(RuntimeError, match=r"^INVALID_ARGUMENT: Attempt to use a buffer that "
                                           r"was previously donated in the same call to "
                                           r"Execute\(\) \(flattened argument 1, replica 0, "
                                           r"partition 0, first use: 0\)"):
        g(x, x)


def test_a_tokens_buffer_is_not_read_as_numpy():
    # jaxlib refuses a token's buffer as NumPy; so does the NumPy backend's (was an empty array)
    with config.override("jax_platforms", "numpy"):
        array = jax.lax.create_token()._buf
        # while copying one, as device_put does, reads none
        assert type(jax.device_put(jax.lax.create_token())).__name__ == "Token"
    assert array.devices() == {jax.devices("numpy")[0]}
    with pytest.raises(RuntimeError, match="^INVALID_ARGUMENT: Cannot convert a token-shape "
                                           "buffer to a numpy array.$"):
        array._value


def test_an_operation_of_no_operands_runs_on_the_backend_chosen_since():
    """iota and create_token take no operand to say where they run: after running on XLA's CPU,
    the same call with the NumPy backend chosen (jax_platforms, as `%jxbackend numpy`) runs
    there (the eager fast path's key had no device for them and ran the CPU program)."""
    if jax.default_backend() == "numpy":
        pytest.skip("the suite runs on the numpy backend: no XLA device to start from")
    first = jax.lax.iota(np.int32, 3).devices(), jax.lax.create_token()._buf.devices()
    with config.override("jax_platforms", "numpy"):
        there = jax.lax.iota(np.int32, 3).devices(), jax.lax.create_token()._buf.devices()
    back = jax.lax.iota(np.int32, 3).devices(), jax.lax.create_token()._buf.devices()
    numpy_device = jax.devices("numpy")[0]
    assert there == ({numpy_device}, {numpy_device})
    assert first == back == ({jax.devices()[0]}, {jax.devices()[0]})


def test_arrays_move_between_backends(numpy_device):
    if jax.default_backend() == "numpy":
        pytest.skip("the suite runs on the numpy backend: no XLA device to move to")
    on_cpu = jax.device_put(np.arange(4, dtype=np.int32))
    there = jax.device_put(on_cpu, numpy_device)
    back = jax.device_put(there, on_cpu.device)
    assert there.device is numpy_device and back.device == on_cpu.device
    np.testing.assert_array_equal(np.asarray(back), [0, 1, 2, 3])


def test_what_cannot_run_there_says_so(numpy_device):
    x = jax.device_put(np.ones((2, 3), np.float32), numpy_device)
    with config.override("jax_platforms", "numpy"):
        # JAX's error for too few devices, saying what to do on this backend
        with pytest.raises(ValueError, match="cannot select an axis to squeeze out(.|\n)*Set "
                                             "JXKERNEL_CPU_DEVICES=2 .* more NumPy devices"):
            jax.pmap(lambda v: v * 2)(x)
        from jxkernel import export
        with pytest.raises(NotImplementedError, match="jax.export is not available on the "
                                                      "'numpy' backend.*platforms=\\('cpu',\\)"):
            export.export(jax.jit(jnp.sin))(x)


def test_an_array_on_a_one_device_mesh(numpy_device):
    mesh = jax.make_mesh((1,), ("x",), devices=[numpy_device])
    x = jax.device_put(np.arange(4.0, dtype=np.float32), jax.sharding.NamedSharding(mesh, jax.P("x")))
    assert x.sharding.spec == jax.P("x") and x.device is numpy_device
    [shard] = x.addressable_shards
    assert shard.device is numpy_device and shard.index == (slice(None),)
    y = jax.jit(lambda v: v * 2 + 1)(x)
    assert y.sharding == x.sharding                 # one device: every layout is alike
    np.testing.assert_array_equal(np.asarray(y), [1.0, 3.0, 5.0, 7.0])
    total = jax.shard_map(lambda b: jax.lax.psum(b.sum(), "x"), mesh=mesh, in_specs=jax.P("x"),
                          out_specs=jax.P())(x)
    assert float(total) == 6.0


def test_a_mesh_of_numpy_devices_is_not_one_of_cpu_devices(numpy_device):
    if jax.default_backend() == "numpy":
        pytest.skip("the suite runs on the numpy backend: no XLA device to compare with")
    # (ids alike, 0: a jit's caches keyed by the one mesh ran the other's programs)
    numpy_mesh = jax.sharding.Mesh(np.array([numpy_device]), ("x",))
    cpu_mesh = jax.sharding.Mesh(np.array(jax.devices("cpu")[:1]), ("x",))
    assert numpy_mesh != cpu_mesh and numpy_mesh == jax.sharding.Mesh([numpy_device], ("x",))


# Four NumPy devices in a fresh process (the count is fixed when the backend starts): arrays
# over a mesh keep one block per device; pmap, its collectives and a jit with shardings run
# there (each answer as XLA's CPU gives it with JXKERNEL_CPU_DEVICES=4, checked by hand)
SEVERAL = """
import json, os, numpy as np, jxkernel as jax, jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.sharding import NamedSharding, PartitionSpec as P
out = {"devices": [str(d) for d in jax.devices()]}
mesh = jax.make_mesh((2, 2), ("a", "b"))
x = jax.device_put(np.arange(8.0, dtype=np.float32).reshape(4, 2), NamedSharding(mesh, P("a")))
out["blocks"] = [[str(s.device), s.data.tolist(), s.replica_id] for s in x.addressable_shards]
out["live"] = any(a is x for a in jax.live_arrays())
out["eager"] = [repr((x + 1).sharding.spec), (x + 1).tolist()]
f = jax.jit(lambda v: v.sum(0), out_shardings=NamedSharding(mesh, P("b")))
out["jit"] = [repr(f(x).sharding.spec), f(x).tolist(),
              [s.data.tolist() for s in f(x).addressable_shards]]
out["pmap"] = jax.pmap(lambda v: lax.psum(v, "i") - lax.axis_index("i"), axis_name="i")(
    np.arange(4.0)).tolist()
out["ppermute"] = jax.pmap(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 3), (3, 0)]),
                           axis_name="i")(np.arange(4.0)).tolist()
out["all_to_all"] = jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 0), axis_name="i")(
    np.arange(16.0).reshape(4, 4)).tolist()
out["gather"] = jax.pmap(lambda v: lax.all_gather(v, "i"), axis_name="i")(np.arange(4.0)).tolist()
d = jax.device_put(np.ones(4, np.float32), NamedSharding(mesh, P("a")))
jax.jit(lambda v: v * 2, donate_argnums=0)(d)
out["donated"] = d.is_deleted()
print(json.dumps(out))
"""


def test_several_numpy_devices_as_xla_simulates_cpu_devices():
    # without jaxlib, as in the browser (a path that reached for jaxlib's shardings failed there)
    got = _on_numpy_devices(SEVERAL, 4, without_jaxlib=True)
    assert got["devices"] == ["numpy:0", "numpy:1", "numpy:2", "numpy:3"]
    assert got["blocks"] == [["numpy:0", [[0, 1], [2, 3]], 0], ["numpy:1", [[0, 1], [2, 3]], 1],
                             ["numpy:2", [[4, 5], [6, 7]], 0], ["numpy:3", [[4, 5], [6, 7]], 1]]
    assert got["live"]
    assert got["eager"] == ["P('a', None)", [[1, 2], [3, 4], [5, 6], [7, 8]]]
    assert got["jit"] == ["P('b',)", [12, 16], [[12], [16], [12], [16]]]
    assert got["pmap"] == [6, 5, 4, 3] and got["ppermute"] == [3, 0, 1, 2]
    assert got["all_to_all"] == np.arange(16).reshape(4, 4).T.tolist()
    assert got["gather"] == [[0, 1, 2, 3]] * 4 and got["donated"]


def _cases_on_numpy_devices(cases: str, devices: int):
    """tests/data/`cases`.py's run(jax) on `devices` NumPy devices, in a process without
    jaxlib: its JSON answers, to compare with JAX's recorded ones."""
    return _on_numpy_devices(f"import json, jxkernel as jax, {cases}\n"
                             f"print(json.dumps({cases}.run(jax)))", devices, without_jaxlib=True)


def test_host_callbacks_in_a_pmap_are_called_per_device_as_jax():
    # a body that calls the host and reads no axis runs device by device (shard_map's NumPy
    # rule): it was batched over the devices, so pure_callback (no vmap_method) and io_callback
    # raised vmap's errors and a print in a while loop printed for devices whose loop had ended;
    # in a jit over a mesh a partitioned print printed the whole value once and
    # inspect_array_sharding was told one device's replicated sharding
    assert _cases_on_numpy_devices("numpy_pmap_callbacks_cases", 4) == \
        locations.recorded("numpy_pmap_callbacks_reference.json")["cases"]


def test_collectives_with_axis_index_groups_in_a_pmap_as_jax():
    # XLA's replica groups on the NumPy devices (their batching over the devices takes them):
    # psum of groups of several sizes, pmax, all_gather, psum_scatter, all_to_all and a
    # gradient through a grouped all_gather; they raised vmap's "axis_index_groups not
    # supported in vmap collectives", which vmap itself still raises, as JAX's
    assert _cases_on_numpy_devices("numpy_pmap_groups_cases", 4) == \
        locations.recorded("numpy_pmap_groups_reference.json")["cases"]


def test_a_partitioned_debug_callback_is_called_per_device_as_jax():
    # jax.debug.callback(partitioned=True) in a jit over 2 NumPy devices: once per device with
    # its block, laid out as the arguments' shardings say (tests/lax/test_debug_callback_
    # partitioned.py's cases and JAX's answers); it was called once, with the whole value
    assert _cases_on_numpy_devices("debug_callback_partitioned_cases", 2) == \
        locations.recorded("debug_callback_partitioned_reference.json")["cases"]


UNREDUCED = """
import json
import numpy as np
import jxkernel as jax, jxkernel.numpy as jnp
P = jax.P
mesh = jax.make_mesh((4, 2), ('X', 'Y'))
jax.set_mesh(mesh)
value = np.arange(32.0, dtype=np.float32).reshape(8, 4)
cases = {"host": (None, P('X', None, unreduced={'Y'})),
         "replicated": (P(), P('X', None, unreduced={'Y'})),
         "X": (P('X'), P('X', None, unreduced={'Y'})),
         "XY": (P('X', 'Y'), P('X', None, unreduced={'Y'})),
         "YX": (P('Y', 'X'), P('X', None, unreduced={'Y'})),
         "XY_all": (P('X', 'Y'), P(unreduced={'X', 'Y'})),
         "XY_whole": (P('X', 'Y'), P(None, None, unreduced={'Y'}))}
out = {}
for name, (came, target) in cases.items():
    x = value if came is None else jax.device_put(jnp.asarray(value), came)
    y = jax.device_put(x, target)
    out[name] = [[np.asarray(s.data).tolist() for s in y.addressable_shards],
                 np.asarray(jax.reshard(y, P())).tolist()]     # (summed: reading y is refused)
print(json.dumps(out))
"""


def test_unreduced_shards_are_xlas_summands():
    # device_put to P(..., unreduced={'Y'}): each device along Y holds a summand of its block,
    # split as XLA's CPU splits it (parallel.md prints them); the NumPy backend gave every
    # device the whole block, so the shards added up to twice the value
    ref = locations.recorded("unreduced_shards_reference.json")
    got = run_json(NO_JAXLIB + UNREDUCED, {"JAX_PLATFORMS": "numpy", "JXKERNEL_CPU_DEVICES": "8"})
    for name, case in ref["cases"].items():
        shards, logical = got[name]
        assert shards == case["shards"], name
        assert logical == ref["value"], name        # resharded, the sum is the value


COUNT = """
import json, jxkernel as jax
n = len(jax.devices())
try:
    jax.config.update("jax_num_cpu_devices", n + 1)
    late = None
except RuntimeError as e:
    late = str(e)
print(json.dumps([jax.default_backend(), n, late]))
"""


@pytest.mark.parametrize("env, count", [
    ({"XLA_FLAGS": "--xla_force_host_platform_device_count=3"}, 3),
    # jax_num_cpu_devices overrides the flag, as in JAX
    ({"XLA_FLAGS": "--xla_force_host_platform_device_count=3", "JXKERNEL_CPU_DEVICES": "2"}, 2),
    ({}, 1)])
def test_the_device_count_is_xlas_cpu_knobs(env, count):
    env = {"JAX_PLATFORMS": "numpy", "XLA_FLAGS": "", "JXKERNEL_CPU_DEVICES": "", **env}
    backend, n, late = run_json(COUNT, env)
    assert (backend, n) == ("numpy", count)
    assert "should be updated before backends are initialized" in late    # (JAX's words)
    assert late.endswith("immediately after `import jax`.")   # JAX's alone: a card advises


def test_lowered_text_is_the_cpu_module(numpy_device):
    x = jax.device_put(np.ones(3, np.float32), numpy_device)
    lowered = jax.jit(lambda v: jnp.sin(v) * 2).lower(x)
    assert "stablehlo.sine" in lowered.as_text()
    np.testing.assert_array_equal(np.asarray(lowered.compile()(x)),
                                  np.asarray(jnp.sin(x) * 2))


def test_lowered_text_over_a_one_device_mesh_is_the_cpu_module(numpy_device):
    # a sharding constraint inside: the program is partitioned over the mesh, and its text is
    # XLA's CPU module for it, as on XLA (lax_test's test_ragged_dot_out_sharding: the NumPy
    # backend lowered it as one device's and raised NeedsMesh)
    if jax.default_backend() == "numpy":
        pytest.skip("the suite runs on the numpy backend: no XLA device to compare with")
    texts = []
    for device in (numpy_device, jax.devices("cpu")[0]):
        mesh = jax.make_mesh((1,), ("x",), devices=[device],
                             axis_types=(jax.sharding.AxisType.Auto,))
        f = jax.jit(lambda v: jax.lax.with_sharding_constraint(
            jnp.sin(v), jax.NamedSharding(mesh, jax.P("x"))) * 2)
        lowered = f.lower(jax.device_put(np.ones(4, np.float32), device))
        texts.append(lowered.as_text())
    assert "sdy.sharding_constraint" in texts[1] or "mhlo.sharding" in texts[1], texts[1]
    assert texts[0] == texts[1]


NOTEBOOK = """
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
shell = InteractiveShell.instance()
cells = ["%load_ext jxkernel", "import jxkernel as jax, jxkernel.numpy as jnp",
         "f = jax.jit(lambda x: jnp.sin(x) * 2)\\nf(jnp.arange(3.0))", "f(jnp.arange(4.0))",
         "%jaxpr f(jnp.arange(3.0))", "%%jit\\nz = jnp.ones(3) * 3",
         "import jxkernel.scipy.linalg as sl\\nsl.solve(jnp.eye(2) * 2, jnp.ones(2))",
         "jax.random.uniform(jax.random.key(0), (2,))", "%jxbackend"]
failed, shown = [], []
for cell in cells:
    with capture_output() as cap:
        result = shell.run_cell(cell)
    if not result.success:
        failed.append([cell, repr(result.error_in_exec or result.error_before_exec)])
    shown.append(cap.stdout + "".join(o.data.get("text/plain", "") for o in cap.outputs))
print(json.dumps({"failed": failed, "shown": shown, "z": shell.user_ns["z"].tolist(),
                  "jaxlib": any(m.split(".")[0] == "jaxlib" for m in sys.modules)}))
"""


def test_the_notebook_layer_without_jaxlib():
    pytest.importorskip("IPython")
    pytest.importorskip("ipywidgets")
    got = run_json(NO_JAXLIB + "import json\n" + NOTEBOOK, {"JAX_PLATFORMS": ""})
    assert got["failed"] == [] and got["jaxlib"] is False and got["z"] == [3.0, 3.0, 3.0]
    shown = got["shown"]
    assert "traced again" in shown[3]       # the recompilation note (NumPy compiles nothing)
    assert "b:f32[3] = sin a" in shown[4]                     # %jaxpr
    # %%jit's note: the cell was traced (nothing compiles on NumPy), its last phase "prepare"
    assert "⚙ traced cell[" in shown[5] and "compiled" not in shown[5], shown[5]
    assert "numpy:0" in shown[5] and "prepare" in shown[5]
    assert "numpy:0" in shown[8]                              # the backend selector


# What XLA's CPU gives for a float32 subnormal (1e-40) and 1: arithmetic reads it as zero and
# writes zero for one (DAZ/FTZ); bit operations, selects and tanh's tiny-argument branch pass
# it through. The same bits on the NumPy backend, eagerly and under jit.
_SUB = np.float32(1e-40)
_SUBNORMAL_CASES = [
    (jnp.abs, [_SUB, 1.0]),
    (jnp.negative, [-_SUB, -1.0]),
    (jnp.tanh, [_SUB, np.tanh(np.float32(1))]),
    (lambda x: jax.lax.select(x > 2, x * 0, x), [_SUB, 1.0]),
    (jnp.log, [-np.inf, 0.0]),
    (jnp.sqrt, [0.0, 1.0]),
    (jnp.sign, [0.0, 1.0]),
    (lambda x: x * 2, [0.0, 2.0]),
    (lambda x: (x > 0).astype(np.float32), [0.0, 1.0]),
    # the total order (sort's comparisons) compares bits: 0.0 is below the subnormal there
    (lambda x: jax.lax.lt_to_p.bind(jnp.zeros_like(x), x).astype(np.float32), [1.0, 1.0]),
    # a constant keeps its bits as an input does: spacing's 1.4e-45 passes copysign's abs and
    # neg (JAX's testSpacingSubnormals: under jit the NumPy backend flushed it to 0.0) ...
    (jnp.spacing, [1.4e-45, np.spacing(np.float32(1))]),
    # ... and arithmetic reads a subnormal constant as zero
    (lambda x: x * np.float32(1e-45) + np.float32(1e-40), [0.0, 0.0]),
]


@pytest.mark.parametrize("case", range(len(_SUBNORMAL_CASES)))
def test_subnormals_are_read_and_written_as_xla_does(numpy_device, case):
    f, want = _SUBNORMAL_CASES[case]
    want = np.float32(want)
    # XLA's CPU flushes subnormals where a GPU's XLA keeps them: its CPU in the GPU tier too
    xla = jax.devices("cpu")[0] if gpu_tier.ON_GPU else jax.devices()[0]
    for device in {xla, numpy_device}:
        x = jax.device_put(np.float32([_SUB, 1.0]), device)
        for run in (f, jax.jit(f)):
            got = np.asarray(run(x))
            assert got.dtype == np.float32
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32),
                                          err_msg=f"{device} {run}")
    # an int32 bitcast to float32 keeps its bits: the smallest subnormal
    one = jax.device_put(np.int32(1), numpy_device)
    assert np.asarray(jax.lax.bitcast_convert_type(one, np.float32)) == np.float32(1.4e-45)


# bfloat16 the same: XLA's CPU computes it in float32, widened by moving bits (the same
# exponent range), so a bfloat16 subnormal is a float32 one there, read and written as zero
# by arithmetic (the NumPy backend kept it: sinh(2**-128) was 2**-128, 2**-128 > 0 True).
# tan, as sin, returns a tiny argument itself (float32's too: the backend gave 0.0) at XLA's
# default code, which the backend follows (the suite's loop emitters flush it: 0.0).
_SUBNORMAL_BFLOAT16_CASES = [
    (jnp.sinh, [0.0, -0.0, 1.171875]),
    (jnp.sqrt, [0.0, -0.0, 1.0]),              # (-2**-127 read as -0.0: no NaN)
    (jnp.sign, [0.0, -0.0, 1.0]),
    (jnp.floor, [0.0, -0.0, 1.0]),
    (lambda x: x * 2, [0.0, -0.0, 2.0]),
    (lambda x: (x > 0).astype(x.dtype), [0.0, 0.0, 1.0]),
    (jnp.tan, [2.0 ** -128, -(2.0 ** -127), 1.5546875]),
    (lambda x: x.astype(np.float32), [2.0 ** -128, -(2.0 ** -127), 1.0]),
]


@pytest.mark.parametrize("case", range(len(_SUBNORMAL_BFLOAT16_CASES)))
def test_bfloat16_subnormals_are_read_and_written_as_xla_does(numpy_device, case,
                                                              xla_default_code):
    f, want = _SUBNORMAL_BFLOAT16_CASES[case]
    xla = jax.devices("cpu")[0] if gpu_tier.ON_GPU else jax.devices()[0]
    values = np.float32([2.0 ** -128, -(2.0 ** -127), 1.0]).astype(jnp.bfloat16)
    for device in {xla, numpy_device}:
        x = jax.device_put(values, device)
        for run in (f, jax.jit(f)):
            got = np.asarray(run(x))
            bits = np.dtype(f"u{got.itemsize}")
            np.testing.assert_array_equal(got.view(bits),
                                          np.float32(want).astype(got.dtype).view(bits),
                                          err_msg=f"{device} {run}")


def test_bfloat16_widened_to_float64_reads_a_subnormal_as_zero(numpy_device):
    # XLA widens bfloat16 to float64 through float32, whose widening reads a subnormal as zero
    # (to float32 it moves bits and keeps it, above); float8_e8m0fnu's 2**-127 it keeps
    xla = jax.devices("cpu")[0] if gpu_tier.ON_GPU else jax.devices()[0]
    values = np.float32([2.0 ** -128, -(2.0 ** -127), 1.0]).astype(jnp.bfloat16)
    with jax.enable_x64(True):
        for device in {xla, numpy_device}:
            for dtype in (np.float64, np.complex128):
                x = jax.device_put(values, device)
                got = np.asarray(jax.jit(lambda x: x.astype(dtype))(x))
                assert got.dtype == dtype
                np.testing.assert_array_equal(np.real(got), [0.0, -0.0, 1.0], err_msg=str(device))
                assert list(np.signbit(np.real(got))) == [False, True, False]


# gaps JAX 0.10.2's own test files found on the NumPy backend (conformance/jax_tests, side
# jxkernel-numpy), each held against the answer NumPy's float32 or the shapes alone give

@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float8_e4m3fn"])
def test_narrow_floats_sort_with_nans_last(numpy_device, dtype):
    # ml_dtypes' own argsort left NaNs in place and the numbers around them unsorted, so
    # jnp.sort, argsort and nanmedian of bfloat16 were wrong (JAX's testMedian: nanmedian 3.48
    # for 0.33); the keys are compared as float32, which holds each value exactly
    dtype = jnp.dtype(dtype)
    values = np.array([3, np.nan, 1, -2, np.nan, 0.5, -0.0, 2], np.float32).astype(dtype)
    x = jax.device_put(values, numpy_device)
    want = np.sort(values.astype(np.float32))
    for run in (jnp.sort, jax.jit(jnp.sort)):
        got = run(x)
        assert got.dtype == dtype
        np.testing.assert_array_equal(np.asarray(got).astype(np.float32), want)
    np.testing.assert_array_equal(np.asarray(jnp.argsort(x)), [3, 6, 5, 2, 7, 0, 1, 4])
    assert float(jnp.nanmedian(x)) == 0.75       # of -2, -0, 0.5, 1, 2, 3


@pytest.mark.parametrize("shape, axes", [((0, 4), (1,)), ((0, 3, 2), (1, 2)), ((2, 0, 3), (2,))])
def test_sum_over_a_few_elements_with_an_empty_kept_axis(numpy_device, shape, axes):
    # the short sums (added one after another, as XLA's CPU does) reshaped with -1, which an
    # empty kept axis leaves nothing to infer from: jnp.sum(zeros((0, 4)), axis=1) raised
    x = jax.device_put(np.ones(shape, np.float32), numpy_device)
    for run in (jnp.sum, jax.jit(jnp.sum, static_argnums=1)):
        got = run(x, axes)
        assert got.shape == tuple(n for d, n in enumerate(shape) if d not in axes)
        assert got.dtype == np.float32 and got.size == 0


def test_arithmetic_inside_a_program_writes_subnormals_as_zeros(numpy_device):
    # XLA's CPU flushes every arithmetic result of a compiled program (FTZ), in loop bodies
    # too: JAX 0.10.2 gives [0, 1] for each of these under jit (x * y is 1e-40 before * w);
    # the NumPy backend flushed a program's inputs and results only
    def f(x, y, w):
        return x * y * w
    programs = (f, lambda *a: jax.lax.scan(lambda c, v: (c, f(*v)), 0.0, a)[1],
                lambda x, y, w: jax.lax.fori_loop(0, 1, lambda i, v: f(v, y, w), x),
                lambda *a: jax.lax.cond(True, f, lambda *v: v[0], *a))
    args = [jax.device_put(np.float32(v), numpy_device)
            for v in ([1e-20, 1.0], [1e-20, 1e-20], [1e20, 1e20])]
    for program in programs:
        np.testing.assert_array_equal(np.asarray(jax.jit(program)(*args)), [0.0, 1.0])
    # and what it did to a learner: grad of random.gamma at a small alpha was inf where a
    # sample is 0.0 (an intermediate 1e-40 divided); JAX's testGammaGrad expects 0 there
    alphas = jax.device_put(np.full((100,), 1e-3, np.float32), numpy_device)
    key = jax.random.key(0)
    grad = np.asarray(jax.grad(lambda a: jax.random.gamma(key, a).sum())(alphas))
    zero = np.asarray(jax.random.gamma(key, alphas)) == 0
    assert zero.any() and np.all(grad[zero] == 0) and np.all(np.isfinite(grad))


def test_a_programs_results_never_share_its_arguments_memory(numpy_device):
    # XLA writes each result (without donation) in a buffer of its own; the NumPy backend
    # handed back an argument's ndarray, or a view of it, from jit(jnp.asarray) or a reshape
    # (JAX's testArrayCopy: unsafe_buffer_pointer equal), so DLPack's consumers of the result
    # could write into the argument
    x = jax.device_put(np.arange(6, dtype=np.float32), numpy_device)
    assert jnp.asarray(x).unsafe_buffer_pointer() == x.unsafe_buffer_pointer()   # no program
    for program in (jnp.asarray, jnp.copy, lambda a: a.reshape(2, 3), lambda a: a[:3],
                    lambda a: (a, a)):
        for out in jax.tree.leaves(jax.jit(program)(x)):
            assert out.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()
            assert not np.shares_memory(np.asarray(out), np.asarray(x))
    y = x.reshape(3, 2)                                        # eager too
    assert not np.shares_memory(np.asarray(y), np.asarray(x))


def test_jitted_jvp_of_a_custom_vjp_is_jaxs_type_error(numpy_device):
    # XLA's lowering of `custom_lin` raises JAX's TypeError (custom_api_test's
    # test_jvp_error); the NumPy backend refused the program for a missing rule instead
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)
    f.defvjp(lambda x: (f(x), jnp.cos(x)), lambda cos_x, g: (2 * cos_x * g,))
    with config.override("jax_platforms", "numpy"):
        with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                            r"custom_vjp function"):
            jax.jvp(jax.jit(f), (3.,), (1.,))


def test_a_donation_no_result_takes_is_kept_with_jaxs_warning(numpy_device):
    # as XLA's lowering (JAX's _set_up_aliases): a donated input no result of its shape and
    # dtype (or size) takes is not donated, and jit warns (api_test's
    # test_jit_donate_warning_raised); the NumPy backend deleted every donated input, silently
    if jax.default_backend() == "numpy":
        pytest.skip("the suite runs on the numpy backend: no XLA device to compare with")

    def run(device):
        x = jax.device_put(np.float32([1, 2]), device)
        y = jax.device_put(np.int32([1, 2]), device)
        seen = []
        for f in (lambda x, y: x.sum() + jnp.float32(y.sum()), lambda x, y: (x * 2, y.sum())):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = jax.jit(f, donate_argnums=(0, 1))(x, y)
            seen.append(([np.asarray(o).tolist() for o in jax.tree.leaves(out)],
                         [str(w.message) for w in caught], x.is_deleted(), y.is_deleted()))
        return seen
    ours, xlas = run(numpy_device), run(jax.devices("cpu")[0])
    assert ours == xlas, (ours, xlas)
    assert ours[0][1] and "Some donated buffers were not usable: float32[2], int32[2]" \
        in ours[0][1][0]


def test_debug_prints_in_a_batched_while_as_on_xla(numpy_device, capsys):
    # debug.print hands the callback Arrays, as XLA's host call (a pytree's values printed as
    # numpy's `array(2, ...)`: debugging_primitives_test's
    # test_can_stage_out_ordered_print_with_pytree), and a while whose predicate vmap batched
    # evaluates it again after the body, as XLA's lowering (`while/body_pred`): a print in the
    # cond printed once per step (test_can_print_in_batched_while_cond1)
    if jax.default_backend() == "numpy":
        pytest.skip("the suite runs on the numpy backend: no XLA device to compare with")

    def staged(x):
        jax.debug.print("x: {}", dict(foo=x), ordered=True)

    def loop(x):
        def cond(x):
            jax.debug.print("x: {x}", x=x, ordered=False)
            return x < 3
        return jax.lax.while_loop(cond, lambda x: x + 1, x)

    printed = []
    for device in (numpy_device, jax.devices("cpu")[0]):
        jax.jit(staged)(jax.device_put(np.int32(2), device))
        out = jax.jit(jax.vmap(loop))(jax.device_put(np.arange(2, dtype=np.int32), device))
        jax.effects_barrier()
        printed.append((capsys.readouterr().out, np.asarray(out).tolist()))
    assert printed[0] == printed[1]
    assert printed[0][0].startswith("x: {'foo': Array(2, dtype=int32)}\nx: 0\nx: 1\nx: 0\n")


def test_an_ordered_print_over_several_numpy_devices_is_refused_as_on_xla():
    # JAX's ValueError, as XLA's lowering raises it (debugging_primitives_test's
    # test_ordered_print_not_supported_in_pmap); the NumPy backend printed
    got = _on_numpy_devices("""
import json, jxkernel as jax, jxkernel.numpy as jnp
f = jax.pmap(lambda x: jax.debug.print("{}", x, ordered=True))
try:
    f(jnp.arange(2)); said = None
except ValueError as e:
    said = str(e)
print(json.dumps({"said": said}))
""", 2)
    assert (got["said"] or "").startswith(
        "The following ordered effects are not supported for more than 1 device: "
        "[OrderedDebugEffect]"), got


def test_pmap_out_axes_none_keeps_each_devices_value_as_jax():
    # pmap's out_axes=None of a value each device computed differently (unchecked, as JAX's),
    # and a jitted shard_map's out_specs=P() without check_vma: each shard holds its device's
    # value, the Array's value is device 0's, as on XLA (every shard held device 0's:
    # pmap_test's test_pmap_array_in_axes_out_axes)
    assert _cases_on_numpy_devices("numpy_pmap_out_axes_cases", 4) == \
        locations.recorded("numpy_pmap_out_axes_reference.json")["cases"]


def test_device_put_to_another_layout_names_the_value_and_what_to_do(numpy_device):
    """A Format of a layout other than row-major is refused there (NumPy's arrays are
    row-major): the error names the leaf, its type, the layout asked for and what to do."""
    from jxkernel.experimental.layout import Format, Layout
    column = Format(Layout((1, 0)), jax.sharding.SingleDeviceSharding(numpy_device))
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    for value, target, name in ((x, column, "x"), ({"w": x}, {"w": column}, r"x\['w'\]")):
        with pytest.raises(NotImplementedError, match=(
                rf"device_put of {name} \(float32\[8,2\]\) to Format\(layout=Layout\("
                r"major_to_minor=\(1, 0\).*a layout other than row-major \(major_to_minor="
                r"\(0, 1\)\) is not available on the 'numpy' backend.*put it row-major "
                r"instead \(device_put\(x, fmt.sharding\).*JAX_PLATFORMS=cpu")):
            jax.device_put(value, target)
    # (its sharding alone puts it: the same values)
    np.testing.assert_array_equal(jax.device_put(x, column.sharding), x)


def test_a_check_not_checkified_has_the_checks_line_as_its_cause_as_on_xla(numpy_device):
    """XLA's lowering refuses a checkify.check that checkify did not functionalize, its cause
    (JaxStackTraceBeforeTransformation) at the check's line; the NumPy backend raised the same
    ValueError with no cause, and the error card named the call (tests/views/
    test_error_card_lines.py under --backend numpy)."""
    import traceback
    from jxkernel.core.source_info import JaxStackTraceBeforeTransformation
    from jxkernel.experimental import checkify

    def f(x):
        checkify.check(x > 0, "x needs to be positive")      # the cause's line
        return x

    with pytest.raises(ValueError, match="checkify.check which was not functionalized") as e:
        jax.jit(f, device=numpy_device)(np.float32(1))
    cause = e.value.__cause__
    assert isinstance(cause, JaxStackTraceBeforeTransformation)
    (*_, last) = traceback.extract_tb(cause.__traceback__)
    assert (last.name, last.lineno) == ("f", f.__code__.co_firstlineno + 1)


def test_a_donated_buffer_takes_its_result_in_place_as_xla_aliases_it(numpy_device):
    # XLA writes a result aliased to a donated input (a Ref's final value, a result of the
    # donated argument's type) into that input's buffer: a jitted update of a Ref keeps its
    # address (JAX's array_refs page, cell 16). The NumPy backend wrote a new ndarray.
    with jax.default_device(numpy_device):
        x_ref = jax.new_ref(jnp.arange(3.0))

        @jax.jit
        def sin_inplace(x_ref):
            x_ref[...] = jnp.sin(x_ref[...])

        where = x_ref.unsafe_buffer_pointer()
        sin_inplace(x_ref)
        assert x_ref.unsafe_buffer_pointer() == where
        assert_allclose_ulp(np.asarray(x_ref[...]), np.sin(np.float32([0, 1, 2])), 1)
        jax.jit(lambda r: r[...] * 2)(x_ref)          # a Ref only read keeps it too
        assert x_ref.unsafe_buffer_pointer() == where

        a, b = jax.new_ref(jnp.arange(3.0)), jax.new_ref(jnp.arange(3.0) + 10)
        places = a.unsafe_buffer_pointer(), b.unsafe_buffer_pointer()

        @jax.jit
        def swap(a, b):            # each result is the other's donated input: read first
            a[...], b[...] = b[...], a[...]
        swap(a, b)
        assert (a.unsafe_buffer_pointer(), b.unsafe_buffer_pointer()) == places
        assert np.asarray(a[...]).tolist() == [10, 11, 12] and np.asarray(b[...]).tolist() == \
            [0, 1, 2]
    x = jax.device_put(np.arange(3, dtype=np.float32), numpy_device)
    where = x.unsafe_buffer_pointer()
    y = jax.jit(lambda v: v * 2, donate_argnums=0)(x)
    assert x.is_deleted() and y.unsafe_buffer_pointer() == where
    assert np.asarray(y).tolist() == [0, 2, 4]


def test_a_donated_buffer_seen_elsewhere_is_not_written(numpy_device):
    # where the donated ndarray is seen by something else (the user's NumPy view of the Array,
    # another Array holding it since a commit), its result is a new ndarray: what they see
    # stays as it was (XLA, too, writes a new buffer while a NumPy view holds the donated one)
    double = jax.jit(lambda v: v * 2, donate_argnums=0)
    x = jax.device_put(np.arange(3, dtype=np.float32), numpy_device)
    seen, tail = np.asarray(x), np.asarray(x)[1:]
    y = double(x)
    assert seen.tolist() == [0, 1, 2] and tail.tolist() == [1, 2]
    assert y.unsafe_buffer_pointer() != seen.ctypes.data and np.asarray(y).tolist() == [0, 2, 4]
    del seen, tail
    with jax.default_device(numpy_device):
        x = jnp.arange(3.0)                            # uncommitted
    other = jax.device_put(x, numpy_device)            # committed: the same ndarray re-wrapped
    assert other is not x and other.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    double(x)
    assert np.asarray(other).tolist() == [0, 1, 2]


def test_a_deleted_or_donated_arrays_buffer_questions_raise_as_jaxlibs(numpy_device):
    """JAX 0.10.2 (tests/data/deleted_arrays_reference.json): a `.delete()`d Array's
    `on_device_size_in_bytes()` and `unsafe_buffer_pointer()` raise jaxlib's JaxRuntimeError,
    a donated one's size is still its size and its pointer raises. The NumPy backend raised
    the plain RuntimeError of a deleted read for all four, the donated size included."""
    from jxkernel.xla.client import JaxRuntimeError
    gone = jax.device_put(np.arange(3.0, dtype=np.float32), numpy_device)
    gone.delete()
    for method, said in [("on_device_size_in_bytes", r"GetOnDeviceSizeInBytes\(\) called on"),
                         ("unsafe_buffer_pointer", r"UnsafeBufferPointer\( called on")]:
        with pytest.raises(JaxRuntimeError, match=f"^INVALID_ARGUMENT: {said} deleted or "
                           r"donated buffer\. \.delete\(\) was called on it\.$"):
            getattr(gone, method)()
    donated = jax.device_put(np.arange(3.0, dtype=np.float32), numpy_device)
    jax.jit(lambda a: a * 2, donate_argnums=0)(donated)
    assert donated.is_deleted() and donated.platform == "numpy"
    assert donated.on_device_size_in_bytes() == 12
    with pytest.raises(JaxRuntimeError, match=r"^INVALID_ARGUMENT: Buffer has been deleted or "
                       r"donated\. It was donated to jit\(<lambda>\) as its argument 'a'"):
        donated.unsafe_buffer_pointer()


def test_the_device_addresses_the_memory_kinds_of_xlas_cpu(numpy_device):
    """JAX 0.10.2's CPU device addresses "device, pinned_host, unpinned_host" (tests/data/
    extend_experimental_reference.json): a sharding names a host memory, and device_put
    puts a value there (tests/sharding/test_memory_kinds.py). The NumPy device had only "device": the sharding
    itself raised "Could not find memory addressable by device numpy"."""
    assert [m.kind for m in numpy_device.addressable_memories()] == \
        ["device", "pinned_host", "unpinned_host"]
    assert repr(numpy_device.default_memory()) == "Memory(kind=device)"
    pinned = jax.sharding.SingleDeviceSharding(numpy_device).with_memory_kind("pinned_host")
    assert repr(pinned) == ("SingleDeviceSharding(device=NumpyDevice(id=0), "
                            "memory_kind=pinned_host)")
    x = jax.device_put(np.arange(3.0, dtype=np.float32), numpy_device)
    # (device_put there places it: a buffer whose placement names that memory, typed Host)
    assert jax.device_put(x, pinned).sharding.memory_kind == "pinned_host"
    with pytest.raises(ValueError, match="can address the following memory kinds: device, "
                                         "pinned_host, unpinned_host. Got memory kind: bogus"):
        pinned.with_memory_kind("bogus")


def test_device_put_between_meshes_of_the_same_devices_passes_the_transfer_guard():
    """JAX 0.10.2 moves the blocks between the devices (tests/data/pjit_array_reference.json's
    "reordered put" cases, transfer_guard('disallow_explicit')); the NumPy backend put the
    global value anew, a host-to-device transfer the guard refused."""
    got = _on_numpy_devices("""
import json, numpy as np, jxkernel as jax
from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
dev = jax.devices()
mesh1 = Mesh(np.array(dev).reshape(2, 2), ("x", "y"))
mesh2 = Mesh(np.array(dev[::-1]).reshape(2, 2), ("x", "y"))
x = jax.device_put(np.arange(16).reshape(8, 2), NamedSharding(mesh1, P("x", "y")))
with jax.transfer_guard("disallow_explicit"):
    y = jax.device_put(x, NamedSharding(mesh2, P("x")))
shards = sorted((s.device.id, s.data.tolist()) for s in y.addressable_shards)
print(json.dumps([y.tolist(), shards]))
""", 4)
    rows = [[2 * i, 2 * i + 1] for i in range(8)]
    assert got == [rows, [[0, rows[4:]], [1, rows[4:]], [2, rows[:4]], [3, rows[:4]]]]


def test_a_scatter_in_an_eager_shard_map_keeps_each_devices_block():
    """A scatter into a constant at varying indices varies as its indices do: JAX 0.10.2 puts
    the operand and updates through pvary first (its jaxpr, printed by JAX for this program:
    `r:f32[1,3]{V:data} = scatter-add[...] p n q` with `p = pvary b`) and gives [[1, 1, 0],
    [0, 0, 2]]. Typed unvarying (its combiner jaxpr read as a call's body), the eager body's
    scatter was joined as device 0's block on both (jnp.histogram in a shard_map)."""
    got = _on_numpy_devices("""
import json, numpy as np, jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2,), ("data",))
x = jax.device_put(np.array([[0, 1], [2, 2]]), NamedSharding(mesh, P("data")))
f = jax.shard_map(lambda v: jnp.zeros((1, 3)).at[0, v[0]].add(1.0), mesh=mesh,
                  in_specs=P("data"), out_specs=P("data"))
text = str(jax.make_jaxpr(f)(x))
print(json.dumps([f(x).tolist(), jax.jit(f)(x).tolist(),
                  "f32[1,3]{V:data} = scatter-add" in text]))
""", 2)
    assert got == [[[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]]] * 2 + [True]


def test_async_collectives_and_a_reduced_gather_run_in_a_shard_map_body():
    """A staged `psum_start`'s start and done, and all_gather(to='reduced'), in a shard_map
    body under jit, give JAX 0.10.2's values (tests/data/async_collectives_reference.json).
    The NumPy backend batches the body over the devices: the start and done had no batching
    rule there (NotImplementedError), and the reduced gather took vmap's refusal (JAX has no
    vmap of it, but XLA runs it in a shard_map)."""
    got = _on_numpy_devices("""
import json, jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.sharding import PartitionSpec as P
from jxkernel._src.lax.parallel import all_gather_start, psum_start
mesh = jax.make_mesh((2,), ("i",), axis_types=(jax.sharding.AxisType.Explicit,))
out = []
with jax.set_mesh(mesh):
    x = jnp.arange(8.0, out_sharding=P("i"))
    for start, spec in ((lambda v: psum_start(v, "i"), P("i")),
                        (lambda v: all_gather_start(v, "i", tiled=True, to="reduced"),
                         P(None, reduced={"i"}))):
        f = jax.shard_map(lambda v, start=start: start(v).done(), out_specs=spec)
        out.append(jax.jit(f)(x).tolist())
print(json.dumps(out))
""", 2)
    assert got == [[4.0, 6.0, 8.0, 10.0] * 2, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]]


def test_a_shard_maps_unreduced_result_is_its_devices_summands_as_jax():
    """out_specs=P(unreduced={'x'}): each device's block is its summand, the value their sum;
    JAX 0.10.2 (tests/data/unreduced_reference.json, "shard_map unreduced out") gives the
    partial sums [6, 22] of arange(8) and 28 in all. The NumPy backend gave device 0's 6 as
    the value, and pcast(to='unreduced') in a body had no NumPy rule ("shard_map pcast and
    psum": 4 in all, JAX's [4, 6, 8, 10]; so had pcast(to='reduced') and reduced to varying,
    what XLA gives here on its CPU too). An operand unreduced in in_specs comes as the
    devices' summands ("shard_map grad through custom_vjp of reduced": the cotangent, 1 on
    device 0 and 0 on device 1, doubled; the NumPy backend gave each device the whole 1)."""
    got = _on_numpy_devices("""
import json, numpy as np, jxkernel as jax
from jxkernel import lax
from jxkernel.sharding import PartitionSpec as P
mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
with jax.set_mesh(mesh):
    a = jax.device_put(np.arange(8.), P("x"))
    s = jax.jit(jax.shard_map(lambda x: x.sum(), out_specs=P(unreduced={"x"})))(a)
    p = jax.jit(jax.shard_map(lambda x: lax.psum(lax.pcast(x, "x", to="unreduced"), "x"),
                              out_specs=P()))(a)
    whole = jax.sharding.reshard(s, P())
    c = jax.jit(jax.shard_map(lambda x: lax.pcast(lax.pcast(lax.psum(x, "x"), "x", to="reduced"),
                                                  "x", to="varying"), out_specs=P("x")))(a)

    @jax.custom_vjp
    def ident(x):
        return x
    ident.defvjp(lambda x: (x, None), lambda _, g: (g + g,))
    through = jax.shard_map(ident, out_specs=P(reduced={"x"}))
    r8 = jax.device_put(np.arange(8.) / 8, P(reduced={"x"}))
    g = jax.jit(jax.grad(lambda x: through(x).sum()))(r8)
print(json.dumps([[float(b.data) for b in s.addressable_shards], float(whole), p.tolist(),
                  [b.data.tolist() for b in g.addressable_shards], c.tolist()]))
""", 2)
    assert got == [[6.0, 22.0], 28.0, [4.0, 6.0, 8.0, 10.0], [[2.0] * 8, [0.0] * 8],
                   [4.0, 6.0, 8.0, 10.0] * 2]


def test_a_constraint_naming_a_manual_axis_in_a_body_is_jaxs_error():
    """JAX 0.10.2 refuses a with_sharding_constraint naming a manual axis in a shard_map body
    (tests/data/shard_map_types_reference.json, "constraint on a manual axis"); XLA's lowering
    raises it, and the NumPy backend, which lowers nothing, ran the body."""
    got = _on_numpy_devices("""
import json, jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2, 2), ("i", "j"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
body = lambda b: jax.lax.with_sharding_constraint(b, NamedSharding(mesh, P("i", "j"))) * 2
said = []
for axes in ({"i"}, {"i", "j"}):
    f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("i", None), out_specs=P("i", None),
                              check_vma=False, axis_names=axes))
    try:
        f(jnp.arange(32.).reshape(4, 8)); said.append(None)
    except ValueError as e:
        said.append(str(e))
print(json.dumps(said))
""", 4)
    tail = ("of mesh which is not allowed. If you are using a with_sharding_constraint under a "
            "shard_map, only use the mesh axis in PartitionSpec which are not manual.")
    assert got == [f"pspec P('i', 'j') contains a manual axes {axes} {tail}"
                   for axes in ("('i',)", "('i', 'j')")]


def test_an_array_impl_made_uncommitted_says_so_and_jit_refuses_one_over_devices():
    """JAX 0.10.2's `ArrayImpl(aval, sharding, arrays, committed=False)` (tests/data/
    pjit_array_reference.json, "ArrayImpl one device uncommitted", "... uncommitted over
    devices") reports `committed` False, and jit refuses the one over several devices with a
    NotImplementedError. The NumPy backend's one-device buffer stayed committed, and its
    buffer over a mesh went to jaxlib's ArrayImpl, a TypeError naming NumpyBuffer."""
    got = _on_numpy_devices("""
import json, numpy as np, jxkernel as jax
from jxkernel._src import array, core
from jxkernel.sharding import NamedSharding, PartitionSpec as P
dev = jax.devices()
one = array.ArrayImpl(core.ShapedArray((3,), np.float32), jax.sharding.SingleDeviceSharding(
    dev[1]), [jax.device_put(np.arange(3.0, dtype=np.float32), dev[1])], committed=False)
mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
over = array.ArrayImpl(core.ShapedArray((2,), np.int32), NamedSharding(mesh, P(None)),
                       [jax.device_put(np.arange(2, dtype=np.int32), d) for d in dev],
                       committed=False)
try:
    said = jax.jit(lambda x: x)(over).tolist()
except NotImplementedError as e:
    said = str(e)
print(json.dumps([one.tolist(), one.committed, one.device.id, over.tolist(), over.committed,
                  said]))
""", 2)
    assert got == [[0.0, 1.0, 2.0], False, 1, [0, 1], False,
                   "Having uncommitted Array sharded on multiple devices is not supported."]


def test_typed_keys_made_from_split_seeds_keep_the_seeds_layout_as_xla():
    """JAX 0.10.2 (tests/data/pjit_array_reference.json, "keys seeded from split seeds",
    "small answers: key_data of keys over a mesh") lays keys seeded from, or wrapped around,
    seeds split P('x', 'y') and transposed out as P('y', 'x'), and the first run's key_data
    names the key dimension too (P('y', 'x', None)), a later run's not. The NumPy backend's
    guess of XLA's layouts knew no reshape, concatenate or stack (a key's physical words) and
    laid the keys out P(). (JAX 0.10.2 gives these answers for this program on 4 CPUs.)"""
    got = _on_numpy_devices("""
import json, numpy as np, jxkernel as jax, jxkernel.numpy as jnp
from jxkernel.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
seeds = jax.device_put(np.arange(8, dtype=np.uint32).reshape(4, 2),
                       NamedSharding(mesh, P("x", "y")))
seeded = jax.jit(lambda s: jax.vmap(jax.vmap(jax.random.key))(s).T)
wrapped = jax.jit(lambda v: jax.random.wrap_key_data(jnp.stack([v, v], -1)).T)
out = []
for f in (seeded, wrapped, wrapped):
    k = f(seeds)
    out.append([repr(k.sharding.spec), repr(jax.random.key_data(k).sharding.spec)])
print(json.dumps(out))
""", 4)
    assert got == [["P('y', 'x')", "P('y', 'x', None)"]] * 2 + [["P('y', 'x')", "P('y', 'x')"]]


def test_a_body_with_reduced_operands_is_batched_over_the_devices_as_traced():
    """The backend batches a shard_map body over the devices, tracing it again; its reduced
    operand's sets, checked when the body was traced, made the sharding types' rules refuse
    the batched body ("unreduced/reduced rule for reduced_vary_cast_p is not implemented",
    for reduce_scatter in the gather's gradient likewise). JAX
    0.10.2 gives [[0, 2, 6, 12], [4, 10, 18, 28]] for the first (tests/data/
    unreduced_reference.json, "shard_map reduced in") and, for the second, a gradient of ones
    laid out as its argument ("top level ag (x, y) to x", pjit_array_reference.json)."""
    got = _on_numpy_devices("""
import importlib, json, numpy as np, jxkernel as jax
from jxkernel.sharding import PartitionSpec as P
ag = importlib.import_module("jxkernel._src.shard_map").top_level_all_gather
with jax.set_mesh(jax.make_mesh((2,), ("x",))):
    a = jax.device_put(np.arange(8.), P("x"))
    r = jax.device_put(np.arange(4.) + 1, P(None, reduced={"x"}))
    prod = jax.jit(jax.shard_map(lambda x, y: x * y, out_specs=P("x")))(a, r)
with jax.set_mesh(jax.make_mesh((2, 2), ("x", "y"))):
    arr = jax.device_put(np.arange(8.).reshape(4, 2), P(("x", "y"), None))
    g = jax.jit(lambda x: ag(x, P("x", None, reduced={"y"}), multi_dim=False))
    grad = jax.jit(jax.grad(lambda x: g(x).sum()))(arr)
print(json.dumps([[s.data.tolist() for s in prod.addressable_shards], repr(grad.sharding.spec),
                  grad.tolist()]))
""", 4)
    assert got == [[[0.0, 2.0, 6.0, 12.0], [4.0, 10.0, 18.0, 28.0]], "P(('x', 'y'), None)",
                   [[1.0, 1.0]] * 4]


def test_an_eager_shard_maps_unreduced_result_keeps_each_devices_summand():
    """JAX 0.10.2 (tests/data/unreduced_reference.json, "shard_map eager unreduced out")
    leaves each device its own block as its summand: [[0, 1, 2, 3], [4, 5, 6, 7]]. The eager
    run's last step relays its result from P(None, unreduced={'x'}) to the spec as written,
    P(unreduced={'x'}); the NumPy backend's relayout summed the blocks onto device 0 (as for
    a value from the host), giving [[4, 6, 8, 10], [0, 0, 0, 0]]."""
    got = _on_numpy_devices("""
import json, numpy as np, jxkernel as jax
from jxkernel import lax
from jxkernel.sharding import PartitionSpec as P
mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
with jax.set_mesh(mesh):
    a = jax.device_put(np.arange(8.), P("x"))
    o = jax.shard_map(lambda x: lax.pcast(x, "x", to="unreduced"),
                      out_specs=P(unreduced={"x"}))(a)
print(json.dumps([repr(o.sharding.spec), [s.data.tolist() for s in o.addressable_shards]]))
""", 2)
    assert got == ["P(unreduced={'x'})", [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]]


def test_flushing_subnormals_of_a_nan_warns_nothing():
    """A bfloat16 NaN compared with the smallest normal: ml_dtypes before 0.7 warned "invalid
    value encountered in less" there (under every NaN test on the NumPy backend), as NumPy's own
    floats do not; the flush keeps NaN and infinities and zeroes the subnormals alone."""
    from jxkernel.core import dtypes
    from jxkernel.xla.numpy_device import flush_subnormals
    value = np.array([np.nan, -np.inf, 1e-40, 1.0], dtypes.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flushed = flush_subnormals(value).astype(np.float32)
    assert np.isnan(flushed[0]) and flushed[1] == -np.inf and list(flushed[2:]) == [0, 1]
