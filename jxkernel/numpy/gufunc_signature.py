"""gufunc signatures ("(n,m),(m)->(n)"): parsed, and the core dimensions of arguments checked
against them with JAX's words. jnp.vectorize's; and matvec's and vecmat's, which JAX builds
on vectorize (so a 1-D matrix is refused as vectorize refuses it).

    >>> parse_signature("(n,m),(m)->(n)")
    ([('n', 'm'), ('m',)], [('n',)])
    >>> check_inputs("(n,m),(m)->(n)", [(2, 3), (3,)])
"""
from __future__ import annotations

import re

# A gufunc signature: "(m,n),(n)->(m)", each name a word.
_DIM = r"\w+"
_ARG = r"\((?:{0}(?:,{0})*)?\)".format(_DIM)
_ARGS = r"{0}(?:,{0})*".format(_ARG)
_SIGNATURE = r"^{0}->{0}$".format(_ARGS)


def parse_signature(signature: str):
    """([core dims of each input], [core dims of each output]) of a gufunc signature."""
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return tuple([tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARG, side)]
                 for side in signature.split("->"))


def context(excluded, signature) -> str:
    """What vectorize's errors end with: the function's excluded arguments and signature."""
    return f"on vectorized function with excluded={excluded!r} and signature={signature!r}"


def record_core_sizes(sizes: dict, shape: tuple, core: tuple, context: str, is_input: bool):
    """Check `shape`'s trailing dimensions against the `core` names, recording each name's
    size in `sizes` (JAX's _update_dim_sizes)."""
    if is_input and len(shape) < len(core):
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                         f"core dimensions {core!r} {context}")
    if not is_input and len(shape) != len(core):
        raise ValueError(f"output shape {shape!r} does not match core dimensions {core!r} "
                         f"{context}")
    for name, size in zip(core, shape[len(shape) - len(core):]):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {size!r} vs "
                             f"{sizes[name]!r} {context}")


def check_inputs(signature: str, shapes) -> None:
    """vectorize's checks of its inputs' core dimensions (no excluded arguments), for
    functions JAX defines as a vectorize of `signature`."""
    in_cores, _ = parse_signature(signature)
    sizes: dict = {}
    for shape, core in zip(shapes, in_cores):
        record_core_sizes(sizes, tuple(shape), core, context(frozenset(), signature), True)
