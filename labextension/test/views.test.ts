// @vitest-environment jsdom
/**
 * Every view draws the bundles the kernel writes (test/bundles.json: one per MIME type of the
 * protocol's schema, recorded from a kernel and checked against the schema by
 * tests/labextension/test_labextension_protocol.py), and shows a one-line note, never a half-drawn view,
 * for a bundle it cannot read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

// jsdom has no DragEvent, which @lumino/widgets (mime.ts's Widget) reads as it loads
vi.hoisted(() => {
  (globalThis as any).DragEvent ??= class DragEvent extends MouseEvent {};
});

import { VIEW_MIMES, viewOrNote } from '../src/mime';

const schema = JSON.parse(readFileSync(join(__dirname, '../../jxkernel/views/protocol.schema.json'), 'utf8'));
const bundles: { [mime: string]: any } = JSON.parse(readFileSync(join(__dirname, 'bundles.json'), 'utf8'));
const MIMES = Object.keys(schema.properties.bundles.properties);

const isNote = (node: HTMLElement) => node.classList.contains('jx-View-note');

describe('the views and the schema', () => {
  it('render every MIME type of the schema, and only those', () => {
    expect([...VIEW_MIMES].sort()).toEqual([...MIMES].sort());
    expect(Object.keys(bundles).sort()).toEqual([...MIMES].sort());
  });

  it.each(MIMES)('%s: draws what the kernel wrote', mime => {
    const node = viewOrNote(mime, bundles[mime]);
    expect(isNote(node), node.textContent ?? '').toBe(false);
    expect(node.textContent?.length).toBeGreaterThan(0);
  });

  // the traced, HLO and log views draw what there is (missing fields as empty); the others check
  const LENIENT = ['traced', 'hlo', 'compilations'].map(k => `application/vnd.jxkernel.${k}+json`);

  it.each(MIMES.filter(m => !LENIENT.includes(m)))('%s: a bundle without its fields is a note', mime => {
    const node = viewOrNote(mime, { version: 1 });
    expect(isNote(node)).toBe(true);
    const prefix = `jxkernel cannot show this view (${mime}): the bundle has no field '`;
    expect(node.textContent?.startsWith(prefix), node.textContent ?? '').toBe(true);
  });

  it.each(MIMES.filter(m => !LENIENT.includes(m)))('%s: a field the schema requires, missing, is named', mime => {
    // each top-level field the schema requires, left out of the kernel's bundle: the view draws
    // without it (it does not read it) or its note names that very field, never another
    const name = schema.properties.bundles.properties[mime].$ref.split('/').pop();
    const required: string[] = schema.definitions[name].required.filter((f: string) => f !== 'version');
    let named = 0;
    for (const field of required) {
      const rest = { ...bundles[mime] };
      delete rest[field];
      const node = viewOrNote(mime, rest);
      if (isNote(node)) {
        expect(node.textContent).toContain(`the bundle has no field '${field}'`);
        named++;
      }
    }
    expect(named).toBeGreaterThan(0);
  });

  it('the HLO view heads its costs with the bundle\'s cost_title (numpy: estimates, not XLA\'s)', () => {
    const hlo = 'application/vnd.jxkernel.hlo+json';
    const heading = (extra: object) =>
      viewOrNote(hlo, { ...bundles[hlo], cost: [['flops', 128]], ...extra }).querySelector('th')?.textContent;
    const numpy = 'cost estimate (from the jaxpr: no XLA on the numpy backend)';
    expect(heading({ cost_title: numpy })).toBe(numpy);
    expect(heading({ cost_title: undefined })).toBe('XLA cost analysis'); // a bundle from before
  });

  it('a wrong version or a non-object is a note, and nothing throws', () => {
    const guard = 'application/vnd.jxkernel.guard+json';
    expect(viewOrNote(guard, { ...bundles[guard], version: 2 }).textContent).toBe(
      `jxkernel cannot show this view (${guard}): the bundle's version is 2; this extension reads version 1.`
    );
    expect(viewOrNote(guard, { version: 1, all: 'yes', functions: [] }).textContent).toContain(
      'the bundle.all is string, not boolean'
    );
    const explain = 'application/vnd.jxkernel.explain+json';
    expect(viewOrNote(explain, null).textContent).toContain('the bundle is null, not an object');
    const jaxpr = 'application/vnd.jxkernel.jaxpr+json';
    expect(isNote(viewOrNote(jaxpr, { ...bundles[jaxpr], version: 1 }))).toBe(false);
    expect(viewOrNote(jaxpr, { ...bundles[jaxpr], version: 3 }).textContent).toContain('reads version 1 or 2');
  });

  it('puts kernel text in the page as text, never as HTML', () => {
    const guard = 'application/vnd.jxkernel.guard+json';
    const node = viewOrNote(guard, { version: 1, all: false, functions: ['<img src=x onerror=alert(1)>@a.py:1#2'] });
    expect(node.querySelector('img')).toBeNull();
    expect(node.textContent).toContain('<img src=x onerror=alert(1)>');
  });
});

describe('said once: the error card and the guard (issue 44)', () => {
  it('folds the traceback in the card, as text', () => {
    const error = 'application/vnd.jxkernel.error+json';
    const traceback = 'Cell In[2], line 3, in relu_sum(x)\n<b>JAX says</b>';
    const node = viewOrNote(error, { ...bundles[error], traceback });
    const folded = node.querySelector('details.jx-ErrorCard-traceback');
    expect(folded).not.toBeNull();
    expect(folded!.hasAttribute('open')).toBe(false);
    expect(folded!.querySelector('pre')!.textContent).toBe(traceback);
    expect(folded!.querySelector('b')).toBeNull();
    expect(viewOrNote(error, { ...bundles[error], traceback: null }).querySelector('details')).toBeNull();
  });

  it('says nothing of where a value comes from when it depends on no input', () => {
    // a %%jit cell's `yy = jnp.ones(3); if yy.sum() > 1:` (the origin as the kernel writes it)
    const error = 'application/vnd.jxkernel.error+json';
    const origin = { function: 'cell[42]', transformation: 'jit', argument: null, arguments: [],
                     input_index: null, input_type: null, value_type: 'bool[]', steps: [] };
    const node = viewOrNote(error, { ...bundles[error], origin });
    expect(isNote(node)).toBe(false);
    expect(node.textContent).not.toContain('#null');
    expect(node.textContent).not.toContain('where the value comes from');
    expect(viewOrNote(error, bundles[error]).textContent).toContain('where the value comes from');
  });

  it('lists the operations that made a value from constants, as the text card does', () => {
    // `y = jnp.ones(3) * 2; if y.sum() > 1:` inside a jitted f: no argument, two operations
    const error = 'application/vnd.jxkernel.error+json';
    const origin = { function: 'f', transformation: 'jit', argument: null, arguments: [],
                     input_index: null, input_type: null, value_type: 'bool[]',
                     steps: [{ primitive: 'mul', type: 'f32[3]', where: 'In[3]:2', code: 'y = jnp.ones(3) * 2' },
                             { primitive: 'reduce_sum', type: 'f32[]', where: 'In[3]:3', code: 'if y.sum() > 1:' }] };
    const node = viewOrNote(error, { ...bundles[error], origin });
    const steps = [...node.querySelectorAll('.jx-ErrorCard-step')].map(li => li.textContent);
    expect(steps[0]).toBe('no argument: made from constants by jnp operations in f, traced for jit');
    expect(steps.slice(1).map(s => s!.split(' ')[0])).toEqual(['mul', 'reduce_sum']);
    expect(node.textContent).toContain('where the value comes from');
    expect(node.textContent).not.toContain('#null');
  });

  it("folds a library's steps into one line per package, keeping the learner's", () => {
    // learner11's float() in an nnx.jit step: the value ran through Flax's and Optax's files
    const error = 'application/vnd.jxkernel.error+json';
    const lib = (primitive: string, pkg: string) =>
      ({ primitive, type: 'f32[8,32]', where: 'linear.py:422', code: 'y = self.dot_general(', package: pkg });
    const origin = { function: 'train_step', transformation: 'jit', argument: "batch['image']",
                     arguments: [], input_index: 22, input_type: 'f32[8,784]', value_type: 'f32[]',
                     steps: [lib('dot_general', 'flax'), lib('add', 'flax'),
                             { primitive: 'custom_jvp_call', type: 'f32[8,32]', where: 'In[2], line 11',
                               code: 'x = nnx.relu(x)', package: null },
                             lib('sub', 'optax'),
                             { primitive: 'div', type: 'f32[]', where: 'In[3], line 7', code: 'return l.mean()' }] };
    const node = viewOrNote(error, { ...bundles[error], origin });
    const steps = [...node.querySelectorAll('.jx-ErrorCard-step')].map(li => li.textContent!);
    expect(steps.slice(1).map(s => s.split('  ')[0])).toEqual(
      ['… 2 steps inside flax', 'custom_jvp_call → f32[8,32]', '… 1 step inside optax', 'div → f32[]']);
    expect(node.textContent).not.toContain('linear.py');
  });

  it("words cond's branches, a loop's carry and a static argument, never the bundle's keys", () => {
    // learner6's trial: `jax.lax.cond(True, lambda x: x, lambda x: 0, 1.5)` drew the table
    // `api cond`, `branches [["true_fun","<lambda>","float32[]"],...]`, `mismatch dtypes`
    const error = 'application/vnd.jxkernel.error+json';
    const cases: [string, object, string[]][] = [
      ['branch-types', { api: 'cond', branches: [['true_fun', '<lambda>', 'float32[]'],
                                                  ['false_fun', '<lambda>', 'int32[]']],
                         path: null, mismatch: 'dtypes' },
       ['true_fun (<lambda>) returns float32[]', 'false_fun (<lambda>) returns int32[]']],
      ['loop-carry', { loop: 'scan', body: 'step', path: "['x']", input_type: 'float32[]',
                       output_type: 'int32[]', mismatch: 'dtypes' },
       ["step: carry['x'] came in as float32[], left as int32[]"]],
      ['unhashable-static', { argument: 'shape', value_type: 'list', value: '[2, 3]',
                              function: 'zeros' },
       ['static argument shape of zeros: list [2, 3]']]];
    for (const [kind, origin, lines] of cases) {
      const node = viewOrNote(error, { ...bundles[error], kind, origin });
      expect([...node.querySelectorAll('.jx-ErrorCard-step')].map(li => li.textContent)).toEqual(lines);
      expect(node.textContent).not.toMatch(/mismatch|\[\[|"true_fun"|input type/);
    }
  });

  it('names a guarded function where the user defined it, not by its key', () => {
    const guard = 'application/vnd.jxkernel.guard+json';
    const key = 'f@/tmp/ipykernel_4692/1161316084.py:1#140389491386576';
    const node = viewOrNote(guard, { version: 1, all: false, functions: [key], where: ['In[2], line 1'] });
    const cells = [...node.querySelectorAll('tbody td')].map(td => td.textContent);
    expect(cells).toEqual(['f', 'In[2], line 1']);
    const older = viewOrNote(guard, { version: 1, all: false, functions: [key] });
    expect([...older.querySelectorAll('tbody td')].map(td => td.textContent)).toEqual(
      ['f', '/tmp/ipykernel_4692/1161316084.py:1']);
  });
});

describe('%jxmemory: the device allocator (issue 46)', () => {
  const mime = 'application/vnd.jxkernel.memory+json';
  it('says the CPU backend reports none, rather than showing zeros', () => {
    const text = viewOrNote(mime, { ...bundles[mime], allocator: null }).textContent;
    expect(text).toContain('allocator (bytes in use, peak, limit): not reported by the cpu backend');
  });

  it("shows each device's bytes in use, peak and limit where the backend reports them", () => {
    const allocator = [{ device: 'gpu:0', bytes_in_use: 1024, peak_bytes_in_use: 4096, bytes_limit: 2 ** 33 }];
    const text = viewOrNote(mime, { ...bundles[mime], allocator }).textContent;
    expect(text).toContain(
      'gpu:0 allocator: 1,024 bytes (1.0 KiB) in use, peak 4,096 bytes (4.0 KiB), limit 8,589,934,592 bytes (8.0 GiB)'
    );
  });

  it('says a missing allocator is not reported, never leaves the section out', () => {
    // JupyterLite's copy of an output drops Python's None; a kernel older than the field
    const older = { ...bundles[mime] };
    delete older.allocator;
    const node = viewOrNote(mime, older);
    expect(isNote(node)).toBe(false);
    expect(node.querySelector('.jx-Memory-allocator')!.textContent).toBe(
      `allocator (bytes in use, peak, limit): not reported by the ${bundles[mime].platform} backend`
    );
  });

  it("the NumPy backend's allocator: bytes in use and peak, its limit said to be not reported", () => {
    // what `%jxmemory` sends in JupyterLite (bytes_limit: None), as JSON and with the None dropped
    const numpy = { device: 'numpy:0', bytes_in_use: 4044, peak_bytes_in_use: 266240, bytes_limit: null };
    const line = 'numpy:0 allocator: 4,044 bytes (3.9 KiB) in use, peak 266,240 bytes (260.0 KiB), ' +
      'limit not reported by this backend';
    const { bytes_limit, ...dropped } = numpy;
    for (const allocator of [[numpy], [dropped]]) {
      const node = viewOrNote(mime, { ...bundles[mime], platform: 'numpy', allocator });
      expect(node.querySelector('.jx-Memory-allocator')!.textContent).toBe(line);
    }
    expect(bytes_limit).toBeNull();
  });
});

// JupyterLite: Python's None arrives as undefined (Pyodide's toJs)
const noneAsUndefined = (v: unknown): unknown =>
  v === null ? undefined : Array.isArray(v) ? v.map(noneAsUndefined)
    : typeof v === 'object' ? Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, noneAsUndefined(x)]))
      : v;

describe("JupyterLite: Python's None arrives as undefined (Pyodide's toJs)", () => {
  // and JupyterLab's copy of the output's data (JSONExt.deepCopy) then drops those fields
  const noneDropped = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(noneDropped)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v as object).filter(([, x]) => x !== null).map(([k, x]) => [k, noneDropped(x)]))
        : v;

  it.each(MIMES)('%s: draws what it draws from the JSON bundle', mime => {
    const json = viewOrNote(mime, bundles[mime]).textContent;
    expect(viewOrNote(mime, noneAsUndefined(bundles[mime])).textContent).toBe(json);
    expect(viewOrNote(mime, noneDropped(bundles[mime])).textContent).toBe(json);
  });

  it("the stepper: a value with no finite element (03_autodiff's softplus at 100) shows '–'", () => {
    // what `step(jax.grad(naive_softplus), 100.0)` sends: exp(100) is inf, so min, max and
    // mean are None; in JupyterLite this drew "cannot read properties of undefined"
    const mime = 'application/vnd.jxkernel.stepper+json';
    const b = bundles[mime];
    const { min, max, mean, hist_range, ...rest } = b.variables[0];
    for (const inf of [{ ...rest, min: undefined, max: undefined, mean: undefined, hist: [], hist_range: undefined, inf: 1 },
                       { ...rest, hist: [], inf: 1 }]) {     // None as undefined; dropped
      const node = viewOrNote(mime, { ...b, variables: [inf, ...b.variables.slice(1)], nan: undefined });
      expect(isNote(node), node.textContent ?? '').toBe(false);
      const row = [...node.querySelectorAll('tbody tr')][0];
      expect([...row.querySelectorAll('td')].slice(3, 6).map(td => td.textContent)).toEqual(['–', '–', '–']);
    }
  });
});

describe('the stepper: a NaN made inside a body', () => {
  const mime = 'application/vnd.jxkernel.stepper+json';

  it("says each body it was made inside, with the loop's iteration, as the text view does", () => {
    // what `step(lambda xs: lax.scan(body, 0.0, xs)[1], xs).first_nan()` finds: the scan
    // made b, its iteration 2's log made d (views/stepper.py's NanFound.to_json)
    const b = bundles[mime];
    const inner = {
      index: 1, primitive: 'log', vars: [{ name: 'd', nan: 1 }], source: 'In[3]:2',
      source_line: 'return c, jnp.log(v - 3.0)', input: null, inside: null, step: null
    };
    const nan = { ...b.nan, primitive: 'scan', vars: [{ name: 'b', nan: 1 }], inside: inner, step: 'iteration 2' };
    for (const sent of [{ ...b, nan }, noneAsUndefined({ ...b, nan })]) {
      const box = viewOrNote(mime, sent).querySelector('.jx-Stepper-nan');
      expect(box?.textContent).toContain('! first NaN made by scan at ');
      const inside = box?.querySelectorAll('.jx-Stepper-nanInside') ?? [];
      expect(inside.length).toBe(1);
      expect(inside[0].textContent).toBe(
        'inside scan (iteration 2): NaN made by log at In[3]:2: d (1 NaN)return c, jnp.log(v - 3.0)');
    }
  });

  it('refuses an inside that is not a finding, naming where', () => {
    const b = bundles[mime];
    const node = viewOrNote(mime, { ...b, nan: { ...b.nan, inside: { index: 'one' } } });
    expect(isNote(node)).toBe(true);
    expect(node.textContent).toContain('nan.inside');
  });
});

describe('%jxreport: a change card says its kind where the kind is a word', () => {
  const mime = 'application/vnd.jxkernel.report+json';

  it("heads a shape change 'shape', and a new jit object's change by its words alone", () => {
    const first = bundles[mime].events.find((e: any) => e.explanation.length);
    const fresh = {
      ...first, seq: 99, reason: 'first call', explanation: [{
        path: '(jit object)', kind: 'fresh_jit', old: 'jit(<lambda>) compiled for (x: f32[3])',
        new: 'a new jit object', fix: 'Make the jitted function once and reuse it.', snippet: null
      }]
    };
    const node = viewOrNote(mime, { ...bundles[mime], events: [first, fresh] });
    const kinds = [...node.querySelectorAll('.jx-Report-change')].map(
      card => card.querySelector('.jx-Report-kind')?.textContent ?? null);
    expect(kinds).toEqual(['shape', null]);
    expect(node.textContent).toContain('(jit object): jit(<lambda>) compiled for (x: f32[3])');
    expect(node.textContent).not.toContain('fresh_jit');
  });
});

describe("%jxreport: your functions first, the others folded", () => {
  it("folds eager operations' and jxkernel's functions' rows and events below yours", () => {
    // learner6's session: 13 compilations of the learner's among 118 of eager operations,
    // from an older kernel's bundle without `group` (the view's fallback rule; the kernel's
    // `group` is the next test's)
    const mime = 'application/vnd.jxkernel.report+json';
    const noGroup = ({ group: _group, ...rest }: any) => rest;
    const first = { ...noGroup(bundles[mime].events[0]), origin: 'user' };
    const eager = { ...first, seq: 97, function: 'slice (eager)', function_key: 'slice@eager',
                    source: null, origin: 'eager', explanation: [] };
    const fn = noGroup(bundles[mime].functions.find((f: any) => f.function_key === first.function_key));
    const eagerFn = { ...fn, function: 'slice (eager)', function_key: 'slice@eager', source: null,
                      compilations: 18, recompilations: 17 };
    const node = viewOrNote(mime, { ...bundles[mime], functions: [fn, eagerFn], events: [first, eager] });
    const folded = node.querySelector('details.jx-Report-others')!;
    expect(folded.hasAttribute('open')).toBe(false);
    expect(folded.querySelector('summary')!.textContent).toBe(
      "1 compilation of eager operations and jxkernel's or libraries' functions (1 of them), for your calls");
    expect([...folded.querySelectorAll('tbody td')].slice(0, 2).map(td => td.textContent)).toEqual(['slice (eager)', '']);
    expect(folded.querySelectorAll('.jx-Report-event').length).toBe(1);
    const outside = [...node.querySelectorAll('.jx-Report-event')].filter(ev => !folded.contains(ev));
    expect(outside.length).toBe(1);
    expect(node.querySelector('.jx-Report-yours')!.textContent).toMatch(
      /^your functions: 1 compilation \(\d+ recompilations?\) of 1 function; 1 more of eager/);
    // a function of yours traced inside another only: its row of zeros folded apart
    const branchFn = { ...fn, function: '<lambda>', function_key: 'lambda@In[3]:2', compilations: 0,
                       recompilations: 0, cache_hits: 0, trace_ms: 0, lower_ms: 0, compile_ms: 0 };
    const withBranch = viewOrNote(mime, { ...bundles[mime], functions: [fn, branchFn, eagerFn], events: [first, eager] });
    const summaries = [...withBranch.querySelectorAll('details.jx-Report-others > summary')].map(s => s.textContent);
    expect(summaries[0]).toBe('1 function of yours traced inside another (a lax.cond branch, a loop body), nothing compiled of its own');
    const topRows = [...withBranch.querySelectorAll(':scope > table tbody tr')];
    expect(topRows.map(tr => (tr as HTMLTableRowElement).cells[0].textContent)).toEqual([fn.function]);
    expect(withBranch.querySelector('.jx-Report-yours')!.textContent).toContain('of 1 function;');
    // a report of your functions alone folds nothing
    const plain = viewOrNote(mime, { ...bundles[mime], functions: [fn], events: [first] });
    expect(plain.querySelector('details.jx-Report-others')).toBeNull();
    expect(plain.querySelector('.jx-Report-yours')).toBeNull();
  });
});

describe("%jxreport: the kernel's group decides where a row goes", () => {
  it('follows `group` (compile_report.group_of) over what origin alone would say', () => {
    // the kernel's rule, sent with each row: the view folds what the text and HTML fold
    const mime = 'application/vnd.jxkernel.report+json';
    const first = { ...bundles[mime].events[0], origin: 'user', group: 'yours' };
    const fn = bundles[mime].functions.find((f: any) => f.function_key === first.function_key);
    const normal = { ...fn, function: '_normal', function_key: '_normal@k', source: 'called at In[11]:21',
                     compilations: 2, group: 'others' };
    const branch = { ...fn, function: '<lambda>', function_key: 'lam@k', compilations: 0, group: 'inside' };
    // no origin: the old rule would read it as the user's; the kernel's group says otherwise
    const normalEv = { ...first, seq: 9, function: '_normal', function_key: '_normal@k', origin: undefined,
                       group: 'others', source: null };
    const node = viewOrNote(mime, { ...bundles[mime], functions: [{ ...fn, group: 'yours' }, branch, normal],
                                    events: [first, normalEv] });
    const folds = [...node.querySelectorAll('details.jx-Report-others')];
    expect(folds.length).toBe(2);
    expect(folds[0].querySelector('summary')!.textContent).toMatch(/^1 function of yours traced inside another/);
    expect([...folds[1].querySelectorAll('tbody td')].slice(0, 2).map(td => td.textContent))
      .toEqual(['_normal', 'called at In[11]:21']);
    expect(folds[1].querySelectorAll('.jx-Report-event').length).toBe(1);
  });
});

describe('%jxreport: a retrace inside another traced function', () => {
  it('says it was traced inside that one and compiled nothing, not "0.0 ms, compiled"', () => {
    const mime = 'application/vnd.jxkernel.report+json';
    const first = bundles[mime].events[0];
    const branch = {
      ...first, seq: 98, function: '<lambda>', trace_ms: 0, lower_ms: 0, compile_ms: 0,
      cache: 'compiled', explanation: [], inlined_into: 'jit(relu)'
    };
    const node = viewOrNote(mime, { ...bundles[mime], events: [first, branch] });
    const times = [...node.querySelectorAll('.jx-Report-time')].map(t => t.textContent);
    expect(times[1]).toBe('traced inside jit(relu), nothing compiled of its own');
    expect(times[0]).toMatch(/ ms, compiled$/);
  });
});

describe('%jxcompiles saved: a trace inside another traced function', () => {
  it('is counted apart and comes from inside that function, not "compiled"', () => {
    const mime = 'application/vnd.jxkernel.compilations+json';
    const first = bundles[mime].events[0];
    const branch = { ...first, function: '<lambda>', cache: 'compiled', inlined_into: 'jit(relu)' };
    const node = viewOrNote(mime, { ...bundles[mime], events: [first, branch] });
    expect(node.querySelector('.jx-View-title')!.textContent).toMatch(
      /^1 compilation and 1 trace inside another \(nothing compiled of its own\), /);
    const from = [...node.querySelectorAll('tbody tr')].map(tr => (tr as HTMLTableRowElement).cells[8].textContent);
    expect(from).toEqual([first.cache, 'inside jit(relu)']);
  });
});

describe('the jaxpr view: an equation with no results', () => {
  // JAX 0.10.2's text of a jitted function calling jax.debug.print (tests/data/
  // jaxpr_text_reference.json, debug_print_in_jit): the equation's line has no " = "
  const jaxText: string = JSON.parse(
    readFileSync(join(__dirname, '../../tests/data/jaxpr_text_reference.json'), 'utf8')
  ).debug_print_in_jit;
  const a = { name: 'a', aval: 'f32[]', id: 0 };
  const b = { name: 'b', aval: 'f32[]', id: 1 };
  const bundle = {
    version: 2,
    name: 'jaxpr of printing(x)',
    text: jaxText,
    jaxpr: {
      invars: [a],
      constvars: [],
      outvars: [b],
      eqns: [
        { primitive: 'debug_print', params: { fmt: 'x = {}', ordered: false }, invars: [a], outvars: [] },
        { primitive: 'mul', params: {}, invars: [a, { literal: '2.0', aval: 'f32[]' }], outvars: [b] }
      ]
    }
  };

  it('is drawn as JAX prints it, without " = "', () => {
    const jaxLine = jaxText.split('\n').map(l => l.trim()).find(l => l.includes('debug_print['));
    expect(jaxLine).toBe('debug_print[');                 // no results, no "=" before it
    const node = viewOrNote('application/vnd.jxkernel.jaxpr+json', bundle);
    const lines = [...node.querySelectorAll('.jx-Jaxpr-line')].map(l => l.textContent ?? '');
    expect(lines).toContain('debug_print[fmt=x = {} ordered=false] a');
    expect(lines).toContain('b:f32[] = mul a 2.0');        // an equation with a result keeps it
    expect(lines.some(l => l.startsWith(' = '))).toBe(false);
  });
});
