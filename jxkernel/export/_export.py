"""`export(jit(f))(*args) -> Exported`: a jitted function fixed to one signature, as a
StableHLO module that can be stored and called again later (also by another process).

    >>> exp = export(jit(lambda x: x * 2))(ShapeDtypeStruct((3,), np.float32))
    >>> exp.in_avals, exp.out_avals
    ((ShapedArray(float32[3]),), (ShapedArray(float32[3]),))
    >>> exp.call(np.ones(3, np.float32))
    Array([2., 2., 2.], dtype=float32)

`Exported.call` binds `call_exported`, a primitive whose lowering puts the stored module's
functions into the caller's module (renamed) and calls its `main`; so it runs eagerly, under
`jit`, and under `grad` (through the VJP exported beside it), like JAX's.
"""
from __future__ import annotations

import dataclasses
import re
import time
from typing import Callable

import numpy as np

from ..core import dtypes, sharding_types
from ..core.avals import ShapeDtypeStruct
from ..core.config import config
from ..core.dce import dce_jaxpr, prune_unused_inputs
from ..core.ir import ClosedJaxpr
from ..core.physical import physical_aval, physical_rules, physicalize
from ..core.symbolic import is_symbolic
from ..core.traceback_util import api_boundary
from ..core.primitive import (Primitive, abstract_eval_rules, batching_rules, effect_rules,
                              jvp_rules, lowering_rules, sharding_typing_rules)
from ..lax.creation import full
from ..xla.numpy_device import unsupported
from ..transforms.ad import vjp
from ..transforms.custom_derivatives import custom_vjp
from ..transforms.jit import Jitted, jit
from ..transforms.jit.args import result_paths
from ..transforms.jit.primitive import told_by_lowering
from ..tree_util import (equality_errors, keystr, tree_flatten, tree_flatten_with_path,
                         tree_unflatten)
from ..xla import client as _client
from ..xla import effect_tokens as _tokens
from ..xla import stablehlo as hlo
from ..xla.lowering import (LoweringParameters, ModuleContext, index_case, lower_jaxpr_into,
                            new_function, platform_index_args, set_up_aliases)
from ..xla.portable import module_text, portable_artifact
from . import _serialization, _sharded
from ._custom_calls import check_custom_calls
from ._effects import (WRAPPED_MAIN, call_tokens, export_effects, take_call_tokens,
                       wrap_main)
from ._inlining import inlined_main, refined_main, symbolic_call
from ._shape_assertions import add_shape_assertions
from ._symbolic_calls import symbolic_solution
from ._symbolic_lowering import SymbolicLowering, SymbolicRules, has_symbolic
from .shape_poly import evaluate_shape, solve_dimension_variables

# JAX's range of module calling conventions. Ours is version 9/10's for one platform, no
# effects and static shapes: `main(*arguments) -> results`, nothing else passed.
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


def _calling_convention_version() -> int:
    """`jax_export_calling_convention_version`, or JAX's ValueError outside JAX's range."""
    lo, hi = (minimum_supported_calling_convention_version,
              maximum_supported_calling_convention_version)
    if not lo <= (version := config.jax_export_calling_convention_version) <= hi:
        raise ValueError(f"The requested export calling convention version {version} is "
                         f"outside the range of supported versions [{lo}..{hi}]")
    return version


def default_export_platform() -> str:
    """The platform `export` lowers for by default: the default backend's ("cpu", "cuda")."""
    return _client.JAX_NAMES[_client.platform_of(_client.default_device())]


