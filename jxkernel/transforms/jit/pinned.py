"""Where a program on one device runs when a jit pinned to a device is part of it, as JAX
0.10.2 decides: a jit given `device=d`, or in_shardings/out_shardings that are all
SingleDeviceShardings on d (args.pinned_device), runs on d and commits its results,
also when grad, vmap or an enclosing jit calls it (its `jit` equation's in_shardings and
out_shardings hold those SingleDeviceShardings, as JAX's: `pin_of` reads its Pin), and
an enclosing program runs where the pinned jits inside it run. Any other device among the
committed arguments or given shardings is JAX's "Received incompatible devices" error.

    >>> from jxkernel.sharding import SingleDeviceSharding
    >>> p = jax.jit(jnp.sin, in_shardings=SingleDeviceSharding(jax.devices()[3]))   # 4 devices
    >>> jax.grad(lambda x: p(x).sum())(jnp.ones(4)).devices()
    {CpuDevice(id=3)}
    >>> jax.jit(lambda x: p(x) + 1)(jnp.ones(4)).committed      # runs where p runs
    True

The arguments a program never reads do not place it (JAX's jit drops them first, unless
keep_unused): `jit(lambda a, b: b * 2)(a_on_5, y)` runs on the default device, uncommitted.
A program calling an Exported (`exp.call`) commits its results, as JAX's does (it counts
the call's result memory kinds among its shardings). `one_device_given` says which of a
program's inputs and results JAX's module gives a sharding over its empty mesh.
"""
from __future__ import annotations

import functools

from typing import NamedTuple

from ...core.device_assignment import used_inputs
from ...core.ir import ClosedJaxpr, jaxpr_params
from ...core.lru import TRACES, WeakLRU
from ...core.mesh import UNSPECIFIED, legacy_mesh, on_context_mesh
from ...core.source_info import traced_call_site
from ...core.staging import JaxprTrace
from ...core.trace import _ctx
from ...tree_util import tree_flatten, tree_unflatten
from ...xla import client as _client
from ...xla.array import Array
from ...xla.placement import call_placement, placed_data
from ...xla.sharding import SingleDeviceSharding
from .args import device_mismatch, flat_pinned, pinned_found
from .cache import compiled_trace
from .refs import without_refs


class Pin(NamedTuple):
    """A pinned jit equation's given placements, as JAX's jit equation's in_shardings and
    out_shardings: per operand and per result the device of its SingleDeviceSharding, or
    None (unspecified); `forced` for `device=`, which moves any argument there, even one
    split over a mesh. The equations grad, vmap and linearize make from it carry theirs
    (`params` writes a Pin as an equation's params, `pin_of` reads it back)."""
    ins: tuple
    outs: tuple
    forced: bool = False

    @property
    def device(self):
        return next(d for d in self.ins + self.outs if d is not None)

    def jvp(self, nonzeros, out_nonzeros) -> Pin:
        """The jvp equation's: each tangent placed as its primal."""
        return Pin(self.ins + tuple(d for d, nz in zip(self.ins, nonzeros) if nz),
                   self.outs + tuple(d for d, nz in zip(self.outs, out_nonzeros) if nz),
                   self.forced)

    def transposed(self, linear, nonzero_cts=None) -> Pin:
        """The transposed equation's (JAX's _pjit_transpose_fancy): the non-linear operands',
        then each nonzero cotangent's as its result's; its results are the linear operands'."""
        outs = self.outs if nonzero_cts is None else _pick(self.outs, nonzero_cts, True)
        return Pin(tuple(d for d, lin in zip(self.ins, linear) if not lin) + outs,
                   tuple(d for d, lin in zip(self.ins, linear) if lin), self.forced)

    def split(self, unknowns, out_unknowns, n_res: int, n_consts: int) -> tuple:
        """(the known equation's, the unknown one's) of a linearized equation (JAX's
        _pjit_partial_eval): residuals, and the unknown part's consts, unspecified."""
        return (Pin(_pick(self.ins, unknowns, False),
                    _pick(self.outs, out_unknowns, False) + (None,) * n_res, self.forced),
                Pin((None,) * (n_consts + n_res) + _pick(self.ins, unknowns, True),
                    _pick(self.outs, out_unknowns, True), self.forced))

    def after(self, n: int) -> Pin:
        """This pin with `n` unspecified operands first (consts made operands)."""
        return Pin((None,) * n + self.ins, self.outs, self.forced)

    def series(self, order: int) -> Pin:
        """jet's equation's: each primal's `order` series terms placed as the primal."""
        return Pin(self.ins + tuple(d for d in self.ins for _ in range(order)),
                   self.outs + tuple(d for d in self.outs for _ in range(order)), self.forced)


