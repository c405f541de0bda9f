/**
 * "jxkernel: Show jaxpr of selected cell" / "jxkernel: Show HLO of selected cell": run the
 * `%jaxpr`/`%%jaxpr`/`%hlo` magic on the active cell's code (or the editor's selection) in the
 * notebook's kernel, without adding to its history, and show the output in a main-area tab
 * split to the right of the notebook. Also in the code cells' context menu, where it shows the
 * cell that was right-clicked.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, MainAreaWidget, Notification } from '@jupyterlab/apputils';
import { SimplifiedOutputArea, OutputAreaModel } from '@jupyterlab/outputarea';

import { IJxKernels } from './kernels';
import { magicCode } from './magicCode';

export const CMD_SHOW_JAXPR = 'jxkernel:show-jaxpr';
export const CMD_SHOW_HLO = 'jxkernel:show-hlo';

/** The cell the context menu was opened on, else the notebook's active cell. */
function targetCell(app: JupyterFrontEnd, kernels: IJxKernels) {
  const notebook = kernels.currentPanel?.content;
  const node = app.contextMenuHitTest(n => n.classList.contains('jp-Cell'));
  const hit = node ? notebook?.widgets.find(c => c.node === node) : undefined;
  return hit ?? notebook?.activeCell ?? null;
}

function selectedText(
  app: JupyterFrontEnd,
  kernels: IJxKernels
): { text: string; label: string } | null {
  const cell = targetCell(app, kernels);
  if (!cell || cell.model.type !== 'code') {
    return null;
  }
  const source = cell.model.sharedModel.getSource();
  const editor = cell.editor;
  let text = source;
  if (editor) {
    const { start, end } = editor.getSelection();
    const a = editor.getOffsetAt(start);
    const b = editor.getOffsetAt(end);
    if (a !== b) {
      text = source.slice(Math.min(a, b), Math.max(a, b));
    }
  }
  const count = (cell.model as any).executionCount;
  return { text, label: count ? `In [${count}]` : 'cell' };
}

async function show(app: JupyterFrontEnd, kernels: IJxKernels, kind: 'jaxpr' | 'hlo') {
  const panel = kernels.currentPanel;
  const kernel = panel?.sessionContext.session?.kernel;
  const selected = selectedText(app, kernels);
  if (!panel || !kernel || !selected) {
    return;
  }
  const code = magicCode(kind, selected.text);
  if (code === null) {
    Notification.warning(
      kind === 'hlo'
        ? '%hlo takes one line (a call such as f(x) or an expression): select it in the cell.'
        : 'The cell is empty.',
      { autoClose: 6000 }
    );
    return;
  }
  const area = new SimplifiedOutputArea({
    model: new OutputAreaModel({ trusted: true }),
    rendermime: panel.content.rendermime
  });
  const widget = new MainAreaWidget({ content: area });
  widget.addClass('jx-MagicOutput');
  widget.title.label = `${kind === 'jaxpr' ? 'jaxpr' : 'HLO'} · ${selected.label}`;
  widget.title.caption = code;
  widget.title.closable = true;
  app.shell.add(widget, 'main', { mode: 'split-right', ref: panel.id });
  area.future = kernel.requestExecute({ code, store_history: false, stop_on_error: false });
  await area.future.done;
}

export const commandsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jxkernel-labextension:commands',
  description: 'Show the jaxpr or HLO of the selected cell.',
  autoStart: true,
  requires: [IJxKernels],
  optional: [ICommandPalette],
  activate: (app: JupyterFrontEnd, kernels: IJxKernels, palette: ICommandPalette | null) => {
    const enabled = () =>
      kernels.current?.status === 'connected' && targetCell(app, kernels)?.model.type === 'code';
    for (const [id, kind, label] of [
      [CMD_SHOW_JAXPR, 'jaxpr', 'jxkernel: Show jaxpr of selected cell'],
      [CMD_SHOW_HLO, 'hlo', 'jxkernel: Show HLO of selected cell']
    ] as const) {
      app.commands.addCommand(id, {
        label,
        caption: `Runs %${kind} on the cell's code (or the selected text) and shows the result`,
        isEnabled: enabled,
        execute: () => show(app, kernels, kind)
      });
      palette?.addItem({ command: id, category: 'jxkernel' });
      app.contextMenu.addItem({ command: id, selector: '.jp-Notebook .jp-CodeCell', rank: 60 });
    }
  }
};
