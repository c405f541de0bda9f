"""The jaxpr stepper (jxkernel/views/stepper.py; its buttons in notebook/widgets/): equation
by equation values against NumPy, the first NaN and its line, breakpoints, statistics, the
three views, and in a real InteractiveShell with cell lines."""
import html
import inspect
import json
import os
import re

import numpy as np
import pytest
from doc_examples import check_docstring_examples
from fresh_process import run_code
from numerics import ELEMENTWISE, assert_allclose_ulp

import jxkernel
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.stepper import MIME, stats_of, step
from ipython_shell import ran_ok, shell_fixture

HERE = os.path.basename(__file__)


def line_of(f, text: str) -> int:
    """The file line of `f`'s source that holds `text`."""
    lines, start = inspect.getsourcelines(getattr(f, "__wrapped__", f))
    return start + next(i for i, line in enumerate(lines) if text in line)


def ints(x, y):
    a = x * 3
    b = a - y
    return jnp.maximum(b, 0).sum()


def nan_maker(x):
    y = jnp.log(x - 3)
    return jnp.sqrt(y) * 2


X_INT = np.array([1, -2, 5, 7], np.int32)
Y_INT = np.array([4, 0, 20, 1], np.int32)
X_NAN = np.array([1, 4, 5, 6], np.float32)


# ------------------------------------------------------------------ values
def test_integer_program_steps_through_numpys_intermediate_values_exactly():
    s = step(ints, X_INT, Y_INT)
    assert [str(e.primitive) for e in s.equations] == ["mul", "sub", "max", "reduce_sum"]
    assert s.position == 0 and not s.done and str(s.current.primitive) == "mul"
    expected = {"c": X_INT * 3, "d": X_INT * 3 - Y_INT}
    expected["e"] = np.maximum(expected["d"], 0)
    expected["f"] = expected["e"].sum(dtype=np.int32)
    for i, name in enumerate("cdef"):
        s.next()
        assert s.position == i + 1
        np.testing.assert_array_equal(np.asarray(s.values[name]), expected[name])
        assert np.asarray(s.values[name]).dtype == np.int32
    assert s.done and s.current is None
    assert list(s.values) == ["a", "b", "c", "d", "e", "f"]
    assert int(s.values["f"]) == int(ints(X_INT, Y_INT))


def test_float_steps_match_numpy_within_elementwise_ulps():
    x = np.array([0.1, 0.7, -1.3, 2.9], np.float32)
    s = step(lambda x: jnp.exp(jnp.sin(x) * 2.0), x).run()
    assert [str(e.primitive) for e in s.equations] == ["sin", "mul", "exp"]
    v = {k: np.asarray(a) for k, a in s.values.items()}
    # each step against NumPy on the stepper's own previous value: no error carried along
    assert_allclose_ulp(v["b"], np.sin(x), ELEMENTWISE)
    np.testing.assert_array_equal(v["c"], v["b"] * np.float32(2))          # exact: times 2
    assert_allclose_ulp(v["d"], np.exp(v["c"]), ELEMENTWISE)


def test_nested_jaxprs_are_one_step_each_with_correct_outputs():
    def nested(x):
        y = jxkernel.jit(lambda a: a * 2)(x)
        z = lax.cond(True, lambda a: a + 1, lambda a: a - 1, y)
        return lax.scan(lambda c, a: (c + a, c), 0, z)
    s = step(nested, X_INT)
    assert [str(e.primitive) for e in s.equations] == ["jit", "cond", "scan"]
    s.next()
    np.testing.assert_array_equal(np.asarray(s.values["b"]), X_INT * 2)
    s.next(2)
    carry, ys = (np.asarray(s.values[n]) for n in s.to_json()["equations"][2]["outvars"])
    z = X_INT * 2 + 1
    assert int(carry) == int(z.sum())
    np.testing.assert_array_equal(ys, np.concatenate([[0], np.cumsum(z)[:-1]]))


