/**
 * One notebook's link to jxkernel in its kernel: the `jxkernel` comm, the last `state`, the
 * compilation events received so far, and the requests of docs/labextension.md ("Protocol").
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { mayLoadJxkernel } from './magicCode';
import {
  COMM_TARGET,
  ICompilations,
  ICompileEvent,
  IOtherGroup,
  IState,
  KernelMessage as JxMessage,
  PROTOCOL_VERSION,
  Request,
  validateMessage
} from './protocol';

/** Where the link stands. */
export type LinkStatus =
  | 'no-kernel' // no kernel, or it is starting/restarting
  | 'unsupported' // not a Python kernel
  | 'connecting' // comm opened, no `state` yet
  | 'not-loaded' // the kernel closed the comm: %load_ext jxkernel not run
  | 'loading' // running %load_ext jxkernel
  | 'connected';

/** The most events kept (the kernel keeps the last 10,000 too). */
const MAX_EVENTS = 10000;

/** JupyterLab's `CommsOverSubshells.Disabled` (a string enum, absent before JupyterLab 4.4). */
const NO_SUBSHELL = 'disabled' as unknown as Kernel.IComm['commsOverSubshells'];

/**
 * Keeps `comm` on the kernel's main shell, whatever JupyterLab's "Kernel Comms over subshells"
 * setting (4.4 on; its default gives each comm target a kernel subshell). jxkernel's side of
 * the comm reads and changes what the user's cells use (the backend, the compile log), so it
 * belongs where they run, not in a subshell's thread beside a running cell. And a subshell of
 * its own cost learners stray lines: JupyterLab deletes a target's subshell (on the control
 * channel) as soon as it has sent the target's last comm a comm_close (into that subshell), so
 * each reconnect deleted one; ipykernel 7.4 then stops the subshell's loop with the
 * comm_close's task not yet run, and when Python collects that task asyncio writes "Task was
 * destroyed but it is pending!" into whichever cell is running (docs/teaching.md, "Comms and
 * kernel subshells"). The setting is the comm's own (Kernel.IComm), set before the comm sends
 * anything: JupyterLab starts the subshell a tick after making the comm. It is pinned, because
 * JupyterLab sets every comm's mode again when its settings load or change.
 */
function keepOnMainShell(comm: Kernel.IComm): void {
  if (!('commsOverSubshells' in comm)) {
    return; // JupyterLab before 4.4: comms have no subshells
  }
  comm.commsOverSubshells = NO_SUBSHELL;
  Object.defineProperty(comm, 'commsOverSubshells', {
    configurable: true,
    get: () => NO_SUBSHELL,
    set: () => undefined
  });
}

interface IPending {
  resolve: (msg: JxMessage) => void;
  reject: (err: Error) => void;
}

export class JxConnection {
  constructor(readonly sessionContext: ISessionContext) {
    sessionContext.kernelChanged.connect(this._onKernelChanged, this);
    sessionContext.statusChanged.connect(this._onKernelStatus, this);
    sessionContext.iopubMessage.connect(this._onIOPub, this);
    void sessionContext.ready.then(() => this.connect());
  }

  /** Emitted when `status`, `state` or `loadError` change. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** Emitted when `events` change. */
  get eventsChanged(): ISignal<this, void> {
    return this._eventsChanged;
  }

  get status(): LinkStatus {
    return this._status;
  }

  get state(): IState | null {
    return this._state;
  }

  /** Why the last `%load_ext jxkernel` failed, or null. */
  get loadError(): string | null {
    return this._loadError;
  }

  /** The compilation events received, oldest first. */
  get events(): readonly ICompileEvent[] {
    return this._events;
  }

  /** The kernel's eager operations, jxkernel's and libraries' functions, grouped (the last `others`). */
  get others(): readonly IOtherGroup[] {
    return this._others;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._dropComm('disposed');
    Signal.clearData(this);
  }

