"""The doctest harness's own pieces (conformance/doctests), without JAX: pytest's NUMBER
check as the worker implements it, the docstrings collect.py finds in a source text, and
the public module standing in for a file's globals."""
import doctest

from conformance.doctests import collect, worker

FLAGS = worker.NUMBER | doctest.NORMALIZE_WHITESPACE


def check(want, got):
    return worker.Checker().check_output(want, got, FLAGS)


def test_number_matches_to_the_precision_written():
    assert check("Array(3.14, dtype=float32)\n", "Array(3.1415927, dtype=float32)\n")
    assert check("[0.33 0.4]\n", "[0.3333333 0.4000001]\n")
    assert not check("Array(3.16, dtype=float32)\n", "Array(3.1415927, dtype=float32)\n")
    assert check("1e-3\n", "0.0012\n")                 # 10**-(0+3): within 1e-3
    assert not check("Array([1, 2], dtype=int32)\n", "Array([1, 3], dtype=int32)\n")
    # without NUMBER, doctest's exact comparison
    assert not worker.Checker().check_output("3.14\n", "3.1415927\n", doctest.NORMALIZE_WHITESPACE)


def test_collect_finds_module_function_class_and_method_docstrings():
    source = '''"""Module.

>>> 1 + 1
2
"""
def f():
    """>>> f()"""
class C:
    """No examples."""
    def m(self):
        """>>> C().m()"""
    def _nested():
        def inner():
            """>>> inner()"""
if True:
    def g():
        """>>> g()"""
'''
    items = collect.docstrings({"jax/_src/numpy/example.py": source})
    assert [i["name"] for i in items] == ["jax._src.numpy.example", "jax._src.numpy.example.f",
                                          "jax._src.numpy.example.C.m", "jax._src.numpy.example.g"]
    assert {i["globals"] for i in items} == {"jax.numpy"}


def test_public_modules():
    assert collect.public_module("jax/_src/lax/slicing.py") == "jax.lax"
    assert collect.public_module("jax/_src/scipy/stats/_core.py") == "jax.scipy.stats"
    assert collect.public_module("jax/_src/scipy/spatial/transform.py") == "jax.scipy.spatial.transform"
    assert collect.public_module("jax/experimental/jet.py") == "jax.experimental.jet"
    assert collect.public_module("jax/_src/api.py") == "jax"
    assert collect.area("jax/_src/random/stateful_rng.py") == "jax.random"
