"""The card for an operand on another mesh than set_mesh's (JAX's ValueError "For primitive
add, context mesh AbstractMesh(...) should match the aval mesh AbstractMesh(...)"): arrays
put on one mesh's devices (`jax.NamedSharding(mesh_a, ...)`) meet an operation under
`jax.set_mesh(mesh_b)`, which runs over mesh_b's devices. JAX's message names both meshes
and no way out; the card names the arrays and puts them on the set mesh.
"""
from __future__ import annotations

import ast
import re

from ...core.mesh import get_abstract_mesh
from .card import ErrorCard
from .reading import _user_frame
from .rewrites import _parse_line

_MISMATCH = re.compile(r"For primitive (\w+), context mesh (.+) should match the aval mesh "
                       r"(.+) for shape (\S+)\. This error occurs at source:")


def _axes(mesh_text: str) -> str:
    """"'i': 4, 'j': 2" of "AbstractMesh('i': 4, 'j': 2, axis_types=...)"."""
    found = re.match(r"AbstractMesh\((.*?), axis_types=", mesh_text)
    return f"axes {found.group(1)}" if found else mesh_text


def _is_mesh_mismatch(e) -> bool:
    return isinstance(e, ValueError) and _MISMATCH.match(str(e)) is not None


def _on_other_mesh(tree, frame) -> list:
    """The names in the user's line whose values are arrays over another mesh than the
    context's, in the order the line reads them."""
    names = {} if frame is None else {**frame.f_globals, **frame.f_locals}
    context = get_abstract_mesh()
    found = []
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Name) and node.id not in found:
            mesh = getattr(getattr(names.get(node.id), "sharding", None), "mesh", None)
            abstract = getattr(mesh, "abstract_mesh", mesh)
            if abstract is not None and getattr(abstract, "axis_names", ()) and \
                    abstract != context:
                found.append(node.id)
    return found


def _mesh_mismatch_card(exc, where, called_from) -> ErrorCard:
    prim, context, other, shape = _MISMATCH.match(str(exc)).groups()
    moved = _on_other_mesh(_parse_line(where), _user_frame(exc))
    rewrite = "\n".join(f"{n} = jax.device_put({n}, jax.P())    # onto set_mesh's mesh, whole "
                        f"on each device" for n in moved)
    if rewrite and where:
        rewrite += "\n" + where["code"].strip()
    named = ", ".join(moved) if moved else f"an operand ({shape})"
    return ErrorCard(
        "mesh-mismatch", f"{named} on another mesh than jax.set_mesh's",
        why=(f"Under jax.set_mesh, {prim} runs over the set mesh's devices "
             f"({_axes(context)}); {named} {'live' if len(moved) > 1 else 'lives'} on another "
             f"mesh ({_axes(other)}), whose devices or axes differ, so the operation has no "
             f"one mesh to run over."),
        fix=("Put the operands on one mesh first: jax.device_put onto the set mesh (with a "
             "PartitionSpec of its axes, or jax.P() for whole), or run the operation inside "
             "`with jax.set_mesh(their_mesh):` when every operand is on that one."),
        rewrite=rewrite, docs="https://docs.jax.dev/en/latest/parallel.html")
