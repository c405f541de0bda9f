"""Sharding-in-types gaps against JAX 0.10.2, run alike by real JAX
(reference/make_mesh_types_reference.py records mesh_types_reference.json, 8 CPU devices) and by
jxkernel (tests/sharding/test_mesh_types.py, in a subprocess with as many): `run(jax)` returns
plain JSON data, per program its result's type (`jax.typeof`), spec and value, or what it
raised.

    run(jax)["ctx_given_in_shardings"]  ->  [{"typeof": "float32[2@y]", "spec": "P('y',)", ...}]

ctx_: under set_mesh over Explicit axes, a jit's results JAX types over the context mesh
(n-ary elementwise ops, broadcasts of untyped values) are replicated; the others (a reduction
or transpose of an untyped argument) are laid out as XLA's propagation chooses, and typed so.
vmap_: vmap of a jit, of reshard and out_sharding=, and of loops keeps the vmapped mesh axes.
mixed_: a mesh of Explicit and Auto axes: types name the Explicit ones, layouts keep the Auto
ones XLA's propagation gives, and JAX's errors. cumulative_: jnp.cumsum and the like without
an axis refuse a split value, with JAX's error. onedevice_: a one-device array mixed with
split values under set_mesh. reshardargs_: reshard's out_shardings given as another tree than
its arguments', or holding None, and JAX's words for each.

Values are small integers in float32 (exact on both sides).
"""
import numpy as np
from recorded_errors import SOURCE_NOTE, TRACEBACK_NOTE


def _cut(text):
    return text.split(SOURCE_NOTE)[0].split(TRACEBACK_NOTE)[0].splitlines()[0]


def _describe(jax, outs):
    return [{"typeof": str(jax.typeof(o)), "spec": repr(o.sharding.spec),
             "value": np.asarray(o).tolist()} for o in jax.tree.leaves(outs)]


def _context_programs(jax, explicit):
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    NS = jax.sharding.NamedSharding
    value = np.arange(16, dtype=np.float32).reshape(8, 2)
    split = NS(explicit, P("x", "y"))

    def given(f):
        return lambda: jax.jit(f, in_shardings=split)(value)
    return {
        "ctx_given_in_shardings": given(lambda a: (a * 2, jnp.zeros(3), a.sum(0), a.T, a[None],
                                                   a.sum(), a.sum(1), (-a).T.sum(0))),
        "ctx_given_unary": given(lambda a: (-a, jnp.abs(a).sum(0), a.reshape(16))),
        "ctx_given_binary": given(lambda a: (a + a, a @ jnp.ones((2, 3)), jnp.where(a > 2, a, 0.),
                                             jnp.broadcast_to(a, (3, 8, 2)))),
        "ctx_numpy_argument": lambda: jax.jit(lambda v: (v.sum(0), v * 2, v.T))(value),
        "ctx_device_put_argument": lambda: jax.jit(lambda v: (v.sum(1), jnp.floor(v)))(
            jax.device_put(value)),
        "ctx_clamp_of_untyped": given(lambda a: jax.lax.clamp(0., a, 5.)),
    }


