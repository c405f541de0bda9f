"""Shardy sharding rules of custom_partitioning (JAX's file of the same name):
which dimensions of the operands and results share a factor, written Einsum-like
("i j, j k -> i k") or as an `SdyShardingRule` of `ArrayMapping`s, and the
`#sdy.op_sharding_rule` attribute XLA's Shardy propagation reads.

    >>> rule = str_to_sdy_sharding_rule("i j, j k -> i k", reduction_factors=("j",))
    >>> rule_attribute(rule, [(2, 4), (4, 8)], [(2, 8)])
    '#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=2, j=4, k=8} reduction={j}, custom>'
"""
from __future__ import annotations

# One character for "...", the leading batching dimensions (JAX's BATCHING)
BATCHING: str = "…"
# the prefix of the factors the leading batching dimensions expand into (no user's name)
_BATCHING_DIM_FACTOR_PREFIX = "?"


def _check_factor(factor: str) -> None:
    """A factor starts with a letter and holds letters, digits and underscores."""
    if not factor[0].isalpha():
        raise ValueError(f"Factor names have to start with a letter, but got '{factor[0]}'")
    for char in factor[1:]:
        if char != "_" and not char.isdigit() and not char.isalpha():
            raise ValueError(f"Unknown character '{char}'")


def _is_batching(factor: str) -> bool:
    """Whether `factor` is "…" or "…N" (batching group N; "…" is group 0)."""
    return bool(factor) and factor[0] == BATCHING and (len(factor) == 1 or factor[1:].isdigit())


def _batching_group(factor: str) -> str:
    return factor[1:] if len(factor) > 1 else "0"


class CompoundFactor(tuple):
    """Two or more factors sharing one dimension: CompoundFactor('b', 'c')."""

    def __new__(cls, *factors):
        return tuple.__new__(CompoundFactor, factors)

    def __init__(self, *factors):
        if len(factors) < 2:
            raise ValueError("A compound factor should contain at least two factors")
        for factor in factors:
            if not isinstance(factor, str):
                raise ValueError(f"Each element of CompoundFactor must be a str, but got "
                                 f"{type(factor)}")
            if _is_batching(factor):
                raise ValueError("Ellipsis can't be used in a compound factor")
            _check_factor(factor)


class ArrayMapping(tuple):
    """The factors of one operand or result, a dimension each (a factor or a CompoundFactor);
    BATCHING first stands for its leading batching dimensions."""

    def __new__(cls, *dim_mappings):
        return tuple.__new__(ArrayMapping, dim_mappings)

    def __init__(self, *dim_mappings):
        for i, d in enumerate(dim_mappings):
            if not isinstance(d, (str, CompoundFactor)):
                raise ValueError(f"Each element of ArrayMapping must be a str or "
                                 f"CompoundFactor, but got {type(d)}")
            if isinstance(d, str):
                if not _is_batching(d):
                    _check_factor(d)
                elif i != 0:
                    raise ValueError("Ellipsis can only be used at the beginning of a dimension")


class SdyShardingRule:
    """The ArrayMappings of the operands and results, the special factors (reduction,
    need_replication, permutation; the others pass through), and the sizes of the factors
    used only inside CompoundFactors."""

    def __init__(self, operand_mappings: tuple, result_mappings: tuple, *,
                 reduction_factors: tuple = (), need_replication_factors: tuple = (),
                 permutation_factors: tuple = (), **factor_sizes: int):
        whole = _factors_and_wholeness(operand_mappings + result_mappings)
        for factor in factor_sizes:
            if factor not in whole:
                raise ValueError(f"Factor {factor} is not used in the rule, but size is provided")
        for factor, is_whole in whole.items():
            if factor not in factor_sizes and not is_whole:
                raise ValueError(f"Factor {factor} is only used in compound factors; must "
                                 f"specify its size")
            if factor in factor_sizes and is_whole:
                raise ValueError(f"Factor {factor} represents a whole dimension; do not specify "
                                 f"its size")
        special: set = set()
        for kind, factors in (("reduction_factors", reduction_factors),
                              ("need_replication_factors", need_replication_factors),
                              ("permutation_factors", permutation_factors)):
            _check_special(kind, factors, whole, special)
        self.operand_mappings, self.result_mappings = operand_mappings, result_mappings
        self.factor_sizes = factor_sizes
        self.reduction_factors = reduction_factors
        self.need_replication_factors = need_replication_factors
        self.permutation_factors = permutation_factors

    def __str__(self):
        special = "".join(f" {kind}={factors}" for kind, factors in (
            ("reduction_factors", self.reduction_factors),
            ("need_replication_factors", self.need_replication_factors),
            ("permutation_factors", self.permutation_factors)) if factors)
        return (f"SdyShardingRule({self.operand_mappings}, {self.result_mappings}, "
                f"{self.factor_sizes}{special})")

    __repr__ = __str__


