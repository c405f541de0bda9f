"""How a case module of tests/data answers one case, the same under real JAX (its reference
script) and under jxkernel (the test's child process): the value, or the error raised.

    >>> answer(lambda: 1 + 1), answer(lambda: 1 / 0)
    (['ok', 2], ['ZeroDivisionError', 'division by zero'])
"""


def answer(fn) -> list:
    """[error class, message] or ["ok", value]."""
    try:
        return ["ok", fn()]
    except Exception as e:      # noqa: BLE001  (the answer is the error)
        return [type(e).__name__, str(e)]