def _pick(devices, flags, want: bool) -> tuple:
    return tuple(d for d, f in zip(devices, flags) if bool(f) == want)


class _Forced(tuple):
    """A `device=` jit equation's in_shardings (a tuple, printed as one): it moves any
    argument to its device, even one split over a mesh (Pin.forced)."""
    __slots__ = ()


@functools.cache
def _filled(value, n: int) -> tuple:
    """(value,) * n, one tuple per (value, n): most jit equations share theirs, and pin_of
    tells the unplaced ones by identity."""
    return (value,) * n


def _sharding(device):
    return UNSPECIFIED if device is None else SingleDeviceSharding(device)


def params(pin, n_in: int, n_out: int) -> dict:
    """A jit equation's placement params over `n_in` operands and `n_out` results, as JAX
    0.10.2's: in_shardings and out_shardings (UnspecifiedValue, or where `pin`, a Pin, gives
    a device its SingleDeviceSharding), in_layouts and out_layouts (None: jxkernel gives a
    jit equation no layout)."""
    if pin is None or not any(pin.ins + pin.outs):
        ins, outs = _filled(UNSPECIFIED, n_in), _filled(UNSPECIFIED, n_out)
    else:
        ins = tuple(map(_sharding, pin.ins))
        ins, outs = _Forced(ins) if pin.forced else ins, tuple(map(_sharding, pin.outs))
    return {"in_shardings": ins, "out_shardings": outs, "in_layouts": _filled(None, n_in),
            "out_layouts": _filled(None, n_out)}


def pin_of(params_: dict):
    """The Pin of a jit equation (its `params_`): the devices its in_shardings and
    out_shardings give, or None where none is given (the one place a Pin is made from an
    equation: the rules that rewrite one make the new one's params from it, `params`)."""
    ins, outs = params_["in_shardings"], params_["out_shardings"]
    if ins is _filled(UNSPECIFIED, len(ins)) and outs is _filled(UNSPECIFIED, len(outs)):
        return None                                         # (the common equation)
    ins, outs = tuple(map(_device_of, ins)), tuple(map(_device_of, outs))
    if not any(ins + outs):
        return None
    return Pin(ins, outs, type(params_["in_shardings"]) is _Forced)


def _device_of(sharding):
    return None if sharding is UNSPECIFIED or sharding is None else \
        sharding._device_assignment[0]


def pin_params(jitted, dyn_args, refs, n_consts: int, out_tree, jaxpr):
    """The Pin of the `jit` equation of a pinned jit (operands: `n_consts` consts, then the
    leaves of `dyn_args` less the Refs at `refs`; results: `out_tree`'s leaves, then
    `jaxpr`'s Refs' final values); None for any other jit."""
    if jitted._compiler_options and isinstance(_ctx.trace, JaxprTrace):     # (JAX's staging rule)
        raise ValueError(f"`compiler_options` can only be passed to top-level `jax.jit`. Got "
                         f"compiler_options={jitted._compiler_options} specified on a nested "
                         f"jit with name: {jitted._name} and source info: {traced_call_site()}")
    if jitted._device is None:
        return None
    check_context(jitted)
    n_args = len(tree_flatten(dyn_args)[0]) - len(refs)
    n_refs_out = len(jaxpr.out_avals) - out_tree.num_leaves
    if jitted._pinned is None:                    # device= (or backend=): every one
        ins, outs = (jitted._device,) * n_args, (jitted._device,) * out_tree.num_leaves
    else:
        ins = tuple(_device(s) for s in without_refs(flat_pinned(
            jitted._in_shardings, dyn_args), refs))
        outs = tuple(_device(s) for s in flat_pinned(jitted._out_shardings, tree_unflatten(
            out_tree, [0] * out_tree.num_leaves)))
    return Pin((None,) * n_consts + ins, outs + (None,) * n_refs_out, jitted._pinned is None)


