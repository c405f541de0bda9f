import jax
import jax.numpy as jnp

checks = [
    ("add", lambda: jnp.ones(3) + jnp.ones(4)),
    ("matmul", lambda: jnp.ones((2, 3)) @ jnp.ones((4, 2))),
    ("dot", lambda: jnp.dot(jnp.ones(3), jnp.ones(4))),
    ("reshape", lambda: jnp.ones(6).reshape(4, 2)),
    ("concatenate", lambda: jnp.concatenate([jnp.ones((2, 2)), jnp.ones((3, 3))])),
    ("broadcast_to", lambda: jnp.broadcast_to(jnp.ones(3), (2, 4))),
    ("jit add", lambda: jax.jit(jnp.add)(jnp.ones(2), jnp.ones(5))),
    ("axis", lambda: jnp.sum(jnp.ones(3), axis=2)),
    ("index", lambda: jnp.ones(3)[1, 2]),
    ("float index", lambda: jnp.ones(3)[1.5]),
    ("tracer int", lambda: jax.jit(lambda i: list(range(3))[i])(1)),
    ("tracer numpy", lambda: jax.jit(lambda v: __import__("numpy").asarray(v))(jnp.ones(2))),
    ("lax.dot dtype", lambda: jax.lax.dot(jnp.ones(2), jnp.ones(2, jnp.int32))),
    ("grad nonscalar", lambda: jax.grad(jnp.sin)(jnp.ones(2))),
]
for name, thunk in checks:
    try:
        thunk()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__)
