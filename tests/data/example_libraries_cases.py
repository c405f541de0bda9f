"""Programs using jax.example_libraries (stax and optimizers), written as JAX's tutorials and
examples write them, shared by reference/make_example_libraries_reference.py (run with real
JAX) and tests/example_libraries/test_example_libraries.py (run with jxkernel).

Each program is a function of the modules ``(jax, jnp, stax, optimizers)`` returning a pytree
whose leaves are arrays or Python numbers; the reference stores each leaf and the tree's
structure. Each program compiles few XLA programs (one jit per model) to keep the suite fast.
"""
import numpy as np
from numerics import ELEMENTWISE

# How the test compares each program's floats with JAX's (tests/support/numerics.py's
# assert_allclose_ulp, measured at the largest |value| of each leaf); ints, shapes, dtypes,
# Python types and tree structures always exactly. In brackets: the worst measured on the Intel
# Xeon (AVX-512) where the reference was recorded; other CPUs pick other vector kernels.
#
# init draws through glorot_normal's truncated normal (erfinv; an FMA or two roundings in
# u * (b - a) + a, as nn_cases' TRUNCATED) and normal (erfinv) [0]
INIT = dict(ulps=16, scale="max")
# layers applied once: convolutions, dots and window sums whose summation order follows the
# vector width, and transcendental activations [0]
APPLY = dict(ulps=ELEMENTWISE * 4, scale="max")
# five training steps: the forward and backward passes' rounding differences go through adam's
# division by a small square root and compound from step to step [0]
TRAIN = dict(ulps=64, scale="max")
# the convnet's conv bias feeds BatchNorm, which subtracts the batch mean: its gradient is zero
# up to rounding, so its five updates are rounding noise (about 1e-8 on a bias of 1e-6:
# 2.3e-9 apart between an AMD EPYC and the Xeon, 1.8e-8 apart where XLA contracts no a*b+c
# into an FMA). It is measured at 1e-2, where 64 ulps are 6e-8: a gradient that BatchNorm
# failed to cancel would move it by orders of magnitude more than that.
CNN = dict(TRAIN, leaf_scales={"['params'][0][1]": 1e-2})
# optimizer trajectories on a quadratic: elementwise arithmetic and square roots, but the
# target, closed over, is a constant in JAX's program and a parameter in jxkernel's, so XLA
# folds and contracts (FMA) differently [2]
STEPS = dict(ulps=ELEMENTWISE * 4, scale="max")

TOLERANCES = {"layer_shapes": {}, "layer_init_values": INIT, "layer_applies": APPLY,
              "mlp_adam": TRAIN, "cnn_momentum": CNN, "optimizer_trajectories": STEPS,
              "schedules": STEPS, "utilities": STEPS}


def _inputs():
    rng = np.random.default_rng(0)
    return dict(image=rng.standard_normal((2, 6, 6, 3)).astype(np.float32),
                chw=rng.standard_normal((2, 3, 6, 6)).astype(np.float32),
                seq=rng.standard_normal((2, 5, 3)).astype(np.float32),
                vec=rng.standard_normal((2, 4)).astype(np.float32),
                labels=np.eye(3, dtype=np.float32)[rng.integers(0, 3, 8)],
                pixels=rng.standard_normal((8, 2, 2, 1)).astype(np.float32),
                images=rng.standard_normal((8, 4, 4, 3)).astype(np.float32))


def _layers(stax):
    """(name, layer, input shape) for every layer and combinator stax exports."""
    return [
        ("Dense", stax.Dense(3), (2, 4)),
        ("Conv", stax.Conv(4, (3, 3), (1, 1), "SAME"), (2, 6, 6, 3)),
        ("GeneralConv", stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 2, (2, 3), (2, 1)),
         (2, 3, 6, 6)),
        ("ConvTranspose", stax.ConvTranspose(2, (3, 3), (2, 2), "SAME"), (2, 6, 6, 3)),
        ("Conv1DTranspose", stax.Conv1DTranspose(2, (2,), (2,)), (2, 5, 3)),
        ("GeneralConvTranspose",
         stax.GeneralConvTranspose(("NCHW", "OIHW", "NCHW"), 2, (3, 3), padding="SAME"),
         (2, 3, 6, 6)),
        ("BatchNorm", stax.BatchNorm(), (2, 6, 6, 3)),
        ("BatchNorm_axis0_scale_only", stax.BatchNorm(axis=0, center=False), (2, 4)),
        ("BatchNorm_center_only", stax.BatchNorm(axis=(0,), scale=False), (2, 4)),
        ("BatchNorm_plain", stax.BatchNorm(axis=(0,), center=False, scale=False), (2, 4)),
        *[(name, getattr(stax, name), (2, 4))
          for name in ["Tanh", "Relu", "Exp", "LogSoftmax", "Softmax", "Softplus", "Sigmoid",
                       "Elu", "LeakyRelu", "Selu", "Gelu", "Identity"]],
        ("elementwise_clip", stax.elementwise(lambda x, lo: x.clip(lo), lo=-0.5), (2, 4)),
        ("MaxPool", stax.MaxPool((2, 2), (2, 2)), (2, 6, 6, 3)),
        ("SumPool_same", stax.SumPool((3, 3), (2, 2), "SAME"), (2, 6, 6, 3)),
        ("AvgPool_same", stax.AvgPool((3, 2), (2, 1), "SAME"), (2, 6, 6, 3)),
        ("AvgPool_nchw", stax.AvgPool((2, 2), padding="SAME", spec="NCHW"), (2, 3, 6, 6)),
        ("Flatten", stax.Flatten, (2, 6, 6, 3)),
        ("Dropout", stax.Dropout(0.75), (2, 4)),
        ("Dropout_test", stax.Dropout(0.75, mode="test"), (2, 4)),
        ("serial", stax.serial(stax.Dense(5), stax.Relu, stax.Dropout(0.5), stax.Dense(2)),
         (2, 4)),
        ("residual", stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(4), stax.Identity),
                                 stax.FanInSum), (2, 4)),
        ("concat", stax.serial(stax.FanOut(3), stax.parallel(stax.Dense(2), stax.Tanh,
                                                             stax.Dense(1)),
                               stax.FanInConcat()), (2, 4)),
        ("concat_axis0", stax.serial(stax.FanOut(2), stax.parallel(stax.Identity, stax.Exp),
                                     stax.FanInConcat(0)), (2, 4)),
        ("shape_dependent", stax.shape_dependent(lambda shape: stax.Dense(shape[-1] + 1)),
         (2, 4)),
    ]


