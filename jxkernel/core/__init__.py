"""The IR, avals, dtypes, primitives and the trace machinery. Knows nothing of XLA."""
from typing import Any

from . import dtypes
from .avals import AbstractValue, ShapedArray, ShapeDtypeStruct, get_aval
from .errors import (ConcretizationTypeError, NonConcreteBooleanIndexError,
                     TracerArrayConversionError, TracerBoolConversionError,
                     TracerIntegerConversionError, UnexpectedTracerError)
from .ir import ClosedJaxpr, DropVar, Eqn, Jaxpr, Literal, Var
from .source_info import SourceInfo
from .primitive import (Primitive, abstract_eval_rules, all_primitives,
                        batching_rules, impl_rules, jvp_rules, lowering_rules, numpy_rules,
                        rule, transpose_rules)
from .trace import (EvalTrace, Trace, Tracer, current_trace, eval_trace, new_trace,
                    set_current_trace)
from .sharding_types import abstract_eval
from .check import check_jaxpr, JaxprTypeError
from .interpret import public_eval_jaxpr as eval_jaxpr   # a literal output as its value, as JAX
from .numpy_eval import eval_closed_jaxpr_numpy, eval_jaxpr_numpy

from .compile_time_eval import ensure_compile_time_eval, eval_context
from .symbolic import max_dim, min_dim

# what a jaxpr equation reads: a variable or a literal (JAX's jax.core.Atom)
Atom = Var | Literal
# JAX's jax.core type names for a primitive's parameters and any value
ParamDict = dict[str, Any]
Value = Any
