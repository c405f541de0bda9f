"""Fifteen workloads timed with JAX or with jxkernel, to compare the two on one machine.

    .venv-jax/bin/python benchmarks/workloads.py --impl jax --json benchmarks/results/jax.json
    .venv/bin/python benchmarks/workloads.py --impl jxkernel --only mlp_step,scan_rnn
    python3 benchmarks/workloads.py --table jax.json jxkernel.json   # needs neither library

`sh benchmarks/compare_with_jax.sh` runs it for both, alternating, and prints the table.
The module under test is imported by name (`--impl`), so a jxkernel run never imports jax.
Only names both libraries have are used: jit, grad, vmap, make_jaxpr, jit(f).lower(...).compile(),
numpy, lax.scan, Array.block_until_ready. Input data comes from NumPy, never from the
library's PRNG.

Method (all times are seconds per call, time.perf_counter, every call blocked until its
outputs are ready):
- steady-state metrics (per_call, per_step, eager, jit, ...): after warm-up, REPEATS
  batches of n calls, n sized so that a batch lasts about BATCH_S; one sample per batch.
- first-call metrics (first_call, make_jaxpr_N*, aot_*, shape_change): each sample builds
  a new Python function (or a new shape), so it pays trace, lowering, compile and run. The
  first sample is also the process's first use of that code: the median hides it, the JSON
  keeps every sample.
--json appends one run, {"meta": {...}, "results": [{"workload", "metric", "median_s",
"min_s", "samples_s", "calls_per_sample"}]}, to {"runs": [...]} in the file. --table pools
the samples of every run of an implementation and adds a ratio column against the first.
"""
import argparse
import importlib
import importlib.metadata
import itertools
import json
import os
import platform
import statistics
import sys
import time
import types

import numpy as np

REPEATS, BATCH_S, FIRST_SAMPLES, BIG_FIRST_SAMPLES = 7, 0.2, 5, 3
QUICK = {"REPEATS": 2, "BATCH_S": 0.01, "FIRST_SAMPLES": 2, "BIG_FIRST_SAMPLES": 1}


# ---------------------------------------------------------------- measuring

def ready(out):
    """Wait for every array in `out`. A plain walk, not the library's tree_util, so both
    libraries pay the same (small) cost per call."""
    if hasattr(out, "block_until_ready"):
        out.block_until_ready()
    elif isinstance(out, (list, tuple)):
        for o in out:
            ready(o)
    elif isinstance(out, dict):
        for o in out.values():
            ready(o)
    return out


def timed(fn, *args):
    start = time.perf_counter()
    ready(fn(*args))
    return time.perf_counter() - start


def steady(fn, *args):
    """(per-call seconds of each batch, calls per batch) of fn(*args) once it is warm."""
    ready(fn(*args))
    n = 1
    while True:  # grow the batch until it is long enough to scale to BATCH_S
        start = time.perf_counter()
        for _ in range(n):
            ready(fn(*args))
        elapsed = time.perf_counter() - start
        if elapsed >= BATCH_S / 10 or n >= 100_000:
            break
        n *= 10
    n = max(1, min(100_000, round(n * BATCH_S / elapsed)))
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(n):
            ready(fn(*args))
        samples.append((time.perf_counter() - start) / n)
    return samples, n


def first_calls(build, *args, samples=None):
    """Seconds of the first call of a freshly built function, once per sample."""
    times = []
    for _ in range(samples or FIRST_SAMPLES):
        times.append(timed(build(), *args))
    return times, 1


# ---------------------------------------------------------------- models and data

def normal(L, seed, *shape, scale=1.0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return L.jnp.asarray(x * np.float32(scale))


def mlp_params(L, sizes):
    """[(W, b), ...] with W ~ N(0, 1/fan_in) and zero biases."""
    return [(normal(L, i, fan_in, fan_out, scale=fan_in ** -0.5),
             L.jnp.zeros((fan_out,), L.jnp.float32))
            for i, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes))]


def labels(batch, classes=10):
    return np.eye(classes, dtype=np.float32)[np.random.default_rng(0).integers(0, classes, batch)]


