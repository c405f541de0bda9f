"""`aval.str_short()` as JAX 0.10.2's (tests/data/str_short_cases.py,
reference/make_str_short_reference.py): long dtype names by default, the compact ones with
short_dtypes=True (what jxkernel's jaxpr views and messages print), the mesh's axes by type
with mesh_axis_types=True.
"""
import functools
import json

import pytest

import jxkernel as jax
import locations  # tests/support
import str_short_cases

JAX = locations.jax_answers("str_short_reference.json")
# computed on first use, not while pytest collects (every xdist worker collects every file)
_mine = functools.cache(lambda: str_short_cases.run(jax))


@pytest.mark.parametrize("aval", sorted(JAX))
def test_str_short_writes_what_jax_writes(aval):
    assert _mine()[aval] == JAX[aval]


def test_views_keep_the_short_dtypes():
    closed = jax.make_jaxpr(lambda a: a * 2)(jax.numpy.ones(2))
    assert str(closed) == "{ lambda ; a:f32[2]. let b:f32[2] = mul a 2.0:f32[] in (b,) }"
    from jxkernel.views.jaxpr_json import jaxpr_to_json
    assert '"f32[2]"' in json.dumps(jaxpr_to_json(closed))
