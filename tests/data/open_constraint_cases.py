"""Programs over 4x2 meshes mixing Auto and Explicit axes where a lowering may leave a
dimension open to XLA's propagation (`{?}` in Shardy's text): scatter (`.at[].set/add`),
gather, dynamic_update_slice, cumsum, sort, reshape, transpose, dot and sums, plain, under
auto_axes, after reshard or after with_sharding_constraint with P.UNCONSTRAINED dimensions,
each also with its result constrained to P('x') ("+outx"). Run alike by real JAX
(reference/make_open_constraint_reference.py records open_constraint_reference.json, 8 CPU
devices) and by jxkernel (tests/sharding/test_open_constraints.py, in a subprocess with as
many). `run(jax)` returns per program its value (small integers in float32: exact on every
CPU), NumPy's answer, and the Shardy shardings of the lowered text, or what it raised.

    run(jax)["EA/rep/set"]  ->  {"got": [[1.0, 1.0], ...], "want": [...], "shardings": [...]}

Mesh names: E is an Explicit axis, A an Auto one, in the order ('x', 'y'); "rep" and "x" the
argument's layout, P() or P('x').
"""
import re

import numpy as np

VALUE = np.arange(16, dtype=np.float32).reshape(8, 2)
ROWS = np.array([3, 1, 6])


def _set(x, i, v):
    x = x.copy()
    x[i] = v
    return x


def _add(x, i, v):
    x = x.copy()
    x[i] += v
    return x


def _programs(jax):
    """name -> (function of the argument (and its mesh), NumPy's answer of VALUE)."""
    jnp, lax = jax.numpy, jax.lax
    NS, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    U = P.UNCONSTRAINED
    reshard, auto_axes = jax.sharding.reshard, jax.sharding.auto_axes
    rows = lambda: jnp.array(ROWS)              # noqa: E731 (traced inside each function)
    nines = lambda: jnp.full((2, 2), 9.0)       # noqa: E731

    def auto(f, spec):
        return lambda a, m: auto_axes(f, out_sharding=spec)(a)

    def wsc(spec, f):
        return lambda a, m: f(lax.with_sharding_constraint(a, NS(m, spec)))
    return {
        "set": (lambda a, m: a.at[0].set(1.0, out_sharding=P('x')), lambda x: _set(x, 0, 1)),
        "set_plain": (lambda a, m: a.at[0].set(1.0), lambda x: _set(x, 0, 1)),
        "add": (lambda a, m: a.at[5].add(2.0, out_sharding=P('x')), lambda x: _add(x, 5, 2)),
        "set_many": (lambda a, m: a.at[rows()].set(-1.0), lambda x: _set(x, ROWS, -1)),
        "gather": (lambda a, m: a[rows()], lambda x: x[ROWS]),
        "gather_out": (lambda a, m: a.at[rows()].get(out_sharding=P()), lambda x: x[ROWS]),
        "dus": (lambda a, m: lax.dynamic_update_slice(a, nines(), (3, 0)),
                lambda x: _set(x, slice(3, 5), 9)),
        "cumsum0": (lambda a, m: jnp.cumsum(a, axis=0), lambda x: np.cumsum(x, 0)),
        "cumsum1": (lambda a, m: jnp.cumsum(a, axis=1), lambda x: np.cumsum(x, 1)),
        "sort0": (lambda a, m: jnp.sort(-a, axis=0), lambda x: np.sort(-x, 0)),
        "reshape16": (lambda a, m: a.reshape(16), lambda x: x.reshape(16)),
        "reshape44": (lambda a, m: a.reshape(4, 4), lambda x: x.reshape(4, 4)),
        "transpose": (lambda a, m: a.T, lambda x: x.T),
        "dot": (lambda a, m: a @ a.T, lambda x: x @ x.T),
        "sum0": (lambda a, m: a.sum(0), lambda x: x.sum(0)),
        "sum1": (lambda a, m: a.sum(1), lambda x: x.sum(1)),
        "reshard_set": (lambda a, m: reshard(a, P('x')).at[0].set(1.0),
                        lambda x: _set(x, 0, 1)),
        "reshard_none_set": (lambda a, m: reshard(a, P()).at[7].set(1.0),
                             lambda x: _set(x, 7, 1)),
        "auto_axes_set": (auto(lambda b: b.at[2].set(1.0), P('x')), lambda x: _set(x, 2, 1)),
        "auto_axes_cumsum": (auto(lambda b: jnp.cumsum(b, 0), P('x')),
                             lambda x: np.cumsum(x, 0)),
        "auto_axes_sort": (auto(lambda b: jnp.sort(-b, 0), P()), lambda x: np.sort(-x, 0)),
        "auto_axes_gather": (auto(lambda b: b[rows()], P()), lambda x: x[ROWS]),
        "auto_axes_dus": (auto(lambda b: lax.dynamic_update_slice(b, nines(), (3, 0)), P('x')),
                          lambda x: _set(x, slice(3, 5), 9)),
        "auto_axes_reshape": (auto(lambda b: b.reshape(4, 4), P('x')),
                              lambda x: x.reshape(4, 4)),
        "auto_axes_dot": (auto(lambda b: b @ b.T, P('x')), lambda x: x @ x.T),
        "wsc_U_none_set": (wsc(P(U, None), lambda b: b.at[0].set(1.0)),
                           lambda x: _set(x, 0, 1)),
        "wsc_UU_set": (wsc(P(U, U), lambda b: b.at[0].set(1.0)), lambda x: _set(x, 0, 1)),
        "wsc_UU_add": (wsc(P(U, U), lambda b: b.at[3].add(1.0)), lambda x: _add(x, 3, 1)),
        "wsc_UU_cumsum": (wsc(P(U, U), lambda b: jnp.cumsum(b, 0)), lambda x: np.cumsum(x, 0)),
        "wsc_UU_sort": (wsc(P(U, U), lambda b: jnp.sort(-b, 0)), lambda x: np.sort(-x, 0)),
        "wsc_UU_gather": (wsc(P(U, U), lambda b: b[rows()]), lambda x: x[ROWS]),
        "wsc_UU_dus": (wsc(P(U, U), lambda b: lax.dynamic_update_slice(b, nines(), (3, 0))),
                       lambda x: _set(x, slice(3, 5), 9)),
        "wsc_UU_reshape": (wsc(P(U, U), lambda b: b.reshape(16)), lambda x: x.reshape(16)),
        "wsc_UU_dot": (wsc(P(U, U), lambda b: b @ VALUE.T), lambda x: x @ x.T),
    }