  /** Opens the comm (again); the kernel answers with `state` or closes it (not loaded). */
  async connect(): Promise<void> {
    this._dropComm('reconnecting');
    const kernel = this.sessionContext.session?.kernel;
    if (!kernel || this._disposed) {
      this._setStatus('no-kernel');
      return;
    }
    let language = '';
    try {
      language = (await kernel.info).language_info.name;
    } catch {
      this._setStatus('no-kernel');
      return;
    }
    if (kernel !== this.sessionContext.session?.kernel || this._disposed) {
      return; // the kernel changed while we waited
    }
    if (language !== 'python') {
      this._setStatus('unsupported');
      return;
    }
    this._setStatus('connecting');
    let comm: Kernel.IComm;
    try {
      comm = kernel.createComm(COMM_TARGET);
    } catch (err) {
      console.warn('jxkernel: cannot open the comm', err);
      this._setStatus('no-kernel');
      return;
    }
    keepOnMainShell(comm);
    this._comm = comm;
    comm.onMsg = msg => this._onMessage(msg.content.data);
    comm.onClose = () => {
      if (this._comm === comm) {
        this._comm = null;
        this._rejectPending('the kernel closed the jxkernel comm');
        this._setStatus('not-loaded');
      }
    };
    try {
      await comm.open({ type: 'hello', protocol: PROTOCOL_VERSION }).done;
    } catch (err) {
      console.warn('jxkernel: comm open failed', err);
    }
  }

  /** Runs `%load_ext jxkernel` silently, then connects. */
  async load(): Promise<void> {
    const kernel = this.sessionContext.session?.kernel;
    if (!kernel) {
      return;
    }
    this._loadError = null;
    this._setStatus('loading');
    try {
      const reply = await kernel.requestExecute({
        code: '%load_ext jxkernel',
        silent: true,
        store_history: false
      }).done;
      const content = reply.content;
      if (content.status === 'error') {
        this._loadError = `${content.ename}: ${content.evalue}`;
      }
    } catch (err) {
      this._loadError = String(err);
    }
    await this.connect();
  }

  /** Sends a request; resolves with the kernel's reply, rejects with its `error` message. */
  request(req: Request): Promise<JxMessage> {
    const comm = this._comm;
    if (!comm || this._status !== 'connected') {
      return Promise.reject(new Error('jxkernel is not loaded in this kernel'));
    }
    const id = ++this._lastId;
    return new Promise<JxMessage>((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      comm.send({ ...req, id } as any);
    });
  }

  setBackend(backend: string, device?: number): Promise<JxMessage> {
    return this.request({ type: 'set_backend', backend, device });
  }

  setFailOnRecompile(functionKey: string, enabled: boolean): Promise<JxMessage> {
    return this.request({ type: 'set_fail_on_recompile', function: functionKey, enabled });
  }

  async clearCompilations(): Promise<void> {
    await this.request({ type: 'clear_compilations' });
    this._events = [];
    this._others = [];
    this._eventsChanged.emit();
  }

  /** A message from the kernel: checked against the protocol's schema before it is used. */
  private _onMessage(data: unknown): void {
    const wrong = validateMessage(data);
    if (wrong) {
      console.warn(`jxkernel: ignoring a malformed message from the kernel: ${wrong}`, data);
      const id = (data as { id?: unknown } | null)?.id;
      const pending = typeof id === 'number' ? this._pending.get(id) : undefined;
      if (pending) {
        this._pending.delete(id as number);
        pending.reject(new Error(`the kernel's reply is malformed: ${wrong}`));
      }
      return;
    }
    const msg = data as JxMessage;
    const pending = msg.id !== undefined ? this._pending.get(msg.id) : undefined;
    if (pending) {
      this._pending.delete(msg.id!);
    }
    switch (msg.type) {
      case 'state': {
        const first = this._status !== 'connected';
        this._state = msg;
        this._setStatus('connected', true);
        if (first) {
          void this.request({ type: 'get_compilations', since: this._next }).catch(() => {
            /* the comm closed meanwhile */
          });
        }
        break;
      }
      case 'compilations':
        this._addEvents(msg);
        break;
      case 'error':
        if (pending) {
          pending.reject(new Error(msg.message));
          return;
        }
        console.warn('jxkernel:', msg.message);
        break;
    }
    pending?.resolve(msg);
  }

