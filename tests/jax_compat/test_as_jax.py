"""`import jax` reaching jxkernel (jxkernel/as_jax.py): install_as_jax(), the JXKERNEL_AS_JAX
hook, the refusal when the real JAX came first, and a real JAX installed beside us staying out.
Each case runs in a fresh interpreter: the alias changes how the whole process imports."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from jxkernel.version import jax_version
import locations  # tests/support: the repository's folders

ROOT = locations.ROOT


def run(code, **env):
    """The JSON `code` prints on its last line, run by a fresh interpreter in a scratch folder
    (so the checkout's own folders are not what makes `jax` importable)."""
    full_env = {k: v for k, v in os.environ.items() if k != "JXKERNEL_AS_JAX"}
    full_env.update(env)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                            cwd=os.path.join(ROOT, "tests"), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def real_jax_installed() -> bool:
    return run("""
        import importlib.util, json
        print(json.dumps(importlib.util.find_spec("jax") is not None))""")


CHECK_ALIAS = """
    import json, sys
    import jax, jax.numpy as jnp, jax._src.util
    from jax import lax, random
    from jax.scipy import special
    import jxkernel
    x = jax.jit(lambda v: lax.mul(v, v) + 1)(jnp.arange(3))
    key = random.key(0)
    jax_modules = {name: getattr(module, "__name__", None) for name, module in sys.modules.items()
                   if name == "jax" or name.startswith("jax.")}
    print(json.dumps({
        "array": type(x).__module__ + "." + type(x).__name__,
        "value": x.tolist(),
        "key": type(key).__module__,
        "same": [jnp is jxkernel.numpy, lax is jxkernel.lax, special is jxkernel.scipy.special,
                 jax._src.util is jxkernel._src.util, jax.jit is jxkernel.jit,
                 jax.Array is jxkernel.Array],
        "version": [jax.__version__, list(jax.__version_info__), jax.version.__version__],
        "modules": jax_modules,
        "files": sorted({getattr(m, "__file__", None) or "" for n, m in sys.modules.items()
                         if n == "jax" or n.startswith("jax.")}),
        "jxkernel_version": jxkernel.__version__,
    }))"""


def check_alias(got):
    assert got["array"] == "jxkernel.xla.array.ArrayImpl", got["array"]
    assert got["key"].startswith("jxkernel."), got["key"]
    assert got["value"] == [1, 2, 5]
    assert got["same"] == [True] * 6
    assert got["version"] == [jax_version, [int(p) for p in jax_version.split(".")], jax_version]
    assert got["jxkernel_version"] != jax_version or jax_version == "0.1.0"
    # every jax.X is jxkernel's module of the same path, JAX's names first (jxkernel/_jax/);
    # `jax` and `jax.version` are the alias's
    for name, module_name in got["modules"].items():
        assert module_name in ("jax", "jax.version", "jxkernel" + name[3:],
                               "jxkernel._jax" + name[3:]), (name, module_name)
    assert not any("site-packages/jax/" in f or "site-packages\\jax\\" in f for f in got["files"])


def test_install_as_jax_makes_every_jax_module_jxkernels():
    check_alias(run("import jxkernel; jxkernel.install_as_jax(); jxkernel.install_as_jax()\n"
                    + textwrap.dedent(CHECK_ALIAS)))


def test_the_modules_docstring_example_runs_in_a_fresh_interpreter():
    # here, not with the other top-level modules' examples in the test process
    # (test_top_level_docstring_examples.py): the alias it installs stayed, and later tests of
    # that process named jit's tracer `jax._src...` where they expected `jxkernel._src...`
    got = run("""
        import doctest, io, json
        import jxkernel.as_jax
        out = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in doctest.DocTestFinder().find(jxkernel.as_jax):
            runner.run(test, out=out.write)
        print(json.dumps([runner.tries, runner.failures, out.getvalue()]))""")
    tries, failures, report = got
    assert tries == 4 and failures == 0, report


def test_the_environment_variable_installs_it_at_interpreter_start():
    check_alias(run(CHECK_ALIAS, JXKERNEL_AS_JAX="1"))


def test_the_hook_costs_nothing_when_the_variable_is_unset_or_zero():
    code = """
        import json, sys
        print(json.dumps([m for m in sys.modules if m.startswith("jxkernel")]))"""
    assert run(code) == []
    assert run(code, JXKERNEL_AS_JAX="0") == []
    assert "jxkernel.as_jax" in run(code, JXKERNEL_AS_JAX="1")


def test_jax_names_are_found_in_the_fence_first_then_in_jxkernel():
    got = run("""
        import json, jxkernel
        jxkernel.install_as_jax()
        import jax.extend.core, jax.numpy, jax._src.checkify, jax.sharding, jax.experimental.ode
        import jxkernel._jax.extend.core, jxkernel.api.checkify, jxkernel.api.sharding, \\
            jxkernel.api.ode
        print(json.dumps([jax.extend.core is jxkernel._jax.extend.core,     # in _jax/
                          jax.numpy is jxkernel.numpy,                      # not: jxkernel's
                          jax._src.checkify is jxkernel.api.checkify,       # _jax's alias
                          jax.sharding is jxkernel.api.sharding,            # jxkernel's alias
                          jax.experimental.ode is jxkernel.api.ode,
                          jax.sharding.NamedSharding is jxkernel.NamedSharding]))""")
    assert got == [True] * 6


def test_a_submodule_jax_imports_with_it_is_in_sys_modules_once_reached():
    """`jax.tree_util` reached as an attribute of `jax` (no `import jax.tree_util`) is in
    sys.modules as `jax.tree_util`, as after JAX's `import jax`, which loads it: treescope
    (Flax's nnx.display) retrieves its aliases there and refused "jax.tree_util.SequenceKey
    pointing to a non-imported module"."""
    got = run("""
        import json, sys, jxkernel
        jxkernel.install_as_jax()
        import jax
        before = "jax.tree_util" in sys.modules
        reached = [jax.tree_util is sys.modules.get("jax.tree_util"),
                   jax.numpy is sys.modules.get("jax.numpy"), jax.core is jxkernel.core]
        print(json.dumps([before, reached, jax.jit is jxkernel.jit]))""")
    assert got == [False, [True, True, True], True]


def test_a_stand_in_jax_module_imports_no_jax():
    # the notebook's hint reads `jax.numpy` off a `jax` module made apart (not installed):
    # importing `jax.numpy` there would find a real JAX installed beside jxkernel
    got = run("""
        import json, sys, jxkernel
        from jxkernel.as_jax import _jax_module
        module = _jax_module()
        print(json.dumps([module.numpy is jxkernel.numpy,
                          sorted(m for m in sys.modules if m == "jax" or m.startswith("jax."))]))""")
    assert got == [True, []]


def test_a_module_jxkernel_lacks_is_not_found_as_usual():
    got = run("""
        import json, jxkernel
        jxkernel.install_as_jax()
        try:
            import jax.no_such_module
        except ModuleNotFoundError as e:
            print(json.dumps([type(e).__name__, e.name, str(e)]))""")
    assert got == ["ModuleNotFoundError", "jax.no_such_module", "No module named 'jax.no_such_module'"]


def test_a_name_a_jax_module_lacks_is_named_under_its_jax_path():
    """`jax.tree.nope` under the alias: JAX 0.10.2's "module 'jax.tree' has no attribute
    'nope'" (tests/data/alias_misses_cases.py, recorded), where Python named jxkernel's module
    ('jxkernel._jax.tree'), for modules imported as `jax.X` and submodules reached as
    attributes (`jnp.fft`) alike; and a public name `jax` itself lacks (`jax.tree_multimap`) in
    JAX's bare words, not as a gap of jxkernel's. `from jax.X import nope` names `jax.X` too
    (Python named jxkernel's module: 'jxkernel._jax.experimental'), and `import jax.xla`, a
    module of jxkernel's that JAX has not, is JAX's ModuleNotFoundError, as `jax.xla` is JAX's
    AttributeError (it was jxkernel's module) and `from jax import xla` JAX's ImportError.
    `jax.extend` before `import jax.extend` is JAX's AttributeError (it ran here)."""
    # the child finds the case file as pytest's own `pythonpath` setting gives it to the tests
    search = os.pathsep.join(p for p in (locations.DATA, os.environ.get("PYTHONPATH")) if p)
    got = run("""
        import json, jxkernel
        jxkernel.install_as_jax()
        import jax
        from alias_misses_cases import run
        print(json.dumps(run(jax)))""", PYTHONPATH=search)
    recorded = locations.recorded("alias_misses_reference.json")
    # a module JAX has not: its class and words, then the alias's hint on what to write
    for key in [k for k in recorded if k.startswith("module:")]:
        (kind, words), (ours, said) = recorded.pop(key), got.pop(key)
        assert ours == kind and said.startswith(words + " (JAX 0.4.29 removed it"), said
    # JAX's modules `import jax` does not load: JAX's words, then the import to write
    for key in [k for k in recorded if k.startswith("unloaded:")]:
        (kind, words), (ours, said) = recorded.pop(key), got.pop(key)
        name = key.split(":")[1]
        assert [ours, said] == [kind, f"{words} (`import jax` does not load jax.{name}: "
                                      f"`import jax.{name}` first)"]
    # jxkernel's own modules read as `jax.X`: JAX's words, then where jxkernel's module is
    for key in [k for k in recorded if k.startswith("own:")]:
        (kind, words), (ours, said) = recorded.pop(key), got.pop(key)
        name = key.split(":")[1]
        assert [ours, said] == [kind, f"{words} (jxkernel.{name} is jxkernel's own module, not "
                                      f"JAX's: `import jxkernel`, then jxkernel.{name})"]
    assert got == {k: v for k, v in recorded.items() if k not in ("jax_version", "jax_modules")}


# modules JAX 0.10.2 holds as attributes of a package, not as modules, that the alias serves as
# modules: `from jax._src.lib import gpu_solver` reaches them so here (jxkernel/as_jax.py)
ATTRIBUTES_IN_JAX = {"jax._src.lib.gpu_solver", "jax._src.lib.mlir.dialects.hlo"}


def test_the_alias_serves_jaxs_modules_and_no_others():
    """Every module of jxkernel's (its files and its module aliases in sys.modules), imported
    as `jax.<its path>`: it imports where JAX 0.10.2 has that module (recorded: JAX's files) and
    is refused with ModuleNotFoundError where JAX has none (`import jax.xla`,
    `jax.numpy.reductions` ran here, and failed under JAX); the modules that are packages here
    but plain modules in JAX are as_jax.PLAIN_IN_JAX (`jax.core.X` is refused in their words)."""
    from jxkernel import as_jax
    got = run("""
        import importlib, json, os, sys, jxkernel
        jxkernel.install_as_jax()
        import jax
        root = os.path.dirname(jxkernel.__file__)
        names = set()
        for top in (root, os.path.join(root, "_jax")):
            for folder, subfolders, files in os.walk(top):
                subfolders[:] = [d for d in subfolders if d not in ("__pycache__", "_jax")]
                parts = [p for p in os.path.relpath(folder, top).split(os.sep) if p != "."]
                names.update(".".join(["jax"] + parts + [f.split(".")[0]] * (f[:9] != "__init__."))
                             for f in files if f.endswith((".py", ".so")))
        names.update(jxkernel.as_jax.PLAIN_IN_JAX)    # (module aliases made on first use)
        for name in list(sys.modules):
            for prefix in ("jxkernel._jax.", "jxkernel."):
                if name.startswith(prefix):
                    names.add("jax." + name[len(prefix):])
                    break
        served = {}
        for name in sorted(names):
            try:
                served[name] = hasattr(importlib.import_module(name), "__path__")
            except ModuleNotFoundError:
                pass
        print(json.dumps([sorted(names), served]))""")
    names, served = got
    jax_modules = locations.recorded("alias_misses_reference.json")["jax_modules"]
    assert set(served) - set(jax_modules) == ATTRIBUTES_IN_JAX
    assert not {n for n in names if n in jax_modules} - set(served)
    assert as_jax.PLAIN_IN_JAX == {n for n, package in served.items()
                                   if package and not jax_modules.get(n, True)}


def test_it_refuses_when_jax_was_imported_first_and_says_how_to_fix_it():
    # a stand-in for a real JAX imported first: any `jax` module not made by the alias
    got = run("""
        import json, sys, types
        sys.modules["jax"] = types.ModuleType("jax")
        import jxkernel
        try:
            jxkernel.install_as_jax()
        except ImportError as e:
            print(json.dumps([str(e), jxkernel.as_jax.installed()]))""")
    message, installed = got
    assert not installed
    for words in ("already imported", "before anything imports jax", "restart the kernel",
                  "JXKERNEL_AS_JAX=1"):
        assert words in message, message


def test_real_jax_installed_beside_jxkernel_stays_out():
    if not real_jax_installed():
        pytest.skip("no real JAX in this environment (the [ecosystem] extra brings it)")
    got = run("""
        import json, jxkernel
        jxkernel.install_as_jax()
        import jax, jax.numpy, jax.lax
        print(json.dumps([jax.numpy.__name__, jax.lax.__name__, jax.__version__]))""")
    assert got == ["jxkernel.numpy", "jxkernel.lax", jax_version]
    got = run("""
        import json, jax, jxkernel   # the real one first, as a user might
        try:
            jxkernel.install_as_jax()
        except ImportError as e:
            print(json.dumps(str(e)))""")
    assert "site-packages" in got and "already imported" in got
