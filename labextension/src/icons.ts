/** The extension's icons (theme-aware: jp-icon3 paths follow the light/dark theme). */
import { LabIcon } from '@jupyterlab/ui-components';

const gearList =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M3 5h11v2H3zm0 6h11v2H3zm0 6h11v2H3z' +
  'M19 4l1 2.2 2.3.3-1.7 1.6.4 2.4L19 9.4l-2 1.1.4-2.4-1.7-1.6 2.3-.3z' +
  'M18 13h2v6h-2zm0 7h2v2h-2z"/></svg>';

export const compilationsIcon = new LabIcon({
  name: 'jxkernel-labextension:compilations',
  svgstr: gearList
});
