"""The key-reuse checker's rules one by one (jxkernel/random/key_reuse.py): each primitive's
signature, the control-flow rules, the eager marks on KeyArrays, and the switch itself.
JAX 0.10.2's answers to whole programs are in test_key_reuse_reference.py."""
import functools
import os

import numpy as np
import pytest

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax, random
from jxkernel.errors import KeyReuseError
from jxkernel.core.source_info import PACKAGE_DIR
from jxkernel.random import key_reuse as kr
from jxkernel.random.key_prims import random_bits
from registered_library import excluded, import_library

Sig, Sink, Source, Forward = kr.KeyReuseSignature, kr.Sink, kr.Source, kr.Forward


@pytest.fixture
def checking():
    with jax.debug_key_reuse(True):
        yield


def sig(f, *args):
    return kr.function_type_signature(f, *args)


# the keys the tests give, made on first use: making a key compiles, which collection must not
@functools.cache
def _k():
    return random.key(0)


@functools.cache
def _ks():
    return random.split(random.key(1), 4)


# ---------------------------------------------------------------- the key primitives
@pytest.mark.parametrize("f, want", [
    (lambda k: random.bits(k), Sig(Sink(0))),
    (lambda k: random.split(k), Sig(Sink(0), Source(0))),
    (lambda k: random.fold_in(k, 3), Sig(Source(0))),
    (lambda k: random.clone(k), Sig(Source(0))),
    (lambda k: random.key_data(k), Sig()),
    (lambda k: random.gamma(k, 2.0), Sig(Sink(0))),
    (lambda k: k, Sig(Forward(0, 0))),
    (lambda k: jnp.broadcast_to(k, (3,)), Sig(Forward(0, 0))),
    (lambda k: jnp.reshape(k, (1,)), Sig(Forward(0, 0))),
    (lambda k: k == k, Sig()),
    (lambda k: kr.consume(k), Sig(Sink(0), Forward(0, 0))),
])
def test_primitive_signatures(f, want):
    assert sig(f, _k()) == want


def test_seed_and_wrap_make_fresh_keys():
    assert sig(lambda: random.key(3)) == Sig(Source(0))
    assert sig(lambda d: random.wrap_key_data(d), random.key_data(_k())) == Sig(Source(0))


def test_slice_sinks_only_the_keys_it_takes():
    s = sig(lambda ks: ks[1:3], _ks())
    assert s == Sig(Sink(0, np.array([False, True, True, False])), Source(0))
    assert repr(s) == "KeyReuseSignature(Sink(0, [False  True  True False]), Source(0))"
    # disjoint slices of one array are not a reuse; overlapping ones are
    kr.check_key_reuse(lambda ks: (random.bits(ks[0]), random.bits(ks[1])), _ks())
    with pytest.raises(KeyReuseError, match=r"^In slice, argument 0 is already consumed\."):
        kr.check_key_reuse(lambda ks: (random_bits(ks[:2], 32, ()),
                                       random_bits(ks[1:], 32, ())), _ks())


def test_concatenate_sinks_its_operands():
    assert sig(lambda a, b: jnp.concatenate([a, b]), _ks(), _ks()) == \
        Sig(Sink(0), Sink(1), Source(0))


def test_updates_sink_the_keys_written():
    assert sig(lambda ks, k: ks.at[0].set(k), _ks(), _k()) in (
        Sig(Sink(1), Forward(0, 0)),                 # dynamic_update_slice or scatter
        Sig(Sink(2), Forward(0, 0)))


def test_a_primitive_without_a_rule_sinks_every_key():
    eqn = jax.make_jaxpr(lambda k: lax.optimization_barrier(k))(_k()).jaxpr.eqns[0]
    assert kr.key_reuse_signature_from_eqn(eqn) == Sig(Sink(0))


