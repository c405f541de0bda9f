// @vitest-environment jsdom
/**
 * On the NumPy backend (JupyterLite, `%jxbackend numpy`) nothing compiles: a miss traces the
 * function and NumPy runs its jaxpr. The Compilations panel, the saved %jxcompiles view and the
 * %jxreport view say so there (traced, cache misses, prepare), in src/missWords.ts' words,
 * and say compiled on XLA's backends, from the same events otherwise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

// jsdom has no DragEvent, which @lumino/widgets reads as it loads
vi.hoisted(() => {
  (globalThis as any).DragEvent ??= class DragEvent extends MouseEvent {};
});

import { CompilationsPanel } from '../src/compilationsPanel';
import { viewOrNote } from '../src/mime';
import { compileCount, misses, plural } from '../src/missWords';
import type { ICompileEvent, IOtherGroup } from '../src/protocol';
import messages from './messages.json';

const bundles: { [mime: string]: any } = JSON.parse(readFileSync(join(__dirname, 'bundles.json'), 'utf8'));

/** The user's two misses of one function (a new shape), as the kernel sends them, on `backend`. */
function twoMisses(backend: string): ICompileEvent[] {
  const eager = messages.compilations.events[0] as unknown as ICompileEvent;
  const first = {
    ...eager, seq: 7, function: '<lambda>', function_key: '<lambda>@In[3]:1', source: 'In[3]:1',
    signature: [['x', 'f32[3]']], trace_ms: 0.4, lower_ms: 0, compile_ms: 0.2, origin: 'user',
    backend
  } as ICompileEvent;
  return [first, { ...first, seq: 8, reason: 'x: f32[3] -> f32[4]', compile_ms: 0.1 }];
}

function panelOf(events: ICompileEvent[], counted?: string, others: IOtherGroup[] = []): HTMLElement {
  const noop = () => undefined;
  const panel = new CompilationsPanel({ open: noop, setFail: noop, clear: noop, exportAs: noop } as any);
  panel.setData(events, others, [], '', counted);
  (panel as any)._render();
  return panel.node;
}

describe('the Compilations panel', () => {
  it("counts compilations on XLA's backends: compiled, its compile time", () => {
    const node = panelOf(twoMisses('cpu'));
    expect(node.querySelector('.jx-Compilations-summary')!.textContent).toBe('2 compilations of your functions');
    expect(node.querySelector('.jx-col-cache')!.textContent).toBe('compiled');
    expect(node.querySelector('.jx-col-ms')!.textContent).toBe('trace 0.4 · lower 0.0 · compile 0.1 ms');
  });

  it('counts cache misses on the NumPy backend: traced, and no compile time', () => {
    const node = panelOf(twoMisses('numpy'));
    expect(node.querySelector('.jx-Compilations-summary')!.textContent).toBe('2 cache misses of your functions');
    const rows = [...node.querySelectorAll('.jx-Compilations-row')];
    expect(rows.map(r => r.querySelector('.jx-col-cache')!.textContent)).toEqual(['traced', 'traced']);
    expect(rows[0].querySelector('.jx-col-ms')!.textContent).toBe('trace 0.4 · lower 0.0 · prepare 0.1 ms');
    expect((rows[0] as HTMLElement).title).toContain('trace / lower / prepare: 0.4 / 0.0 / 0.1 ms, cache: traced');
    // (the legend names the guard, fail on recompile, by its name)
    expect(node.textContent).not.toMatch(/compiled|compilation|compile [\d.]/);
  });

  it("counts cache misses where the state says so (the NumPy backend selected), as the status bar", () => {
    expect(panelOf([], 'cache misses').querySelector('.jx-Compilations-summary')!.textContent).toBe(
      '0 cache misses of your functions');
    expect(panelOf([], 'compiles').querySelector('.jx-Compilations-summary')!.textContent).toBe(
      '0 compilations of your functions');
  });
});

describe("the panel's groups not yours", () => {
  const others = messages.compilations.others as unknown as IOtherGroup[];
  const headings = (node: HTMLElement) => [...node.querySelectorAll('.jx-Compilations-heading')] as HTMLElement[];
  const groups = (node: HTMLElement) => [...node.querySelectorAll('.jx-Compilations-group')] as HTMLElement[];

  it("head eager operations with their compiles on XLA's backends", () => {
    const node = panelOf(twoMisses('cpu'), 'compiles', others);
    const eager = headings(node)[0];
    expect(eager.textContent).toMatch(/^eager operations · \d+ compiles?$/);
    expect(eager.title).toContain('one primitive run outside jit, compiled once per operand types and parameters');
    expect(groups(node)[0].title).toMatch(/^sub: 1 compilation of eager operations, at In\[1\]:2;/);
  });

  it('head them with their cache misses, traced, on the NumPy backend', () => {
    // they said "eager operations · 3 compiles", "compiled once per operand types", where
    // NumPy ran each operation's trace and nothing compiled
    const node = panelOf(twoMisses('numpy'), 'cache misses', others);
    const all = headings(node);
    expect(all[0].textContent).toMatch(/^eager operations · \d+ cache miss(es)?$/);
    expect(all[0].title).toContain('one primitive run outside jit, traced once per operand types and parameters');
    expect(groups(node)[0].title).toMatch(/^sub: 1 cache miss of eager operations, at In\[1\]:2;/);
    for (const row of [...all, ...groups(node)]) {
      expect(row.textContent + row.title).not.toMatch(/compil/);
    }
  });
});

