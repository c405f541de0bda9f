"""Rule tables under JAX's names whose rules see jaxpr literals as plain values."""
from collections.abc import MutableMapping

from ...core.ir import literal_value


class UserRules(MutableMapping):
    """A view of one of jxkernel's rule tables: reading gives its rules; a rule set here is
    stored wrapped by `adapt`, so it is called with Python scalars or NumPy scalars where
    jxkernel would pass its own jaxpr Literals (JAX's rules get plain values there)."""

    def __init__(self, table: dict, adapt):
        self._table, self._adapt = table, adapt

    def __getitem__(self, prim):
        return self._table[prim]

    def __setitem__(self, prim, rule):
        self._table[prim] = self._adapt(rule)

    def __delitem__(self, prim):
        del self._table[prim]

    def __iter__(self):
        return iter(self._table)

    def __len__(self):
        return len(self._table)


def plain_values(values) -> tuple:
    """The operands as a rule written for JAX gets them: a tuple (JAX unzips its tracers into
    tuples), jaxpr literals as plain values."""
    return tuple(literal_value(v) for v in values)
