"""A custom_vjp whose bwd raises, differentiated five ways: JAX 0.10.2 gives the error a
JaxStackTraceBeforeTransformation cause whose traceback is the user's frames that called the
custom_vjp function. `run(jax)` -> {case: {"cause": type name, "text": its message,
"frames": [(function, line)] of this file in the cause's traceback}}."""
import traceback


def run(jax):
    jnp = jax.numpy

    @jax.custom_vjp
    def clip(x):
        return x

    def clip_fwd(x):
        return x, None

    def clip_bwd(res, g):
        raise ValueError("clip_bwd refuses")

    clip.defvjp(clip_fwd, clip_bwd)

    def loss(x):
        return clip(x).sum()

    cases = {"grad": lambda: jax.grad(loss)(jnp.ones(2)),
             "jit_of_grad": lambda: jax.jit(jax.grad(loss))(jnp.ones(2)),
             "vjp": lambda: jax.vjp(loss, jnp.ones(2))[1](1.0),
             "grad_of_jit": lambda: jax.grad(jax.jit(loss))(jnp.ones(2)),
             "vmap_of_grad": lambda: jax.vmap(jax.grad(loss))(jnp.ones((3, 2)))}
    out = {}
    for name, case in cases.items():
        try:
            case()
            out[name] = "no error"
        except ValueError as e:
            cause = e.__cause__
            out[name] = {
                "cause": type(cause).__name__, "text": str(cause),
                "frames": [[f.f_code.co_name, n] for f, n in traceback.walk_tb(
                    getattr(cause, "__traceback__", None)) if f.f_code.co_filename == __file__]}
    return out
