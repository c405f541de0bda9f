"""A bounded soak in one process: do jxkernel's memory mappings and RSS level off while it
compiles program after program (issue 45: every program used to stay, ~3 mappings each, and
at vm.max_map_count, ~21,000 programs, XLA's next compile crashed the process)?

    python benchmarks/stress.py --minutes 3                 # then a sub-run, fast path off
    python benchmarks/stress.py --minutes 10 --programs 25000 --threads 3
    python benchmarks/stress.py --minutes 1 --no-subrun     # this process only
    python benchmarks/stress.py --dropped 800               # the issue's figure, jxkernel
    .venv-jax/bin/python benchmarks/stress.py --dropped 800 --library jax    # and JAX's

Several threads each loop over: a jit of a lambda made anew and dropped (a distinct program
each time, from a shared counter), an eager operation on a new shape (more than the 1,024
eager programs kept, so they are evicted), one live jitted function called on new shapes
(its own cache's bound), grad of a dropped lambda (the transformations' jaxpr caches), a
large array (4 MiB) and an empty one, a deleted buffer that must refuse to be read, and a
donated one. It prints the mappings (/proc/self/maps lines) and the RSS as it goes. It judges
only the steady state: from the moment the bounded caches are full (the by-text cache, the eager
programs and the live function's signatures), the growth of the second half of that time must be
small; exit status 1 if it was not (or a thread failed, or the caches never filled). Then, unless
--no-subrun, it runs itself again with JXKERNEL_FASTPATH=0 (the Python hit paths) until its
caches have been full as long as they took to fill (at least 2 minutes), or --minutes. A run
of fixed length judged the fill itself on a loaded machine, where the caches fill later. --bound
(default 128) shrinks every cache first, so that a run of minutes reaches the steady state;
--bound 0 keeps jxkernel's own (512 by text, 1,024 eager and per function) for long soaks.
"""
from __future__ import annotations

import argparse
import gc
import itertools
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import numpy as np


def mappings() -> int:
    with open("/proc/self/maps", "rb") as f:
        return sum(1 for _ in f)


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def no_disk_cache(jxkernel) -> None:
    """Every program a real XLA compile, none read from or written to a cache folder.
    (jax_enable_compilation_cache=False would turn the by-text memory cache off too.)"""
    jxkernel.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="stress-"))
    jxkernel.config.update("jax_persistent_cache_min_compile_time_secs", 1e9)