describe('counts in words (missWords: one helper for every view)', () => {
  it('says one in the singular, more in the plural, with thousands separated', () => {
    expect([plural(1, 'compile'), plural(2, 'compile'), plural(1024, 'flop')]).toEqual(
      ['1 compile', '2 compiles', '1,024 flops']);
    expect([plural(1, 'cache miss', 'cache misses'), plural(0, 'cache miss', 'cache misses')]).toEqual(
      ['1 cache miss', '0 cache misses']);
    expect([compileCount(1, false), compileCount(3, false), compileCount(1, true), compileCount(3, true)])
      .toEqual(['1 compile', '3 compiles', '1 cache miss', '3 cache misses']);
    expect([misses(1, false), misses(2, true)]).toEqual(['1 compilation', '2 cache misses']);
  });
});

describe('%jxcompiles saved', () => {
  const mime = 'application/vnd.jxkernel.compilations+json';
  it('counts cache misses, traced, on the NumPy backend; compilations, compiled, on the CPU', () => {
    const numpy = viewOrNote(mime, { ...bundles[mime], events: twoMisses('numpy') });
    expect(numpy.querySelector('.jx-View-title')!.textContent).toMatch(/^2 cache misses, /);
    const from = [...numpy.querySelectorAll('tbody tr')].map(tr => (tr as HTMLTableRowElement).cells[8].textContent);
    expect(from).toEqual(['traced', 'traced']);
    expect(numpy.querySelector('thead')!.textContent).toContain('prepare ms');
    const cpu = viewOrNote(mime, { ...bundles[mime], events: twoMisses('cpu') });
    expect(cpu.querySelector('.jx-View-title')!.textContent).toMatch(/^2 compilations, /);
    expect(cpu.querySelector('thead')!.textContent).toContain('compile ms');
  });
});

describe('%jxreport', () => {
  const mime = 'application/vnd.jxkernel.report+json';
  it('heads the NumPy backend\'s misses as cache misses, traced; the CPU\'s as compilations', () => {
    const b = bundles[mime];
    const numpy = viewOrNote(mime, {
      ...b, config: { ...b.config, backend: 'numpy' },
      events: b.events.map((e: any) => ({ ...e, backend: 'numpy' }))
    });
    expect(numpy.querySelector('.jx-View-title')!.textContent).toMatch(
      /^4 cache misses \(1 again\) of 3 functions, 3 cache hits on numpy; trace [\d.]+ ms, lower [\d.]+ ms, prepare [\d.]+ ms$/);
    expect(numpy.querySelector('.jx-Report-time')!.textContent).toMatch(/ ms, traced$/);
    expect(numpy.querySelector('thead')!.textContent).toContain('cache misses');
    const cpu = viewOrNote(mime, b);
    expect(cpu.querySelector('.jx-View-title')!.textContent).toMatch(/^4 compilations \(1 recompilation\) of 3 functions/);
    expect(cpu.querySelector('.jx-Report-time')!.textContent).toMatch(/ ms, compiled$/);
  });
});

describe('%timeit --phases (the profile view)', () => {
  const mime = 'application/vnd.jxkernel.profile+json';
  it("says the NumPy backend's fresh compiles were traced; XLA's were compiled", () => {
    const b = bundles[mime];
    const numpy = viewOrNote(mime, { ...b, backend: 'numpy' });
    expect(numpy.querySelector('.jx-View-title')!.textContent).toBe('phases of g: 2 runs, 2 traced afresh');
    const cpu = viewOrNote(mime, b);
    expect(cpu.querySelector('.jx-View-title')!.textContent).toBe('phases of g: 2 runs, 2 fresh compiles');
    // (no array output: no backend, and the words of the compiling backends)
    const none = viewOrNote(mime, { ...b, backend: null, compiles: 1 });
    expect(none.querySelector('.jx-View-title')!.textContent).toBe('phases of g: 2 runs, 1 fresh compile');
  });
});
