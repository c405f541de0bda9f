"""FFI custom calls as lowered text: `run(jax)` -> {case: the custom_call lines of the lowered
module}. JAX 0.10.2 writes a typed-FFI call's attributes as `mhlo.backend_config = {...}`
beside `backend_config = ""` (no api_version), a NumPy array attribute as dense elements
(`dense<[0, 1, 2]> : tensor<3xi32>`), a float0 one as false bools; api_versions 1-3 keep
their string `backend_config`. LAPACK's calls (cholesky) are typed-FFI calls too."""
import importlib
import re

import numpy as np


def _custom_calls(text):
    # (JAX's LAPACK calls carry mhlo.frontend_attributes = {num_batch_dims = "0"} and a Shardy
    # sharding rule, jxkernel's not: not compared here)
    lines = [line.strip() for line in text.splitlines() if "stablehlo.custom_call" in line]
    lines = [re.sub(r"mhlo\.frontend_attributes = \{[^}]*\}, ", "", line) for line in lines]
    return [re.sub(r", sdy\.sharding_rule = #sdy\.op_sharding_rule<.*?, custom>", "", line)
            for line in lines]


def run(jax):
    jnp = jax.numpy
    x = jnp.ones(3)

    def call(version=4, **attributes):
        def f(x):
            return jax.ffi.ffi_call("tgt", jax.ShapeDtypeStruct(x.shape, x.dtype),
                                    custom_call_api_version=version)(x, **attributes)
        return _custom_calls(jax.jit(f).lower(x).as_text())

    out = {f"api_version_{v}": call(v) for v in (1, 2, 3, 4)}
    out["attributes"] = call(a=1, b=np.float32(2.0), s="hi", t=True, u=np.uint8(7),
                             f=np.float64(1.5), arr=np.arange(3, dtype=np.int32),
                             farr=np.array([1.0, 2.5], np.float32),
                             matrix=np.arange(4, dtype=np.int16).reshape(2, 2),
                             scalar_array=np.array(5, np.int64),
                             zero=np.zeros((), jax.dtypes.float0))
    out["cholesky"] = _custom_calls(jax.jit(jnp.linalg.cholesky).lower(jnp.eye(2)).as_text())

    mlir = importlib.import_module(jax.__name__ + "._src.interpreters.mlir")
    module = jax.jit(lambda x: jax.ffi.ffi_call("tgt", x)(x, p=np.int8(1))).lower(
        0.5).compiler_ir("stablehlo")
    ops = [op for op in module.body.operations[0].regions[0].blocks[0].operations
           if op.operation.name == "stablehlo.custom_call"]
    conf = ops[0].attributes["mhlo.backend_config"]
    out["compiler_ir"] = {"is_dict": isinstance(conf, mlir.ir.DictAttr), "p": str(conf["p"])}
    return out