def soak(seconds: float, programs: int, threads: int, report_s: float, bound: int,
         until_level: bool = False) -> int:
    """Run the loops; returns the exit status (0: levelled off, no thread failed). With
    `until_level`, stop once the caches have been full as long as they took to fill (at least
    2 minutes): enough for the verdict, however loaded the machine is."""
    import jxkernel as jax
    import jxkernel.numpy as jnp
    from jxkernel.core import lru
    from jxkernel.transforms.jit import cache as jit_cache
    from jxkernel.xla import compiler, dispatch

    no_disk_cache(jax)
    if bound:       # every cache this small, so that a short run reaches the steady state
        compiler.set_memory_cache_size(bound)
        for cache in list(lru._EVERY):
            cache.resize(bound)
        dispatch._fast.maxsize = bound
        jit_cache.SIGNATURES = bound       # the caches of functions jitted from now on

    counter = itertools.count()
    made = [0] * threads                  # programs each thread made (jit, eager, shapes, grad)
    stop = threading.Event()
    failures: list = []
    live = jax.jit(lambda v: jnp.tanh(v) * 2.0)
    donating = jax.jit(lambda v: v + 1.0, donate_argnums=0)
    x = jnp.ones(3)

    def one_round(n) -> int:
        """One round of every kind of work; returns how many programs it compiled."""
        jax.jit(lambda v, c=float(n): v * c + 1.0)(x).block_until_ready()   # dropped
        count = 1
        if n % 2 == 0:                     # eager: a new shape, 3,000 of them in turn
            jnp.sin(jnp.ones(n % 3000 + 1)).block_until_ready()
            count += 1
        if n % 3 == 0:                     # a live function, ever new shapes
            live(jnp.ones((n % 2000 + 1, 2))).block_until_ready()
            count += 1
        if n % 5 == 0:                     # grad of a dropped lambda
            jax.grad(lambda v, c=float(n): (v * c).sum())(x).block_until_ready()
            count += 1
        if n % 7 == 0:                     # large and empty arrays
            big = jnp.ones((1024, 1024)) * float(n)
            assert float(big[0, 0]) == float(n)
            assert (jnp.zeros((0, 3)) + 1.0).shape == (0, 3)
            del big
        if n % 11 == 0:                    # a deleted buffer refuses to be read
            gone = jnp.ones(1000) * 3.0
            gone.delete()
            try:
                np.asarray(gone)
            except RuntimeError:
                pass
            else:
                raise AssertionError("a deleted Array was read")
        # a donated buffer: deleted by the call, its result good
        fresh = jnp.ones(257) * float(n)
        out = donating(fresh)
        assert fresh.is_deleted() and float(out[0]) == float(n) + 1.0
        return count

    def worker(i):
        try:
            while not stop.is_set():
                n = next(counter)
                if n >= programs:
                    break
                made[i] += one_round(n)
        except BaseException:               # noqa: BLE001 -- reported, and the status says so
            failures.append(traceback.format_exc())
            stop.set()

    start = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    samples = []                           # (seconds, compiles, mappings, RSS MiB)
    fastpath = os.environ.get("JXKERNEL_FASTPATH", "1")
    print(f"JXKERNEL_FASTPATH={fastpath}, {threads} threads, at most {seconds / 60:.1f} min "
          f"or {programs} rounds; cache bounds: by text {compiler._memory_cache.maxsize}, "
          f"eager {dispatch._executables.maxsize}, per function {jit_cache.SIGNATURES}",
          flush=True)
    print(f"{'s':>6} {'programs':>9} {'mappings':>9} {'RSS MiB':>8} {'by text':>8} "
          f"{'evicted':>8} {'eager':>6}", flush=True)
    bounded = (compiler._memory_cache, dispatch._executables, live._cache)
    full_at = None                         # when every bounded cache first held its bound
    while any(t.is_alive() for t in pool):
        for t in pool:
            t.join(timeout=report_s / len(pool))
        now = time.perf_counter() - start
        if full_at is None and all(len(c) >= c.maxsize for c in bounded):
            full_at = now
            print(f"the caches are full at {now:.0f} s", flush=True)
        if now >= seconds or until_level and full_at is not None and \
                now >= full_at + max(full_at, 120.0):
            stop.set()
        gc.collect()
        samples.append((now, sum(made), mappings(), rss_mib()))
        print(f"{now:6.0f} {samples[-1][1]:9d} {samples[-1][2]:9d} {samples[-1][3]:8.0f} "
              f"{len(compiler._memory_cache):8d} {compiler._memory_cache.evictions:8d} "
              f"{len(dispatch._executables):6d}", flush=True)
    if full_at is None:
        print("the caches never filled (" + ", ".join(f"{len(c)} of {c.maxsize}" for c in bounded)
              + "): too short to judge; run longer or with a smaller --bound")
        return 1
    return verdict([s for s in samples if s[0] >= full_at], failures)


