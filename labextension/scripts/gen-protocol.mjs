/**
 * src/protocol.generated.ts from the protocol's one schema, jxkernel/views/protocol.schema.json
 * (the kernel checks requests against the same file; docs/labextension.md, "The schema"): the
 * TypeScript types of every definition, and runtime checks of the messages the kernel sends
 * (`validateMessage`, which connection.ts runs on each one before using it).
 *
 *     node scripts/gen-protocol.mjs          write src/protocol.generated.ts
 *     node scripts/gen-protocol.mjs --check  exit 1 if it is not what the schema gives
 *
 * `npm run build` runs it first; the output is committed, so that tsc, the watch build and
 * editors see the types without a generation step, and a change of the schema shows as a
 * change of the types in review. Its first lines carry the schema's sha256, which
 * tests/labextension/test_labextension_protocol.py compares without Node.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { compile } from 'json-schema-to-typescript';

export const SCHEMA = fileURLToPath(new URL('../../jxkernel/views/protocol.schema.json', import.meta.url));
export const OUTPUT = fileURLToPath(new URL('../src/protocol.generated.ts', import.meta.url));

/** The schema file's sha256, line endings normalized (as labextension/stamp.py hashes). */
export function schemaHash(text) {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

// ------------------------------------------------------------------ runtime checks
// Each definition reachable from the schema's `messages` table becomes a function
// `(value, at) => string | null`: null when the value matches, else what is wrong at which
// path ("state.compiles must be an integer, got string"). The keywords below are all it
// knows; any other one stops the generation, so a schema change it cannot honour is noticed.
const KNOWN = new Set([
  '$ref', 'type', 'const', 'enum', 'properties', 'required', 'additionalProperties', 'items',
  'minItems', 'maxItems', 'anyOf', 'allOf', 'minimum', 'pattern', 'description', 'default'
]);
const TYPE_TEST = {
  integer: v => `Number.isInteger(${v})`,
  number: v => `typeof ${v} === 'number'`,
  string: v => `typeof ${v} === 'string'`,
  boolean: v => `typeof ${v} === 'boolean'`,
  null: v => `${v} === null`,
  array: v => `Array.isArray(${v})`,
  object: v => `isObject(${v})`
};

const WORDS = {
  integer: 'an integer', number: 'a number', string: 'a string', boolean: 'true or false',
  null: 'null', array: 'an array', object: 'an object'
};

class Checks {
  constructor(schema) {
    this.defs = schema.definitions;
    this.todo = [];
    this.done = new Set();
    this.n = 0;
  }

  fn(name) {
    if (!this.done.has(name)) {
      if (!(name in this.defs)) {
        throw new Error(`gen-protocol: no definition ${name}`);
      }
      this.done.add(name);
      this.todo.push(name);
    }
    return `check${name}`;
  }

  /** Statements that return a message when `v` (an expression) does not match `node`. */
  lines(node, v, at) {
    const unknown = Object.keys(node).filter(k => !KNOWN.has(k));
    if (unknown.length) {
      throw new Error(`gen-protocol: the runtime checks cannot check ${unknown.join(', ')}`);
    }
    const out = [];
    const fail = (cond, what) => out.push(`if (${cond}) return \`\${${at}} ${what}\`;`);
    if (node.$ref) {
      const name = node.$ref.replace('#/definitions/', '');
      out.push(`{ const e = ${this.fn(name)}(${v}, ${at}); if (e) return e; }`);
    }
    for (const part of node.allOf ?? []) {
      out.push(...this.lines(part, v, at));
    }
    if (node.anyOf) {
      const alts = node.anyOf.map(part => {
        const w = `w${this.n++}`;
        return `(${w}: any) => {\n${indent(this.lines(part, w, at))}\n  return null;\n}`;
      });
      fail(`![${alts.join(', ')}].some(f => f(${v}) === null)`, 'matches none of its forms');
    }
    if (node.type !== undefined) {
      const types = [].concat(node.type);
      const cond = types.map(t => TYPE_TEST[t](v)).join(' || ');
      const words = types.map(t => WORDS[t]);
      fail(`!(${cond})`, `must be ${words.join(' or ')}, got \${kindOf(${v})}`);
    }
    if (node.const !== undefined) {
      fail(`${v} !== ${JSON.stringify(node.const)}`, `must be ${JSON.stringify(node.const)}`);
    }
    if (node.enum) {
      fail(`!${JSON.stringify(node.enum)}.includes(${v})`, `must be one of ${node.enum.join(', ')}`);
    }
    if (node.minimum !== undefined) {
      fail(`typeof ${v} === 'number' && ${v} < ${node.minimum}`, `must be >= ${node.minimum}`);
    }
    if (node.pattern !== undefined) {
      fail(`typeof ${v} === 'string' && !new RegExp(${JSON.stringify(node.pattern)}).test(${v})`,
           `must match ${node.pattern.replace(/[`$\\]/g, '\\$&')}`);
    }
    if (node.minItems !== undefined) {
      fail(`Array.isArray(${v}) && ${v}.length < ${node.minItems}`, `needs ${node.minItems} items or more`);
    }
    if (node.maxItems !== undefined) {
      fail(`Array.isArray(${v}) && ${v}.length > ${node.maxItems}`, `has more than ${node.maxItems} items`);
    }
    const inner = [];
    for (const field of node.required ?? []) {
      inner.push(`if (${v}[${JSON.stringify(field)}] === undefined) return \`\${${at}} has no field '${field}'\`;`);
    }
    for (const [field, sub] of Object.entries(node.properties ?? {})) {
      const x = `x${this.n++}`;
      const body = this.lines(sub, x, `${at} + ${JSON.stringify('.' + field)}`);
      if (body.length) {
        inner.push(`const ${x} = ${v}[${JSON.stringify(field)}];`, `if (${x} !== undefined) {`, indent(body), '}');
      }
    }
    if (typeof node.additionalProperties === 'object') {
      const [k, x] = [`k${this.n++}`, `x${this.n++}`];
      const known = JSON.stringify(Object.keys(node.properties ?? {}));
      const body = this.lines(node.additionalProperties, x, `${at} + '.' + ${k}`);
      inner.push(`for (const [${k}, ${x}] of Object.entries(${v})) {`,
                 `  if (${known}.includes(${k})) continue;`, indent(body), '}');
    }
    if (inner.length) {
      out.push(`if (isObject(${v})) {`, indent(inner), '}');
    }
    if (node.items !== undefined) {
      const each = [];
      if (Array.isArray(node.items)) {
        node.items.forEach((sub, i) => {
          const body = this.lines(sub, `${v}[${i}]`, `${at} + '[${i}]'`);
          each.push(`if (${v}.length > ${i}) {`, indent(body), '}');
        });
      } else {
        const i = `i${this.n++}`;
        const body = this.lines(node.items, `${v}[${i}]`, `${at} + '[' + ${i} + ']'`);
        each.push(`for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {`, indent(body), '}');
      }
      out.push(`if (Array.isArray(${v})) {`, indent(each), '}');
    }
    return out;
  }
}

