/**
 * Run All goes past a cell tagged `raises-exception` on JupyterLite, as it does on a Jupyter
 * server (docs/teaching.md, "A room with no server").
 *
 * JupyterLab sends such a cell's execute_request with `stop_on_error: false`
 * (OutputArea.execute), and a Jupyter kernel then runs the cells queued behind it. JupyterLite
 * (0.6 to 0.9) does not read `stop_on_error`: its kernel client (LiteKernelClient.startNew's
 * sendMessage, @jupyterlite/kernel, later @jupyterlite/services) cancels the mutex every queued
 * message waits on as soon as any execute_reply says `error`, so the cells queued behind are
 * dropped without a reply. Here, on JupyterLite only, when a tagged cell fails, the notebook's
 * cells still waiting for their reply (scheduled before the failure: they were dropped) are run
 * again, in order. A cell run by hand in the few milliseconds between the kernel's reply and
 * the notebook receiving it would run twice; Run All schedules every cell at once, before.
 *
 * The notebook toolbar's execution indicator counts each execute_request until an idle status
 * answers it (a Jupyter kernel sends one for a request it aborts, too); JupyterLite sends
 * nothing for the requests it drops, so after any error in Run All the indicator stayed busy
 * (a half-filled circle) for good. For each dropped request, the idle status a Jupyter kernel
 * would have sent is delivered to the kernel connection's message signal, which the indicator
 * reads (droppedRequests.ts).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import type { Cell } from '@jupyterlab/cells'; // a type only: nothing bundled
import { INotebookTracker, Notebook, NotebookActions } from '@jupyterlab/notebook';

import { answerDropped } from './droppedRequests';

const TAG = 'raises-exception';

/** Whether the cell carries the `raises-exception` tag, as OutputArea.execute reads it. */
export function raisesException(metadata: { tags?: unknown } | undefined): boolean {
  return Array.isArray(metadata?.tags) && metadata!.tags.includes(TAG);
}

/** Each notebook's code cells scheduled to run whose reply has not come, oldest first. */
class Waiting {
  add(notebook: Notebook, cell: Cell): void {
    const cells = this._of(notebook);
    cells.delete(cell); // scheduled again: it moves to the end
    cells.add(cell);
  }

  done(notebook: Notebook, cell: Cell): void {
    this._of(notebook).delete(cell);
  }

  /** The cells still waiting (those still in the notebook), forgotten from now on. */
  take(notebook: Notebook): Cell[] {
    const cells = [...this._of(notebook)].filter(
      c => !c.isDisposed && notebook.widgets.includes(c)
    );
    this._cells.delete(notebook);
    return cells;
  }

  private _of(notebook: Notebook): Set<Cell> {
    let cells = this._cells.get(notebook);
    if (!cells) {
      cells = new Set();
      this._cells.set(notebook, cells);
    }
    return cells;
  }

  private _cells = new WeakMap<Notebook, Set<Cell>>();
}

export const raisesExceptionPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jxkernel-labextension:raises-exception',
  description: 'Run All goes past cells tagged raises-exception on JupyterLite.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker) => {
    if (app.name !== 'JupyterLite') {
      return; // a Jupyter server's kernel honours stop_on_error itself
    }
    const waiting = new Waiting();
    NotebookActions.executionScheduled.connect((_, { notebook, cell }) =>
      waiting.add(notebook, cell)
    );
    NotebookActions.executed.connect((_, { notebook, cell, success }) => {
      waiting.done(notebook, cell);
      if (success) {
        return;
      }
      const dropped = waiting.take(notebook); // any error drops them; a tagged one runs them
      const panel = tracker.find(p => p.content === notebook);
      answerDropped(panel?.sessionContext.session?.kernel, dropped);
      if (!raisesException(cell.model.metadata) || !dropped.length || !panel) {
        return;
      }
      // after Run All's own handling of the error (it marks unrun cells idle), not before
      setTimeout(() => {
        void NotebookActions.runCells(notebook, dropped, panel.sessionContext);
      }, 0);
    });
  }
};