@dataclasses.dataclass(frozen=True)
class Exported:
    """A function lowered for one signature, with what is needed to call it again.

    `mlir_module_serialized` is a StableHLO portable artifact (as JAX stores it);
    `serialize()` writes jxkernel's own format, which JAX cannot read (nor we JAX's).
    Two compare equal, as JAX's, when their fields do (its VJP function by identity): the
    program calling one is reused for the other (two deserializations of one blob), not for
    another export of the same function (its VJP function is its own).

        >>> import jxkernel, numpy as np
        >>> exp = export(jxkernel.jit(lambda x: x * 2))(np.ones(3, np.float32))
        >>> deserialize(exp.serialize()) == deserialize(exp.serialize()) != exp
        True
    """
    fun_name: str
    in_tree: object
    in_avals: tuple
    out_tree: object
    out_avals: tuple
    # JAX's field order and none defaulted, as JAX's (a caller building one positionally or
    # by keyword gets JAX's signature). Each input's and output's sharding over an
    # AbstractMesh (None: unspecified); JAX's in/out_shardings_hlo are all None for exports
    # made after 3/17/2026, and _has_named_shardings True for those after 1/15/2026
    _has_named_shardings: bool
    _in_named_shardings: tuple
    _out_named_shardings: tuple
    in_shardings_hlo: tuple
    out_shardings_hlo: tuple
    nr_devices: int
    platforms: tuple
    ordered_effects: tuple
    unordered_effects: tuple
    disabled_safety_checks: tuple
    mlir_module_serialized: bytes
    calling_convention_version: int
    module_kept_var_idx: tuple
    uses_global_constants: bool
    _get_vjp: Callable | None = dataclasses.field(repr=False)
    # caches, not fields a caller gives (dataclasses.replace starts them afresh)
    _text: list = dataclasses.field(default_factory=list, repr=False, init=False,
                                    compare=False)                       # module text
    _physical: list = dataclasses.field(default_factory=list, repr=False, init=False,
                                        compare=False)       # its twin over keys' data
    _shown: list = dataclasses.field(default_factory=list, repr=False, init=False,
                                     compare=False)        # mlir_module(): with locations

    def __str__(self):
        return f"Exported(fun_name={self.fun_name}, ...)"

    def mlir_module(self) -> str:
        """The StableHLO module, as text, with its locations (`loc(...)`) as JAX prints it
        (JAX's default jax_include_debug_info_in_dumps=True)."""
        if not self._shown:
            self._shown.append(module_text(self.mlir_module_serialized, debug_info=True))
        return self._shown[0]

    def _plain_text(self) -> str:
        """The module's text without locations: what jxkernel parses (a `call`'s inlining)."""
        if not self._text:
            self._text.append(module_text(self.mlir_module_serialized))
        return self._text[0]

    def in_shardings_jax(self, mesh) -> tuple:
        """Each input's sharding over `mesh` (a Mesh or AbstractMesh with the export's axes),
        for jit or device_put; None where the export left it unspecified."""
        return _sharded.shardings_jax(self._in_named_shardings, mesh)

    def out_shardings_jax(self, mesh) -> tuple:
        """Each output's sharding over `mesh` (see in_shardings_jax)."""
        return _sharded.shardings_jax(self._out_named_shardings, mesh)

    def has_vjp(self) -> bool:
        return self._get_vjp is not None

    def vjp(self) -> Exported:
        """The exported VJP: arguments are the primal inputs, then one cotangent per output;
        results are the inputs' cotangents. Exported anew at each call (traced and lowered
        again, a new Exported), as JAX 0.10.2 does: `serialize(vjp_order=1)` and each grad
        through `call` do so too, as jax_log_compiles shows in both."""
        if self._get_vjp is None:
            raise ValueError("No VJP is available")
        return self._get_vjp(self)

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """jxkernel's own versioned format (see `deserialize`), with `vjp_order` orders of VJPs
        so that the loaded function can be differentiated that many times."""
        return _serialization.serialize(self, vjp_order)

    def call(self, *args, **kwargs):
        """Call the exported function (eagerly, or inside jit or grad) with arguments of the
        exported structure, shapes and dtypes."""
        return call_exported(self)(*args, **kwargs)


# ------------------------------------------------------------------ exporting
@api_boundary
def export(fun_jit, *, platforms=None, disabled_checks=(),
           _override_lowering_rules=None) -> Callable[..., Exported]:
    """`export(jit(f))(*args, **kwargs)`: args are arrays or ShapeDtypeStructs.
    `_override_lowering_rules`: JAX's private (primitive, rule) pairs lowered in place of
    those primitives' own rules in this export (not in its VJP's, as JAX's)."""
    # the functions JAX jits (jnp.sin, jnp.dot, nn.sigmoid) are plain here for eager speed and
    # carry their jit object (transforms/jit/namesakes.py), which JAX's docstrings export
    fun_jit = getattr(getattr(fun_jit, "as_jit", None), "jitted", fun_jit)
    if not isinstance(fun_jit, Jitted):
        raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
    platforms = _check_platforms(platforms)

    def do_export(*args, **kwargs) -> Exported:
        _check_dimensions(args, kwargs)
        _check_symbolic_scopes(fun_jit._name, args, kwargs)
        traced = fun_jit.trace(*args, **kwargs)
        _check_donation(platforms, traced.donated)
        start = time.perf_counter()
        exported = _exported(traced, platforms, tuple(disabled_checks),
                             lambda primal, mesh: _export_vjp(fun_jit, primal, platforms, mesh),
                             _override_lowering_rules)
        told_by_lowering(traced, time.perf_counter() - start, platforms)   # (JAX logs both)
        return exported
    return do_export


