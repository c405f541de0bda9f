"""jxkernel.stages: Traced, Lowered and Compiled against what JAX 0.10.2 gives for the same
programs (tests/data/export_cases.py, recorded by reference/make_export_reference.py), and
the texts and IRs of a Lowered."""
import export_cases as cases
import numpy as np
import pytest
from export_reference import compare
from gpu_tier import ON_GPU
from numerics import ELEMENTWISE, assert_allclose_ulp

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.xla.buffer import _to_host

# XLA's texts and analyses (cost, memory, the runtime executable): not on the NumPy backend
_XLA_FIGURES = {"stages_lowered", "stages_compiled"}
PROGRAMS = [pytest.param(p, marks=pytest.mark.xla_only("XLA text"))
            if p.__name__ in _XLA_FIGURES else p
            for p in cases.PROGRAMS if p.__name__.startswith("stages_")]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_jax(program):
    compare(program, program(jxkernel))


@pytest.mark.xla_only("XLA text")
def test_lowered_texts_and_irs():
    """as_text's dialects and debug locations, compiler_ir's module, and the unoptimized
    cost: XLA's count for this module (3 multiplies and 3 adds of f32[3], no fusion yet)."""
    lowered = jxkernel.jit(lambda x, y: x * y + 1.0).lower(jnp.ones(3), 2.0)
    text = lowered.as_text()
    assert text == lowered.as_text("stablehlo") == lowered.as_text(dialect="mlir")
    assert "stablehlo.multiply" in text and "loc(" not in text
    located = lowered.as_text(debug_info=True)
    assert f'loc("{__file__}":' in located and "stablehlo.multiply" in located
    hlo = lowered.as_text("hlo")
    assert hlo.startswith("HloModule") and "multiply(" in hlo and "ENTRY" in hlo
    assert "func.func public @main" in str(lowered.compiler_ir())
    assert "ENTRY" in lowered.compiler_ir("hlo").as_hlo_text()
    costs = lowered.cost_analysis()
    if ON_GPU:      # as JAX's on the same GPU: XLA has no unoptimized cost model there
        assert costs is None
    else:
        assert costs["flops"] == 6.0 and costs["bytes accessed"] > 0
    with pytest.raises(ValueError, match="unknown dialect: tosa"):
        lowered.compiler_ir("tosa")


def test_compiled_runs_without_static_arguments_and_keeps_its_signature():
    """The static argument is fixed at lowering; the Compiled is called with the rest, and
    with kwargs where they were given."""
    f = jxkernel.jit(lambda x, n, *, scale: x * n * scale, static_argnums=1)
    compiled = f.lower(jnp.arange(3.0), 4, scale=0.5).compile()
    np.testing.assert_array_equal(np.asarray(compiled(jnp.arange(3.0), scale=1.0)),
                                  [0.0, 4.0, 8.0])
    assert str(compiled.in_tree) == "PyTreeDef(((*,), {'scale': *}))"
    assert compiled.fun_name == "<lambda>" and compiled.donate_argnums == ()
    info = compiled.args_info[1]["scale"]
    assert (info.shape, info.dtype, info.donated) == ((), np.float32, False)
    assert isinstance(jxkernel.stages.ArgInfo(info._aval, True), jxkernel.stages.ArgInfo)


@pytest.mark.xla_only("XLA compiler")
def test_runtime_executable_runs_the_same_program():
    f = jxkernel.jit(lambda x, n, *, scale: x * n * scale, static_argnums=1)
    exe = f.lower(jnp.arange(3.0), 4, scale=0.5).compile().runtime_executable()
    buffers = [jnp.arange(3.0)._buf, jnp.float32(2.0)._buf]
    with jxkernel.xla.client.real_jax_unimportable():   # jaxlib's own call imports a real JAX
        out = exe.execute_sharded(buffers).disassemble_into_single_device_arrays()
        # jaxlib's own array, read as jxkernel's Array reads its buffer (np.asarray alone
        # reads only a CPU buffer, by the buffer protocol: on a GPU it made a 0-d object array)
        got = _to_host(out[0][0])
    assert_allclose_ulp(got, np.arange(3, dtype=np.float32) * 8, ELEMENTWISE)


@pytest.mark.xla_only("XLA compiler")
def test_compile_takes_xla_options_by_name():
    lowered = jxkernel.jit(lambda x, y: 2 * x + y).lower(jnp.int32(3), 4)
    compiled = lowered.compile(compiler_options={"xla_cpu_enable_fast_math": False})
    assert int(compiled(jnp.int32(3), 4)) == 10
    with pytest.raises(jxkernel.errors.JaxRuntimeError, match="an option that makes no sense"):
        lowered.compile(compiler_options={"an option that makes no sense": "bad value"})
