"""The type machinery libraries over JAX declare things with (Flax NNX, Linen's fp8 ops):
jax.Ref/new_ref and AbstractRef, jax.experimental.hijax's registration and eager
HiPrimitives (staging them: test_hijax.py), jax.typeof of typed keys and registered types, jax.extend.core's effects and
opaque trace state, jax._src.tree_util._registry, jax._src.core/_src.dtypes, and
jax.experimental.layout's Layout and Format."""
import collections
import dataclasses

import numpy as np
import pytest
from doc_examples import check_docstring_examples

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.core.avals import AbstractValue, ShapedArray


@pytest.mark.parametrize("module", ["jxkernel._src.state.types", "jxkernel.experimental.hijax", "jxkernel.core.hijax",
                                    "jxkernel._src.core", "jxkernel._src.dtypes",
                                    "jxkernel._src.tree_util", "jxkernel.experimental.layout"])
def test_docstring_examples(module):
    check_docstring_examples(module)


def test_ref_reads_and_writes_eagerly_and_inside_one_trace():
    r = jxkernel.new_ref(jnp.arange(3.0))
    r[...] = r[...] * 2.0
    r[0] = -1.0
    assert r[...].tolist() == [-1.0, 2.0, 4.0] and r.shape == (3,)
    assert jxkernel.typeof(r) == jxkernel._src.state.types.AbstractRef(ShapedArray((3,), jnp.float32))

    @jxkernel.jit
    def f(x):
        acc = jxkernel.new_ref(jnp.zeros_like(x))
        for i in range(3):
            acc[...] = acc[...] + x * i
        return acc[...]
    assert f(jnp.ones(2)).tolist() == [3.0, 3.0]


def test_ref_prints_as_jaxs():
    # JAX's array_refs guide shows Ref([0., 0., 0.], dtype=float32)
    assert repr(jxkernel.new_ref(jnp.zeros(3))) == "Ref([0., 0., 0.], dtype=float32)"


def test_vmap_maps_ref_arguments_as_jaxs_array_refs_guide():
    def dist(x, y, out_ref):
        assert x.ndim == y.ndim == 1 and out_ref.ndim == 0
        out_ref[...] = jnp.sum((x - y) ** 2)
    vecs = jnp.arange(12.).reshape(3, 4)
    out = jxkernel.new_ref(jnp.zeros((3, 3)))
    jxkernel.vmap(jxkernel.vmap(dist, (0, None, 0)), (None, 0, 0))(vecs, vecs, out)
    assert np.asarray(out[...]).tolist() == [[0., 64., 256.], [64., 0., 64.], [256., 64., 0.]]
    r = jxkernel.new_ref(jnp.zeros((3, 2)))                  # mapped along its axis 1
    jxkernel.vmap(lambda x, r: r.__setitem__(1, x), (0, 1))(jnp.arange(2.), r)
    assert np.asarray(r[...]).tolist() == [[0., 0.], [0., 1.], [0., 0.]]
    closed = jxkernel.new_ref(0.)
    before = closed.unsafe_buffer_pointer()
    with pytest.raises(Exception, match=r"vmapped value on an unbatched array reference of "
                                        r"type Ref\{float32\[\]\}. Move the array reference"):
        jxkernel.vmap(lambda x: closed.__setitem__(..., x))(jnp.arange(3.))
    assert closed.unsafe_buffer_pointer() == before and float(closed[...]) == 0.0


def test_typeof_of_typed_keys():
    keys = jxkernel.random.split(jxkernel.random.key(0), 4)
    assert repr(jxkernel.typeof(jxkernel.random.key(1))) == "ShapedArray(key<fry>[])"
    assert jxkernel.typeof(keys).str_short() == "key<fry>[4]"
    assert isinstance(jxkernel.typeof(keys).dtype, jxkernel._src.dtypes.ExtendedDType)
    from jxkernel._src.core import physical_aval
    assert physical_aval(jxkernel.typeof(keys)) == ShapedArray((4, 2), np.uint32)


def test_hijax_registration_and_eager_primitives():
    from jxkernel.experimental import hijax

    class BoxTy(hijax.MutableHiType):
        def __eq__(self, other):
            return isinstance(other, BoxTy)

        def __hash__(self):
            return 1

    class Box:
        def __init__(self, v):
            self.v = v

    hijax.register_hitype(Box, lambda b: BoxTy())
    assert jxkernel.typeof(Box(1)) == BoxTy() and isinstance(BoxTy(), AbstractValue)

    class Incr(hijax.HiPrimitive):          # eagerly its to_lojax runs (JAX never runs impl)
        def to_lojax(self, box, *, by):
            box.v += by
            return box.v

    incr_p = Incr("incr_library_types_test")
    box = Box(1)
    assert incr_p.bind(box, by=2) == 3 and box.v == 3
    with pytest.raises(AssertionError, match="must override"):   # no abstract_eval: JAX's
        jxkernel.jit(lambda x: incr_p.bind(x, by=1))(1.0)
    method = hijax.aval_method(len)
    assert method.fun is len and hijax.aval_property(fget=abs).fget is abs


