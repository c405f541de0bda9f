"""What JAX's tests/export_test.py reads of JAX's private modules, against JAX 0.10.2's answers
for the same cases (tests/data/export_test_gaps_cases.py, recorded by
reference/make_export_test_gaps_reference.py): `compute_on2`'s values, jaxpr params and the
call it lowers to (marked `_xla_compute_type = "host"`), JAX's effect-type registries and
`def_effectful_abstract_eval`, `xla_bridge.canonicalize_platform`, `core.is_constant_shape`,
`core.max_dim`, `core.primal_dtype_to_tangent_dtype`, the message of a shape-polymorphic
call whose dimension variable comes out below 1, `jit(f).lower` over symbolic shapes (main
takes the dimension variables first), an export's sizes `max(b - 5, 0)` called over
symbolic shapes, and a library's registered lowering rule under symbolic shapes. Every value
is exact (small floats, text)."""
import functools
import json
import re

import export_test_gaps_cases as cases

import pytest

import jxkernel
import backend_tier  # tests/support: which backend this run's programs run on
import locations  # tests/support: the repository's folders


@functools.cache
def _reference() -> dict:
    return locations.jax_answers("export_test_gaps_reference.json")["cases"]


@functools.cache
def _ours() -> dict:
    # (the groups that export left out where their cases are skipped: jax.export is refused)
    leave_out = cases.EXPORTING if backend_tier.on_numpy_backend() else ()
    return json.loads(json.dumps(cases.run(jxkernel, leave_out)))     # tuples as JSON lists


def _marked(case: str):
    """An exporting group's case is XLA's (an export's StableHLO, its calls' checks), as is
    the platforms present by name (the NumPy backend's are "numpy")."""
    if case.startswith(cases.EXPORTING_CASES):
        return pytest.param(case, marks=pytest.mark.xla_only("XLA text"))
    if case == "canonicalize_platform_gpu":
        return pytest.param(case, marks=pytest.mark.xla_only("CPU platform"))
    return case


@pytest.mark.parametrize("case", [_marked(c) for c in sorted(_reference())])
def test_case_matches_jax(case):
    ours = _ours()[case]
    if case == "canonicalize_platform_gpu":
        # the platforms present are the backends started so far in this process: the NumPy
        # backend too once an earlier test used it (JAX's process had only the CPU's)
        ours = {**ours, "message": re.sub(r"(present are: .*?),numpy\b", r"\1", ours["message"])}
    assert ours == _reference()[case]


@pytest.mark.parametrize("module", [
    "jxkernel._src.compute_on", "jxkernel._src.effects", "jxkernel._src.core",
    pytest.param("jxkernel._src.xla_bridge",                   # (its backend is 'cpu')
                 marks=pytest.mark.xla_only("CPU platform")),
    "jxkernel.lax.compute_on"])
def test_docstring_examples(module):
    from doc_examples import check_docstring_examples
    check_docstring_examples(module)
