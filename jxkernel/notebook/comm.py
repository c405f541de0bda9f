"""The kernel side of the JupyterLab extension: the comm target `jxkernel`.

The frontend opens a comm on target `jxkernel` and speaks protocol 1 (docs/labextension.md,
"Protocol"): it asks for the state (backend, devices, compile counts), switches the backend,
reads the compile log and turns fail-on-recompile on or off; the kernel answers each request
and pushes `state` and batched `compilations` messages after the cells that change them.

    >>> from jxkernel.notebook.state import State
    >>> channel = Channel(State(shell=None))    # load_ipython_extension gives it the shell's
    >>> channel.handle({"type": "get_state", "id": 1})["backend"]
    'cpu'

Every incoming message is checked against the protocol's schema (protocol.py,
protocol.schema.json) before it is acted on; a bad one gets an `error` reply naming the field,
and never raises in the kernel.
"""
from __future__ import annotations

import json
import sys

from .. import __version__
from ..core import compile_record, miss_words
from ..core.compile_record import INTERNAL, USER
from ..core.config import config
from ..xla import client
from ..views import views_json
from ..views.memory import allocator_stats
from .notes.compile_notes import LIBRARY, OTHER_KINDS, grouped, kind_of
from .protocol import PROTOCOL, BadMessage, check
from .widgets.backend import PLATFORMS, platforms, probe

TARGET = "jxkernel"


