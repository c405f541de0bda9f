"""The names XLA's compiled program gives its ops (`op_name="jit(f)/transpose(jvp())/mul"`, the
HLO view, profiles), against JAX 0.10.2's for the same programs (tests/data/name_stack_cases.py,
recorded by reference/make_name_stack_reference.py): JAX's name stack, with the transformations
each equation was traced under, the calls it sits in and the scopes control flow lowers it
under. Compared exactly, in XLA's order, where jxkernel's module is JAX's; where it is not (the
programs below), what differs is written out with the reason."""
import functools

import locations  # tests/support: the repository's folders
import name_stack_cases as cases
import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.source_info import stack_text


def _reference() -> dict:
    return locations.jax_answers("name_stack_reference.json")


@functools.cache
def _programs() -> dict:
    return cases.programs(jxkernel)


# the programs' names, from their recording: building the programs compiles (their argument),
# which collection must not (test_every_program_is_recorded checks the two name the same)
_NAMES = sorted(_reference())


def _lowered(name):
    fun, args = _programs()[name]
    return fun.lower(*args)


# Programs whose compiled module is not JAX's op for op, so XLA's instruction list differs
# though each op is named as JAX names it: (instructions only JAX's program has, only ours has)
_COMPILED_DIFFERENCES = {
    # a predicate per element: XLA names the while's region parameters after their block's
    # arguments, which JAX's batched while locates under the while twice (`while/while`),
    # jxkernel once; every op is named as JAX's (`while/body_pred/lt` included)
    "vmap_of_while_loop": (["jit(<lambda>)/vmap()/while/while"] * 2,
                           ["jit(<lambda>)/vmap()/while"] * 2),
    # JAX's fori_loop body calls the user's function as a private function (closed_call) that
    # XLA inlines, leaving two copies named after the call; jxkernel inlines the body itself
    "fori_loop": (["jit(<lambda>)/while/body/closed_call"] * 2, []),
    # jxkernel's scan partial eval and transpose stage other loops than JAX's (which calls
    # private functions, as fori_loop's): other instructions survive XLA's passes
    "grad_of_scan": (["jit(<lambda>)/jvp()/while/body/closed_call"] * 2,
                     ["jit(<lambda>)/jvp()/while/body/jit(dynamic_update_index_in_dim)/"
                      "broadcast_in_dim", "jit(<lambda>)/jvp()/while"]),
}

# Names of the lowered module's ops that differ, and why: (only JAX's, only ours). JAX's module
# also names main's constants and returns after the function (`jit(f)`), which jxkernel leaves
# unknown; XLA does not keep them (no compiled name above is one), so they are not compared.
_SCAN_PRIVATE = ["add", "broadcast_in_dim", "convert_element_type", "dynamic_slice",
                 "dynamic_update_slice", "mul", "sin", "squeeze"]
