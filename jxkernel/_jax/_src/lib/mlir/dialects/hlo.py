"""jxkernel._src.lib.mlir.dialects.hlo, as jax._src.lib.mlir.dialects.hlo for lowering rules
that build StableHLO operations, as JAX's primitives guide writes one:

    >>> from jxkernel.extend.core import Primitive
    >>> from jxkernel.interpreters import mlir
    >>> fma_p = Primitive("fma_hlo_doc")
    >>> _ = fma_p.def_abstract_eval(lambda x, y, z: x)
    >>> mlir.register_lowering(fma_p, lambda ctx, x, y, z: [AddOp(MulOp(x, y), z).result])
    >>> jax.jit(fma_p.bind)(2.0, 3.0, 1.0)
    Array(7., dtype=float32, weak_type=True)

jxkernel writes StableHLO as text (jxkernel/xla/stablehlo.py), not through MLIR's Python
bindings: an operation built here is appended to the block the lowering rule is filling
(the rule must be registered with `jax.interpreters.mlir.register_lowering`). Elementwise
operations only: operands of one type, the result of that type (comparison and conversion
need attributes and types these builders do not take). An operand may be a value or a
one-result operation, as in MLIR's bindings.
"""
from ......core.lazy_names import lazy_names
from ......xla import stablehlo as _hlo
from .....interpreters.mlir import current_rule_context


def _value(x):
    return x.result if isinstance(x, _Op) else x


class _Op:
    """One StableHLO operation appended to the current lowering block."""
    name = ""

    def __init__(self, *operands):
        ctx = current_rule_context()
        if ctx is None:
            raise RuntimeError(f"hlo.{type(self).__name__} builds an operation inside a "
                               f"lowering rule registered with "
                               f"jax.interpreters.mlir.register_lowering; none is running")
        values = [_value(x) for x in operands]
        types = {v.type for v in values}
        if len(types) != 1:
            raise TypeError(f"hlo.{type(self).__name__} takes operands of one type (StableHLO "
                            f"does not broadcast); got {[v.type for v in values]}: broadcast "
                            f"them first, or lower with mlir.lower_fun")
        self.result = ctx.block.op1(self.name, values, values[0].type, loc=ctx.loc)

    @property
    def results(self):
        return [self.result]


def _op(class_name, hlo_name):
    return type(class_name, (_Op,), {"name": "stablehlo." + hlo_name,
                                      "__doc__": f"stablehlo.{hlo_name} of its operands."})


# class per operation (MLIR's OpView names) and the lower-case builder returning the value
_OPS = {"AddOp": "add", "SubtractOp": "subtract", "MulOp": "multiply", "DivOp": "divide",
        "RemOp": "remainder", "MaxOp": "maximum", "MinOp": "minimum", "PowOp": "power",
        "Atan2Op": "atan2", "AndOp": "and", "OrOp": "or", "XorOp": "xor", "NegOp": "negate",
        "AbsOp": "abs", "ExpOp": "exponential", "Expm1Op": "exponential_minus_one",
        "LogOp": "log", "Log1pOp": "log_plus_one", "LogisticOp": "logistic", "SineOp": "sine",
        "CosineOp": "cosine", "TanOp": "tan", "TanhOp": "tanh", "SqrtOp": "sqrt",
        "RsqrtOp": "rsqrt", "CbrtOp": "cbrt", "FloorOp": "floor", "CeilOp": "ceil",
        "SignOp": "sign", "NotOp": "not"}
for _class_name, _hlo_name in _OPS.items():
    globals()[_class_name] = _op(_class_name, _hlo_name)
    globals()[_hlo_name if _hlo_name not in ("and", "or", "not") else _hlo_name + "_"] = (
        lambda *xs, _cls=globals()[_class_name]: _cls(*xs).result)
del _class_name, _hlo_name


class CustomCallOp:
    """`stablehlo.custom_call` of `inputs` to the target `call_target_name`, with results of
    the types `result` (MLIR's builder's arguments; `has_side_effect`, `backend_config` and
    `api_version` as its keywords), appended to the current lowering block: a rule's call of
    a kernel the runtime registers (jax.export refuses a target it does not know to be
    stable, as JAX's)."""

    def __init__(self, result, inputs, call_target_name, has_side_effect=None,
                 backend_config=None, api_version=None, **unsupported):
        ctx = current_rule_context()
        if ctx is None:
            raise RuntimeError("hlo.CustomCallOp builds an operation inside a lowering rule "
                               "registered with jax.interpreters.mlir.register_lowering; none "
                               "is running")
        given = sorted(k for k, v in unsupported.items() if v is not None)
        if given:
            raise NotImplementedError(f"hlo.CustomCallOp: jxkernel's builder does not take "
                                      f"{', '.join(given)}")
        attrs = {"call_target_name": _hlo.string_attr(_text(call_target_name))}
        if has_side_effect:
            attrs["has_side_effect"] = "true"
        if backend_config is not None:
            attrs["backend_config"] = _hlo.string_attr(_text(backend_config))
        if api_version is not None:
            attrs["api_version"] = _hlo.i32_attr(int(str(api_version).split(":")[0]))
        self.results = ctx.block.op("stablehlo.custom_call", [_value(x) for x in inputs],
                                    [str(t) for t in result], attrs, loc=ctx.loc)
        if len(self.results) == 1:
            self.result = self.results[0]


def _text(attr) -> str:
    """A Python string, or an MLIR StringAttr's value."""
    return attr if isinstance(attr, str) else getattr(attr, "value", str(attr))


# JAX's hlo module is jaxlib's StableHLO dialect: its `register_dialect` (for contexts of
# jaxlib's MLIR bindings, jax.extend.mlir.ir) and its `TokenType` (what a test asks of a
# compiler_ir() operand's type: `hlo.TokenType.isinstance(op.operands[0].type)`) are that
# one's, loaded on first access
__getattr__, __dir__ = lazy_names(__name__, globals(), {
    name: ("jxkernel._jax.extend.mlir.dialects.stablehlo", name)
    for name in ("register_dialect", "TokenType")})