def cross_entropy(L):
    """Softmax cross-entropy of an MLP whose hidden layers alternate tanh and relu."""
    jnp = L.jnp

    def loss(params, x, y):
        for i, (W, b) in enumerate(params[:-1]):
            z = x @ W + b
            x = jnp.tanh(z) if i % 2 == 0 else jnp.maximum(z, 0.0)
        W, b = params[-1]
        logits = x @ W + b
        shifted = logits - jnp.max(logits, axis=-1, keepdims=True)
        logp = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))
        return -jnp.mean(jnp.sum(y * logp, axis=-1))
    return loss


def elementwise_chain(L, n):
    """A new function of n elementwise ops in turn: sin, * 1.0001, + 0.5."""
    def f(x):
        for i in range(n):
            step = i % 3
            if step == 0:
                x = L.jnp.sin(x)
            elif step == 1:
                x = x * 1.0001
            else:
                x = x + 0.5
        return x
    return f


def fresh_chains(L, n, transform):
    """A builder of transform(chain of n ops): each call builds a new Python function."""
    return lambda: transform(elementwise_chain(L, n))


# ---------------------------------------------------------------- workloads
# Each is a generator over (metric, (samples, calls per sample)), so a failure midway
# keeps the metrics measured before it.

WORKLOADS = {}


def workload(gen):
    WORKLOADS[gen.__name__] = gen
    return gen


@workload
def dispatch_jit(L):
    add_one = L.jax.jit(lambda x: x + 1)
    x = L.jnp.asarray(np.arange(8, dtype=np.float32))
    yield "per_call", steady(add_one, x)


@workload
def dispatch_eager(L):
    x = L.jnp.asarray(np.arange(8, dtype=np.float32))
    yield "sin_per_op", steady(L.jnp.sin, x)


@workload
def selu_1m(L):
    def selu(x, alpha=1.67, scale=1.05):
        return scale * L.jnp.where(x > 0, x, alpha * L.jnp.exp(x) - alpha)
    x = normal(L, 0, 1_000_000)
    yield "eager", steady(selu, x)
    fast = L.jax.jit(selu)
    yield "jit", steady(fast, x)


@workload
def vmap_forward(L):
    def predict(params, x):
        for W, b in params[:-1]:
            x = L.jnp.tanh(x @ W + b)
        W, b = params[-1]
        return x @ W + b
    params, x = mlp_params(L, [64, 256, 256, 10]), normal(L, 10, 256, 64)

    def build():
        return L.jax.jit(L.jax.vmap(predict, in_axes=(None, 0)))
    yield "first_call", first_calls(build, params, x)
    yield "per_call", steady(build(), params, x)


@workload
def dot_1000(L):
    a = normal(L, 1, 1000, 1000)
    yield "jnp_dot", steady(L.jnp.dot, a, a)
    host = np.asarray(a)
    yield "np_dot", steady(np.dot, host, host)  # the BLAS baseline on the same data


@workload
def mlp_step(L, lr=0.01):
    params = mlp_params(L, [784, 512, 512, 10])
    x, y = normal(L, 10, 128, 784), L.jnp.asarray(labels(128))

    def build():
        loss = cross_entropy(L)

        def sgd(params, x, y):
            grads = L.jax.grad(loss)(params, x, y)
            return [(W - lr * gW, b - lr * gb) for (W, b), (gW, gb) in zip(params, grads)]
        return L.jax.jit(sgd)
    yield "first_call", first_calls(build, params, x, y)
    yield "per_step", steady(build(), params, x, y)


@workload
def per_example_grads(L):
    params = mlp_params(L, [64, 128, 128, 10])
    x, y = normal(L, 10, 256, 64), L.jnp.asarray(labels(256))

    def build():
        return L.jax.jit(L.jax.vmap(L.jax.grad(cross_entropy(L)), in_axes=(None, 0, 0)))
    yield "first_call", first_calls(build, params, x, y)
    yield "per_call", steady(build(), params, x, y)