def check_context(jitted) -> None:
    """JAX's ValueError for a `device=` (or `backend=`) jit called under set_mesh (a pjit:
    also in a `with mesh:` block, its resource mesh)."""
    if jitted._device is not None and jitted._pinned is None and (on_context_mesh() or (
            jitted._pjit and legacy_mesh() is not None)):
        raise ValueError("Mesh context manager should not be used with jit when backend or "
                         "device is also specified as an argument to jit.")


def _device(sharding):
    return None if sharding is None else sharding._device_assignment[0]


def _inside(jaxpr) -> tuple:
    """(the pinned jit equations' (device, source) in `jaxpr` and its sub-jaxprs, whether it
    calls an Exported), as JAX's get_intermediate_shardings and jaxpr_transfer_mem_kinds
    find them."""
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    found = _found.get((jaxpr, None))
    if found is not None:
        return found
    pins, exported = [], False
    for eqn in jaxpr.eqns:
        pin = pin_of(eqn.params) if eqn.primitive.name == "jit" else None
        if pin is not None:
            pins.append((pin.device, eqn.source_info))
        exported |= eqn.primitive.name == "call_exported" and bool(eqn.outvars)
        for sub in jaxpr_params(eqn.params):
            sub_pins, sub_exported = _inside(sub)
            pins += sub_pins
            exported |= sub_exported
    _found[jaxpr, None] = found = (pins, exported)
    return found


_found = WeakLRU(TRACES)      # (jaxpr, None) -> _inside(jaxpr)


def _inner(pins) -> list:
    """The pinned jits inside a program as entries of args.device_mismatch's list."""
    return [((device,), "jit inside jit", "" if source is None else f" at {source}")
            for device, source in pins]


def arguments_placement(jitted, signature, arrays) -> tuple:
    """(device, committed, settled) of a call on `arrays` before its trace, which its cache key
    holds: as its used arguments decide (JAX's jit drops the others first, unless keep_unused),
    where `signature` (a key's first four parts) was traced already; else as every argument
    does (program_placement decides after the trace, and a compile is kept under that).
    `settled` where no argument is committed: any of them place it alike (the default
    device, uncommitted), so program_placement need not count the used ones again."""
    if not any(x is not None and x.committed for x in map(placed_data, arrays)):
        return _client.default_device(), False, True
    found = None if jitted._keep_unused else compiled_trace(jitted._cache, signature)
    if found is not None:
        arrays = _used(found[0], arrays)
    try:
        return (*call_placement(arrays), False)
    except ValueError:      # committed to two devices: program_placement raises, naming them
        return _client.default_device(), False, False


def committed_at(jitted, leaves, dyn_args) -> tuple:
    """The positions among `leaves` of the Arrays committed to a device (jax.device_put's, or
    a result of them) whose placement the jit does not give: part of its cache key, as JAX's
    pjit keys its lowering and compile on each argument's resolved sharding (an uncommitted
    Array's is UnspecifiedValue, a committed one's its own), so a committed Array and an
    uncommitted one of the same type are one trace and two programs: its log's
    "Compiling jit(f) ... Argument mapping: (SingleDeviceSharding(...),)", then
    "(UnspecifiedValue,)" (tests/data/compile_level_reference.json). None of a `device=` or
    `backend=` jit's (it places every argument), nor those its in_shardings give.

        >>> v = jax.device_put(jnp.ones(3), jax.devices()[0])
        >>> committed_at(jax.jit(jnp.sin), [v, jnp.ones(3)], (v, jnp.ones(3)))
        (0,)
    """
    if jitted._device is not None and jitted._pinned is None:        # device= (or backend=)
        return ()
    given = flat_pinned(jitted._in_shardings, dyn_args) if jitted._pinned is not None else ()
    return tuple(i for i, x in enumerate(leaves) if type(x) is Array and x._buf._committed
                 and (i >= len(given) or given[i] is None))


