/** Building DOM from untrusted text: every string goes in with textContent, never as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/** A table with a header row and one row per entry of `rows` (cells as text). */
export function table(className: string, head: string[], rows: string[][]): HTMLTableElement {
  const t = el('table', className);
  const header = t.createTHead().insertRow();
  for (const h of head) {
    header.appendChild(el('th', '', h));
  }
  const body = t.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    for (const c of r) {
      tr.appendChild(el('td', '', c));
    }
  }
  return t;
}
