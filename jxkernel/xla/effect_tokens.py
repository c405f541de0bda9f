"""The tokens a library's ordered effects are threaded by in a lowering, in JAX's words: a
rule of an equation with effects whose types are in `effects.ordered_effects` reads
`ctx.tokens_in` (a TokenSet, one token per such effect), passes them to the operations it
emits, and gives the tokens those return with `ctx.set_tokens_out(...)`; an equation with
only unordered effects gets an empty TokenSet. jxkernel threads one token per block through
every ordered effect (lowering.py's effect_token: debug prints and io_callbacks use it too),
so each of an equation's effects gets the block's token, and the tokens a rule gives back
become the block's (joined by `stablehlo.after_all` where they differ): a library's ordered
effects stay in program order, with each other and with jxkernel's, in a cond, a while loop
and a scan too. Between programs, as JAX's: a jit's `main` takes a token per such effect
first and gives the next ones back first (`jax.token` arguments and results; XLA passes an
empty buffer), and `runtime_tokens` keeps, per thread, the one the last program with each
effect gave back for the next (`effects_barrier` waits for them and drops them).

    >>> ts = TokenSet({"a": "%0"})
    >>> len(ts), ts.get("a"), ts.update_tokens(TokenSet({"a": "%1"})).items()
    (1, '%0', (('a', '%1'),))
"""
from __future__ import annotations

import importlib
import sys
import threading

import numpy as np

from ..core.avals import ShapedArray
from ..core.ir import Effect, JaxprInputEffect, lowerable_effects, ordered_effects
from .buffer import _COPY, sharding_for
from .client import xc

TOKEN = "!stablehlo.token"
TOKEN_ATTR = "jax.token = true"      # (a main function's token argument or result, as JAX's)


def block_token(block, loc=None):
    """The token `block`'s ordered effects are threaded by, started there
    (`stablehlo.after_all`) on first use unless the block was handed one."""
    if block.effect_token is None:
        block.effect_token = block.op1("stablehlo.after_all", [], TOKEN, loc=loc)
    return block.effect_token


def take_main_tokens(block, tokens) -> None:
    """`block` (a main function's) threads its ordered effects from its token arguments
    (joined where there are several)."""
    tokens = list(tokens)
    block.effect_token = tokens[0] if len(tokens) == 1 else \
        block.op1("stablehlo.after_all", tokens, TOKEN)


def main_tokens_out(block, n: int) -> list:
    """The `n` tokens a main function gives back, one per effect: its block's last, each its
    own value where there are several (XLA refuses one buffer returned twice)."""
    token = block_token(block)
    if n == 1:
        return [token]
    return [block.op1("stablehlo.after_all", [token], TOKEN) for _ in range(n)]


class Token:
    """A runtime token (JAX's core.Token): what a program gave back for an ordered effect, the
    next program with it takes (an empty buffer: XLA's token between programs)."""
    __slots__ = ("_buf", "device")

    def __init__(self, buf, device=None):
        self._buf, self.device = buf, device

    def block_until_ready(self):
        self._buf.block_until_ready()
        return self

    def __repr__(self):
        return "Token()"


class RuntimeTokenSet(threading.local):
    """Per thread, the token the last program with each ordered effect of a library's gave
    back (JAX's `dispatch.runtime_tokens`): the next program with that effect takes it, so
    their effects run in the order the programs were called.

        >>> runtime_tokens.current_tokens, runtime_tokens.output_runtime_tokens
        ({}, {})
    """

    def __init__(self):
        self.current_tokens = {}
        self.output_runtime_tokens = {}

    def get_token_input(self, effect, device):
        """The token buffer to pass for `effect` to a program on `device` (an empty one at
        first)."""
        token = self.current_tokens.get(effect)
        if token is None or token.device is not device:
            # (first, or the last program with it ran on another device: that one is
            # waited for, so that its effects come first)
            if token is not None:
                token.block_until_ready()
            token = self.current_tokens[effect] = Token(_empty_buffer(device), device)
        return token._buf

    def set_token_result(self, effect, token) -> None:
        self.current_tokens[effect] = token

    def clear(self) -> None:
        """Forget the tokens held (JAX's tests do so between tests)."""
        self.current_tokens = {}
        self.output_runtime_tokens = {}

    def block_until_ready(self) -> None:
        """Wait for every token held (the programs that gave them), then forget them."""
        for token in self.current_tokens.values():
            token.block_until_ready()
        self.clear()


def _empty_buffer(device):
    """An empty bool buffer on `device`: the first token a program with an effect takes."""
    return xc.batched_device_put(ShapedArray((0,), np.dtype(bool)), sharding_for((device,)),
                                 [np.zeros(0, np.bool_)], [device], True, False, _COPY, True)


runtime_tokens = RuntimeTokenSet()


def effects_barrier() -> None:
    """Wait until every side effect (debug.print, callbacks) of work started so far is done.
    Programs with host callbacks already finish before their call returns here; the programs
    with a library's ordered effects are waited for by their tokens, which are then dropped
    (JAX's `runtime_tokens.block_until_ready()`)."""
    if runtime_tokens.current_tokens:
        runtime_tokens.block_until_ready()