def committed_given(jitted, closed, committed, refs) -> tuple | None:
    """one_device_given's answer for a plain jit's call whose leaves at `committed`
    (committed_at's) are committed: each of those its program reads given its device's
    sharding, as JAX's module of it gives them and `.lower()`'s does (so a `.lower(x)
    .compile()` of uncommitted x is not the program of a call on committed ones: JAX compiles
    that again); None where none is, or the jit places its arguments itself, or Refs are among
    them (`refs`)."""
    if not committed or refs or jitted._pinned is not None or jitted._device is not None:
        return None
    n = len(closed.in_avals)
    read = set(_used(closed, range(n), not jitted._keep_unused))
    ins = tuple(i in committed and i in read for i in range(n))
    return (ins, (False,) * len(closed.out_avals)) if any(ins) else None


def _used(jaxpr, leaves, dropping: bool = True) -> list:
    """`leaves` less those `jaxpr` never reads (all of them where they are not its inputs,
    as where Refs are among them, or not `dropping`: keep_unused)."""
    if not dropping:
        return list(leaves)
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    used = _used_inputs.get((jaxpr, None))
    if used is None:
        used = _used_inputs[jaxpr, None] = used_inputs(jaxpr)
    return [x for x, u in zip(leaves, used) if u] if len(used) == len(leaves) else list(leaves)


_used_inputs = WeakLRU(TRACES)      # (jaxpr, None) -> used_inputs(jaxpr)


def program_placement(jitted, jaxpr, device, committed, leaves, dyn_args, dyn_kwargs,
                      settled: bool = False) -> tuple:
    """(device, committed) of `jitted`'s program on one device (`jaxpr`) called on `leaves`,
    those of `dyn_args` and `dyn_kwargs`: where the pinned jits inside run, if any; else
    `device`, `committed` as its own pin decided, or as its used arguments do (committed
    also where it calls an Exported; `settled`: arguments_placement found none committed,
    so `device`, `committed` stand for them). A committed argument or given sharding
    elsewhere (args.pinned_found): JAX's ValueError, before a compile as JAX raises it."""
    pins, exported = _inside(jaxpr)
    if settled and jitted._device is None and not pins:    # (the common call: nothing to count)
        return device, committed or exported
    used = jitted._device is None and not jitted._keep_unused    # the used arguments place it
    names = lambda: _used(jaxpr, jitted._leaf_names(dyn_args, dyn_kwargs), used)  # noqa: E731
    # (JAX's errors name the function by its __qualname__: "outer.<locals>.f")
    name = getattr(jitted._fun, "__qualname__", jitted._name)
    if jitted._device is None:                  # (names: asked for by errors only)
        leaves = _used(jaxpr, leaves, used)
        device, committed = call_placement(leaves, lambda: (name, names()))
    if jitted._device is not None or pins:
        found = pinned_found(jitted, dyn_args, leaves) + _inner(pins)
        if len({tuple(f[0]) for f in found}) > 1:
            device_mismatch(name, names(), leaves, found)
    return (pins[0][0], True) if pins else (device, committed or exported)


def eager_placement(args, jaxpr, pinned) -> tuple:
    """(device, committed) of a `jit` equation run eagerly (grad, vmap and linearize re-bind
    it): where its given placements (`pinned`, a Pin) and those of the pinned jits inside
    say, else where the committed arguments are (else the default device, uncommitted), as
    a call would run it. A committed argument elsewhere: JAX's ValueError."""
    pins, exported = _inside(jaxpr)
    if pinned is None and not pins:
        device, committed = call_placement(args)
        return device, committed or exported
    ins = pinned.ins if pinned is not None else (None,) * len(args)
    found = [((d,) if d is not None else x.sharding._device_assignment, "ARG_SHARDING")
             for d, x in zip(ins, args) if d is not None or type(x) is Array and x.committed]
    found += [((d,), "explicit output sharding") for d in (pinned.outs if pinned else ())
              if d is not None] + _inner(pins)
    device_mismatch("", [], args, found)        # (JAX names no argument of an equation)
    return found[0][0][0], True


def has_pins(jaxpr, pinned) -> bool:
    """Whether a `jit` equation (`pinned`: its Pin) or a pinned jit inside it places it."""
    return pinned is not None or bool(_inside(jaxpr)[0])


