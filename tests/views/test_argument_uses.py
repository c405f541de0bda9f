"""views/argument_uses.py: how a function's source uses an argument, which the error cards
read before advising an array static argument to become a Python value or to stay traced."""
import jxkernel.numpy as jnp
from jxkernel.views.argument_uses import UNKNOWN, uses


def signed(x, flag):
    return x if flag else -x


def zeros(x, shape):
    return jnp.zeros(shape) + x


def scaled(x, n):
    return x * n.sum()


def loop(x, n):
    for _ in range(n):
        x = x * 2
    if n > 3 and x.ndim:
        x = x[:n]
    return jnp.zeros((n, 3)) + x.sum()


def plain(x, w):
    return x * w + 1


LAMBDAS = [lambda x, flag: x if flag else -x,
           lambda x, s: jnp.zeros(s) + x]


def test_python_uses_are_named_in_source_order():
    assert uses(signed, "flag").python == ("an `if`",)
    assert uses(zeros, "shape").python == ("a shape or a size",)
    assert uses(loop, "n").python == ("a loop count (`range`)", "an `if`",
                                      "a slice's bounds", "a shape or a size")
    # a name as an operand of `and`/`or`/`not` is truth-tested (a comparison is an `if`'s)
    assert uses(lambda x, n: x if not n else -x, "n").python == ("`and`/`or`/`not`",)


def count_up(x, n):             # the JIT tutorial's g: n compared in a `while`'s test
    i = 0
    while i < n:
        i += 1
    return x + i


def test_a_comparison_is_named_by_the_statement_it_tests():
    """`while i < n:` needs n as a Python value for a `while` (the card said "an `if`")."""
    assert uses(count_up, "n").python == ("a `while`",)
    assert uses(lambda x, n: x if (n > 0) else -x, "n").python == ("an `if`",)


def test_array_methods_and_plain_computing():
    assert uses(scaled, "n") == uses(scaled, "n").__class__(python=(), array=True)
    assert uses(plain, "w").python == () and not uses(plain, "w").array
    assert uses(plain, "w").found


def test_lambdas_in_a_list_on_one_line_each():
    assert uses(LAMBDAS[0], "flag").python == ("an `if`",)
    assert uses(LAMBDAS[1], "s").python == ("a shape or a size",)


def test_unknown_without_source_or_parameter():
    assert uses(print, "x") is UNKNOWN
    assert uses(plain, "nope") is UNKNOWN
    made = eval("lambda x, n: x * n")          # no file: no source
    assert uses(made, "n") is UNKNOWN


def test_the_argument_expression_of_the_jitted_call():
    from jxkernel.views.argument_uses import argument_expression
    line = "jax.jit(signed, static_argnums=1)(jnp.ones(2), jnp.array(True))"
    assert argument_expression(line, "flag", 1) == "jnp.array(True)"
    line = "jax.jit(lambda x, s: jnp.zeros(s) + x, static_argnums=1)(1.0, jnp.array([2, 3]))"
    assert argument_expression(line, "s", 1) == "jnp.array([2, 3])"     # not jnp.zeros's
    assert argument_expression("out = f(x, n=jnp.arange(3))", "n", None) == "jnp.arange(3)"
    assert argument_expression("f(x, y)", "n", 3) is None
    assert argument_expression("f(a, b) + g(c, d)", "n", 1) is None   # two calls: unknown


def test_the_python_value_of_an_array_expression():
    from jxkernel.transforms.jit.args import python_value_of
    from jxkernel.views.argument_uses import python_value
    assert python_value("jnp.array(True)", 0, python_value_of) == "True"
    assert python_value("np.asarray([[1, 2], [3, 4]])", 2, python_value_of) == "((1, 2), (3, 4))"
    assert python_value("flag", 0, python_value_of) == "flag.item()"
    assert python_value("a + b", 1, python_value_of) == "tuple((a + b).tolist())"
    assert python_value("m", 2, python_value_of) == "tuple(map(tuple, m.tolist()))"
    # each is hashable and equals the array's values
    import numpy as np
    m = np.arange(4).reshape(2, 2)
    assert hash(eval(python_value("m", 2, python_value_of))) is not None
    assert eval(python_value("m", 2, python_value_of)) == ((0, 1), (2, 3))


def test_docstring_examples():
    from doc_examples import check_docstring_examples
    check_docstring_examples("jxkernel.views.argument_uses")
