/**
 * The comm protocol spoken with jxkernel/notebook/comm.py (docs/labextension.md, "Protocol").
 * Types only: nothing here runs. Also the MIME bundles' shapes.
 */

export const COMM_TARGET = 'jxkernel';
export const PROTOCOL_VERSION = 1;
export const JAXPR_MIME = 'application/vnd.jxkernel.jaxpr+json';

export interface IBackend {
  name: string;
  available: boolean;
  devices?: string[];
  hint?: string;
}

export interface IState {
  type: 'state';
  id?: number;
  protocol: number;
  jxkernel_version: string;
  backend: string;
  device: string;
  device_count: number;
  backends: IBackend[];
  compiles: number;
  cache_hits: number;
  fail_on_recompile: string[];
}

export interface ICompileEvent {
  seq: number;
  time: number;
  function: string;
  function_key: string;
  source: string | null;
  cell_id: string | null;
  execution_count: number | null;
  signature: [string, string][];
  reason: string;
  trace_ms: number;
  lower_ms: number;
  compile_ms: number;
  cache: 'compiled' | 'disk' | 'memory' | string;
  backend: string;
}

export interface ICompilations {
  type: 'compilations';
  id?: number;
  events: ICompileEvent[];
  next: number;
}

export interface IErrorMessage {
  type: 'error';
  id?: number;
  message: string;
  request: string | null;
}

export type KernelMessage = IState | ICompilations | IErrorMessage;

/** A request the frontend sends; `id` is added by the connection. */
export type Request =
  | { type: 'get_state' }
  | { type: 'set_backend'; backend: string; device?: number }
  | { type: 'get_compilations'; since: number }
  | { type: 'set_fail_on_recompile'; function: string; enabled: boolean }
  | { type: 'clear_compilations' };

/** The jaxpr MIME bundle's structure. */
export interface IVar {
  name: string;
  aval: string;
  id?: number; // unique in the bundle, shared by the definition and its uses; none for `_`
}

export interface ILiteral {
  literal: string;
  aval: string;
}

export type Atom = IVar | ILiteral;

export interface IEqn {
  primitive: string;
  params: { [name: string]: string | IJaxpr | IJaxpr[] };
  invars: Atom[];
  outvars: IVar[];
  source: string | null;
  source_line: string | null;
}

export interface IJaxpr {
  invars: IVar[];
  constvars: IVar[];
  outvars: Atom[];
  eqns: IEqn[];
}

/** The jaxpr bundle's versions the view reads: 1 (no ids), 2 (variables carry their `id`). */
export const JAXPR_VERSIONS = [1, 2];

export interface IJaxprBundle {
  version: number;
  name: string;
  text: string;
  jaxpr?: IJaxpr;
}

/** The other views' MIME bundles (jxkernel/notebook/views_json.py). */
export const TRACED_MIME = 'application/vnd.jxkernel.traced+json';
export const HLO_MIME = 'application/vnd.jxkernel.hlo+json';
export const COMPILATIONS_MIME = 'application/vnd.jxkernel.compilations+json';

export interface ITracedBundle {
  version: number;
  label: string;
  source: string;
  first_line: number;
  inputs: { name: string; kind: 'traced' | 'static' | 'global' | string; detail: string }[];
  outputs: { name: string; detail: string }[];
  error: { line: number | null; message: string; hint: string } | null;
  /** name -> [line (from 1), start, end] spans; columns in UTF-8 bytes, as Python's ast */
  positions: { [name: string]: [number, number, number][] };
}

export interface IHloBundle {
  version: number;
  title: string;
  sections: { title: string; text: string }[];
  cost: [string, number | string | null][];
  collectives?: ICollective[]; // a partitioned program's communication (absent before issue 18)
}

/** A collective XLA inserted (jxkernel/sharding_view.py collective_json). */
export interface ICollective {
  name: string;
  opcode: string;
  operands: string[];
  shape: string;
  bytes: number;
  replica_groups: string;
  groups: number[][] | null;
  source: string | null;
  line_id?: string | null; // explain only
}

/** Which device holds which block (jxkernel/sharding_view.py). */
export const SHARDING_MIME = 'application/vnd.jxkernel.sharding+json';

export interface IShardingBlock {
  row: number;
  col: number;
  devices: number[];
  labels: string[];
  index: [number, number][];
  color: string;
}

export interface IShardingBundle {
  version: number;
  title: string;
  shape: number[];
  dtype: string;
  spec: string;
  mesh: { axis_names: string[]; axis_sizes: number[] };
  dims: string[][];
  replicated_over: string[];
  shard_shape: number[];
  bytes_per_device: number;
  total_bytes: number;
  num_devices: number;
  rows: number;
  cols: number;
  blocks: IShardingBlock[];
  array: string | null;
}

export interface ICompilationsBundle {
  version: number;
  title: string;
  events: ICompileEvent[];
}

/**
 * The "see inside" views' MIME bundles (issue 16). Their fields are documented where they
 * are written: jxkernel/explainer.py, stepper.py, notebook/error_cards.py,
 * notebook/jaxpr_diff.py, timing.py, memory.py, compile_report.py, notebook/guard.py. Only
 * the fields the views read are typed here; each view checks them (bundle.ts) before drawing.
 */