def deserialize(blob) -> Exported:
    """The Exported that `Exported.serialize()` wrote into `blob` (bytes or bytearray)."""
    return _from_fields(_serialization.deserialize(blob))


def _from_fields(fields: dict) -> Exported:
    vjp = fields.pop("vjp")
    vjp = None if vjp is None else _from_fields(vjp)
    if fields["uses_global_constants"] is None:      # a blob written before the field
        fields["uses_global_constants"] = _uses_global_constants(fields["platforms"],
                                                                 fields["in_avals"])
    return Exported(**fields, _get_vjp=None if vjp is None else lambda _: vjp)


def _check_platforms(platforms) -> tuple:
    platforms = (default_export_platform(),) if platforms is None else \
        (platforms,) if isinstance(platforms, str) else tuple(platforms)
    # JAX's names: "gpu" is resolved by the backends present ("cuda"), or JAX's error
    platforms = tuple(_client.jax_platform(p) for p in platforms)
    if "numpy" in platforms:
        raise unsupported("jax.export", "export for XLA's CPU with platforms=('cpu',) where "
                          "jaxlib is installed (or run under JAX_PLATFORMS=cpu)")
    return platforms


# the platforms whose compilers alias a donated argument's buffer (JAX's list)
_PLATFORMS_WITH_DONATION = ("cpu", "cuda", "rocm", "tpu", "neuron")


def _check_donation(platforms, donated) -> None:
    """JAX's rule for a module lowered for several platforms: donated arguments need every
    platform or none to support donation (the module's aliasing is one for all of them)."""
    with_donation = [p for p in platforms if p in _PLATFORMS_WITH_DONATION]
    if with_donation and len(with_donation) != len(platforms) and any(donated or ()):
        raise NotImplementedError(
            f"In multi-platform lowering either all or no lowering platforms should support "
            f"donation. Lowering for {tuple(platforms)} of which only {with_donation} support "
            f"donation")


def _exported(traced, platforms, disabled_checks, get_vjp, overrides=None) -> Exported:
    version = _calling_convention_version()
    closed = traced.jaxpr
    paths = _leaf_paths(traced.in_tree)
    kept = _kept_inputs(closed, traced.jitted._keep_unused)
    (text, uses_global_constants), layout = _sharded.lowered_with_layout(
        traced, lambda layout: _module_text(closed, traced.fun_name, platforms, paths,
                                            result_paths(traced.out_tree), layout, kept,
                                            traced.arg_names, overrides, traced.donated))
    check_custom_calls(text, disabled_checks)
    artifact = portable_artifact(text)
    n_in, n_out = len(closed.in_avals), len(closed.out_avals)
    ordered, unordered = export_effects(closed.jaxpr.effects)
    in_named, out_named = _sharded.named_shardings(layout, n_in, n_out)
    exported = Exported(
        fun_name=traced.fun_name, in_tree=traced.in_tree,
        in_avals=_sharded.typed_avals(closed.in_avals, in_named),
        out_tree=traced.out_tree, out_avals=_sharded.typed_avals(closed.out_avals, out_named),
        in_shardings_hlo=(None,) * n_in, out_shardings_hlo=(None,) * n_out,
        _has_named_shardings=True, _in_named_shardings=in_named,
        _out_named_shardings=out_named, nr_devices=_sharded.nr_devices(layout), platforms=platforms,
        ordered_effects=ordered, unordered_effects=unordered,
        disabled_safety_checks=disabled_checks, mlir_module_serialized=artifact,
        calling_convention_version=version,
        module_kept_var_idx=kept,
        uses_global_constants=uses_global_constants,
        _get_vjp=lambda primal: get_vjp(primal, layout and layout.mesh))
    exported._text.append(module_text(artifact))           # as a deserialized one reads
    return exported


