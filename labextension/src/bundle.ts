/**
 * Checking a MIME bundle that may be malformed (an older or newer kernel, a hand-edited
 * notebook) before a view draws it: `fields` checks the kinds of an object's fields and
 * throws a `BundleError` naming the first wrong one; mime.ts turns that into a short
 * "cannot show this view" note instead of a half-drawn view.
 *
 *     const b = fields<IGuardBundle>(bundle, 'bundle', { all: 'boolean', functions: 'list' });
 */
export class BundleError extends Error {}

/** What a field must hold; a trailing "?" also allows null (or a missing field). */
export type Kind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'list'
  | 'object'
  | 'string?'
  | 'number?'
  | 'list?'
  | 'object?';

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v;
}

/**
 * `value` with every `undefined` inside it made `null`. JupyterLite's Pyodide kernel hands a
 * display's data to the page through Pyodide's `toJs()`, which makes Python's None `undefined`,
 * not `null` as JSON does: the views test `=== null`, so without this a `None` in a bundle (the
 * stepper's `min` of a value with no finite element) drew "cannot read properties of undefined".
 *
 *     undefinedAsNull({ min: undefined, hist: [1, undefined] })  // { min: null, hist: [1, null] }
 */
export function undefinedAsNull(value: unknown): unknown {
  if (value === undefined) {
    return null;
  }
  if (Array.isArray(value)) {
    return value.map(undefinedAsNull);
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, undefinedAsNull(v)]));
  }
  return value;
}

/** `value` as an object whose fields have the given kinds (`what` names it in errors). */
export function fields<T>(value: unknown, what: string, spec: { [key: string]: Kind }): T {
  if (kindOf(value) !== 'object') {
    throw new BundleError(`${what} is ${kindOf(value)}, not an object`);
  }
  const o = value as { [key: string]: unknown };
  for (const [key, kind] of Object.entries(spec)) {
    const optional = kind.endsWith('?');
    const got = kindOf(o[key]);
    const ok = got === kind.replace('?', '') || (optional && (got === 'null' || got === 'undefined'));
    if (!ok) {
      const wanted = optional ? `${kind.slice(0, -1)} or null` : kind;
      throw new BundleError(
        got === 'undefined' ? `${what} has no field '${key}' (${wanted})` : `${what}.${key} is ${got}, not ${wanted}`
      );
    }
  }
  return o as T;
}

/** Each element of `items` checked with `fields` (named `what[i]`). */
export function each<T>(items: unknown[], what: string, spec: { [key: string]: Kind }): T[] {
  return items.map((item, i) => fields<T>(item, `${what}[${i}]`, spec));
}

/** The bundle's top level: an object of a version the view reads (1 unless told) with the
 * given fields. */
export function bundleOf<T>(value: unknown, spec: { [key: string]: Kind }, versions: number[] = [1]): T {
  const b = fields<{ version: unknown }>(value, 'the bundle', { version: 'number' });
  if (!versions.includes(b.version as number)) {
    const read = versions.join(' or ');
    throw new BundleError(`the bundle's version is ${b.version}; this extension reads version ${read}`);
  }
  return fields<T>(value, 'the bundle', spec);
}
