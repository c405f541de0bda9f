"""The cases that reference/make_pjit_array_reference.py runs on JAX 0.10.2 and
tests/sharding/test_pjit_array.py on jxkernel: what JAX's tests/pjit_test.py and
tests/array_test.py check of meshes, PartitionSpecs, shardings and sharded arrays that a learner
meets (a spec or mesh made twice being one object, the errors of a sharding that does not fit a
value). `run(jax)` takes the `jax` module (real or jxkernel, with 8 CPU devices) and returns
JSON data."""


def _answer(fn):
    """[error class, message] or ["ok", value]."""
    try:
        return ["ok", fn()]
    except Exception as e:      # noqa: BLE001  (the answer is the error)
        return [type(e).__name__, str(e)]


def run(jax) -> dict:
    out = {}
    _identity(jax, out)
    return out


def _identity(jax, out):
    """P and Mesh are interned: made twice (or unpickled, copied) they are one object; P
    refuses subclasses."""
    import copy
    import pickle
    P, Mesh = jax.sharding.PartitionSpec, jax.sharding.Mesh
    out["P none is P empty tuple"] = _answer(lambda: P(None, "x") is P((), "x"))
    out["P tuple of one is P name"] = _answer(lambda: P(("x",), None) is P("x", None))
    out["P unreduced twice"] = _answer(lambda: P("x", unreduced={"y"}) is P("x", unreduced={"y"}))
    out["P pickled"] = _answer(lambda: pickle.loads(pickle.dumps(P("x", None))) is P("x", None))
    out["P deepcopy"] = _answer(lambda: copy.deepcopy(P("x")) is P("x"))
    out["P setattr"] = _answer(lambda: setattr(P("x"), "unreduced", frozenset({"y"})))

    def subclass():
        class MyP(P):
            pass
    out["P subclass"] = _answer(subclass)
    devs = jax.devices()
    out["Mesh twice"] = _answer(lambda: Mesh(devs, "x") is Mesh(devs, "x"))
    out["Mesh other names"] = _answer(lambda: Mesh(devs, "x") is Mesh(devs, "y"))
    out["Mesh other order"] = _answer(lambda: Mesh(devs, "x") is Mesh(devs[::-1], "x"))
    out["Mesh deepcopy"] = _answer(lambda: copy.deepcopy(Mesh(devs, "x")) is Mesh(devs, "x"))
    out["Mesh devices read-only"] = _answer(lambda: Mesh(devs, "x").devices.flags.writeable)