def _kept_inputs(closed, keep_unused: bool) -> tuple:
    """The inputs the exported module's `main` takes (`module_kept_var_idx`): as JAX's jit,
    those its function reads, unless keep_unused or a shape is symbolic (then all)."""
    every = tuple(range(len(closed.jaxpr.invars)))
    if keep_unused or any(has_symbolic(a.shape) for a in closed.in_avals):
        return every
    n = len(closed.jaxpr.constvars)                  # (the constants are embedded: all kept)
    kept = prune_unused_inputs(dce_jaxpr(closed.jaxpr, True), keep=range(n))[1]
    return every if kept is None else tuple(i - n for i in kept if i >= n)


def _taking(closed, kept) -> ClosedJaxpr:
    """`closed` taking the `kept` inputs alone, without its dead code (as jit lowers it)."""
    jaxpr = dce_jaxpr(closed.jaxpr, prune_calls=True)
    return ClosedJaxpr(type(jaxpr)(jaxpr.constvars, [jaxpr.invars[i] for i in kept],
                                   jaxpr.outvars, jaxpr.eqns), closed.consts)


def _uses_global_constants(platforms, in_avals) -> bool:
    """JAX's `Exported.uses_global_constants` as the signature shows it (also the module's
    `jax.uses_shape_polymorphism`: its shapes are refined before XLA compiles it): a platform
    index, or symbolic sizes. A call of an Exported that has either adds to it."""
    return len(platforms) > 1 or any(is_symbolic(d) for a in in_avals for d in a.shape)