  private _addEvents(msg: ICompilations): void {
    if (msg.next < this._next) {
      // the kernel's numbering started again: so do we
      this._events = [];
      this._next = 0;
    }
    const fresh = msg.events.filter(e => e.seq >= this._next);
    this._next = Math.max(this._next, msg.next);
    const othersChanged = JSON.stringify(msg.others) !== JSON.stringify(this._others);
    this._others = msg.others;
    if (fresh.length === 0) {
      if (othersChanged) {
        this._eventsChanged.emit();
      }
      return;
    }
    this._events = this._events.concat(fresh);
    if (this._events.length > MAX_EVENTS) {
      this._events = this._events.slice(this._events.length - MAX_EVENTS);
    }
    this._eventsChanged.emit();
  }

  private _onKernelChanged(): void {
    this._resetKernelData();
    void this.connect();
  }

  private _onKernelStatus(_: ISessionContext, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting' || status === 'dead') {
      this._dropComm('the kernel restarted');
      this._resetKernelData();
      this._setStatus('no-kernel');
      this._reconnectWhenIdle = status !== 'dead';
    } else if (status === 'idle' && this._reconnectWhenIdle) {
      this._reconnectWhenIdle = false;
      void this.connect();
    }
  }

  /**
   * Reopens the comm once the kernel is idle: after a cell that ran `%load_ext jxkernel` (or
   * anything naming jxkernel, or importing jax: in JupyterLite `import jax` loads jxkernel's
   * extension through the site's `jax` package, and a new notebook has no setup cell) while not loaded, and after a cell's error while the comm's
   * opening waits in the kernel's queue. A kernel may drop what is queued behind an error
   * (JupyterLite drops every message, comm_open included, raises-exception or not;
   * raisesException.ts): the opening would never be answered and the status bar would say
   * "connecting" until a restart. Not at the error itself: the drop comes with the reply after.
   */
  private _onIOPub(_: ISessionContext, msg: KernelMessage.IMessage): void {
    const type = msg.header.msg_type;
    if (
      (this._status === 'not-loaded' &&
        type === 'execute_input' &&
        mayLoadJxkernel(String((msg.content as any).code))) ||
      (this._status === 'connecting' && type === 'error')
    ) {
      this._reconnectWhenIdle = true;
    }
  }

  private _resetKernelData(): void {
    this._state = null;
    this._events = [];
    this._others = [];
    this._next = 0;
    this._eventsChanged.emit();
  }

  private _dropComm(why: string): void {
    const comm = this._comm;
    this._comm = null;
    this._rejectPending(why);
    if (comm && !comm.isDisposed) {
      try {
        comm.close();
      } catch {
        // the kernel is gone
      }
    }
  }

  private _rejectPending(why: string): void {
    for (const p of this._pending.values()) {
      p.reject(new Error(why));
    }
    this._pending.clear();
  }

  private _setStatus(status: LinkStatus, force = false): void {
    if (this._status === status && !force) {
      return;
    }
    this._status = status;
    if (status !== 'connected') {
      this._state = null;
    }
    this._changed.emit();
  }

  private _comm: Kernel.IComm | null = null;
  private _status: LinkStatus = 'no-kernel';
  private _state: IState | null = null;
  private _events: ICompileEvent[] = [];
  private _others: readonly IOtherGroup[] = [];
  private _next = 0;
  private _lastId = 0;
  private _pending = new Map<number, IPending>();
  private _loadError: string | null = null;
  private _reconnectWhenIdle = false;
  private _disposed = false;
  private _changed = new Signal<this, void>(this);
  private _eventsChanged = new Signal<this, void>(this);
}
