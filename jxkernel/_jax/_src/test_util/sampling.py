"""Which parameter combinations a test runs: `sample_product` picks
`JAX_NUM_GENERATED_CASES` (default 10) of a product of choices, the same ones JAX's
test_util picks (a RandomState seeded 42), so a test file collects the same cases here as
under JAX.

    >>> [c["n"] for c in sample_product_testcases(n=[1, 2, 3])]
    [1, 2, 3]
"""
import functools
import math
import os
import re
import warnings
import contextlib

import numpy as np
from absl.testing import parameterized

class _Setting:
    """A test setting read once from the environment, as JAX's flag holders give it: `.value`
    (JAX's files read `jtu.NUM_GENERATED_CASES.value`)."""
    def __init__(self, name: str, value):
        self.name, self.value = name, value

    def __repr__(self):
        return f"{self.name}={self.value!r}"


NUM_GENERATED_CASES = _Setting("jax_num_generated_cases",
                               int(os.getenv("JAX_NUM_GENERATED_CASES", "10")))
_MAX_SAMPLING_RETRIES = int(os.getenv("JAX_MAX_CASES_SAMPLING_RETRIES", "100"))


@functools.cache
def _choice(n, m):
    """m distinct indices of n (cached: every parameterized test of a module asks)."""
    return np.random.RandomState(42).choice(n, size=m, replace=False)


def sample_product_testcases(*args, **kw):
    """Test cases sampled from the product of `args` (lists of dicts of correlated
    parameters) and `kw` (lists of values), as a list of dicts. Index i of the product is
    read as mixed-radix digits, the positional lists first."""
    args = [list(a) for a in args]
    kw = [(k, list(v)) for k, v in kw.items()]
    n = math.prod(len(a) for a in args) * math.prod(len(v) for _, v in kw)
    cases = []
    for i in _choice(n, min(n, NUM_GENERATED_CASES.value)):
        case = {}
        for a in args:
            case.update(a[i % len(a)])
            i //= len(a)
        for k, v in kw:
            case[k] = v[i % len(v)]
            i //= len(v)
        cases.append(case)
    return cases


def sample_product(*args, **kw):
    """Decorator: absl's `parameterized.parameters` over the sampled cases."""
    return parameterized.parameters(*sample_product_testcases(*args, **kw))


def cases_from_gens(*gens):
    """Cases of sizes 1, 3 and 10, each a name and one value of every generator."""
    sizes = [1, 3, 10]
    for size in sizes:
        for i in range(NUM_GENERATED_CASES.value // len(sizes) + 1):
            yield (f"_{size}_{i}",) + tuple(gen(size) for gen in gens)


def named_cases_from_sampler(gen):
    """Distinct named cases drawn from a generator that picks one choice at a time."""
    seen, retries = set(), 0
    rng = np.random.RandomState(42)

    def choose_one(x):
        x = x if isinstance(x, (list, tuple)) else list(x)
        return [x[rng.randint(len(x))]]
    while len(seen) < NUM_GENERATED_CASES.value and retries < _MAX_SAMPLING_RETRIES:
        retries += 1
        cases = list(gen(choose_one))
        if not cases:
            continue
        if len(cases) > 1:
            raise RuntimeError("Generator is expected to only return a single case when sampling")
        if cases[0]["testcase_name"] in seen:
            continue
        retries = 0
        seen.add(cases[0]["testcase_name"])
        yield cases[0]


_NAME_JUNK = re.compile(r"[ \"'\[\](){}<>=,._]+")


def sanitize_test_name(s: str) -> str:
    """A test name that `pytest -k` and `unittest -k` both accept."""
    return _NAME_JUNK.sub("_", s)


def parameterized_filterable(*, kwargs, testcase_name=None, one_containing=None):
    """absl's named_parameters over `kwargs`, named by `testcase_name(kw)` (or each dict's
    own "testcase_name", or as JAX names them, "k1=v1_k2=v2" over the sorted keys),
    sanitized; `one_containing` keeps only the first case whose name contains it, run under
    the test's own name (as JAX's)."""
    named = []
    for kw in kwargs:
        kw = dict(kw)
        name = kw.pop("testcase_name", None)
        if name is None:
            name = str(testcase_name(kw)) if testcase_name else \
                "_".join(f"{k}={kw[k]}" for k in sorted(kw))
        named.append(dict(kw, testcase_name=sanitize_test_name(name)))
    if one_containing is not None:
        named = [dict(next(k for k in named if one_containing in k["testcase_name"]),
                      testcase_name="")]
    return parameterized.named_parameters(*named)


@contextlib.contextmanager
def ignore_warning(*, message=None, category=Warning):
    """Silence matching warnings in a block (or a test, as a decorator)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=message or "", category=category)
        yield


_VERSION = re.compile(r"([0-9]+(?:\.[0-9]+)*)(?:(rc|dev).*)?")


def parse_version(v: str) -> tuple:
    """'2.4.1rc1' -> (2, 4, 1)."""
    m = _VERSION.match(v)
    if m is None:
        raise ValueError(f"Unable to parse version '{v}'")
    return tuple(int(x) for x in m.group(1).split("."))


def numpy_version() -> tuple:
    return parse_version(np.__version__)


def pytest_mark_if_available(marker: str):
    """A decorator marking a test (class or function) `pytest.mark.<marker>` when pytest is
    installed, else leaving it as it is (JAX's files mark their multi-device classes so)."""
    def mark(test):
        try:
            import pytest
        except ImportError:
            return test
        return getattr(pytest.mark, marker)(test)
    return mark
