// @vitest-environment jsdom
/**
 * The jxkernel comm and JupyterLab's kernel subshells (src/connection.ts, `keepOnMainShell`):
 * with JupyterLab's default ("One subshell per comm-target"), JupyterLab's own comm
 * (@jupyterlab/services' CommHandler) on a kernel that has subshells asks for a subshell, and
 * deletes it when the comm closes: the deletions of stop 103's stray "Task was destroyed but
 * it is pending!" lines (docs/teaching.md, "Comms and kernel subshells"). The kernel here is a
 * stand-in that records what the comm asks of it.
 */
import { describe, expect, it, vi } from 'vitest';
import { CommHandler } from '@jupyterlab/services/lib/kernel/comm';

import { JxConnection } from '../src/connection';

/** A kernel with subshells (as ipykernel 7's) whose comms are JupyterLab's, set as by default. */
function kernelWithSubshells() {
  const sent: any[] = [];
  const kernel: any = {
    id: 'k1',
    status: 'idle',
    username: '',
    clientId: 'client',
    subshellId: null,
    isDisposed: false,
    supportsSubshells: true,
    info: Promise.resolve({ language_info: { name: 'python' } }),
    statusChanged: { connect: () => undefined },
    requestCreateSubshell: vi.fn(() => ({
      done: Promise.resolve({ content: { subshell_id: 'subshell-1' } })
    })),
    requestDeleteSubshell: vi.fn(),
    sendShellMessage: (msg: any) => {
      sent.push(msg);
      return { done: new Promise(() => undefined) }; // the kernel is busy: no reply yet
    },
    comms: [] as CommHandler[],
    sent,
    createComm(target: string) {
      const comm = new CommHandler(target, `comm-${this.comms.length}`, kernel, () => undefined,
                                   'perCommTarget' as any);
      this.comms.push(comm);
      return comm;
    }
  };
  return kernel;
}

function sessionContext(kernel: any): any {
  const signal = { connect: () => undefined };
  return { kernelChanged: signal, statusChanged: signal, iopubMessage: signal,
           ready: Promise.resolve(), session: { kernel } };
}

const settle = () => new Promise(resolve => setTimeout(resolve, 0));

describe('the jxkernel comm and kernel subshells', () => {
  it('opens, reconnects and closes on the main shell: no subshell made or deleted', async () => {
    const kernel = kernelWithSubshells();
    const link = new JxConnection(sessionContext(kernel));
    await settle();
    expect(kernel.comms).toHaveLength(1);
    // JupyterLab sets every comm's mode again when its settings load or change
    (kernel.comms[0] as any).commsOverSubshells = 'perCommTarget';
    await settle();
    void link.connect();          // a reconnect (after an error while connecting): close, open
    await settle();
    link.dispose();               // the notebook closed
    await settle();
    expect(kernel.comms).toHaveLength(2);
    expect(kernel.requestCreateSubshell).not.toHaveBeenCalled();
    expect(kernel.requestDeleteSubshell).not.toHaveBeenCalled();
    const types = kernel.sent.map((msg: any) => msg.header.msg_type);
    expect(types).toEqual(['comm_open', 'comm_close', 'comm_open', 'comm_close']);
    expect(kernel.sent.map((msg: any) => msg.header.subshell_id)).toEqual([null, null, null, null]);
  });
});
