"""Every primitive has every rule it needs: a registry check over all of them, so a primitive
cannot land half done."""
import textwrap

import pytest
from fresh_process import run_code

import jxkernel  # noqa: F401  (registers the primitives)
from jxkernel.stepper import load_every_primitive
from jxkernel.api.state_primitives import RefPrimitive
from jxkernel.core.physical import physical_rules
from jxkernel.core.primitive import (abstract_eval_rules, all_primitives, axis_batching_rules,
                                     batching_rules, jvp_rules, lowering_rules, transpose_rules)

from jxkernel.core.hijax import HiPrimitive  # noqa: E402

load_every_primitive()      # the modules `import jxkernel` leaves to first use

# Linear (in at least one operand) primitives need a transpose rule for reverse mode.
LINEAR = """add sub neg mul div convert_element_type reduce_sum broadcast_in_dim reshape squeeze
transpose rev concatenate pad slice dynamic_slice dynamic_update_slice gather scatter-add
scatter select_n cumsum dot_general copy real imag complex conj add_any jit cond scan while
psum all_gather ppermute all_to_all reduce_scatter remat2 custom_lin split
ragged_all_to_all device_put
reduce_precision reduce_window_sum
select_and_gather_add select_and_scatter_add
conv_general_dilated fft
custom_linear_solve optimization_barrier
bcoo_todense bcoo_extract bcoo_transpose bcoo_dot_general todense
bcsr_todense bcsr_extract bcsr_dot_general
bcoo_sort_indices bcoo_sum_duplicates bcoo_spdot_general bcoo_dot_general_sampled
coo_todense coo_matvec coo_matmat csr_todense csr_matvec csr_matmat""".split()

# Primitives with no array operands never meet a batched value, so need no batching rule.
NO_OPERANDS = {"iota", "axis_index", "iota_2x32_shape", "dim_as_value", "empty", "empty2",
               "platform_index"}

# Rules JAX 0.10.2's own primitive lacks, so jxkernel's does too (differentiating or
# vmapping it raises the "no rule" error, as JAX's does): name -> the missing rules' kinds.
AS_IN_JAX_WITHOUT = {"select_and_scatter": {"jvp", "batching"},   # shape rule + lowering only
                     "composite": {"batching"},
                     # jax/experimental/sparse/linalg.py: "does not support batching with vmap"
                     "spsolve": {"batching"},
                     # jax/_src/lax/lax.py: tokens carry no tangent and no batch dimension
                     "create_token": {"jvp", "batching"}, "after_all": {"jvp", "batching"},
                     # jax/_src/lax/scaled_dot.py: "This currently isn't differentiable"
                     "scaled_dot": {"jvp"},
                     # jax/experimental/sparse/_lowerings.py: cuSPARSE's kernels, an abstract
                     # eval and GPU lowerings only (the sparse formats differentiate themselves)
                     **dict.fromkeys(("coo_spmv", "coo_spmm", "csr_spmv", "csr_spmm"),
                                     {"jvp", "batching"}),
                     # jax/_src/cudnn/scaled_matmul_stablehlo.py: abstract eval, lowerings and
                     # batching only; jax.nn.scaled_dot_general differentiates by a custom_vjp
                     "scaled_matmul": {"jvp"}, "scaled_matmul_wrapper": {"jvp"},
                     # jax/_src/lax/parallel.py: point-to-point sends, GPU only, no derivative
                     "psend": {"jvp"}, "precv": {"jvp"},
                     # jax/_src/lax/parallel.py: pmax/pmin have no ad rule ("Differentiation
                     # rule for 'pmax' not implemented", recorded: lax_numpy_gaps_cases)
                     "pmax": {"jvp"}, "pmin": {"jvp"},
                     # jax/_src/lax/lax.py: standard_unop(_int, ...) and no ad rule; an integer
                     # operand's symbolic zero tangent never asks for one, a float's does
                     "population_count": {"jvp"}, "clz": {"jvp"},
                     # jax/_src/lax/linalg.py: standard_linalg_primitive(...,
                     # supports_batching=False): vmap of it is JAX's NotImplementedError
                     "cholesky_update": {"batching"},
                     # jax/_src/custom_derivatives.py: linear_call has no batching rule (vmap
                     # of it is JAX's NotImplementedError, recorded: tests/data/public_names_cases)
                     "linear_call": {"batching"},
                     # jax/_src/custom_partitioning.py: abstract eval, impl and lowering only
                     "custom_partitioning": {"jvp", "batching"},
                     # jax/_src/lax/parallel.py: the async collectives' start and done
                     # primitives, abstract eval and lowering only (JAX: "Batching rule for
                     # 'psum_start' not implemented"; outside a staged trace jxkernel's start
                     # functions run the synchronous collective: lax/parallel/futures.py)
                     **dict.fromkeys(
                         [f"{c}_start" for c in (
                             "psum", "psum_invariant", "unreduced_psum", "all_gather",
                             "all_gather_reduced", "reduce_scatter",
                             "unreduced_reduce_scatter", "all_to_all", "ppermute")]
                         + [f"{c}_done" for c in ("psum", "all_gather", "reduce_scatter",
                                                 "all_to_all", "ppermute", "pbroadcast")],
                         {"jvp", "batching"})}

PRIMITIVES = sorted(all_primitives)


