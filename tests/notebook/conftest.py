"""Each notebook test starts with no stale reads of an earlier test's (a new cell's kernel
would have none of them): what earlier tests' traces read from outside, told or not, is
forgotten (views/outside_values.stale_reads), so a later test's cell is told only of its own.
Under xdist's worksteal the tests sharing a module's shell run in varying company: a global
`k` one test's callable object read was told in another's cell, once in a while."""
import pytest


@pytest.fixture(autouse=True)
def _no_earlier_stale_reads():
    from jxkernel.views.outside_values import stale_reads
    stale_reads()
    yield
