/**
 * Saved jxkernel views render without their kernel. A jaxpr, traced-vs-static or
 * recompilation-log output carries the widget view (`application/vnd.jupyter.widget-view+json`)
 * and its own bundle (`application/vnd.jxkernel.*+json`, mime.ts). In a trusted notebook the
 * widget manager's renderer (rank -10) is preferred to every other, also when the widget's
 * model is gone (the kernel was shut down or restarted): it then shows "Error displaying
 * widget: model not found". So, in each notebook, the widget-view factory is wrapped: for an
 * output that also carries one of jxkernel's bundles it shows the live widget where it still
 * lives (widgetLives) and the bundle's renderer if not. Other widget outputs are left to the
 * widget manager.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ISessionContext } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Panel } from '@lumino/widgets';

import { rendererFactoryFor, VIEW_MIMES } from './mime';
import { widgetLives } from './widgetLives';

const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';
const WRAPPED = Symbol('jxkernel-wrapped');

/** The widget view while the widget lives, else the saved view. */
class ViewOrWidget extends Panel implements IRenderMime.IRenderer {
  constructor(
    private _options: IRenderMime.IRendererOptions,
    private _widgets: IRenderMime.IRendererFactory,
    private _session: ISessionContext
  ) {
    super();
    this.addClass('jx-ViewOrWidget');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const view = model.data[WIDGET_MIME] as { model_id?: unknown } | undefined;
    const saved = VIEW_MIMES.find(mime => mime in model.data);
    const live = !saved || (await widgetLives(this._session.session?.kernel, view?.model_id));
    const renderer = live
      ? this._widgets.createRenderer(this._options)
      : rendererFactoryFor(saved).createRenderer({ ...this._options, mimeType: saved });
    for (const old of [...this.widgets]) {
      old.dispose();
    }
    this.addWidget(renderer);
    return renderer.renderModel(model);
  }
}

function wrap(panel: NotebookPanel): void {
  const rendermime = panel.content.rendermime;
  const inner = rendermime.getFactory(WIDGET_MIME);
  if (!inner || (inner as any)[WRAPPED]) {
    return;
  }
  const factory: IRenderMime.IRendererFactory = {
    safe: inner.safe,
    mimeTypes: [WIDGET_MIME],
    defaultRank: inner.defaultRank,
    createRenderer: options => new ViewOrWidget(options, inner, panel.sessionContext)
  };
  (factory as any)[WRAPPED] = true;
  rendermime.addFactory(factory, rendermime.getRank(WIDGET_MIME));
}

export const widgetFallbackPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jxkernel-labextension:jaxpr-widget-fallback',
  description: 'Shows the saved view where a jxkernel widget is gone with its kernel.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker) => {
    // the widget manager adds its factory when a notebook is added: wrap it after that, and
    // again whenever it adds a new one (a kernel change)
    const watch = (panel: NotebookPanel) => {
      setTimeout(() => wrap(panel), 0);
      panel.sessionContext.kernelChanged.connect(() => setTimeout(() => wrap(panel), 0));
      panel.context.ready.then(() => wrap(panel)).catch(() => undefined);
    };
    tracker.forEach(watch);
    tracker.widgetAdded.connect((_, panel) => watch(panel));
  }
};
