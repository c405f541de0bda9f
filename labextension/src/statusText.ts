/**
 * The status bar item's text and tooltip for a connection (statusbar.ts shows them): apart from
 * the plugin, so that the unit tests draw them without JupyterLab's application loaded
 * (test/statusbar.test.ts).
 */
import { notYours } from './compilationsPanel';
import type { JxConnection } from './connection';
import { allocatorStatus } from './memoryView';
import { compileCount, misses as counted, plural } from './missWords';

/** [text, tooltip] for a connection. */
export function describe(connection: JxConnection | null): [string, string] {
  switch (connection?.status ?? 'no-kernel') {
    case 'connected': {
      const s = connection!.state!;
      const devices = plural(s.device_count, 'device');
      // the user's functions counted; eager operations, jxkernel's and libraries' own apart
      const others = notYours(s.other_compiles);
      const [used, allocator] = allocatorStatus(s);
      // the NumPy backend compiles nothing: its counts are cache misses, as %jxcompiles says
      const misses = s.counted === 'cache misses';
      // one of each is said in the singular: "1 compile, 1 hit"
      return [
        `jx · ${s.device} (${devices}) · ${compileCount(s.compiles, misses)}` +
          `, ${plural(s.cache_hits, 'hit')}${others}${used}`,
        `jxkernel ${s.jxkernel_version}: ${misses ? 'running on' : 'compiling for'} ${s.device}. ` +
          `Your functions: ${counted(s.compiles, misses)}` +
          (misses ? ' (the NumPy backend compiles nothing: NumPy runs each traced program)' : '') +
          `, ${plural(s.cache_hits, 'cache hit')}` +
          (s.other_compiles > 0
            ? `; and ${counted(s.other_compiles, misses)} of eager operations and jxkernel's or ` +
              "libraries' own functions (the Compilations panel groups them)"
            : '') +
          '.' +
          allocator +
          ' Click to switch backend or device.'
      ];
    }
    case 'not-loaded': {
      const error = connection!.loadError;
      return [
        error ? 'jx · load failed' : 'jx · not loaded',
        (error ? `%load_ext jxkernel failed: ${error}. ` : 'jxkernel is not loaded in this kernel. ') +
          'Click to run %load_ext jxkernel.'
      ];
    }
    case 'loading':
      return ['jx · loading…', 'Running %load_ext jxkernel'];
    case 'connecting':
      return ['jx · …', 'Connecting to jxkernel'];
    default:
      return ['', ''];
  }
}
