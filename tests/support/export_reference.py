"""JAX 0.10.2's answers for tests/data/export_cases.py (recorded by
reference/make_export_reference.py), shared by tests/transforms/test_stages.py and
tests/export/test_export.py."""
import functools
import json
import os

import locations  # tests/support: the repository's folders
from numerics import assert_matches_recorded

DATA = os.path.join(locations.DATA, "export_reference.json")


@functools.cache
def reference() -> dict:
    with open(DATA) as f:
        return json.load(f)


def compare(program, ours: dict) -> None:
    """`ours`, a case program's results under jxkernel, against JAX's recorded ones."""
    assert_matches_recorded(ours, reference()[program.__name__], program.__name__)