def test_the_rule_table_is_keyed_by_primitive():
    # JAX's key_reuse_signatures[random_bits_p]; a user's primitive gets its own rule, and a
    # user's Primitive named as one of lax's gets none of lax's
    from jxkernel.core.primitive import Primitive
    table = kr.key_reuse_signatures
    assert table[lax.reshape_p] == Sig(Forward(0, 0))
    assert table[kr.consume_p] == Sig(Sink(0), Forward(0, 0))
    assert lax.reshape_p in table and "reshape" not in table
    mine = Primitive("reshape")
    assert mine not in table and table.get(mine) is None
    mine.def_abstract_eval(lambda x: x)
    table[mine] = Sig(Forward(0, 0))
    try:
        assert sig(lambda k: mine.bind(k), _k()) == Sig(Forward(0, 0))
    finally:
        del table[mine]
    assert sig(lambda k: mine.bind(k), _k()) == Sig(Sink(0))


def test_signature_marks_are_immutable_and_ordered():
    with pytest.raises(ValueError, match="Sink is immutable"):
        Sink(0).idx = 1
    assert repr(Sig(Forward(0, 1), Source(0), Sink(2))) == \
        "KeyReuseSignature(Sink(2), Source(0), Forward(0, 1))"
    assert Sink(0, np.array([True, True])) == Sink(0)        # a full mask is True
    assert Sink(0, np.zeros(0, bool)) == Sink(0, False)      # an empty one False


# ---------------------------------------------------------------- the interpreter
def test_reuse_in_a_jaxpr_names_the_primitive():
    with pytest.raises(KeyReuseError, match=r"^In random_bits, argument 0 is already "
                                            r"consumed\.\nSee https://docs\.jax\.dev"):
        kr.check_key_reuse(lambda k: (random.bits(k), random.bits(k)), _k())


def test_forwarded_keys_are_the_same_key():
    with pytest.raises(KeyReuseError, match="In random_bits, argument 0"):
        kr.check_key_reuse(lambda k: (random.bits(k),
                                      random_bits(jnp.broadcast_to(k, (2,)), 32, ())), _k())


def test_two_arguments_are_two_keys():
    assert sig(lambda a, b: (random.bits(b), a), _k(), _k()) == Sig(Sink(1), Forward(0, 1))


def test_jit_takes_its_body_signature():
    inner = jax.jit(lambda k: random.split(k))
    assert sig(lambda k: inner(k), _k()) == Sig(Sink(0), Source(0))


def test_checkpoint_takes_its_body_signature():
    assert sig(jax.checkpoint(lambda k: random.bits(k)), _k()) == Sig(Sink(0))


def test_assert_consumed_and_unconsumed():
    def fine(k):
        kr.assert_unconsumed(k)
        random.bits(k)
        kr.assert_consumed(k)
    kr.check_key_reuse(fine, _k())

    def wrong(k):
        kr.assert_consumed(k)
    with pytest.raises(AssertionError, match="Expected key to be consumed in"):
        kr.check_key_reuse(wrong, _k())


# ---------------------------------------------------------------- control flow
def test_cond_consumes_what_either_branch_consumes():
    s = sig(lambda p, k: lax.cond(p, random.normal, lambda k: 0.0, k), True, _k())
    assert s == Sig(Sink(1))


def test_cond_forwards_only_what_every_branch_forwards():
    assert sig(lambda p, k: lax.cond(p, lambda k: k, lambda k: k, k), True, _k()) == \
        Sig(Forward(1, 0))
    s = sig(lambda p, k: lax.cond(p, lambda k: k, lambda k: random.split(k)[0], k), True, _k())
    assert Forward(1, 0) not in s.forwards and Sink(1) in s.sinks


def test_scan_refuses_a_closed_over_key_it_consumes():
    with pytest.raises(KeyReuseError, match=r"^scan body function leads to key reuse when "
                                            r"repeatedly executed, because key constants are "
                                            r"repeatedly consumed:\n  signature="):
        kr.check_key_reuse(lambda k: lax.scan(lambda c, _: (c + random.normal(k), None), 0.0,
                                              None, length=2), _k())


def test_scan_refuses_a_carried_key_consumed_and_not_renewed():
    def body(c, _):
        k, x = c
        k, sub = random.split(k)
        return (k, x + random.normal(sub)), None
    kr.check_key_reuse(lambda k: lax.scan(body, (k, 0.0), None, length=2), _k())   # renewed

    def bad(c, _):
        k, n = c
        return (k, n + random.normal(k)), None
    with pytest.raises(KeyReuseError, match="scan body function leads to key reuse"):
        kr.check_key_reuse(lambda k: lax.scan(bad, (k, 0.0), None, length=2), _k())