def test_a_jitted_function_steps_through_its_body_with_statics():
    f = jxkernel.jit(lambda x, n: x * n + n, static_argnums=1)
    s = step(f, X_INT, 3).run()
    assert [str(e.primitive) for e in s.equations] == ["mul", "add"]
    np.testing.assert_array_equal(np.asarray(s.values["c"]), X_INT * 3 + 3)
    assert s.summary("a").origin == "input 0"


# ------------------------------------------------------------------ NaN
def test_first_nan_stops_at_the_log_and_names_its_line():
    s = step(nan_maker, X_NAN)
    assert [str(e.primitive) for e in s.equations] == ["sub", "log", "sqrt", "mul"]
    found = s.first_nan()
    assert (found.index, found.primitive, found.vars) == (1, "log", (("c", 1),))
    assert found.source == f"{HERE}:{line_of(nan_maker, 'log')}"
    assert found.source_line == "y = jnp.log(x - 3)"
    assert s.position == 2                       # the log ran; the sqrt did not
    assert str(found) == (f"first NaN: equation 1 (log) made c (1 NaN) at "
                          f"{HERE}:{line_of(nan_maker, 'log')}: y = jnp.log(x - 3)")
    s.run()                                     # later NaNs do not move the answer
    assert s.first_nan().index == 1 and s.done


def test_first_nan_is_none_for_a_clean_program_and_names_a_nan_input():
    s = step(nan_maker, np.array([4, 5, 6, 7], np.float32))
    assert s.first_nan() is None and s.done
    bad = step(ints, np.array([1, 2, 3, 4], np.float32), X_NAN * np.nan)
    found = bad.first_nan()
    assert (found.index, found.input, found.vars) == (None, "args[1]", (("b", 4),))
    assert bad.position == 0
    assert str(found) == "NaN in the input args[1]: b (4 NaN)"


@jxkernel.jit
def helper(v):
    w = v * 2
    return jnp.log(w - 6)


def calls_helper(x):
    y = helper(x + 1.0)
    return jnp.sqrt(y)


def test_first_nan_descends_into_a_jitted_helper_to_the_line_that_made_it():
    s = step(calls_helper, X_NAN)
    found = s.first_nan()
    assert (found.index, found.primitive, found.source) == (1, "jit", f"{HERE}:{line_of(calls_helper, 'y = helper(')}")
    inner = found.inside
    # named as print(s.jaxpr) names the body nested in place (`c = log e`), the view the
    # finding is shown under; its own print, alone, says `d` (it said so)
    assert (inner.index, inner.primitive, inner.vars) == (2, "log", (("c", 1),))
    assert found.innermost is inner and inner.source == f"{HERE}:{line_of(helper, 'log')}"
    assert str(found).splitlines()[1] == (f"  inside jit: first NaN: equation 2 (log) made c (1 NaN) "
                                          f"at {HERE}:{line_of(helper, 'log')}: return jnp.log(w - 6)")
    assert s.to_json()["nan"]["inside"]["source_line"] == "return jnp.log(w - 6)"
    assert s.position == 2


def test_a_nan_inside_a_scans_iteration_is_named_as_the_printed_jaxpr_names_it():
    def f(x):
        return lax.scan(lambda c, a: (c + jnp.log(a), c), 0.0, x)
    s = step(f, np.array([1.0, -1.0, 2.0], np.float32))
    inner = s.first_nan().inside
    (made,) = re.findall(r"(\w+):f32\[\] = log", str(s.jaxpr))      # the body, in place
    assert inner.primitive == "log" and inner.vars == ((made, 1),)
    assert made != "c"      # (the body's own print names it so: what it said before)


def test_step_into_a_call_runs_its_body_on_the_current_operands():
    s = step(calls_helper, X_NAN).next()
    body = s.step_into()
    assert s.position == 1 and body.name == "calls_helper/1 jit"
    assert [str(e.primitive) for e in body.equations] == ["mul", "sub", "log"]
    assert body.summary("a").origin == "calls_helper's b"
    body.next(2)
    np.testing.assert_array_equal(np.asarray(body.values["c"]), (X_NAN + 1) * 2 - 6)   # exact
    with pytest.raises(ValueError, match=r"step_into: equation 0 \(sub\) calls no function "
                                         r"body; only custom_jvp_call, custom_vjp_call, jit, remat2 can be entered"):
        step(nan_maker, X_NAN).step_into()


