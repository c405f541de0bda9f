/**
 * What a cell's code means to the extension. The magic that shows a cell's jaxpr or HLO (jxkernel/notebook/magics.py): the text is the
 * editor's selection if any, else the cell. A leading `%%magic` line is dropped (its body is
 * what runs).
 * - jaxpr: one line -> `%jaxpr LINE` (a call is traced as jit would: non-array arguments
 *   static); several lines -> `%%jaxpr` + the lines (traced as %%jit would, not run).
 * - hlo: `%hlo` has no cell form, so only one line (a call or an expression): `%hlo LINE`;
 *   several lines -> null (the caller says to select the expression).
 */
export function magicCode(kind: 'jaxpr' | 'hlo', text: string): string | null {
  let lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[0]?.trimStart().startsWith('%%')) {
    lines = lines.slice(1);
  }
  const body = lines.join('\n').replace(/^\s*\n|\s+$/g, '');
  const code = lines.filter(l => l.trim() && !l.trim().startsWith('#'));
  if (code.length === 0) {
    return null;
  }
  if (code.length === 1) {
    return `%${kind} ${code[0].trim()}`;
  }
  return kind === 'jaxpr' ? `%%jaxpr\n${body}` : null;
}

/**
 * Whether a cell may have loaded jxkernel: it names it (`%load_ext jxkernel`), or imports jax,
 * which in JupyterLite is the site's `jax` package that loads jxkernel's extension (a new
 * notebook there has no setup cell).
 */
export function mayLoadJxkernel(code: string): boolean {
  return /jxkernel|^\s*(import|from)\s+jax\b/m.test(code);
}
