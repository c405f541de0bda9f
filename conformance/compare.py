"""Compare a program's output under jxkernel with JAX's recorded output.

Printed text is compared token by token: numbers by value, within ``ulps`` float32 ulps
or one unit in the last printed digit (another CPU moves the last digit), the words
between them exactly (word by word and mark by mark), whatever the whitespace (NumPy pads columns to the widest number,
so one digit more elsewhere moves the spaces). RESULTS arrays
must agree in dtype and shape; ints, bools and PRNG bits exactly, floats in ulps.

    >>> compare_text(["[0.25  0.19661197]"], ["[0.25       0.19661198]"], ulps=4)
    >>> compare_text(["x 1.5"], ["x 1.6"], ulps=4)
    "printed '1.6' where JAX printed '1.5' (line 1: x 1.5)"
"""
import math
import re

import numpy as np

_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|(?:nan|inf)\b)")
_EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "complex128": 2.0 ** -52,
        "complex64": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _tokens(lines):
    """(kind, text, line number) for every number and every run of other characters."""
    out = []
    for number, line in enumerate(lines, 1):
        position = 0
        for match in _NUMBER.finditer(line):
            out += _text_token(line[position:match.start()], number)
            out.append(("number", match.group(), number))
            position = match.end()
        out += _text_token(line[position:], number)
    return out


_WORD = re.compile(r"\w+|[^\w\s]")


def _text_token(text, number):
    # words and single punctuation marks: NumPy pads complex columns, so "5j," and "5j ,"
    # are the same text
    return [("text", word, number) for word in _WORD.findall(text)]


def _last_digit_unit(token):
    """The value of one unit in the last printed digit: '0.25' -> 0.01, '1e-05' -> 1e-05."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def _numbers_agree(expected, actual, ulps, atol):
    a, b = float(expected), float(actual)
    if not (math.isfinite(a) and math.isfinite(b)):
        return expected == actual or (math.isnan(a) and math.isnan(b))
    if "." not in expected + actual and "e" not in (expected + actual).lower():
        return int(expected) == int(actual)          # integers print exactly
    unit = max(_last_digit_unit(expected), _last_digit_unit(actual))
    tolerance = max(ulps * _spacing(max(abs(a), abs(b)), "float32"), unit, atol)
    # (the difference of two printed decimals is computed in binary: 0.02415346 - 0.02415345
    # comes out a hair above the 1e-8 it is)
    return abs(a - b) <= tolerance * (1 + 1e-9)


def compare_text(expected, actual, ulps=4, atol=0.0):
    """None when the printed lines agree, else the first difference in words."""
    want, got = _tokens(expected), _tokens(actual)
    for (kind, text, line), (kind2, text2, _) in zip(want, got):
        same = (kind == kind2 and (text == text2 if kind == "text"
                                   else _numbers_agree(text, text2, ulps, atol)))
        if not same:
            return f"printed {text2!r} where JAX printed {text!r} (line {line}: " \
                   f"{expected[line - 1].strip()[:80]})"
    if len(want) != len(got):
        extra = (got if len(got) > len(want) else want)[min(len(want), len(got))]
        who = "jxkernel printed more" if len(got) > len(want) else "jxkernel printed less"
        return f"{who}: from {extra[1]!r} on line {extra[2]}"
    return None


def _spacing(magnitude, dtype):
    """One ulp at ``magnitude`` in ``dtype`` (subnormals get the smallest normal's)."""
    eps = _EPS[dtype]
    if magnitude == 0 or not math.isfinite(magnitude):
        return eps * 2.0 ** -126 if dtype != "float64" else eps * 2.0 ** -1022
    return eps * 2.0 ** math.floor(math.log2(magnitude))


def _as_float_array(record):
    values = np.asarray(record["values"], dtype=np.float64)
    if record["dtype"].startswith("complex"):
        values = values.reshape(-1, 2)
    return values.reshape(-1)


def compare_array(name, expected, actual, ulps=4, atol=0.0):
    """None when a RESULTS array agrees with JAX's, else the difference in words."""
    if expected["dtype"] != actual["dtype"] or expected["shape"] != actual["shape"]:
        return f"RESULTS[{name!r}] is {actual['dtype']}{actual['shape']}, " \
               f"JAX's is {expected['dtype']}{expected['shape']}"
    if expected["dtype"] not in _EPS:
        if expected["values"] != actual["values"]:
            return f"RESULTS[{name!r}] differs (exact {expected['dtype']})"
        return None
    want, got = _as_float_array(expected), _as_float_array(actual)
    if not np.array_equal(np.isnan(want), np.isnan(got)):
        return f"RESULTS[{name!r}] has NaNs where JAX's has none (or the reverse)"
    for w, g in zip(want, got):
        if math.isnan(w) or w == g:
            continue
        tolerance = max(ulps * _spacing(max(abs(w), abs(g)), expected["dtype"]), atol)
        if not abs(w - g) <= tolerance:
            return f"RESULTS[{name!r}]: {g!r} where JAX has {w!r} (over {ulps} ulps)"
    return None


def compare_record(expected, actual, options):
    """None when a program's whole output agrees with JAX's, else the first difference."""
    ulps, atol = options.get("ulps", 4), options.get("atol", 0.0)
    reason = compare_text(expected["stdout"], actual["stdout"], ulps, atol)
    if reason:
        return reason
    missing = sorted(set(expected["results"]) ^ set(actual["results"]))
    if missing:
        return f"RESULTS keys differ: {missing}"
    for name in expected["results"]:
        reason = compare_array(name, expected["results"][name], actual["results"][name],
                               ulps, atol)
        if reason:
            return reason
    return None
