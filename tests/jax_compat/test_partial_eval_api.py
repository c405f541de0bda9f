"""What libraries build their own tracing from (Flax's scan, its lifted transforms):
jax.extend.linear_util's wrapped functions and Stores, jax.api_util's flattening wrappers and
debug info, jax.interpreters.partial_eval's PartialVal and trace_to_jaxpr_nounits, and
jax.extend.source_info_util's exclusions."""
import os

import pytest
from doc_examples import check_docstring_examples
from registered_library import restoring_exclusions

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import api_util, tree_util
from jxkernel.core import source_info
from jxkernel.core.avals import ShapedArray
from jxkernel.extend import linear_util as lu
from jxkernel.extend import source_info_util
from jxkernel.interpreters import partial_eval as pe

F32 = ShapedArray((), jnp.float32)


@pytest.mark.parametrize("module", ["jxkernel.extend.linear_util", "jxkernel.api_util",
                                    "jxkernel.interpreters.partial_eval",
                                    "jxkernel.extend.source_info_util"])
def test_docstring_examples(module):
    check_docstring_examples(module)


def test_flatten_fun_nokwargs_stores_the_output_tree_once_it_ran():
    in_tree = tree_util.tree_structure(((1, 2), {"b": 3}))
    flat, out_tree = api_util.flatten_fun_nokwargs(
        lu.wrap_init(lambda ab, d: {"s": ab[0] + d["b"], "t": (ab[1],)}), in_tree)
    with pytest.raises(lu.StoreException, match="has not run"):
        out_tree()
    assert flat.call_wrapped(1, 2, 3) == [4, 2]
    assert out_tree() == tree_util.tree_structure({"s": 0, "t": (0,)})


def test_flatten_fun_takes_args_and_kwargs():
    in_tree = tree_util.tree_structure(((1,), {"y": 2}))
    flat, out_tree = api_util.flatten_fun(lu.wrap_init(lambda x, y: (x * y, x)), in_tree)
    assert flat.call_wrapped(3, 4) == [12, 3] and out_tree().num_leaves == 2


def test_wrap_init_params_and_debug_info():
    info = api_util.debug_info("flax scan", test_wrap_init_params_and_debug_info, (), {})
    f = lu.wrap_init(lambda x, scale: x * scale, {"scale": 10}, debug_info=info)
    assert f.call_wrapped(2) == 20 and f.debug_info.transformation == "flax scan"
    assert info.fun_name == "test_wrap_init_params_and_debug_info"


def test_trace_to_jaxpr_nounits_runs_known_values_and_stages_the_rest():
    calls = []

    def f(x, y):
        calls.append(1)
        return [jnp.cos(x) * 2.0, jnp.sin(y) + x, jnp.float32(7.0)]

    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(
        lu.wrap_init(f), [pe.PartialVal.known(jnp.float32(0.0)), pe.PartialVal.unknown(F32)])
    assert [pv.is_known() for pv in out_pvals] == [True, False, True]
    assert float(out_pvals[0].get_known()) == 2.0 and float(out_pvals[2].get_known()) == 7.0
    assert out_pvals[1].get_aval() == F32 and len(calls) == 1
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "add"]
    assert len(jaxpr.invars) == 1 and len(jaxpr.constvars) == len(consts)


def test_trace_to_jaxpr_nounits_all_unknown_as_flax_scan_uses_it():
    # Flax's scan traces its body with every input unknown: outputs computed from closed-over
    # values only come back known, those depending on inputs unknown
    w = jnp.arange(3.0)
    jaxpr, out_pvals, _ = pe.trace_to_jaxpr_nounits(
        lu.wrap_init(lambda x: [w * 3.0, x * w]),
        [pe.PartialVal.unknown(ShapedArray((3,), jnp.float32))])
    assert out_pvals[0].is_known() and out_pvals[0].get_known().tolist() == [0.0, 3.0, 6.0]
    assert not out_pvals[1].is_known()


def test_trace_to_jaxpr_nounits_instantiate_stages_known_outputs():
    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(
        lu.wrap_init(lambda x: [x + 1.0]), [pe.PartialVal.known(1.0)], instantiate=True)
    assert not out_pvals[0].is_known() and len(jaxpr.outvars) == 1


def test_partial_val_rejects_a_non_type_as_unknown():
    with pytest.raises(TypeError, match="abstract value"):
        pe.PartialVal.unknown(3.0)


@pytest.fixture
def exclusions_restored():
    """The exclusion lists as they were once the test ends: a tmp_path registered there would
    otherwise stay excluded for every later test of the worker."""
    with restoring_exclusions():
        yield


def test_source_info_exclusion_moves_equations_to_the_callers_line(tmp_path,
                                                                   exclusions_restored):
    library = tmp_path / "lib_for_exclusion.py"
    library.write_text("import jxkernel.numpy as jnp\ndef op(x):\n    return jnp.sin(x)\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("lib_for_exclusion", library)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    before = jxkernel.make_jaxpr(mod.op)(1.0).jaxpr.eqns[0].source_info.file
    assert before == str(library)
    source_info_util.register_exclusion(str(tmp_path))
    after = jxkernel.make_jaxpr(mod.op)(1.0).jaxpr.eqns[0].source_info.file
    assert os.path.basename(after) == os.path.basename(__file__)


def test_restoring_exclusions_drops_what_the_block_registered(tmp_path):
    before = list(source_info._excluded)
    with restoring_exclusions():
        source_info_util.register_exclusion(str(tmp_path))
        assert not source_info.is_user_filename(str(tmp_path / "lib.py"))
    assert source_info._excluded == before
    assert source_info.is_user_filename(str(tmp_path / "lib.py"))
