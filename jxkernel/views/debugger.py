"""jax.debug.breakpoint's debugger: a text prompt on the user's frames, with the values the
program computes (jxkernel/debug.py stages the call; this module is what runs).

At trace time `breakpoint` records the user's frames (jxkernel's own left out), each with
its function's source and its locals; the arrays in the locals (tracers inside jit) travel
through a debug callback, so the prompt sees their runtime values; a local that is no pytree
(a dict whose keys do not sort) shows as `<cant_flatten>`. As JAX 0.10.2's jdb, expressions
see a frame's locals and the builtins, not its module's globals. Commands, as JAX's jdb:
`p expr`, `pp expr`, a bare expression, `u(p)`/`d(own)` between frames, `l(ist)`,
`w(here)`/`bt`, `c(ontinue)`, `q(uit)` and end of input (SystemExit(0), as JAX's).

    >>> frames = [Frame("f.py", 3, "f", ["a = 1", "b = a + 1", "breakpoint()"], 2,
    ...                 {"x": 2.0})]
    >>> Debugger(frames, io.StringIO("p x * 2\\nc\\n"), sys.stdout).run()  # doctest: +NORMALIZE_WHITESPACE
    Entering jdb:
    (jdb) 4.0
    (jdb)
"""
from __future__ import annotations

import cmd
import dataclasses
import inspect
import io  # noqa: F401 -- the docstring's example
import pprint
import sys
import traceback


@dataclasses.dataclass
class Frame:
    filename: str
    lineno: int
    name: str
    source: list            # its function's lines ([] when unknown)
    offset: int | None      # the frame's line as an index into `source`
    locals: dict


class _CantFlatten:
    """What the prompt shows for a local that is no pytree (JAX's jdb's placeholder)."""
    __repr__ = lambda self: "<cant_flatten>"


CANT_FLATTEN = _CantFlatten()


def _source(python_frame):
    """(the lines of the frame's function, the frame's line's index in them), as JAX's jdb
    shows them (the whole file for a module's frame); ([], None) where Python has no source
    or the line is past it (an exec'd string named like another's: on 3.13 linecache holds
    `python -c`'s text as '<string>', which pytest-xdist's worker runs in)."""
    try:
        lines, start = inspect.getsourcelines(python_frame)
    except (OSError, TypeError):
        return [], None
    source = "".join(lines).split("\n")
    offset = python_frame.f_lineno - max(start, 1)
    return (source, offset) if 0 <= offset < len(source) else ([], None)


def user_frames(python_frame, is_user, num_frames=None):
    """The user's frames from `python_frame` outwards (innermost first): those whose file
    `is_user(filename)` keeps (all of them when it is None)."""
    frames = []
    while python_frame is not None and (num_frames is None or len(frames) < num_frames):
        code = python_frame.f_code
        if is_user is None or is_user(code.co_filename):
            lines, offset = _source(python_frame)
            frames.append(Frame(code.co_filename, python_frame.f_lineno, code.co_name, lines,
                                offset, dict(python_frame.f_locals)))
        python_frame = python_frame.f_back
    return frames


class Debugger(cmd.Cmd):
    """The prompt: evaluates expressions in a frame's locals (and the builtins)."""
    prompt = "(jdb) "

    def __init__(self, frames, stdin=None, stdout=None):
        super().__init__(stdin=stdin, stdout=stdout)
        self.use_rawinput = stdin is None
        self.frames, self.index = frames, 0
        self.intro = "Entering jdb:"

    def run(self):
        self.cmdloop()

    def _eval(self, text):
        frame = self.frames[self.index]
        return eval(text, {}, dict(frame.locals))

    def _show(self, text, formatter):
        try:
            print(formatter(self._eval(text)), file=self.stdout)
        except Exception:   # noqa: BLE001 -- the user's expression failed: say why, go on
            kind, value = sys.exc_info()[:2]
            print("***", traceback.format_exception_only(kind, value)[-1].strip(),
                  file=self.stdout)

    def default(self, line):
        self._show(line, repr)

    def emptyline(self):
        return False

    def do_p(self, arg):
        """p expression: print the expression's value."""
        self._show(arg, repr)

    def do_pp(self, arg):
        """pp expression: pretty-print the expression's value."""
        self._show(arg, pprint.pformat)

    def _context(self, around=2):
        frame = self.frames[self.index]
        out = [f"> {frame.filename}({frame.lineno})"]
        if frame.offset is not None:
            # as JAX's jdb: one line more above than below
            for i in range(max(0, frame.offset - around - 1), min(len(frame.source),
                                                              frame.offset + around + 1)):
                out.append(("->  " if i == frame.offset else "    ") + frame.source[i])
        print("\n".join(out), file=self.stdout)

    def do_up(self, arg):
        """u(p): go to the frame that called this one."""
        if self.index == len(self.frames) - 1:
            print("At topmost frame.", file=self.stdout)
        else:
            self.index += 1
        self._context()
    do_u = do_up

    def do_down(self, arg):
        """d(own): go back to the frame this one called."""
        if self.index == 0:
            print("At bottommost frame.", file=self.stdout)
        else:
            self.index -= 1
        self._context()
    do_d = do_down

    def do_list(self, arg):
        """l(ist): the source around the current line."""
        self._context(around=5)
    do_l = do_list

    def do_where(self, arg):
        """w(here), bt: the frames, outermost first."""
        out = ["Traceback:"]
        for frame in reversed(self.frames):
            out.append(f'  File "{frame.filename}", line {frame.lineno}')
            out.append("    " + (frame.source[frame.offset].strip() if frame.offset is not None
                                 else "<no source>"))
        print("\n".join(out), file=self.stdout)
    do_w = do_bt = do_where

    def do_continue(self, arg):
        """c(ont(inue)): let the program go on."""
        return True
    do_c = do_cont = do_continue

    def do_quit(self, arg):
        """q(uit), exit, end of input: stop the program (SystemExit(0), as JAX's jdb)."""
        sys.exit(0)
    do_q = do_exit = do_EOF = do_quit