def _vmap_programs(jax, explicit):
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    reshard = jax.sharding.reshard
    value = np.arange(16, dtype=np.float32).reshape(8, 2)

    def rows():                                 # (under set_mesh) f32[8@x,2]
        return reshard(value, P("x", None))

    def vmapped(f, **kw):
        return lambda: jax.vmap(f, **kw)(rows())
    cy = lambda: jnp.ones(2, out_sharding=P("y"))     # noqa: E731
    scalar = lambda: jnp.zeros((), out_sharding=P())  # noqa: E731
    return {
        "vmap_jit_out_sharding": vmapped(jax.jit(lambda r: jnp.zeros(2, out_sharding=P("y")) + r)),
        "vmap_jit_reshard": vmapped(jax.jit(lambda r: reshard(r, P("y")))),
        "vmap_reshard": vmapped(lambda r: reshard(r, P("y"))),
        "vmap_jit_jit_reshard": vmapped(jax.jit(jax.jit(lambda r: reshard(r, P("y"))))),
        "vmap_jit_reshard_in_axes_1": lambda: jax.vmap(jax.jit(lambda r: reshard(r, P("y"))),
                                                       in_axes=1)(reshard(value.T, P(None, "x"))),
        "vmap_jit_reshard_out_axes_1": vmapped(jax.jit(lambda r: reshard(r, P("y"))), out_axes=1),
        "vmap_dot_out_sharding": vmapped(lambda r: jnp.dot(r, jnp.ones((2, 4)),
                                                           out_sharding=P("y"))),
        "vmap_einsum_out_sharding": vmapped(lambda r: jnp.einsum(
            "i,ij->j", r, jnp.ones((2, 4)), out_sharding=P("y"))),
        "vmap_matmul_out_sharding": vmapped(lambda r: jnp.matmul(r, jnp.ones((2, 4)),
                                                                 out_sharding=P("y"))),
        "vmap_full_out_sharding": vmapped(lambda r: r + jnp.full((2,), 3.0, out_sharding=P("y"))),
        "vmap_scan_typed_init": vmapped(lambda r: lax.scan(lambda c, v: (c + v, v * 2),
                                                           scalar(), r)),
        "vmap_scan_vector_init": vmapped(lambda r: lax.scan(lambda c, v: (c + v, v), cy(),
                                                            jnp.stack([r, r]))[0]),
        "vmap_while_typed_init": vmapped(lambda r: lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + r), (0, cy()))[1]),
        "vmap_fori_typed_init": vmapped(lambda r: lax.fori_loop(0, 3, lambda i, c: c + r, cy())),
        "vmap_clamp": vmapped(lambda r: lax.clamp(cy(), r, cy() + 3)),
        "vmap_cumsum_of_split_without_axis": vmapped(lambda r: r + jnp.cumsum(cy())),
    }


def _cumulative_programs(jax):
    """jnp's cumulative reductions without an axis flatten: JAX refuses a split operand."""
    jnp, P = jax.numpy, jax.sharding.PartitionSpec
    reshard = jax.sharding.reshard
    x = lambda: reshard(np.arange(8, dtype=np.float32), P("x"))         # noqa: E731
    return {
        "cumulative_cumsum": lambda: jnp.cumsum(x()),
        "cumulative_cumprod": lambda: jnp.cumprod(x()),
        "cumulative_nancumsum": lambda: jnp.nancumsum(x()),
        "cumulative_scalar": lambda: jnp.cumsum(x().sum()),
        "cumulative_2d": lambda: jnp.cumsum(reshard(np.ones((8, 2), np.float32), P(None, "y"))),
        "cumulative_replicated": lambda: jnp.cumsum(reshard(np.ones((8, 2), np.float32), P())),
    }


def _one_device_programs(jax, outside):
    """A one-device array (`outside`, made before set_mesh) mixed with split values under
    set_mesh: typed replicated over the context mesh, as JAX types it (and refused where
    JAX refuses: a scan carry that comes back split, a dynamic_update_slice into a split
    operand, whose message names the mesh's axis types)."""
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    split = lambda: jax.device_put(jnp.arange(8.0), P("x"))          # noqa: E731
    into = lambda o, u: lax.dynamic_update_slice(o, u, (0,))         # noqa: E731

    def adding_split(carry):        # a scan whose carry comes back split
        s = split()
        return lax.scan(lambda c, _: (c + s, None), carry, None, length=2)[0]
    return {
        "onedevice_add": lambda: (outside() + split(), jax.jit(jnp.add)(outside(), split())),
        "onedevice_scan_carry": lambda: adding_split(outside()),
        "onedevice_scan_literal_carry": lambda: adding_split(jnp.zeros(8)),
        "onedevice_update_slice": lambda: into(split(), outside()[:2]),
        "onedevice_update_slice_jit": lambda: jax.jit(into)(split(), outside()[:2]),
    }


