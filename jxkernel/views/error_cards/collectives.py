"""The card for a collective over an axis nothing binds (JAX's NameError "unbound axis name: i"
or "Found an unbound axis name: i. To fix this, please call psum under `jax.shard_map`."):
`jax.lax.psum(x, 'i')` outside shard_map, where the array is whole, or a name the mesh has
not ('k' on a mesh of 'i' and 'j'), where JAX's advice to call it under shard_map is no help
(it is under one).

    >>> _unbound_name(NameError("unbound axis name: i"))
    'i'
"""
from __future__ import annotations

import ast
import re

from ...core.mesh import get_mesh
from .card import ErrorCard
from .rewrites import _parse_line

_UNBOUND = re.compile(r"(?:Found an )?unbound axis name: (.+?)(?:\. To fix this, .*)?", re.S)

# the collectives whose whole-array counterpart a learner outside shard_map usually meant
_WHOLE = {"psum": "sum", "pmean": "mean", "pmax": "max", "pmin": "min"}
_COLLECTIVES = {*_WHOLE, "axis_index", "all_gather", "all_to_all", "ppermute", "psum_scatter",
                "pshuffle", "pswapaxes", "pbroadcast", "axis_size"}
_DOCS = "https://docs.jax.dev/en/latest/notebooks/shard_map.html"


def _unbound_name(e) -> str | None:
    found = _UNBOUND.fullmatch(str(e)) if isinstance(e, NameError) else None
    return found.group(1) if found else None


def _is_unbound_axis(e) -> bool:
    return _unbound_name(e) is not None


def _inside_shard_map(exc) -> bool:
    """Whether the error was raised while a shard_map traced its function (its frames are
    in the traceback)."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.replace("\\", "/").endswith(
                ("jxkernel/api/shard_map/__init__.py", "jxkernel/api/shard_map/call.py")):
            return True
        tb = tb.tb_next
    return False


def _collective_call(where):
    """(the statement, the collective's Call, its name) in the user's line, or Nones."""
    tree = _parse_line(where)
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in _COLLECTIVES:
                return tree.body[0], node, name
    return None, None, None


def _target(statement) -> str | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None


def _outside_rewrite(statement, call, api, name, axes) -> str:
    """jnp's reduction of the whole array, and the collective inside a shard_map over the
    set mesh's axis `name` (when it has one); "" without the call."""
    if call is None or (api not in _WHOLE and api != "axis_index"):
        return ""
    lines = []
    if api == "axis_index":
        if name in axes:
            lines.append(f"{_target(statement) or 'index'} = jax.shard_map(lambda: jax.lax."
                         f"axis_index({name!r}).reshape(1), in_specs=(), out_specs="
                         f"jax.P({name!r}))()    # each device's index along {name!r}")
        return "\n".join(lines)
    if not call.args:
        return ""
    arg = ast.unparse(call.args[0])
    target = _target(statement) or "total"
    lines.append(f"{target} = jnp.{_WHOLE[api]}({arg})    # the whole array's {_WHOLE[api]}: "
                 f"no collective outside shard_map")
    if name in axes:
        lines.append(f"# or each device's block of {arg}, combined over {name!r} (its length "
                     f"a multiple of the axis size):")
        lines.append(f"blocks = jax.shard_map(lambda b: jax.lax.{api}(b, {name!r}), "
                     f"in_specs=jax.P({name!r}), out_specs=jax.P())(jax.device_put({arg}, "
                     f"jax.P({name!r})))")
    return "\n".join(lines)


def _renamed_rewrite(where, name, axes) -> str:
    """The user's line with the mesh's first axis for `name`; "" without the line or a mesh."""
    if not where or not axes or repr(name) not in where["code"]:
        return ""
    others = ", ".join(repr(a) for a in axes[1:])
    return (f"{where['code'].strip().replace(repr(name), repr(axes[0]))}"
            f"{f'    # or another axis of the mesh: {others}' if others else ''}")


def _unbound_axis_card(exc, where, called_from) -> ErrorCard:
    name = _unbound_name(exc)
    mesh = get_mesh()
    axes = tuple(mesh.axis_names) if mesh is not None else ()
    statement, call, api = _collective_call(where)
    api = api or "the collective"
    # (outside one, a name the mesh has not still needs the collective moved in first: the
    # line renamed would fail the same way)
    if _inside_shard_map(exc):
        shown = ", ".join(repr(a) for a in axes)
        return ErrorCard(
            "unbound-axis", f"{api} names axis {name!r}, which the mesh has not",
            why=(f"A collective combines the blocks of a value over a mesh axis it names; "
                 f"{name!r} is not one of the mesh's axes"
                 f"{f' ({shown})' if shown else ''}, so nothing binds it, inside a "
                 f"shard_map or not."),
            fix=("Name an axis of the mesh the function is mapped over: the one the value is "
                 "split over in its in_specs, to combine its blocks."),
            rewrite=_renamed_rewrite(where, name, axes), docs=_DOCS)
    return ErrorCard(
        "unbound-axis", f"{api} over axis {name!r} outside shard_map",
        why=(f"Collectives (psum, pmean, all_gather, axis_index, ...) combine each device's "
             f"block of a value split over a mesh axis, so they run only inside a function "
             f"given to jax.shard_map (or vmap with axis_name={name!r}), which binds the "
             f"axis. Here nothing binds {name!r}"
             f"{': the array is whole.' if api in _WHOLE else '.'}"),
        fix=(f"For the whole array, use jax.numpy's reduction: it needs no collective. For "
             f"per-device blocks, call {api} inside the function you give jax.shard_map."
             if api in _WHOLE else
             f"Call {api} inside the function you give jax.shard_map, over an axis of its "
             f"mesh."),
        rewrite=_outside_rewrite(statement, call, api, name, axes), docs=_DOCS)
