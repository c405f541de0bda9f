/** The views' pure functions: the magic a command runs, bytes as text, the log's exports. */
import { KernelMessage } from '@jupyterlab/services';
import { describe, expect, it } from 'vitest';

import { toCSV, toJSON } from '../src/export';
import { magicCode, mayLoadJxkernel } from '../src/magicCode';
import { idleAfter } from '../src/droppedRequests';
import { allocatorStatus, allocatorText, bytes } from '../src/memoryView';
import { unattributedText } from '../src/explainView';
import type { ICompileEvent, IState } from '../src/protocol';
import messages from './messages.json';

describe('mayLoadJxkernel', () => {
  it('is true for a cell naming jxkernel or importing jax, false for one that only uses it', () => {
    expect(mayLoadJxkernel('%load_ext jxkernel')).toBe(true);
    expect(mayLoadJxkernel('import jax\nimport jax.numpy as jnp')).toBe(true);
    expect(mayLoadJxkernel('x = 1\n  from jax import lax')).toBe(true);
    expect(mayLoadJxkernel('y = jax.jit(f)(x)')).toBe(false);
    expect(mayLoadJxkernel('import jaxtyping')).toBe(false);
  });
});

describe('magicCode', () => {
  it('makes a line magic of one line and a cell magic of several (jaxpr only)', () => {
    expect(magicCode('jaxpr', 'f(x)')).toBe('%jaxpr f(x)');
    expect(magicCode('hlo', '  f(x)  \n# comment\n')).toBe('%hlo f(x)');
    expect(magicCode('jaxpr', 'y = f(x)\nz = g(y)')).toBe('%%jaxpr\ny = f(x)\nz = g(y)');
    expect(magicCode('hlo', 'y = f(x)\nz = g(y)')).toBeNull();
  });

  it('drops a leading %%magic line and finds nothing in comments or blanks', () => {
    expect(magicCode('jaxpr', '%%jit\r\ny = f(x)\r\n')).toBe('%jaxpr y = f(x)');
    expect(magicCode('jaxpr', '\n  \n# only a comment')).toBeNull();
  });
});

describe('bytes', () => {
  it('is exact, then in binary units past a KiB', () => {
    expect(bytes(0)).toBe('0 bytes');
    expect(bytes(1023)).toBe('1,023 bytes');
    expect(bytes(262144)).toBe('262,144 bytes (256.0 KiB)');
    expect(bytes(3 * 1024 ** 3)).toBe('3,221,225,472 bytes (3.0 GiB)');
  });
});

describe('exports', () => {
  const event: ICompileEvent = {
    seq: 3,
    time: 1763850000.5,
    function: 'f',
    function_key: 'f@model.py:3#1',
    source: 'model.py:3',
    cell_id: null,
    execution_count: null,
    signature: [
      ['x', 'f32[3]'],
      ['n', 'static "a"']
    ],
    reason: 'x: f32[2] -> f32[3]',
    trace_ms: 1.5,
    lower_ms: 0.25,
    compile_ms: 30,
    cache: 'compiled',
    backend: 'cpu',
    explanation: [],
    origin: 'internal',
    library: true
  };

  it('writes JSON that reads back the same', () => {
    expect(JSON.parse(toJSON([event]))).toEqual([event]);
  });

  it('writes RFC 4180 CSV: every field quoted, quotes doubled, nulls empty', () => {
    const [head, row, end] = toCSV([event]).split('\r\n');
    expect(head.split(',')[0]).toBe('"seq"');
    expect(row).toBe(
      '"3","1763850000.5","f","f@model.py:3#1","model.py:3","","","x: f32[3]; n: static ""a""",' +
        '"x: f32[2] -> f32[3]","1.5","0.25","30","compiled","cpu","internal","true"'
    );
    expect(end).toBe('');
  });

  it("says a registered library's compile as its group does, an older kernel's as not", () => {
    const head = toCSV([event]).split('\r\n')[0].split(',');
    expect(head.slice(-2)).toEqual(['"origin"', '"library"']);
    const older: ICompileEvent = { ...event, origin: 'user' };
    delete older.library;
    expect(toCSV([older]).split('\r\n')[1].endsWith('"user","false"')).toBe(true);
  });
});