@workload
def scan_rnn(L, steps=1000, hidden=128):
    jnp = L.jnp
    W = normal(L, 2, hidden, hidden, scale=hidden ** -0.5)
    xs = normal(L, 3, steps, hidden)

    def final_state(W, xs):
        h, _ = L.lax.scan(lambda h, x: (jnp.tanh(W @ h + x), None),
                          jnp.zeros((hidden,), jnp.float32), xs)
        return h
    # a new lambda per build: jit of the same function object would reuse JAX's caches
    builders = {"fwd": lambda: L.jax.jit(lambda W, xs: final_state(W, xs)),
                "grad": lambda: L.jax.jit(L.jax.grad(lambda W, xs: jnp.sum(final_state(W, xs))))}
    for name, build in builders.items():
        yield f"{name}_first_call", first_calls(build, W, xs)
        yield f"{name}_per_call", steady(build(), W, xs)


@workload
def trace_scaling(L):
    x = L.jnp.asarray(np.linspace(0, 1, 128, dtype=np.float32))
    for n in (100, 1000, 4000):
        k = BIG_FIRST_SAMPLES if n == 4000 else FIRST_SAMPLES
        for metric, transform in (("make_jaxpr", L.jax.make_jaxpr), ("jit_first_call", L.jax.jit)):
            yield f"{metric}_N{n}", first_calls(fresh_chains(L, n, transform), x, samples=k)
        lower, compile_ = [], []  # the first call's trace + lowering apart from XLA's compile
        for _ in range(k):
            f = L.jax.jit(elementwise_chain(L, n))
            start = time.perf_counter()
            lowered = f.lower(x)
            middle = time.perf_counter()
            lowered.compile()
            lower.append(middle - start)
            compile_.append(time.perf_counter() - middle)
        yield f"aot_lower_N{n}", (lower, 1)
        yield f"aot_compile_N{n}", (compile_, 1)


@workload
def recompile(L):
    f = L.jax.jit(lambda x: L.jnp.sum(L.jnp.sin(x) * x + 1.0))
    x = L.jnp.asarray(np.ones(100, np.float32))
    yield "cache_hit", steady(f, x)
    unseen = [L.jnp.asarray(np.ones(101 + i, np.float32)) for i in range(FIRST_SAMPLES)]
    yield "shape_change", ([timed(f, u) for u in unseen], 1)


# Workloads on SHARDED_DEVICES simulated CPU devices. Asking for one (--only) starts the
# whole process with that many devices (XLA_FLAGS for JAX, JXKERNEL_CPU_DEVICES for
# jxkernel), so they are left out of a run of every workload and run in processes of their own.
SHARDED_DEVICES = 8
SHARDED = {"dp_mlp_step", "shard_map_psum", "pmap_101"}


def mesh_1d(L):
    """A mesh 'x' of SHARDED_DEVICES devices, and the shardings over it: replicated, split."""
    devices = L.jax.devices()
    if len(devices) < SHARDED_DEVICES:
        raise RuntimeError(f"needs {SHARDED_DEVICES} devices, found {len(devices)}")
    S = L.jax.sharding
    mesh = S.Mesh(np.array(devices[:SHARDED_DEVICES]), ("x",))
    return mesh, S.NamedSharding(mesh, S.PartitionSpec()), \
        S.NamedSharding(mesh, S.PartitionSpec("x"))


@workload
def dp_mlp_step(L, lr=0.01, batch=256):
    """Data-parallel SGD step: the batch split over 'x', parameters replicated; XLA's
    partitioner inserts the all-reduce of the gradients."""
    mesh, replicated, split = mesh_1d(L)
    params = L.jax.device_put(mlp_params(L, [784, 512, 512, 10]), replicated)
    x = L.jax.device_put(normal(L, 10, batch, 784), split)
    y = L.jax.device_put(L.jnp.asarray(labels(batch)), split)
    loss = cross_entropy(L)

    def sgd(params, x, y):
        grads = L.jax.grad(loss)(params, x, y)
        return [(W - lr * gW, b - lr * gb) for (W, b), (gW, gb) in zip(params, grads)]
    step = L.jax.jit(sgd, in_shardings=(replicated, split, split), out_shardings=replicated)
    yield "per_step", steady(step, params, x, y)


