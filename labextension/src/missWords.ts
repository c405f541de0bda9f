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

/** `n` things counted in words, the one place the views say a count: "1 compile",
 * "2 compiles", "1,024 flops" (`many`: a plural not made with an s, "cache misses"). */
export function plural(n: number, word: string, many: string = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

/** `n` misses counted: "3 compilations", or "3 cache misses" where `numpy`. */
export function misses(n: number, numpy: boolean): string {
  return numpy ? plural(n, 'cache miss', 'cache misses') : plural(n, 'compilation');
}

/** `n` misses in the status bar's and the panel's short words: "3 compiles", or "3 cache
 * misses" where `numpy`. */
export function compileCount(n: number, numpy: boolean): string {
  return numpy ? plural(n, 'cache miss', 'cache misses') : plural(n, 'compile');
}

/** `n` of them again: "1 recompilation", or "1 again" where `numpy` (nothing recompiles). */
export function again(n: number, numpy: boolean): string {
  return numpy ? `${n.toLocaleString('en-US')} again` : plural(n, 'recompilation');
}

/** What a miss did, past tense: "compiled", or "traced" on the NumPy backend. */
export function did(backend: string | null | undefined): string {
  return compiles(backend) ? 'compiled' : 'traced';
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

/** `n` fresh compiles the profile timed (`%timeit --phases`): "3 fresh compiles", or
 * "3 traced afresh" on the NumPy backend, where each is a trace and nothing compiles. */
export function freshCompiles(n: number, backend: string | null | undefined): string {
  return compiles(backend) ? plural(n, 'fresh compile') : `${n.toLocaleString('en-US')} traced afresh`;
}
