// @vitest-environment jsdom
/**
 * The runtime checks generated from the protocol's schema (validateMessage, in
 * src/protocol.generated.ts): every message the kernel sent (test/messages.json, recorded by
 * tests/labextension/test_labextension_protocol.py and checked there against the schema with
 * `jsonschema`) passes; a malformed one is refused with the path of what is wrong. And the
 * Compilations panel's rows: the user's events, then the kernel's groups under a heading.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

// jsdom has no DragEvent, which @lumino/widgets (compilationsPanel.ts's Widget) reads as it loads
vi.hoisted(() => {
  (globalThis as any).DragEvent ??= class DragEvent extends MouseEvent {};
});

import { NOT_YOURS_HINT, OTHER_TITLES, groupKind, isUsers, items, notYours } from '../src/compilationsPanel';
import { validateMessage } from '../src/protocol';

const messages: { [type: string]: any } = JSON.parse(readFileSync(join(__dirname, 'messages.json'), 'utf8'));
const copy = (type: string) => JSON.parse(JSON.stringify(messages[type]));

describe('validateMessage', () => {
  it("passes every message the kernel sent", () => {
    expect(Object.keys(messages).sort()).toEqual(['compilations', 'error', 'state']);
    for (const message of Object.values(messages)) {
      expect(validateMessage(message)).toBeNull();
    }
  });

  it("passes the NumPy backend's state (JupyterLite): bytes in use and peak, the limit null", () => {
    const numpy = copy('state');
    numpy.backend = 'numpy';
    numpy.device = 'numpy:0';
    numpy.memory = { bytes_in_use: 4044, peak_bytes_in_use: 266240, bytes_limit: null };
    expect(validateMessage(numpy)).toBeNull();
    // the kernel sends the null itself (comm.for_the_wire), not a missing field
    delete numpy.memory.bytes_limit;
    expect(validateMessage(numpy)).toBe("state.memory has no field 'bytes_limit'");
    numpy.memory.bytes_limit = 1.5;
    expect(validateMessage(numpy)).toBe('state.memory.bytes_limit must be an integer or null, got number');
  });

  it('allows fields the schema does not name (a newer kernel)', () => {
    expect(validateMessage({ ...copy('state'), something_new: [1] })).toBeNull();
  });

  it('names what is wrong, with its path', () => {
    const state = copy('state');
    state.compiles = '3';
    expect(validateMessage(state)).toBe('state.compiles must be an integer, got string');
    delete state.compiles;
    expect(validateMessage(state)).toBe("state has no field 'compiles'");
    const other = copy('state');
    other.backends[1].available = 'no';
    expect(validateMessage(other)).toBe('state.backends[1].available must be true or false, got string');
    const compilations = copy('compilations');
    compilations.events[0].origin = 'theirs';
    expect(validateMessage(compilations)).toBe(
      'compilations.events[0].origin must be one of user, internal, eager'
    );
    const groups = copy('compilations');
    groups.others[0].count = 0;
    expect(validateMessage(groups)).toBe('compilations.others[0].count must be >= 1');
    const report = copy('compilations');
    report.events[0].signature = [['x']];
    expect(validateMessage(report)).toBe('compilations.events[0].signature[0] needs 2 items or more');
    delete report.events[0].seq; // a ReportEvent field: CompileEvent is an allOf of it
    expect(validateMessage(report)).toBe("compilations.events[0] has no field 'seq'");
  });

  it('refuses what is no message', () => {
    expect(validateMessage(null)).toBe('a message must be an object, got null');
    expect(validateMessage([1])).toBe('a message must be an object, got array');
    expect(validateMessage({ type: 'frobnicate' })).toBe('unknown message type "frobnicate"');
    expect(validateMessage({ type: 'toString' })).toBe('unknown message type "toString"');
  });
});

describe('the Compilations panel rows', () => {
  it("lists the user's events, then per origin a heading and the kernel's groups", () => {
    const { events, others } = messages.compilations;
    const mine = events.filter(isUsers);
    const rows = items(mine, others);
    expect(rows.slice(0, mine.length).every(r => r.kind === 'event')).toBe(true);
    const rest = rows.slice(mine.length);
    const origins = [...new Set(others.map((g: any) => g.origin))];
    expect(rest.filter(r => r.kind === 'heading').map(r => (r as any).origin)).toEqual(origins);
    expect(rest.filter(r => r.kind === 'group').map(r => (r as any).group)).toEqual(
      origins.flatMap(o => others.filter((g: any) => g.origin === o))
    );
    const heading = rest[0] as any;
    expect(heading.count).toBe(
      others.filter((g: any) => g.origin === heading.origin).reduce((n: number, g: any) => n + g.count, 0)
    );
    expect(items([], [])).toEqual([]);
  });

  it("heads a registered library's functions apart from jxkernel's own, after them", () => {
    const group = (name: string, origin: string, library?: boolean) =>
      ({ name, origin, count: 2, sites: ['In[3]:1'], compile_ms: 1.5,
         ...(library === undefined ? {} : { library }) }) as any;
    const lib = group('lib_twice', 'internal', true);
    const own = group('_normal', 'internal', false);
    const add = group('add', 'eager', false);
    const old = group('_uniform', 'internal'); // an older kernel: no `library`
    const compilations = { ...copy('compilations'), others: [add, lib, own, old] };
    expect(validateMessage(compilations)).toBeNull();
    compilations.others[1] = { ...lib, library: 'yes' };
    expect(validateMessage(compilations)).toBe(
      'compilations.others[1].library must be true or false, got string'
    );
    expect([lib, own, add, old].map(groupKind)).toEqual(['library', 'internal', 'eager', 'internal']);
    const rows = items([], [add, lib, own, old]);
    expect(rows.map(r => (r.kind === 'heading' ? `# ${r.origin}` : r.kind === 'group' ? r.group.name : ''))).toEqual(
      ['# eager', 'add', '# internal', '_normal', '_uniform', '# library', 'lib_twice']
    );
    expect(OTHER_TITLES[groupKind(lib)]).toBe("libraries' own functions");
  });

  it("takes an event without origin (an older kernel's) for the user's", () => {
    const event = { ...messages.compilations.events[0] };
    delete event.origin;
    expect(isUsers(event)).toBe(true);
    expect(isUsers({ ...event, origin: 'eager' })).toBe(false);
  });
});

describe("the count of compilations not the user's (status bar, Compilations panel)", () => {
  // it counts libraries' functions too (Flax's, Equinox's: origin internal, library true), so
  // "eager/internal" was not true of it (statusbar.ts loads JupyterLab's widgets, which jsdom
  // cannot: the browser tests read the status bar's text)
  it('says "not yours", the tooltip what that holds', () => {
    expect(notYours(0)).toBe('');
    expect(notYours(41)).toBe(' · +41 not yours');
    for (const word of ['eager operations', "jxkernel's own functions", "libraries'", "Flax's", "Equinox's"]) {
      expect(NOT_YOURS_HINT).toContain(word);
    }
  });
});
