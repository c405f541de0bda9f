"""Every primitive in every side table it belongs to: the tables keyed by primitive name outside
the primitive's own rules (test_registry.py checks those), each held against JAX 0.10.2's
answer recorded by reference/make_primitive_tables_reference.py
(tests/data/primitive_tables_reference.json; nothing is compiled here):

- core/jaxpr_cost.py TRANSCENDENTAL: the primitives whose one-op program XLA's cost analysis
  counts transcendentals for; where JAX's program is one StableHLO op, the jaxpr's flops and
  transcendentals are XLA's;
- views/hlo_text.py TRANSCENDENTAL and ELEMENTWISE (HLO opcodes): XLA's compiled HLO text of
  each one-op program, read by hlo_text, counts as XLA's cost analysis counts it;
- xla/stablehlo.py _PRETTY: the StableHLO ops MLIR prints in the short form;
- api/checkify.py _NAN_PRIMITIVES: JAX's checkify.nan_primitives;
- _jax/extend/core/primitives.py: jax.extend.core.primitives' names, each the same primitive;
- and every table of primitive names names real primitives (no stale or JAX-only names).

A new elementwise primitive (one with the broadcasting sharding rule, as unop/binop give) fails
here until it has a case in tests/data/primitive_tables_cases.py, recorded.
"""
import functools
import os
import re

import primitive_tables_cases as cases
import pytest

import jxkernel
import locations  # tests/support: the repository's folders
from jxkernel import lax
from jxkernel.api import checkify
from jxkernel.core import jaxpr_cost, sharding_types
from jxkernel.core.primitive import all_primitives, sharding_rules
from jxkernel.extend.core import primitives as extend_primitives
from jxkernel.stepper import load_every_primitive
from jxkernel.views import hlo_text, stepper
from jxkernel.xla import numpy_backend
from jxkernel.xla import stablehlo

load_every_primitive()      # the modules `import jxkernel` leaves to first use

# Elementwise primitives with no one-op case, and why.
NO_ONE_OP = {"random_fold_in": "its operand is a typed key: jax.random.fold_in, no array op"}
# TRANSCENDENTAL's names with no one-op case: an estimate, not XLA's count.
TRANSCENDENTAL_ESTIMATES = {"random_gamma": "jax.random.gamma's sampler loop, one per sample"}
# jax.extend.core.primitives' names with no jxkernel primitive behind them.
EXTEND_ABSENT = {"closed_call_p": "jxkernel binds no closed_call primitive (jit_p is its call)"}


@functools.cache
def _reference() -> dict:
    return locations.recorded("primitive_tables_reference.json")


ONE_OP = sorted(_reference()["one_op"])


def test_every_elementwise_primitive_has_a_recorded_case():
    elementwise = {name for name, prim in all_primitives.items()
                   if sharding_rules.get(prim) is sharding_types.broadcasting_rule}
    missing = elementwise - set(ONE_OP) - set(NO_ONE_OP)
    assert not missing, (f"{sorted(missing)}: add a case to tests/data/primitive_tables_cases.py"
                         " and rerun reference/make_primitive_tables_reference.py")
    assert set(cases.one_op(lax, extend_primitives)) == set(ONE_OP), "rerun the reference script"


@pytest.mark.parametrize("name", ONE_OP)
def test_transcendental_table_counts_as_xla(name):
    recorded = _reference()["one_op"][name]
    fn, args = cases.one_op(lax, extend_primitives)[name]
    jaxpr = jxkernel.make_jaxpr(fn)(*args).jaxpr
    assert [e.primitive.name for e in jaxpr.eqns] == [name]
    xla_says = recorded["transcendentals"] > 0
    assert (name in jaxpr_cost.TRANSCENDENTAL) == xla_says, (
        f"{name}: XLA counts {recorded['transcendentals']:g} transcendentals for it: "
        f"{'add it to' if xla_says else 'remove it from'} jaxpr_cost.TRANSCENDENTAL")
    cost = jaxpr_cost.jaxpr_cost(jaxpr)
    ops = [op for op, _ in recorded["ops"] if op != "stablehlo.constant"]
    if len(ops) == 1 and ops[0].startswith("stablehlo."):    # one HLO op: XLA's counts exactly
        assert (cost.flops, cost.transcendentals) == (recorded["flops"],
                                                      recorded["transcendentals"])
    else:       # JAX's lowering expands it (chlo, a formula): one per element, an estimate
        assert cost.transcendentals == (recorded["elements"] if xla_says else 0)