def test_scan_carry_consumed_not_sourced():
    # consumed and handed on as another (consumed) key: the inputs don't match the outputs
    def body(k, _):
        return jnp.reshape(jnp.broadcast_to(k, (1,)), ()), random.normal(k)
    with pytest.raises(KeyReuseError, match="because (consumed inputs don't match sourced "
                                            "outputs|key constants are repeatedly consumed)"):
        kr.check_key_reuse(lambda k: lax.scan(body, k, None, length=2), _k())


def test_while_rules():
    def splits(c):
        k, i = c
        return random.split(k)[0], i + 1
    kr.check_key_reuse(lambda k: lax.while_loop(lambda c: c[1] < 3, splits, (k, 0)), _k())
    with pytest.raises(KeyReuseError, match=r"^while_loop body function leads to key reuse "
                                            r"when repeatedly executed:   body_signature="
                                            r"KeyReuseSignature\(Sink\(0\),\)"):
        kr.check_key_reuse(lambda k: lax.while_loop(
            lambda x: x < 3.0, lambda x: x + random.uniform(k), 0.0), _k())
    with pytest.raises(KeyReuseError, match="while_loop cond function leads to key reuse"):
        kr.check_key_reuse(lambda k: lax.while_loop(
            lambda x: random.uniform(k) < x, lambda x: x + 1.0, 0.0), _k())


def test_while_cond_and_body_both_consuming_a_carry():
    def cond(c):
        return random.uniform(c[0]) < 0.5

    def body(c):
        k, x = c
        k, sub = random.split(k)
        return k, x + random.uniform(sub)
    with pytest.raises(KeyReuseError, match="^while_loop cond and body functions both use the "
                                            "same key:   cond_signature="):
        kr.check_key_reuse(lambda k: lax.while_loop(cond, body, (k, 0.0)), _k())


# ---------------------------------------------------------------- eagerly
def test_eager_marks(checking):
    k = random.key(0)
    assert not k._consumed
    random.normal(k)
    assert k._consumed
    with pytest.raises(KeyReuseError, match=r"^Previously-consumed key passed to jit-compiled "
                                            r"function at index 0\nSee https://docs\.jax\.dev/"
                                            r"en/latest/errors\.html#jax\.errors\.KeyReuseError$"
                       ) as info:
        random.normal(k)
    cause = info.value.__cause__
    assert isinstance(cause, KeyReuseError) and str(cause).startswith(
        "PRNG key first used at the above location was subsequently reused")
    assert "test_key_reuse.py" in "".join(cause.__notes__)      # where: the user's line


def test_eager_first_use_in_a_file_beside_jxkernel_is_the_users(checking):
    # a user's file whose path starts like jxkernel's folder ("jxkernel_notes.py" beside the
    # package) is not jxkernel's: the first use's note named no line of it
    beside = PACKAGE_DIR.rstrip(os.sep) + "_notes.py"
    code = compile("random.normal(k)\n", beside, "exec")
    k = random.key(0)
    exec(code, {"random": random, "k": k})
    with pytest.raises(KeyReuseError) as info:
        random.normal(k)
    assert beside in "".join(info.value.__cause__.__notes__)


def test_eager_first_use_in_a_registered_library_is_not_named(checking, tmp_path):
    # JAX 0.10.2 filters the first use's traceback with traceback_util.filter_traceback
    # (experimental/key_reuse/_core.py): a library registered there is left out of it
    lib = import_library(tmp_path, "drawing_library_mod",
                         "from jxkernel import random\ndef draw(k):\n    return random.normal(k)\n")

    def first_use_note() -> str:
        k = random.key(0)
        lib.draw(k)
        with pytest.raises(KeyReuseError) as info:
            random.normal(k)
        return "".join(info.value.__cause__.__notes__)

    assert lib.__file__ in first_use_note()                   # a real file: named
    with excluded(lib.__file__, user_line=False):
        note = first_use_note()
    assert lib.__file__ not in note and __file__ in note, note


def test_eager_split_and_fold_in(checking):
    k = random.key(0)
    a, b = random.split(k)
    assert k._consumed and not a._consumed and not b._consumed
    f = random.fold_in(a, 1)
    assert not a._consumed and not f._consumed
    with pytest.raises(KeyReuseError, match="Previously-consumed key passed to random_split"):
        random.split(k)