def _module_text(closed, name: str, platforms, arg_paths, result_names,
                 layout=None, kept=None, arg_names=None,
                 overrides=None, donated=None) -> tuple[str, bool]:
    """(A module whose `main` takes the jaxpr's inputs, the `kept` ones where given (the
    others dropped, and the dead code: _kept_inputs), after the platform index where it is
    lowered for several platforms, closed-over constants embedded; whether it uses global
    constants). With a `layout`, partitioned over its mesh (export/_sharded.py). `arg_names`
    (one per input: 'x', "params['w']") are the arguments' locations, as JAX names them.
    `overrides`: (primitive, rule) pairs lowered in place of those primitives' rules.
    `donated` (per input): on one device, a donated input aliases a result as jit's
    (`tf.aliasing_output`, lowering.set_up_aliases), as JAX's modules say."""
    attrs = {"mhlo.num_partitions": hlo.i32_attr(_sharded.nr_devices(layout)),
             "mhlo.num_replicas": hlo.i32_attr(1)}
    module = hlo.Module(f"jit_{name}", attrs)
    lowering = [_client.lowering_platform(p) for p in platforms]
    module_ctx = ModuleContext(module, lowering[0], platforms=lowering)
    module_ctx.mesh = layout and layout.mesh
    parameters = LoweringParameters(overrides, for_export=True,
                                    export_ignore_forward_compatibility=bool(
                                        config.jax_export_ignore_forward_compatibility))
    module_ctx.lowering_parameters = parameters
    if overrides:
        module_ctx.rules = parameters.rules()
    # (over the physical jaxpr: a typed key's sharding spans its data's trailing axes too)
    arg_attrs, result_attrs = _sharded.module_attrs(module, layout, physicalize(closed.jaxpr))
    names = list(arg_names) if arg_names is not None and \
        len(arg_names) == len(closed.jaxpr.invars) else None
    donated = list(donated or [False] * len(closed.jaxpr.invars))
    if kept is not None and len(kept) < len(closed.jaxpr.invars):
        arg_attrs = [arg_attrs[i] for i in kept]
        names = names and [names[i] for i in kept]
        donated = [donated[i] for i in kept]
        closed = _taking(closed, kept)
    # a token per ordered effect of a library's first, then the arrays (export/_effects.py)
    n_tok = len(export_effects(closed.jaxpr.effects)[0])
    if layout is None and any(donated):
        arg_attrs = _aliased(closed.jaxpr, donated, arg_attrs, n_tok)
    # typed keys as their uint32 data, their equations (random_bits, ...) computed on it
    physical_avals = [physical_aval(a) for a in closed.in_avals]
    arg_types = [_tokens.TOKEN] * n_tok + list(map(hlo.aval_type, physical_avals))
    arg_attrs = [_tokens.TOKEN_ATTR] * n_tok + list(arg_attrs or [None] * len(physical_avals))
    outer = dims = None
    if any(has_symbolic(a.shape) for a in closed.in_avals):
        # JAX's calling convention: `main` reads the dimension variables from the arguments'
        # sizes, checks them (shape assertions) and passes them, sorted by name, to
        # `_wrapped_jax_export_main`, which takes them first (`jax.global_constant`)
        outer = new_function(module_ctx, "main", arg_types, arg_attrs)
        outer_args = outer.args[len(platform_index_args(outer.body)):]
        module_ctx.symbolic = SymbolicLowering(outer.body, closed.in_avals, outer_args[n_tok:],
                                               arg_paths)
        add_shape_assertions(outer.body, module_ctx.symbolic, closed.in_avals,
                             outer_args[n_tok:], arg_paths)
        dims = sorted(module_ctx.symbolic.values)
        arg_types = ["tensor<i32>"] * len(dims) + arg_types
        arg_attrs = [f"jax.global_constant = {hlo.string_attr(d)}" for d in dims] + arg_attrs
    wrapped = bool(n_tok) or outer is not None
    main = new_function(module_ctx, WRAPPED_MAIN if wrapped else "main", arg_types, arg_attrs,
                        public=outer is None)
    if names is not None:
        main.arg_names[len(main.args) - len(names):] = names
    args = main.args[len(platform_index_args(main.body)):]
    if outer is not None:
        outer_dims = [module_ctx.symbolic.values[d] for d in dims]
        module_ctx.symbolic.values = dict(zip(dims, args[:len(dims)]))
        args = args[len(dims):]
    if n_tok:
        _tokens.take_main_tokens(main.body, args[:n_tok])
        args = args[n_tok:]
    if _uses_symbolic(closed):
        if module_ctx.symbolic is None:
            module_ctx.symbolic = SymbolicLowering(main.body, closed.in_avals, args, arg_paths)
        module_ctx.rules = SymbolicRules()
        # (a call of an export over the caller's symbolic shapes: _symbolic_calls.py)
        module_ctx.rules._rules[call_exported_p] = _call_exported_lowering
        if overrides:           # (a rule given for a primitive: lowered as given)
            module_ctx.rules._rules.update({p: r for p, r in parameters.rules().items()
                                            if any(p is q for q, _ in overrides)})
    consts = [main.body.constant(np.asarray(c)) for c in closed.consts]
    outs = lower_jaxpr_into(module_ctx, main.body, physicalize(closed.jaxpr), consts, args)
    main.set_results((_tokens.main_tokens_out(main.body, n_tok) if n_tok else []) + outs,
                     [_tokens.TOKEN_ATTR] * n_tok +
                     [", ".join(filter(None, [f"jax.result_info = {hlo.string_attr(n)}",
                                              sharding]))
                      for n, sharding in zip(result_names, result_attrs)])
    if outer is not None:
        outs = outer.body.call(main, [*platform_index_args(outer.body), *outer_dims,
                                      *outer_args])
        outer.set_results(outs, main.result_attrs)
        # (first in the module, as JAX inserts it at its start: before a top k's comparator)
        module.functions.remove(outer)
        module.functions.insert(0, outer)
    elif n_tok:
        wrap_main(module, main)
    if module_ctx.host_callbacks:
        raise ValueError(f"Cannot export '{name}': it calls Python host callbacks "
                         f"(debug.print, debug.callback, pure_callback or io_callback), which "
                         f"live only in this process. Remove them from the exported function.")
    uses = _uses_global_constants(platforms, closed.in_avals) or module_ctx.global_constants
    module.attrs["jax.uses_shape_polymorphism"] = hlo.bool_attr(uses)
    return module.text(), uses


def _aliased(jaxpr, donated, arg_attrs, n_tok: int = 0) -> list:
    """`arg_attrs` with each donated input's `tf.aliasing_output` (or `jax.buffer_donor`)
    where it finds a result, as jit's lowering decides (the constants are embedded); the
    result's index counts the `n_tok` tokens `main` gives back first."""
    aliases, _ = set_up_aliases(jaxpr, [False] * len(jaxpr.constvars) + list(donated))
    aliases = [a and _ALIAS.sub(lambda m: f"tf.aliasing_output = {int(m[1]) + n_tok} : i32", a)
               for a in aliases[len(jaxpr.constvars):]]
    return [", ".join(filter(None, [a, alias]))
            for a, alias in zip(arg_attrs or [None] * len(aliases), aliases)]