# ------------------------------------------------------------------ the channel
class Channel:
    """The extension's side of every open `jxkernel` comm of one shell."""

    def __init__(self, state):
        self.state = state
        self.comms: list = []
        self._pending: list = []          # events of the running cell, sent when it ends
        self._cells: dict = {}            # seq -> (cell id, execution count)
        self._last_state = None           # the last state pushed, to push only changes
        self._backends = None             # probed once: backends do not come and go
        self._replying_to = None          # the comm whose request is being answered
        self._in_cell = False             # between pre_run_cell and post_run_cell
        self._this_cell: list = []        # seqs of the running cell's events
        self._unsubscribe = compile_record.subscribe(self._on_event)

    # ------------------------------------------------------------ comms
    def open(self, comm, open_msg) -> None:
        """The comm target: a new comm from the frontend, its open message being `hello`."""
        self.comms.append(comm)
        comm.on_msg(lambda msg: self.receive(comm, _data(msg)))
        comm.on_close(lambda msg: self._forget(comm))
        self.receive(comm, _data(open_msg))

    def _forget(self, comm) -> None:
        if comm in self.comms:
            self.comms.remove(comm)

    def receive(self, comm, data) -> None:
        """Answer one message from `comm`; whatever is wrong with it, reply, never raise."""
        self._replying_to = comm
        try:
            reply = self.handle(data)
        finally:
            self._replying_to = None
        self._send(comm, reply)

    def close(self) -> None:
        """Unloading: stop listening and close the open comms."""
        self._unsubscribe()
        for comm in list(self.comms):
            try:
                comm.close()
            except Exception:       # noqa: BLE001  a comm whose kernel side is gone already
                pass
        self.comms.clear()

    def _send(self, comm, message) -> None:
        try:
            comm.send(for_the_wire(message))
        except Exception as e:      # noqa: BLE001  a dead comm must not break a cell
            print(f"jxkernel: could not send to the JupyterLab extension: {e!r}", file=sys.stderr)
            self._forget(comm)

    def _broadcast(self, message) -> None:
        for comm in list(self.comms):
            if comm is not self._replying_to:       # that one gets the reply instead
                self._send(comm, message)

    # ------------------------------------------------------------ requests
    def handle(self, msg) -> dict:
        """The reply to `msg` (a `state`, `compilations` or `error` message).

            >>> from jxkernel.notebook.state import State
            >>> channel = Channel(State(shell=None))
            >>> print(channel.handle({"type": "frobnicate"})["message"])    # doctest: +ELLIPSIS
            unknown message type 'frobnicate'; known: hello, get_state, set_backend, ...
        """
        kind = msg.get("type") if isinstance(msg, dict) else None
        request_id = msg.get("id") if isinstance(msg, dict) else None
        try:
            kind, args = check(msg)
            reply = getattr(self, "_on_" + kind)(**args)
        except BadMessage as e:
            reply = {"type": "error", "message": str(e),
                     "request": kind if isinstance(kind, str) else None}
        except Exception as e:      # noqa: BLE001  a bug of ours: told, not raised in the kernel
            reply = {"type": "error", "message": f"{kind}: {type(e).__name__}: {e}",
                     "request": kind if isinstance(kind, str) else None}
        if type(request_id) is int:
            reply["id"] = request_id
        return reply

    def _on_hello(self):          # protocol.check refused any other protocol
        return self._state_reply()

    def _on_get_state(self):
        return self._state_reply()

    def _on_set_backend(self, backend, device):
        try:
            self.state.switch_backend(f"{backend}:{device}")     # exactly %jxbackend NAME:N
        except ValueError as e:
            raise BadMessage(f"set_backend: {e}") from None
        return self._state_reply()

    def _on_get_compilations(self, since):
        events = compile_record.events_since(since)
        return {"type": "compilations", "events": [self.event_json(e) for e in events],
                "next": compile_record.last_seq() + 1, "others": others_json()}

    def _on_set_fail_on_recompile(self, function, enabled):
        try:
            compile_record.fail_on_recompile(function, enabled)
        except (KeyError, TypeError, ValueError) as e:
            raise BadMessage(f"set_fail_on_recompile: {e.args[0] if e.args else e}") from None
        reply = self._state_reply()
        self._broadcast(reply)       # other open comms show the switch too
        return reply

    def _on_clear_compilations(self):
        compile_record.clear()
        self._cells.clear()
        for log in list(self.state.logs):
            log.refresh()
        reply = self._state_reply()
        self._broadcast(reply)
        return reply

    # ------------------------------------------------------------ state and events
    def snapshot(self) -> dict:
        """The `state` message (without an id). Before anything has started a backend, the CPU
        that will start is told without starting it: the comm opens before the user's first
        cell, which may set its device count (jax_num_cpu_devices, XLA_FLAGS)."""
        ahead = client.prospective_cpu() if config.jax_default_device is None else None
        if ahead is not None:
            return self._prospective(*ahead)
        device = client.default_device()
        platform = client.platform_of(device)
        # the learner's functions (compile_record.whose, as the notes and %jxcompiles tell
        # them): eager operations, jxkernel's and installed libraries' own functions are not
        # what the learner can change (%jxcompiles groups them apart)
        # (a body or jit traced anew inside another function compiled nothing of its own: the
        # panel lists it, the counts do not)
        everything = [e for e in compile_record.compile_events() if e.compiled]
        events = [e for e in everything if kind_of(e) == USER]
        keys = {id(e.key): e.key for e in events if e.key is not None}
        return {"type": "state", "protocol": PROTOCOL, "jxkernel_version": __version__,
                "backend": platform, "device": client.device_name(device),
                "device_count": len(client.devices(platform)),
                "backends": self.backends(), "compiles": len(events),
                "other_compiles": len(everything) - len(events),
                "cache_hits": sum(compile_record.cache_hits(k) for k in keys.values()),
                "fail_on_recompile": compile_record.failing_on_recompile(),
                "memory": allocator_stats(device), "counted": counted(platform, everything)}

    def _prospective(self, platform: str, count: int) -> dict:
        """The state with `platform`'s `count` devices not started yet: the menu lists them as
        they will start; the memory comes once a cell has started it (push_state sends it)."""
        return {"type": "state", "protocol": PROTOCOL, "jxkernel_version": __version__,
                "backend": platform, "device": f"{platform}:0", "device_count": count,
                "backends": self._backends_ahead(platform, count), "compiles": 0,
                "other_compiles": 0, "cache_hits": 0,
                "fail_on_recompile": compile_record.failing_on_recompile(), "memory": None,
                "counted": counted(platform, ())}

    def _backends_ahead(self, platform: str, count: int) -> list:
        """The menu's list before any backend started: `platform`'s `count` devices as they
        will start, the others as probed (one that is not installed or not allowed fails to
        start without starting the CPU; `prospective_cpu` is None where another would start
        first). Not kept: the first cell may still change the count."""
        # not platforms(): it asks default_backend(), which starts one
        offered = PLATFORMS + (() if platform in PLATFORMS else (platform,))
        found, missing = probe(tuple(p for p in offered if p != platform))
        ahead = {"name": platform, "available": True,
                 "devices": [f"{platform}:{i}" for i in range(count)]}
        return [ahead if p == platform else _backend_json(p, found, missing) for p in offered]

    def backends(self) -> list:
        if self._backends is None:
            found, missing = probe()          # the backend selector's probe, once per kernel
            self._backends = [_backend_json(p, found, missing) for p in platforms()]
        return [dict(b) for b in self._backends]

    def _state_reply(self) -> dict:
        self._last_state = self.snapshot()
        return dict(self._last_state)

    def push_state(self) -> None:
        """Send the state to every open comm if it changed since last sent."""
        if not self.comms:
            return
        now = self.snapshot()
        if now != self._last_state:
            self._last_state = now
            self._broadcast(dict(now))

    def _on_event(self, event) -> None:
        # the execution count is known for sure only once the cell ran (IPython 8 numbers
        # the cell after pre_run_cell, IPython 9 before): after_cell fills it in
        self._cells[event.seq] = (self.state.cell_id, None)
        if self._in_cell:
            self._this_cell.append(event.seq)
        if len(self._cells) > compile_record.MAX_EVENTS:      # the core keeps no more either
            for seq in sorted(self._cells)[: len(self._cells) - compile_record.MAX_EVENTS]:
                del self._cells[seq]
        self._pending.append(event)

    def before_cell(self) -> None:
        """pre_run_cell: events from now on belong to the cell that starts."""
        self._in_cell, self._this_cell = True, []

    def after_cell(self, result=None) -> None:
        """post_run_cell: one `compilations` message for the cell's events, then the state."""
        pending, self._pending = self._pending, []
        mine, self._this_cell, self._in_cell = self._this_cell, [], False
        info = getattr(result, "info", None)
        if getattr(info, "store_history", False):        # else the cell has no In[n]
            for seq in mine:
                if seq in self._cells:
                    self._cells[seq] = (self._cells[seq][0], result.execution_count)
        if pending and self.comms:
            self._broadcast({"type": "compilations",
                             "events": [self.event_json(e) for e in pending],
                             "next": pending[-1].seq + 1, "others": others_json()})
        self.push_state()

    def event_json(self, event) -> dict:
        cell_id, count = self._cells.get(event.seq, (None, None))
        return views_json.compile_event_json(event, cell_id, count)


