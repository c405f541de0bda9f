/**
 * The MIME renderer extension for `application/vnd.jxkernel.jaxpr+json`: works in any output
 * area, with or without a kernel (saved notebooks keep the bundle).
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { JaxprView } from './jaxprView';
import { IJaxprBundle, JAXPR_MIME } from './protocol';

export class JaxprRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private _mimeType: string) {
    super();
    this.addClass('jx-JaxprOutput');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const bundle = model.data[this._mimeType] as unknown as IJaxprBundle;
    this.node.replaceChildren(new JaxprView(bundle ?? { version: 1, name: '', text: '' }).node);
    return Promise.resolve();
  }
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [JAXPR_MIME],
  defaultRank: 40, // ahead of text/html (50), so a view that carries both shows this
  createRenderer: options => new JaxprRenderer(options.mimeType)
};

const extension: IRenderMime.IExtension = {
  id: 'jxkernel-labextension:jaxpr-renderer',
  description: 'Renders jxkernel jaxprs with collapsible sub-jaxprs and linked variables.',
  rendererFactory,
  rank: 40,
  dataType: 'json'
};

export default extension;
