"""What the ahead-of-time stages of `jit` share (`Traced`, `Lowered`, `Compiled` are in
jit.py): `ArgInfo`, the texts and IRs of other dialects, and the errors of calling a Compiled
with arguments it was not compiled for. `jxkernel.stages` (JAX's `jax.stages`) re-exports them.

    >>> ArgInfo(ShapedArray((2,), np.float32), donated=False).shape
    (2,)
"""
from __future__ import annotations

import dataclasses
import typing

from ..core.avals import ShapedArray
from ..tree_util import equality_errors, keystr, tree_flatten, tree_unflatten
from ..xla import pipeline

if typing.TYPE_CHECKING:
    from .jit import Compiled, Lowered, Traced

# Options passed to XLA's compiler by name (JAX's `Lowered.compile(compiler_options=...)`).
CompilerOptions = dict[str, typing.Union[str, bool]]


@typing.runtime_checkable
class Wrapped(typing.Protocol):
    """What `jit` returns: callable, and staged by `.trace(...)` and `.lower(...)`."""

    def __call__(self, *args, **kwargs): ...

    def trace(self, *args, **kwargs) -> Traced: ...

    def lower(self, *args, **kwargs) -> Lowered: ...


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    """One argument's type and whether it is donated.

    >>> ArgInfo(ShapedArray((2,), np.float32), False).shape
    (2,)
    """
    _aval: ShapedArray
    donated: bool

    @property
    def shape(self):
        return self._aval.shape

    @property
    def dtype(self):
        return self._aval.dtype


def args_info(traced: Traced):
    """A pytree like `traced.in_tree` of ArgInfo, one per non-static argument leaf."""
    avals = traced.jaxpr.in_avals
    donated = traced.donated or (False,) * len(avals)
    return tree_unflatten(traced._in_tree, [ArgInfo(a, bool(d)) for a, d in zip(avals, donated)])


# ------------------------------------------------------------------ texts and IRs
_DIALECTS = ("stablehlo", "mlir", "hlo")


def _check_dialect(dialect: str) -> None:
    if dialect not in _DIALECTS:
        raise ValueError(f"unknown dialect: {dialect}. jxkernel gives 'stablehlo' (also "
                         f"called 'mlir') and 'hlo'.")


def lowered_text(lowered: Lowered, dialect: str, debug_info: bool) -> str:
    """`Lowered.as_text(dialect, debug_info=...)`: debug_info puts each op's source line on it."""
    # deferred, as the next: jaxlib's MLIR bindings load when another text is asked for
    from ..xla.portable import hlo_text
    _check_dialect(dialect)
    text = lowered._text
    if debug_info:
        traced = lowered.traced
        jaxpr = traced.jaxpr.jaxpr
        donated = (False,) * len(jaxpr.constvars) + (traced.donated or
                                                     (False,) * len(jaxpr.invars))
        text = pipeline.lower(jaxpr, [lowered.device], name=traced.jitted._name, donated=donated,
                              locations=True).text
    return hlo_text(text) if dialect == "hlo" else text


def compiler_ir(text: str, dialect: str):
    """`Lowered.compiler_ir`: jaxlib's `ir.Module` for "stablehlo", its XlaComputation for "hlo"."""
    # jaxlib's MLIR bindings load only when asked for
    from ..xla.portable import mlir_module, xla_computation
    _check_dialect(dialect)
    return xla_computation(text) if dialect == "hlo" else mlir_module(text)


# ------------------------------------------------------------------ calling a Compiled
def check_call_signature(compiled: Compiled, args, kwargs, got_avals) -> None:
    """Raise JAX's TypeError for a call whose pytree or argument types differ from those the
    program was compiled for."""
    _, treedef = tree_flatten((args, kwargs))
    if treedef != compiled.in_tree:
        raise TypeError(_tree_mismatch(compiled.in_tree, treedef))
    names = compiled._traced.arg_names or [f"args[{i}]" for i in range(len(got_avals))]
    lines = [f"Argument '{name}' compiled with {want.strip_weak_type()} and called with "
             f"{got.strip_weak_type()}"
             for name, want, got in zip(names, compiled._entry.jaxpr.in_avals, got_avals)
             if want.strip_weak_type() != got.strip_weak_type()]
    raise TypeError("Argument types differ from the types for which this computation was "
                    "compiled. Perhaps you are calling the compiled executable with a "
                    "different enable_x64 mode than when it was AOT compiled? The mismatches "
                    "are:\n" + "\n".join(lines))


def _tree_mismatch(want, got) -> str:
    expected = tree_unflatten(want, [0] * want.num_leaves)
    given = tree_unflatten(got, [0] * got.num_leaves)
    errors = list(equality_errors(expected, given))
    where = lambda path: ("args" + keystr(path[1:]) if path and path[0].idx == 0 else
                          "kwargs" + keystr(path[1:])) if path else "the arguments"
    details = "\n".join(f"    * at {where(path)}, seen {seen} but now given {now}, so {why}"
                        for path, seen, now, why in errors)
    return (f"Function compiled with input pytree does not match the input pytree it was "
            f"called with. There are {len(errors)} mismatches, including:\n{details}")
