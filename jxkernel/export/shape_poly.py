"""Symbolic dimensions for shape-polymorphic export: integer polynomials over dimension
variables (and `floordiv`, `mod`, `max`, `min` of them), compared where decidable.

    >>> a, b = symbolic_shape("a, b")
    >>> 2 * b + a - 3, (a * 4) // 4, a >= 1
    (2*b + a - 3, a, True)

An expression that reduces to a constant is a plain Python int. Each variable is >= 1;
`constraints` ("a >= b") add facts used by comparisons and checked at call time.
"""
from __future__ import annotations

import io
import itertools
import math
import operator
import re
import sys
import threading
import tokenize

import numpy as np

from ..core import dtypes
from ..core import errors as _errors
from ..core.avals import ShapeDtypeStruct, ShapedArray
from ..core.primitive import Primitive, abstract_eval_rules, lowering_rules
from ..core.source_info import SourceInfo
from ..core.symbolic import is_symbolic
from ..transforms import ad_util as ad
from ..tree_util import broadcast_prefix, prefix_errors, tree_flatten, tree_unflatten
from ..xla import stablehlo as hlo


InconclusiveDimensionOperation = _errors.InconclusiveDimensionOperation


class UnexpectedDimVar(Exception):
    """A dimension variable that no argument's shape gives a value to."""


def _inconclusive(what: str, scope=None) -> InconclusiveDimensionOperation:
    """JAX 0.10.2's error, in its words and lines: a comparison under explicit constraints
    names the scope, which lists them."""
    if scope is not None and scope._explicit_constraints:
        what = f"{what}\nUsing symbolic scope {scope}"
    return InconclusiveDimensionOperation(
        f"{what}\nThis error arises for comparison operations with shapes that\n"
        f"are non-constant, and the result of the operation cannot be represented as\n"
        f"a boolean value for all values of the symbolic dimensions involved.\n\n"
        f"Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
        f"#comparison-of-symbolic-dimensions-is-partially-supported\nfor more details.\n")


class SymbolicScope:
    """Where dimension variables live, with their constraints; expressions of different scopes
    do not mix.

    >>> scope = SymbolicScope(("a >= b",)); a, b = symbolic_shape("a, b", scope=scope)
    >>> a >= b
    True
    """

    def __init__(self, constraints_str=()):
        if isinstance(constraints_str, str):
            raise ValueError(f"The symbolic constraints should be a sequence of strings. "
                             f"Got {constraints_str!r}")
        frame = sys._getframe(1)                # the caller's line, outside jxkernel
        while frame is not None and "jxkernel" in frame.f_code.co_filename:
            frame = frame.f_back
        # (JAX's _summarize_frame: file:line:column (function))
        self._where = str(SourceInfo(frame.f_code.co_filename, frame.f_lineno,
                                     frame.f_code.co_name, frame.f_code, frame.f_lasti)) \
            if frame else "unknown"
        self.constraints_str = tuple(constraints_str)
        self._constraints: list = []          # (text, expression known to be >= 0)
        self._equal: dict = {}                # "a == 2*b": a variable stands for an expression
        self._equal_atoms: dict = {}          # "max(a, b) == c": an atom, for an expression
        self._term_rules: dict = {}           # "4*floordiv(b, 4) == b": {(atom,): (b, 4)}
        self._equalities: list = []           # (text, lhs - rhs), checked at call time
        # (cmp, expression, text) of each constraint but the trivial ones, in the user's
        # order (JAX's _explicit_constraints: its decision procedure reads them in order)
        self._explicit_constraints: list = []
        self._bounds_cache: dict = {}         # JAX's: expression -> (lo, hi, precision)
        self._decision = None                 # the decision procedure's state, once built
        self._initialized = False
        for text in self.constraints_str:
            _parse_constraint(text, self)
        self._bounds_cache.clear()
        self._initialized = True

    def __str__(self):
        # (JAX's: the constraints as the user wrote them, one a line, but the trivial ones,
        # and the one "mod(e, k) == 0" implies before it)
        return f"{id(self)} created at {self._where}" + "".join(
            f"\n  {text}" if i else f" with constraints:\n  {text}"
            for i, (_, _, text) in enumerate(self._explicit_constraints))

    __repr__ = __str__

    def check_same(self, other, when: str) -> None:
        """JAX's ValueError when the expression `other` is of another scope, in its words."""
        if other.scope is not self:
            raise ValueError(f"Invalid mixing of symbolic scopes {when}.\nExpected  scope "
                             f"{self}\nand found for '{other}' (unknown) scope {other.scope}\n"
                             f"See https://docs.jax.dev/en/latest/export/shape_poly.html"
                             f"#user-specified-symbolic-constraints.")


# ------------------------------------------------------------------ atoms
class _Atom:
    """A factor of a monomial: a variable, or an operation (floordiv, mod, max, min) applied
    to expressions."""
    __slots__ = ("op", "args", "_key", "_order")

    def __init__(self, op: str, args: tuple):
        self.op, self.args = op, args
        self._key = (0, args[0]) if op == "var" else (1, op, tuple(map(str, args)))
        self._order = None                   # JAX's sort key, made when first printed

    def order(self) -> tuple:
        """JAX 0.10.2's syntactic order of factors (_DimFactor._syntactic_cmp) as a key:
        (size, name) for a variable, (size, operation, operands' keys) for an operation, its
        size 1 + its operands' sizes (a constant operand's is 1)."""
        if self._order is None:
            if self.op == "var":
                self._order = (1, self.args[0])
            else:
                keys = tuple(map(_expr_order, self.args))
                self._order = (1 + sum(k[0] for k in keys), self.op) + keys
        return self._order

    def __eq__(self, other):
        return isinstance(other, _Atom) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __lt__(self, other):
        return self._key < other._key

    def __str__(self):
        if self.op == "var":
            return self.args[0]
        return f"{self.op}({', '.join(map(_arg_text, self.args))})"

    def bounds(self) -> tuple:
        """(lowest, highest) value, as far as known without the values of variables."""
        if self.op == "var":
            return 1, _INF
        x, y = self.args
        # (an argument's bounds through its min and max terms: floordiv(c + 1 - min(c, b), 2)
        # >= 0, as JAX decides)
        lo_x, hi_x = _bounds_through_minmax(x, 2)
        lo_y, hi_y = _bounds_through_minmax(y, 2)
        if self.op == "max":
            return max(lo_x, lo_y), max(hi_x, hi_y)
        if self.op == "min":
            return min(lo_x, lo_y), min(hi_x, hi_y)
        if lo_y <= 0 <= hi_y:                    # the divisor may be 0: nothing known,
            if self.op == "floordiv":            # and a floordiv's bounds are JAX's error
                raise _inconclusive(f"Possible division by 0 in division by {y}")
            return -_INF, _INF
        if self.op == "mod":                     # takes the divisor's sign, below its size
            return (0, hi_y - 1) if lo_y > 0 else (lo_y + 1, 0)
        # floordiv is monotone in each argument on a divisor of one sign: the corners bound it
        corners = [q for p in (lo_x, hi_x) for d in (lo_y, hi_y)
                   if (q := _floordiv_limit(p, d)) is not None]
        return min(corners), max(corners)

    def evaluate(self, env: dict) -> int:
        if self.op == "var":
            return env[self.args[0]]
        x, y = (_evaluate(v, env) for v in self.args)
        if self.op in ("max", "min") and (is_symbolic(x) or is_symbolic(y)):
            # symbolic values (an export called over the caller's symbolic shapes): JAX's
            # core.max_dim/min_dim, the atom `max(b - 5, 0)` where undecidable
            return _dim_extremum(self.op, x, y, (x if is_symbolic(x) else y).scope)
        return {"floordiv": lambda: x // y, "mod": lambda: x % y,
                "max": lambda: max(x, y), "min": lambda: min(x, y)}[self.op]()


_INF = float("inf")


def _arg_text(v) -> str:
    """An operation's argument as JAX prints it: a negative constant as "- 2", as a
    negative expression prints."""
    return f"- {-v}" if isinstance(v, int) and v < 0 else str(v)


def _floordiv_limit(p, d):
    """p // d for p, d ints or infinities (d never 0): the limit as the infinite ones grow;
    None for inf // inf, which any value may be."""
    if abs(d) == _INF:
        if abs(p) == _INF:
            return None
        return 0 if p == 0 or (p > 0) == (d > 0) else -1    # p/d tends to 0, from above or below
    if abs(p) == _INF:
        return p if d > 0 else -p
    return p // d


def _bounds(d) -> tuple:
    return (d, d) if isinstance(d, int) else d.bounds()


def _evaluate(d, env: dict) -> int:
    return d if isinstance(d, int) else d.evaluate(env)


