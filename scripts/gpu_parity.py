"""The GPU parity checks of issue 46, run once under JAX and once under jxkernel on the same
machine, and compared (docs/gpu.md, "Parity with JAX"). Each check prints what a learner would
see: platform names, host callbacks inside jit, cost analysis, the allocator's statistics, an
export for 'cuda' that round-trips, an export for 'cpu' and 'cuda' whose call takes this
platform's branch, the rbg keys, JAX_PLATFORMS.

    python3 scripts/gpu_parity.py jax > jax.json                       # JAX's venv
    PYTHONPATH=. python3 scripts/gpu_parity.py jxkernel > jx.json      # this checkout
    python3 scripts/gpu_parity.py --compare jax.json jx.json

It imports the real JAX only when asked to (`jax`), in its own process: the suite never does.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import subprocess
import sys

import numpy as np


def _checks(jax):
    jnp = jax.numpy
    out = {}

    def check(name):
        def record(fn):
            try:
                out[name] = fn()
            except Exception as error:          # a check's failure is its result
                out[name] = f"raises {type(error).__name__}: {str(error).splitlines()[0][:200]}"
            return fn
        return record

    @check("platform names")
    def _():
        d = jax.devices()[0]
        return {"default_backend": jax.default_backend(), "platform": d.platform,
                "device_kind": d.device_kind, "str": str(d), "repr_class": type(d).__name__,
                "count": jax.device_count()}

    @check("jit runs on the GPU")
    def _():
        y = jax.jit(lambda x: jnp.sin(x) * 2)(jnp.arange(4.0))
        return {"devices": sorted(str(d) for d in y.devices()),
                "value": np.asarray(y).round(6).tolist()}

    @check("debug.print inside jit")
    def _():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            def f(x):
                jax.debug.print("x is {}", x)
                return x + 1
            y = jax.jit(f)(jnp.float32(2.0))
            y.block_until_ready()
            jax.effects_barrier()
        return {"printed": buf.getvalue().strip(), "value": float(y)}

    @check("pure_callback inside jit")
    def _():
        def host(x):
            return np.asarray(x) * 3
        f = jax.jit(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x))
        return np.asarray(f(jnp.arange(3.0))).tolist()

    @check("io_callback inside jit")
    def _():
        from importlib import import_module
        io_callback = import_module(jax.__name__ + ".experimental").io_callback
        seen = []

        def host(x):
            seen.append(float(x))
            return np.float32(x * 10)
        y = jax.jit(lambda x: io_callback(host, jax.ShapeDtypeStruct((), jnp.float32), x))(
            jnp.float32(1.5))
        return {"value": float(y), "seen": seen}

    @check("Compiled.cost_analysis")
    def _():
        c = jax.jit(lambda a, b: a @ b).lower(jnp.ones((64, 64)), jnp.ones((64, 64))).compile()
        cost = c.cost_analysis()
        if isinstance(cost, list):
            cost = cost[0]
        return {"flops": (cost or {}).get("flops"), "has bytes accessed":
                "bytes accessed" in (cost or {})}

    @check("Lowered.cost_analysis")
    def _():
        cost = jax.jit(lambda a: a * 2).lower(jnp.ones(8)).cost_analysis()
        return None if cost is None else {"flops": cost.get("flops")}

    @check("memory_stats")
    def _():
        x = jnp.ones((1024, 1024))
        x.block_until_ready()
        stats = jax.devices()[0].memory_stats()
        if stats is None:
            return None
        return {key: type(stats[key]).__name__ for key in
                ("bytes_in_use", "peak_bytes_in_use", "bytes_limit") if key in stats}

    @check("export for cuda round-trips")
    def _():
        export = importlib.import_module(jax.__name__ + ".export")
        f = jax.jit(lambda x: jnp.cos(x) + 1)
        exp = export.export(f)(jax.ShapeDtypeStruct((3,), jnp.float32))
        again = export.deserialize(exp.serialize())
        return {"platforms": list(exp.platforms),
                "value": np.asarray(again.call(jnp.zeros(3, jnp.float32))).tolist()}

    @check("export for cpu and cuda")
    def _():
        export = importlib.import_module(jax.__name__ + ".export")
        f = jax.jit(lambda x: x * 2)
        exp = export.export(f, platforms=("cpu", "cuda"))(jax.ShapeDtypeStruct((2,), jnp.float32))
        return {"platforms": list(exp.platforms),
                "value": np.asarray(exp.call(jnp.ones(2, jnp.float32))).tolist()}

    @check("export for cpu and cuda picks this platform's branch")
    def _():
        # the call passes the index of the platform it runs on: the cuda branch on a GPU
        export = importlib.import_module(jax.__name__ + ".export")
        f = jax.jit(lambda x: jax.lax.platform_dependent(x, cpu=lambda x: x * 0,
                                                         cuda=lambda x: x + 100))
        exp = export.export(f, platforms=("cpu", "cuda"))(jax.ShapeDtypeStruct((2,), jnp.float32))
        return np.asarray(exp.call(jnp.ones(2, jnp.float32))).tolist()

    @check("lowering platforms")
    def _():
        lowered = jax.jit(lambda x: x + 1).lower(1.0)
        text = lowered.as_text()
        return {"mhlo.platform in text": "cuda" in text or "gpu" in text}

    @check("platform_dependent")
    def _():
        lax = jax.lax
        f = jax.jit(lambda x: lax.platform_dependent(x, cpu=lambda x: x * 0,
                                                     cuda=lambda x: x + 100))
        return float(f(1.0))

    @check("rbg keys")
    def _():
        key = jax.random.key(0, impl="rbg")
        u = jax.random.uniform(key, (4,))
        return {"shape": list(u.shape), "dtype": str(u.dtype),
                "in [0,1)": bool(((u >= 0) & (u < 1)).all())}

    @check("unsafe_rbg keys")
    def _():
        key = jax.random.key(0, impl="unsafe_rbg")
        return list(jax.random.normal(key, (3,)).shape)

    @check("threefry bits")
    def _():
        return np.asarray(jax.random.bits(jax.random.key(42), (4,))).tolist()

    @check("float32 matmul precision")
    def _():
        rng = np.random.default_rng(0)
        a = rng.standard_normal((256, 256), dtype=np.float32)
        b = rng.standard_normal((256, 256), dtype=np.float32)
        got = np.asarray(jnp.asarray(a) @ jnp.asarray(b))
        exact = a.astype(np.float64) @ b.astype(np.float64)
        return {"max rel err vs float64 (log2)":
                round(float(np.log2(np.abs(got - exact).max() / np.abs(exact).max())), 1)}
    @check("int8 dot accumulates in int32")
    def _():
        big = np.full((2, 3), 100, np.int8)
        f = lambda a: jax.lax.dot_general(a, a, (((1,), (1,)), ((), ())),
                                          preferred_element_type=np.int32)
        return {"eager": np.asarray(f(big)).tolist(), "jit": np.asarray(jax.jit(f)(big)).tolist()}

    @check("float8 conversions round")
    def _():
        import ml_dtypes
        x = np.float32([0.0, 1.5, -3.25, 0.1, 200.0, 1e-3])
        to8 = lambda v: v.astype(ml_dtypes.float8_e4m3fn).astype(jnp.float32)
        e8 = np.float32([1.0, -2.0, 0.0, -1.0])
        to_e8 = lambda v: v.astype(ml_dtypes.float8_e8m0fnu).astype(jnp.float32)
        return {"e4m3fn eager": np.asarray(to8(jnp.asarray(x))).tolist(),
                "e4m3fn jit": np.asarray(jax.jit(to8)(x)).tolist(),
                "e8m0fnu jit": np.asarray(jax.jit(to_e8)(e8)).tolist()}

    @check("subnormal inputs")
    def _():
        x = np.float32([1e-40, 1.0])
        fs = {"log": jnp.log, "sqrt": jnp.sqrt, "sign": jnp.sign, "x*2": lambda v: v * 2}
        return {name: {"eager": np.asarray(f(jnp.asarray(x))).tolist(),
                       "jit": np.asarray(jax.jit(f)(x)).tolist()} for name, f in fs.items()}

    @check("debug.print order")
    def _():
        def f(x):
            jax.debug.print("x = {x}", x=x)
            jax.debug.print("pos {} {}", x, 2.0)
            return x * 2
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            f(jnp.arange(3.0))
            g = jax.jit(f)
            g(jnp.arange(3.0))
            print("after")
            g(jnp.arange(3.0) + 1).block_until_ready()
            jax.effects_barrier()
        return buf.getvalue().splitlines()

    @check("linear algebra's custom calls")
    def _():
        import re
        a = jnp.eye(3) * 2.0
        calls = {"cholesky": lambda: jax.jit(jnp.linalg.cholesky).lower(a),
                 "triangular_solve": lambda: jax.jit(lambda m, b: jax.lax.linalg.triangular_solve(
                     m, b, left_side=True, lower=True)).lower(a, a),
                 "svd": lambda: jax.jit(jnp.linalg.svd).lower(a),
                 "eigh": lambda: jax.jit(jnp.linalg.eigh).lower(a),
                 "qr": lambda: jax.jit(jnp.linalg.qr).lower(a),
                 "lu": lambda: jax.jit(jax.lax.linalg.lu).lower(a)}
        return {name: sorted(set(re.findall(r'(?:custom_call @|call_target_name = ")(\w+)',
                                            lower().as_text()))) for name, lower in calls.items()}

    @check("scaled_matmul and scaled_dot_general (cuDNN's block-scaled dot)")
    def _():
        # XLA's GPU compiler gives __op$block_scaled_dot to cuDNN on Blackwell and expands it
        # into dequantize-and-dot elsewhere: the values, rounded, and the gradient's shapes
        rng = np.random.default_rng(0)
        x = jnp.asarray(rng.standard_normal((32, 64)), jnp.float32)
        y = jnp.asarray(rng.standard_normal((64, 32)), jnp.float32)
        out = {}
        for mode in ("mxfp8", "nvfp4"):
            configs = [jax.nn.get_scaled_dot_general_config(mode)] * 3
            f = lambda a, b, c=configs: jax.nn.scaled_dot_general(       # noqa: E731
                a, b, (((1,), (0,)), ((), ())), configs=c)
            grads = jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(x, y)
            out[mode] = {"product": np.asarray(jax.jit(f)(x, y)).round(3).ravel()[:8].tolist(),
                         "grad": [np.asarray(g).round(3).ravel()[:4].tolist() for g in grads]}
        return out

    @check("platform_version")
    def _():
        version = jax.devices()[0].client.platform_version
        return {"has 'PJRT C API'": "PJRT C API" in version}
    return out


def _platforms_refusal(name: str):
    """Under JAX_PLATFORMS=cpu, asking for the GPU: JAX says 'Unknown backend'."""
    code = (f"import {name} as jax\n"
            "try:\n    print(jax.devices('gpu'))\n"
            "except Exception as e:\n    print(type(e).__name__, str(e).splitlines()[0][:160])")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    return (done.stdout.strip() or done.stderr.strip().splitlines()[-1:])


def _model(x, w):
    import jxkernel.numpy as jnp
    y = jnp.sin(x)
    z = y @ w
    return z.sum()


def dump_explain(folder: str) -> None:
    """jxkernel.explain's optimized HLO and per-line counts of a small model, for reading
    how XLA's GPU compiler names what it made (fusions, cuBLAS calls) against the lines."""
    import jxkernel
    ex = jxkernel.explain(_model, jxkernel.numpy.ones((4, 8)), jxkernel.numpy.ones((8, 3)))
    with open(os.path.join(folder, "explain-hlo.txt"), "w") as f:
        f.write(ex.optimized_hlo)
        f.write("\n\n# per line\n" + repr(ex.per_line) + "\n# xla_cost\n" + repr(ex.xla_cost))
        f.write("\n# instructions\n" + "\n".join(
            f"{i.name} {i.opcode} line={i.line_id} flops={i.flops} est={i.estimated}"
            for i in ex.hlo_instructions))


def main(argv):
    if argv[:1] == ["--dump-explain"]:
        dump_explain(argv[1])
        return
    if argv[:1] == ["--compare"]:
        jax_side, jx_side = (json.load(open(path)) for path in argv[1:3])
        same = 0
        for key in jax_side:
            if jax_side[key] == jx_side.get(key):
                same += 1
            else:
                print(f"{key}:\n  JAX:      {jax_side[key]}\n  jxkernel: {jx_side.get(key)}")
        print(f"{same} of {len(jax_side)} checks the same")
        return
    name = argv[0]
    jax = importlib.import_module(name)
    out = _checks(jax)
    out["JAX_PLATFORMS=cpu, devices('gpu')"] = _platforms_refusal(name)
    print(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
