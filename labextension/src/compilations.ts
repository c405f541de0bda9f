/**
 * The Compilations sidebar (right area): the active notebook's compilation events, live.
 * Clicking an event selects and scrolls to the cell that compiled it; the "fail" box sends
 * set_fail_on_recompile; JSON/CSV export the listed events.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';

import { CompilationsPanel } from './compilationsPanel';
import { download, toCSV, toJSON } from './export';
import { compilationsIcon } from './icons';
import { IJxKernels } from './kernels';
import { ICompileEvent } from './protocol';

export const CMD_OPEN_COMPILATIONS = 'jxkernel:open-compilations';
const PANEL_ID = 'jxkernel-compilations';

function notify(err: unknown): void {
  Notification.error(`jxkernel: ${(err as Error).message ?? err}`, { autoClose: 8000 });
}

/** Selects the event's cell in the active notebook and scrolls it into view. */
async function showCell(app: JupyterFrontEnd, kernels: IJxKernels, e: ICompileEvent) {
  const panel = kernels.currentPanel;
  const where = e.execution_count !== null ? ` (In [${e.execution_count}])` : '';
  const index = panel?.content.widgets.findIndex(c => c.model.id === e.cell_id) ?? -1;
  if (!panel || index < 0) {
    Notification.info(
      e.cell_id
        ? `The cell that compiled ${e.function}${where} is no longer in this notebook.`
        : `${e.function} was compiled outside a notebook cell${e.source ? ` (${e.source})` : ''}.`,
      { autoClose: 5000 }
    );
    return;
  }
  const notebook = panel.content;
  app.shell.activateById(panel.id);
  notebook.deselectAll();
  notebook.activeCellIndex = index;
  notebook.mode = 'command';
  await notebook.scrollToCell(notebook.widgets[index], 'center');
}

function noteFor(kernels: IJxKernels): string {
  switch (kernels.current?.status ?? 'no-kernel') {
    case 'connected':
      return '';
    case 'not-loaded':
      return 'jxkernel is not loaded in this notebook’s kernel (%load_ext jxkernel).';
    case 'unsupported':
      return 'This notebook’s kernel is not a Python kernel.';
    default:
      return kernels.currentPanel ? 'Waiting for the kernel…' : 'No notebook is open.';
  }
}

export const compilationsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jxkernel-labextension:compilations',
  description: 'A sidebar listing the compilations jxkernel did in the active notebook.',
  autoStart: true,
  // app.shell, not ILabShell: Notebook 7's shell has a right sidebar too, and no ILabShell
  requires: [IJxKernels],
  optional: [ICommandPalette],
  activate: (app: JupyterFrontEnd, kernels: IJxKernels, palette: ICommandPalette | null) => {
    const shell = app.shell;
    const panel = new CompilationsPanel({
      open: e => void showCell(app, kernels, e),
      setFail: (e, enabled) =>
        kernels.current?.setFailOnRecompile(e.function_key, enabled).catch(notify),
      clear: () => kernels.current?.clearCompilations().catch(notify),
      exportAs: (format, events) => {
        const name = kernels.currentPanel?.context.path.replace(/.*\//, '').replace(/\.ipynb$/, '');
        const file = `${name || 'jxkernel'}-compilations.${format}`;
        if (format === 'json') {
          download(file, toJSON(events), 'application/json');
        } else {
          download(file, toCSV(events), 'text/csv');
        }
      }
    });
    panel.id = PANEL_ID;
    panel.title.icon = compilationsIcon;
    panel.title.caption = 'Compilations';
    panel.node.setAttribute('aria-label', 'jxkernel compilations');

    const update = () => {
      const c = kernels.current;
      panel.setData(c?.events ?? [], c?.others ?? [], c?.state?.fail_on_recompile ?? [], noteFor(kernels),
        c?.state?.counted);
    };
    kernels.changed.connect(update);
    kernels.eventsChanged.connect(update);
    update();
    shell.add(panel, 'right', { rank: 900 });

    app.commands.addCommand(CMD_OPEN_COMPILATIONS, {
      label: 'jxkernel: Open Compilations panel',
      caption: 'Show the compilations jxkernel did in the active notebook',
      icon: args => (args.isPalette ? undefined : compilationsIcon),
      execute: () => shell.activateById(PANEL_ID)
    });
    palette?.addItem({ command: CMD_OPEN_COMPILATIONS, category: 'jxkernel' });
  }
};