@pytest.mark.parametrize("name", PRIMITIVES)
def test_primitive_has_every_rule(name):
    prim = all_primitives[name]
    if isinstance(prim, HiPrimitive):
        # hijax's (JAX's Box): its rules are its methods, as JAX's HiPrimitive has them, and
        # it lowers through `to_lojax` (core/hijax_lower.py)
        assert all(callable(getattr(prim, m, None)) for m in ("abstract_eval", "to_lojax"))
        return
    assert prim in abstract_eval_rules, f"{name}: no abstract eval rule"
    if isinstance(prim, RefPrimitive):
        # the state primitives (get, swap, new_ref, ...): binding one does its Ref's
        # operation, so no trace runs their rules; their equations are make_jaxpr's record
        return
    # typed keys' primitives are lowered as their physical rules compute them (core/physical.py)
    assert prim in lowering_rules or prim in physical_rules, f"{name}: no lowering rule"
    without = AS_IN_JAX_WITHOUT.get(name, set())
    assert prim in jvp_rules or "jvp" in without, \
        f"{name}: no jvp rule (non-differentiable ones use defjvp_zero)"
    if name not in NO_OPERANDS and "batching" not in without:
        assert prim in batching_rules or prim in axis_batching_rules, f"{name}: no batching rule"
    if name in LINEAR:
        assert prim in transpose_rules, f"{name}: linear but no transpose rule"


def test_differentiating_clz_or_population_count_of_a_float_is_jaxs_missing_rule():
    # JAX 0.10.2 asks for the jvp rule before the dtype check: NotImplementedError; jxkernel's
    # zero rule let the dtype check raise TypeError (the wide differential fuzzer, seed 5578).
    # An integer operand's tangent is a symbolic zero, which asks for no rule.
    import numpy as np
    from jxkernel import lax
    f32, i32 = np.ones(3, np.float32), np.arange(3, dtype=np.int32)
    for name, f in (("clz", lax.clz), ("population_count", lax.population_count)):
        with pytest.raises(NotImplementedError,
                           match=f"^Differentiation rule for '{name}' not implemented$"):
            jxkernel.jvp(f, (f32,), (f32,))
        with pytest.raises(NotImplementedError):
            jxkernel.grad(lambda x: f(x).sum())(f32)
        out, tangent = jxkernel.jvp(f, (i32,), (np.zeros(3, jxkernel.dtypes.float0),))
        assert np.asarray(out).tolist() == np.asarray(f(i32)).tolist()
        assert tangent.dtype == jxkernel.dtypes.float0


def test_the_lists_name_real_primitives():
    assert set(LINEAR) <= set(all_primitives)
    assert len(PRIMITIVES) > 100


def test_loading_every_primitive_misses_none():
    # the stepper looks primitives up by name, after load_every_primitive(): a new lazily
    # loaded module that defines primitives must join its list
    code = textwrap.dedent("""
        import importlib, pkgutil, jxkernel
        from jxkernel.core.primitive import all_primitives
        from jxkernel.stepper import load_every_primitive
        load_every_primitive()
        loaded = set(all_primitives)
        for m in pkgutil.walk_packages(jxkernel.__path__, "jxkernel."):
            if not m.name.endswith("__main__") and ".labextension" not in m.name:
                importlib.import_module(m.name)
        print(sorted(set(all_primitives) - loaded))
    """)
    done = run_code(code, timeout=300)
    assert done.stdout.split("\n")[-2] == "[]", done.stdout


@pytest.mark.xla_only("XLA compiler")
def test_eager_add_any_runs_adds_program(monkeypatch):
    # as JAX's add_any impl calls lax.add: the sum of two cotangents is add's compiled
    # program, not one more compile of the same code under add_any's name
    import numpy as np
    from jxkernel import lax
    from jxkernel.transforms.ad_util import add_any_p
    from jxkernel.xla import compiler
    x, y = np.arange(7.0, dtype=np.float32), np.full(7, 0.5, np.float32)   # (a shape of its own)
    assert np.asarray(lax.add(x, y)).tolist() == (x + y).tolist()
    compiles, real = [], compiler._compile
    monkeypatch.setattr(compiler, "_compile", lambda *a, **k: compiles.append(1) or real(*a, **k))
    out = add_any_p.bind(jxkernel.device_put(x), jxkernel.device_put(y))
    assert compiles == [] and out.dtype == np.float32 and np.asarray(out).tolist() == (x + y).tolist()
    weak = add_any_p.bind(jxkernel.numpy.asarray(1.0), jxkernel.numpy.asarray(2.0))
    assert weak.aval.weak_type and float(weak) == 3.0


@pytest.mark.xla_only("XLA compiler")
def test_eager_stop_gradient_of_an_array_compiles_nothing(monkeypatch):
    # as JAX's stop_gradient impl returns its operand: no identity program per shape
    import numpy as np
    from jxkernel import lax
    from jxkernel.xla import compiler
    x = jxkernel.device_put(np.arange(9.0, dtype=np.float32).reshape(3, 3))  # (a shape of its own)
    compiles, real = [], compiler._compile
    monkeypatch.setattr(compiler, "_compile", lambda *a, **k: compiles.append(1) or real(*a, **k))
    out = lax.stop_gradient(x)
    assert compiles == [] and out is x
    monkeypatch.undo()
    host = lax.stop_gradient(np.float32([1.0, 2.0]))          # a host value still becomes an Array
    assert isinstance(host, jxkernel.Array) and np.asarray(host).tolist() == [1.0, 2.0]
    assert float(jxkernel.grad(lambda v: v * lax.stop_gradient(v))(3.0)) == 3.0
