"""jxkernel._src.core, as jax._src.core: the names libraries take from JAX's private core
module, over jxkernel's (its avals, tracers and traces; `jax.core` is `jxkernel.core`).

    >>> physical_aval(ShapedArray((3,), jnp.float32))
    ShapedArray(float32[3])
"""
import operator
import typing

import numpy as np

from ...core.errors import ConcretizationTypeError  # noqa: F401
from ...core.sharding_types import ShardingTypeError  # noqa: F401
from ...core.avals import pytype_aval_mappings  # noqa: F401 (a library's array classes)
from ...core.avals import typeof  # noqa: F401
from ...api.state import freeze, new_ref  # noqa: F401 (JAX keeps them in core)
from ...core.avals import (AbstractFuture, AbstractToken, AbstractValue,  # noqa: F401
                           ShapedArray, Token, abstract_token, get_aval)
from ...core.errors import ConcretizationTypeError  # noqa: F401
# JAX's eval_jaxpr gives a literal output as its value (a TypedFloat), not the Literal, as
# jax.core's does; jxkernel's interpreters' own (core.interpret.eval_jaxpr) keeps it
from ...core.interpret import public_eval_jaxpr as eval_jaxpr  # noqa: F401
from ...core.ir import ClosedJaxpr, Jaxpr, Literal, Var  # noqa: F401
from ...core.ir import _ADDRESS, Names as _Names, pp_param as _pp_param
from ...core.trace import PrettyText
from ...core.primitive import Primitive  # noqa: F401
from ...core.trace import Trace, Tracer, current_trace, set_current_trace  # noqa: F401
from ...core.check import JaxprTypeError, check_jaxpr  # noqa: F401
from ..extend.core import (Effect, TraceTag, find_top_trace,  # noqa: F401
                           get_opaque_trace_state, jaxpr_as_fun, mapped_aval, no_effects,
                           subjaxprs, take_current_trace, unmapped_aval, valid_jaxtype)
from .hijax import AvalMutableQDD, AvalQDD, aval_method, aval_property  # noqa: F401
from ...core.hijax import (MutableQuasiDynamicData, QuasiDynamicData,  # noqa: F401
                           cur_qdd)


# the type of the arrays that hold a value of type `aval` (a typed key's: its uint32 data)
from ...core.physical import physical_aval  # noqa: E402,F401
from ...core.errors import ConcretizationTypeError, UnexpectedTracerError  # noqa: E402,F401
from ...core.trace import eval_trace  # noqa: E402,F401
from ...core.compile_time_eval import eval_context  # noqa: E402,F401
from ...core.staging import convert_constvars_to_invars, trace_to_jaxpr  # noqa: E402
from ...lax.eval_jaxpr import eval_jaxpr_p  # noqa: E402
from ...transforms.linear_util import wrap_init  # noqa: E402,F401
from ..api_util import shaped_abstractify  # noqa: E402,F401 (JAX keeps it in core too)
from ...core import vma as _vma  # noqa: E402
from ...core.mesh import AxisType, PartitionSpec, get_abstract_mesh  # noqa: E402
from ...tree_util import tree_map  # noqa: E402
# JAX's call_p: an equation `call[call_jaxpr=...]` (transforms/call_primitive.py)
from ...transforms.call_primitive import call_p  # noqa: E402


def trace_state_clean() -> bool:
    """Whether no transformation is tracing now (JAX's check that one left nothing behind).

    >>> trace_state_clean()
    True
    """
    return current_trace() is eval_trace


class CallPrimitive:
    """JAX's `core.CallPrimitive`: bound with `subfuns=(fun,)`, a linear_util WrappedFun, it
    calls `fun` on its operands as one operation (jxkernel traces `fun` and binds the traced
    jaxpr as `eval_jaxpr`, whose transformations run the body's rules in place, so it is no
    primitive of its own; `name` and other params only name the call).

    >>> call(jnp.float32(2.0), subfuns=(wrap_init(lambda x: [x * 3.0]),), name="f")
    [Array(6., dtype=float32)]
    """
    multiple_results = True

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name

    def bind(self, *args, subfuns, **params):
        fun, = subfuns
        closed = trace_to_jaxpr(lambda *xs: list(fun.call_wrapped(*xs)),
                                [get_aval(x) for x in args])
        jaxpr, consts = convert_constvars_to_invars(closed)  # (tracers it closes over: operands)
        return eval_jaxpr_p.bind(*consts, *args, jaxpr=jaxpr)


call = call_p.bind
# JAX's call of a closed jaxpr; bound as call_p is (a WrappedFun), it calls it the same way
closed_call_p = CallPrimitive("closed_call")


from ...core.dtypes import primal_dtype_to_tangent_dtype  # noqa: E402,F401
from ...core.symbolic import is_symbolic as _is_symbolic, max_dim, min_dim  # noqa: E402,F401
from ...core.symbolic import definitely_equal, dilate_dim, stride_dim  # noqa: E402,F401
from ...core.errors import InconclusiveDimensionOperation  # noqa: E402,F401

# a shape: a sequence of dimensions, each an int or a symbolic dimension
Shape = typing.Sequence[typing.Union[int, typing.Any]]


def is_symbolic_dim(d) -> bool:
    """Whether `d` is a symbolic dimension (jax.export's) rather than an integer.

    >>> is_symbolic_dim(3)
    False
    """
    return _is_symbolic(d)


def is_constant_dim(d) -> bool:
    """Whether `d` is a known integer: not symbolic, not a value known only when run.

    >>> is_constant_dim(3), is_constant_dim(np.int32(2)), is_constant_dim(2.5)
    (True, True, False)
    """
    try:
        operator.index(d)
        return True
    except Exception:                      # a tracer, a symbolic dimension, a float
        return False


