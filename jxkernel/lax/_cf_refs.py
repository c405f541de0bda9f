"""Refs in control flow. A body or branch that writes a Ref made outside: its trace,
evaluated with the Ref's value as one more carry or operand (`discharged`), then the Ref
written after the loop or cond. And Refs passed as operands of cond, switch and scan (not
closed over), as JAX passes one into a branch or body as an input of Ref type.

A branch (or a scan body, for a carried Ref) is handed an inner Ref holding the Ref's value
where the cond runs, which its trace keeps as any Ref it closes over (lax/_cf_bodies.py's
written_refs carries the writes out); after the cond the Ref takes what the inner one holds.
A Ref in a scan's xs is handed to the body a row at a time (api/state.py's RowRef), whose
reads and writes go to that row of the Ref, closed over. JAX's errors for one Ref passed
twice, or passed and closed over, are checked first.

    >>> r = jax.new_ref(jnp.zeros(2))
    >>> lax.cond(True, lambda r: r.__setitem__(0, 1.0), lambda r: None, r); r
    Ref([1., 0.], dtype=float32)
"""
from __future__ import annotations

from ..core.errors import check_passed_once, ref_type
from ..core.interpret import eval_jaxpr
from ..core.source_info import function_source_info
from ..core.staging import is_ref
from ..core.trace import _ctx
from ..transforms.api_util import body_arg_names
from ..tree_util import tree_flatten_with_path, tree_unflatten

# ------------------------------------------------------------------ Refs written inside
# A loop body or a branch that writes a Ref made outside takes the Refs' values as more
# carry (or operands) and returns their new values (its trace, evaluated: `discharged`); the
# caller writes them back. JAX discharges the same effects from its jaxprs.
def written_refs(traced) -> list:
    """The Refs made outside that any of the ClosedJaxprs `traced` writes, each once."""
    refs = []
    for closed in traced:
        for i in closed.ref_writes:
            if all(r is not closed.consts[i] for r in refs):
                refs.append(closed.consts[i])
    return refs


def discharged(closed, refs, out_tree):
    """`closed`, a body or branch traced once that writes some of `refs`, as a function of
    (its flat inputs, the values of `refs`) -> (its outputs as `out_tree`, the Refs' new
    values), which evaluates the traced jaxpr: the user's function is not run again (JAX
    traces a body once; a print in it prints once). The trace ("lift") made each Ref read
    a constvar and returned each Ref written as one more output (core/staging.py)."""
    def at(ref) -> int | None:
        return next((k for k, r in enumerate(refs) if r is ref), None)

    def run(flat_args, values):
        consts = [c if not is_ref(c) else c[...] if at(c) is None else values[at(c)]
                  for c in closed.consts]
        outs = eval_jaxpr(closed.jaxpr, consts, *flat_args)
        n = len(outs) - len(closed.ref_writes)
        new = list(values)
        for i, value in zip(closed.ref_writes, outs[n:]):
            new[at(closed.consts[i])] = value
        return tree_unflatten(out_tree, outs[:n]), new
    return run


def ref_values(refs) -> list:
    return [r[...] for r in refs]


def write_refs(refs, values) -> None:
    for ref, value in zip(refs, values):
        ref[...] = value


# api/state.py's classes, which it registers here (api is above lax): "box", a Ref holding
# its value; "row", a Ref's row as a Ref
ref_classes: dict = {}


def ref_operands(fun, in_tree, leaves, traced_for: str) -> list:
    """The positions of the Refs among `leaves`, the flat operands of `fun`; JAX's error
    where one Ref is two of them ("appeared at both x1 and x2")."""
    positions = [i for i, x in enumerate(leaves) if is_ref(x)]
    if positions:
        check_passed_once(traced_where(fun), leaves, positions,
                          lambda: body_arg_names(fun, in_tree), traced_for)
    return positions


def traced_where(fun) -> str:
    """`fun` as JAX's Ref errors name a traced function: "f at file.py:3"."""
    source = function_source_info(fun)
    name = getattr(fun, "__name__", type(fun).__name__)
    return name + (f" at {source.file}:{source.line}" if source else "")


def inner_refs(leaves, positions) -> dict:
    """{position: a new Ref holding that Ref's value here} (module docstring)."""
    return {i: ref_classes["box"](leaves[i][...], _ctx.trace) for i in positions}


def row_of(ref, index):
    """Row `index` of `ref`, as a Ref (api/state.py's RowRef)."""
    return ref_classes["row"](ref, index)


def taking_refs(fun, in_tree, leaves, inner: dict):
    """(`fun` over the flat operands that are not Refs, handed `inner`'s Refs in the others'
    places, those operands); named, in errors and debug info, by `fun`'s parameters."""
    rest = [i for i in range(len(leaves)) if i not in inner]

    def taking(*flat):
        flat = iter(flat)
        return fun(*tree_unflatten(in_tree, [inner[i] if i in inner else next(flat)
                                             for i in range(len(leaves))]))
    paths = leaf_paths(tree_unflatten(in_tree, list(leaves)))
    taking._jx_traced_as = (fun, None, lambda path: (paths[rest[path[0].idx]][0].idx,
                                                     paths[rest[path[0].idx]][1:]))
    return taking, [leaves[i] for i in rest]


def leaf_paths(tree) -> list:
    """The key path of each leaf of `tree`, a Ref a leaf."""
    return [p for p, _ in tree_flatten_with_path(tree, is_leaf=is_ref)[0]]


def closed_over_error(fun, in_tree, ref, position, traced_for: str) -> ValueError:
    return ValueError(f"when tracing {traced_where(fun)} for {traced_for}, a mutable array "
                      f"reference of type {ref_type(ref)} was both closed over and passed as "
                      f"the argument {body_arg_names(fun, in_tree)[position]}")


def check_not_closed_over(fun, in_tree, traced, leaves, inner: dict, traced_for: str) -> None:
    """JAX's error for a Ref both passed to `fun` and closed over by it (or by another branch
    of the same cond): the Ref itself among the traced ClosedJaxprs' consts."""
    for closed in traced:
        for c in closed.consts:
            for i in inner:
                if c is leaves[i]:
                    raise closed_over_error(fun, in_tree, c, i, traced_for)


def check_not_closed_over_here(fun, in_tree, leaves, inner: dict, traced_for: str) -> None:
    """`check_not_closed_over` from inside the body's trace, once `fun` returned: a passed Ref
    the trace lifted is one `fun` closed over (it was handed the inner one)."""
    keeper = _ctx.trace
    while keeper is not None and not getattr(keeper, "ref_policy", None):
        keeper = keeper.parent
    for i in inner:
        if keeper is not None and id(leaves[i]) in keeper.refs:
            raise closed_over_error(fun, in_tree, leaves[i], i, traced_for)


def write_back(leaves, inner: dict) -> None:
    """Each passed Ref takes what its inner Ref holds after the cond."""
    for i, ref in inner.items():
        leaves[i][...] = ref[...]
