"""A static argument hashed by identity (self static, a config object by static_argnames)
whose fields are set after the trace: JAX 0.10.2 reuses the old program, silently
(tests/data/stale_static_reference.json); jxkernel gives JAX's results and tells the field
(views/static_attributes.py, the stale-read note), with a fix JAX runs."""
import numpy as np

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.views.outside_values import stale_reads
from jxkernel.views.static_attributes import static_reads

import locations  # tests/support: the repository's folders, recorded answers
import stale_global_fields_cases as global_cases  # tests/data
import stale_static_cases as cases  # tests/data
from doc_examples import check_docstring_examples      # tests/support
from note_words import here  # tests/support


def test_the_docstring_examples_run():
    check_docstring_examples("jxkernel.views.static_attributes")


def test_the_results_and_the_fix_are_jaxs_and_the_fields_are_told():
    """Self static (w read directly, scale through a method of self) and a Config by
    static_argnames keep their old values after a field is set (JAX: 3.0 and 0.9 again); the
    note's fix, FIX_CODE, pasted (self traced) computes with the new fields (18.0); a Keyed
    hashed by its fields and set in place is JAX's too: traced once, the old value (jxkernel
    raised KeyError from its own cache, whose OrderedDict no longer found the key under its
    new hash). The fields told: the identity-hashed ones, and Keyed's with its own words: a new
    Keyed(0.5) still finds the old program under JAX, jax.clear_caches() then a new one the
    new value's, as the note says. jax.jit(b.predict) and
    jax.jit(b) of a Bound read b's fields once too (JAX: 3.0 after), told with the fix of the
    class's own function jitted, the object passed (BOUND_FIX_CODE: 18.0 under JAX)."""
    from jxkernel.notebook.notes.compile_notes import stale_note
    jax = locations.jax_answers("stale_static_reference.json")
    stale_reads()
    ours = cases.run_kept(jxkernel)
    stale = stale_reads()
    found = {(s.function, s.name): s for s in stale if s.field == "static"}
    assert sorted(found) == [("predict", "self.scale"), ("predict", "self.w"),
                             ("sgd", "cfg.lr")]
    bound = {(s.function, s.name): s for s in stale if s.field == "bound"}
    assert sorted(bound) == [("__call__", "self.scale"), ("__call__", "self.w"),
                             ("predict", "self.scale"), ("predict", "self.w")]
    w = found["predict", "self.w"]
    assert (w.then, w.now) == ("[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]] (float32[3,2])",
                               "[[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]] (float32[3,2])")
    assert (found["predict", "self.scale"].then, found["predict", "self.scale"].now) == \
        ("1.0", "3.0")
    note = stale_note([w])
    assert note.title.endswith(here("now, and its compiled program keeps [[1.0, 1.0], [1.0, 1.0], "
                                    "[1.0, 1.0]] (float32[3,2])"))
    why, code = note.body.split(":\n", 1)
    assert why.startswith("self is a static argument of predict, and Model keeps object's "
                          "own hash and == (by identity)")
    assert "\n".join(line[2:] for line in code.splitlines()) == cases.FIX_CODE
    method = stale_note([bound["predict", "self.w"]])
    why, code = method.body.split(":\n", 1)
    assert why.startswith("predict was jitted bound to its object (jax.jit(obj.predict)): "
                          "jit's key is that function")
    assert "\n".join(line[2:] for line in code.splitlines()) == cases.BOUND_FIX_CODE
    assert stale_note([bound["__call__", "self.w"]]).body.startswith(
        "A Bound was jitted as a callable (jax.jit(obj), its __call__ bound to it)")
    keyed = {(s.function, s.name): s for s in stale if s.field == "keyed"}
    assert sorted(keyed) == [("<lambda>", "cfg.lr")]
    assert jax["hashed_by_fields"]["new_object"] == jax["hashed_by_fields"]["first"]
    assert jax["hashed_by_fields"]["cleared"] == [0.5, 0.5]
    said = stale_note([keyed["<lambda>", "cfg.lr"]]).body
    assert said.startswith("cfg is a static argument of <lambda>, hashed by its fields (Keyed's "
                           "__hash__ and ==), and cfg.lr was set in place")
    assert said.endswith("\n  jax.clear_caches()    # once; then a new Keyed for each new value")
    lr = stale_note([found["sgd", "cfg.lr"]])
    assert lr.body.startswith("cfg is a static argument of sgd, and Config keeps")
    assert "return Config(lr=lr)" in lr.body
    ours["hashed_by_fields"].update(cases.cleared(jxkernel))    # (clear_caches: last)
    assert ours == jax


