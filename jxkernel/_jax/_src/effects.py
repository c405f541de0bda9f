"""jxkernel._src.effects, as jax._src.effects: the Effect base class a library's effect types
subclass, and JAX's registries of effect types (`EffectTypeSet`), one per place an effect may
appear: in a lowering (`lowerable_effects`), control flow, remat, custom derivatives, and the
effects kept in program order (`ordered_effects`). A module declaring its own effect registers
its class in the sets that allow it, as JAX's export tests do at import.

jxkernel's own effects (io_callback's IO/OrderedIO, checkify's, debug's) are not read from these
sets: its rules name them where they apply (lax/io_effects.py); these sets hold what a library
adds, and answer `contains` for it.

    >>> class Beep(Effect): pass
    >>> ordered_effects.add_type(Beep)
    >>> ordered_effects.contains(Beep()), lowerable_effects.contains(Beep())
    (True, False)
"""
from ..extend.core import (Effect, Effects, EffectTypeSet,  # noqa: F401
                           control_flow_allowed_effects, no_effects)

lowerable_effects = EffectTypeSet()
ordered_effects = EffectTypeSet()
shardable_ordered_effects = EffectTypeSet()
remat_allowed_effects = EffectTypeSet()
custom_derivatives_allowed_effects = EffectTypeSet()
partial_eval_kept_effects = EffectTypeSet()


class JaxprInputEffect(Effect):
    """An effect on one input of an equation or jaxpr (a library's reads and writes of a
    mutable input subclass it): `input` is the input's position in an abstract eval rule's
    answer, as JAX's. jxkernel's equations keep the position as given (JAX resolves it into
    the input's variable when it forms the equation).

    >>> JaxprInputEffect(1) == JaxprInputEffect(1), JaxprInputEffect(0).replace(2)
    (True, JaxprInputEffect(2))
    """

    def __init__(self, input):
        self.input = input

    def replace(self, input):
        return type(self)(input)

    def __eq__(self, other):
        if not isinstance(other, JaxprInputEffect):
            return NotImplemented
        return self.input == other.input

    def __hash__(self):
        return hash((type(self), self.input))

    def __repr__(self):
        return f"{type(self).__name__}({self.input})"
