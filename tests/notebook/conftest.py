"""Each notebook test starts with no reads of an earlier test's traces (a new kernel would
have none of them): what they read from outside, told or not, is forgotten
(views/outside_values.forget), so a later test's cell is told only of its own; a read not
yet changed stayed followed after a mere stale_reads().
Under xdist's worksteal the tests sharing a module's shell run in varying company: a global
`k` one test's callable object read was told in another's cell, once in a while."""
import pytest


@pytest.fixture(autouse=True)
def _no_earlier_stale_reads():
    from jxkernel.views.outside_values import forget
    forget()
    yield