class TokenSet:
    """An immutable mapping from effects to the tokens (values) that order them, in insertion
    order (JAX's mlir.TokenSet)."""
    __slots__ = ("_tokens",)

    def __init__(self, tokens: dict | None = None):
        self._tokens = tokens if tokens is not None else {}

    @classmethod
    def create(cls, effects) -> TokenSet:
        """A TokenSet of a new token for each of `effects` (JAX's): in a lowering rule
        jxkernel runs, `stablehlo.after_all` there; else `stablehlo.create_token` at the
        current insertion point of jaxlib's MLIR bindings (under `mlir.make_ir_context()`)."""
        ctx = _current_rule_context()
        if ctx is not None:
            return cls({e: ctx.block.op1("stablehlo.after_all", [], TOKEN) for e in effects})
        bindings = importlib.import_module("jxkernel.xla.mlir_bindings")  # (jaxlib's MLIR)
        return cls({e: bindings.create_token() for e in effects})

    def __len__(self):
        return len(self._tokens)

    def __repr__(self):
        return f"TokenSet({self._tokens!r})"

    def get(self, effect):
        return self._tokens[effect]

    def items(self) -> tuple:
        return tuple(self._tokens.items())

    def effects(self) -> set:
        return set(self._tokens)

    def subset(self, effects) -> TokenSet:
        return TokenSet({e: self._tokens[e] for e in effects})

    def update_tokens(self, tokens: TokenSet) -> TokenSet:
        """A TokenSet with `tokens`' in place of this one's, this one's order kept."""
        if not tokens:
            return self
        return TokenSet({**self._tokens, **tokens._tokens})


def ordered_library_effects(effects) -> list:
    """The effects of `effects` a library declared and registered as ordered, in a fixed
    order (by their text: an equation's effects are a set)."""
    found = [e for e in effects if isinstance(e, Effect) and ordered_effects.contains(e)]
    return sorted(found, key=repr) if len(found) > 1 else found


def library_effects(effects) -> tuple[tuple, tuple]:
    """(ordered, unordered): a library's effects among `effects` (a jaxpr's), as JAX's
    lowering lists them (`compile_args["ordered_effects"]`, an export's `ordered_effects`):
    the ordered ones in the order their tokens are passed, then the others.

        >>> library_effects([])
        ((), ())
    """
    ordered = tuple(ordered_library_effects(effects))
    unordered = tuple(sorted((e for e in effects if isinstance(e, Effect) and
                              not isinstance(e, JaxprInputEffect) and e not in ordered),
                             key=repr))
    return ordered, unordered


def tokens_in(ctx, effects) -> TokenSet:
    """The TokenSet an equation with `effects` is lowered with: the block's token for each
    of its ordered ones."""
    ordered = ordered_library_effects(effects)
    if not ordered:
        return _EMPTY
    token = block_token(ctx.block, ctx.loc)
    return TokenSet({e: token for e in ordered})


def take_tokens_out(ctx, primitive) -> None:
    """After the rule of an equation given tokens: JAX's ValueErrors where it set none or
    those of other effects; the tokens it gave become its block's."""
    given = ctx.tokens_in
    if not given:
        return
    out = ctx.tokens_out
    if out is None:
        raise ValueError(f"Lowering rule for `{primitive}` needs to set `tokens_out` "
                         f"because it has effects: {tuple(given.effects())}.")
    if out.effects() != given.effects():
        raise ValueError(f"Lowering rule for `{primitive}` returns incorrect set of output "
                         f"token. Expected: {tuple(given.effects())} vs. Actual: "
                         f"{tuple(out.effects())}")
    tokens = list(dict.fromkeys(token for _, token in out.items()))
    if len(tokens) > 1:
        tokens = [ctx.block.op1("stablehlo.after_all", tokens, TOKEN)]
    ctx.block.effect_token = tokens[0]


def check_lowerable(jaxpr) -> None:
    """JAX's ValueError for a library's effect whose type is not in `lowerable_effects`."""
    effects = getattr(jaxpr, "effects", ())
    if any(_a_librarys(e) and not lowerable_effects.contains(e) for e in effects):
        raise ValueError(f"Cannot lower jaxpr with effects: {set(effects)}")


def _a_librarys(effect) -> bool:
    """Whether `effect` is a library's, not jxkernel's own (callbacks', checkify's, which
    are no Effects, and a Ref's, discharged before lowering): an Effect, or any value of a
    class from outside jxkernel (JAX's tests bind a string)."""
    if isinstance(effect, Effect):
        return not isinstance(effect, JaxprInputEffect)
    return not type(effect).__module__.startswith("jxkernel")


def _current_rule_context():
    """The context of the library's lowering rule running now, if any (_jax/interpreters/
    mlir.py sets it: read lazily, that module being above this one)."""
    mlir = sys.modules.get("jxkernel._jax.interpreters.mlir")
    return None if mlir is None else mlir.current_rule_context()


_EMPTY = TokenSet()