def _reshard_argument_programs(jax, explicit):
    """reshard's out_shardings against its arguments' tree: a prefix of it (one sharding for
    a tuple, a dict's), and JAX's errors where it is none (a tuple of another length, a list
    for a tuple, other keys, one level too few) or holds a None. Run outside set_mesh, as a
    NamedSharding needs no mesh there; the specs' programs under it."""
    P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    reshard = jax.sharding.reshard
    x = lambda: jax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4),  # noqa: E731
                               NS(explicit, P("x")))
    S = lambda *axes: NS(explicit, P(*axes))       # noqa: E731
    outside = {
        "reshardargs_dict_prefix": lambda: reshard({"a": x(), "b": x()}, {"a": S("y"), "b": S()}),
        "reshardargs_one_for_a_tuple": lambda: reshard((x(), x()), S("y")),
        "reshardargs_nested_prefix": lambda: reshard((x(), [x(), x()]), (S(), S("y"))),
        "reshardargs_lists": lambda: reshard([x(), x()], [S("y"), S()]),
        "reshardargs_dict_other_keys": lambda: reshard({"a": x(), "b": x()},
                                                       {"a": S("y"), "c": S()}),
        "reshardargs_tuple_of_three_for_two": lambda: reshard((x(), x()), (S(),) * 3),
        "reshardargs_tuple_for_one": lambda: reshard(x(), (S("y"),)),
        "reshardargs_tuple_of_two_for_one": lambda: reshard(x(), (S("y"), S())),
        "reshardargs_list_for_a_tuple": lambda: reshard((x(), x()), [S("y"), S()]),
        "reshardargs_nested_too_short": lambda: reshard((x(), [x(), x()]), (S(), [S("y")])),
        "reshardargs_none": lambda: reshard(x(), None),
        "reshardargs_none_in_a_tuple": lambda: reshard((x(), x()), (S(), None)),
    }
    under = {
        "reshardargs_specs_under_set_mesh": lambda: reshard((x(), x()), (P("y"), P())),
        "reshardargs_specs_too_few_under_set_mesh": lambda: reshard((x(), x()), (P("y"),)),
        "reshardargs_in_jit_too_many": lambda: jax.jit(
            lambda a, b: reshard((a, b), (P("y"),) * 3))(x(), x()),
    }
    return outside, under


