/**
 * Backend switching: the `jxkernel:set-backend` command (one menu item per device) and
 * "jxkernel: Switch backend…", which opens a menu of the current kernel's backends and devices
 * (unavailable backends disabled, with the kernel's hint), at the status bar item or where asked.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { Menu } from '@lumino/widgets';

import { IJxKernels } from './kernels';
import { IState } from './protocol';

export const CMD_SET_BACKEND = 'jxkernel:set-backend';
export const CMD_SWITCH_BACKEND = 'jxkernel:switch-backend';

const HINT_LENGTH = 90;

/** The menu for one state: a section per backend, an item per device. */
function backendMenu(app: JupyterFrontEnd, state: IState): Menu {
  const menu = new Menu({ commands: app.commands });
  menu.addClass('jx-BackendMenu');
  menu.title.label = 'jxkernel backend';
  state.backends.forEach((backend, i) => {
    if (i > 0) {
      menu.addItem({ type: 'separator' });
    }
    if (!backend.available) {
      const hint = backend.hint ?? 'not available';
      const short = hint.length > HINT_LENGTH ? hint.slice(0, HINT_LENGTH) + '…' : hint;
      menu.addItem({
        command: CMD_SET_BACKEND,
        args: { backend: backend.name, label: `${backend.name}: unavailable (${short})` }
      });
      return;
    }
    for (const device of backend.devices ?? [`${backend.name}:0`]) {
      menu.addItem({
        command: CMD_SET_BACKEND,
        args: { backend: backend.name, device, label: device, available: true }
      });
    }
  });
  return menu;
}

function deviceIndex(device: string): number {
  const n = Number(device.split(':').pop());
  return Number.isInteger(n) ? n : 0;
}

export const backendsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jxkernel-labextension:backends',
  description: 'Switch the jxkernel backend and device of the active notebook.',
  autoStart: true,
  requires: [IJxKernels],
  optional: [ICommandPalette],
  activate: (app: JupyterFrontEnd, kernels: IJxKernels, palette: ICommandPalette | null) => {
    app.commands.addCommand(CMD_SET_BACKEND, {
      label: args => String(args.label ?? args.device ?? args.backend),
      isEnabled: args => args.available === true && kernels.current?.status === 'connected',
      isToggled: args => kernels.current?.state?.device === args.device,
      execute: async args => {
        const connection = kernels.current;
        if (!connection) {
          return;
        }
        try {
          await connection.setBackend(String(args.backend), deviceIndex(String(args.device)));
        } catch (err) {
          Notification.error(`jxkernel: ${(err as Error).message}`, { autoClose: 8000 });
        }
      }
    });

    app.commands.addCommand(CMD_SWITCH_BACKEND, {
      label: 'jxkernel: Switch backend…',
      caption: 'Choose the backend and device jxkernel compiles for in this notebook',
      isEnabled: () => kernels.current?.status === 'connected',
      execute: args => {
        const state = kernels.current?.state;
        if (!state) {
          return;
        }
        const menu = backendMenu(app, state);
        let x = Number(args.x);
        let y = Number(args.y);
        if (!Number.isFinite(x) || !Number.isFinite(y)) {
          const anchor = document.querySelector('.jx-StatusItem');
          const box = anchor?.getBoundingClientRect();
          x = box ? box.left : window.innerWidth / 3;
          y = box ? box.top : window.innerHeight / 3;
        }
        // lumino flips the menu above the point when it does not fit below
        menu.aboutToClose.connect(() => setTimeout(() => menu.dispose(), 0));
        menu.open(x, y);
        // the keyboard starts at the current device: Enter keeps it, arrows move from it
        const current = menu.items.findIndex(item => item.args.device === state.device);
        menu.activeIndex = Math.max(0, current);
      }
    });

    palette?.addItem({ command: CMD_SWITCH_BACKEND, category: 'jxkernel' });
  }
};
