"""Where `examples/mnist_vae` on the NumPy backend parts from XLA's CPU (settings.py's
NUMPY_TOLERANCE says why the page has an atol there): its training run step by step under
jxkernel on both backends in one process, at the harness's XLA level
(JAX_DISABLE_MOST_OPTIMIZATIONS=1) with NumPy's BLAS on one thread, as `--backend numpy` runs
it. It prints how many initial parameters differ, each step's loss and how many gradient and
parameter entries differ, then step 0 (from the same parameters on both) equation by
equation: each equation run on both backends on XLA's inputs, those whose results differ.

    python -m conformance.docs.numpy_drift --fetch MIRROR [--steps 8]
"""
import argparse
import collections
import os
import sys

# as the harness's sides run (conformance/docs/README.md); set before jxkernel is imported
os.environ.setdefault("JAX_DISABLE_MOST_OPTIMIZATIONS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from . import pages, settings  # noqa: E402

PAGE = "examples/mnist_vae.py"


def _ulps(got, want) -> float:
    """The largest |got - want| in float32 ulps of want's largest magnitude."""
    scale = max(float(np.abs(want).max()), np.finfo(np.float32).tiny)
    return float(np.abs(got.astype(np.float64) - want).max() / np.spacing(np.float32(scale)))


def _example(mirror):
    """The page's module namespace (its `__main__` part left out) and its training setup, as
    its `__main__` part makes them: (step, a function making the initial parameters,
    opt_init, get_params, images, batches per epoch)."""
    import jxkernel
    jxkernel.install_as_jax()
    exec(settings._EXAMPLES_DATASETS, {})
    import jax
    from jax import lax, random
    from jax.example_libraries import optimizers
    source = pages.GitSource(mirror).read(pages.TAG, PAGE)
    ns = {"__name__": "mnist_vae"}
    exec(source.split('if __name__ == "__main__":')[0]
         .replace("import matplotlib.pyplot as plt", ""), ns)
    from examples import datasets
    batch_size = 32
    train_images = datasets.mnist(permute_train=True)[0]
    num_batches = -(-train_images.shape[0] // batch_size)

    def init():
        enc_rng, dec_rng = random.split(random.key(2))
        return (ns["encoder_init"](enc_rng, (batch_size, 28 * 28))[1],
                ns["decoder_init"](dec_rng, (batch_size, 10))[1])
    opt_init, opt_update, get_params = optimizers.momentum(0.001, mass=0.9)

    @jax.jit
    def step(rng, i, opt_state, images):      # run_epoch's body_fun, its loss and gradient kept
        elbo_rng, data_rng = random.split(random.fold_in(rng, i))
        batch = random.bernoulli(data_rng, lax.dynamic_slice_in_dim(
            images, (i % num_batches) * batch_size, batch_size))
        loss = lambda params: -ns["elbo"](elbo_rng, params, batch) / batch_size
        value, g = jax.value_and_grad(loss)(get_params(opt_state))
        return opt_update(i, g, opt_state), value, g
    return step, init, opt_init, get_params, train_images, num_batches


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fetch", required=True, metavar="MIRROR", help="a git mirror of JAX")
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args(argv)
    step, init, opt_init, get_params, images, num_batches = _example(args.fetch)
    import jax
    from jax import random
    from jxkernel.core.ir import Literal
    from jxkernel.core.numpy_simplify import inline_calls
    cpu, numpy = jax.devices("cpu")[0], jax.devices("numpy")[0]
    leaves = {}
    for name, device in (("xla", cpu), ("numpy", numpy)):
        with jax.default_device(device):
            leaves[name] = [np.asarray(x) for x in jax.tree.leaves(init())]
    differ = sum(int((a != b).sum()) for a, b in zip(leaves["xla"], leaves["numpy"]))
    print(f"initial parameters: {differ} of {sum(a.size for a in leaves['xla'])} differ")
    tree = jax.tree.structure(init())
    runs = {}
    for name, device in (("xla", cpu), ("numpy", numpy)):   # both from XLA's parameters
        state = opt_init(jax.device_put(jax.tree.unflatten(tree, leaves["xla"]), device))
        runs[name] = []
        for s in range(args.steps):
            epoch, i = divmod(s, num_batches)
            state, value, g = step(jax.device_put(random.key(epoch), device), i, state,
                                   jax.device_put(images, device))
            runs[name].append((np.asarray(value), [np.asarray(x) for x in jax.tree.leaves(g)],
                               [np.asarray(x) for x in jax.tree.leaves(get_params(state))]))
    print("from the same initial parameters, per step (XLA / NumPy):")
    for s, ((vx, gx, px), (vn, gn, pn)) in enumerate(zip(runs["xla"], runs["numpy"])):
        count = lambda xs, ys: sum(int((x != y).sum()) for x, y in zip(xs, ys))
        print(f"  step {s}: loss {float(vx)!r} / {float(vn)!r}; gradient entries differing "
              f"{count(gx, gn)} (at most {max(map(_ulps, gn, gx)):.0f} ulps of a leaf's "
              f"largest), parameters {count(px, pn)} of {sum(x.size for x in px)}")
    args0 = (random.key(0), opt_init(jax.tree.unflatten(tree, leaves["xla"])),
             jax.device_put(images, cpu))
    closed = jax.make_jaxpr(lambda r, st, im: step(r, 0, st, im))(*args0)
    jaxpr = inline_calls(closed.jaxpr)
    env = dict(zip(jaxpr.constvars, closed.consts))
    env.update(zip(jaxpr.invars, jax.tree.leaves(args0)))
    read = lambda v: v.val if isinstance(v, Literal) else env[v]
    seen, parted = collections.Counter(), []
    for n, eqn in enumerate(jaxpr.eqns):
        ins = [read(v) for v in eqn.invars]
        run = jax.jit(lambda *a, eqn=eqn: eqn.primitive.bind(*a, **eqn.params))
        outs = [run(*jax.device_put(ins, d)) for d in (cpu, numpy)]
        if not eqn.primitive.multiple_results:
            outs = [[o] for o in outs]
        seen[eqn.primitive.name] += 1
        for v, x, y in zip(eqn.outvars, *outs):
            env[v] = x
            dtype = getattr(v.aval, "dtype", None)
            if not isinstance(dtype, np.dtype) or dtype.kind != "f":    # (keys: bits agree)
                continue
            x, y = np.asarray(x), np.asarray(y)
            if not np.array_equal(x, y, equal_nan=True):
                parted.append((n, eqn.primitive.name, x.shape, int((x != y).sum()),
                               _ulps(y, x), eqn.params.get("axes")))
    print(f"step 0 equation by equation ({len(jaxpr.eqns)} equations, XLA's inputs to both):")
    for n, name, shape, count, ulps, axes in parted:
        print(f"  #{n} {name}{'' if axes is None else f' axes={axes}'} {shape}: {count} of "
              f"{int(np.prod(shape))} differ, at most {ulps:.1f} ulps of its largest")
    parted_kinds = collections.Counter(p[1] for p in parted)
    print("  differing / run, by primitive:",
          ", ".join(f"{k} {c}/{seen[k]}" for k, c in parted_kinds.items()))


if __name__ == "__main__":
    sys.exit(main())
