/**
 * The protocol spoken with jxkernel/notebook/comm.py (docs/labextension.md, "Protocol"): the
 * comm messages and the MIME bundles: their types, and the runtime check of a message from the
 * kernel (`validateMessage`), both generated from the schema.
 *
 * The types are generated from the protocol's one schema, jxkernel/views/protocol.schema.json,
 * into protocol.generated.ts (`npm run gen:protocol`, run by `npm run build`); this file gives
 * them the names the views use and adds the constants. To add a message or a bundle's field,
 * change the schema, not the types.
 */
import type {
  Backend,
  ClearCompilationsRequest,
  Collective,
  CompilationsBundle,
  CompilationsMessage,
  CompileEvent,
  Change,
  DiffKind as GeneratedDiffKind,
  ErrorBundle,
  ErrorMessage,
  ErrorWhere,
  ExplainBundle,
  ExplainInstruction,
  ExplainOp,
  Eqn,
  GetCompilationsRequest,
  GetStateRequest,
  GuardBundle,
  HloBundle,
  Jaxpr,
  JaxprBundle,
  JaxprDiffBundle,
  Literal,
  MemoryBundle,
  MemoryRow,
  Origin,
  OtherGroup,
  Phase,
  ProfileBundle,
  Protocol,
  ReportBundle,
  ReportEvent,
  ReportFunction,
  SetBackendRequest,
  SetFailOnRecompileRequest,
  ShardingBlock,
  ShardingBundle,
  StateMessage,
  StepperBundle,
  StepperVariable,
  TracedBundle,
  Var
} from './protocol.generated';

export type { Atom, Protocol } from './protocol.generated';
export { validateMessage } from './protocol.generated';

export const COMM_TARGET = 'jxkernel';
export const PROTOCOL_VERSION = 1;

// The comm messages.
export type IBackend = Backend;
export type IState = StateMessage;
export type ICompileEvent = CompileEvent;
export type IOrigin = Origin;
export type IOtherGroup = OtherGroup;
export type ICompilations = CompilationsMessage;
export type IErrorMessage = ErrorMessage;
export type KernelMessage = Protocol['messages'][keyof Protocol['messages']];

/** A request the frontend sends after the comm's `hello`; `id` is added by the connection. */
export type Request =
  | GetStateRequest
  | SetBackendRequest
  | GetCompilationsRequest
  | SetFailOnRecompileRequest
  | ClearCompilationsRequest;

// The MIME types: each is a key of the schema's bundle table, so a misspelt one fails to compile.
type Mime = keyof Protocol['bundles'];
export const JAXPR_MIME: Mime = 'application/vnd.jxkernel.jaxpr+json';
export const TRACED_MIME: Mime = 'application/vnd.jxkernel.traced+json';
export const HLO_MIME: Mime = 'application/vnd.jxkernel.hlo+json';
export const COMPILATIONS_MIME: Mime = 'application/vnd.jxkernel.compilations+json';
export const SHARDING_MIME: Mime = 'application/vnd.jxkernel.sharding+json';
export const EXPLAIN_MIME: Mime = 'application/vnd.jxkernel.explain+json';
export const STEPPER_MIME: Mime = 'application/vnd.jxkernel.stepper+json';
export const ERROR_MIME: Mime = 'application/vnd.jxkernel.error+json';
export const JAXPR_DIFF_MIME: Mime = 'application/vnd.jxkernel.jaxprdiff+json';
export const PROFILE_MIME: Mime = 'application/vnd.jxkernel.profile+json';
export const MEMORY_MIME: Mime = 'application/vnd.jxkernel.memory+json';
export const REPORT_MIME: Mime = 'application/vnd.jxkernel.report+json';
export const GUARD_MIME: Mime = 'application/vnd.jxkernel.guard+json';

/** The jaxpr bundle's versions the view reads: 1 (no ids), 2 (variables carry their `id`). */
export const JAXPR_VERSIONS = [1, 2];

// The bundles and their parts.
export type IVar = Var;
export type ILiteral = Literal;
export type IEqn = Eqn;
export type IJaxpr = Jaxpr;
export type IJaxprBundle = JaxprBundle;
export type ITracedBundle = TracedBundle;
export type IHloBundle = HloBundle;
export type ICollective = Collective;
export type IShardingBlock = ShardingBlock;
export type IShardingBundle = ShardingBundle;
export type ICompilationsBundle = CompilationsBundle;
/** An equation, StableHLO op or HLO instruction of %explain: its `line_id` links it. */
export type IExplainItem = Pick<ExplainOp, 'index' | 'text' | 'line_id'> & {
  depth?: number; // equations: nesting in sub-jaxprs
  computation?: string; // HLO instructions
};
export type IExplainBundle = ExplainBundle;
export type IExplainInstruction = ExplainInstruction;
export type IStepperVariable = StepperVariable;
export type IStepperBundle = StepperBundle;
export type IErrorWhere = ErrorWhere;
export type IErrorBundle = ErrorBundle;
export type DiffKind = GeneratedDiffKind;
export type IJaxprDiffBundle = JaxprDiffBundle;
export type IPhase = Phase;
export type IProfileBundle = ProfileBundle;
export type IMemoryRow = MemoryRow;
export type IMemoryBundle = MemoryBundle;
export type IChange = Change;
export type IReportFunction = ReportFunction;
export type IReportEvent = ReportEvent;
export type IReportBundle = ReportBundle;
export type IGuardBundle = GuardBundle;
