/** bundle.ts: the checks every view runs on a bundle before it draws. */
import { describe, expect, it } from 'vitest';

import { BundleError, bundleOf, each, fields } from '../src/bundle';

describe('fields', () => {
  it('returns the object when every field has its kind', () => {
    const o = { a: 'x', n: 1, b: false, l: [], o: {}, s: null };
    expect(fields(o, 'o', { a: 'string', n: 'number', b: 'boolean', l: 'list', o: 'object', s: 'string?' })).toBe(o);
  });

  it('lets an optional field be null or missing, nothing else', () => {
    expect(() => fields({ a: null }, 'o', { a: 'number?', b: 'list?' })).not.toThrow();
    expect(() => fields({ a: 'x' }, 'o', { a: 'number?' })).toThrow('o.a is string, not number or null');
  });

  it('names the first wrong field, and a missing one', () => {
    expect(() => fields({ a: 1 }, 'the bundle', { a: 'string' })).toThrow(
      new BundleError('the bundle.a is number, not string')
    );
    expect(() => fields({}, 'the bundle', { rows: 'list' })).toThrow("the bundle has no field 'rows' (list)");
    expect(() => fields({ l: {} }, 'x', { l: 'list' })).toThrow('x.l is object, not list');
    expect(() => fields({ o: [] }, 'x', { o: 'object' })).toThrow('x.o is list, not object');
  });

  it('refuses what is not an object', () => {
    for (const [v, kind] of [
      [null, 'null'],
      [[1], 'list'],
      ['s', 'string'],
      [undefined, 'undefined']
    ] as const) {
      expect(() => fields(v, 'the bundle', {})).toThrow(`the bundle is ${kind}, not an object`);
    }
  });
});

describe('each and bundleOf', () => {
  it('checks every element, naming it by index', () => {
    expect(each([{ n: 1 }, { n: 2 }], 'rows', { n: 'number' })).toHaveLength(2);
    expect(() => each([{ n: 1 }, { n: 'x' }], 'rows', { n: 'number' })).toThrow('rows[1].n is string, not number');
  });

  it('reads the versions it is told, 1 by default', () => {
    const spec = { all: 'boolean' } as const;
    expect(bundleOf({ version: 1, all: true }, spec)).toEqual({ version: 1, all: true });
    expect(() => bundleOf({ version: 2, all: true }, spec)).toThrow(
      "the bundle's version is 2; this extension reads version 1"
    );
    expect(bundleOf({ version: 2, all: true }, spec, [1, 2])).toBeTruthy();
    expect(() => bundleOf({ all: true }, spec)).toThrow("the bundle has no field 'version' (number)");
    expect(() => bundleOf({ version: 1, all: 'yes' }, spec)).toThrow('the bundle.all is string, not boolean');
  });
});