describe('the device allocator (issue 46)', () => {
  it('says bytes in use, peak and limit, and "not reported" for what the backend lacks', () => {
    expect(allocatorText({ bytes_in_use: 2048, peak_bytes_in_use: 4096, bytes_limit: 3 * 1024 ** 3 })).toBe(
      '2,048 bytes (2.0 KiB) in use, peak 4,096 bytes (4.0 KiB), limit 3,221,225,472 bytes (3.0 GiB)'
    );
    expect(allocatorText({ bytes_in_use: 0, peak_bytes_in_use: null, bytes_limit: null })).toBe(
      '0 bytes in use, peak not reported by this backend, limit not reported by this backend'
    );
    // JupyterLite's copy of an output drops Python's None: a missing field says the same
    expect(allocatorText({ bytes_in_use: 0 })).toBe(
      '0 bytes in use, peak not reported by this backend, limit not reported by this backend'
    );
  });
});

describe('the status bar: the device allocator (issue 46)', () => {
  const state = (change: object) => ({ ...messages.state, ...change }) as IState;

  it('shows bytes in use and the limit where the backend reports them, the peak in the tooltip', () => {
    const memory = { bytes_in_use: 3 * 2 ** 20, peak_bytes_in_use: 2 ** 30, bytes_limit: 80 * 2 ** 30 };
    expect(allocatorStatus(state({ device: 'gpu:0', memory }))).toEqual([
      ' · 3.0 MiB / 80.0 GiB',
      " gpu:0's allocator: 3,145,728 bytes (3.0 MiB) in use, peak 1,073,741,824 bytes (1.0 GiB), " +
        'limit 85,899,345,920 bytes (80.0 GiB).'
    ]);
    expect(allocatorStatus(state({ memory: { ...memory, bytes_in_use: 12, bytes_limit: null } }))[0]).toBe(' · 12 bytes');
  });

  it("shows the NumPy backend's bytes in use, with no limit (JupyterLite)", () => {
    const memory = { bytes_in_use: 4044, peak_bytes_in_use: 266240, bytes_limit: null };
    expect(allocatorStatus(state({ device: 'numpy:0', memory }))).toEqual([
      ' · 3.9 KiB',
      " numpy:0's allocator: 4,044 bytes (3.9 KiB) in use, peak 266,240 bytes (260.0 KiB), " +
        'limit not reported by this backend.'
    ]);
  });

  it('shows no part where the backend reports none (the CPU), never zeros; the tooltip says so', () => {
    expect(messages.state.memory).toBeNull();        // what the kernel sent on the CPU
    expect(allocatorStatus(state({ device: 'cpu:0', memory: null }))).toEqual(
      ['', " cpu:0's allocator: not reported by this backend."]);
  });
});

describe('idleAfter', () => {
  it("is the idle status a Jupyter kernel publishes after a request, the indicator's answer", () => {
    const request = KernelMessage.createMessage<KernelMessage.IExecuteRequestMsg>({
      msgType: 'execute_request',
      channel: 'shell',
      session: 'the-session',
      content: { code: 'x = 1' }
    });
    const idle = idleAfter(request.header);
    expect(KernelMessage.isStatusMsg(idle)).toBe(true);
    expect(idle.channel).toBe('iopub');
    expect(idle.content).toEqual({ execution_state: 'idle' });
    expect(idle.parent_header).toEqual(request.header);
    expect(idle.header.session).toBe('the-session');
    expect(idle.header.msg_id).not.toBe(request.header.msg_id);
  });
});

describe('unattributedText', () => {
  const inst = (index: number, name: string, flops: number, transcendentals = 0) =>
    ({ index, name, opcode: name.split('.')[0], flops, transcendentals });

  it("sums and names the costly instructions the kernel says are on no source line", () => {
    // %explain jax.grad(loss) of a one-line loss on the CPU: XLA rewrote both dots, dropping
    // their lines, and the fusion's multiply; the line itself kept 8 of the module's 112 flops
    const grad = [inst(0, 'subtract.0', 8), inst(1, 'multiply.4', 8), inst(2, 'dot', 48),
                  inst(3, 'dot.1', 48), inst(4, 'bitcast', 0)];
    expect(unattributedText(grad, [1, 2, 3]))
      .toBe("on no source line (XLA's optimizer dropped their lines): 104 flops: multiply.4 (multiply, " +
            '8 flops), dot (dot, 48 flops), dot.1 (dot, 48 flops)');
    expect(unattributedText([inst(0, 'exponential', 0, 3)], [0]))
      .toBe("on no source line (XLA's optimizer dropped their lines): 3 transcendentals: exponential " +
            '(exponential, 3 transcendentals)');
  });

  it('is empty when the kernel names none', () => {
    expect(unattributedText([inst(0, 'dot', 48), inst(1, 'bitcast', 0)], [])).toBe('');
  });
});