def check_split(pinned, args) -> None:
    """JAX's ValueError for an argument split over a mesh where a pinned jit (`pinned`, a
    Pin, or None) gives it a SingleDeviceSharding; one whole on every device of its mesh
    (replicated) moves there, as JAX's, and `device=` moves any."""
    if pinned is None or pinned.forced:
        return
    for d, x in zip(pinned.ins, args):
        if d is not None and type(x) is Array and x.committed and not x.is_fully_replicated:
            raise ValueError(
                f"Sharding passed to jit does not match the sharding on the respective arg. "
                f"Got jit sharding: {_sharding(d)!r},\narg sharding: {x.sharding!r} for arg "
                f"type: {x.dtype.name}[{','.join(map(str, x.shape))}]")       # (JAX's words)


def refuse_mesh(jitted, jaxpr, leaves, dyn_args, dyn_kwargs, mesh) -> None:
    """A jit over a mesh (`mesh`: set_mesh's, else None: its arguments are split over one)
    that is pinned, or calls a pinned jit: JAX's ValueError, unless a pinned jit's split
    arguments are all replicated (they move to its device: it then runs there)."""
    pins = _inside(jaxpr)[0] if jaxpr is not None else []
    if jitted._device is None and not pins:
        return
    check_context(jitted)
    if mesh is None and jitted._pinned is not None:         # (device= moves any argument)
        check_split(Pin(_pin_of(jitted, dyn_args, leaves), ()), leaves)
    found = ([(tuple(mesh.devices.flat), "jit's context mesh")] if mesh is not None else []) + \
        pinned_found(jitted, dyn_args, leaves) + _inner(pins)
    if len({tuple(f[0]) for f in found}) > 1:
        device_mismatch(getattr(jitted._fun, "__qualname__", jitted._name),
                        jitted._leaf_names(dyn_args, dyn_kwargs), leaves, found)


def _pin_of(jitted, dyn_args, leaves) -> tuple:
    """Per leaf the device a pinned jit's in_shardings give it, or None."""
    return tuple(_device(s) for s in flat_pinned(jitted._in_shardings, dyn_args))


def one_device_given(traced) -> tuple | None:
    """(per input, per result) whether JAX's module of `traced`, a program on one device,
    gives it a sharding (`sdy.sharding` over `@empty_mesh`): a committed Array argument,
    a pinned jit's given in_shardings and out_shardings, every one of a `device=` jit's;
    None where none has one.

    >>> one_device_given(jax.jit(jnp.sin).trace(jax.device_put(1.0, jax.devices()[0])))
    ((True,), (False,))
    """
    jitted, leaves, out_tree = traced.jitted, traced._leaves, traced.out_tree
    n_out = len(traced.jaxpr.out_avals)            # (then a Ref's final value: none)
    if jitted._device is not None and jitted._pinned is None:         # device= (or backend=)
        return (True,) * len(leaves), (True,) * out_tree.num_leaves + \
            (False,) * (n_out - out_tree.num_leaves)
    dyn_args, _ = tree_unflatten(traced._in_tree, leaves)
    given_in = flat_pinned(jitted._in_shardings, dyn_args) + [None] * len(leaves) \
        if jitted._pinned is not None else [None] * len(leaves)
    given_out = flat_pinned(jitted._out_shardings, tree_unflatten(
        out_tree, [0] * out_tree.num_leaves)) if jitted._pinned is not None else []
    read = _used(traced.jaxpr, range(len(leaves)), not jitted._keep_unused)  # (JAX drops
    ins = tuple(s is not None or type(x) is Array and x.committed and i in read  # the others)
                for i, (x, s) in enumerate(zip(leaves, given_in)))
    outs = tuple(s is not None for s in given_out) + (False,) * (n_out - len(given_out))
    return (ins, outs) if any(ins + outs) else None


def pinned_constraint_error(device, mesh, name: str) -> None:
    """JAX's error for a sharding constraint over `mesh` inside a jit pinned by `device=`
    (none where `device` is None)."""
    if device is None:
        return
    ids = [d.id for d in mesh.devices.flat]
    raise ValueError(f"Received incompatible devices for jitted computation. Got explicit "
                      f"output sharding with device ids [{device.id}] on platform "
                      f"{device.platform.upper()} and sharding_constraint inside jit with "
                      f"device ids {ids} on platform {device.platform.upper()} ({name}): "
                      f"drop `device=` or constrain to a sharding on that device")