# ------------------------------------------------------------------ breakpoints
def test_break_on_primitive_stops_before_each_such_equation():
    s = step(nan_maker, X_NAN).break_on(primitive="sqrt")
    assert s.run().position == 2 and str(s.current.primitive) == "sqrt"
    assert "c" in s.values and "d" not in s.values
    assert s.run().done                          # from a breakpoint, run goes on to the end


def test_break_on_line_stops_at_the_lines_first_equation():
    s = step(nan_maker, X_NAN).break_on(line=line_of(nan_maker, 'sqrt'))
    assert s.run().position == 2                 # sqrt and mul both come from that line:
    assert s.run().done                          # it stops once, where the line starts
    s.restart().clear_breakpoints().break_on(line=f"{HERE}:{line_of(nan_maker, 'log')}")
    assert s.position == 0 and list(s.values) == ["a"]
    assert s.run().done                          # line 1's first equation is the first: passed


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(primitive="lgo"), ValueError,
     "break_on: primitive='lgo' is not a primitive's name (did you mean 'log'"),
    (dict(primitive="cos"), ValueError,
     "break_on: nan_maker's jaxpr has no 'cos' equation, so it would never stop; "
     "its primitives are: sub, log, sqrt, mul"),
    (dict(primitive=3), TypeError, "break_on: primitive=3 (int) must be a primitive's name"),
    (dict(line=1), ValueError, "break_on: line=1 made none of nan_maker's equations"),
    (dict(line=True), TypeError, "break_on: line=True (bool) must be a line number"),
    (dict(), ValueError, "break_on: give primitive="),
])
def test_bad_breakpoints_are_refused_naming_the_argument(kwargs, error, message):
    s = step(nan_maker, X_NAN)
    with pytest.raises(error) as info:
        s.break_on(**kwargs)
    assert str(info.value).startswith(message), str(info.value)
    assert s.to_json()["breakpoints"] == {"primitives": [], "lines": []}


def test_a_primitive_whose_module_is_not_loaded_yet_is_still_a_primitives_name():
    # conv_general_dilated's module loads on first use: the stepper must not call it unknown
    code = ("import sys, jxkernel.numpy as jnp\n"
            "from jxkernel.stepper import step\n"
            "assert 'jxkernel.lax.convolution' not in sys.modules\n"
            "try:\n"
            "    step(lambda x: jnp.sin(x), jnp.ones(2)).break_on(primitive='conv_general_dilated')\n"
            "except ValueError as e:\n"
            "    print(e)\n")
    out = run_code(code).stdout
    assert "has no 'conv_general_dilated' equation, so it would never stop" in out, out


def test_line_error_lists_the_lines_that_made_equations():
    with pytest.raises(ValueError) as info:
        step(nan_maker, X_NAN).break_on(line=1)
    assert str(info.value).endswith(
        f"lines with equations: {HERE}:{line_of(nan_maker, 'log')}, {HERE}:{line_of(nan_maker, 'sqrt')}")


def test_stepping_past_the_end_and_bad_counts_are_refused():
    s = step(nan_maker, X_NAN).next(3)
    with pytest.raises(IndexError, match=r"next\(n=2\): only 1 of nan_maker's 4 equations are "
                                         r"left to run \(position 3\); call \.restart\(\)"):
        s.next(2)
    assert s.position == 3                       # nothing ran
    s.next()
    with pytest.raises(IndexError, match=r"run\(\): only 0 of nan_maker's 4 equations"):
        s.run()
    with pytest.raises(ValueError, match=r"next: n=0 must be a positive int"):
        s.restart().next(0)
    with pytest.raises(TypeError, match=r"step: f=3 \(int\) is not callable"):
        step(3, X_NAN)