def _factors_and_wholeness(mappings) -> dict:
    """{factor: whether some dimension is that factor alone}, in order of appearance."""
    whole: dict = {}
    for mapping in mappings:
        for dim in mapping:
            if isinstance(dim, str):
                whole[dim] = True
            else:
                for factor in dim:
                    whole.setdefault(factor, False)
    return whole


def _check_special(kind, factors, used, special) -> None:
    if not isinstance(factors, tuple):
        raise ValueError(f"{kind} must be a tuple of factors")
    if len(factors) != len(set(factors)):
        raise ValueError(f"{kind} contains duplicated factors")
    for factor in factors:
        if factor not in used:
            raise ValueError(f"Factor {factor} in {kind} is not used in the rule")
        if factor in special:
            raise ValueError(f"Factor {factor} can only be in one of the reduction, need "
                             f"replication, or permutation factor sets.")
        special.add(factor)


# ------------------------------------------------------------------ the Einsum-like text
def str_to_sdy_sharding_rule(rule: str, *, reduction_factors: tuple = (),
                             need_replication_factors: tuple = (),
                             permutation_factors: tuple = (),
                             **factor_sizes: int) -> SdyShardingRule:
    """The SdyShardingRule of an Einsum-like `rule` ("... i, (a b) -> ... a b", sizes of
    factors only in compound ones as keywords)."""
    if not isinstance(rule, str):
        raise TypeError(f"rule must be a str, but got {type(rule)}")
    if not all(isinstance(size, int) for size in factor_sizes.values()):
        raise TypeError(f"factor_sizes must be a dict of str to int, but got {factor_sizes}")
    if BATCHING in rule:
        raise ValueError(f"Unknown character '{BATCHING}'")
    rule = rule.replace("...", BATCHING)
    if "." in rule:
        raise ValueError("Character '.' must be used inside ellipsis '...'")
    try:
        operands, results = rule.split("->")
    except ValueError as e:
        raise ValueError(f"There is no -> in rule: '{rule}'") from e
    return SdyShardingRule(_parse_values(operands), _parse_values(results),
                           reduction_factors=reduction_factors,
                           need_replication_factors=need_replication_factors,
                           permutation_factors=permutation_factors, **factor_sizes)


def _parse_values(text: str) -> tuple:
    """One side of the rule: an ArrayMapping per comma-separated value (none: a scalar)."""
    text = " ".join(text.split())
    if not text:
        return (ArrayMapping(),)
    values, value, factor, compound = [], [], None, None

    def add(x):
        (value if compound is None else compound).append(x)
    i = 0
    while i < len(text):
        char = text[i]
        i += 1
        if char == BATCHING:
            if factor is not None or compound is not None or value:
                raise ValueError("Ellipsis can only be used at the beginning of a dimension")
            digits = ""
            while i < len(text) and text[i].isdigit():
                digits, i = digits + text[i], i + 1
            add(f"{BATCHING}{int(digits) if digits else 0}")
        elif char in "(), ":
            if factor is not None:
                add(factor)
                factor = None
            if char == "(":
                if compound is not None:
                    raise ValueError("Compound factors should be one level, nested brackets "
                                     "are not allowed")
                compound = []
            elif char == ")":
                if compound is None:
                    raise ValueError("Brackets are not balanced")
                if len(compound) <= 1:
                    raise ValueError("Brackets should contain at least two factors")
                value.append(CompoundFactor(*compound))
                compound = None
            elif char == ",":
                values.append(ArrayMapping(*value))
                value = []
        elif char == "_" or char.isdigit() or char.isalpha():
            if factor is None and char.isdigit():
                raise ValueError(f"Factor names have to start with a letter, but got '{char}'")
            factor = char if factor is None else factor + char
        else:
            raise ValueError(f"Unknown character '{char}'")
    if compound is not None:
        raise ValueError(f"Brackets are not balanced in rule: '{text}'")
    if factor is not None:
        add(factor)
    values.append(ArrayMapping(*value))
    return tuple(values)


# ------------------------------------------------------------------ the MLIR attribute
_UNKNOWN = -1