# ------------------------------------------------------------------ expressions
class _DimExpr:
    """A symbolic dimension: sum of coefficient * monomial (a sorted tuple of atoms)."""
    __slots__ = ("_terms", "scope", "_hash", "_printed")
    _symbolic_dimension = True               # what core.symbolic.is_symbolic looks for
    weak_type = True                         # as a value, weakly typed like a Python int
    __array_priority__ = 1000                # `ndarray + dim` is the dim's __radd__, a tracer's

    def __init__(self, terms: dict, scope: SymbolicScope):
        # decreasing degree, then decreasing atoms, as JAX prints them; the constant last
        self._terms = tuple(sorted(((m, c) for m, c in terms.items() if c),
                                   key=lambda t: (len(t[0]), t[0]), reverse=True))
        self.scope = scope
        self._hash = hash((self._terms, scope))     # (JAX's: another scope, another hash)
        self._printed = None         # (JAX's order key, text, terms), made when first printed

    @staticmethod
    def _make(terms: dict, scope):
        """The expression, or its int value when it is a constant."""
        if scope._term_rules:
            terms = _apply_term_rules(terms, scope._term_rules)
        terms = {m: c for m, c in terms.items() if c}
        if not terms or list(terms) == [()]:
            return terms.get((), 0)
        return _DimExpr(terms, scope)

    @staticmethod
    def var(name: str, scope: SymbolicScope) -> _DimExpr:
        equal = scope._equal.get(name)
        return equal if equal is not None else _DimExpr({(_Atom("var", (name,)),): 1}, scope)

    @staticmethod
    def atom(op: str, x, y, scope) -> _DimExpr:
        x, y = (int(v) if isinstance(v, np.integer) else v for v in (x, y))
        atom = _Atom(op, (x, y))
        equal = scope._equal_atoms.get(atom)     # (an equality constraint's, as JAX's)
        return equal if equal is not None else _DimExpr({(atom,): 1}, scope)

    # ---- arithmetic: with another dimension (an int, or anything operator.index takes) the
    # result is a dimension; with anything else (a float, an array, a tracer) it is the
    # operation on the dimension's value as an array, as JAX's (`x.shape[0] / 2` is a float)
    def _terms_of(self, other) -> dict:
        if isinstance(other, _DimExpr):
            self.scope.check_same(other, "for linear combination")
            return dict(other._terms)
        other = operator.index(other)
        return {(): other} if other else {}

    def _on_value(self, method: str, other):
        return getattr(self.__jax_array__(), method)(other)

    def __add__(self, other):
        if not _is_dim(other):
            return self._on_value("__add__", other)
        terms = dict(self._terms)
        for m, c in self._terms_of(other).items():
            terms[m] = terms.get(m, 0) + c
        return _DimExpr._make(terms, self.scope)

    def __radd__(self, other):
        return self + other if _is_dim(other) else self._on_value("__radd__", other)

    def __neg__(self):
        return _DimExpr._make({m: -c for m, c in self._terms}, self.scope)

    def __sub__(self, other):
        if not _is_dim(other):
            return self._on_value("__sub__", other)
        if isinstance(other, _DimExpr):      # (the error names `other`, as JAX's)
            self.scope.check_same(other, "for linear combination")
        return self + (-other if isinstance(other, _DimExpr) else -operator.index(other))

    def __rsub__(self, other):
        return (-self) + other if _is_dim(other) else self._on_value("__rsub__", other)

    def __mul__(self, other):
        if not _is_dim(other):
            return self._on_value("__mul__", other)
        if isinstance(other, _DimExpr):
            self.scope.check_same(other, "for operation mul")
        terms: dict = {}
        for m1, c1 in self._terms:
            for m2, c2 in self._terms_of(other).items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        return _DimExpr._make(terms, self.scope)

    def __rmul__(self, other):
        return self * other if _is_dim(other) else self._on_value("__rmul__", other)

    def __pow__(self, power, modulo=None):
        if modulo is not None:
            raise NotImplementedError("__pow__ modulo not implemented")
        if isinstance(power, _DimExpr):
            return power.__rpow__(self)
        if power != int(power):
            raise ValueError(f"Symbolic dimension cannot be raised to non-integer powers: "
                             f"'{self}' ** '{power}'")
        if power < 0:                         # JAX raises no integer to a negative power
            raise ValueError(f"Symbolic dimension cannot be raised to negative powers: "
                             f"'{self}' ** '{power}'")
        result = 1
        for _ in range(int(power)):
            result = result * self
        return result

    def __rpow__(self, other, modulo=None):
        if modulo is not None:
            raise NotImplementedError("__rpow__ modulo not implemented")
        return self._on_value("__rpow__", other)

    def __truediv__(self, other):             # "/" gives a float: always on the value
        return self._on_value("__truediv__", other)

    def __rtruediv__(self, other):
        return self._on_value("__rtruediv__", other)

    def __floordiv__(self, other):
        if not _is_dim(other):
            return self._on_value("__floordiv__", other)
        other = other if isinstance(other, _DimExpr) else operator.index(other)
        self._check_divisor_scope(other, "floordiv")
        exact = _divide_exactly(self, other)
        if exact is not None:
            return exact
        split = _split_constant(self, other)
        if split is not None:                 # (d*m + c) // d == m + c // d
            multiple, constant = split
            return multiple + constant // other
        return _DimExpr.atom("floordiv", self, other, self.scope)

    def _check_divisor_scope(self, divisor, op: str) -> None:
        """A divisor of another scope: JAX's error, named by the step of its polynomial
        division that meets it first (its leading term's quotient: a constant is a linear
        combination, a term a product; none: the operation's own)."""
        if not isinstance(divisor, _DimExpr) or divisor.scope is self.scope:
            return
        (m, c), (dm, dc) = _leading_term(self), _leading_term(divisor)
        rest = list(m)
        divides = c % dc == 0 and all(rest.remove(a) is None for a in dm if a in rest) and \
            len(rest) == len(m) - len(dm)
        if not divides:                   # (JAX's fallback makes floordiv's factor first)
            self.scope.check_same(divisor, "for operation floordiv")
        elif m == dm:                     # self - (c // dc) * divisor
            self.scope.check_same(c // dc * divisor, "for linear combination")
        else:                             # quotient term * divisor
            self.scope.check_same(divisor, "for operation mul")

    def __rfloordiv__(self, other):
        if not _is_dim(other):
            return self._on_value("__rfloordiv__", other)
        if operator.index(other) == 0:       # (0 divides exactly, as JAX normalizes it)
            return 0
        return _DimExpr.atom("floordiv", operator.index(other), self, self.scope)

    def __mod__(self, other):
        if not _is_dim(other):
            return self._on_value("__mod__", other)
        other = other if isinstance(other, _DimExpr) else operator.index(other)
        self._check_divisor_scope(other, "mod")
        if _divide_exactly(self, other) is not None:
            return 0
        split = _split_constant(self, other)
        if split is not None:                 # (d*m + c) % d == c % d
            return split[1] % other
        return _DimExpr.atom("mod", self, other, self.scope)

    def __rmod__(self, other):
        if not _is_dim(other):
            return self._on_value("__rmod__", other)
        if operator.index(other) == 0:
            return 0
        return _DimExpr.atom("mod", operator.index(other), self, self.scope)

    def __divmod__(self, other):
        if not _is_dim(other):
            return self._on_value("__divmod__", other)
        return self // other, self % other

    def __rdivmod__(self, other):
        if not _is_dim(other):
            return self._on_value("__rdivmod__", other)
        return other // self, other % self

    # ---- comparisons
    def __eq__(self, other):
        if isinstance(other, _DimExpr):      # of another scope: another dimension (and a
            return self._terms == other._terms and self.scope is other.scope  # jit cache miss)
        return False                          # a constant is an int, never a _DimExpr

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return self._hash

    def __ge__(self, other):
        return _greater_equal(self, other, ">=")

    def __le__(self, other):
        return _greater_equal(other, self, "<=", (self, other))

    def __gt__(self, other):
        _compare_scopes(other, self, f"'{self}' > '{other}'")     # (JAX's: not other >= self)
        return _greater_equal(self, other + 1, ">", (self, other))

    def __lt__(self, other):
        _compare_scopes(self, other, f"'{self}' < '{other}'")     # (JAX's: not self >= other)
        return _greater_equal(other, self + 1, "<", (self, other))

    def __int__(self):
        raise _inconclusive(f"Symbolic dimension '{self}' used in a context that requires a "
                            f"constant")

    def __jax_array__(self):
        return dimension_as_value(self)

    def dimension_as_value(self):
        """The dimension as an integer scalar value (JAX's method of its dimensions)."""
        return dimension_as_value(self)

    def min_dim(self, other):
        """min(self, other): one of them where decidable, else the expression `min(...)`."""
        return _dim_extremum("min", self, other, self.scope)

    def max_dim(self, other):
        """max(other, self): one of them where decidable, else `max(other, self)`."""
        return _dim_extremum("max", other, self, self.scope)

    def extremum(self, op: str, d1, d2):
        """`op` ("max" or "min") of d1 and d2 (this one of them), written in that order where
        undecidable: `max(b - 5, 0)`, as JAX's core.max_dim."""
        if isinstance(d1, _DimExpr) and isinstance(d2, _DimExpr):   # (JAX's d1 - d2 first)
            d1.scope.check_same(d2, "for linear combination")
        return _dim_extremum(op, d1, d2, self.scope)

    # ---- values
    def bounds(self) -> tuple:
        lo = hi = 0
        for monomial, coeff in self._terms:
            m_lo, m_hi = _monomial_bounds(monomial)
            lo += coeff * (m_lo if coeff > 0 else m_hi)
            hi += coeff * (m_hi if coeff > 0 else m_lo)
        return lo, hi

    def evaluate(self, env: dict) -> int:
        """The value for `env`: {variable name: int}."""
        total = 0
        for monomial, coeff in self._terms:
            value = coeff
            for atom in monomial:
                value *= atom.evaluate(env)
            total += value
        return total

    def variables(self) -> list:
        """The names of the variables, in order of first appearance."""
        names: dict = {}
        for monomial, _ in self._terms:
            for atom in monomial:
                if atom.op == "var":
                    names.setdefault(atom.args[0])
                else:
                    for arg in atom.args:
                        if isinstance(arg, _DimExpr):
                            names.update(dict.fromkeys(arg.variables()))
        return list(names)

    # JAX 0.10.2's names of the same questions (its tests and callers use them): the value
    # for an environment, the variables as a set, and equality by difference (a constant
    # difference decides; a symbolic one says "not equal", as JAX's, which cannot raise there)
    def _evaluate(self, env: dict) -> int:
        return self.evaluate(env)

    def _get_vars(self) -> set:
        return set(self.variables())

    def _eq(self, other) -> bool:
        diff = self - other
        return not is_symbolic_dim(diff) and diff == 0

    def linear(self):
        """(variable, coeff, const) when this is coeff*variable + const, else None."""
        terms = dict(self._terms)
        const = terms.pop((), 0)
        if len(terms) == 1:
            (monomial, coeff), = terms.items()
            if len(monomial) == 1 and monomial[0].op == "var":
                return monomial[0].args[0], coeff, const
        return None

    def as_var(self) -> str | None:
        """The variable's name when this is just one variable."""
        if len(self._terms) == 1:
            (monomial, coeff), = self._terms
            if coeff == 1 and len(monomial) == 1 and monomial[0].op == "var":
                return monomial[0].args[0]
        return None

    def _jax_order(self) -> tuple:
        """(key, text): JAX 0.10.2's syntactic order of expressions (_DimExpr._syntactic_cmp)
        as a key, and the text JAX prints, its terms in that order, largest first. The
        monomials stay as jxkernel keeps them; only printing (and comparing operands of
        operations for printing) sorts them as JAX's _sorted_terms are."""
        if self._printed is None:
            terms = []
            for monomial, coeff in self._terms:
                factors = sorted(_powers(monomial), key=lambda f: f[0].order(), reverse=True)
                terms.append((_term_order(monomial), coeff, factors))
            terms.sort(key=lambda t: t[0], reverse=True)
            key = (sum(1 + abs(c) * k[0] for k, c, _ in terms),
                   tuple((k, c) for k, c, _ in terms))
            text = ""
            for _, coeff, factors in terms:
                # a term's factors print smallest first (JAX's _DimTerm.__str__ sorts them)
                body = "*".join(str(atom) if n == 1 else f"{atom}^{n}"
                                for atom, n in reversed(factors))
                mag = abs(coeff)
                part = body if mag == 1 and body else (f"{mag}*{body}" if body else str(mag))
                text += (" - " if coeff < 0 else " + ") + part if text else \
                    ("- " if coeff < 0 else "") + part
            self._printed = (key, text, tuple((coeff, factors) for _, coeff, factors in terms))
        return self._printed

    def jax_terms(self) -> tuple:
        """((coeff, [(atom, power), ...]), ...): the terms in JAX 0.10.2's order (its
        _sorted_terms: largest first, the constant last), each term's factors in its order
        (_DimTerm._factors: largest first), which is the order JAX's lowering computes a
        size in (_DimExpr._evaluate)."""
        return self._jax_order()[2]

    def __str__(self):
        return self._jax_order()[1]

    __repr__ = __str__


def _expr_order(v) -> tuple:
    """JAX's syntactic key of an operand: a constant k is an expression of one constant term
    (size 1)."""
    return (1, (((0, ()), v),)) if isinstance(v, int) else v._jax_order()[0]


def _powers(monomial) -> list:
    """[(a, 2), (b, 1)] for the sorted atoms (a, a, b)."""
    out = []
    for atom in monomial:
        if out and out[-1][0] == atom:
            out[-1][1] += 1
        else:
            out.append([atom, 1])
    return [(atom, n) for atom, n in out]


def _is_dim(x) -> bool:
    """Whether `x` combines with a dimension into a dimension: another one, or an integer
    (anything operator.index takes, a 0-d integer array too; not a bool)."""
    if isinstance(x, (_DimExpr, int, np.integer)):
        return not isinstance(x, bool)
    if getattr(x, "_trace", None) is not None or not hasattr(x, "__index__"):
        return False                          # a tracer is a value, never a dimension
    try:
        operator.index(x)
        return True
    except Exception:                         # noqa: BLE001 (an array of several, a float)
        return False


def _monomial_bounds(monomial) -> tuple:
    """Bounds of a product of atoms: interval products (0 times an infinity is 0)."""
    lo = hi = 1
    for atom in monomial:
        a_lo, a_hi = atom.bounds()
        corners = [_times(p, q) for p in (lo, hi) for q in (a_lo, a_hi)]
        lo, hi = min(corners), max(corners)
    return lo, hi


def _apply_term_rules(terms: dict, rules: dict) -> dict:
    """`terms` with each k*term whose term has a rule c*term == e (k a multiple of c) written
    (k // c)*e, and, as JAX's normalization rules of a scope's equalities, a product whose
    factor (with its power) has one rewritten the same, the other factors kept: the largest
    such factor in JAX's order (`4*floordiv(b, 4)` is `b` under "mod(b, 4) == 0", and
    `4*a*floordiv(b, 4)` is `a*b`; `2*floordiv(b, 4)` stays)."""
    out: dict = {}
    for monomial, coeff in terms.items():
        hit = _rule_for(monomial, coeff, rules)
        if hit is None:
            out[monomial] = out.get(monomial, 0) + coeff
            continue
        key, (value, c) = hit
        rest = list(monomial)
        for atom in key:
            rest.remove(atom)
        rest = tuple(rest)
        for m, k in (value._terms if isinstance(value, _DimExpr) else (((), value),)):
            m = tuple(sorted(rest + m))
            out[m] = out.get(m, 0) + k * (coeff // c)
    return out


def _rule_for(monomial, coeff, rules: dict):
    """(the monomial's part a rule rewrites, the rule), or None (JAX's _normalize_term)."""
    rule = rules.get(monomial)
    if rule is not None and coeff % rule[1] == 0:
        return monomial, rule
    if len(monomial) > 1:
        for atom, n in sorted(_powers(monomial), key=lambda f: f[0].order(), reverse=True):
            key = (atom,) * n
            rule = rules.get(key) if key != monomial else None
            if rule is not None and coeff % rule[1] == 0:
                return key, rule
    return None


def _times(p, q):
    return 0 if p == 0 or q == 0 else p * q


def _divide_exactly(x: _DimExpr, y):
    """x // y when y divides every term of x (a constant, or one term), else None."""
    if isinstance(y, _DimExpr):
        if len(y._terms) != 1:
            return _long_divide(x, y)
        (y_mono, y_coeff), = y._terms
    else:
        y_mono, y_coeff = (), int(y)
    if y_coeff == 0:
        raise ZeroDivisionError(f"Division of '{x}' by 0")
    terms = {}
    for monomial, coeff in x._terms:
        quotient = _divide_term(monomial, coeff, y_mono, y_coeff)
        if quotient is None:
            return None
        terms[quotient[0]] = quotient[1]
    return _DimExpr._make(terms, x.scope)


def _divide_term(monomial, coeff, by_monomial, by_coeff):
    """(monomial, coeff) / (by_monomial, by_coeff) as one term, or None."""
    rest = list(monomial)
    for atom in by_monomial:
        if atom not in rest:
            return None
        rest.remove(atom)
    if coeff % by_coeff:
        return None
    return tuple(rest), coeff // by_coeff


def _long_divide(x, y: _DimExpr):
    """x // y for y of several terms when it divides exactly, else None: JAX 0.10.2's
    polynomial division (_DimExpr._divmod), dividing the leading term (largest in its
    syntactic order) of what is left by y's until a constant is left, which must be 0
    ((a^2 - b^2) // (b + a) is `- b + a`)."""
    by_monomial, by_coeff = _leading_term(y)
    quotient, left = 0, x
    for _ in range(64):                      # (the leading term shrinks at each step)
        if not isinstance(left, _DimExpr):
            return quotient if left == 0 else None
        term = _divide_term(*_leading_term(left), by_monomial, by_coeff)
        if term is None:
            return None
        q = _DimExpr._make({term[0]: term[1]}, y.scope)
        quotient, left = quotient + q, left - q * y
    return None


def _leading_term(d: _DimExpr) -> tuple:
    """(monomial, coeff) of the largest term in JAX's syntactic order (its _leading_term)."""
    return max(d._terms, key=lambda t: _term_order(t[0]))


def _term_order(monomial) -> tuple:
    """JAX's syntactic key of a term (_DimTerm._syntactic_cmp): (size, its factors' keys and
    exponents, largest factor first)."""
    keys = tuple(sorted(((atom.order(), n) for atom, n in _powers(monomial)), reverse=True))
    return sum(1 + n * k[0] for k, n in keys), keys


def constrained_bounds(d) -> tuple:
    """(lowest, highest) value of `d` for the values its scope's constraints allow: each
    constraint `known >= 0` bounds d below by the lowest of `d - known`, above by minus the
    lowest of `-d - known`.

    >>> a, b = symbolic_shape("a, b", constraints=("a >= 5", "b <= 16"))
    >>> constrained_bounds(a), constrained_bounds(b), constrained_bounds(3)
    ((5, inf), (1, 16), (3, 3))
    """
    lo, hi = _bounds(d)
    if isinstance(d, _DimExpr) and not getattr(_bounding, "on", False):
        # Bounding `d - known` bounds the atoms of `known` (their arguments' constrained
        # bounds), which would bound `d - known` again without end ("floordiv(a, 2) >= 3"):
        # inside, bounds are taken without the constraints, as JAX's decision procedure
        # builds its facts once.
        _bounding.on = True
        try:
            for known in _known_nonnegative(d.scope):
                for k in _multiples(d, known):       # d >= k*known's lowest part, k >= 1
                    lo = max(lo, _bounds_through_minmax(d - k * known, 1)[0])
                for k in _multiples(-d, known):
                    hi = min(hi, -_bounds_through_minmax(-d - k * known, 1)[0])
        finally:
            _bounding.on = False
    return lo, hi


_bounding = threading.local()


def _known_nonnegative(scope):
    """Each expression the scope's constraints say is >= 0: an equality's difference both
    ways (JAX's decision procedure uses equalities as bounds too: "min(a, b) == b - 2" gives
    a >= b - 2)."""
    for _, known in scope._constraints:
        yield known
    for _, known in scope._equalities:
        if isinstance(known, _DimExpr):
            yield known
            yield -known


def _multiples(d, known) -> set:
    """1, and each k >= 1 by which `known` times k has a term of `d` exactly (for d = 2*c + 1
    and c - 5 >= 0: k = 2, so d >= 2*(c - 5) + 11)."""
    ks = {1}
    if isinstance(d, _DimExpr) and isinstance(known, _DimExpr):
        terms = dict(known._terms)
        for monomial, coeff in d._terms:
            c = terms.get(monomial)
            if monomial and c and coeff % c == 0 and coeff // c > 1:
                ks.add(coeff // c)
        for monomial, _ in known._terms:      # c*floordiv(e, c) is within c of e: with
            if len(monomial) == 1 and monomial[0].op == "floordiv":   # floordiv(a, 2) >= 3,
                divisor = monomial[0].args[1]                        # a >= 6
                if isinstance(divisor, int) and divisor > 1:
                    ks.add(divisor)
    return ks


def _split_constant(x: _DimExpr, d):
    """(m, c) with x == d*m + c, for an int d dividing every coefficient of x but its
    constant c; None otherwise."""
    if isinstance(d, _DimExpr) or d == 0:
        return None
    terms = dict(x._terms)
    constant = terms.pop((), 0)
    if not terms or any(coeff % d for coeff in terms.values()):
        return None
    return _DimExpr._make({m: coeff // d for m, coeff in terms.items()}, x.scope), constant


def _compare_scopes(e1, e2, text: str) -> None:
    """JAX's error for comparing expressions of two scopes (its _geq_decision(e1, e2))."""
    if isinstance(e1, _DimExpr) and isinstance(e2, _DimExpr):
        e1.scope.check_same(e2, f"when comparing {text}")


def _greater_equal(x, y, op: str, shown=None) -> bool:
    """Whether x >= y for all values allowed, or InconclusiveDimensionOperation."""
    left, right = shown or (x, y)
    _compare_scopes(x, y, f"'{left}' {op} '{right}'")
    diff = x - y
    if isinstance(diff, int):
        return diff >= 0
    # JAX's decision procedure first (its errors: unsatisfiable constraints, a division by
    # 0), then jxkernel's bounds through min, max, floordiv and mod terms
    for bounds in (lambda: decision_bounds(diff, 1), lambda: _bounds_through_minmax(diff)):
        lo, hi = bounds()
        if lo >= 0:
            return True
        if hi < 0:
            return False
    decided = _minmax_ge(x, y)
    if decided is not None:
        return decided
    raise _inconclusive(f"Symbolic dimension comparison '{left}' {op} '{right}' is "
                        f"inconclusive.", diff.scope)


def _bounds_through_minmax(d, depth=3) -> tuple:
    """constrained_bounds of `d`, narrowed as JAX's decision procedure does for a term
    k*max(p, q) or k*min(p, q): `d` with p in its place and `d` with q bound it, the larger
    of their bounds where the term acts as a max (k*max with k > 0, k*min with k < 0), the
    smaller where it acts as a min (min(c, 2*b + 2) - min(c, b) >= 0: c - min(c, b) >= 0
    and 2*b + 2 - min(c, b) >= 3). Each such term is tried (the bounds are sound whichever
    goes first) and the tightest kept.

    >>> b, c = symbolic_shape("b, c")
    >>> _bounds_through_minmax(c.min_dim(2 * b + 2) - c.min_dim(b))
    (0, inf)
    """
    lo, hi = constrained_bounds(d)
    if depth == 0 or not isinstance(d, _DimExpr):
        return lo, hi
    for monomial, coeff in d._terms:
        if len(monomial) == 1 and monomial[0].op in ("max", "min"):
            atom = _DimExpr._make({monomial: 1}, d.scope)
            rest = d - coeff * atom
            (lo1, hi1), (lo2, hi2) = (_bounds_through_minmax(rest + coeff * p, depth - 1)
                                      for p in monomial[0].args)
            pick = max if (monomial[0].op == "max") == (coeff > 0) else min
            lo, hi = max(lo, pick(lo1, lo2)), min(hi, pick(hi1, hi2))
        elif len(monomial) == 1 and monomial[0].op == "floordiv" and \
                isinstance(monomial[0].args[1], int) and monomial[0].args[1] > 0:
            lo, hi = _bounds_through_floordiv(d, monomial, coeff, lo, hi, depth)
        elif len(monomial) == 1 and monomial[0].op == "mod" and \
                _bounds_through_minmax(monomial[0].args[1], depth - 1)[0] > 0:
            # mod(e, m) for m > 0 lies in 0 .. m - 1: d lies between `d` with 0 and with
            # m - 1 in its place (b - mod(-2, b) >= 1)
            rest = d - coeff * _DimExpr._make({monomial: 1}, d.scope)
            (lo1, hi1), (lo2, hi2) = (_bounds_through_minmax(rest + coeff * v, depth - 1)
                                      for v in (0, monomial[0].args[1] - 1))
            lo, hi = max(lo, min(lo1, lo2)), min(hi, max(hi1, hi2))
    return lo, hi


def _bounds_through_floordiv(d, monomial, coeff, lo, hi, depth) -> tuple:
    """`d`'s bounds narrowed through a term coeff*floordiv(e, c) (c > 0), as JAX's decision
    procedure uses e - c + 1 <= c*floordiv(e, c) <= e: c*d lies between c*rest + coeff*e and
    c*rest + coeff*(e - c + 1), so d between their bounds divided by c.

    >>> b, = symbolic_shape("b")
    >>> _bounds_through_minmax(b + 1 - (b + 1) // 2)
    (1, inf)
    """
    e, c = monomial[0].args
    rest = c * (d - coeff * _DimExpr._make({monomial: 1}, d.scope))
    (lo1, hi1), (lo2, hi2) = (_bounds_through_minmax(rest + coeff * v, depth - 1)
                              for v in (e, e - c + 1))
    low, high = min(lo1, lo2), max(hi1, hi2)
    if low != -_INF:
        lo = max(lo, -(-low // c))
    if high != _INF:
        hi = min(hi, high // c)
    return lo, hi


def _minmax_ge(x, y):
    """x >= y decided through a lone min or max on either side (x >= min(p, q) when x >= p
    or x >= q, ...); None when that does not decide it either."""
    y_min, x_max = _lone(y, "min"), _lone(x, "max")
    x_min, y_max = _lone(x, "min"), _lone(y, "max")
    if (y_min and any(_ge_or_none(x, q) for q in y_min)) or \
            (x_max and any(_ge_or_none(p, y) for p in x_max)) or \
            (x_min and all(_ge_or_none(p, y) for p in x_min)) or \
            (y_max and all(_ge_or_none(x, q) for q in y_max)):
        return True
    return None


def _lone(d, op):
    """The arguments of `d` when it is just op(p, q)."""
    if isinstance(d, _DimExpr) and len(d._terms) == 1:
        (monomial, coeff), = d._terms
        if coeff == 1 and len(monomial) == 1 and monomial[0].op == op:
            return monomial[0].args
    return None


def _ge_or_none(x, y):
    try:
        return _greater_equal(x, y, ">=")
    except InconclusiveDimensionOperation:
        return None


def _lowest(d):
    return _bounds(d)[0]


# ------------------------------------------------------------------ JAX's decision procedure
# JAX 0.10.2's bounds of an expression (jax/_src/export/shape_poly_decision.py,
# _DecisionByElimination), over jxkernel's monomials: an expression is a tuple of
# (monomial, coeff) pairs sorted as JAX's _sorted_terms (largest first, the constant last).
# The scope's constraints, in the user's order, and the implicit ones of each term met (a
# variable >= 1, the bounds of a product, floordiv, mod, max, min) are kept as the term
# bounds of single terms and as constraints led by their largest term; the bounds of an
# expression eliminate its terms largest first by combining with those. Its answers are
# JAX's, imprecision included (what JAX's tests call "current", not "best").
_GE, _EQ = ">=", "=="
_SUFFICIENT = {0: lambda lo, hi: lo >= 0 or hi <= 0,       # BoundsPrecision's values
               1: lambda lo, hi: lo >= 0 or hi < 0,
               2: lambda lo, hi: False}
_BEST = 2


def _pairs(e) -> tuple:
    """`e` (an int or an expression) as JAX's sorted (term, coeff) pairs."""
    if not isinstance(e, _DimExpr):
        return (((), int(e)),) if e else ()
    return tuple(sorted(e._terms, key=lambda t: _term_order(t[0]), reverse=True))


def _combine(p1, i1, f1, p2, i2, f2) -> tuple:
    """p1[i1:]*f1 + p2[i2:]*f2 (JAX's _linear_combination_sorted_pairs)."""
    acc: dict = {}
    for m, c in p1[i1:]:
        acc[m] = acc.get(m, 0) + c * f1
    for m, c in p2[i2:]:
        acc[m] = acc.get(m, 0) + c * f2
    return tuple(sorted(((m, c) for m, c in acc.items() if c),
                        key=lambda t: _term_order(t[0]), reverse=True))


def _normalized(p, scope) -> tuple:
    """Pairs `p` under the scope's equality rules (JAX's _linear_combination and
    subtraction normalize their result; its _linear_combination_sorted_pairs does not)."""
    rules = _all_rules(scope)
    if not rules:
        return p
    terms = _apply_term_rules(dict(p), rules)
    return tuple(sorted(((m, c) for m, c in terms.items() if c),
                        key=lambda t: _term_order(t[0]), reverse=True))


def _all_rules(scope) -> dict:
    """JAX's normalization rules of a scope: its term rules, and its substitutions of a
    variable or an atom (a rule with coefficient 1)."""
    rules = getattr(scope, "_rules", None)
    if rules is None:
        rules = dict(scope._term_rules)
        rules.update({(_Atom("var", (name,)),): (value, 1)
                      for name, value in scope._equal.items()})
        rules.update({(atom,): (value, 1) for atom, value in scope._equal_atoms.items()})
        if scope._initialized:
            scope._rules = rules
    return rules


def _constant(p):
    """The value of pairs `p` when constant, else None."""
    if not p:
        return 0
    return p[0][1] if len(p) == 1 and p[0][0] == () else None


def _sgn(x):
    return 1 if x >= 0 else -1


def _floor_with_inf(a, b):
    """math.floor(a / b), as the limit where either is infinite (JAX's)."""
    if b not in (_INF, -_INF):
        if a not in (_INF, -_INF):
            return math.floor(a / b)
        return -_INF if (a >= 0) != (b >= 0) else _INF
    if a not in (_INF, -_INF):
        return -1 if (a >= 0) != (b >= 0) else 0
    return -_INF if (a >= 0) != (b >= 0) else _INF


class _Decision:
    """JAX's _DecisionByElimination for one scope."""

    def __init__(self, scope):
        self.scope = scope
        self.processed: set = set()
        self.term_bounds: dict = {}     # monomial -> (lo, hi)
        self.expr_constraints: dict = {}  # leading monomial -> {(cmp, coeff, pairs)}

    @staticmethod
    def build(scope) -> _Decision:
        if not scope._initialized or not scope._explicit_constraints:
            return _Decision(scope).initialize()
        if scope._decision is None:
            scope._decision = _Decision(scope).initialize()
        d, c = scope._decision, _Decision(scope)
        c.processed = set(d.processed)
        c.term_bounds = dict(d.term_bounds)
        c.expr_constraints = {t: set(v) for t, v in d.expr_constraints.items()}
        return c

    def initialize(self) -> _Decision:
        for cmp, diff, text in self.scope._explicit_constraints:
            if isinstance(diff, _DimExpr):
                self.add_implicit_expr(diff)
            self.combine_and_add(cmp, diff, 0, text)
            self.scope._bounds_cache.clear()
        return self

    def _text(self, x) -> str:
        if isinstance(x, tuple):
            c = _constant(x)
            return str(c) if c is not None else str(_DimExpr(dict(x), self.scope))
        return str(x)

    def combine_and_add(self, cmp, e1, e2, text=None) -> None:
        """Adds "e1 >= e2" (or "=="; JAX's combine_and_add_constraint)."""
        if isinstance(e1, float):
            if e1 == _INF and cmp == _GE:
                return
            e1 = int(e1)
        if isinstance(e2, float):
            if e2 == -_INF and cmp == _GE:
                return
            e2 = int(e2)
        p1 = e1 if isinstance(e1, tuple) else _pairs(e1)
        p2 = e2 if isinstance(e2, tuple) else _pairs(e2)
        e = _combine(p1, 0, 1, p2, 0, -1)
        if not (isinstance(e2, int) and e2 == 0):      # (JAX's e - 0 is e, not normalized)
            e = _normalized(e, self.scope)
        const = _constant(e)
        if const is not None:
            if const < 0:
                raise ValueError(f"Unsatisfiable constraint: "
                                 f"{text or self._text(e1) + ' >= ' + self._text(e2)}")
            return
        self.add_to_state(cmp, e, text)
        for cmp2, a in self.combine_constraint_with_existing(cmp, e, text):
            self.add_to_state(cmp2, a, None)

    def add_to_state(self, cmp, e, text) -> None:
        terms = [(m, c) for m, c in e if m != ()]
        if len(terms) == 1:                   # n + t*t_k (>= or ==) 0
            (t, t_k), = terms
            n = e[-1][1] if e[-1][0] == () else 0
            lo, hi = self.term_bounds.get(t, (-_INF, _INF))
            if cmp == _EQ:
                if n % t_k:
                    raise ValueError(f"Unsatisfiable constraint: {text}")
                value = -(n // t_k)
                lo, hi = max(lo, value), min(hi, value)
            elif t_k > 0:
                lo = max(lo, int(np.ceil(-n / t_k)))
            else:
                hi = min(hi, int(np.floor(-n / t_k)))
            if lo > hi:
                raise ValueError(f"Unsatisfiable constraint: {text}")
            self.term_bounds[t] = (lo, hi)
            return
        lead, lead_k = e[0]
        self.expr_constraints.setdefault(lead, set()).add((cmp, lead_k, e))

    def combine_term_with_existing(self, t, t_k, only_smaller=True) -> list:
        acc = []
        lo, hi = self.term_bounds.get(t, (-_INF, _INF))
        if lo == hi:
            acc.append((_EQ, _combine(((t, 1),), 0, 1, _pairs(int(lo)), 0, -1),
                        abs(t_k), -_sgn(t_k)))
        else:
            if lo > -_INF:
                acc.append((_GE, _combine(((t, 1),), 0, 1, _pairs(int(lo)), 0, -1),
                            abs(t_k), -_sgn(t_k)))
            if hi < _INF:
                acc.append((_GE, _combine(((t, -1),), 0, 1, _pairs(int(hi)), 0, 1),
                            abs(t_k), _sgn(t_k)))
        groups = [self.expr_constraints.get(t, set())] if only_smaller else \
            list(self.expr_constraints.values())
        for group in groups:
            for c_eq, _, c in group:
                tc_k = dict(c).get(t)
                if tc_k is not None:
                    acc.append((c_eq, c, abs(t_k), -tc_k * _sgn(t_k)))
        return acc

    def combine_constraint_with_existing(self, eq, e, text) -> set:
        out = set()
        for t, t_k in e:
            if t == ():
                continue
            for c_eq, c, c_s, t_s in self.combine_term_with_existing(t, t_k, only_smaller=False):
                if t_s > 0 or eq == _EQ:
                    new_eq = _EQ if eq == c_eq == _EQ else _GE
                    new_e = _normalized(_combine(e, 0, t_s, c, 0, c_s), self.scope)
                    const = _constant(new_e)
                    if const is not None:
                        if (new_eq == _GE and const < 0) or (new_eq == _EQ and const != 0):
                            raise ValueError(f"Unsatisfiable constraints: "
                                             f"{text or self._text(e) + ' >= 0'}")
                    else:
                        out.add((new_eq, new_e))
        return out

    def bounds(self, e, prec: int, add_implicit=False) -> tuple:
        if not isinstance(e, _DimExpr):
            return (int(e), int(e))
        cache = self.scope._bounds_cache
        cached = cache.get(e)
        if cached is not None:
            lo, hi, prev = cached
            if _SUFFICIENT[prec](lo, hi) or prev >= prec:
                return (lo, hi)
        if add_implicit:
            self.add_implicit_expr(e)
        lo, hi = self._bounds_for(_pairs(e), 0, prec)
        lo, hi = (int(lo) if lo > -_INF else lo, int(hi) if hi < _INF else hi)
        cache[e] = (lo, hi, prec)
        return (lo, hi)

    def _bounds_for(self, e, i, prec) -> tuple:
        if i >= len(e):
            return (0, 0)
        t, t_k = e[i]
        if t == ():
            return (t_k, t_k)
        lo, hi = -_INF, _INF
        for c_eq, c, c_s, t_s in self.combine_term_with_existing(t, t_k):
            rest = _combine(e, i, t_s, c, 0, c_s)
            rest_lo, rest_hi = self._bounds_for(rest, 0, _BEST)
            if rest_hi < _INF:
                if t_s > 0:
                    hi = min(hi, int(np.floor(rest_hi / t_s)))
                else:
                    lo = max(lo, int(np.ceil(rest_hi / t_s)))
            if rest_lo > -_INF and c_eq == _EQ:
                if t_s > 0:
                    lo = max(lo, int(np.ceil(rest_lo / t_s)))
                else:
                    hi = min(hi, int(np.floor(rest_lo / t_s)))
            if _SUFFICIENT[prec](lo, hi):
                return (lo, hi)
        if len(t) == 1 and t[0].op in ("max", "min"):
            op1, op2 = t[0].args
            r1 = self._bounds_for(_combine(e, i + 1, 1, _pairs(op1), 0, t_k), 0, _BEST)
            r2 = self._bounds_for(_combine(e, i + 1, 1, _pairs(op2), 0, t_k), 0, _BEST)
            like_max = t_k > 0 if t[0].op == "max" else t_k < 0
            pick = max if like_max else min
            lo, hi = max(lo, pick(r1[0], r2[0])), min(hi, pick(r1[1], r2[1]))
            if _SUFFICIENT[prec](lo, hi):
                return (lo, hi)
        return lo, hi

    def add_implicit_expr(self, e) -> None:
        if isinstance(e, _DimExpr):
            for t, _ in _pairs(e):
                if t != ():
                    self.add_implicit_term(t)

    def add_implicit_term(self, t) -> None:
        if t in self.processed:
            return
        self.processed.add(t)
        t_e = ((t, 1),)
        if len(t) != 1:                       # a product: from its factors' bounds
            bounds = []
            for atom, power in sorted(_powers(t), key=lambda f: f[0].order(), reverse=True):
                self.add_implicit_term((atom,))
                lo, hi = self.bounds(_DimExpr({(atom,): 1}, self.scope), _BEST)
                bounds.append((lo ** power, hi ** power))
            products = [math.prod(b) for b in itertools.product(*bounds)]
            self.combine_and_add(_GE, t_e, min(products))
            self.combine_and_add(_GE, max(products), t_e)
            return
        atom = t[0]
        if atom.op == "var":
            self.combine_and_add(_GE, t_e, 1)
            return
        for arg in atom.args:
            self.add_implicit_expr(arg)
        op1, op2 = atom.args
        if atom.op == "mod":
            lo2, hi2 = self.bounds(op2, 1)
            if lo2 > 0:
                self.combine_and_add(_GE, t_e, 0)
                self.combine_and_add(_GE, _combine(_pairs(op2), 0, 1, _pairs(1), 0, -1), t_e)
                self.combine_and_add(_GE, hi2 - 1, t_e)
            elif hi2 < 0:
                self.combine_and_add(_GE, t_e, _combine(_pairs(op2), 0, 1, _pairs(1), 0, 1))
                self.combine_and_add(_GE, t_e, lo2 + 1)
                self.combine_and_add(_GE, 0, t_e)
            return
        if atom.op == "floordiv":
            lo1, hi1 = self.bounds(op1, _BEST)
            lo2, hi2 = self.bounds(op2, _BEST)
            if lo2 <= 0 <= hi2:
                raise _inconclusive(f"Possible division by 0 in division by {op2}")
            candidates = [_floor_with_inf(x, y) for x in (lo1, hi1) for y in (lo2, hi2)]
            self.combine_and_add(_GE, t_e, min(candidates))
            self.combine_and_add(_GE, max(candidates), t_e)
            if lo2 >= 0:
                if lo1 >= 0:
                    self.combine_and_add(_GE, t_e, 0)
                mod_e = _DimExpr({(_Atom("mod", atom.args),): 1}, self.scope)
                self.add_implicit_expr(mod_e)
                # op1 == op2 * t + mod(op1, op2)
                combined = _combine(_times_term(_pairs(op2), t), 0, 1, _pairs(mod_e), 0, 1)
                self.combine_and_add(_EQ, _pairs(op1), combined)
            return
        lo1, hi1 = self.bounds(op1, _BEST)
        lo2, hi2 = self.bounds(op2, _BEST)
        if atom.op == "max":
            self.combine_and_add(_GE, t_e, max(lo1, lo2))
            self.combine_and_add(_GE, max(hi1, hi2), t_e)
            self.combine_and_add(_GE, t_e, _pairs(op1))
            self.combine_and_add(_GE, t_e, _pairs(op2))
        else:
            self.combine_and_add(_GE, t_e, min(lo1, lo2))
            self.combine_and_add(_GE, min(hi1, hi2), t_e)
            self.combine_and_add(_GE, _pairs(op1), t_e)
            self.combine_and_add(_GE, _pairs(op2), t_e)


def _times_term(p, t) -> tuple:
    """Pairs `p` times the monomial `t`."""
    acc: dict = {}
    for m, c in p:
        m2 = tuple(sorted(m + t))
        acc[m2] = acc.get(m2, 0) + c
    return _combine(tuple(acc.items()), 0, 1, (), 0, 0)


def decision_bounds(e, precision: int = _BEST) -> tuple:
    """(lowest, highest) value of `e` by JAX 0.10.2's decision procedure
    (shape_poly_decision.bounds_decision); `precision`: BoundsPrecision's value, which lets it
    stop once the sign is known.

    >>> a, b = symbolic_shape("a, b", constraints=("a >= b + 2",))
    >>> decision_bounds(a - b), decision_bounds(a - a // 2)
    ((2, inf), (2, inf))
    """
    if not isinstance(e, _DimExpr):
        return (int(e), int(e))
    return _Decision.build(e.scope).bounds(e, precision, add_implicit=True)


def is_symbolic_dim(p) -> bool:
    """Whether `p` is a symbolic dimension (not an int).

    >>> is_symbolic_dim(symbolic_shape("a")[0]), is_symbolic_dim(3)
    (True, False)
    """
    return isinstance(p, _DimExpr)


# ------------------------------------------------------------------ parsing
# A spec is read as Python's tokenizer splits it, as JAX's parser does: its syntax errors name
# the tokens by Python's token names ("expecting one of {STAR} but found NAME").
_FOLLOW_SHAPE = (tokenize.ENDMARKER, tokenize.RPAR)
_FOLLOW_EXPR = _FOLLOW_SHAPE + (tokenize.COMMA,)
_FOLLOW_TERM = _FOLLOW_EXPR + (tokenize.PLUS, tokenize.MINUS)
_OPERATIONS = ("floordiv", "mod", "max", "min")


class _Parser:
    """Recursive descent over "2*a + floordiv(b, 2) - 1, ..." (a shape: dimensions separated
    by commas, in optional parentheses; `_` takes `like`'s dimension, `...` the rest of them).
    No parentheses inside a dimension, as JAX's."""

    def __init__(self, text: str, scope: SymbolicScope, like=None, shown=None):
        self.text, self.scope, self.like = text, scope, like
        self.shown = repr(text) if shown is None else shown
        self.dims: list = []
        self._tokens = tokenize.tokenize(io.BytesIO(text.encode("utf-8")).readline)
        self.tok = None

    def error(self, detail: str, at=True) -> ValueError:
        where = ""
        if at and self.tok is not None:
            column = self.tok.start[1]
            where = f"Parsed '{self.tok.line[:column]}', remaining '{self.tok.line[column:]}'."
        return ValueError(f"syntax error in symbolic shape {self.shown} in dimension "
                          f"{len(self.dims)}: {detail}. {where}")

    def advance(self):
        """The next token that is not a line's end or indentation."""
        for tok in self._tokens:
            if tok.exact_type not in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                self.tok = tok
                return tok
        raise self.error("unexpected end of string", at=False)

    def expect(self, *kinds) -> None:
        if self.tok.exact_type not in kinds:
            names = ", ".join(tokenize.tok_name[k] for k in kinds)
            raise self.error(f"expecting one of {{{names}}} but found "
                             f"{tokenize.tok_name[self.tok.exact_type]}")

    def skip(self, kind) -> None:
        self.expect(kind)
        self.advance()

    def parse(self) -> tuple:
        self.advance()
        self.skip(tokenize.ENCODING)
        self.shape()
        self.expect(tokenize.ENDMARKER)
        return tuple(self.dims)

    def shape(self) -> None:
        if self.tok.exact_type == tokenize.LPAR:
            self.advance()
            self.shape()
            self.skip(tokenize.RPAR)
            return
        while self.tok.exact_type not in _FOLLOW_SHAPE:
            ellipsis = self.tok.exact_type == tokenize.ELLIPSIS
            if ellipsis or self._is_placeholder():
                self._check_placeholder(ellipsis)
            if ellipsis:                     # like's remaining dimensions; the shape ends
                for d in self.like[len(self.dims):]:
                    self.add(d)
                self.advance()
                return
            if self._is_placeholder():
                d = self.like[len(self.dims)]
                self.advance()
            else:
                d = self.expr()
            self.add(d)
            if self.tok.exact_type in _FOLLOW_SHAPE:
                return
            self.skip(tokenize.COMMA)

    def _is_placeholder(self) -> bool:
        return self.tok.exact_type == tokenize.NAME and self.tok.string == "_"

    def _check_placeholder(self, ellipsis: bool) -> None:
        if self.like is None:
            raise self.error("spec contains ... but no 'like' shape was given")
        needed = len(self.dims) + (0 if ellipsis else 1)
        if len(self.like) < needed:
            raise self.error(f"cannot resolve placeholder '{self.tok.string}' because we "
                             f"parsed {len(self.dims)} already and 'like' shape has only "
                             f"{len(self.like)} dimensions")

    def add(self, d) -> None:
        """One more dimension: a placeholder's must be known, a constant must be like's."""
        if d is None:
            raise self.error(f"unexpected placeholder for unknown dimension; like={self.like}")
        if isinstance(d, int) and self.like is not None:
            if len(self.like) <= len(self.dims):
                raise self.error(f"more dimensions than the 'like' shape {tuple(self.like)} "
                                 f"has")
            if d != self.like[len(self.dims)]:
                raise self.error(f"different size {d} for known dimension; like={self.like}")
        self.dims.append(d)

    def expr(self):
        """A sum of terms, the first one possibly signed."""
        negate = self.tok.exact_type == tokenize.MINUS
        if negate or self.tok.exact_type == tokenize.PLUS:
            self.advance()
        total = None
        while True:
            term = self.term()
            term = -term if negate else term
            total = term if total is None else total + term
            if self.tok.exact_type in _FOLLOW_EXPR:
                return total
            self.expect(tokenize.PLUS, tokenize.MINUS)
            negate = self.tok.exact_type == tokenize.MINUS
            self.advance()

    def term(self):
        """A product of factors, each possibly raised to an integer power."""
        product = None
        while True:
            factor = self.factor()
            if self.tok.exact_type == tokenize.CIRCUMFLEX:
                self.advance()
                self.expect(tokenize.NUMBER)
                power = 1
                for _ in range(self.integer()):
                    power = power * factor
                factor = power
            product = factor if product is None else product * factor
            if self.tok.exact_type in _FOLLOW_TERM:
                return product
            self.skip(tokenize.STAR)

    def integer(self) -> int:
        self.expect(tokenize.NUMBER)
        try:
            value = int(self.tok.string)
        except ValueError:
            raise self.error(f"expecting integer, found {self.tok.string}") from None
        self.advance()
        return value

    def factor(self):
        if self.tok.exact_type == tokenize.NAME:
            name = self.tok.string
            self.advance()
            if name in _OPERATIONS:
                return self.operation(name)
            return _DimExpr.var(name, self.scope)
        sign = 1
        if self.tok.exact_type == tokenize.MINUS:      # -k: a negative constant
            sign = -1
            self.advance()
            self.expect(tokenize.NUMBER)
        self.expect(tokenize.NAME, tokenize.MINUS, tokenize.NUMBER)
        return sign * self.integer()

    def operation(self, name: str):
        """floordiv(x, y), mod(x, y), max(x, y) or min(x, y), after its name."""
        self.skip(tokenize.LPAR)
        x = self.expr()
        self.skip(tokenize.COMMA)
        y = self.expr()
        self.skip(tokenize.RPAR)
        if name in ("max", "min"):
            return _dim_extremum(name, x, y, self.scope)
        return x // y if name == "floordiv" else x % y


def _dim_extremum(name, x, y, scope):
    """`name` ("max" or "min") of x and y: one of them where their order is decidable,
    else the atom `max(x, y)` / `min(x, y)`. ``_dim_extremum("max", 3, 2, scope)`` is 3."""
    # x wins when it is >= y for max, <= y for min; x is tried first, so equal dims give x
    first, second = (x, y) if name == "max" else (y, x)
    if _ge_or_none(first, second):
        return x
    if _ge_or_none(second, first):
        return y
    return _DimExpr.atom(name, x, y, scope)


def _parse_constraint(text, scope: SymbolicScope) -> None:
    """Add constraint "e1 >= e2" (or "e1 <= e2") to `scope`'s known facts, or, for "v == e",
    read the variable `v` as `e` from then on. One that holds whatever the variables are is
    dropped; one that never holds is refused."""
    if not isinstance(text, str):
        raise ValueError(f"SymbolicScope constraint must be a string: got {text!r}")
    op = next((op for op in ("==", ">=", "<=") if op in text), None)
    if op is None:
        raise ValueError("Constraint parsing error: must contain one of '==' or '>=' or '<='")
    lhs, rhs = text.split(op, 1)
    left, right = (_parse_side(side, scope) for side in (lhs, rhs))
    known = right - left if op == "<=" else left - right
    if isinstance(known, int):                      # no variable left: true or false
        if known < 0 or (op == "==" and known != 0):
            raise ValueError(f"Unsatisfiable explicit constraint: {text}")
        return
    if op != "==":
        scope._constraints.append((text, known))
        scope._explicit_constraints.append((">=", known, text))
        return
    name = left.as_var() if isinstance(left, _DimExpr) else None
    if name is None:
        _atom_equality(text, left, right, known, scope)
        scope._explicit_constraints.append(("==", known, text))
        return
    if isinstance(right, _DimExpr) and name in right.variables():
        raise ValueError(f"Symbolic constraint {text!r} defines '{name}' by itself.")
    scope._equal[name] = right
    scope._explicit_constraints.append(("==", known, text))


def _atom_equality(text, left, right, known, scope) -> None:
    """`left == right` for a left side other than a variable: checked at call time, and
    where the left side is one atom times c (`max(a, b)`, `mod(b, 4)`, `2*floordiv(d, 2)`)
    with `right` divisible by c, the atom stands for right // c in the expressions made
    after; otherwise each multiple k*c of it stands for k*right (JAX's normalization rules;
    `constrained_bounds` uses the equality as bounds too, as JAX's decision procedure)."""
    scope._equalities.append((text, known))
    terms = left._terms if isinstance(left, _DimExpr) else ()
    if len(terms) == 1 and len(terms[0][0]) > 1:      # a product: a rule for its multiples
        (monomial, coeff), = terms                     # ("128*b*floordiv(t, 128) == b*t")
        scope._term_rules[monomial] = (right, coeff)
        return
    if len(terms) == 1 and len(terms[0][0]) == 1 and terms[0][0][0].op == "var":
        (monomial, coeff), = terms                     # "4*d == a - m": multiples of 4*d
        scope._term_rules[monomial] = (right, coeff)   # are a - m (JAX's rule)
        return
    if len(terms) == 1 and len(terms[0][0]) == 1 and terms[0][0][0].op != "var":
        (atom,), coeff = terms[0]
        value = right // coeff if isinstance(right, int) and right % coeff == 0 else \
            _divide_exactly(right, coeff) if isinstance(right, _DimExpr) else None
        if value is not None:
            scope._equal_atoms[atom] = value
        else:                                  # only multiples of coeff*atom are `right`
            scope._term_rules[(atom,)] = (right, coeff)
        divisor = atom.args[1]
        if atom.op == "mod" and coeff == 1 and right == 0 and isinstance(divisor, int):
            # "mod(e, k) == 0" also says k*floordiv(e, k) == e (JAX adds that rule, and that
            # constraint before this one)
            scope._term_rules[(_Atom("floordiv", atom.args),)] = (atom.args[0], divisor)
            e = atom.args[0]
            terms = {(_Atom("floordiv", atom.args),): divisor}
            for m, c in (e._terms if isinstance(e, _DimExpr) else (((), e),)):
                terms[m] = terms.get(m, 0) - c
            diff = _DimExpr({m: c for m, c in terms.items() if c}, scope)
            scope._explicit_constraints.append(
                ("==", diff, f"{_DimExpr({(_Atom('floordiv', atom.args),): divisor}, scope)}"
                             f" == {e}"))


def _parse_side(text: str, scope: SymbolicScope):
    """One side of a constraint: one dimension expression."""
    dims = _Parser(text, scope).parse()
    if len(dims) != 1:
        raise ValueError(f"syntax error in symbolic constraint side {text!r}: expecting one "
                         f"dimension expression, found {len(dims)}")
    return dims[0]


def symbolic_shape(shape_spec, *, constraints=(), scope=None, like=None) -> tuple:
    """The shape in `shape_spec` ("b, 4", "(2*a, floordiv(a, 2))") with symbolic dimensions;
    `_` and `...` take `like`'s dimensions. None stands for "...".

    >>> symbolic_shape("a, b", constraints=("a >= b",))
    (a, b)
    >>> symbolic_shape("b, ...", like=(None, 3, 4))
    (b, 3, 4)
    """
    shown = repr(shape_spec)
    if shape_spec is None:
        shape_spec = "..."
    if not isinstance(shape_spec, str):
        raise ValueError(f"polymorphic shape spec should be None or a string. Found {shown}.")
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot specify both a `scope` and `constraints`.")
    return _Parser(shape_spec, scope, like, shown).parse()


def symbolic_args_specs(args, shapes_specs, *, constraints=(), scope=None):
    """ShapeDtypeStructs for the array leaves of `args`, their shapes from `shapes_specs`
    (one spec for all, or a pytree of specs), all in one scope.

    >>> symbolic_args_specs((np.zeros((3, 4), np.float32),), "b, ...")
    (ShapeDtypeStruct(shape=(b, 4), dtype=float32),)
    """
    leaves, tree = tree_flatten(args)
    if isinstance(shapes_specs, (str, type(None))):
        specs = [shapes_specs] * len(leaves)
    else:                                   # a prefix of args: one spec for each subtree
        if isinstance(args, tuple) and isinstance(shapes_specs, list):
            shapes_specs = tuple(shapes_specs)  # a list for the tuple of arguments, as JAX's
        try:
            specs = broadcast_prefix(shapes_specs, args, is_leaf=lambda s: s is None)
        except ValueError:
            error, *_ = prefix_errors(shapes_specs, args, is_leaf=lambda s: s is None)
            raise error("export.symbolic_args_specs shapes_specs") from None
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot use both `scope` and `constraints`")
    out = []
    for leaf, spec in zip(leaves, specs):
        shape = tuple(leaf.shape) if spec is None else \
            symbolic_shape(spec, scope=scope, like=leaf.shape)
        out.append(ShapeDtypeStruct(shape, leaf.dtype, getattr(leaf, "weak_type", False)))
    return tree_unflatten(tree, out)



# ------------------------------------------------------------------ calling
_SPEC_DOC = ("Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
             "#shape-assertion-errors for more details.")


def specs_text(specs, paths) -> str:
    """"args[0].shape = (b, 4),args[1].shape = (3,)": the specifications, as JAX's errors
    list them."""
    return ",".join(f"{p}.shape = ({', '.join(map(str, s))}{',' if len(s) == 1 else ''})"
                    for p, s in zip(paths, specs))


def _split_unknown(d: _DimExpr, known):
    """(variable, k, rest) when `d` is k*variable + rest with `rest` of `known` variables
    only (variable None: all of `d`'s are known); None when more than one term holds unknown
    variables, or one holds an unknown one other than as k*variable (c^2, a*b, a // 2)."""
    var = k = None
    rest: dict = {}
    for monomial, coeff in d._terms:
        names = _DimExpr({monomial: 1}, d.scope).variables() if monomial else []
        if all(n in known for n in names):
            rest[monomial] = coeff
        elif var is None and len(monomial) == 1 and monomial[0].op == "var":
            var, k = monomial[0].args[0], coeff
        else:
            return None
    return var, k, _DimExpr._make(rest, d.scope)


def solving_plan(dims) -> tuple:
    """JAX's order of solving for the dimension variables: `dims` are the arguments' symbolic
    dimensions in order, as (expression, where); each pass takes every dimension whose
    expression is k*v + (known variables), solving v from it, or whose variables are all
    known, to be checked; passes repeat while they make progress. Returns (steps, unsolved):
    ("var", v, k, rest, expression, where) and ("check", expression, where) steps in order,
    and the dimensions no pass could use.

    >>> a, b = symbolic_shape("a, b")
    >>> [s[:3] for s in solving_plan([(2 * b + a, 0), (a, 1)])[0]]
    [('var', 'a', 1), ('var', 'b', 2)]
    """
    known: set = set()
    steps: list = []
    pending = list(dims)
    while pending:
        left = []
        for d, where in pending:
            split = _split_unknown(d, known)
            if split is None:
                left.append((d, where))
            elif split[0] is None:
                steps.append(("check", d, where))
            else:
                known.add(split[0])
                steps.append(("var", *split, d, where))
        if len(left) == len(pending):
            return steps, left
        pending = left
    return steps, []


def cannot_solve(steps, unsolved, spec_text: str) -> ValueError:
    """JAX's error for dimensions from which no variable could be solved (c^2): `unsolved`
    as (expression, "args[0].shape[2]"), after `steps` (solving_plan's)."""
    solved = {step[1] for step in steps if step[0] == "var"}
    names = {v for d, _ in unsolved for v in d.variables()} - solved
    pieces = ", ".join(f"'{d}' for dimension size {where}" for d, where in unsolved)
    return ValueError(f"Cannot solve for values of dimension variables {names}. We "
                      f"can only solve linear uni-variate constraints. Using the following "
                      f"polymorphic shapes specifications: {spec_text}. Unprocessed "
                      f"specifications: {pieces}. Please see https://docs.jax.dev/en/latest/"
                      f"export/shape_poly.html#dimension-variables-must-be-solvable-from-the-"
                      f"input-shapes for more details.")


def solve_dimension_variables(specs, shapes, paths) -> dict:
    """{variable: int} from the concrete `shapes` of arguments exported with shapes `specs`,
    solved in JAX's order (`solving_plan`), the first failing check raised as JAX's (a
    remainder, a variable below 1, a dimension that does not fit, a broken constraint),
    naming where each variable came from.

    >>> a, = symbolic_shape("a"); solve_dimension_variables([(a, 4)], [(3, 4)], ["args[0]"])
    {'a': 3}
    """
    env: dict = {}
    found: list = []              # each variable's (name, dimension spec, where)
    spec_text = specs_text(specs, paths)

    def mismatch(why: str, head="Input shapes do not match the polymorphic shapes "
                                 "specification. ", end=". ") -> ValueError:
        obtained = "".join(f"'{v}' = {env[v]} from specification '{d}' for dimension {w}, "
                           for v, d, w in found)
        return ValueError(f"{head}{why}{end}Using the following polymorphic shapes specifications: "
                          f"{spec_text}. Obtained dimension variables: {obtained}. {_SPEC_DOC}")

    dims = [(d, (path, i, int(n))) for spec, shape, path in zip(specs, shapes, paths)
            for i, (d, n) in enumerate(zip(spec, shape)) if isinstance(d, _DimExpr)]
    steps, unsolved = solving_plan(dims)
    if unsolved:
        raise cannot_solve(steps, [(d, f"{p}.shape[{i}]") for d, (p, i, _) in unsolved],
                           spec_text)
    failed: list = []           # in JAX's order of its shape assertions: the first is raised
    for step in steps:
        if step[0] == "var":
            _, name, k, rest, d, (path, i, n) = step
            quotient, remainder = divmod(n - _evaluate(rest, env), k)
            if remainder:
                failed.append(mismatch(f"Division had remainder {remainder} when computing "
                                       f"the value of '{name}'"))
            env[name] = quotient
            found.append((name, d, f"{path}.shape[{i}] (= {n})"))
            if quotient < 1:
                failed.append(mismatch(f"Expected value >= 1 for dimension variable '{name}'"))
        else:
            _, d, (path, i, n) = step
            want = _evaluate(d, env)
            if want != n:
                failed.append(mismatch(f"Found inconsistency between dimension size "
                                       f"{path}.shape[{i}] (= {n}) and the specification "
                                       f"'{d}' (= {want})"))
    if failed:
        raise failed[0]
    for spec, shape, path in zip(specs, shapes, paths):
        for i, (d, n) in enumerate(zip(spec, shape)):
            if not isinstance(d, _DimExpr) and d != n:
                raise mismatch(f"Found inconsistency between dimension size {path}.shape[{i}] "
                               f"(= {n}) and the specification '{d}' (= {d})")
    scopes = {id(d.scope): d.scope for spec in specs for d in spec if isinstance(d, _DimExpr)}
    for scope in scopes.values():
        full = dict(env)                     # (variables an equality substituted, too)
        for name, e in scope._equal.items():
            full.setdefault(name, _evaluate(e, env))
        # (in the user's order, an equality on a term after its normalization rule: JAX's
        # explicit constraints)
        for cmp, known, text in scope._explicit_constraints:
            value = _evaluate(known, full)
            if cmp == ">=" and value < 0:
                raise mismatch(f"Input shapes do not match the symbolic shape constraint "
                               f"{text}. Expected '{known}' to be greater or equal to 0, but "
                               f"found {value}", head="", end=".  ")
            if cmp == "==" and value != 0:
                raise mismatch(f"Input shapes do not match the symbolic shape constraint "
                               f"{text}. Expected '{known}' to be equal to 0, but found "
                               f"{value}", head="", end=".  ")    # (JAX's two spaces)
    return env


def evaluate_shape(shape, env: dict) -> tuple:
    """The concrete shape for the variables' values in `env`."""
    return tuple(_evaluate(d, env) for d in shape)


# ------------------------------------------------------------------ dim_as_value
dim_as_value_p = Primitive("dim_as_value")


def dimension_as_value(d):
    """A dimension as an integer scalar: a constant one stays the int it is, a symbolic one
    is read from the module's arguments (JAX's `core.dimension_as_value`)."""
    return d if isinstance(d, int) else dim_as_value_p.bind(dim=d)


def _dim_as_value_abstract_eval(*, dim):
    return ShapedArray((), dtypes.default_int_dtype(), weak_type=True)   # an int's, as JAX's


def _dim_as_value_lowering(ctx, *, dim):
    value = ctx.module_ctx.symbolic.dim(ctx.block, dim)
    out = ctx.avals_out[0]
    if out.dtype == np.int32:
        return value
    return ctx.block.op1("stablehlo.convert", [value], hlo.aval_type(out))


abstract_eval_rules[dim_as_value_p] = _dim_as_value_abstract_eval
lowering_rules[dim_as_value_p] = _dim_as_value_lowering    # bound only with symbolic dims
ad.defjvp_zero(dim_as_value_p)
