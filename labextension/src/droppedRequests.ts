/**
 * The requests JupyterLite drops, answered as a Jupyter kernel answers the requests it aborts:
 * with an idle status whose parent is the request (raisesException.ts says when they drop).
 *
 * JupyterLab's toolbar execution indicator (ExecutionIndicator.Model) counts every
 * execute_request it sees on the kernel connection's `anyMessage` until an idle status whose
 * parent is that request comes; JupyterLite sends nothing for a dropped one, so the indicator
 * stayed busy. The status goes to that signal alone, which the indicator reads: the kernel's
 * status (the session's, the status bar's "Idle") comes from the kernel's own messages.
 *
 *     answerDropped(panel.sessionContext.session?.kernel, droppedCells);
 */
import type { Cell, CodeCell } from '@jupyterlab/cells'; // types only: nothing bundled
import { Kernel, KernelMessage } from '@jupyterlab/services';

/**
 * The idle status a Jupyter kernel publishes after the request `parent`, aborted or run: what
 * the execution indicator waits for.
 */
export function idleAfter(parent: KernelMessage.IHeader): KernelMessage.IStatusMsg {
  return KernelMessage.createMessage<KernelMessage.IStatusMsg>({
    msgType: 'status',
    channel: 'iopub',
    session: parent.session,
    content: { execution_state: 'idle' },
    parentHeader: parent as KernelMessage.IHeader<KernelMessage.MessageType>
  });
}

/** The header of the execute_request a code cell last sent, or null (never run, not code). */
function lastRequest(cell: Cell): KernelMessage.IHeader | null {
  if (cell.model.type !== 'code') {
    return null;
  }
  return (cell as CodeCell).outputArea.future?.msg.header ?? null;
}

/**
 * Tells the execution indicator that the dropped requests of `cells` are over: each gets the
 * idle status JupyterLite never sends.
 */
export function answerDropped(
  kernel: Kernel.IKernelConnection | null | undefined,
  cells: Cell[]
): void {
  const signal = kernel?.anyMessage as { emit?: (args: Kernel.IAnyMessageArgs) => void };
  if (typeof signal?.emit !== 'function') {
    return;
  }
  for (const cell of cells) {
    const request = lastRequest(cell);
    if (request) {
      signal.emit({ msg: idleAfter(request), direction: 'recv' });
    }
  }
}