def definitely_equal_one_of_dim(d, dims) -> bool:
    """Whether `d` is certainly equal to one of `dims`.

    >>> definitely_equal_one_of_dim(3, (1, 3))
    True
    """
    return any(definitely_equal(d, other) for other in dims)


def dimension_as_value(d):
    """A dimension as a value a computation can use: an int as itself, a symbolic dimension
    as the array its value is read into (in an export: from the arguments' shapes).

    >>> dimension_as_value(3)
    3
    """
    if isinstance(d, (int, np.integer, Tracer)):
        return d
    if _is_symbolic(d):
        return d.__jax_array__()
    return operator.index(d)


def is_constant_shape(shape) -> bool:
    """Whether every dimension of `shape` is a known integer (no jax.export symbolic one).

    >>> is_constant_shape((2, 3)), is_constant_shape(())
    (True, True)
    """
    return not any(_is_symbolic(d) for d in shape)


from ...core.avals import MemorySpace  # noqa: E402,F401 (an operation's results' memory)
from ...core.avals import ManualAxisType  # noqa: E402,F401 (interned, as JAX's)

from ...core.axis_env import axis_names, visible_axes  # noqa: E402  (get_axis_env's)


class AxisEnv:
    """The named axes visible where it was taken (JAX's `core.AxisEnv`): those of enclosing
    vmaps, pmaps and shard_maps, each name's innermost size.

        >>> jax.vmap(lambda x: get_axis_env().axis_size("i"), axis_name="i")(jnp.ones(3))
        Array([3, 3, 3], dtype=int32, weak_type=True)
    """

    def __init__(self, visible, names):
        self.axis_sizes = {}
        for name, size in visible:               # innermost first: the first one stands
            self.axis_sizes.setdefault(name, size)
        self._names = tuple(names)

    def axis_size(self, axis_name):
        if axis_name not in self.axis_sizes:
            raise NameError(f"unbound axis name: {axis_name}")     # (JAX's words)
        return self.axis_sizes[axis_name]

    def axis_exists(self, axis_name) -> bool:
        return axis_name in self.axis_sizes

    def axis_names(self) -> tuple:
        """Outermost first, each once."""
        return self._names

    def __repr__(self):
        return f"AxisEnv({self.axis_sizes!r})"


def get_axis_env() -> AxisEnv:
    """The named axes bound here (an AxisEnv)."""
    return AxisEnv(visible_axes(), axis_names())


def reduced_vary_cast(x, axis_name):
    """JAX's core.reduced_vary_cast: `x` (a pytree), reduced over the manual axes
    `axis_name`, typed as varying over them (the data unchanged); in a shard_map body with
    check_vma=False, over its own axes, `x` itself.

    >>> reduced_vary_cast(1.0, ())
    1.0
    """
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    if not _vma.checks(axes) and all(a in get_abstract_mesh().manual_axes for a in axes):
        return x
    return tree_map(lambda leaf: _vma.reduced_vary_cast(leaf, axes), x)


def modify_spec_for_auto_manual(spec, mesh):
    """JAX's core.modify_spec_for_auto_manual: `spec` (a PartitionSpec) less the axes of
    `mesh` that are not Explicit (in its dimensions and its unreduced and reduced sets),
    what a type over such a mesh keeps.

    >>> from jxkernel.core.mesh import AbstractMesh, AxisType, PartitionSpec as P
    >>> m = AbstractMesh((2, 2), ('a', 'b'), axis_types=(AxisType.Explicit, AxisType.Auto))
    >>> modify_spec_for_auto_manual(P(('a', 'b'), 'b'), m)
    P('a', None)
    >>> modify_spec_for_auto_manual(P(unreduced={'a', 'b'}), m)
    P(unreduced={'a'})
    """
    types = dict(zip(mesh.axis_names, mesh.axis_types))
    kept = lambda a: types[a] == AxisType.Explicit  # noqa: E731
    dims = [p if p is None else tuple(a for a in p if kept(a)) if isinstance(p, tuple)
            else (p if kept(p) else None) for p in spec.partitions]
    return PartitionSpec(*dims, unreduced={a for a in spec.unreduced if kept(a)},
                         reduced={a for a in spec.reduced if kept(a)})


class JaxprPpSettings(typing.NamedTuple):
    """JAX's settings of its jaxpr printer (pp_kv_pair's)."""
    print_shapes: bool = True
    source_info: bool = False
    name_stack: bool = False
    custom_pp_eqn_rules: bool = True
    print_effects: bool = False


class JaxprPpContext:
    """JAX's naming context of one printing: the variables' names so far (`var_names`) and
    the shared jaxprs' (jxkernel's printer's Names)."""

    def __init__(self, var_names: dict | None = None):
        self._names = _Names()
        self._names.names.update(var_names or {})
        self.var_names = self._names.names
        self.shared_jaxprs = self._names.shared


def pp_kv_pair(k: str, v, context: JaxprPpContext, settings: JaxprPpSettings) -> PrettyText:
    """A param as JAX's printer writes it in an equation, `key=value`: a jaxpr (or a tuple
    of them) printed with the context's names, a frozenset sorted, anything else its str
    with addresses masked (`at 0xXXXXXXXXXXXX`)."""
    if isinstance(v, (Jaxpr, ClosedJaxpr)) or (type(v) is tuple and all(
            isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v)):
        text = _pp_param(v, context._names, 0, 80, len(k) + 1, settings.source_info)
    elif isinstance(v, frozenset):
        text = f"frozenset({{{', '.join(repr(e) for e in sorted(v))}}})"
    else:
        text = _ADDRESS.sub(lambda m: " at 0x" + "X" * len(m.group(1)), str(v))
    return PrettyText(f"{k}={text}")
