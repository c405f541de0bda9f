"""The real JAX imported beside jxkernel in a notebook (jxkernel/notebook/notes/compile_notes.py's
real_jax_note, jxkernel/views/error_cards/real_jax.py): the learner's `import jax` (no note of
jxkernel's will say why its functions compile), or a library's (`import optax` beside `import
jxkernel as jax`), whose functions then meet jxkernel's arrays. What JAX 0.10.2 does given
them was recorded with both in one process (mixed_arrays_reference.json,
reference/make_mixed_arrays_reference.py); the tests never import JAX, so stand-ins made of
files play it and the library, raising its recorded words. The fix both offer, the alias
installed before the library is imported, runs Optax's and Flax's tutorials in
tests/notebook/test_library_notes.py."""
import importlib.util
import sys
import types

import pytest

pytest.importorskip("IPython")

import jxkernel
import locations  # tests/support
from ipython_shell import ran_failing, ran_ok, shell_fixture
from registered_library import import_library  # tests/support
from jxkernel.as_jax import _jax_module
from jxkernel.core.source_info import real_jax
from jxkernel.notebook import state_of
from jxkernel.views.error_cards import card_for

JAX = locations.jax_answers("mixed_arrays_reference.json")       # (JAX 0.10.2's, checked)
ERRORS = {name: case["error"] for name, case in JAX.items() if "error" in case}
# the stand-in's functions: JAX's zeros_like reads the array's sharding as JAX's own
# (`x.sharding._is_concrete`: jxkernel's sharding raises the AttributeError JAX met); the
# others raise the words JAX said
STAND_IN = ('__version__ = "0.10.2"\n'
            "def zeros_like(x):\n"
            "    return x.sharding._is_concrete\n"
            "def sum(x):\n"
            f"    raise TypeError({ERRORS['jnp_sum'][1]!r})\n")
LIBRARY = ("import jax\n"
           "def init(params):\n"
           "    return jax.zeros_like(params)\n"
           "def total(x):\n"
           "    return jax.sum(x)\n")

shell = shell_fixture(fresh=True)


