"""Values of another shape or dtype written into a Ref (`r[idx] = v`, `jax.ref.addupdate`),
eagerly and under jit, run the same way by real JAX 0.10.2
(reference/make_ref_write_types_reference.py writes ref_write_types_reference.json) and by
jxkernel (tests/api/test_refs.py): JAX neither broadcasts (`r[...] = 0.0` into a Ref of shape
(3,)) nor converts, but a weak float into a float Ref and any integer into an integer one.
Each case: [error class, message] or ["ok", the Ref's value after, its dtype]."""


def run(jax) -> dict:
    jnp = jax.numpy

    def outcome(read, write):
        try:
            write()
            value = read()
            return ["ok", value.tolist(), str(value.dtype)]
        except Exception as e:     # the class and the message are what is compared
            return [type(e).__name__, str(e)]

    def case(make, write):
        ref = jax.new_ref(make())
        return outcome(lambda: ref[...], lambda: write(ref))

    def key_case(value=None):               # a typed key is read back as its key data
        ref = jax.new_ref(jax.random.key(0))
        new = jax.random.fold_in(ref[...], 1) if value is None else value
        return outcome(lambda: jax.random.key_data(ref[...]), lambda: ref.__setitem__(..., new))

    def in_jit(make, write):
        def f(x):
            ref = jax.new_ref(x)
            write(ref)
            return ref[...]
        try:
            value = jax.jit(f)(make())
            return ["ok", value.tolist(), str(value.dtype)]
        except Exception as e:
            return [type(e).__name__, str(e)]

    vec = lambda: jnp.zeros(3)                      # noqa: E731
    mat = lambda: jnp.zeros((3, 4))                 # noqa: E731
    scalar = lambda: jnp.zeros(())                  # noqa: E731
    small_int = lambda: jnp.zeros((), jnp.int8)     # noqa: E731
    add = jax.ref.addupdate
    return {
        "a Python float into a vector, whole": case(vec, lambda r: r.__setitem__(..., 1.0)),
        "a Python float into a vector, whole, under jit": in_jit(
            vec, lambda r: r.__setitem__(..., 2.0)),
        "addupdate of a Python float into a vector": case(vec, lambda r: add(r, ..., 1.0)),
        "addupdate of a float32 scalar into a vector, under jit": in_jit(
            vec, lambda r: add(r, (), jnp.float32(1.0))),
        "a row into a matrix's rows 1:": case(mat, lambda r: r.__setitem__(slice(1, None), 1.0)),
        "two values into a row": case(mat, lambda r: r.__setitem__(0, jnp.ones(2))),
        "addupdate of three into a row": case(mat, lambda r: add(r, 1, jnp.ones(3))),
        "a row into the whole matrix": case(mat, lambda r: r.__setitem__(..., jnp.ones(4))),
        "int32 values into a float32 row": case(
            mat, lambda r: r.__setitem__(0, jnp.ones(4, jnp.int32))),
        "addupdate of int32 values into a float32 row": case(
            mat, lambda r: add(r, 0, jnp.ones(4, jnp.int32))),
        "three into a row, by (0, :)": case(
            mat, lambda r: r.__setitem__((0, slice(None)), jnp.ones(3))),
        "four into a column": case(mat, lambda r: r.__setitem__((slice(None), 2), jnp.ones(4))),
        "three into a row at a traced index": case(mat, lambda r: jax.jit(
            lambda i: r.__setitem__(i, jnp.ones(3)))(1)),
        "a row into a row": case(mat, lambda r: r.__setitem__(0, jnp.ones(4))),
        "addupdate of a row into a row": case(mat, lambda r: add(r, 2, jnp.ones(4))),
        "a Python int into a float32 scalar": case(scalar, lambda r: r.__setitem__(..., 1)),
        "a Python float into a float32 scalar": case(scalar, lambda r: r.__setitem__(..., 1.0)),
        "a float16 into a float32 scalar": case(
            scalar, lambda r: r.__setitem__(..., jnp.float16(1))),
        "a bool into a float32 scalar": case(scalar, lambda r: r.__setitem__(..., True)),
        "a Python int into an int8 scalar": case(small_int, lambda r: r.__setitem__(..., 1)),
        "an int32 into an int8 scalar": case(
            small_int, lambda r: r.__setitem__(..., jnp.int32(3))),
        "a Python float into an int8 scalar": case(
            small_int, lambda r: r.__setitem__(..., 1.0)),
        "an int32 into an int8 scalar, under jit": in_jit(
            small_int, lambda r: r.__setitem__(..., jnp.int32(3))),
        "a typed key into a key Ref": key_case(),
        "a float32 scalar into a key Ref": key_case(jnp.zeros(())),
        "a float16 into a float32 scalar, under jit": in_jit(
            scalar, lambda r: r.__setitem__(..., jnp.float16(1))),
    }

