/**
 * The MIME renderer extensions for jxkernel's views: a jaxpr, traced vs static, HLO and the
 * recompilation log (`application/vnd.jxkernel.*+json`, written by jxkernel/notebook). They
 * work in any output area, with or without a kernel: saved notebooks keep the bundles.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { compilationsView } from './compilationsView';
import { hloView } from './hloView';
import { JaxprView } from './jaxprView';
import {
  COMPILATIONS_MIME,
  HLO_MIME,
  ICompilationsBundle,
  IHloBundle,
  IJaxprBundle,
  ITracedBundle,
  JAXPR_MIME,
  TRACED_MIME
} from './protocol';
import { tracedView } from './tracedView';

/** Each MIME type, the view drawing its bundle, the output's class, what it shows. */
const VIEWS: { [mime: string]: [(bundle: any) => HTMLElement, string, string] } = {
  [JAXPR_MIME]: [
    (b: IJaxprBundle) => new JaxprView(b ?? { version: 1, name: '', text: '' }).node,
    'jx-JaxprOutput',
    'jxkernel jaxprs with collapsible sub-jaxprs and linked variables'
  ],
  [TRACED_MIME]: [
    (b: ITracedBundle) => tracedView(b),
    'jx-TracedOutput',
    'jxkernel traced vs static views'
  ],
  [HLO_MIME]: [(b: IHloBundle) => hloView(b), 'jx-HloOutput', 'jxkernel HLO and XLA cost views'],
  [COMPILATIONS_MIME]: [
    (b: ICompilationsBundle) => compilationsView(b),
    'jx-CompileLogOutput',
    'jxkernel recompilation logs'
  ]
};

/** The MIME types the extension renders, in the order an output carrying several prefers. */
export const VIEW_MIMES = Object.keys(VIEWS);

export class ViewRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private _mimeType: string) {
    super();
    this.addClass(VIEWS[_mimeType][1]);
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const [view] = VIEWS[this._mimeType];
    this.node.replaceChildren(view(model.data[this._mimeType]));
    return Promise.resolve();
  }
}

export function rendererFactoryFor(mimeType: string): IRenderMime.IRendererFactory {
  return {
    safe: true, // everything is drawn with textContent
    mimeTypes: [mimeType],
    defaultRank: 40, // ahead of text/html (50), so a view that carries both shows this
    createRenderer: options => new ViewRenderer(options.mimeType)
  };
}

const extensions: IRenderMime.IExtension[] = VIEW_MIMES.map(mime => ({
  id: `jxkernel-labextension:${mime.replace(/^application\/vnd\.jxkernel\.|\+json$/g, '')}-renderer`,
  description: `Renders ${VIEWS[mime][2]}.`,
  rendererFactory: rendererFactoryFor(mime),
  rank: 40,
  dataType: 'json' as const
}));

export default extensions;