@workload
def shard_map_psum(L):
    """An all-reduce written with shard_map: each device's block summed over 'x'."""
    mesh, _, split = mesh_1d(L)
    P = L.jax.sharding.PartitionSpec
    total = L.jax.jit(L.jax.shard_map(lambda a: L.lax.psum(a, "x"), mesh=mesh,
                                      in_specs=P("x"), out_specs=P()))
    for metric, width in (("per_call_f32_8x128", 128), ("per_call_f32_8x131072", 131072)):
        x = L.jax.device_put(normal(L, 4, SHARDED_DEVICES, width), split)
        yield metric, steady(total, x)


# Whole programs, end to end, in the style of three of JAX's own pages (written for this
# file, not copied): each sample is one run of the program in this process (the interpreter
# and the library already started), wall time until its last value is on the host.
# "first_run" is the process's first run: it pays every trace and XLA compile. "rerun" runs
# the same program again: new Python closures, so jit traces again, while the library's
# caches of eager ops (and whatever else survives a new function) are warm.

def end_to_end(program, *args, runs=None):
    first = [timed(program, *args)]
    yield "first_run", (first, 1)
    yield "rerun", ([timed(program, *args) for _ in range(runs or FIRST_SAMPLES)], 1)


@workload
def random_guide(L):
    """The random-numbers guide's kind of program: many small eager samplers, keys split
    and folded one at a time, a list of keys consumed one by one, one vmap over keys."""
    random, jnp = L.jax.random, L.jnp

    def program():
        key = random.key(1701)
        draws = []
        for _ in range(12):                      # split, use the subkey, keep the key
            key, subkey = random.split(key)
            draws.append(random.normal(subkey))
        key, *subkeys = random.split(key, num=25)
        one_by_one = np.stack([np.asarray(random.uniform(k)) for k in subkeys[:8]])
        at_once = random.uniform(subkeys[8], shape=(8,))
        batched = L.jax.vmap(random.normal)(random.split(subkeys[9], 8))
        for step in range(8):                    # a key per step, folded from a base key
            k = random.fold_in(subkeys[10], step)
            draws.append(jnp.sum(random.normal(k, (4, 4))))
        draws.append(jnp.sum(random.permutation(subkeys[11], 16)))
        draws.append(jnp.mean(random.bernoulli(subkeys[12], 0.3, (32,))))
        draws.append(random.randint(subkeys[13], (), 0, 10).astype(jnp.float32))
        draws.append(jnp.sum(random.choice(subkeys[14], 5, (3,), replace=False)))
        return (float(jnp.sum(jnp.stack(draws))) + float(one_by_one.sum())
                + float(jnp.sum(at_once)) + float(jnp.sum(batched)))
    yield from end_to_end(program)


@workload
def kernel_lsq(L, n=64, d=8, steps=200):
    """A kernel least-squares fit as in JAX's examples: Gram matrices from nested vmaps of
    a kernel, gradient descent with momentum in a jitted step called from a Python loop
    (the step number a Python int, as the example's optimizer passes it), predictions from
    a vmap, and per-point input gradients of the fitted function by vmap of grad."""
    jax, jnp = L.jax, L.jnp
    rng = np.random.default_rng(0)
    xs = jnp.asarray(rng.standard_normal((n, d)).astype(np.float32))
    ys = jnp.asarray(np.sin(np.asarray(xs).sum(axis=1)).astype(np.float32))

    def program():
        def rbf(x, y):
            return jnp.exp(-0.5 * jnp.sum((x - y) ** 2))

        def gram(kernel, a, b):
            return jax.vmap(lambda x: jax.vmap(lambda y: kernel(x, y))(b))(a)

        K = jax.jit(lambda a: gram(rbf, a, a))(xs)

        def objective(v):
            return 0.5 * jnp.sum((K @ v - ys) ** 2) + 0.01 * jnp.sum(v ** 2)

        @jax.jit
        def update(i, state):
            v, velocity = state
            velocity = 0.9 * velocity - 1e-3 * jax.grad(objective)(v)
            return v + velocity / (1.0 + 0.0 * i), velocity

        state = (jnp.zeros(n), jnp.zeros(n))
        for i in range(steps):
            state = update(i, state)
        v = state[0]

        def predict(x):
            return jnp.sum(v * jax.vmap(lambda x_: rbf(x, x_))(xs))
        fitted = jax.jit(jax.vmap(predict))(xs)
        slopes = jax.vmap(jax.grad(predict))(xs)
        return float(jnp.mean((fitted - ys) ** 2)), float(jnp.sum(slopes))
    yield from end_to_end(program)