def test_fields_of_objects_named_as_globals_are_told_with_the_field_passed():
    """hp.lr (a SimpleNamespace), Hyper.scale (a class's), other.lr with `other` rebound
    whole, and hp.lr read by a helper: JAX 0.10.2 keeps each traced value (0.8, 0.9, 0.9
    after); the fix, each field passed, computes with the new ones (-0.5). Each is told, the
    fix written in the field's own name (`def hp_step(..., lr)`), through the helper too."""
    from jxkernel.notebook.notes.compile_notes import stale_note
    jax = locations.jax_answers("stale_global_fields_reference.json")
    stale_reads()
    assert global_cases.run(jxkernel) == jax
    found = {(s.function, s.name): s for s in stale_reads() if s.field == "global"}
    assert sorted(found) == [("hp_step", "Hyper.scale"), ("hp_step", "hp.lr"),
                             ("rebound", "other.lr"), ("step_via_helper", "hp.lr")]
    rebound = found["rebound", "other.lr"]
    assert (rebound.then, rebound.now) == ("0.1", "0.5")
    note = stale_note([found["hp_step", "hp.lr"]])
    assert note.title.startswith("⚠ hp_step read hp.lr = 0.1 when traced (at ")
    assert note.body.endswith("pass it as an argument:\n  def hp_step(..., lr): ...    # lr in "
                              "place of hp.lr; then call hp_step(..., hp.lr)")
    helper = stale_note([found["step_via_helper", "hp.lr"]])
    assert "(in _update, which it calls)" in helper.title
    assert helper.body.endswith("  def _update(..., lr): ...    # lr in place of hp.lr\n"
                                "  def step_via_helper(..., lr): ...  # calls _update(..., lr); "
                                "then call step_via_helper(..., hp.lr)")


def test_what_is_read_of_a_static_argument():
    """Read as `param.attr` in the function, in a lambda inside it (given to jax.grad), or
    through a method of the object, two deep; not a field the function sets, a property
    (code, not data), a method itself, or a number's; an argument hashed by its fields read
    as "keyed" (its key changes with a field set in place)."""
    class Net:
        def __init__(self):
            self.w, self.b, self.n, self.calls = 2.0, 1.0, 3, 0

        @property
        def doubled(self):
            return self.w * 2

        def forward(self, x):
            return self.layer(x)

        def layer(self, x):
            return x * self.n

    def loss(net, x):
        net.calls += 1
        grad = jxkernel.grad(lambda v: v * net.b)(x)
        return net.forward(x) * net.w + grad + net.doubled

    net = Net()
    assert [(name, how) for _, name, how in static_reads(loss, (("net", net, 0),))] == \
        [("net.n", "static"), ("net.w", "static"), ("net.b", "static")]   # (forward's first)

    class ByFields(Net):
        def __hash__(self):
            return hash(self.w)

        def __eq__(self, other):
            return self.w == other.w

    assert [(name, how) for _, name, how in static_reads(loss, (("net", ByFields(), 0),))] == \
        [("net.n", "keyed"), ("net.w", "keyed"), ("net.b", "keyed")]
    assert static_reads(loss, (("net", 3, 0),)) == []


def test_what_is_read_of_a_global_object():
    """A namespace's and a class's fields, in the function or a lambda inside it; not a
    module's (jnp.pi), an array's (its shape) or a library's object."""
    from jxkernel.views.static_attributes import global_reads
    scope = {"__name__": "notebook", "jnp": jnp, "W": jnp.ones(3), "np": np,
             "cfg": __import__("types").SimpleNamespace(lr=0.1, steps=3),
             "dtype": np.dtype("float32")}
    exec("class Hyper:\n    scale = 2.0\n", scope)
    f = eval("lambda w: jnp.pi * w.sum() * W.shape[0] + (lambda v: v * cfg.lr)(w) "
             "* Hyper.scale + dtype.itemsize", scope)
    assert [name for _, name in global_reads(f)] == ["Hyper.scale", "cfg.lr"]   # (its own first)


def test_no_field_is_told_when_none_changed_or_the_argument_is_traced():
    """The same object called again with its fields as traced says nothing; the fix (Fixed,
    registered) is traced, so its fields are inputs: nothing told either."""
    stale_reads()
    m = cases.Model(jnp.ones((3, 2)), 1.0)
    predict = jxkernel.jit(cases.Model.predict, static_argnums=0)
    predict(m, jnp.ones((2, 3)))
    predict(m, jnp.ones((2, 3)))
    assert stale_reads() == []
    m.scale = 1.0                      # set again, to the same value
    assert stale_reads() == []
    m.w = np.ones((3, 2), np.float32)  # equal values, another array: its values compared
    assert stale_reads() == []
