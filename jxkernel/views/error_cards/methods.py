"""The card for `@jax.jit` on a method: `self` is no array, and the pytree registration that
makes it one."""
from __future__ import annotations

import inspect
import re

from .card import ErrorCard


_METHOD_SELF = re.compile(r"^Error interpreting argument to <function ([\w.<>]+)\.(\w+) at "
                          r"0x[0-9a-f]+> as an abstract array\. The problematic value is of "
                          r"type <class '([\w.<>]+)'> and was passed to the function at path "
                          r"self\.")


def _is_method_self(e) -> bool:
    return isinstance(e, TypeError) and hasattr(e, "value") and \
        _METHOD_SELF.match(str(e)) is not None and hasattr(e.value, "__dict__")


def _method_card(exc, where, called_from) -> ErrorCard:
    """`@jax.jit` on a method: `self` is traced, and an object is no array. JAX's gotchas
    page gives three ways; the card writes the pytree registration for this class (its
    arrays traced, its other fields static, so a changed field recompiles), and says when
    a static `self` is right (it silently keeps a stale compile otherwise)."""
    _, method, type_path = _METHOD_SELF.match(str(exc)).groups()
    cls_name = type_path.rsplit(".", 1)[-1]
    return ErrorCard(
        "jit-method", "A jitted method was given self, which is not an array",
        why=(f"@jax.jit on {cls_name}.{method} traces every argument, self too, and a "
             f"{cls_name} is neither an array nor a pytree of arrays."),
        fix=(f"Make {cls_name} a pytree: its arrays become traced inputs and its other fields "
             f"static data, so changing one recompiles. Or jit a helper function of the arrays, "
             f"its flags in static_argnames. static_argnums=0 (self static) is right only if "
             f"{cls_name} hashes and compares by its fields: otherwise a changed field reuses "
             f"the old compile, silently."),
        rewrite=pytree_registration(exc.value),
        docs="https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
             "#using-jax-jit-with-class-methods")


def pytree_registration(obj, comment: str = "keep @jax.jit") -> str:
    """Code registering `type(obj)` as a pytree: its numbers and arrays traced (children), its
    other fields (bools, strings, ...) static (aux data); rebuilt by its constructor when
    that takes exactly its fields, else field by field. `comment` ends its last line."""
    cls = type(obj).__name__
    fields = list(vars(obj))
    traced = [f for f in fields if _is_traceable(getattr(obj, f))]
    static = [f for f in fields if f not in traced]
    try:
        params = list(inspect.signature(type(obj)).parameters)
    except (TypeError, ValueError):
        params = []
    if sorted(params) == sorted(fields):
        rebuild = f"    return {cls}({', '.join(f'{f}={f}' for f in fields)})"
    else:
        rebuild = (f"    obj = object.__new__({cls})\n"
                   f"    obj.__dict__.update({', '.join(f'{f}={f}' for f in fields)})\n"
                   f"    return obj")
    return (f"def _flatten(obj):        # traced fields, then static ones\n"
            f"    return {_tuple(f'obj.{f}' for f in traced)}, "
            f"{_tuple(f'obj.{f}' for f in static)}\n\n"
            f"def _unflatten(static, traced):\n"
            f"    {_tuple(traced)}, {_tuple(static)} = traced, static\n"
            f"{rebuild}\n\n"
            f"jax.tree_util.register_pytree_node({cls}, _flatten, _unflatten)   # {comment}")


def static_fields(obj) -> list:
    """The fields of `obj` that pytree_registration makes static (aux data, compared by == and
    hashed in jit's key), each with its value."""
    return [(f, v) for f, v in vars(obj).items() if not _is_traceable(v)]


def _tuple(items) -> str:
    """Python's tuple display: `()`, `(a,)`, `(a, b)`."""
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _is_traceable(value) -> bool:
    """A number or an array: what jit can trace (a bool, a string, None: static data)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float, complex)) or (
        hasattr(value, "shape") and hasattr(value, "dtype"))
