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
}

export interface ICompilationsBundle {
  version: number;
  title: string;
  events: ICompileEvent[];
}