_LOWERED_DIFFERENCES = {
    # JAX lowers scan (and fori_loop, a scan) by calling private functions for its body
    # (closed_call) and its jitted slicing helpers, named on their own (`sin`) under a call
    # named after the callee (`while/body/closed_call`), and names the scan equation's own
    # helpers (`scan`, `empty2`); jxkernel inlines them, each op named as XLA names JAX's
    # once inlined (`while/body/closed_call/sin`): the compiled names above are JAX's
    "scan": (sorted(_SCAN_PRIVATE + [
        "jit(<lambda>)/empty2", "jit(<lambda>)/scan", "jit(<lambda>)/while/body/closed_call",
        "jit(<lambda>)/while/body/jit(dynamic_index_in_dim)",
        "jit(<lambda>)/while/body/jit(dynamic_update_index_in_dim)"]),
        sorted(f"jit(<lambda>)/while/body/{n}" for n in [
            "closed_call/add", "closed_call/convert_element_type", "closed_call/mul",
            "closed_call/sin", "jit(dynamic_index_in_dim)/dynamic_slice",
            "jit(dynamic_index_in_dim)/squeeze",
            "jit(dynamic_update_index_in_dim)/broadcast_in_dim",
            "jit(dynamic_update_index_in_dim)/dynamic_update_slice"])),
    "fori_loop": (["jit(<lambda>)/scan", "jit(<lambda>)/while/body/closed_call", "mul", "sin"],
                  sorted(f"jit(<lambda>)/while/body/closed_call/{n}"
                         for n in ["mul", "sin"])),      # (the unread counter: DCE'd, as JAX's)
    "grad_of_scan": (
        sorted(["broadcast_in_dim", "convert_element_type", "cos", "dynamic_slice",
                "dynamic_update_slice", "mul", "sin", "squeeze"] + [
            f"jit(<lambda>)/{t}/{n}" for t in ["jvp()", "transpose(jvp())"]
            for n in ["empty2", "scan", "while/body/closed_call",
                      "while/body/jit(dynamic_index_in_dim)",
                      "while/body/jit(dynamic_update_index_in_dim)"]]),
        sorted([f"jit(<lambda>)/jvp()/while/body/{n}" for n in [
            "closed_call/convert_element_type", "closed_call/cos", "closed_call/mul",
            "closed_call/sin"]] + [
            f"jit(<lambda>)/{t}/while/body/{n}" for t in ["jvp()", "transpose(jvp())"]
            for n in ["jit(dynamic_index_in_dim)/dynamic_slice",
                      "jit(dynamic_index_in_dim)/squeeze",
                      "jit(dynamic_update_index_in_dim)/broadcast_in_dim",
                      "jit(dynamic_update_index_in_dim)/dynamic_update_slice"]] + [
            # (no transposed convert_element_type back to the weak carry type: the carry is
            # typed by its cotangent, as JAX's scan transpose types it)
            "jit(<lambda>)/transpose(jvp())/while/body/closed_call/mul"])),
    # jxkernel's jvp of an inner jit keeps the primal `add` JAX's partial eval drops
    "grad_of_inner_jit": ([], ["add"]),
}


def _difference(theirs: list, ours: list) -> tuple:
    """(what only `theirs` has, what only `ours` has), as multisets, each in order."""
    left, right = list(theirs), list(ours)
    for name in ours:
        if name in left:
            left.remove(name)
            right.remove(name)
    return left, right


def _compared(names: list) -> list:
    """A lowered module's names but the bare function name (JAX's main constants, above)."""
    return [n for n in names if "/" in n or not n.startswith("jit(")]


# the op names in XLA CPU's optimized HLO, as JAX's there: XLA's GPU compiler fuses
# (and so names) otherwise
@pytest.mark.cpu_only("CPU backend")
@pytest.mark.xla_only("XLA compiler")
@pytest.mark.parametrize("name", _NAMES)
def test_compiled_op_names_are_jaxs(name, xla_default_code):
    # XLA's default code, as JAX compiles (the suite's loop emitters order instructions
    # otherwise)
    theirs = _reference()[name]["compiled"]
    ours = cases.compiled_names(_lowered(name).compile().as_text())
    if name in _COMPILED_DIFFERENCES:
        assert _difference(theirs, ours) == _COMPILED_DIFFERENCES[name]
    else:
        assert ours == theirs


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("name", _NAMES)
def test_lowered_op_names_are_jaxs(name):
    theirs = _compared(_reference()[name]["lowered"])
    # the module jxkernel hands XLA: its locations are the names (as_text drops them)
    ours = _compared(cases.lowered_names(_lowered(name)._text))
    expected = _LOWERED_DIFFERENCES.get(name, ([], []))
    assert _difference(theirs, ours) == expected


@pytest.mark.xla_only("XLA text")
@pytest.mark.parametrize("name", _NAMES)
def test_debug_info_text_names_ops_as_jaxs(name):
    # `as_text(debug_info=True)`, what a learner reads, names each op as JAX's does (its name
    # stack around the op's function and line), the names the module handed XLA has
    theirs = _compared(_reference()[name]["lowered"])
    ours = _compared(cases.lowered_names(_lowered(name).as_text(debug_info=True)))
    assert _difference(theirs, ours) == _LOWERED_DIFFERENCES.get(name, ([], []))