def shardings(text):
    """The module's Shardy shardings (arguments', results', constraints'), each without the
    value's SSA name, sorted: what the partitioner is told, whatever the ops' numbering."""
    found = re.findall(r"sdy\.sharding_constraint %\S+ (<[^:]*>)|sdy\.sharding = "
                       r"#sdy\.sharding(<[^>]*>)", text)
    return sorted(c or "arg/result " + a for c, a in found)


def _out_x(jax, f, mesh, first_explicit):
    """f with its (8, 2) result laid out P('x'): reshard where 'x' is Explicit, else a
    constraint; None for a result of another shape."""
    P = jax.sharding.PartitionSpec

    def g(a):
        r = f(a, mesh)
        if r.shape != (8, 2):
            raise LookupError("not (8, 2)")
        if first_explicit:
            return jax.sharding.reshard(r, P('x'))
        return jax.lax.with_sharding_constraint(r, jax.sharding.NamedSharding(mesh, P('x')))
    return g


def run(jax):
    AxisType, NS, P = jax.sharding.AxisType, jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    E, A = AxisType.Explicit, AxisType.Auto
    out = {}
    for mesh_name, types in {"EA": (E, A), "AE": (A, E), "EE": (E, E), "AA": (A, A)}.items():
        mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=types)
        for layout, spec in (("rep", P()), ("x", P('x'))):
            with jax.set_mesh(mesh):
                a = jax.device_put(VALUE, NS(mesh, spec))
                for name, (f, want) in _programs(jax).items():
                    if mesh_name == "EE" and name.startswith("wsc"):
                        continue        # (P.UNCONSTRAINED needs an Auto axis)
                    for suffix, g in (("", lambda a, f=f: f(a, mesh)),
                                      ("+outx", _out_x(jax, f, mesh, types[0] is E))):
                        key = f"{mesh_name}/{layout}/{name}{suffix}"
                        try:
                            jf = jax.jit(g)
                            got = np.asarray(jf(a)).tolist()
                            out[key] = {"got": got, "want": want(VALUE).tolist(),
                                        "shardings": shardings(jf.lower(a).as_text())}
                        except LookupError:
                            pass
                        except Exception as e:      # noqa: BLE001 (recorded, both sides)
                            out[key] = {"raised": type(e).__name__,
                                        "message": str(e).split("\n")[0][:120]}
    return out
