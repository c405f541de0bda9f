"""The int-overflow card against JAX 0.10.2: a Python int past int32, JAX's default integer
(tests/data/int_overflow_cases.py; JAX's words, and each cell's value with 64-bit types on,
recorded by reference/make_int_overflow_reference.py)."""
import numpy as np
import pytest

pytest.importorskip("IPython")

import jxkernel
from int_overflow_cases import CASES, PAST_INT64  # tests/data
import locations  # tests/support
from ipython_shell import ran_failing, shell_fixture

JAX = locations.recorded("int_overflow_reference.json")

shell = shell_fixture("import jxkernel as jax, jxkernel.numpy as jnp", fresh=True)


@pytest.fixture
def x32():
    """64-bit types off before the test and after it (the card's line turns them on)."""
    jxkernel.config.update("jax_enable_x64", False)
    yield
    jxkernel.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_python_int_past_int32_gets_64_bit_types(shell, x32, case):
    """jnp.array(2**40), [2**31, 5], x * 2**33, and 2**40 inside jit: JAX 0.10.2's
    OverflowError word for word (under jit its "argument path is y", y JAX's own name for the
    operand), and no card. The card says 2**40 is past int32's 2**31 - 1 and turns on 64-bit
    types, then runs the line again (inside a function: the config line alone, the call
    run again after it); JAX's values and int64."""
    cell, again = CASES[case]
    ran = ran_failing(shell, cell, recovers=True)
    card = ran.card
    assert card is not None and card["kind"] == "int-overflow", ran.printed
    assert card["message"] == JAX[case]["first_line"]
    assert "int32" in card["title"] and "2**31 - 1" in card["why"], card
    lines = [part.split("    # ")[0] for part in card["rewrite"].splitlines()]
    assert lines[0] == 'jax.config.update("jax_enable_x64", True)', card["rewrite"]
    assert lines[1:] == ([] if again else cell.splitlines()[-1:]), card["rewrite"]
    assert shell.run_cell("\n".join(lines + ([again] if again else []))).success
    value, dtype = JAX[f"{case}_fixed"]
    assert np.asarray(shell.user_ns["_y"]).tolist() == value
    assert str(shell.user_ns["_y"].dtype) == dtype


def test_past_int64_no_integer_holds_it(shell, x32):
    """2**70 with 64-bit types on: JAX's "too large to convert to int64", and a pattern (a
    float holds its magnitude), no line turning anything on."""
    jxkernel.config.update("jax_enable_x64", True)
    card = ran_failing(shell, PAST_INT64, recovers=True).card
    assert card["message"] == JAX["past_int64"]["first_line"]
    assert card["title"] == "2**70 does not fit in int64, JAX's widest integer"
    assert all(line.startswith("#") for line in card["rewrite"].splitlines())
