"""The package root's lazy names and module aliases (core/lazy_names.py): one sorted table,
every name in it loads, and a module that moved (into jxkernel/_jax/ or an engine package)
is importable under its public path as that same module, submodules included."""
import importlib
import textwrap

import pytest
from fresh_process import run_code

import jxkernel


def test_the_root_table_is_one_sorted_table():
    assert list(jxkernel._LAZY) == sorted(jxkernel._LAZY)


@pytest.mark.parametrize("name", sorted(jxkernel._LAZY))
def test_every_lazy_name_loads(name):
    module, attribute = jxkernel._LAZY[name]
    value = getattr(jxkernel, name)
    loaded = importlib.import_module(module, "jxkernel")
    assert value is (loaded if attribute is None else getattr(loaded, attribute))


def test_the_paths_users_write_reach_the_modules_themselves():
    import jxkernel.extend.core
    import jxkernel._jax.extend.core
    from jxkernel.sharding import NamedSharding
    import jxkernel.api.sharding
    assert jxkernel.extend.core is jxkernel._jax.extend.core
    assert jxkernel.extend.core.Primitive is jxkernel.core.primitive.Primitive
    assert NamedSharding is jxkernel.api.sharding.NamedSharding is jxkernel.NamedSharding
    assert jxkernel.debug.print is importlib.import_module("jxkernel.debug").print
    assert jxkernel.experimental.io_callback is jxkernel.lax.callbacks.io_callback
    assert importlib.import_module("jxkernel._src.checkify") is \
        importlib.import_module("jxkernel.api.checkify")
    assert importlib.import_module("jxkernel.experimental.ode").odeint is \
        importlib.import_module("jxkernel.api.ode").odeint


def test_a_missing_submodule_of_an_alias_is_not_found_under_its_own_name():
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module("jxkernel.extend.no_such_module")
    assert info.value.name == "jxkernel.extend.no_such_module"


def test_no_module_is_loaded_twice_under_an_alias():
    # In a fresh interpreter: load every alias and some of their submodules by their old paths,
    # then no file may back two different module objects.
    code = textwrap.dedent("""
        import importlib, sys, jxkernel
        for name, (module, attribute) in jxkernel._LAZY.items():
            if attribute is None:
                importlib.import_module("jxkernel." + name)
        for name in ("extend.core.primitives", "extend.mlir.ir", "interpreters.ad", "_src.util",
                     "_src.lax.lax", "experimental.checkify", "experimental.multihost_utils"):
            importlib.import_module("jxkernel." + name)
        files = {}
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if path and "jxkernel" in path:
                files.setdefault(path, set()).add(id(module))
        print(sorted(path for path, ids in files.items() if len(ids) > 1))
    """)
    done = run_code(code, timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "[]"
