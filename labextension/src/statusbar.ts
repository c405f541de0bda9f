/**
 * The status bar item for the active notebook's kernel:
 * "jx · cpu:0 (4 devices) · 12 compiles, 40 hits · +41 not yours" when jxkernel is loaded
 * ("12 cache misses" on the NumPy backend, which compiles nothing: %jxcompiles' words)
 * (the user's functions counted; eager operations, jxkernel's and libraries' own functions apart,
 * a library's being one registered as not yours, Flax's and Equinox's; click:
 * the backend menu), with "· 1.2 GiB / 79.1 GiB" (the device allocator's bytes in use and
 * limit, its peak in the tooltip) where the backend reports them (GPU, TPU, the NumPy backend:
 * bytes in use alone; not XLA's CPU, whose tooltip says it reports none),
 * "jx · not loaded" when it is not (click: run `%load_ext jxkernel` silently and reconnect).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IStatusBar } from '@jupyterlab/statusbar';
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { CMD_SWITCH_BACKEND } from './backends';
import { IJxKernels } from './kernels';
import { describe } from './statusText';

class StatusItem extends Widget {
  constructor(
    private _app: JupyterFrontEnd,
    private _kernels: IJxKernels
  ) {
    super({ node: document.createElement('button') });
    this.addClass('jx-StatusItem');
    this.node.setAttribute('type', 'button');
    this.node.addEventListener('click', () => this._activate());
    _kernels.changed.connect(this._update, this);
    this._update();
  }

  private _activate(): void {
    const connection = this._kernels.current;
    if (!connection) {
      return;
    }
    if (connection.status === 'not-loaded') {
      void connection.load();
    } else if (connection.status === 'connected') {
      const box = this.node.getBoundingClientRect();
      void this._app.commands.execute(CMD_SWITCH_BACKEND, { x: box.left, y: box.top });
    }
  }

  private _update(): void {
    const [text, tooltip] = describe(this._kernels.current);
    this.node.textContent = text;
    this.node.title = tooltip;
    this.node.setAttribute('aria-label', tooltip || 'jxkernel');
    const status = this._kernels.current?.status ?? 'no-kernel';
    this.node.dataset.status = status;
  }
}

export const statusBarPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jxkernel-labextension:status',
  description: "Shows the active notebook's jxkernel backend and compile counts in the status bar.",
  autoStart: true,
  requires: [IJxKernels, INotebookTracker],
  // Notebook 7 has no status bar: there the item goes into each notebook's toolbar
  optional: [IStatusBar],
  activate: (
    app: JupyterFrontEnd,
    kernels: IJxKernels,
    tracker: INotebookTracker,
    statusBar: IStatusBar | null
  ) => {
    if (!statusBar) {
      const add = (panel: NotebookPanel) => {
        const item = new StatusItem(app, kernels);
        item.addClass('jx-StatusItem-toolbar');
        panel.toolbar.addItem('jxkernel-status', item);
      };
      tracker.forEach(add);
      tracker.widgetAdded.connect((_, panel) => add(panel));
      return;
    }
    const item = new StatusItem(app, kernels);
    // shown while a notebook of a Python kernel is the main area's current widget
    const activeChanged = new Signal<StatusItem, void>(item);
    kernels.changed.connect(() => activeChanged.emit());
    app.shell.currentChanged?.connect(() => activeChanged.emit());
    statusBar.registerStatusItem('jxkernel-labextension:status', {
      item,
      align: 'left',
      rank: 4,
      isActive: () => {
        const status = kernels.current?.status;
        return (
          status !== undefined &&
          status !== 'no-kernel' &&
          status !== 'unsupported' &&
          app.shell.currentWidget === kernels.currentPanel
        );
      },
      activeStateChanged: activeChanged
    });
  }
};
