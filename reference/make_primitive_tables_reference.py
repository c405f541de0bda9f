"""Record tests/data/primitive_tables_reference.json from real JAX 0.10.2 (run by hand, not by
the test suite; about 20 s):

    .venv-jax/bin/python reference/make_primitive_tables_reference.py

JAX's answers for the side tables jxkernel keys by primitive name, which
tests/core/test_primitive_tables.py compares with jxkernel's:
- "checkify_nan": the names of jax/_src/checkify.py's `nan_primitives` (the primitives
  checkify's nan check covers);
- "extend_primitives": jax.extend.core.primitives' public `*_p` names -> the primitive's name;
- "one_op": per elementwise primitive, the program of that one operation on 8 elements
  (tests/data/primitive_tables_cases.py), jitted, lowered and compiled (CPU): XLA's cost
  analysis ('flops', 'transcendentals') and the StableHLO/CHLO ops JAX's text prints, each
  with the form it prints in ("short": `stablehlo.op %a, %b : tensor<..>`, "generic":
  `"stablehlo.op"(...)`, "other": any other custom form), and the compiled HLO text's
  computations where short (under HLO_CHARS; None for the special functions' long ones);
- "stablehlo_forms": per StableHLO op jxkernel's source names, how MLIR prints it with one
  type throughout and no attributes ("short", "long", "none": no such op verifies).
"""
import json
import os
import re
import sys

import jax
import numpy as np
from jax import lax
from jax._src.interpreters import mlir
from jax._src.lib.mlir import ir
from jax._src import checkify
import jax.extend.core.primitives as extend_primitives

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "data"))
from primitive_tables_cases import ELEMENTS, one_op as one_op_cases  # noqa: E402
OUT = os.path.join(HERE, "..", "tests", "data", "primitive_tables_reference.json")

_OP = re.compile(r'^\s*(?:%[\w#:]+ = )?("?)((?:stablehlo|chlo)\.\w+)"?(.*)$')


def _ops(text):
    """(op, form) for each StableHLO/CHLO op in a lowered module's text (func bodies only)."""
    out = []
    for line in text.splitlines():
        m = _OP.match(line)
        if not m:
            continue
        quoted, op, rest = m.groups()
        if quoted:
            form = "generic"
        elif re.fullmatch(r" %[\w#]+(?:, %[\w#]+)* : tensor<[^>]*>(?: loc\(.*\))?", rest):
            form = "short"
        else:
            form = "other"
        out.append([op, form])
    return out


HLO_CHARS = 6000


def _computations(text):
    """A compiled module's text from its first computation on (no file and frame tables)."""
    m = re.search(r"^(?:%|ENTRY )", text, re.M)
    return text[m.start():] if m else text


def one_op(name, fn, args):
    eqns = jax.make_jaxpr(fn)(*args).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == [name], (name, eqns)
    lowered = jax.jit(fn).lower(*args)
    compiled = lowered.compile()
    cost = compiled.cost_analysis()
    hlo = _computations(compiled.as_text())
    if isinstance(cost, list):
        cost = cost[0]
    return {"flops": float(cost.get("flops", 0.0)),
            "transcendentals": float(cost.get("transcendentals", 0.0)),
            "elements": ELEMENTS, "ops": _ops(lowered.as_text()),
            "hlo": hlo if len(hlo) < HLO_CHARS else None}


def _emitted_ops():
    """The StableHLO op names jxkernel's source writes (quoted "stablehlo.NAME")."""
    ops = set()
    for top, _, files in os.walk(os.path.join(ROOT, "jxkernel")):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(top, name)) as fh:
                    ops |= set(re.findall(r'"(stablehlo\.[a-z_0-9]+)"', fh.read()))
    return sorted(ops)


def printed_form(op):
    """How MLIR (JAX's jaxlib) prints `op` when its operands and result all have one type and
    it has no attributes or regions: "short" (`stablehlo.op %a, %b : tensor<8xf32>`), "long"
    (any other form), or "none" (no such op verifies, at 0 to 3 operands of f32, i32 or i1)."""
    ctx = mlir.make_ir_context()
    for t in ("tensor<8xf32>", "tensor<8xi32>", "tensor<8xi1>"):
        for n in range(4):
            args = ", ".join(f"%a{k}: {t}" for k in range(n))
            names = ", ".join(f"%a{k}" for k in range(n))
            text = (f'func.func @f({args}) -> {t} {{\n'
                    f'  %0 = "{op}"({names}) : ({", ".join([t] * n)}) -> {t}\n'
                    f'  return %0 : {t}\n}}')
            with ctx, ir.Location.unknown():
                try:
                    module = ir.Module.parse(text)
                except Exception:
                    continue
                if not module.operation.verify():
                    continue
                line = str(module).splitlines()[2].strip()
            return "short" if re.fullmatch(rf"%0 = {op}( %\w+(, %\w+)*)? : {t}", line) \
                else "long"
    return "none"


def main():
    data = {
        "jax_version": jax.__version__,
        "checkify_nan": sorted(p.name for p in checkify.nan_primitives),
        "extend_primitives": {n: getattr(extend_primitives, n).name
                              for n in sorted(dir(extend_primitives)) if n.endswith("_p")},
        "one_op": {name: one_op(name, fn, args)
                   for name, (fn, args) in one_op_cases(lax, extend_primitives).items()},
        "stablehlo_forms": {op: printed_form(op) for op in _emitted_ops()},
    }
    with open(OUT, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