function indent(lines) {
  return (Array.isArray(lines) ? lines : [lines]).join('\n').replace(/^/gm, '  ');
}

/** The runtime checks of the kernel's messages, as TypeScript. */
export function validators(schema) {
  const checks = new Checks(schema);
  const table = schema.properties.messages.properties;
  const entries = Object.entries(table).map(([type, ref]) => [type, checks.fn(ref.$ref.replace('#/definitions/', ''))]);
  const fns = [];
  while (checks.todo.length) {
    const name = checks.todo.shift();
    const body = checks.lines(schema.definitions[name], 'v', 'at');
    fns.push(`function check${name}(v: any, at: string): string | null {\n${indent(body)}\n  return null;\n}`);
  }
  return `
// ------------------------------------------------------------------ runtime checks
// Generated from the schema's \`messages\` and what they refer to (scripts/gen-protocol.mjs).

function isObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
}

${fns.join('\n\n')}

const MESSAGE_CHECKS: { [type: string]: (v: any, at: string) => string | null } = {
${entries.map(([type, fn]) => `  ${JSON.stringify(type)}: ${fn}`).join(',\n')}
};

/**
 * What is wrong with a message from the kernel (the first thing found, with its path:
 * "state.compiles must be an integer, got string"), or null when it matches the schema.
 * Fields the schema does not name are allowed (a newer kernel may send more).
 */
export function validateMessage(msg: unknown): string | null {
  if (!isObject(msg)) {
    return \`a message must be an object, got \${kindOf(msg)}\`;
  }
  const type = (msg as { type?: unknown }).type;
  const check = typeof type === 'string' && Object.prototype.hasOwnProperty.call(MESSAGE_CHECKS, type) ? MESSAGE_CHECKS[type] : undefined;
  if (!check) {
    return \`unknown message type \${JSON.stringify(type)}\`;
  }
  return check(msg, type as string);
}
`;
}

/** The text of src/protocol.generated.ts for the schema's text. */
export async function generate(text) {
  const banner =
    '/* eslint-disable */\n' +
    '/**\n' +
    ' * GENERATED by labextension/scripts/gen-protocol.mjs from jxkernel/views/protocol.schema.json:\n' +
    ' * do not edit; change the schema and run `npm run gen:protocol`.\n' +
    ` * schema sha256: ${schemaHash(text)}\n` +
    ' */';
  const schema = JSON.parse(text);
  const types = await compile(schema, 'Protocol', {
    bannerComment: banner,
    additionalProperties: false, // the TypeScript types name the known fields only
    unreachableDefinitions: true,
    format: true,
    style: { singleQuote: true, printWidth: 100 }
  });
  return types + validators(schema);
}

async function main() {
  const text = readFileSync(SCHEMA, 'utf8');
  const ts = await generate(text);
  if (process.argv.includes('--check')) {
    const now = readFileSync(OUTPUT, 'utf8');
    if (now !== ts) {
      console.error(`${OUTPUT} is not what ${SCHEMA} gives: run npm run gen:protocol`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(OUTPUT, ts);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