def verdict(samples, failures) -> int:
    """`samples` from when the caches were full: does the second half grow as little as
    levelled-off memory does?"""
    if failures:
        print(f"FAILED: {len(failures)} thread(s) raised:\n" + "\n".join(failures[:3]))
        return 1
    if len(samples) < 6:
        print("too short to judge (fewer than 6 samples after the caches filled): run longer")
        return 1
    half = len(samples) // 2
    middle, last = samples[:half + 1], samples[half:]

    def growth(part, i):
        return part[-1][i] - part[0][i]
    maps_mid, maps_last = growth(middle, 2), growth(last, 2)
    rss_mid, rss_last = growth(middle, 3), growth(last, 3)
    programs_last = growth(last, 1)
    print(f"second half after the caches filled: {programs_last} programs, mappings "
          f"{maps_last:+d} (first half {maps_mid:+d}), RSS {rss_last:+.0f} MiB (first half "
          f"{rss_mid:+.0f} MiB); "
          f"levels {samples[-1][2]} mappings, {samples[-1][3]:.0f} MiB")
    # Unbounded, each program kept ~3 mappings: the last third grew by ~3x its programs.
    # Levelled, a few dozen come and go with malloc's arenas.
    level = maps_last <= max(150, programs_last // 20) and \
        rss_last <= max(48.0, 0.10 * samples[-1][3])
    print("levelled off" if level else "DID NOT LEVEL OFF")
    return 0 if level else 1


def dropped(n: int, library: str) -> int:
    """The issue's measure: mappings and RSS after `n` jits of lambdas dropped at once (each a
    distinct program), after 20 to warm up; no disk cache, so each is compiled."""
    if library == "jax":
        import jax                         # for the comparison only (benchmarks may)
        import jax.numpy as jnp
        jax.config.update("jax_enable_compilation_cache", False)     # no disk cache
    else:
        import jxkernel as jax
        import jxkernel.numpy as jnp
        no_disk_cache(jax)
    x = jnp.ones(3)
    for i in range(20):
        jax.jit(lambda v, i=i: v * 1.5 + (i + 10_000.0))(x).block_until_ready()
    gc.collect()
    maps0, rss0 = mappings(), rss_mib()
    start = time.perf_counter()
    for i in range(n):
        jax.jit(lambda v, i=i: v * 2.5 + float(i))(x).block_until_ready()
    gc.collect()
    print(f"{library}: {n} jits of dropped lambdas in {time.perf_counter() - start:.1f} s: "
          f"mappings {maps0} -> {mappings()} ({mappings() - maps0:+d}), RSS {rss0:.0f} -> "
          f"{rss_mib():.0f} MiB ({rss_mib() - rss0:+.0f})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--programs", type=int, default=25_000,
                        help="stop after this many rounds (each compiles 1 to 4 programs)")
    parser.add_argument("--threads", type=int, default=3)
    parser.add_argument("--report", type=float, default=10.0, help="seconds between lines")
    parser.add_argument("--bound", type=int, default=128,
                        help="shrink every cache to this many entries, so that a run of "
                             "minutes fills them (0: jxkernel's own bounds, for long soaks)")
    parser.add_argument("--no-subrun", action="store_true",
                        help="skip the sub-run with JXKERNEL_FASTPATH=0")
    parser.add_argument("--until-level", action="store_true",
                        help="stop once the caches have been full as long as they took to "
                             "fill (at least 2 minutes), or at --minutes (the sub-run's way)")
    parser.add_argument("--dropped", type=int, default=0,
                        help="only measure the mappings after this many jits of dropped lambdas")
    parser.add_argument("--library", choices=("jxkernel", "jax"), default="jxkernel",
                        help="with --dropped: which library (jax needs .venv-jax)")
    args = parser.parse_args()
    if args.dropped:
        return dropped(args.dropped, args.library)
    if args.minutes <= 0 or args.programs <= 0 or args.threads <= 0:
        parser.error("--minutes, --programs and --threads must be positive")
    status = soak(args.minutes * 60, args.programs, args.threads, args.report, args.bound,
                  args.until_level)
    if not args.no_subrun:
        print("\nsub-run with the fast path off:", flush=True)
        child = subprocess.run([sys.executable, __file__, "--no-subrun", "--until-level",
                                "--minutes", str(args.minutes),
                                "--programs", str(args.programs),
                                "--threads", str(args.threads), "--report", str(args.report),
                                "--bound", str(args.bound)],
                               env={**os.environ, "JXKERNEL_FASTPATH": "0"})
        status = status or child.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