def _export_vjp(fun_jit, primal: Exported, platforms, mesh) -> Exported:
    """The VJP of `primal` as its own Exported (built on demand from the Python function),
    over the `mesh` `primal` was exported over (None: one device), sharded as JAX's: the
    primal inputs and the cotangents as the inputs and outputs, the results as the inputs."""
    n_in = len(primal.in_avals)

    # Only inexact inputs and outputs take part: the others' cotangents are float0, which
    # has no array of a symbolic shape; their zeros are bool arrays in the module.
    wrt = [i for i, a in enumerate(primal.in_avals) if _differentiable(a)]
    kept = [i for i, a in enumerate(primal.out_avals) if _differentiable(a)]

    def fun_vjp_jax(*args_and_out_cts_flat_jax):   # (JAX's name: its arguments' locations)
        primals, cts = args_and_out_cts_flat_jax[:n_in], args_and_out_cts_flat_jax[n_in:]

        def flat_fun(*wrt_primals):
            flat = list(primals)
            for i, p in zip(wrt, wrt_primals):
                flat[i] = p
            args, kwargs = tree_unflatten(primal.in_tree, flat)
            outs = tree_flatten(fun_jit(*args, **kwargs))[0]
            return [outs[i] for i in kept]
        _, pullback = vjp(flat_fun, *[primals[i] for i in wrt])
        in_cts = iter(pullback([cts[i] for i in kept]))
        return tuple(next(in_cts) if _differentiable(a) else full(a.shape, False, np.bool_)
                     for a in primal.in_avals)

    specs = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in primal.in_avals] + \
        [ShapeDtypeStruct(a.shape, a.dtype if _differentiable(a) else np.bool_)
         for a in primal.out_avals]
    return export(jit(fun_vjp_jax, **_sharded.vjp_shardings(primal, mesh)),
                  platforms=platforms)(*specs)


_ALIAS = re.compile(r"tf\.aliasing_output = (\d+) : i32")


# Integer inputs and outputs have float0 cotangents, which have no data: the exported VJP
# passes them as bool arrays of zeros (JAX's modules type float0 results as i1 too).
def _differentiable(aval) -> bool:
    return dtypes.is_inexact(aval.dtype)


def _check_dimensions(args, kwargs) -> None:
    for path, leaf in _flatten_with_paths(args, kwargs):
        shape = getattr(leaf, "shape", ())
        if not all(isinstance(d, (int, np.integer)) or is_symbolic(d) for d in shape):
            raise TypeError(
                f"export: {path} has shape {shape}, whose dimensions must be ints or symbolic "
                f"dimensions; build symbolic ones with export.symbolic_shape(\"b, 4\") or "
                f"export.symbolic_args_specs.")


def _check_symbolic_scopes(name: str, args, kwargs) -> None:
    """JAX's check before tracing: every symbolic dimension of the arguments is of the scope
    of the first one (two `symbolic_shape` calls without a shared `scope` make two)."""
    first = None
    for path, leaf in _flatten_with_paths(args, kwargs):
        for d in getattr(leaf, "shape", ()):
            if not is_symbolic(d):
                continue
            if first is None:
                first = (d.scope, path)
            elif d.scope is not first[0]:
                raise ValueError(
                    f"Invalid mixing of symbolic scopes when exporting {name}.\nExpected "
                    f"current (from {first[1]}) scope {first[0]}\nand found for '{d}' ({path}) "
                    f"scope {d.scope}\nSee https://docs.jax.dev/en/latest/export/"
                    f"shape_poly.html#user-specified-symbolic-constraints.")


def _uses_symbolic(closed) -> bool:
    """Whether symbolic sizes appear in the signature or among the top-level results."""
    avals = [*closed.in_avals, *closed.out_avals,
             *(v.aval for eqn in closed.jaxpr.eqns for v in eqn.outvars)]
    return any(has_symbolic(getattr(a, "shape", ())) for a in avals)


def _flatten_with_paths(args, kwargs):
    leaves, _ = tree_flatten_with_path((args, kwargs))
    return [(_path_text(path), leaf) for path, leaf in leaves]


def _path_text(path) -> str:
    """"args[0]['w']" for a key path into (args, kwargs)."""
    if not path:
        return "the arguments"
    head = "args" if getattr(path[0], "idx", None) == 0 else "kwargs"
    return head + keystr(path[1:])