def test_effects_and_opaque_trace_state():
    from jxkernel.extend import core

    class MyEffect(core.Effect):
        pass

    allowed = core.EffectTypeSet()
    allowed.add_type(MyEffect)
    assert allowed.contains(MyEffect()) and not allowed.contains(core.Effect())
    outside = core.get_opaque_trace_state(convention="flax")
    assert outside == core.get_opaque_trace_state()
    inside = jxkernel.jit(lambda x: (x, core.get_opaque_trace_state()))
    seen = []
    jxkernel.grad(lambda x: seen.append(core.get_opaque_trace_state() == outside) or x)(1.0)
    assert seen == [False]
    del inside

    def under_jit(x):
        seen.append(core.unsafe_am_i_under_a_jit_DO_NOT_USE())
        seen.append(core.find_top_trace([x, 1.0]) is core.find_top_trace([x]))
        return x
    jxkernel.jit(under_jit)(1.0)
    assert seen[1:] == [True, True] and not core.unsafe_am_i_under_a_jit_DO_NOT_USE()


def test_pytree_registry_holds_python_registered_types():
    from jxkernel._src.tree_util import _registry

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    @dataclasses.dataclass
    class Point:
        x: float
        y: float

    jxkernel.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
                                            lambda _, c: Pair(*c))
    jxkernel.tree_util.register_dataclass(Point, ["x", "y"], [])
    assert {tuple, list, dict, type(None), Pair, Point} <= set(_registry)
    assert collections.OrderedDict not in _registry and int not in _registry
    children, aux = _registry[Point].to_iter(Point(1.0, 2.0))
    assert children == (1.0, 2.0) and _registry[Point].from_iter(aux, (3.0, 4.0)) == Point(3.0, 4.0)


def test_supports_inf():
    from jxkernel._src.dtypes import supports_inf
    assert [supports_inf(d) for d in (jnp.bfloat16, jnp.float16, jnp.float8_e5m2,
                                       jnp.float8_e4m3fn, jnp.complex64, jnp.bool_)] == \
        [True, True, True, False, True, False]


def test_format_checks_its_arguments():
    from jxkernel.experimental.layout import Format, Layout
    with pytest.raises(ValueError, match="concrete sharding"):
        Format(Layout((0,)))
    with pytest.raises(TypeError, match="layout must be"):
        Format("row-major")
    sharding = jxkernel.sharding.SingleDeviceSharding(jxkernel.devices()[0])
    assert Format(Layout((1, 0)), sharding) == Format(Layout((1, 0)), sharding)
    with pytest.raises(ValueError, match="shape"):
        Layout((0, 1)).check_compatible_aval((3,))


def test_opaque_trace_states_taken_under_one_trace_stay_equal_after_it_ends():
    from jxkernel.extend import core
    seen = {}

    def f(x):
        seen["before"] = core.get_opaque_trace_state()
        y = jxkernel.jit(lambda v: (seen.__setitem__("inner", core.get_opaque_trace_state()),
                                    v * 3)[1])(x)
        seen["after"] = core.get_opaque_trace_state()
        return y

    jxkernel.grad(f)(1.0)
    assert seen["before"] == seen["after"] and seen["before"] != seen["inner"]


def test_has_aux_output_is_rebuilt_after_the_differentiating_trace():
    # JAX unflattens has_aux's output after the trace ends: pytree nodes it holds are made
    # under the caller's trace (Flax NNX checks where its Variables were made)
    from jxkernel.extend import core
    made_under = []

    class Box:
        def __init__(self, v):
            self.v = v
            made_under.append(core.get_opaque_trace_state())

    jxkernel.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None),
                                            lambda _, c: Box(*c))

    def f(x):
        return x * 2.0, Box(x * 3.0)

    outside = core.get_opaque_trace_state()
    made_under.clear()
    g, box = jxkernel.grad(f, has_aux=True)(1.0)
    assert float(g) == 2.0 and float(box.v) == 3.0 and made_under[-1] == outside
    (_, box), _ = jxkernel.value_and_grad(f, has_aux=True)(2.0)
    _, _, box2 = jxkernel.vjp(f, 1.0, has_aux=True)
    assert made_under[-1] == outside and float(box.v) == 6.0 and float(box2.v) == 3.0


def test_jax_core_abstract_value_is_the_base_of_shaped_array():
    import jxkernel.core as jax_core
    assert jax_core.AbstractValue is AbstractValue
    assert isinstance(jxkernel.typeof(jnp.ones(2)), jax_core.AbstractValue)
