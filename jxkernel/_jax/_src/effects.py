"""jxkernel._src.effects, as jax._src.effects: the Effect base class a library's effect types
subclass, and JAX's registries of effect types (`EffectTypeSet`), one per place an effect may
appear: in a lowering (`lowerable_effects`), control flow, remat, custom derivatives, and the
effects kept in program order (`ordered_effects`). A module declaring its own effect registers
its class in the sets that allow it, as JAX's export tests do at import.

jxkernel's own effects (io_callback's IO/OrderedIO, checkify's, debug's) are not read from these
sets: its rules name them where they apply (lax/io_effects.py); these sets hold what a library
adds, and answer `contains` for it. A library's effect in control flow, a custom derivative's
function, or a checkpointed function partially evaluated is refused, as JAX's, unless its type
is in `control_flow_allowed_effects`, `custom_derivatives_allowed_effects` or
`remat_allowed_effects` (core/ir.py's check_effects; a Ref's effects are in all three).

    >>> class Beep(Effect): pass
    >>> ordered_effects.add_type(Beep)
    >>> ordered_effects.contains(Beep()), lowerable_effects.contains(Beep())
    (True, False)
"""
from ...core.ir import (custom_derivatives_allowed_effects, lowerable_effects,  # noqa: F401
                        ordered_effects, remat_allowed_effects)
from ...core.primitive import JaxprInputEffect  # noqa: F401 (a Ref's effects subclass it)
from ..extend.core import (Effect, Effects, EffectTypeSet,  # noqa: F401
                           control_flow_allowed_effects, no_effects)

shardable_ordered_effects = EffectTypeSet()
partial_eval_kept_effects = EffectTypeSet()