def test_eager_slices_mark_a_mask(checking):
    ks = random.split(random.key(0), 3)
    random.normal(ks[1])
    assert ks._consumed.tolist() == [False, True, False]
    random.normal(ks[0])
    with pytest.raises(KeyReuseError, match="Previously-consumed key passed to slice at index 0"):
        ks[1]


def test_eager_clone_and_copy(checking):
    k = random.key(0)
    c = random.clone(k)
    assert c is not k and bool(c == k)       # the same key data, a key of its own
    random.normal(c)
    assert not k._consumed
    random.normal(k)
    assert k.copy()._consumed        # as JAX's: a copy is as consumed


def test_eager_jit_results(checking):
    k = random.key(0)
    random.normal(k)
    out = jax.jit(lambda k: k)(k)            # forwarded: the same (consumed) key
    assert out._consumed
    fresh = jax.jit(lambda k: random.fold_in(k, 1))(k)
    assert not fresh._consumed


def test_eager_primitives_check_after_vmap(checking):
    ks = random.split(random.key(0), 3)
    jax.vmap(random.normal)(ks)
    with pytest.raises(KeyReuseError, match="Previously-consumed key passed to jit-compiled"):
        jax.vmap(random.normal)(ks)


def test_legacy_keys_are_not_checked(checking):
    k = random.PRNGKey(0)
    random.normal(k)
    random.normal(k)


# ---------------------------------------------------------------- the switch
def test_off_by_default_and_a_context_manager():
    assert jax.config.jax_debug_key_reuse is False
    k = random.key(0)
    random.normal(k)
    random.normal(k)                          # no checker: nothing raised
    with jax.debug_key_reuse(True):
        assert jax.config.jax_debug_key_reuse is True
        random.normal(random.key(1))
    assert jax.config.jax_debug_key_reuse is False


def test_jit_traces_again_when_switched():
    f = jax.jit(lambda k: (random.normal(k), random.normal(k)))
    f(random.key(0))                          # traced without the checker
    with jax.debug_key_reuse(True):
        with pytest.raises(KeyReuseError, match="In jit, argument 0 is already consumed"):
            f(random.key(0))
    f(random.key(0))


def test_the_eager_hook_comes_and_goes():
    from jxkernel.core.trace import EvalTrace
    plain = EvalTrace.process_primitive
    with jax.debug_key_reuse(True):
        assert EvalTrace.process_primitive is not plain
    assert EvalTrace.process_primitive is plain


def test_key_reuse_error_is_jaxs_type_error():
    assert issubclass(KeyReuseError, TypeError)
    assert str(KeyReuseError("x")) == ("x\nSee https://docs.jax.dev/en/latest/errors.html"
                                       "#jax.errors.KeyReuseError")


def test_the_experimental_module_names():
    from jxkernel._jax.experimental.key_reuse import _core
    assert _core.check_key_reuse is kr.check_key_reuse
    assert _core.KeyReuseError is KeyReuseError


def test_keys_in_a_while_loop_carry_as_flax_does(checking):
    # flax's nn.while_loop test: keys written into a carried key array with .at[i].set
    def body(c):
        i, ks, k = c
        k, sub = random.split(k)
        return i + 1, ks.at[i].set(sub), k
    zero = jnp.broadcast_to(random.key(0), (2,))
    _, ks, _ = jax.jit(lambda k: lax.while_loop(lambda c: c[0] < 2, body, (0, zero, k)))(
        random.key(2))
    assert not bool(ks[0] == ks[1])


def test_the_notes_pass_reads_programs_with_equations_of_no_operand():
    """jax.random.permutation's program (an iota, a seed: no operand) beside a key taken by a
    slice: the pass the key-reuse note makes raised IndexError there (the notebook warned
    "jxkernel could not check jit(<lambda>)'s program"), and finds no reuse."""
    closed = jax.make_jaxpr(lambda: jax.random.permutation(jax.random.key(0), 3))()
    assert kr.reuses(closed.jaxpr) == []
    closed = jax.make_jaxpr(lambda: jnp.tri(3) + jax.random.normal(jax.random.key(0)))()
    assert kr.reuses(closed.jaxpr) == []
