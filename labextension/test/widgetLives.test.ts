/** widgetLives: the connection's own comms first, then the kernel, which may never answer. */
import { describe, expect, it } from 'vitest';

import { widgetLives } from '../src/widgetLives';

/** A kernel connection with `comms` open here, whose kernel answers comm_info with `kernelComms`
 * (null: never answers, as JupyterLite's kernels do). */
function kernel(comms: string[], kernelComms: string[] | null) {
  const asked: string[] = [];
  return {
    asked,
    hasComm: (id: string) => comms.includes(id),
    requestCommInfo: (content: { target_name?: string }) => {
      asked.push(content.target_name ?? '');
      if (kernelComms === null) {
        return new Promise<never>(() => undefined);
      }
      const found = Object.fromEntries(kernelComms.map(id => [id, { target_name: 'jupyter.widget' }]));
      return Promise.resolve({ content: { status: 'ok', comms: found } } as any);
    }
  };
}

describe('widgetLives', () => {
  it('is true at once for a comm this connection has open, without asking the kernel', async () => {
    const k = kernel(['m1'], null);
    expect(await widgetLives(k, 'm1', 50)).toBe(true);
    expect(k.asked).toEqual([]);
  });

  it("asks the kernel for a model this connection does not know", async () => {
    const k = kernel([], ['m2']);
    expect(await widgetLives(k, 'm2', 50)).toBe(true);
    expect(await widgetLives(k, 'gone', 50)).toBe(false);
    expect(k.asked).toEqual(['jupyter.widget', 'jupyter.widget']);
  });

  it('is false after the time limit where the kernel never answers (JupyterLite)', async () => {
    const started = Date.now();
    expect(await widgetLives(kernel([], null), 'm3', 50)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('is false without a kernel or a model id', async () => {
    expect(await widgetLives(null, 'm1')).toBe(false);
    expect(await widgetLives(kernel(['m1'], null), undefined)).toBe(false);
  });
});