@workload
def pmap_101(L, steps=40):
    """JAX 101's parallelism chapter's kind of program on 8 CPU devices: a pmapped
    convolution, a normalization with psum, and a data-parallel linear-regression update
    step whose gradients and loss are averaged with pmean, called in a Python loop with
    replicated parameters and data split by hand into [devices, ...]."""
    jax, jnp, lax = L.jax, L.jnp, L.lax
    devices = jax.local_device_count()
    if devices < SHARDED_DEVICES:
        raise RuntimeError(f"needs {SHARDED_DEVICES} devices, found {devices}")
    rng = np.random.default_rng(0)
    xs_np = rng.standard_normal((128, 1)).astype(np.float32)
    ys_np = (3 * xs_np - 1 + 0.1 * rng.standard_normal((128, 1))).astype(np.float32)
    signal = np.arange(11 * devices, dtype=np.float32).reshape(devices, 11)

    def program():
        window = np.array([2.0, 3.0, 4.0], np.float32)

        def convolve(x, w):
            return jnp.stack([jnp.dot(x[i - 1:i + 2], w) for i in range(1, x.shape[0] - 1)])
        ws = np.stack([window] * devices)
        conv = jax.pmap(convolve)(signal, ws)
        twice = jax.pmap(convolve, in_axes=(0, None))(conv, window)  # stays on its devices

        def normalized(x, w):
            out = convolve(x, w)
            return out / lax.psum(out, axis_name="p")
        norm = jax.pmap(normalized, axis_name="p")(signal, ws)

        def loss_fn(params, x, y):
            return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)

        def update(params, x, y):
            loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
            grads = lax.pmean(grads, axis_name="batch")
            loss = lax.pmean(loss, axis_name="batch")
            params = jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads)
            return params, loss
        step = jax.pmap(update, axis_name="batch")

        params = {"w": jnp.zeros((1, 1)), "b": jnp.zeros((1,))}
        replicated = jax.tree_util.tree_map(lambda p: jnp.array([p] * devices), params)
        x_split = xs_np.reshape(devices, -1, 1)
        y_split = ys_np.reshape(devices, -1, 1)
        losses = []
        for _ in range(steps):
            replicated, loss = step(replicated, x_split, y_split)
            losses.append(loss[0])
        fitted = jax.tree_util.tree_map(lambda p: p[0], replicated)
        return (float(jnp.sum(conv)) + float(jnp.sum(twice)) + float(jnp.sum(norm))
                + float(losses[-1]) + float(fitted["w"][0, 0]))
    yield from end_to_end(program)


# ---------------------------------------------------------------- running and reporting

def load(name):
    """The library as L.jax, L.jnp, L.lax, imported by name so only the one asked for loads."""
    return types.SimpleNamespace(jax=importlib.import_module(name),
                                 jnp=importlib.import_module(name + ".numpy"),
                                 lax=importlib.import_module(name + ".lax"))


def show(seconds):
    if seconds >= 1:
        return f"{seconds:.4g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.4g} ms"
    return f"{seconds * 1e6:.4g} µs"