# ------------------------------------------------------------------ calling
call_exported_p = Primitive("call_exported")
call_exported_p.multiple_results = True


def call_exported(exported: Exported) -> Callable:
    """The exported function as a Python callable: differentiable through its VJP."""
    if not isinstance(exported, Exported):
        raise ValueError(f"The exported argument must be an export.Exported. Found {exported}.")

    @custom_vjp
    def flat_call(*flat_args):
        return call_exported_p.bind(*flat_args, exported=exported)

    def flat_call_fwd(*flat_args):
        return flat_call(*flat_args), flat_args

    def flat_call_bwd(flat_args, cts):
        cts = [c if _differentiable(a) else np.zeros(np.shape(c), np.bool_)
               for c, a in zip(cts, exported.out_avals)]
        in_cts = call_exported(exported.vjp())(*flat_args, *cts)
        return tuple(c if _differentiable(a) else None       # None: a zero cotangent
                     for c, a in zip(in_cts, exported.in_avals))

    flat_call.defvjp(flat_call_fwd, flat_call_bwd)

    def call(*args, **kwargs):
        flat_args, in_tree = tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            raise ValueError(_structure_error(exported, in_tree))
        return tree_unflatten(exported.out_tree, flat_call(*flat_args))
    return call


def _structure_error(exported, in_tree) -> str:
    given = tree_unflatten(in_tree, [0] * in_tree.num_leaves)
    expected = tree_unflatten(exported.in_tree, [0] * exported.in_tree.num_leaves)
    lines = "".join(f"   - {_path_text(path)} is a {given_kind} in the invocation and a "
                    f"{expected_kind} when exported, so {why}.\n"
                    for path, given_kind, expected_kind, why in equality_errors(given, expected))
    return (f"The invocation args and kwargs must have the same pytree structure as when the "
            f"function '{exported.fun_name}' was exported, but they have the following "
            f"structural differences:\n{lines}")


def _call_exported_abstract_eval(*avals, exported):
    paths = _leaf_paths(exported.in_tree)
    _check_ranks_and_dtypes(paths, exported, avals)
    if _exported_symbolic(exported):
        return [a.update(shape=shape) for a, shape in
                zip(exported.out_avals, _call_out_shapes(exported, avals, paths))]
    for path, want, got in zip(paths, exported.in_avals, avals):
        for i, (w, g) in enumerate(zip(want.shape, got.shape)):
            if w != g:
                raise ValueError(f"Shape mismatch for {path}.shape[{i}] (expected same "
                                 f"constant): expected {want.shape} and called with {got.shape}")
    return list(exported.out_avals)


def _check_ranks_and_dtypes(paths, exported, avals) -> None:
    for path, want, got in zip(paths, exported.in_avals, avals):
        if len(want.shape) != len(got.shape):
            raise ValueError(f"Rank mismatch for {path}: expected {want.shape} and called "
                             f"with {got.shape}")
        if want.dtype != got.dtype:
            raise ValueError(f"Dtype mismatch for {path}: expected {want.dtype} and called "
                             f"with {got.dtype}")


def _exported_symbolic(exported) -> bool:
    return any(has_symbolic(a.shape) for a in exported.in_avals)


def _call_out_shapes(exported, avals, paths) -> list:
    """The result shapes for arguments of shapes `avals` (which must fit the exported ones):
    concrete ones, or the caller's symbolic ones (an export over symbolic shapes calling it:
    its checks decided statically, _symbolic_calls.py)."""
    specs, shapes = [a.shape for a in exported.in_avals], [a.shape for a in avals]
    if any(has_symbolic(s) for s in shapes):
        for path, want, got in zip(paths, exported.in_avals, avals):
            for i, (w, g) in enumerate(zip(want.shape, got.shape)):
                if not is_symbolic(w) and (is_symbolic(g) or w != g):   # (JAX's check)
                    raise ValueError(f"Shape mismatch for {path}.shape[{i}] (expected same "
                                     f"constant): expected {want.shape} and called with "
                                     f"{got.shape}")
        env = symbolic_solution(specs, shapes, paths)
    else:
        env = solve_dimension_variables(specs, shapes, paths)
    return [evaluate_shape(a.shape, env) for a in exported.out_avals]