def rule_attribute(rule: SdyShardingRule, operand_shapes, result_shapes) -> str:
    """`rule` for an op of these operand and result shapes, as Shardy's attribute text
    (its factors named i, j, ..., z, z_1, ... by first appearance, as Shardy prints them)."""
    for what, mappings, shapes in (("operands", rule.operand_mappings, operand_shapes),
                                   ("results", rule.result_mappings, result_shapes)):
        if len(mappings) != len(shapes):
            raise ValueError(f"Sharding rule has {len(mappings)} {what}, but the operation "
                             f"has {len(shapes)} {what}")
    shapes = [tuple(s) for s in (*operand_shapes, *result_shapes)]
    mappings = rule.operand_mappings + rule.result_mappings
    n_operands = len(operand_shapes)
    sizes: dict = {}                  # factor -> [index, size], in order of appearance
    ranks = _batching_ranks(mappings, shapes, n_operands)
    for i, mapping in enumerate(mappings):
        group, dims = _split_batching(mapping)
        lead = ranks[group] if group is not None else 0
        for j in range(lead):
            _add_factor(sizes, f"{_BATCHING_DIM_FACTOR_PREFIX}{group}_{j}", shapes[i][j])
        for j, dim in enumerate(dims):
            if isinstance(dim, str):
                _add_factor(sizes, dim, shapes[i][lead + j])
            else:
                for factor in dim:
                    _add_factor(sizes, factor, rule.factor_sizes.get(factor, _UNKNOWN))
    tensors = [_tensor_text(i, mapping, shapes, sizes, ranks, n_operands)
               for i, mapping in enumerate(mappings)]
    text = f"([{'], ['.join(tensors[:n_operands])}])->([{'], ['.join(tensors[n_operands:])}])"
    if sizes:
        text += " {" + ", ".join(f"{_symbol(k)}={size}" for k, (_, size) in
                                 enumerate(sizes.values())) + "}"
    for kind, factors in (("reduction", rule.reduction_factors),
                          ("need_replication", rule.need_replication_factors),
                          ("permutation", rule.permutation_factors)):
        if factors:
            text += f" {kind}={{{', '.join(_symbol(sizes[f][0]) for f in factors)}}}"
    return f"#sdy.op_sharding_rule<{text}, custom>"


def _split_batching(mapping) -> tuple:
    """(the batching group of a leading "…N", or None; the other dimensions)."""
    if mapping and isinstance(mapping[0], str) and _is_batching(mapping[0]):
        return _batching_group(mapping[0]), tuple(mapping[1:])
    return None, tuple(mapping)


def _value_name(i: int, n_operands: int) -> str:
    return f"{i - n_operands}th result" if i >= n_operands else f"{i}th operand"


def _batching_ranks(mappings, shapes, n_operands) -> dict:
    """How many leading dimensions each batching group stands for (one number per group)."""
    ranks: dict = {}
    for i, mapping in enumerate(mappings):
        group, dims = _split_batching(mapping)
        rank = len(shapes[i])
        lead = rank - len(dims) if group is not None and rank >= len(dims) else 0
        if group is not None:
            if ranks.setdefault(group, lead) != lead:
                raise ValueError(f"Ellipsis represents different number of leading dimensions "
                                 f"{ranks[group]} and {lead}")
        if len(dims) + lead != rank:
            name = _value_name(i, n_operands)
            raise ValueError(f"Sharding rule {name} has rank {len(dims) + lead}, but the "
                             f"operation {name} has rank {rank}")
    return ranks


def _add_factor(sizes: dict, factor: str, size: int) -> None:
    """Record `factor` (its index: first appearance) and its size; a factor of two sizes
    keeps the smaller, except a batching dimension, which must have one."""
    if factor not in sizes:
        sizes[factor] = [len(sizes), size]
        return
    index, known = sizes[factor]
    if size != _UNKNOWN and known != _UNKNOWN and known != size:
        if _BATCHING_DIM_FACTOR_PREFIX in factor:
            raise ValueError(f"Batching dimension {factor[1:]} corresponds to two sizes: "
                             f"{known} and {size}")
        if size < known:
            known = _UNKNOWN
    if size != _UNKNOWN and known == _UNKNOWN:
        sizes[factor] = [index, size]


def _tensor_text(i, mapping, shapes, sizes, ranks, n_operands) -> str:
    group, dims = _split_batching(mapping)
    lead = ranks[group] if group is not None else 0
    out = [_symbol(sizes[f"{_BATCHING_DIM_FACTOR_PREFIX}{group}_{j}"][0]) for j in range(lead)]
    for j, dim in enumerate(dims):
        if isinstance(dim, str):
            out.append(_symbol(sizes[dim][0]))
            continue
        product = 1
        for factor in dim:
            product *= sizes[factor][1]
        if product != shapes[i][lead + j]:
            raise ValueError(f"{_value_name(i, n_operands)} actual size {shapes[i][lead + j]} "
                             f"doesn't match the size {product} derived from the compound "
                             f"factors {dim}")
        out.append("".join(_symbol(sizes[factor][0]) for factor in dim))
    return ", ".join(out)


def _symbol(index: int) -> str:
    """Shardy's name of factor `index`: i..z, then z_1, z_2, ..."""
    return chr(ord("i") + index) if index < 18 else f"z_{index - 17}"
