"""Shape-polymorphic jax.export against JAX 0.10.2's recorded answers
(tests/data/export_symbolic_cases.py, recorded by reference/make_export_reference.py), and
what JAX's side cannot show: jaxlib's shape refinement on a hand-written module, the module
we write, our serialization of symbolic avals, and the refusal of primitives without a
shape-polymorphic lowering."""
import functools
import re

import export_symbolic_cases as cases
import numpy as np
import pytest
from numerics import REDUCTION, assert_allclose_ulp, assert_matches_recorded

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import export
import locations  # tests/support: the repository's folders


@functools.lru_cache(maxsize=1)
def reference() -> dict:
    return locations.jax_answers("export_symbolic_reference.json")


# the programs that export (jax.export's StableHLO: refused on the NumPy backend)
_EXPORTING = {"symbolic_export", "symbolic_call_modes", "symbolic_errors"}


@pytest.mark.parametrize("program", [
    pytest.param(p, marks=pytest.mark.xla_only("XLA text")) if p.__name__ in _EXPORTING else p
    for p in cases.PROGRAMS], ids=lambda p: p.__name__)
def test_program_matches_jax(program):
    """Texts, ints, booleans and error classes exactly; floats (sin, tanh, sums, softmax)
    within the reduction bound at each result's largest magnitude."""
    assert_matches_recorded(program(jxkernel), reference()[program.__name__], program.__name__)


# A module as JAX writes one for `x * 2` over f32[a, 4], called from a static-typed main.
_HAND_WRITTEN = """module @m {
  func.func public @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<?x4xf32>
    %1 = call @f(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %2 = stablehlo.convert %1 : (tensor<?x4xf32>) -> tensor<3x4xf32>
    return %2 : tensor<3x4xf32>
  }
  func.func private @f(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %r = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
    %c = stablehlo.constant dense<4> : tensor<1xi32>
    %s = stablehlo.concatenate %r, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %two = stablehlo.constant dense<2.0> : tensor<f32>
    %b = stablehlo.dynamic_broadcast_in_dim %two, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
    %m = stablehlo.multiply %arg0, %b : tensor<?x4xf32>
    return %m : tensor<?x4xf32>
  }
}"""


def test_jaxlib_refines_a_hand_written_polymorphic_module():
    """jaxlib 0.10.2's refine_polymorphic_shapes (bytes in, bytecode out) makes every size
    static from main's argument types: the dynamic broadcast becomes a static one."""
    from jxkernel.xla.portable import refine_shapes
    refined = refine_shapes(_HAND_WRITTEN)
    assert "?" not in refined and "dynamic_broadcast_in_dim" not in refined
    assert "stablehlo.broadcast_in_dim" in refined and "tensor<3x4xf32>" in refined
    dynamic_main = _HAND_WRITTEN.replace("%arg0: tensor<3x4xf32>", "%arg0: tensor<?x4xf32>") \
        .replace("(tensor<3x4xf32>) -> tensor<?x4xf32>", "(tensor<?x4xf32>) -> tensor<?x4xf32>")
    with pytest.raises(ValueError, match="Error refining shapes: .*Module has dynamic shapes"):
        refine_shapes(dynamic_main)              # no argument type fixes the size


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_exported_module_serialization_and_refused_primitives():
    """The module reads its variables from the arguments and takes shapes as operands where
    they are symbolic; serialize/deserialize keeps symbolic avals and constraints, and the
    loaded function is called, checked and differentiated; a primitive without a
    shape-polymorphic lowering is refused at export time, by name."""
    a, b = export.symbolic_shape("a, b", constraints=("a >= b",))

    def f(x, y):
        return jnp.sum(jnp.sin(x) * 2.0, axis=1)[:2] + y[:1].sum(), jnp.zeros((x.shape[0], 2))
    exp = export.export(jxkernel.jit(f))(jxkernel.ShapeDtypeStruct((a, 4), np.float32),
                                         jxkernel.ShapeDtypeStruct((b,), np.float32))
    text = exp.mlir_module()          # (printed with its locations, as JAX's: left out here)
    assert "@main(%arg0: tensor<?x4xf32>, %arg1: tensor<?xf32>)" in re.sub(r" loc\([^)]*\)",
                                                                          "", text)
    assert "stablehlo.get_dimension_size %arg0, dim = 0" in text   # b is unused: y[:1]
    assert "stablehlo.dynamic_broadcast_in_dim" in text and "stablehlo.real_dynamic_slice" in text

    loaded = export.deserialize(exp.serialize(vjp_order=1))
    assert str(loaded.in_avals) == "(ShapedArray(float32[a,4]), ShapedArray(float32[b]))"
    assert str(loaded.out_avals) == "(ShapedArray(float32[min(a, 2)]), ShapedArray(float32[a,2]))"
    assert loaded.in_avals[0].shape[0].scope.constraints_str == ("a >= b",)
    x, y = np.arange(12, dtype=np.float32).reshape(3, 4) / 4, np.ones(2, np.float32)
    out, zeros = loaded.call(x, y)
    assert_allclose_ulp(np.asarray(out), np.asarray(f(x, y)[0]), REDUCTION, scale=4.0)
    assert zeros.shape == (3, 2) and not np.asarray(zeros).any()
    grad = jxkernel.grad(lambda v: loaded.call(v, y)[0].sum())(x)
    want = np.zeros((3, 4), np.float32)
    want[:2] = 2 * np.cos(x[:2])
    assert_allclose_ulp(np.asarray(grad), want, REDUCTION, scale=2.0)
    with pytest.raises(ValueError, match=r"constraint a >= b\. Expected '- b \+ a' to be "
                                         r"greater or equal to 0, but found -1"):
        loaded.call(x, np.ones(4, np.float32))

    alone, = export.symbolic_shape("a")  # (a's scope above has b, which JAX requires
    # the arguments to give: UnexpectedDimVar)
    # (cholesky, triangular_solve, scan and approx_top_k export since h-jtpoly3:
    # tests/export/test_export_symbolic_linalg.py; igamma since h-jtpoly4:
    # tests/export/test_export_symbolic_ops.py)
    for fn, prim in ((lambda v: jxkernel.lax.rng_uniform(0., 1., v.shape), "rng_uniform"),):
        with pytest.raises(NotImplementedError, match=f"primitive '{prim}' meets the "
                                                      f"symbolic dimension 'a'"):
            export.export(jxkernel.jit(fn))(jxkernel.ShapeDtypeStruct((alone, 4), np.float32))


@pytest.mark.xla_only("XLA text")    # jax.export's StableHLO: refused on the NumPy backend
def test_a_variable_only_inside_an_expression_is_refused():
    """Each variable must be solvable from some dimension k*v + (variables solved before) of
    an argument (JAX's error; tests/data/export_test_gaps_cases.py has its words)."""
    c, = export.symbolic_shape("c")
    with pytest.raises(ValueError, match=r"Cannot solve for values of dimension variables "
                                         r"\{'c'\}\..* Unprocessed specifications: 'c\^2' for "
                                         r"dimension size args\[0\]\.shape\[0\]\."):
        export.export(jxkernel.jit(jnp.sin))(jxkernel.ShapeDtypeStruct((c * c,), np.float32))
