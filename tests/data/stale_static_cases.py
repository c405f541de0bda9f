"""A static argument hashed by identity whose fields change after the trace (stop 122): `self`
static on a method (JAX's gotchas page, "marking self as static"), a config object passed by
static_argnames, a field read through a method of self. jit's key is the object, so the
calls after the change reuse the old program: JAX 0.10.2 returns the old values, silently.
The fix the note pastes (FIX_CODE: the class registered as a pytree, self traced) computes
with the new fields; a class hashed by its fields (hash and == of its own) compiles again and
is no stale read. `run(jax)` calls each before and after the change, as a learner's cells
would. The reference (stale_static_reference.json) is real JAX 0.10.2's, written by
reference/make_stale_static_reference.py; tests/views/test_static_attributes.py runs the
same with jxkernel and holds its notes to it.
"""
import numpy as np

jax = jnp = None        # the library the programs run on: use(jax)
KEPT = []               # the bound case's object and jits, the Keyed case's jit (last)


class Model:
    """A model whose jitted method takes self static (hashed by identity)."""
    def __init__(self, w, scale):
        self.w = w
        self.scale = scale

    def predict(self, x):
        return x @ self.w * self._scale()

    def _scale(self):                   # a field read through a method of self
        return self.scale


class Config:
    """A config object passed static by name (hashed by identity)."""
    def __init__(self, lr):
        self.lr = lr


def sgd(w, g, cfg):
    return w - cfg.lr * g


class Keyed:
    """A config hashed and compared by its fields: a field set anew is a new static value."""
    def __init__(self, lr):
        self.lr = lr

    def __hash__(self):
        return hash(self.lr)

    def __eq__(self, other):
        return isinstance(other, Keyed) and self.lr == other.lr


class Bound(Model):
    """Model jitted bound: `jax.jit(b.predict)` and `jax.jit(b)` (its __call__)."""
    def predict(self, x):       # its own functions (the traces' keys)
        return x @ self.w * self.scale

    def __call__(self, x):
        return x @ self.w * self.scale


class BoundFixed(Bound):
    """Bound again, registered by BOUND_FIX_CODE (the note's fix for a bound method)."""
    def predict(self, x):
        return x @ self.w * self.scale


class Fixed(Model):
    """Model again, registered as a pytree by FIX_CODE (the note's fix, pasted)."""
    def predict(self, x):       # its own function (a trace of Model.predict's is another's)
        return x @ self.w * self._scale()


# what the note pastes for Model (its name then Fixed's, the class registered here)
FIX_CODE = """def _flatten(obj):        # traced fields, then static ones
    return (obj.w, obj.scale), ()

def _unflatten(static, traced):
    (w, scale), () = traced, static
    return Model(w=w, scale=scale)

jax.tree_util.register_pytree_node(Model, _flatten, _unflatten)   # and self static no more"""


# what the note pastes for jax.jit(b.predict), Bound registered (then BoundFixed's)
BOUND_FIX_CODE = """def _flatten(obj):        # traced fields, then static ones
    return (obj.w, obj.scale), ()

def _unflatten(static, traced):
    (w, scale), () = traced, static
    return Bound(w=w, scale=scale)

jax.tree_util.register_pytree_node(Bound, _flatten, _unflatten)   # then jit Bound.predict itself
predict = jax.jit(Bound.predict)    # called as predict(obj, ...)"""


def use(lib) -> None:
    global jax, jnp
    jax, jnp = lib, lib.numpy


def _list(value) -> list:
    return np.asarray(value).tolist()


def run_kept(lib) -> dict:
    """Each case's result before and after its static argument's fields change (first,
    after): self static (`self_static`, w and scale set anew), a Config by static_argnames
    (`config_static`), a Keyed by static_argnames (`hashed_by_fields`, with its number of
    traces), jax.jit(b.predict) and jax.jit(b) of a Bound (`bound`), BOUND_FIX_CODE's
    registration of BoundFixed with its predict jitted unbound (`bound_fix`), and FIX_CODE's
    registration of Fixed with self traced (`fix`)."""
    use(lib)
    out = {}
    x = jnp.ones((2, 3))
    predict = lib.jit(Model.predict, static_argnums=0)
    m = Model(jnp.ones((3, 2)), 1.0)
    first = _list(predict(m, x))
    m.w, m.scale = jnp.full((3, 2), 2.0), 3.0
    out["self_static"] = {"first": first, "after": _list(predict(m, x))}

    step = lib.jit(sgd, static_argnames="cfg")
    cfg = Config(0.1)
    first = _list(step(jnp.ones(2), jnp.ones(2), cfg=cfg))
    cfg.lr = 0.5
    out["config_static"] = {"first": first,
                            "after": _list(step(jnp.ones(2), jnp.ones(2), cfg=cfg))}

    traces = []
    keyed = lib.jit(lambda w, g, cfg: traces.append(1) or w - cfg.lr * g,
                    static_argnames="cfg")
    k = Keyed(0.1)
    first = _list(keyed(jnp.ones(2), jnp.ones(2), cfg=k))
    k.lr = 0.5
    out["hashed_by_fields"] = {"first": first,
                               "after": _list(keyed(jnp.ones(2), jnp.ones(2), cfg=k)),
                               "traces": len(traces)}

    b = Bound(jnp.ones((3, 2)), 1.0)
    method, called = lib.jit(b.predict), lib.jit(b)
    first = [_list(method(x)), _list(called(x))]
    b.w, b.scale = jnp.full((3, 2), 2.0), 3.0
    out["bound"] = {"first": first, "after": [_list(method(x)), _list(called(x))]}
    KEPT.extend([b, method, called])    # alive as a learner's names keep them

    names = {"jax": lib, "BoundFixed": BoundFixed}
    exec(BOUND_FIX_CODE.replace("Bound", "BoundFixed"), names)
    f = BoundFixed(jnp.ones((3, 2)), 1.0)
    first = _list(names["predict"](f, x))
    f.w, f.scale = jnp.full((3, 2), 2.0), 3.0
    out["bound_fix"] = {"first": first, "after": _list(names["predict"](f, x))}

    exec(FIX_CODE.replace("Model", "Fixed"), {"jax": lib, "Fixed": Fixed})
    fixed = lib.jit(Fixed.predict)
    f = Fixed(jnp.ones((3, 2)), 1.0)
    first = _list(fixed(f, x))
    f.w, f.scale = jnp.full((3, 2), 2.0), 3.0
    out["fix"] = {"first": first, "after": _list(fixed(f, x))}
    KEPT.append(keyed)
    return out


def run(lib) -> dict:
    """run_kept's answers, and the Keyed case's fix (cleared), last: it clears every cache."""
    out = run_kept(lib)
    out["hashed_by_fields"].update(cleared(lib))
    return out


def cleared(lib) -> dict:
    """The Keyed case's jit (run_kept's) given a new Keyed(0.5): still the old program
    (new_object); then after jax.clear_caches(), the note's fix (cleared)."""
    keyed, ones = KEPT[-1], lib.numpy.ones(2)
    new_object = _list(keyed(ones, ones, cfg=Keyed(0.5)))
    lib.clear_caches()
    return {"new_object": new_object, "cleared": _list(keyed(ones, ones, cfg=Keyed(0.5)))}
