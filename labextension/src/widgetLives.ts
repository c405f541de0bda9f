/**
 * Whether a widget output's model still lives in the notebook's kernel, so that its live view
 * can be shown (widgetFallback.ts shows the saved view where it does not).
 *
 * First the kernel connection's own comms: the widget manager opened one with the model's id
 * when the kernel made the widget (the cell just ran) or restored it (a reload), so an output
 * made here is answered at once. Only for a model this connection does not know is the kernel
 * asked (`comm_info_request`), with a time limit: JupyterLite's kernels (the Pyodide kernel of
 * the static site) never answer that request, and the output would otherwise stay empty.
 *
 *     await widgetLives(session.session?.kernel, view.model_id)   // true: draw the widget
 */
import type { Kernel } from '@jupyterlab/services';

export const COMM_INFO_TIMEOUT = 5000; // ms

type KernelLike = Pick<Kernel.IKernelConnection, 'hasComm' | 'requestCommInfo'>;

export async function widgetLives(
  kernel: KernelLike | null | undefined,
  modelId: unknown,
  timeout: number = COMM_INFO_TIMEOUT
): Promise<boolean> {
  if (typeof modelId !== 'string' || !modelId || !kernel) {
    return false;
  }
  if (kernel.hasComm(modelId)) {
    return true;
  }
  try {
    const reply = await Promise.race([
      kernel.requestCommInfo({ target_name: 'jupyter.widget' }),
      new Promise<null>(resolve => setTimeout(() => resolve(null), timeout))
    ]);
    return !!reply && reply.content.status === 'ok' && modelId in reply.content.comms;
  } catch {
    return false;
  }
}
