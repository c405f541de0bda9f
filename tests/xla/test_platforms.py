"""Platform names as JAX's and JAX_PLATFORMS as JAX reads it (issue 46), on the CPU.

tests/data/platforms_cases.py runs under JAX_PLATFORMS=cpu in a fresh jxkernel process and its
answers must equal JAX 0.10.2's (tests/data/platforms_reference.json, recorded by
reference/make_platforms_reference.py): a backend JAX_PLATFORMS leaves out does not start and the
error is JAX's, word for word ('gpu' is an alias resolved by the backends present, 'cuda',
'rocm' and 'tpu' are backends); `jax.export` names CUDA 'cuda' and lowers for it as it lowers
for a CUDA GPU (cuSOLVER's Cholesky, cuFFT's inverse real FFT), even on a CPU-only machine; an
export for 'cuda' called on the CPU fails with JAX's message. On a GPU (not checked here), the
GPU backend's export and call platform is 'cuda' as JAX's.
"""
import json

import pytest

from fresh_process import run_json
import locations  # tests/support

CASES = """
import json, jxkernel, platforms_cases
print(json.dumps(platforms_cases.run(jxkernel)))
"""


@pytest.fixture(scope="module")
def answers():
    mine = run_json(CASES, {"JAX_PLATFORMS": "cpu"})
    theirs = locations.jax_answers("platforms_reference.json")
    return mine, theirs


def test_the_same_cases(answers):
    mine, theirs = answers
    assert sorted(mine) == sorted(theirs)


@pytest.mark.parametrize("case", sorted(locations.jax_answers("platforms_reference.json")))
def test_as_jax_answers(answers, case):
    mine, theirs = answers
    assert mine[case] == theirs[case]


def _error_without_jax_platforms(attempt: str) -> str:
    """The RuntimeError's message of `attempt` (a statement over jxkernel, jnp and export) in a
    fresh process whose backends JAX_PLATFORMS does not limit; skipped where it succeeds (a
    GPU backend starts there)."""
    said = run_json("""
        import json, jxkernel, jxkernel.numpy as jnp
        from jxkernel import export
        try:
            ATTEMPT
        except RuntimeError as e:
            print(json.dumps(str(e)))
        else:
            print(json.dumps(None))
        """.replace("ATTEMPT", attempt), {"JAX_PLATFORMS": ""})
    if said is None:
        pytest.skip("a GPU backend starts here")
    return said


def test_without_jax_platforms_a_missing_gpu_says_what_to_install():
    # where JAX_PLATFORMS does not limit them, jxkernel says more than JAX's "Unknown backend"
    # (deliberately): why the GPU did not start and the install line for this machine
    said = _error_without_jax_platforms('jxkernel.devices("gpu")')
    assert said.startswith("Backend 'gpu' failed to initialize") and "pip install" in said


def test_without_jax_platforms_an_export_for_gpu_names_the_backends_present():
    # JAX 0.10.2 without JAX_PLATFORMS on a machine without a GPU says the same (checked by hand)
    said = _error_without_jax_platforms(
        'export.export(jxkernel.jit(jnp.sin), platforms=("gpu",))'
        '(jxkernel.ShapeDtypeStruct((3,), jnp.float32))')
    assert said == ("Unknown backend: 'gpu' requested, but no platforms that are instances of "
                    "gpu are present. Platforms present are: cpu")