def test_summary_of_unknown_or_future_variables_says_which():
    s = step(nan_maker, X_NAN)
    with pytest.raises(KeyError, match=r"variable 'c' is not computed yet \(position 0\)"):
        s.summary("c")
    with pytest.raises(KeyError, match=r"nan_maker's jaxpr has no variable 'zz'"):
        s.summary("zz")


# ------------------------------------------------------------------ statistics
def test_stats_are_exact_on_integer_valued_data():
    data = np.array([1, 2, 2, 7, np.nan, np.inf, -np.inf, 3], np.float32)
    st = step(lambda x: x + 0.0, data).run().summary("a")
    assert (st.min, st.max, st.mean, st.nan, st.inf, st.size) == (1.0, 7.0, 3.0, 1, 2, 8)
    assert st.hist == (1, 2, 1, 0, 0, 0, 0, 1) and st.hist_range == (1.0, 7.0)
    assert st.sparkline() == "▄█▄    ▄"
    ints_st = stats_of("k", np.array([-3, 0, 4, 4], np.int32), "i32[4]", "args[0]")
    assert (ints_st.min, ints_st.max, ints_st.mean, ints_st.nan, ints_st.inf) == (-3, 4, 1.25, 0, 0)
    assert isinstance(ints_st.min, int)
    assert ints_st.hist == (1, 0, 0, 1, 0, 0, 0, 2)     # bins of 7/8 from -3: 0 in the 4th
    assert str(ints_st) == "k:i32[4] (args[0])  min -3  max 4  mean 1.25  nan 0  inf 0  |▄  ▄   █|"


def test_stats_of_all_nan_bool_complex_and_scalar_values():
    nan = stats_of("n", np.full(3, np.nan, np.float32), "f32[3]", "x")
    assert (nan.min, nan.mean, nan.nan, nan.hist) == (None, None, 3, ())
    assert nan.text() == "min -  max -  mean -  nan 3  inf 0"
    flags = stats_of("b", np.array([True, False, True, True]), "bool[4]", "x")
    assert (flags.min, flags.max, flags.mean) == (0, 1, 0.75)
    z = stats_of("z", np.array([3 + 4j, 0, np.nan], np.complex64), "c64[3]", "x")
    assert (z.min, z.max, z.nan, z.magnitude) == (0.0, 5.0, 1, True)
    assert z.text().startswith("|x| min 0  max 5  mean 2.5")
    assert stats_of("s", np.float32(2.5), "f32[]", "x").text() == \
        "min 2.5  max 2.5  mean 2.5  nan 0  inf 0"          # no sparkline for a scalar
    big = stats_of("u", np.array([2**64 - 1, 0, 5], np.uint64), "u64[3]", "x")
    assert (big.min, big.max) == (0, 2**64 - 1)             # exact: no trip through int64
    weak = step(lambda x, y: x * y, X_NAN, 2.0).summary("b")  # a Python float, typed as traced
    assert (weak.dtype, weak.aval, weak.min) == ("float32", "f32[]", 2.0)
    with pytest.raises(IndexError, match=r"run\(\): <lambda>'s jaxpr has no equations to run"):
        step(lambda x: x, X_NAN).run()


# ------------------------------------------------------------------ views
def test_text_view_marks_the_next_equation_breakpoints_and_the_nan():
    s = step(nan_maker, X_NAN).break_on(primitive="mul")
    s.first_nan()
    l1, l2 = line_of(nan_maker, 'log'), line_of(nan_maker, 'sqrt')
    assert s.text() == "\n".join([
        f"step(nan_maker): 2 of 4 equations run · next: 2 sqrt ({HERE}:{l2}) · breakpoints: mul",
        "   { lambda ; a:f32[4]. let",
        f"       b:f32[4] = sub a 3.0:f32[]  # {HERE}:{l1}",
        f"!      c:f32[4] = log b  # {HERE}:{l1}",
        f"▶      d:f32[4] = sqrt c  # {HERE}:{l2}",
        f" ●     e:f32[4] = mul d 2.0:f32[]  # {HERE}:{l2}",
        "     in (e,) }",
        f"first NaN: equation 1 (log) made c (1 NaN) at {HERE}:{l1}: y = jnp.log(x - 3)",
        "variables:",
        "  a:f32[4]  args[0]      min 1  max 6  mean 4  nan 0  inf 0  |█   █ ██|",
        "  b:f32[4]  eqn 0 (sub)  min -2  max 3  mean 1  nan 0  inf 0  |█   █ ██|",
        f"  c:f32[4]  eqn 1 (log)  {s.summary('c').text()}",
    ])
    assert s.summary("c").text().endswith("nan 1  inf 0  |█    █ █|")
    assert repr(s) == s.text()


