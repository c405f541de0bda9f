/**
 * The MIME renderer extensions for jxkernel's views: a jaxpr, traced vs static, HLO, the
 * recompilation log, and the "see inside" views (explain, stepper, error card, jaxpr diff,
 * phase profile, memory, compile report, guard, sharding) (`application/vnd.jxkernel.*+json`, written
 * by jxkernel). They work in any output area, with or without a kernel: saved notebooks keep
 * the bundles. A bundle a view cannot read shows a one-line note, never a broken output.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { BundleError, bundleOf, undefinedAsNull } from './bundle';
import { compilationsView } from './compilationsView';
import { el } from './dom';
import { errorCardView } from './errorCardView';
import { explainView } from './explainView';
import { guardView } from './guardView';
import { hloView } from './hloView';
import { jaxprDiffView } from './jaxprDiffView';
import { JaxprView } from './jaxprView';
import { memoryView } from './memoryView';
import { profileView } from './profileView';
import {
  COMPILATIONS_MIME,
  ERROR_MIME,
  EXPLAIN_MIME,
  GUARD_MIME,
  HLO_MIME,
  ICompilationsBundle,
  IHloBundle,
  IJaxprBundle,
  ITracedBundle,
  JAXPR_DIFF_MIME,
  JAXPR_MIME,
  JAXPR_VERSIONS,
  MEMORY_MIME,
  PROFILE_MIME,
  REPORT_MIME,
  SHARDING_MIME,
  STEPPER_MIME,
  TRACED_MIME
} from './protocol';
import { reportView } from './reportView';
import { shardingView } from './shardingView';
import { stepperView } from './stepperView';
import { tracedView } from './tracedView';

/** Each MIME type, the view drawing its bundle, the output's class, what it shows. */
const VIEWS: { [mime: string]: [(bundle: any) => HTMLElement, string, string] } = {
  [JAXPR_MIME]: [
    (b: unknown) =>
      new JaxprView(bundleOf<IJaxprBundle>(b, { name: 'string', text: 'string', jaxpr: 'object?' }, JAXPR_VERSIONS)).node,
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
  ],
  [EXPLAIN_MIME]: [
    explainView,
    'jx-ExplainOutput',
    'jxkernel %explain: source lines linked to their equations, StableHLO ops and HLO instructions'
  ],
  [STEPPER_MIME]: [stepperView, 'jx-StepperOutput', 'the jxkernel jaxpr stepper and its values'],
  [ERROR_MIME]: [errorCardView, 'jx-ErrorCardOutput', 'jxkernel error cards'],
  [JAXPR_DIFF_MIME]: [jaxprDiffView, 'jx-DiffOutput', 'jxkernel jaxpr diffs side by side'],
  [PROFILE_MIME]: [profileView, 'jx-ProfileOutput', "jxkernel's phases of a jitted call"],
  [MEMORY_MIME]: [memoryView, 'jx-MemoryOutput', 'jxkernel live device arrays'],
  [REPORT_MIME]: [reportView, 'jx-ReportOutput', 'jxkernel compilation reports'],
  [GUARD_MIME]: [guardView, 'jx-GuardOutput', "jxkernel's recompile guard status"],
  [SHARDING_MIME]: [shardingView, 'jx-ShardingOutput', 'which device holds which block of a sharded jxkernel array']
};

/** The MIME types the extension renders, in the order an output carrying several prefers. */
export const VIEW_MIMES = Object.keys(VIEWS);

/** The view of `bundle`, or a short note saying why it cannot be shown (never throws). */
export function viewOrNote(mimeType: string, bundle: unknown): HTMLElement {
  try {
    return VIEWS[mimeType][0](undefinedAsNull(bundle)); // None is undefined on JupyterLite
  } catch (e) {
    const why = e instanceof BundleError ? e.message : `${(e as Error)?.name ?? 'error'}: ${(e as Error)?.message ?? e}`;
    const note = el('div', 'jx-View-note', `jxkernel cannot show this view (${mimeType}): ${why}.`);
    note.setAttribute('role', 'note');
    return note;
  }
}

export class ViewRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private _mimeType: string) {
    super();
    this.addClass(VIEWS[_mimeType][1]);
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.node.replaceChildren(viewOrNote(this._mimeType, model.data[this._mimeType]));
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
