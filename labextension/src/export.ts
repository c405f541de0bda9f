/** Compilation events as JSON and CSV files the browser downloads. */
import { ICompileEvent } from './protocol';

const COLUMNS: (keyof ICompileEvent)[] = [
  'seq',
  'time',
  'function',
  'function_key',
  'source',
  'cell_id',
  'execution_count',
  'signature',
  'reason',
  'trace_ms',
  'lower_ms',
  'compile_ms',
  'cache',
  'backend',
  'origin',
  'library'
];

export function toJSON(events: readonly ICompileEvent[]): string {
  return JSON.stringify(events, null, 1);
}

/**
 * RFC 4180: every field quoted, quotes doubled; the signature as `x: f32[3]; y: i32[]`;
 * `library` true or false (an older kernel's event, which leaves it out: false).
 */
export function toCSV(events: readonly ICompileEvent[]): string {
  const quote = (v: unknown) => `"${String(v ?? '').replace(/"/g, '""')}"`;
  const field = (e: ICompileEvent, c: keyof ICompileEvent) =>
    c === 'signature'
      ? (e.signature ?? []).map(([n, t]) => `${n}: ${t}`).join('; ')
      : c === 'library'
        ? e.library === true
        : e[c];
  const lines = [COLUMNS.map(quote).join(',')];
  for (const e of events) {
    lines.push(COLUMNS.map(c => quote(field(e, c))).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

export function download(filename: string, text: string, mime: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