export const EXPLAIN_MIME = 'application/vnd.jxkernel.explain+json';
export const STEPPER_MIME = 'application/vnd.jxkernel.stepper+json';
export const ERROR_MIME = 'application/vnd.jxkernel.error+json';
export const JAXPR_DIFF_MIME = 'application/vnd.jxkernel.jaxprdiff+json';
export const PROFILE_MIME = 'application/vnd.jxkernel.profile+json';
export const MEMORY_MIME = 'application/vnd.jxkernel.memory+json';
export const REPORT_MIME = 'application/vnd.jxkernel.report+json';
export const GUARD_MIME = 'application/vnd.jxkernel.guard+json';

/** An equation, StableHLO op or HLO instruction of %explain: its `line_id` links it. */
export interface IExplainItem {
  index: number;
  text: string;
  line_id: string | null;
  depth?: number; // equations: nesting in sub-jaxprs
  computation?: string; // HLO instructions
}

export interface IExplainBundle {
  version: number;
  title: string;
  function: { name: string; label: string; first_line: number };
  lines: { id: string; label: string; line: number; text: string; in_function: boolean }[];
  equations: IExplainItem[];
  stablehlo: { text: string; ops: IExplainItem[] };
  hlo: { text: string; instructions: IExplainItem[] };
  per_line: {
    line_id: string;
    equations: number;
    stablehlo_ops: number;
    hlo_instructions: number;
    flops: number;
    transcendentals: number;
    bytes: number;
  }[];
  cost: { method: string; xla: { [name: string]: number | null } };
  collectives?: ICollective[];
}

export interface IStepperVariable {
  name: string;
  aval: string;
  origin: string;
  numeric: boolean;
  min: number | null;
  max: number | null;
  mean: number | null;
  nan: number;
  inf: number;
  size: number;
  hist: number[];
  hist_range: [number, number] | null;
}

export interface IStepperBundle {
  version: number;
  name: string;
  position: number;
  n_equations: number;
  done: boolean;
  head: string;
  tail: string;
  equations: {
    index: number;
    text: string;
    source: string | null;
    source_line: string | null;
    ran: boolean;
    current: boolean;
    breakpoint: boolean;
  }[];
  variables: IStepperVariable[];
  nan: null | {
    index: number | null;
    primitive: string | null;
    vars: { name: string; nan: number }[];
    source: string | null;
    source_line: string | null;
  };
}

export interface IErrorWhere {
  file: string;
  line: number;
  function: string;
  code: string;
}

export interface IErrorBundle {
  version: number;
  kind: string;
  error: string;
  title: string;
  message: string;
  where: IErrorWhere | null;
  called_from: IErrorWhere | null;
  origin: { [key: string]: unknown } | null; // its shape depends on `kind`
  why: string;
  fix: string;
  rewrite: string;
  docs: string | null;
}

export type DiffKind = 'same' | 'added' | 'removed' | 'changed';

export interface IJaxprDiffBundle {
  version: number;
  left: { title: string; text: string };
  right: { title: string; text: string };
  rows: { kind: DiffKind; primitive: string | null; left: string | null; right: string | null }[];
  counts: { [kind in DiffKind]: number };
}

export interface IPhase {
  name: string;
  kind: string;
  samples_s: number[];
  min_s: number | null;
  median_s: number | null;
  max_s: number | null;
  std_s: number | null;
}

export interface IProfileBundle {
  version: number;
  function: string;
  runs: number;
  compiles: number;
  compile_source: string;
  phases: IPhase[];
  notes: string[];
}

export interface IMemoryRow {
  cell: string | null;
  shape: number[];
  dtype: string;
  devices: string[];
  count: number;
  bytes: number;
}

export interface IMemoryBundle {
  version: number;
  platform: string;
  by_cell: boolean;
  total_arrays: number;
  total_bytes: number;
  devices: { device: string; arrays: number; bytes: number }[];
  rows: IMemoryRow[];
}

export interface IChange {
  path: string;
  kind: string;
  old: string;
  new: string;
  fix: string;
  snippet: string;
}

export interface IReportFunction {
  function: string;
  source: string | null;
  compilations: number;
  recompilations: number;
  cache_hits: number;
  trace_ms: number;
  lower_ms: number;
  compile_ms: number;
}

export interface IReportEvent {
  seq: number;
  function: string;
  signature: [string, string][];
  reason: string;
  trace_ms: number;
  lower_ms: number;
  compile_ms: number;
  cache: string;
  explanation: IChange[];
}

export interface IReportBundle {
  version: number;
  config: { jax_enable_x64: boolean; backend: string };
  totals: {
    compilations: number;
    recompilations: number;
    cache_hits: number;
    functions: number;
    trace_ms: number;
    lower_ms: number;
    compile_ms: number;
  };
  functions: IReportFunction[];
  events: IReportEvent[];
}

export interface IGuardBundle {
  version: number;
  all: boolean;
  functions: string[];
}