def _input_for(shape, inputs):
    by_shape = {v.shape: v for k, v in inputs.items() if k in ("image", "chw", "seq", "vec")}
    return by_shape[shape]


def layer_shapes(jax, jnp, stax, optimizers):
    """Every layer's init_fun, traced only (jax.eval_shape: nothing compiles): the output
    shape, and each parameter's shape and dtype."""
    shapes = {}

    def init_all(key):
        keys, params = jax.random.split(key, len(_layers(stax))), {}
        for (name, (init, _), shape), k in zip(_layers(stax), keys):
            shapes[name], params[name] = init(k, shape)
        return params
    params = jax.eval_shape(init_all, jax.random.PRNGKey(0))
    described = jax.tree.map(lambda p: (p.shape, str(p.dtype)), params)
    return dict(output_shapes=shapes, params=described)


def layer_init_values(jax, jnp, stax, optimizers):
    """init_fun run eagerly, as the examples run it: the keys serial and parallel hand each
    layer, Dense's and Conv's initializers, BatchNorm's. Each new parameter shape compiles the
    random draws anew, so these layers and the models below share a few shapes."""
    model = stax.serial(stax.Dense(3), stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Relu),
                        stax.FanInConcat())
    conv = stax.serial(stax.Conv(4, (2, 2)), stax.BatchNorm(), stax.Relu)
    key = jax.random.PRNGKey(1)
    return dict(model=model[0](key, (2, 4)), conv=conv[0](key, (1, 4, 4, 3)))


def _numpy_params(jax, init, shape, rng):
    """Parameters of the shapes and dtypes `init` gives, drawn by NumPy (apply_fun's test
    needs values, not JAX's draws)."""
    described = jax.eval_shape(lambda k: init(k, shape)[1], jax.random.PRNGKey(0))
    return jax.tree.map(lambda p: rng.standard_normal(p.shape).astype(p.dtype), described)


def layer_applies(jax, jnp, stax, optimizers):
    """Every layer's apply_fun, all under one jit (a key for the layers that drop out)."""
    layers, inputs, rng = _layers(stax), _inputs(), np.random.default_rng(1)
    params = {name: _numpy_params(jax, init, shape, rng) for name, (init, _), shape in layers}
    xs = {name: _input_for(shape, inputs) for name, _, shape in layers}

    @jax.jit
    def apply_all(params, xs, rng):
        return {name: apply(params[name], xs[name], rng=rng) for name, (_, apply), _ in layers}
    return apply_all(params, xs, jax.random.PRNGKey(7))


def _train(jax, jnp, stax, optimizers, layers, opt, input_shape, x, labels, steps=5):
    """The examples' training loop: init, loss, a jitted update, a few steps."""
    init_random_params, predict = stax.serial(*layers)
    _, init_params = init_random_params(jax.random.PRNGKey(0), input_shape)
    opt_init, opt_update, get_params = opt

    def loss(params, batch):
        inputs, targets = batch
        return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))

    def accuracy(params, batch):
        inputs, targets = batch
        return jnp.mean(jnp.argmax(predict(params, inputs), axis=1) == jnp.argmax(targets, 1))

    @jax.jit
    def update(i, opt_state, batch):
        params = get_params(opt_state)
        value, grads = jax.value_and_grad(loss)(params, batch)
        return opt_update(i, grads, opt_state), value, accuracy(params, batch)

    opt_state, history = opt_init(init_params), []
    for i in range(steps):
        opt_state, value, acc = update(i, opt_state, (x, labels))
        history.append((value, acc))
    # the state is a pytree of arrays with static structure: one trace and compile for all steps
    return dict(params=get_params(opt_state), history=history, compiles=update._cache_size())