def _mixed_programs(jax, mixed):
    jnp, lax, P = jax.numpy, jax.lax, jax.sharding.PartitionSpec
    NS = jax.sharding.NamedSharding
    value = np.arange(16, dtype=np.float32).reshape(8, 2)

    def split():
        return jax.device_put(value, NS(mixed, P("x", "y")))
    outside = {
        "mixed_device_put": split,
        "mixed_mul_outside_set_mesh": lambda: split() * 2,
        "mixed_sum_outside_set_mesh": lambda: split().sum(0),
        "mixed_jit_outside_set_mesh": lambda: jax.jit(lambda a: a * 2)(split()),
        "mixed_jit_in_shardings": lambda: jax.jit(lambda a: a * 2, in_shardings=NS(
            mixed, P("x", "y")))(value),
        "mixed_jit_out_shardings": lambda: jax.jit(lambda a: a * 2, out_shardings=NS(
            mixed, P("x", "y")))(value),
    }
    under = {
        "mixed_reshard_x": lambda: jax.sharding.reshard(value, P("x")),
        "mixed_reshard_auto_axis": lambda: jax.sharding.reshard(value, P(None, "y")),
        "mixed_elementwise": lambda: (split() * 2, -split()),
        "mixed_reductions": lambda: (split().sum(0), split().sum(1)),
        "mixed_transpose": lambda: split().T,
        "mixed_dot": lambda: split() @ jnp.ones((2, 3)),
        "mixed_dot_split_contracting": lambda: split().T @ split(),
        "mixed_dot_out_sharding": lambda: jnp.dot(split(), jnp.ones((2, 3)), out_sharding=P("x")),
        "mixed_dot_out_sharding_auto_axis": lambda: jnp.dot(split(), jnp.ones((2, 3)),
                                                            out_sharding=P(None, "y")),
        "mixed_zeros_out_sharding": lambda: jnp.zeros((8, 2), out_sharding=P("x")),
        "mixed_zeros_out_sharding_auto_axis": lambda: jnp.zeros((8, 2), out_sharding=P(None, "y")),
        "mixed_jit": lambda: jax.jit(lambda v: (v * 2, v.sum(0)))(split()),
        "mixed_jit_in_shardings_under_set_mesh": lambda: [jax.jit(lambda v: v * 2, in_shardings=s)(
            value) for s in (NS(mixed, P("x")), NS(mixed, P("x", "y")), P("x", "y"))],
        "mixed_jit_out_shardings_spec": lambda: jax.jit(lambda v: v * 2, out_shardings=P(
            "x", "y"))(value),
        "mixed_constraint_auto_axis": lambda: jax.jit(
            lambda v: lax.with_sharding_constraint(v * 2, P(None, "y")))(split()),
        "mixed_constraint_explicit_axis": lambda: jax.jit(
            lambda v: lax.with_sharding_constraint(v * 2, P("x")))(split()),
        "mixed_reshape": lambda: split().reshape(16),
        "mixed_broadcast": lambda: jnp.broadcast_to(split(), (3, 8, 2)),
        "mixed_grad": lambda: jax.grad(lambda v: (v * v).sum())(split()),
        "mixed_vmap": lambda: jax.vmap(lambda r: r * 2)(split()),
        "mixed_explicit_axes": lambda: jax.sharding.explicit_axes(
            lambda v: v * 2, axes="y", in_sharding=P("x", "y"))(split()),
        "mixed_shard_map": lambda: jax.shard_map(lambda b: b * 2, in_specs=P("x", "y"),
                                                 out_specs=P("x", "y"))(split()),
        "mixed_einsum": lambda: jnp.einsum("ij,jk->ik", split(), jnp.ones((2, 3))),
        "mixed_auto_axes": lambda: jax.sharding.auto_axes(lambda v: v * 2, out_sharding=P("x"))(
            split()),
        "mixed_arange": lambda: jnp.arange(8.0),
        "mixed_device_put_spec": lambda: jax.device_put(value, P("x", "y")),
        "mixed_update_slice": lambda: jax.lax.dynamic_update_slice(
            split(), jnp.ones((2, 2)), (0, 0)),
    }
    for src in (P("x", "y"), P(None, "y"), P("y", None), P("x"), P(("x", "y"))):
        for dst in (P("x"), P()):       # (an eager reshard keeps the Auto axes it can)
            under[f"mixed_reshard_{src}_to_{dst}"] = lambda src=src, dst=dst: \
                jax.sharding.reshard(jax.device_put(value, NS(mixed, src)), dst)
    return outside, under


def run(jax):
    AxisType = jax.sharding.AxisType
    explicit = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    mixed = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Auto))
    outside, under = _mixed_programs(jax, mixed)
    reshard_outside, reshard_under = _reshard_argument_programs(jax, explicit)
    ones = jax.numpy.ones(8)                # made on one device, before any set_mesh
    groups = [(explicit, _context_programs(jax, explicit)),
              (explicit, _vmap_programs(jax, explicit)), (explicit, _cumulative_programs(jax)),
              (explicit, _one_device_programs(jax, lambda: ones)),
              (None, outside), (mixed, under),
              (None, reshard_outside), (explicit, reshard_under)]
    out = {"device_count": len(jax.devices())}
    for mesh, programs in groups:
        for name, f in programs.items():
            try:
                if mesh is None:
                    out[name] = _describe(jax, f())
                else:
                    with jax.set_mesh(mesh):
                        out[name] = _describe(jax, f())
            except Exception as e:      # what was raised is a fact too
                out[name] = {"error": [type(e).__name__, _cut(str(e))]}
    return out
