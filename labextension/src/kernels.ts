/**
 * The plugin that gives every open notebook a JxConnection and says which one is current
 * (the active notebook's); the other plugins require its token.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISignal, Signal } from '@lumino/signaling';
import { Token } from '@lumino/coreutils';

import { JxConnection } from './connection';

export interface IJxKernels {
  /** The active notebook's connection (null when no notebook is open). */
  readonly current: JxConnection | null;
  /** The notebook the current connection belongs to. */
  readonly currentPanel: NotebookPanel | null;
  /** Emitted when the current connection changes, or it changes its status or state. */
  readonly changed: ISignal<IJxKernels, void>;
  /** Emitted when the current connection's compilation events change (or it changes). */
  readonly eventsChanged: ISignal<IJxKernels, void>;
}

export const IJxKernels = new Token<IJxKernels>(
  'jxkernel-labextension:kernels',
  'The jxkernel comm of each notebook, and the active one.'
);

class JxKernels implements IJxKernels {
  constructor(private _tracker: INotebookTracker) {
    _tracker.widgetAdded.connect((_, panel) => this._add(panel));
    _tracker.forEach(panel => this._add(panel));
    _tracker.currentChanged.connect(this._onCurrent, this);
    this._onCurrent();
  }

  get current(): JxConnection | null {
    const panel = this._tracker.currentWidget;
    return panel ? (this._connections.get(panel) ?? null) : null;
  }

  get currentPanel(): NotebookPanel | null {
    return this._tracker.currentWidget;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get eventsChanged(): ISignal<this, void> {
    return this._eventsChanged;
  }

  private _add(panel: NotebookPanel): void {
    if (this._connections.has(panel)) {
      return;
    }
    const connection = new JxConnection(panel.sessionContext);
    this._connections.set(panel, connection);
    connection.changed.connect(() => {
      if (connection === this.current) {
        this._changed.emit();
      }
    });
    connection.eventsChanged.connect(() => {
      if (connection === this.current) {
        this._eventsChanged.emit();
      }
    });
    panel.disposed.connect(() => {
      this._connections.delete(panel);
      connection.dispose();
    });
  }

  private _onCurrent(): void {
    const panel = this._tracker.currentWidget;
    if (panel) {
      this._add(panel);
    }
    this._changed.emit();
    this._eventsChanged.emit();
  }

  private _connections = new Map<NotebookPanel, JxConnection>();
  private _changed = new Signal<this, void>(this);
  private _eventsChanged = new Signal<this, void>(this);
}

export const kernelsPlugin: JupyterFrontEndPlugin<IJxKernels> = {
  id: 'jxkernel-labextension:kernels',
  description: 'Opens the jxkernel comm in each notebook kernel.',
  autoStart: true,
  requires: [INotebookTracker],
  provides: IJxKernels,
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker) => new JxKernels(tracker)
};
