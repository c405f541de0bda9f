"""Calling a shape-polymorphic export with symbolic shapes (inside another export over
symbolic shapes): its dimension variables solved in terms of the caller's dimensions, its
checks decided statically, as JAX 0.10.2's `call_exported` abstract evaluation does.

    >>> from jxkernel import export
    >>> (a,), (c,) = export.symbolic_shape("a"), export.symbolic_shape("c")
    >>> symbolic_solution([(a, 4)], [(2 * c, 4)], ["args[0]"])
    {'a': 2*c}

Every check the exported module would make at run time on its arguments (a remainder, a
variable below 1, a dimension that does not fit) is made here on the caller's expressions: one
that fails, or that cannot be decided (`mod(c, 5) == 0`), is JAX's ValueError, so the caller's
module needs no checks of the callee's. The call itself is lowered unrefined
(`_inlining.unrefined_main`): the caller's module is refined as a whole when it is called.
"""
from __future__ import annotations

from .shape_poly import (_SPEC_DOC, InconclusiveDimensionOperation, _DimExpr, _evaluate,
                         cannot_solve, solving_plan, specs_text)


def _holds(test) -> bool:
    """Whether `test()` (a comparison of dimensions) is decided True; False where it is False
    or cannot be decided (JAX's `check_statically` raises on both)."""
    try:
        return bool(test())
    except InconclusiveDimensionOperation:
        return False


def symbolic_solution(specs, shapes, paths) -> dict:
    """{variable: dimension} solving the exported `specs` (symbolic shapes) from the caller's
    `shapes` (ints or the caller's symbolic dimensions), in JAX's order; the first check that
    does not hold statically raised as JAX's ValueError, naming the variables obtained."""
    env: dict = {}
    found: list = []              # each variable's (name, dimension spec, where)
    spec_text = specs_text(specs, paths)

    def mismatch(why: str) -> ValueError:
        obtained = "".join(f"'{v}' = {env[v]} from specification '{d}' for dimension {w}, "
                           for v, d, w in found)
        return ValueError(f"Input shapes do not match the polymorphic shapes specification. "
                          f"{why}. Using the following polymorphic shapes specifications: "
                          f"{spec_text}. Obtained dimension variables: {obtained}. {_SPEC_DOC}")

    dims = [(d, (path, i, n)) for spec, shape, path in zip(specs, shapes, paths)
            for i, (d, n) in enumerate(zip(spec, shape)) if isinstance(d, _DimExpr)]
    steps, unsolved = solving_plan(dims)
    if unsolved:
        raise cannot_solve(steps, [(d, f"{p}.shape[{i}]") for d, (p, i, _) in unsolved],
                           spec_text)
    for step in steps:
        if step[0] == "var":
            _, name, k, rest, d, (path, i, n) = step
            quotient, remainder = divmod(n - _evaluate(rest, env), k)
            if not _holds(lambda: remainder == 0):
                raise mismatch(f"Division had remainder {remainder} when computing the value "
                               f"of '{name}'")
            env[name] = quotient
            found.append((name, d, f"{path}.shape[{i}] (= {n})"))
            if not _holds(lambda: quotient >= 1):
                raise mismatch(f"Expected value >= 1 for dimension variable '{name}'")
        else:
            _, d, (path, i, n) = step
            want = _evaluate(d, env)
            if not _holds(lambda: want == n):
                raise mismatch(f"Found inconsistency between dimension size {path}.shape[{i}] "
                               f"(= {n}) and the specification '{d}' (= {want})")
    return env