@pytest.mark.parametrize("name", [n for n in ONE_OP if _reference()["one_op"][n]["hlo"]])
def test_hlo_text_counts_as_xla(name):
    recorded = _reference()["one_op"][name]
    instructions = hlo_text.parse_hlo(recorded["hlo"])
    counted = (sum(i.flops for i in instructions), sum(i.transcendentals for i in instructions))
    assert counted == (recorded["flops"], recorded["transcendentals"]), \
        f"{sorted({i.opcode for i in instructions})}: hlo_text's opcode tables"


def test_transcendental_table_names_only_recorded_primitives():
    assert set(TRANSCENDENTAL_ESTIMATES) <= set(all_primitives)
    assert jaxpr_cost.TRANSCENDENTAL <= set(ONE_OP) | set(TRANSCENDENTAL_ESTIMATES)


def test_pretty_printed_ops_are_mlirs_short_forms():
    forms = _reference()["stablehlo_forms"]
    short = {op for op, form in forms.items() if form == "short"}
    assert set(stablehlo._PRETTY) == short


def test_every_stablehlo_op_jxkernel_writes_is_recorded():
    # a new op in jxkernel's source joins the recording (its printed form above)
    written = set()
    for top, _, files in os.walk(os.path.dirname(jxkernel.__file__)):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(top, name), encoding="utf-8") as f:
                    written |= set(re.findall(r'"(stablehlo\.[a-z_0-9]+)"', f.read()))
    missing = written - set(_reference()["stablehlo_forms"])
    assert not missing, f"{sorted(missing)}: rerun reference/make_primitive_tables_reference.py"


def test_checkify_nan_primitives_are_jaxs():
    assert sorted(checkify._NAN_PRIMITIVES) == _reference()["checkify_nan"]
    assert set(checkify._NAN_PRIMITIVES) <= set(all_primitives)


def test_extend_core_primitives_are_jaxs():
    jaxs = _reference()["extend_primitives"]
    ours = {n: getattr(extend_primitives, n) for n in dir(extend_primitives) if n.endswith("_p")}
    assert {n: p.name for n, p in ours.items()} == \
        {n: name for n, name in jaxs.items() if n not in EXTEND_ABSENT}
    assert all(all_primitives[p.name] is p for p in ours.values())
    assert not {jaxs[n] for n in EXTEND_ABSENT} & set(all_primitives), \
        "jxkernel has the primitive now: export it"


NAME_TABLES = {
    "jaxpr_cost.TRANSCENDENTAL": jaxpr_cost.TRANSCENDENTAL, "jaxpr_cost.MOVES": jaxpr_cost.MOVES,
    "jaxpr_cost.REDUCTIONS": jaxpr_cost.REDUCTIONS, "jaxpr_cost.WINDOWED": jaxpr_cost.WINDOWED,
    "jaxpr_cost.SCATTERS": jaxpr_cost.SCATTERS, "jaxpr_cost.FLOPS": set(jaxpr_cost.FLOPS),
    "jaxpr_cost.NOT_ESTIMATED": jaxpr_cost.NOT_ESTIMATED,
    "checkify._NAN_PRIMITIVES": set(checkify._NAN_PRIMITIVES),
    "numpy_backend._PASSES_SUBNORMALS": numpy_backend._PASSES_SUBNORMALS,
    "numpy_backend._MAKES_SUBNORMALS": numpy_backend._MAKES_SUBNORMALS,
    "stepper._CALLS": stepper._CALLS}


@pytest.mark.parametrize("table", sorted(NAME_TABLES))
def test_name_tables_name_real_primitives(table):
    assert not set(NAME_TABLES[table]) - set(all_primitives)