def _leaf_paths(in_tree) -> list:
    example = tree_unflatten(in_tree, [0] * in_tree.num_leaves)
    return [_path_text(path) for path, _ in tree_flatten_with_path(example)[0]]


def _call_exported_lowering(ctx, *args, exported):
    if exported.uses_global_constants:
        ctx.module_ctx.global_constants = True       # the caller's shapes need refining too
    _sharded.check_devices(ctx, exported)
    args = _sharded.constrained(ctx, args, ctx.avals_in, exported._in_named_shardings)
    args = [*_callee_platform_index(ctx, exported), *call_tokens(ctx, exported),
            *(args[i] for i in exported.module_kept_var_idx)]    # (what its main takes)
    if any(has_symbolic(a.shape) for a in ctx.avals_in):     # (inside a symbolic export)
        outs = symbolic_call(ctx, exported, args)
    else:
        main = refined_main(ctx, exported) if _exported_symbolic(exported) else \
            inlined_main(ctx.module_ctx, exported)
        outs = ctx.block.call(main, args, ctx.loc)
    outs = take_call_tokens(ctx, exported, outs)
    return _sharded.constrained(ctx, outs, ctx.avals_out, exported._out_named_shardings)


def _callee_platform_index(ctx, exported) -> list:
    """What the call passes before the arguments: nothing to a module exported for one
    platform; to one for several, the index among its platforms of the one the caller runs
    on (JAX's case over the caller's own platform index, where the caller has one). Every
    platform the caller is lowered for must be among the exported ones."""
    here = tuple(_client.JAX_NAMES.get(p, p) for p in ctx.module_ctx.platforms)  # "cuda"
    anywhere = _serialization.DisabledSafetyCheck.platform() in exported.disabled_safety_checks
    if not anywhere and any(p not in exported.platforms for p in here):
        raise ValueError(f"Function '{exported.fun_name}' was exported for platforms "
                         f"'{exported.platforms}' but it is used on '{here}'.")
    if len(exported.platforms) == 1:
        return []
    [index] = platform_index_args(ctx.block) or [ctx.block.constant(np.int32(0))]
    # (a platform not exported, allowed by DisabledSafetyCheck.platform(), runs the first's)
    indices = [exported.platforms.index(p) if p in exported.platforms else 0 for p in here]
    return [index_case(ctx.block, index, indices, ctx.loc)]


def _call_exported_jvp(primals, tangents, *, exported):
    # call_exported's derivative is the VJP exported with it, applied by call_exported's
    # custom_vjp wrapper; forward mode stops at that wrapper, as in JAX
    raise TypeError(f"can't apply forward-mode autodiff (jvp) to the exported function "
                    f"'{exported.fun_name}': it is differentiable in reverse mode only "
                    f"(grad, vjp), through the VJP exported with it.")


def _call_exported_batching(vals, dims, *, exported):
    # an exported module is fixed to its shapes; JAX does not batch it either
    raise NotImplementedError("Batching rule for 'call_exported' not implemented")


def _call_exported_physical(in_avals, out_avals, *vals, exported):
    # a typed key's argument or result is its data in the module (see _module_text): the
    # call binds the export's twin typed over that data, as JAX's call lowers the physical
    # types of the exported avals
    return call_exported_p.bind(*vals, exported=_physical_twin(exported))


def _physical_twin(exported: Exported) -> Exported:
    """`exported` with its extended-dtype avals as their data's (one twin per export, so a
    module calling it twice inlines it once)."""
    if not exported._physical:
        exported._physical.append(dataclasses.replace(
            exported, in_avals=tuple(map(physical_aval, exported.in_avals)),
            out_avals=tuple(map(physical_aval, exported.out_avals))))
    return exported._physical[0]


abstract_eval_rules[call_exported_p] = _call_exported_abstract_eval
# its library's effects, ordered and not, as JAX's abstract eval gives them (export/_effects.py)
effect_rules[call_exported_p] = lambda params: frozenset(
    params["exported"].ordered_effects + params["exported"].unordered_effects)
physical_rules[call_exported_p] = _call_exported_physical
lowering_rules[call_exported_p] = _call_exported_lowering
jvp_rules[call_exported_p] = _call_exported_jvp
batching_rules[call_exported_p] = _call_exported_batching
# the results typed as exported (over Explicit axes: the abstract eval's), as JAX's make_aval
sharding_typing_rules[call_exported_p] = sharding_types.typed_by_abstract_eval
