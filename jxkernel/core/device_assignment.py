"""How many devices JAX runs a program on, and the check it makes of the results' types then
(pxla's _get_and_check_device_assignment and lower_sharding_computation).

A program runs where the first sharding over devices among its used inputs (a committed
Array's, or jit's in_shardings), its given out_shardings and those inside it (sharding
constraints and shard_maps over a Mesh) says; else over the mesh set by `jax.set_mesh`; else
on the default device. A result typed over a mesh of Explicit axes only must come from a
program on as many devices as that mesh has: outside set_mesh, a value typed over it (grad's
seed of a split value's loss, `jnp.zeros(..., out_sharding=NamedSharding(mesh, ...))`, or
`jnp.ones_like(x)` in a jit that never reads x) has no devices to be made on, and JAX says so.
jit, jit equations run eagerly and eager operations all ask it, as JAX's go through the same
lowering.

    >>> closed = jax.make_jaxpr(lambda x, y: y * 2)(1.0, 2.0)
    >>> program_devices(closed, [None, None])       # no sharding anywhere: the default device
    1
    >>> check_device_assignment(closed.out_avals, 1)   # an untyped result: nothing to check
"""
from __future__ import annotations

import weakref

from .dce import dce_jaxpr
from .interpreter_primitives import sharding_constraint_p
from .ir import ClosedJaxpr, Var, all_equations, jaxpr_params
from .mesh import AbstractMesh, Mesh, NamedSharding, get_mesh


def check_device_assignment(out_avals, count) -> None:
    """JAX's error for a result typed over a mesh of Explicit axes only whose size is not
    the program's device count: `count`, or a function giving it (asked only then)."""
    typed = [a for a in out_avals if _over_explicit_mesh(a)]
    if not typed:
        return
    n = count() if callable(count) else count
    for aval in typed:
        if n is not None and aval.split.mesh.size != n:
            raise ValueError(device_assignment_error(n, aval))


def device_assignment_error(n: int, aval) -> str:
    mesh = aval.split.mesh
    return (f"Length of device assignment {n} is not equal to the size of the mesh "
            f"{mesh.size} of aval {aval.str_short(True)}({{Explicit: {tuple(mesh.axis_names)}}}). "
            f"Please enter your `jit` into a mesh context via `jax.set_mesh`.")


def _over_explicit_mesh(aval) -> bool:
    sharding = getattr(aval, "split", None)
    return sharding is not None and bool(sharding.mesh.axis_names) and \
        sharding.mesh.are_all_axes_explicit


def program_devices(jaxpr, in_shardings, out_shardings=(), keep_unused=False) -> int | None:
    """How many devices JAX runs `jaxpr` (its invars after its constvars) on: see the module
    docstring. `in_shardings`: per input its sharding (None: an uncommitted value, which
    goes where the program runs); `keep_unused`: jit's, else an input the program never
    reads is left out, as JAX's jit drops it first. None under an AbstractMesh alone."""
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    given = _given(jaxpr, in_shardings, out_shardings, keep_unused)
    n = device_count(deciding_sharding(jaxpr, in_shardings, out_shardings, keep_unused))
    if n is not None:
        return n
    if get_mesh() is None and any(isinstance(getattr(s, "mesh", None), AbstractMesh)
                                  for s in given):
        return None          # given over an AbstractMesh alone (jax.export's): no devices
    return context_devices()


def deciding_sharding(jaxpr, in_shardings, out_shardings=(), keep_unused=False):
    """The sharding (or mesh) over devices that places `jaxpr`'s program: the first among
    its used inputs', the given outputs' and those inside it; None if none does (then
    set_mesh's mesh or the default device does)."""
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    for s in _given(jaxpr, in_shardings, out_shardings, keep_unused) + _inside(jaxpr):
        if device_count(s) is not None:
            return s
    return None


def _given(jaxpr, in_shardings, out_shardings, keep_unused) -> list:
    used = used_inputs(jaxpr) if not keep_unused else [True] * len(jaxpr.invars)
    return [s for s, u in zip(in_shardings, used) if u] + list(out_shardings)


