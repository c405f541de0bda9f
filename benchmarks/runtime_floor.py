"""The runtime floor: what one call costs before any tracing or jit cache lookup.

    python benchmarks/runtime_floor.py            # ~10 s; numbers in µs per call
    JXKERNEL_CPU_DEVICES=4 python benchmarks/runtime_floor.py   # adds a 4-device program
    python benchmarks/runtime_floor.py --only fastpath   # compiled cache hit vs Python path

Each line times a loop (best of several repeats, to dodge noise) and prints the
jaxlib floor measured in the same run beside ours, so the difference is our
Python overhead. benchmarks/README.md records the numbers and compares them with
docs/jaxlib.md §1-2 (bare jaxlib: arrays and transfers, execution and dispatch cost).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from jxkernel.core import Primitive, ShapedArray, abstract_eval_rules, lowering_rules
from jxkernel.xla import Executable, compile_module, default_device, device_count, devices
from jxkernel.xla.array import Array, sharding_for
from jxkernel.xla.put import device_put
from jxkernel.xla.client import xc


def best_us(fn, number: int, repeat: int = 7) -> float:
    """Best per-call time of `fn()` in µs over `repeat` loops of `number` calls."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best * 1e6


ADD_ONE = """module @add_one {
  func.func public @main(%x: tensor<f32>) -> tensor<f32> {
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %0 = stablehlo.add %x, %c : tensor<f32>
    return %0 : tensor<f32>
  }
}
"""


def bench_execute(n):
    dev = default_device()
    loaded, _ = compile_module(ADD_ONE, [dev])
    aval = ShapedArray((), np.float32)
    exe = Executable(loaded, [aval], dev)
    x = device_put(np.float32(1.0))
    handlers = [xc.array_result_handler(aval, sharding_for((dev,)), True, _skip_checks=True)]
    buf = x._buf
    rows = [
        ("jaxlib execute_sharded + consume_with_handlers (floor)",
         best_us(lambda: loaded.execute_sharded([buf]).consume_with_handlers(handlers), n)),
        ("Executable.call_buffers([buf])",
         best_us(lambda: exe.call_buffers([buf]), n)),
        ("Executable.call_arrays([x])", best_us(lambda: exe.call_arrays([x]), n)),
        ("Executable(x)  (general path: checks, moves)", best_us(lambda: exe(x), n)),
        ("Executable.call_buffers + block_until_ready",
         best_us(lambda: exe.call_buffers([buf])[0].block_until_ready(), n)),
    ]
    return rows


def median_us(timers: dict, number: int, rounds: int = 15) -> dict:
    """Median per-call µs of each zero-argument timer, the timers alternating round by round
    (each round one loop of `number` calls of each), in CPU time of this process."""
    samples = {name: [] for name in timers}
    for _ in range(rounds):
        for name, (before, fn) in timers.items():
            before()
            start = time.process_time()
            for _ in range(number):
                fn()
            samples[name].append((time.process_time() - start) / number * 1e6)
    return {name: statistics.median(s) for name, s in samples.items()}