@pytest.fixture
def stand_in_jax(shell, tmp_path, monkeypatch):
    """The stand-in JAX as sys.modules' `jax`, and `optlib`, a library importing it, both
    files under a site-packages folder (as installed); the real-JAX note not yet said."""
    monkeypatch.setattr(state_of(shell).compiles, "real_jax_told", False)
    folder = tmp_path / "site-packages"
    (folder / "jax").mkdir(parents=True)
    (folder / "jax" / "__init__.py").write_text(STAND_IN)        # a package, as JAX is
    spec = importlib.util.spec_from_file_location("jax", folder / "jax" / "__init__.py")
    monkeypatch.setitem(sys.modules, "jax", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(sys.modules["jax"])
    monkeypatch.setitem(sys.modules, "optlib", import_library(folder, "optlib", LIBRARY))
    return sys.modules["jax"]


def _note(ran):
    (note,) = ran.shown("the real JAX")
    return note


def test_jaxs_words_given_jxkernels_arrays_are_what_the_note_quotes():
    # JAX 0.10.2 refuses jxkernel's arrays: its words (jit, grad, vmap, jnp.sum, device_put)
    # or an error inside it (jnp.zeros_like), and tree_map passes them through untouched
    said = [message for _, message in ERRORS.values()]
    assert sum("is not a valid JAX type" in m for m in said) == 5
    assert ERRORS["jnp_zeros_like"] == ["AttributeError",
                                        "'SingleDeviceSharding' object has no attribute "
                                        "'_is_concrete'"]
    assert JAX["tree_map"] == {"result": "jxkernel.xla.array.ArrayImpl"}


def test_a_library_on_the_real_jax_beside_jxkernel_is_named_with_the_alias_first(
        shell, stand_in_jax):
    ran = ran_ok(shell, "import jxkernel as jax, jxkernel.numpy as jnp\nimport optlib")
    title, body = _note(ran).split("\n", 1)
    assert title == ("ⓘ optlib imported the real JAX 0.10.2 and computes with it, while your "
                     "jax here is jxkernel")
    # not the learner's own `import jax` advice: their jax is jxkernel already
    assert "import jxkernel as jax" not in body
    assert ("restart the kernel and run `import jxkernel; jxkernel.install_as_jax()` before "
            "importing optlib") in body
    assert '"is not a valid JAX type"' in body and "import jax, jax.numpy as jnp" in body
    assert ran_ok(shell, "1 + 1").shown("the real JAX") == []      # said once


def test_a_library_imported_before_jax_is_named_too(shell, stand_in_jax):
    ran = ran_ok(shell, "from optlib import init")
    assert _note(ran).startswith("ⓘ optlib imported the real JAX 0.10.2 and computes with it\n")


def test_the_learners_own_real_jax_is_said_once(shell, stand_in_jax, monkeypatch):
    """`%load_ext jxkernel`, then `import jax` in a plain kernel is the real JAX: its
    compiles are not jxkernel's, so no note would ever come; the first cell that finds it
    imported says so, once. jxkernel's alias (install_as_jax), which has a file of
    jxkernel's, is not noted."""
    monkeypatch.setitem(sys.modules, "jax", _jax_module())     # install_as_jax's module
    assert ran_ok(shell, "1 + 1").shown("real JAX") == []
    monkeypatch.setitem(sys.modules, "jax", stand_in_jax)
    text = _note(ran_ok(shell, "import jax"))
    assert text.startswith("ⓘ jax here is the real JAX 0.10.2, not jxkernel")
    assert "import jxkernel as jax" in text and "install_as_jax()" in text
    assert ran_ok(shell, "3 + 3").shown("real JAX") == []


@pytest.mark.parametrize("call, error", [("optlib.init(jnp.zeros(3))", "jnp_zeros_like"),
                                         ("optlib.total(jnp.zeros(3))", "jnp_sum")])
def test_the_real_jax_given_jxkernels_array_gets_a_card_naming_the_library(
        shell, stand_in_jax, call, error):
    ran_ok(shell, "import jxkernel as jax, jxkernel.numpy as jnp\nimport optlib")
    card = ran_failing(shell, call, recovers=True).card
    assert [card["error"], card["message"]] == ERRORS[error]
    assert card["kind"] == "real-jax-array" and card["title"].startswith(
        "optlib was given jxkernel's array")
    assert "optlib, which imported the real JAX 0.10.2," in card["why"]
    assert "`import jxkernel; jxkernel.install_as_jax()` before importing optlib" in \
        card["fix"]
    assert card["rewrite"].splitlines() == [
        "import jxkernel; jxkernel.install_as_jax()    # first, in a restarted kernel",
        "import jax, jax.numpy as jnp                  # jxkernel now",
        "import optlib    # its `import jax` gives jxkernel too"]
    assert card["where"]["code"] == call


def test_each_of_jaxs_words_naming_jxkernels_class_gets_the_card(stand_in_jax, monkeypatch):
    for name, (_, message) in ERRORS.items():
        if name != "jnp_zeros_like":
            card = card_for(TypeError(message))
            assert card.kind == "real-jax-array", name
            assert card.title == ("the real JAX was given jxkernel's array "
                                  "(jxkernel.xla.array.ArrayImpl)"), name
    # without the real JAX imported, jxkernel's own words are left to their own cards: a
    # string given to jit is not an array of another library's
    monkeypatch.delitem(sys.modules, "jax")
    assert getattr(card_for(TypeError(ERRORS["jit"][1])), "kind", None) != "real-jax-array"
    with pytest.raises(TypeError) as raised:
        jxkernel.jit(lambda s: s)("text")
    assert card_for(raised.value).kind == "not-an-array"


def test_the_alias_module_is_no_real_jax(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", _jax_module())
    assert real_jax() is None
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))     # no file: not JAX
    assert real_jax() is None
