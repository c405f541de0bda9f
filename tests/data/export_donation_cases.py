"""The cases that reference/make_export_donation_reference.py runs on JAX 0.10.2 and
tests/export/test_export_donation.py on jxkernel: jax.export of a jit with donated arguments
for several platforms, as JAX's tests/export_test.py's test_multi_platform_with_donation does:
all of them or none of them must support donation. `run(jax)` takes the `jax` module (real or
jxkernel) and returns JSON data: results as lists, errors as their type and message."""
import importlib

from recorded_errors import error_record   # tests/data: what a case raised, as recorded


def run(jax):
    import numpy as np
    export = importlib.import_module(f"{jax.__name__}.export")
    x = np.arange(3, dtype=np.float32)
    out = {}
    for platforms in (["cpu", "tpu"], ["cpu", "tpu", "other"], ["tpu", "other", "cpu"],
                      ("cpu", "cuda", "rocm", "tpu", "other"), ["other"]):
        for donate in ((0,), ()):
            f = jax.jit(jax.numpy.sin, donate_argnums=donate)
            out[f"{'+'.join(platforms)} donate={list(donate)}"] = error_record(
                lambda: export.export(f, platforms=platforms)(x))
    # where every platform supports donation, the export is called with the donated argument
    f = jax.jit(jax.numpy.sin, donate_argnums=(0,))
    exp = export.export(f, platforms=["cpu", "tpu"])(x)
    out["called"] = jax.jit(lambda x: x + exp.call(x))(x).tolist()
    return out
