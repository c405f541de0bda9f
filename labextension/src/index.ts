/** The jxkernel JupyterLab extension: its plugins (the MIME renderer is in mime.ts). */
import { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { backendsPlugin } from './backends';
import { commandsPlugin } from './commands';
import { compilationsPlugin } from './compilations';
import { kernelsPlugin } from './kernels';
import { raisesExceptionPlugin } from './raisesException';
import { statusBarPlugin } from './statusbar';
import { widgetFallbackPlugin } from './widgetFallback';

const plugins: JupyterFrontEndPlugin<any>[] = [
  kernelsPlugin,
  backendsPlugin,
  statusBarPlugin,
  compilationsPlugin,
  commandsPlugin,
  widgetFallbackPlugin,
  raisesExceptionPlugin
];

export default plugins;