def test_json_bundle_fields():
    s = step(nan_maker, X_NAN).break_on(line=line_of(nan_maker, 'sqrt'))
    s.first_nan()
    got = s._repr_mimebundle_()[MIME]
    assert json.loads(json.dumps(got, allow_nan=False)) == got
    assert list(got)[0] == "version" and got["version"] == 1
    assert (got["name"], got["position"], got["n_equations"], got["done"]) == ("nan_maker", 2, 4, False)
    assert (got["head"], got["tail"]) == ("{ lambda ; a:f32[4]. let", "in (e,) }")
    log = got["equations"][1]
    assert log == {"index": 1, "primitive": "log", "text": "c:f32[4] = log b",
                   "source": f"{HERE}:{line_of(nan_maker, 'log')}", "source_line": "y = jnp.log(x - 3)",
                   "line": line_of(nan_maker, 'log'), "outvars": ["c"], "ran": True,
                   "current": False, "breakpoint": False}
    assert [e["breakpoint"] for e in got["equations"]] == [False, False, True, False]
    assert got["equations"][2]["current"] and not got["equations"][2]["ran"]
    assert got["breakpoints"] == {"primitives": [], "lines": [line_of(nan_maker, 'sqrt')]}
    c = got["variables"][2]
    assert (c["name"], c["origin"], c["defined_by"]) == ("c", "eqn 1 (log)", 1)
    assert got["variables"][0]["defined_by"] is None
    assert (c["nan"], c["min"], c["hist"]) == (1, 0.0, [1, 0, 0, 0, 0, 1, 0, 1])
    assert got["nan"] == {"index": 1, "primitive": "log", "vars": [{"name": "c", "nan": 1}],
                          "source": f"{HERE}:{line_of(nan_maker, 'log')}",
                          "source_line": "y = jnp.log(x - 3)", "input": None, "inside": None,
                          "step": None}


def test_html_view_escapes_names_sources_and_paths():
    def weird(x, **kw):
        return x < kw["<b>w</b>"]          # a '<' in the source line, a tag in a path
    weird.__name__ = "<i>weird</i>"
    s = step(weird, X_INT, **{"<b>w</b>": X_INT}).run()
    page = s.html()
    assert "<b>" not in page and "<i>" not in page and "x < kw" not in page
    assert html.escape("<b>w</b>") in page and "&lt;i&gt;weird&lt;/i&gt;" in page
    assert html.escape('return x < kw["<b>w</b>"]', quote=True) in page
    assert "<script" not in page
    assert s.summary("b").origin == "<b>w</b>"


def test_docstring_examples():
    check_docstring_examples("jxkernel.stepper")


def test_the_stepper_needs_no_ipython():
    code = ("import sys, numpy as np, jxkernel.stepper as st\n"
            "s = st.step(lambda x: x * 2, np.arange(3)).run()\n"
            "assert int(s.values['b'][2]) == 4\n"
            "print(sorted(m for m in ('IPython', 'ipywidgets', 'anywidget', 'plotly') if m in sys.modules))")
    out = run_code(code)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ in IPython
shell = shell_fixture("import numpy as np\nimport jxkernel.numpy as jnp\n"
                      "from jxkernel.notebook import step")