def version_of(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def run(impl, names, json_path):
    L = load(impl)
    meta = {"impl": impl, "version": getattr(L.jax, "__version__", "?"),
            "jaxlib": version_of("jaxlib"), "numpy": np.__version__,
            "python": platform.python_version(), "machine": platform.platform(),
            "cpus": os.cpu_count(), "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "loadavg_start": os.getloadavg()}
    print(f"# {impl} {meta['version']}: median and min seconds per call", flush=True)
    results = []
    for name in names:
        try:
            for metric, (samples, calls) in WORKLOADS[name](L):
                results.append({"workload": name, "metric": metric,
                                "median_s": statistics.median(samples), "min_s": min(samples),
                                "samples_s": samples, "calls_per_sample": calls})
                print(f"{name:18} {metric:22} {show(results[-1]['median_s']):>11} "
                      f"{show(min(samples)):>11}   {len(samples)} x {calls}", flush=True)
        except Exception as e:  # noqa: BLE001 (a workload the library cannot run fails alone)
            message = f"{type(e).__name__}: {e}"[:500]
            print(f"{name:18} FAILED {message[:160]}", flush=True)
            results.append({"workload": name, "metric": "error", "error": message})
    meta["loadavg_end"] = os.getloadavg()
    if json_path:
        doc = {"runs": []}
        if os.path.exists(json_path):
            with open(json_path) as f:
                doc = json.load(f)
        doc["runs"].append({"meta": meta, "results": results})
        with open(json_path, "w") as f:
            json.dump(doc, f, indent=1)


def table(paths):
    """Markdown: per implementation the median of all samples of all its runs, the lowest
    and highest run median, and the number of runs; then each other implementation's
    median over the first's."""
    runs = {}  # "impl version" -> {(workload, metric): [result of each run]}
    for path in paths:
        with open(path) as f:
            for one in json.load(f)["runs"]:
                label = f"{one['meta']['impl']} {one['meta']['version']}"
                for r in one["results"]:
                    if "error" not in r:
                        key = (r["workload"], r["metric"])
                        runs.setdefault(label, {}).setdefault(key, []).append(r)
    labels_ = list(runs)
    if not labels_:
        sys.exit("no results in " + ", ".join(paths))
    base = labels_[0]
    header = ["workload", "metric"]
    for label in labels_:
        header += [f"{label} median", "run medians (lo–hi)", "runs"]
    header += [f"{label} / {base}" for label in labels_[1:]]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * 2 + "---:|---:|---:|" * len(labels_) + "---:|" * (len(labels_) - 1))
    keys = list(dict.fromkeys(k for label in labels_ for k in runs[label]))
    for key in keys:
        cells, medians = list(key), {}
        for label in labels_:
            rs = runs[label].get(key)
            if not rs:
                cells += ["–", "–", "0"]
                continue
            medians[label] = statistics.median(s for r in rs for s in r["samples_s"])
            per_run = [r["median_s"] for r in rs]
            cells += [show(medians[label]), f"{show(min(per_run))} – {show(max(per_run))}",
                      str(len(rs))]
        for label in labels_[1:]:
            ok = label in medians and medians.get(base)
            cells.append(f"{medians[label] / medians[base]:.2f}x" if ok else "–")
        print("| " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", choices=("jax", "jxkernel"), default="jxkernel",
                    help="the library to time")
    ap.add_argument("--only", metavar="A,B", help="run these workloads: " + ", ".join(WORKLOADS))
    ap.add_argument("--json", metavar="PATH", help="append this run's results to PATH")
    ap.add_argument("--quick", action="store_true",
                    help="few and short samples: checks that everything runs, times mean little")
    ap.add_argument("--table", nargs="+", metavar="PATH", help="print the table of saved runs")
    args = ap.parse_args()
    if args.table:
        return table(args.table)
    names = args.only.split(",") if args.only else [n for n in WORKLOADS if n not in SHARDED]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        ap.error(f"unknown workload {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}")
    if args.quick:
        globals().update(QUICK)
    if SHARDED & set(names) and args.impl == "jax":     # before its CPU backend starts
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   f" --xla_force_host_platform_device_count={SHARDED_DEVICES}")
    elif SHARDED & set(names):
        os.environ["JXKERNEL_CPU_DEVICES"] = str(SHARDED_DEVICES)
    run(args.impl, names, args.json)


if __name__ == "__main__":
    main()
