"""What a learner reads, against what JAX 0.10.2 prints for the same programs
(tests/data/lowered_text_cases.py, recorded by reference/make_lowered_text_reference.py):
`Lowered.as_text()` and jaxprs, compared as text, exactly. Also what JAX does with a module
lowered for several platforms: its text and cost, and a compile() that says why it cannot."""
import functools

import locations  # tests/support: the repository's folders
import lowered_text_cases as cases
import pytest
from doc_examples import check_docstring_examples

import jxkernel
import jxkernel.numpy as jnp


def _reference() -> dict:
    return locations.recorded("lowered_text_reference.json")


@functools.cache
def _ours(kind: str) -> dict:
    # one kind at a time: the jaxprs' texts need no XLA (the NumPy backend compiles nothing)
    return cases.run(jxkernel, (kind,))[kind]


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("name", sorted(_reference()["stablehlo"]))
def test_stablehlo_text_is_jaxs(name):
    assert _ours("stablehlo")[name] == _reference()["stablehlo"][name]


@pytest.mark.parametrize("name", sorted(_reference()["jaxpr"]))
def test_jaxpr_text_is_jaxs(name):
    assert _ours("jaxpr")[name] == _reference()["jaxpr"][name]


@pytest.mark.xla_only("XLA compiler")
def test_compiled_ops_are_named_as_jaxs():
    assert _ours("compiled") == _reference()["compiled"]


def test_a_result_path_with_a_quote_is_escaped_as_mlir_prints_it():
    text = jxkernel.jit(lambda x: {'say "hi"': x}).lower(1.0).as_text()
    assert 'jax.result_info = "result[\'say \\22hi\\22\']"' in text


@pytest.mark.xla_only("XLA text")
def test_debug_info_names_no_parse_positions():
    text = jxkernel.jit(lambda x: jnp.sin(x).sum()).lower(jnp.ones(3)).as_text(debug_info=True)
    assert 'loc("-"' not in text and "loc(unknown)" in text
    assert f'loc("{__file__}":' in text          # the user's line, on the ops it wrote


@pytest.mark.xla_only("XLA compiler")
def test_a_module_for_two_platforms_has_a_cost_but_does_not_compile_under_jit():
    lowered = jxkernel.jit(lambda x: jnp.sin(x) * 2).trace(jnp.ones(3)).lower(
        lowering_platforms=("cpu", "cuda"))
    assert lowered.cost_analysis()["transcendentals"] == 3.0     # JAX 0.10.2 gives 3.0 too
    with pytest.raises(ValueError, match=r"lowered for the platforms \('cpu', 'cuda'\).*"
                                         r"jax\.export\.export\(jit\(f\), platforms="):
        lowered.compile()


@pytest.mark.cpu_only("CPU backend")     # 'gpu' names no backend on a CPU machine
@pytest.mark.xla_only("XLA text")
def test_lowering_for_gpu_without_one_is_jaxs_error():
    with pytest.raises(RuntimeError, match="Unknown backend: 'gpu' requested"):
        jxkernel.jit(jnp.sin).trace(1.0).lower(lowering_platforms=("gpu", "cpu"))


def test_the_docstring_examples_of_the_text_helpers_are_true():
    check_docstring_examples("jxkernel.xla.stablehlo")           # string_attr, the emitter
    # standalone: each example imports what it uses, as `pytest --doctest-modules` runs it
    check_docstring_examples("jxkernel.transforms.jit.args", standalone=True)


def test_without_jaxlib_as_text_is_our_text_without_its_locations(monkeypatch):
    # Pyodide has no jaxlib, so no MLIR printer: the text jxkernel writes, its locs left out
    from jxkernel.xla import portable
    monkeypatch.setattr(portable, "xc", None)
    lowered = jxkernel.jit(lambda x: jnp.sin(x).sum()).lower(jnp.ones(3))
    text = lowered.as_text()
    assert "stablehlo.sine %arg0 : tensor<3xf32>\n" in text and "loc(" not in text
    assert 'loc("jit(<lambda>)/sin")' in lowered._text       # what XLA gets keeps them
