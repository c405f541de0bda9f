/**
 * What a jit's cache miss did, in the words the Compilations panel, the %jxcompiles view and
 * the compile report say it with: one helper per idea, each choosing its word from the event's
 * backend, as the kernel's jxkernel/core/miss_words.py does for the notes and %jxcompiles'
 * text. On XLA's backends a miss traces, lowers and compiles the function; the NumPy backend
 * (JupyterLite's) compiles nothing: a miss traces the function and NumPy runs its jaxpr, so
 * there it is "traced", a "cache miss" (JAX's own word). The facts are the same otherwise.
 */

/** The NumPy backend's platform name, the one backend that compiles nothing. */
export const NUMPY = 'numpy';

interface IOnBackend {
  backend?: string | null;
}

/** Whether a miss on `backend` compiles a program (the NumPy backend's traces only). */
export function compiles(backend: string | null | undefined): boolean {
  return backend !== NUMPY;
}

/** Whether one of `events` ran on the NumPy backend: then their count is of cache misses. */
export function anyNumpy(events: readonly IOnBackend[]): boolean {
  return events.some(e => !compiles(e.backend));
}

/** `n` misses counted: "3 compilations", or "3 cache misses" where `numpy`. */
export function misses(n: number, numpy: boolean): string {
  return numpy ? `${n} cache miss${n === 1 ? '' : 'es'}` : `${n} compilation${n === 1 ? '' : 's'}`;
}

/** `n` of them again: "1 recompilation", or "1 again" where `numpy` (nothing recompiles). */
export function again(n: number, numpy: boolean): string {
  return numpy ? `${n} again` : `${n} recompilation${n === 1 ? '' : 's'}`;
}

/** Where an event's program came from: its cache ("compiled", "memory", "disk"), "traced"
 * for a miss on the NumPy backend (whose cache field says "compiled" of a program NumPy runs). */
export function cacheSaid(e: IOnBackend & { cache: string }): string {
  return e.cache === 'compiled' && !compiles(e.backend) ? 'traced' : e.cache;
}

/** The phase after trace and lower: "compile" (XLA's), "prepare" on the NumPy backend
 * (making the program that runs the jaxpr with NumPy). */
export function lastPhase(backend: string | null | undefined): string {
  return compiles(backend) ? 'compile' : 'prepare';
}
