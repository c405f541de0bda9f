"""Cards for a traced value where Python or a primitive needs a hashable one: jnp.tile's reps
from a traced count (JAX's "parameters to jaxpr equations must have __hash__ ..." TypeError),
and a traced array used as a dict key, a set member or given to hash() ("unhashable type:
'DynamicJaxprTracer'"). JAX's messages name no argument of the user's: the tracer is read
back from the raising frame (jnp.tile's `reps`, the tracer's own `__hash__`), and its
provenance says which input it came from."""
from __future__ import annotations

import re
import traceback
from types import SimpleNamespace

from ...core import errors as jx_errors
from ...core.traceback_util import unfiltered_traceback
from .card import ErrorCard
from .reading import _origin
from .static_fixes import _static_fix, _static_or

_PARAMETER = re.compile(r"^As of JAX v0\.7, parameters to jaxpr equations must have __hash__ "
                        r"and __eq__ methods\. In a call to primitive (\w+), the value of "
                        r"parameter (\w+) was not hashable")
_UNHASHABLE = re.compile(r"^unhashable type: '(\w*Tracer)'$")
_STATIC_DOCS = "https://docs.jax.dev/en/latest/jit-compilation.html#marking-arguments-as-static"


def _local(exc, function, name):
    """`name` in the innermost frame of `function` the exception passed through, or None."""
    found = None
    for frame, _ in traceback.walk_tb(unfiltered_traceback(exc)):
        if frame.f_code.co_name == function and name in frame.f_locals:
            found = frame.f_locals[name]
    return found


def _traced_origin(tracer) -> dict | None:
    """The card's origin of a tracer (its input, the steps from it), or None."""
    if getattr(tracer, "_trace", None) is None:
        return None
    return _origin(SimpleNamespace(provenance=jx_errors.provenance(tracer)))


def _is_traced_parameter(e) -> bool:
    return isinstance(e, TypeError) and _PARAMETER.match(str(e)) is not None


# the function and argument a learner wrote, per primitive and parameter JAX's message names
# (jax.random.split's num is bound as random_split's shape)
_WRITTEN = {("random_split", "shape"): ("jax.random.split", "num")}


def _traced_parameter_card(exc, where, called_from) -> ErrorCard:
    """jnp.tile(x, (n,)) or jax.random.split(key, n) with a traced n: reps (num) sets the
    output's shape, so it must be a Python value; the jit made static where n is the jitted
    function's argument."""
    primitive, param = _PARAMETER.match(str(exc)).groups()
    origin = _origin(exc)           # (the core's provenance of the tracer, where it kept it)
    if origin is None:
        value = _local(exc, primitive, param)
        tracers = [v for v in (value if isinstance(value, tuple) else (value,))
                   if getattr(v, "_trace", None) is not None]
        origin = _traced_origin(tracers[0]) if tracers else None
    function, param = _WRITTEN.get((primitive, param), (f"jnp.{primitive}", param))
    short = function.rsplit(".", 1)[-1]
    source = origin and origin.get("argument")
    depends = f" (here it depends on {source}, an argument the jit traces)" if source else ""
    last, rewrite = _static_or(origin, where, exc, "int", (
        f"Compute {param} from Python values (a shape is static: x.shape[0] is an int under "
        f"jit), or pass it in as a static argument (static_argnames).",
        f"# {function}(..., {param}=<Python ints>)    # not from a traced array"))
    fix = f"{short}'s {param} must be Python ints, never traced arrays. {last}"
    return ErrorCard(
        "traced-parameter", f"{function}'s {param} was given a traced value",
        why=(f"{param} sets the shape of {short}'s result, and under jit (vmap, grad) "
             f"shapes are static: they must be known while tracing, before any value "
             f"is{depends}."),
        fix=fix, rewrite=rewrite, origin=origin, docs=_STATIC_DOCS)


def _is_traced_hash(e) -> bool:
    return isinstance(e, TypeError) and _UNHASHABLE.match(str(e)) is not None


def _traced_hash_card(exc, where, called_from) -> ErrorCard:
    """A traced array as a dict key, a set member or hash()'s argument: a tracer stands for
    every value of its shape and dtype, so it has none to hash."""
    origin = _traced_origin(_local(exc, "__hash__", "self"))
    source = origin and origin.get("argument")
    static = _static_fix(origin, where, exc) if origin else ""
    depends = f" {source} is an argument the jit traces." if source else ""
    fix = ("Look the value up with array operations instead: a table as an array indexed by "
           "the traced integer (jnp.array([...])[k]), jnp.where for a choice between two, "
           "or a one-hot product.")
    if static:
        fix += (f" Or, if {source} takes a few Python values, mark it static (each value "
                f"compiles once); this is the rewrite below.")
        rewrite = static
    else:
        k = source if source and source.isidentifier() else "k"
        rewrite = f"# jnp.array(list_of_values)[{k}] in place of {{...}}[{k}]    # a traced integer"
    return ErrorCard(
        "traced-hash", "a traced array was used as a dict key, a set member or hashed",
        why=("A dict lookup, a set membership test and hash() need the key's value, and "
             "under a transformation (jit, vmap, grad) an array argument is a tracer: it "
             f"stands for every value of its shape and dtype, so it has no value to hash."
             f"{depends}"),
        fix=fix, rewrite=rewrite, origin=origin, docs=_STATIC_DOCS)