def counted(platform: str, events) -> str:
    """What the state's compiles count, in %jxcompiles' words ("cache misses", its column):
    the NumPy backend compiles nothing (a miss traces the function and NumPy runs its jaxpr),
    so where the selected device is NumPy's or one of `events` ran there, "cache misses"
    (every compile is one too); else "compiles".

    >>> counted("cpu", ()), counted("numpy", ())
    ('compiles', 'cache misses')
    """
    return miss_words.counted(not miss_words.compiles(platform) or miss_words.any_numpy(events))


def _backend_json(platform: str, found: dict, missing: dict) -> dict:
    """One backend of the state's list, from probe()'s (found, missing)."""
    if platform in found:
        return {"name": platform, "available": True,
                "devices": [client.device_name(d) for d in found[platform]]}
    return {"name": platform, "available": False, "hint": missing[platform]}


def others_json(events=None) -> list:
    """The `others` of a `compilations` message: the kept compilations that are not the user's
    (eager operations, jxkernel's own functions, then registered libraries'), one entry per
    primitive or function with its count, as %jxcompiles groups them (compile_notes.grouped).
    A library's keeps its origin (internal) and says `library` (compile_notes.kind_of)."""
    events = compile_record.compile_events() if events is None else events
    return [{"origin": INTERNAL if kind == LIBRARY else kind, "library": kind == LIBRARY,
             "name": name, "count": count, "sites": sites[:3],
             "compile_ms": round(seconds * 1e3, 3)}
            for kind in OTHER_KINDS
            for name, count, sites, seconds in grouped([e for e in events if kind_of(e) == kind])]


def for_the_wire(message):
    """`message` as the comm should hand it on. In Pyodide's kernel (JupyterLite) that is a
    JavaScript object made by JSON.parse: the kernel passes a comm message to JavaScript with
    PyProxy.toJs(), which turns None into `undefined`, so a field whose JSON value is null (the
    state's `memory` where the backend reports no allocator) vanished and the extension refused
    the message for a missing field; a JavaScript object passes through toJs as it is, nulls
    included. Everywhere else `message` is returned unchanged.

        >>> for_the_wire({"memory": None}) == {"memory": None}      # not in Pyodide
        True
    """
    if sys.platform != "emscripten":
        return message
    import js                                   # Pyodide's bridge to JavaScript
    return js.JSON.parse(json.dumps(message))


def _data(msg):
    """The `data` of a comm message (None if it has none: then it is answered as malformed)."""
    try:
        return msg["content"]["data"]
    except (KeyError, TypeError):
        return None


# ------------------------------------------------------------------ registration
def comm_manager(shell):
    """The kernel's comm manager, or None outside a kernel (plain IPython, tests)."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    manager = getattr(kernel, "comm_manager", None)
    if manager is None:
        try:
            from comm import get_comm_manager
        except ImportError:
            return None
        manager = get_comm_manager()
    return manager if hasattr(manager, "register_target") else None


def register(shell, state) -> Channel | None:
    """Register the `jxkernel` comm target with the shell's kernel (no kernel: nothing)."""
    manager = comm_manager(shell)
    if manager is None:
        return None
    channel = Channel(state)
    state.channel = channel
    manager.register_target(TARGET, channel.open)
    return channel


def unregister(shell, state) -> None:
    """Remove the target (if it is still ours) and close the open comms."""
    channel, state.channel = state.channel, None
    if channel is None:
        return
    manager = comm_manager(shell)
    targets = getattr(manager, "targets", {})
    if getattr(targets.get(TARGET), "__self__", None) is channel:
        manager.unregister_target(TARGET, channel.open)
    channel.close()