def bench_fastpath(n):
    """The compiled cache hit (core/native.py) against the Python path, alternating in one
    process: the same LastHit / last run with its `native` Hit put back or taken away."""
    from jxkernel import jit
    from jxkernel.numpy import sin
    from jxkernel.transforms.jit.cache import LAST_HIT
    from jxkernel.xla import dispatch, fastpath
    if fastpath.native is None:
        return [("compiled fast path: off here (python -m jxkernel says why)", float("nan"))]
    f = jit(lambda x: x + 1)
    x = device_put(np.arange(8, dtype=np.float32))
    for _ in range(3):
        f(x), sin(x)
    last, run = f._last[LAST_HIT], next(r for p, r in dispatch._last_run.items()
                                         if p.name == "sin")
    hit, eager_hit = last.native, run.native         # (the jit's: a Recent's tuple of Hits)
    exe = last.newest.entry.exe
    bufs, execute, handlers, args = [x._buf], exe._execute, exe.handlers, (x,)

    def native(on):
        def put():
            last.native, run.native = (hit, eager_hit) if on else (None, None)
        return put
    nothing = native(True)
    timers = {
        "jaxlib execute_sharded alone, from Python": (nothing, lambda: execute(bufs)),
        "jaxlib execute_sharded + consume_with_handlers, from Python (floor)":
            (nothing, lambda: execute(bufs).consume_with_handlers(handlers)),
        "the same from C, + signature check + Array wrapping: Hit(args)":
            (nothing, lambda: hit(args)),
        "jit cache hit f(x) f32[8], compiled fast path": (native(True), lambda: f(x)),
        "jit cache hit f(x) f32[8], Python path": (native(False), lambda: f(x)),
        "eager sin f32[8], compiled fast path": (native(True), lambda: sin(x)),
        "eager sin f32[8], Python path": (native(False), lambda: sin(x)),
    }
    rows = list(median_us(timers, max(n // 4, 100)).items())
    native(True)()
    return rows


def bench_eager(n):
    """An eager primitive through the core's bind -> xla dispatch, in a loop."""
    sin_p = Primitive("bench_sin")
    abstract_eval_rules[sin_p] = lambda x: ShapedArray(x.shape, x.dtype, x.weak_type)
    lowering_rules[sin_p] = lambda ctx, x: ctx.op1("stablehlo.sine", [x])
    x = device_put(np.arange(3.0, dtype=np.float32))
    return [("eager primitive bind (sin of f32[3])", best_us(lambda: sin_p.bind(x), n))]


def bench_transfers(n):
    dev = default_device()
    sh = sharding_for((dev,))
    copy = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
    rows = []
    for size in (1, 1000):
        host = np.arange(size, dtype=np.float32)
        aval = ShapedArray(host.shape, host.dtype)
        rows.append((f"jaxlib batched_device_put f32[{size}] (floor)",
                     best_us(lambda: xc.batched_device_put(aval, sh, [host], [dev], True, False,
                                                           copy, True), n)))
        rows.append((f"device_put(np f32[{size}])", best_us(lambda: device_put(host), n)))
    rows.append(("device_put(1.0)  (Python scalar)", best_us(lambda: device_put(1.0), n)))
    x = device_put(np.arange(1000, dtype=np.float32)).block_until_ready()
    buf = x._buf
    rows.append(("jaxlib np.asarray(buffer) f32[1000], buffer protocol (floor)",
                 best_us(lambda: np.asarray(buf), n)))
    rows.append(("np.asarray(Array f32[1000]), first read of this Array",
                 best_us(lambda: np.asarray(Array(buf, x.aval)), n)))
    rows.append(("np.asarray(Array f32[1000]), later reads (cached view)",
                 best_us(lambda: np.asarray(x), n)))
    host = np.arange(1000, dtype=np.float32)
    aval = x.aval
    rows.append(("jaxlib put + _single_device_array_to_np_array_did_copy f32[1000]",
                 best_us(lambda: xc.batched_device_put(aval, sh, [host], [dev], True, False, copy,
                                                       True)
                         ._single_device_array_to_np_array_did_copy(), n // 10)))
    rows.append(("device_put + np.asarray f32[1000]  (round trip)",
                 best_us(lambda: np.asarray(device_put(host)), n)))
    rows.append(("device_put(1.0) + float()", best_us(lambda: float(device_put(1.0)), n)))
    return rows


def bench_multidevice(n):
    """A program over all devices, as pmap and shard_map run one: a jit of shard_map."""
    count = device_count()
    if count < 2:
        return []
    import jxkernel as jax
    from jxkernel.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(devices()), ("i",))
    split = NamedSharding(mesh, P("i"))
    total = jax.jit(jax.shard_map(lambda x: jax.lax.psum(x, "i"), mesh=mesh, in_specs=P("i"),
                                  out_specs=P()))
    host = np.arange(count, dtype=np.float32)
    x = jax.device_put(host, split)
    return [(f"jit(shard_map(psum)) over {count} devices: call + block_until_ready",
             best_us(lambda: total(x).block_until_ready(), max(n // 20, 50))),
            (f"device_put of f32[{count}] split over {count} devices",
             best_us(lambda: jax.device_put(host, split), n // 10))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20000, help="calls per timed loop")
    parser.add_argument("--only", help="run only this bench (e.g. fastpath)")
    args = parser.parse_args()
    print(f"{'what':<68} {'µs/call':>8}")
    for bench in (bench_execute, bench_fastpath, bench_eager, bench_transfers,
                  bench_multidevice):
        if args.only and bench.__name__ != f"bench_{args.only}":
            continue
        for label, us in bench(args.n):
            print(f"{label:<68} {us:8.2f}")


if __name__ == "__main__":
    main()
