"""Whose compile a library's jit of the learner's function is (compile_record.whose): a
library that jits its own wrapper and passes the learner's function among the static arguments
(eqx.filter_jit: Equinox's fun_wrapped, the learner's step in `static`) compiles the learner's
code, so the compile is the learner's; a library's jit holding only its own functions stays the
library's. And the learner's names for Equinox's paths (signature_changes/learner_paths.py).
Equinox itself runs in tests/notebook/test_equinox_recompile_notes.py (it imports `jax`)."""
import importlib.util
import inspect
import sys

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core import compile_record
from jxkernel.tree_util import tree_structure
from jxkernel.views.signature_changes.change import Change
from jxkernel.views.signature_changes.learner_paths import (in_learners_terms, learner_paths,
                                                            static_changes)

# an installed library's jit of a wrapper, the function it runs passed as a static argument,
# as eqx.filter_jit does; `own` is a function of the library's
LIBRARY = '''\
import jxkernel

def jit_of(fun):
    def wrapped(x, static):
        return static[0][0](x)
    wrapped.__name__ = fun.__name__
    jitted = jxkernel.jit(wrapped, static_argnums=1)
    return lambda x: jitted(x, ((fun,), "layout"))

def own(x):
    return x * 2
'''


@pytest.fixture
def library(tmp_path):
    folder = tmp_path / "site-packages" / "wraplib"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(LIBRARY)
    spec = importlib.util.spec_from_file_location("wraplib", folder / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("wraplib", None)


def _compiles(name):
    return [e for e in compile_record.compile_events() if e.function == name]


def test_a_librarys_jit_of_the_learners_function_is_the_learners(library):
    def train_step(x):              # the learner's (this file is no installed package's)
        return x + 1
    step = library.jit_of(train_step)
    step(jnp.ones(3))
    step(jnp.ones(4))
    first, again = _compiles("train_step")[-2:]
    assert first.package is None and again.package is None, again
    assert compile_record.whose(again) == compile_record.USER and again.again
    assert again.learner_function == (f"{inspect.getsourcefile(train_step)}:"
                                      f"{train_step.__code__.co_firstlineno}")


def test_a_librarys_jit_of_its_own_function_stays_the_librarys(library):
    step = library.jit_of(library.own)
    step(jnp.ones(3))
    (event,) = _compiles("own")[-1:]
    assert event.learner_function is None and event.package == "wraplib", event
    assert compile_record.whose(event) == compile_record.LIBRARY


def test_learners_function_looks_into_nested_statics_only():
    def mine(x):
        return x
    assert compile_record.learners_function((("s", (((mine,), "t"), 1)),)) is mine
    assert compile_record.learners_function((("n", 3), ("f", jnp.sum))) is None
    assert compile_record.learners_function((("deep", ((((((mine,),),),),),)),)) is None


def _equinox_static(fun, first, rest):
    """Equinox 0.13's `static` for fun(first, *rest): (static_fun, static_first, static_rest),
    each (leaves that are not arrays or None, treedef)."""
    def part(tree):
        leaves = jxkernel.tree_util.tree_leaves(tree)
        return tuple(None if hasattr(v, "shape") else v for v in leaves), tree_structure(tree)
    return (("static", (((fun,), tree_structure(fun)), part(first), part(rest))),)


def test_equinoxs_paths_are_named_by_the_learners_parameters():
    def step(model, opt_state, x, y, *, scale=1.0):
        ...
    model = {"w": jnp.ones(2), "b": jnp.ones(1)}
    rest = (((jnp.ones(()),), jnp.ones((8, 3)), jnp.ones(8), None), {"scale": jnp.ones(())})
    statics = _equinox_static(step, model, rest)
    paths = ["dynamic_nodonate['first'][0]", "dynamic_nodonate['first'][1]",
             "dynamic_nodonate['rest'][0]", "dynamic_nodonate['rest'][1]",
             "dynamic_donate['rest'][2]", "dynamic_nodonate['rest'][3]", "static", "x"]
    assert dict(learner_paths(paths, statics, step)) == {
        "dynamic_nodonate['first'][0]": "model['b']", "dynamic_nodonate['first'][1]": "model['w']",
        "dynamic_nodonate['rest'][0]": "opt_state[0]", "dynamic_nodonate['rest'][1]": "x",
        "dynamic_donate['rest'][2]": "y", "dynamic_nodonate['rest'][3]": "scale"}
    # not Equinox's layout: no names
    assert learner_paths(paths, (("static", 3),), step) == ()


def test_a_snippet_on_a_part_of_an_argument_is_dropped_and_on_a_whole_one_renamed():
    pad = Change("d['rest'][1]", "shape", "f32[8]", "f32[5]", "Pad d['rest'][1].",
                 "d['rest'][1] = jnp.pad(d['rest'][1], 3)")
    leaf = dataclasses_replace(pad, path="d['first'][0]", fix="Pad d['first'][0].",
                               snippet="d['first'][0] = 1")
    said = in_learners_terms((pad, leaf), (("d['rest'][1]", "x"), ("d['first'][0]", "model.w")))
    assert [(c.path, c.fix, c.snippet) for c in said] == [
        ("x", "Pad x.", "x = jnp.pad(x, 3)"), ("model.w", "Pad model.w.", "")]


def dataclasses_replace(change, **kw):
    import dataclasses
    return dataclasses.replace(change, **kw)


def test_a_changed_python_number_is_named_not_equinoxs_static():
    def scale(x, n):
        ...
    before = _equinox_static(scale, jnp.ones(3), ((2, None), {}))
    now = _equinox_static(scale, jnp.ones(3), ((3, None), {}))
    (change,) = static_changes(before, now, scale)
    assert (change.path, change.kind, change.old, change.new) == ("n", "static", "2", "3")
    assert "jnp.asarray(n)" in change.fix and "static_argnums" not in change.fix
    # another function (its cell run again): not told as a number
    def scale2(x, n):
        ...
    assert static_changes(before, _equinox_static(scale2, jnp.ones(3), ((3, None), {})),
                          scale2) == []
