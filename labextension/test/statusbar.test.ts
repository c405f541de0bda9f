// @vitest-environment jsdom
/**
 * The status bar's text and tooltip (src/statusText.ts, `describe`) for the states the kernel
 * sends: "N compiles" on XLA's backends, "N cache misses" on the NumPy backend (JupyterLite,
 * `%jxbackend numpy`), which compiles nothing, as %jxcompiles says (the state's `counted`).
 */
import { describe, expect, it, vi } from 'vitest';

// jsdom has no DragEvent, which @lumino/widgets (compilationsPanel.ts's Widget) reads as it loads
vi.hoisted(() => {
  (globalThis as any).DragEvent ??= class DragEvent extends MouseEvent {};
});

import type { JxConnection } from '../src/connection';
import { describe as statusOf } from '../src/statusText';
import messages from './messages.json';

describe('the status bar: what its count counts', () => {
  const connected = (change: object) =>
    ({ status: 'connected', state: { ...messages.state, ...change } }) as unknown as JxConnection;

  it("says compiles on XLA's backends, as the kernel sends them", () => {
    expect(messages.state.counted).toBe('compiles');      // what the kernel sent on the CPU
    const [text, tooltip] = statusOf(connected({ compiles: 2, cache_hits: 5 }));
    expect(text).toBe('jx · cpu:0 (1 device) · 2 compiles, 5 hits');
    expect(tooltip).toContain('compiling for cpu:0. Your functions: 2 compilations, 5 cache hits.');
  });

  it('says cache misses on the NumPy backend, which compiles nothing (%jxcompiles\' words)', () => {
    const numpy = { device: 'numpy:0', backend: 'numpy', counted: 'cache misses', compiles: 2,
                    other_compiles: 3, cache_hits: 1 };
    const [text, tooltip] = statusOf(connected(numpy));
    expect(text).toBe('jx · numpy:0 (1 device) · 2 cache misses, 1 hit · +3 not yours');
    expect(text).not.toContain('compiles');
    expect(tooltip).toContain('running on numpy:0. Your functions: 2 cache misses (the NumPy backend ' +
                              'compiles nothing: NumPy runs each traced program), 1 cache hit; and ' +
                              '3 cache misses of eager operations');
    expect(tooltip).not.toMatch(/compil(ing|ations)/);
  });

  it('says one of each in the singular', () => {
    expect(statusOf(connected({ compiles: 1, cache_hits: 1, other_compiles: 0 }))[0])
      .toBe('jx · cpu:0 (1 device) · 1 compile, 1 hit');
    const numpy = { device: 'numpy:0', counted: 'cache misses', compiles: 1, other_compiles: 1,
                    cache_hits: 0 };
    const [text, tooltip] = statusOf(connected(numpy));
    expect(text).toBe('jx · numpy:0 (1 device) · 1 cache miss, 0 hits · +1 not yours');
    expect(tooltip).toContain('Your functions: 1 cache miss (the NumPy');
    expect(tooltip).toContain('0 cache hits; and 1 cache miss of eager operations');
  });

  it('reads a state from an older kernel, without the field, as compiles', () => {
    const { counted: _, ...older } = messages.state;
    expect(statusOf(connected({ ...older, counted: undefined }))[0]).toContain(' compiles, ');
  });
});