def mlp_adam(jax, jnp, stax, optimizers):
    """The MNIST MLP example in small: Flatten, Dense/Relu, LogSoftmax, adam, 5 jitted steps."""
    inputs = _inputs()
    layers = [stax.Flatten, stax.Dense(3), stax.Relu, stax.Dense(3), stax.Relu, stax.Dense(3),
              stax.LogSoftmax]
    return _train(jax, jnp, stax, optimizers, layers, optimizers.adam(1e-2), (-1, 2, 2, 1),
                  inputs["pixels"], inputs["labels"])


def cnn_momentum(jax, jnp, stax, optimizers):
    """A small convnet (Conv, BatchNorm, Relu, MaxPool, Flatten, Dense) with momentum on an
    exponentially decaying step size, 5 jitted steps."""
    inputs = _inputs()
    layers = [stax.Conv(4, (2, 2), padding="SAME"), stax.BatchNorm(), stax.Relu,
              stax.MaxPool((4, 4), (4, 4)), stax.Flatten, stax.Dense(3),
              stax.LogSoftmax]
    opt = optimizers.momentum(optimizers.exponential_decay(0.1, 2, 0.5), mass=0.9)
    return _train(jax, jnp, stax, optimizers, layers, opt, (-1, 4, 4, 3), inputs["images"],
                  inputs["labels"])


def _optimizers(optimizers):
    o = optimizers
    return {"sgd": o.sgd(0.1), "momentum": o.momentum(0.1, 0.9), "nesterov": o.nesterov(0.1, 0.8),
            "adagrad": o.adagrad(0.3), "rmsprop": o.rmsprop(0.05),
            "rmsprop_momentum": o.rmsprop_momentum(0.05, momentum=0.5), "adam": o.adam(0.1),
            "adamax": o.adamax(0.1), "sm3": o.sm3(0.2)}


def optimizer_trajectories(jax, jnp, stax, optimizers):
    """Each optimizer's first 3 steps on a quadratic over a dict of arrays (one jit for all)."""
    target = {"w": jnp.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]]), "b": jnp.array(0.25)}
    x0 = jax.tree.map(jnp.zeros_like, target)

    def quadratic(p):
        return sum(jnp.sum((a - t) ** 2 * 1.5) for a, t in zip(jax.tree.leaves(p),
                                                                jax.tree.leaves(target)))

    def trajectory(opt):
        opt_init, opt_update, get_params = opt
        state, path = opt_init(x0), []
        for i in range(3):
            state = opt_update(i, jax.grad(quadratic)(get_params(state)), state)
            path.append(get_params(state))
        return path

    return jax.jit(lambda: {name: trajectory(opt)
                            for name, opt in _optimizers(optimizers).items()})()


def schedules(jax, jnp, stax, optimizers):
    """The schedules at Python int steps (numbers or arrays, as JAX returns them) and mapped
    over traced steps under jit."""
    o = optimizers
    made = {"constant": o.constant(0.5), "exponential": o.exponential_decay(0.5, 3, 0.1),
            "inverse_time": o.inverse_time_decay(0.5, 2, 0.3),
            "inverse_time_staircase": o.inverse_time_decay(0.5, 2, 0.3, staircase=True),
            "polynomial": o.polynomial_decay(1.0, 4, 0.1, power=2.0),
            "piecewise": o.piecewise_constant([1, 3], [1.0, 0.5, 0.25]),
            "made_scalar": o.make_schedule(0.125)}
    steps = jnp.arange(6)
    traced = jax.jit(lambda s: {n: jax.vmap(lambda i: f(i) + 0 * i)(s)
                                for n, f in made.items()})(steps)
    return dict(python={n: [f(i) for i in range(6)] for n, f in made.items()}, traced=traced)


def utilities(jax, jnp, stax, optimizers):
    """l2_norm, clip_grads, state through jit and fori_loop, unpack/pack round trip."""
    o = optimizers
    grads = {"a": jnp.array([3.0, 4.0]), "b": [jnp.array([[1.0, 2.0]])]}
    opt_init, opt_update, get_params = o.momentum(0.1, 0.9)
    state = opt_init(grads)

    def body(i, s):
        return opt_update(i, o.clip_grads(get_params(s), 1.0), s)
    looped = jax.jit(lambda s: jax.lax.fori_loop(0, 3, body, s))(state)
    unpacked = o.unpack_optimizer_state(looped)
    repacked = o.pack_optimizer_state(unpacked)
    return dict(norm=o.l2_norm(grads), clipped=o.clip_grads(grads, 2.0),
                unclipped=o.clip_grads(grads, 100.0), looped=get_params(looped),
                unpacked_subtree=unpacked["a"].subtree,
                repacked_equal=[repacked.tree_def == looped.tree_def,
                                repacked.subtree_defs == looped.subtree_defs],
                repacked=get_params(repacked))


PROGRAMS = [layer_shapes, layer_init_values, layer_applies, mlp_adam, cnn_momentum,
            optimizer_trajectories, schedules, utilities]