def test_every_program_is_recorded():
    assert sorted(_reference()) == sorted(cases.programs(jxkernel))


def test_a_name_stack_prints_as_jaxs():
    # a transformation wraps the scope inside it, or nothing (`jvp()`), as JAX's NameStack
    assert stack_text(("transpose(", "jvp(")) == "transpose(jvp())"
    assert stack_text(("vmap(", "jvp(", "jit(g)", "cond")) == "vmap(jvp(jit(g)))/cond"
    assert stack_text(("layer", "vmap(")) == "layer/vmap()"


def test_jaxprs_do_not_print_the_name_stack():
    # JAX keeps the names on each equation's source_info; its jaxprs do not show them
    text = str(jxkernel.make_jaxpr(jxkernel.grad(lambda x: jnp.sin(x) * x))(1.0))
    assert "jvp" not in text and "transpose" not in text


def test_equations_carry_their_name_stack_relative_to_their_jaxpr():
    jaxpr = jxkernel.make_jaxpr(jxkernel.vmap(jxkernel.grad(lambda x: jnp.sin(x) * x)))(
        jnp.ones(3))
    stacks = {(e.primitive.name, e.source_info.name_stack) for e in jaxpr.jaxpr.eqns}
    assert ("sin", ("vmap(", "jvp(")) in stacks
    assert ("mul", ("vmap(", "transpose(", "jvp(")) in stacks
    inner = jxkernel.make_jaxpr(jxkernel.grad(lambda x: jnp.sum(jxkernel.jit(jnp.exp)(x))))(
        jnp.ones(3))
    call = next(e for e in inner.jaxpr.eqns if e.primitive.name == "jit")
    assert call.source_info.name_stack == ("jvp(",)
    # inside the jit's jaxpr the names start again, as in JAX
    assert all(e.source_info.name_stack == () for e in call.params["jaxpr"].jaxpr.eqns)


@pytest.mark.xla_only("XLA text")
def test_identical_programs_lower_to_identical_text():
    # the by-text executable cache keys on the module text: names must be deterministic
    def f(x):
        return jxkernel.grad(lambda y: jnp.sum(jnp.sin(y) * y))(x)
    one = jxkernel.jit(f).lower(jnp.ones(3))._text
    two = jxkernel.jit(f).lower(jnp.ones(3))._text
    assert one == two and 'loc("jit(f)/transpose(jvp())/mul")' in one


def test_a_name_stack_prints_as_jax_prints_it():
    # `str(eqn.source_info.name_stack)` is JAX's text of the stack (its name_stack_test's
    # facts: 'vmap(foo)' for a scope under vmap, '' for none); its entries stay a tuple
    @jxkernel.named_scope("foo")
    def f(x):
        return jnp.sin(x)
    eqn, = jxkernel.make_jaxpr(jxkernel.vmap(f))(jnp.ones(3)).eqns
    assert str(eqn.source_info.name_stack) == "vmap(foo)"
    assert eqn.source_info.name_stack == ("vmap(", "foo")
    eqn, = jxkernel.make_jaxpr(jnp.sin)(1.0).eqns
    assert str(eqn.source_info.name_stack) == ""
    eqns = jxkernel.make_jaxpr(jxkernel.vmap(jxkernel.grad(lambda x: jnp.sin(x) * x)))(
        jnp.ones(3)).eqns
    assert {str(e.source_info.name_stack) for e in eqns} >= {"vmap(jvp())",
                                                              "vmap(transpose(jvp()))"}


@pytest.mark.xla_only("XLA text")
def test_debug_info_text_names_the_qualified_function():
    # JAX's debug locations name the function by its qualified name (its source_info_test:
    # "SourceInfoTest.test_nested_call_traceback_in_mlir.<locals>.outer_jit")
    def outer(x):
        def inner(y):
            return jnp.sin(y)
        return inner(x)
    text = jxkernel.jit(outer).lower(1.0).as_text(debug_info=True)
    assert 'loc("test_debug_info_text_names_the_qualified_function.<locals>.outer.<locals>.' \
           'inner"(' in text