def placement(x):
    """What an input says of where its program runs: an Array's sharding over a Mesh, else
    None (it goes where the program runs). (An Array committed to one device counts as
    none: jxkernel moves it onto set_mesh's mesh, where JAX refuses it.)"""
    s = getattr(x, "sharding", None)
    return s if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh) else None


def context_devices() -> int | None:
    """The devices of the mesh set by set_mesh, else one (the default device); None under
    an AbstractMesh alone (no devices named)."""
    mesh = get_mesh()
    if mesh is None or not mesh.axis_names:
        return 1
    return None if isinstance(mesh, AbstractMesh) else mesh.size


def used_inputs(jaxpr) -> list:
    """Per input of `jaxpr`, whether its program reads it (those JAX's jit keeps)."""
    pruned = dce_jaxpr(jaxpr)
    read = {v for e in pruned.eqns for v in e.invars if isinstance(v, Var)} | \
        {v for v in pruned.outvars if isinstance(v, Var)}
    return [v in read for v in jaxpr.invars]


def _inside(jaxpr) -> list:
    """The shardings over devices inside `jaxpr` (JAX's get_intermediate_shardings)."""
    # (shard_map by its name: api/ is above core)
    return [eqn.params["sharding"] if eqn.primitive is sharding_constraint_p else
            eqn.params["mesh"] for eqn in all_equations(jaxpr.eqns)
            if eqn.primitive is sharding_constraint_p or eqn.primitive.name == "shard_map"]


# The jaxprs of jit equations whose in/out_shardings were staged as sharding constraints on
# their inputs and outputs (transforms/jit/equation.py: a jit equation has no shardings)
GIVEN_AS_CONSTRAINTS: weakref.WeakSet = weakref.WeakSet()


def located_inside(jaxpr, given_by=None) -> list:
    """(device assignment, what, " at SOURCE") of each sharding over devices inside `jaxpr`
    and its sub-jaxprs, in JAX's order and words (dispatch.get_intermediate_shardings: a
    constraint is "sharding_constraint inside jit", a shard_map "shard_map inside jit", a jit
    equation's given shardings "jit inside jit" at the jit's line), for the device-mismatch
    error (transforms/jit/args.device_mismatch's entries). `given_by`: the jit equation whose
    shardings `jaxpr`'s constraints on its inputs and outputs are."""
    found = []
    ends = set(map(id, jaxpr.invars)) | {id(v) for v in jaxpr.outvars if isinstance(v, Var)} \
        if given_by is not None else ()
    for eqn in jaxpr.eqns:
        where, by = None, eqn
        if eqn.primitive is sharding_constraint_p:
            where = eqn.params["sharding"]
            if id(eqn.invars[0]) in ends or id(eqn.outvars[0]) in ends:
                by = given_by
        elif eqn.primitive.name == "shard_map":
            where = eqn.params["mesh"]
        if where is not None and device_count(where) is not None:
            devices = where._flat_devices if isinstance(where, Mesh) else \
                tuple(where._device_assignment)
            source = "" if by.source_info is None else f" at {by.source_info}"
            found.append((devices, f"{by.primitive.name} inside jit", source))
        for sub in jaxpr_params(eqn.params):
            sub = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
            found.extend(located_inside(sub, eqn if eqn.primitive.name == "jit" and
                                        sub in GIVEN_AS_CONSTRAINTS else None))
    return found


def device_count(sharding) -> int | None:
    """How many devices `sharding` (or a mesh) places a value on; None for none named (an
    AbstractMesh's, or no sharding)."""
    if sharding is None or isinstance(sharding, AbstractMesh):
        return None
    if isinstance(sharding, Mesh):
        return sharding.size
    if isinstance(sharding, NamedSharding):
        return None if isinstance(sharding.mesh, AbstractMesh) else sharding.mesh.size
    devices = getattr(sharding, "device_set", None)
    return len(devices) if devices is not None else None
