"""The effects of io_callback, as JAX 0.10.2's (`jaxpr.effects` holds `IO`, or `OrderedIO` for
`ordered=True`), and what they rule out as JAX's do: vmap of a cond whose branches call one
(both branches would run), vmap of a while loop whose predicate is batched and whose cond or
body calls an unordered one (done examples would call it again), and differentiating a
checkpoint that calls one (its forward pass runs twice).

    >>> from jxkernel.experimental import io_callback
    >>> jax.make_jaxpr(lambda x: io_callback(print, None, x))(1.).effects
    frozenset({IO})
"""
from ..core.ir import Effect, remat_allowed_effects


class IOEffect:
    """The effect of an unordered io_callback (`IO`)."""
    __slots__ = ()

    def __repr__(self):
        return "IO"

    __str__ = __repr__


class OrderedIOEffect:
    """The effect of an `ordered=True` io_callback (`OrderedIO`)."""
    __slots__ = ()

    def __repr__(self):
        return "OrderedIO"

    __str__ = __repr__


io_effect = IOEffect()
ordered_io_effect = OrderedIOEffect()
IO_EFFECTS = (io_effect, ordered_io_effect)


def check_vmap_of_cond(branches) -> None:
    """JAX's refusal to batch a cond whose branches have an IO effect."""
    if any(eff in branch.effects for eff in IO_EFFECTS for branch in branches):
        raise NotImplementedError("IO effect not supported in vmap-of-cond.")


def check_batched_while(cond_jaxpr, body_jaxpr) -> None:
    """JAX's refusal of an unordered IO effect in a while loop whose predicate is batched."""
    if any(io_effect in j.effects for j in (body_jaxpr, cond_jaxpr)):
        raise Exception("Unordered IO effects not supported in while_loop with batched "
                        "predicate")


def check_remat_partial_eval(jaxpr) -> None:
    """JAX's refusal to split a checkpoint with an IO effect, or a library's effect not in
    remat_allowed_effects (core/ir.py), into its known and unknown parts (under grad,
    linearize, vjp)."""
    disallowed = [eff for eff in jaxpr.effects if eff in IO_EFFECTS or isinstance(eff, Effect)
                  and not remat_allowed_effects.contains(eff)]
    if disallowed:
        raise NotImplementedError(f"Effects not supported in partial-eval of "
                                  f"`checkpoint`/`remat`: {disallowed}")
