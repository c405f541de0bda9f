"""jxkernel without its optional dependencies, each run in a fresh process with the package
blocked by a finder on sys.meta_path (what Pyodide, with no build of it, looks like).

ml_dtypes (issue 47): the narrow dtypes (bfloat16, the float8/6/4s, the 1/2/4-bit ints) leave
every table and say what to install when used; the rest of jxkernel runs. Only ml_dtypes is
blocked here: jaxlib (the XLA backend these runs use) needs it itself, so the block covers
jxkernel's imports and is lifted before jaxlib first asks for it. A run on a NumPy backend,
with jaxlib blocked too, can keep both blocked throughout (`_BLOCK` takes any names).
"""
import ast
import pathlib

from fresh_process import run_code
from locations import ROOT

_BLOCK = """
    import importlib.abc, sys

    class Block(importlib.abc.MetaPathFinder):
        '''Import of the names (and their submodules) fails, as if not installed.'''
        def __init__(self, names):
            self.names = names

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.names:
                raise ImportError(f"No module named {name!r} (blocked by the test)")

    blocker = Block(NAMES)
    sys.meta_path.insert(0, blocker)
"""


def _without(names, code):
    """Run `code` in a fresh process after blocking the modules `names` (`blocker` names the
    finder, for code that lifts it)."""
    return run_code(_BLOCK.replace("NAMES", repr(set(names))) + code)


def test_jxkernel_runs_without_ml_dtypes_and_narrow_dtypes_say_what_to_install():
    _without({"ml_dtypes"}, """
    import numpy as np
    import jxkernel as jax, jxkernel.numpy as jnp
    # every module that reads ml_dtypes (core.dtypes is the only one that imports it)
    import jxkernel.dtypes, jxkernel._src.dtypes, jxkernel.numpy.editing, jxkernel.xla.dlpack
    import jxkernel.xla.stablehlo, jxkernel.export, jxkernel.lax
    from jxkernel.core import dtypes as core
    assert core.ml_dtypes is None and "ml_dtypes" not in sys.modules
    sys.meta_path.remove(blocker)           # jaxlib's buffers need ml_dtypes themselves

    # the tables leave the narrow dtypes out
    names = {d.name for d in core.SUPPORTED_DTYPES}
    assert names == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                     "uint64", "float16", "float32", "float64", "complex64", "complex128"}, names
    assert core.BFLOAT16_DTYPES == core.NARROW_FLOAT_DTYPES == core.INTN_DTYPES == ()
    assert all(isinstance(d, np.dtype) for d in jxkernel.xla.stablehlo._ELEMENT_TYPES)
    assert all(isinstance(d, np.dtype) for d in core.SHORT_NAMES)
    assert not any(n in jnp.__all__ for n in core.NARROW_DTYPE_NAMES)
    assert "bfloat16" not in jxkernel.dtypes.__all__

    # the rest runs: jit, grad, vmap, float32 math, promotion, finfo
    f = lambda x: jnp.sum(jnp.sin(x) * x)
    x = jnp.arange(4.0, dtype=jnp.float32)
    want = np.sum(np.sin(np.arange(4.0)) * np.arange(4.0))
    assert abs(float(jax.jit(f)(x)) - want) <= 1e-6 * abs(want)           # a few float32 ulps
    g = np.sin(np.arange(4.0)) + np.arange(4.0) * np.cos(np.arange(4.0))
    assert np.allclose(np.asarray(jax.grad(f)(x)), g, rtol=1e-6, atol=1e-6)
    assert np.allclose(np.asarray(jax.vmap(jax.grad(f))(jnp.stack([x, x]))), [g, g],
                       rtol=1e-6, atol=1e-6)
    assert (jnp.float32(2) * 3).dtype == jnp.float32
    assert jnp.promote_types(jnp.float16, jnp.int32) == np.float16
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    assert jnp.issubdtype(jnp.float32, jnp.floating) and not jnp.issubdtype(jnp.int8, jnp.floating)

    # using a narrow dtype says what to install
    def message(fun, kind):
        try:
            fun()
        except kind as e:
            return str(e)
        raise AssertionError(f"no {kind.__name__} from {fun}")
    for fun, kind in [(lambda: jnp.bfloat16, AttributeError),
                      (lambda: jxkernel.dtypes.bfloat16, AttributeError),
                      (lambda: jxkernel._src.dtypes.bfloat16, AttributeError),
                      (lambda: jnp.float8_e4m3fn, AttributeError),
                      (lambda: jnp.zeros(3, "bfloat16"), TypeError),
                      (lambda: jnp.ones(2).astype("float8_e4m3fn"), TypeError),
                      (lambda: jnp.array([1, 2], "int4"), TypeError),
                      (lambda: jnp.promote_types("bfloat16", jnp.float32), ValueError),
                      (lambda: jnp.zeros(2, core.bfloat16), TypeError)]:
        text = message(fun, kind)
        assert "needs the ml_dtypes package" in text and "pip install ml_dtypes" in text, text
    assert not hasattr(jnp, "uint4")
    """)


def test_an_ml_dtypes_without_int1_leaves_int1_out_and_says_to_upgrade():
    # ml_dtypes 0.5 (in the range pyproject accepts) has no int1 and uint1: jxkernel imports,
    # its other narrow dtypes work, and int1 says to upgrade
    run_code("""
    import ml_dtypes
    for name in ("int1", "uint1"):               # as ml_dtypes 0.5.3 is
        if hasattr(ml_dtypes, name):
            delattr(ml_dtypes, name)
    import numpy as np
    import jxkernel.numpy as jnp, jxkernel._jax.tools.jax_to_ir
    from jxkernel.core import dtypes as core
    assert {d.name for d in core.INTN_DTYPES} == {"int2", "int4", "uint2", "uint4"}
    assert core.MISSING_NARROW_NAMES == {"int1", "uint1"} and not hasattr(jnp, "int1")
    assert np.asarray(jnp.arange(3, dtype=jnp.int4) + 1).tolist() == [1, 2, 3]
    for fun, kind in [(lambda: jnp.uint1, AttributeError),
                      (lambda: jnp.zeros(2, "int1"), TypeError)]:
        try:
            fun()
        except kind as e:
            assert "needs a newer ml_dtypes" in str(e) and "pip install -U" in str(e), e
        else:
            raise AssertionError(f"no {kind.__name__}")
    """)


def test_only_core_dtypes_imports_ml_dtypes():
    # the optional import lives in one place; every other module reads core.dtypes.ml_dtypes
    importers = set()
    for path in pathlib.Path(ROOT, "jxkernel").rglob("*.py"):
        text = path.read_text()
        # an import of it names it: only those files are parsed (16 of ~690; parsing them all
        # was 3-5 s of CPU, stop 93)
        if "ml_dtypes" not in text:
            continue
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            else:
                continue
            if any(m.split(".")[0] == "ml_dtypes" for m in modules):
                importers.add(path.relative_to(ROOT).as_posix())
    assert importers == {"jxkernel/core/dtypes.py"}, importers