def test_in_a_cell_lines_are_named_as_the_prompt_and_the_views_are_formatted(shell):
    cell = ran_ok(shell, "def g(x):\n    y = jnp.log(x - 3)\n    return jnp.sqrt(y)\n",
                  store_history=False).count
    found = ran_ok(shell, "s = step(g, np.array([1., 4, 5, 6], np.float32))\n"
                          f"s.break_on(line='In[{cell}]:3')\ns.first_nan()",
                   store_history=False).result
    assert (found.index, found.source, found.source_line) == (1, f"In[{cell}]:2", "y = jnp.log(x - 3)")
    s = shell.user_ns["s"]
    data, _ = shell.display_formatter.format(s)
    assert {"text/plain", "text/html", MIME} <= set(data)
    assert data["text/plain"].splitlines()[0] == \
        f"step(g): 2 of 3 equations run · next: 2 sqrt (In[{cell}]:3) · breakpoints: line In[{cell}]:3"
    assert f"▶●     d:f32[4] = sqrt c  # In[{cell}]:3" in data["text/plain"]
    assert data[MIME]["equations"][2]["source"] == f"In[{cell}]:3"
    assert f"In[{cell}]:2" in data["text/html"]
    assert inspect.signature(shell.user_ns["step"]).parameters.keys() == {"f", "args", "kwargs"}


def test_bad_line_in_a_cell_names_the_cell_lines(shell):
    cell = ran_ok(shell, "def h(x):\n    return x * 2\n", store_history=False).count
    result = shell.run_cell("step(h, np.arange(3)).break_on(line=7)")
    assert isinstance(result.error_in_exec, ValueError)
    assert str(result.error_in_exec).endswith(f"lines with equations: In[{cell}]:2")


def test_controls_buttons_move_the_stepper_and_say_when_it_cannot(shell):
    from jxkernel.notebook.stepper import controls
    s = step(nan_maker, X_NAN)
    c = controls(s)
    c.next_button.click()
    assert s.position == 1 and "1 of 4 equations run" in c.view.value
    c.nan_button.click()
    assert s.position == 2 and "equation 1 (log) made c (1 NaN)" in c.message.value
    c.run_button.click()
    assert s.done and c.message.value == ""
    c.next_button.click()                        # past the end: a message, not an exception
    assert "only 0 of nan_maker&#x27;s 4 equations are left" in c.message.value
    c.restart_button.click()
    assert s.position == 0 and c.message.value == "" and s.to_json()["nan"] is None
    assert "!" not in s.text().split("variables:")[0]      # the old NaN mark is gone
    data, _ = c._repr_mimebundle_()
    assert data["text/plain"] == s.text() and data[MIME] == s.to_json()
    with pytest.raises(TypeError, match=r"StepperControls: stepper=3 \(int\) must be a Stepper"):
        controls(3)


def test_stats_of_ml_dtypes_floats_and_narrow_ints():
    """ml_dtypes' types are NumPy kind 'V': only bfloat16, float8_e4m3fn and float8_e5m2 had
    statistics; float8_e4m3fnuz, float4_e2m1fn and int4 were told as opaque data."""
    from jxkernel.core import dtypes
    for d in (dtypes.bfloat16, dtypes.float8_e4m3fnuz, dtypes.float4_e2m1fn):
        st = stats_of("f", np.array([1.0, 3.0, 2.0], d), "f[3]", "x")
        assert (st.numeric, st.min, st.max, st.mean, st.nan) == (True, 1.0, 3.0, 2.0, 0), d
    nan = stats_of("n", np.array([1.0, np.nan], dtypes.float8_e4m3fnuz), "f8[2]", "x")
    assert (nan.nan, nan.min, nan.max) == (1, 1.0, 1.0)
    for d in (dtypes.int4, dtypes.uint2):
        st = stats_of("k", np.array([0, 3, 1], d), "i4[3]", "x")
        assert (st.numeric, st.min, st.max, st.nan) == (True, 0, 3, 0), d
        assert isinstance(st.min, int)
