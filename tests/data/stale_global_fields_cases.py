"""Fields of objects a jitted function names as globals, set anew after its trace (stop 122):
a SimpleNamespace's (`hp.lr`), a class's (`Hyper.scale`), one whose global is rebound whole
(`other = SimpleNamespace(...)`), and one read by a helper the function calls. JAX 0.10.2
keeps each value traced, silently; the note's fix, each field passed as an argument
(hp_step_passed), computes with the new ones. `run(jax)` calls each before and after, as a
learner's cells would. The reference (stale_global_fields_reference.json) is real JAX
0.10.2's, written by reference/make_stale_global_fields_reference.py;
tests/views/test_static_attributes.py runs the same with jxkernel and holds its notes to it.
"""
from types import SimpleNamespace

import numpy as np

KEPT = []               # the jits, after run (a notebook's names keep them)
hp = SimpleNamespace(lr=0.1)
other = SimpleNamespace(lr=0.1)         # rebound whole after the trace


class Hyper:
    scale = 2.0


def hp_step(w):
    return w - hp.lr * w * Hyper.scale


def rebound(w):
    return w - other.lr * w


def _update(w):
    return w * hp.lr


def step_via_helper(w):
    return w - _update(w)


def hp_step_passed(w, lr, scale):       # the fix: each field passed (the note names each)
    return w - lr * w * scale


def _list(value) -> list:
    return np.asarray(value).tolist()


def run(lib) -> dict:
    """hp_step, rebound and step_via_helper jitted, and the fix hp_step_passed, each called
    before and after hp.lr and Hyper.scale are set anew and `other` is rebound (first,
    after: in that order)."""
    global other
    hp.lr, Hyper.scale, other = 0.1, 2.0, SimpleNamespace(lr=0.1)
    jitted = [lib.jit(f) for f in (hp_step, rebound, step_via_helper)]
    fix = lib.jit(hp_step_passed)

    def results():
        return [_list(f(1.0)) for f in jitted] + [_list(fix(1.0, hp.lr, Hyper.scale))]
    first = results()
    hp.lr, Hyper.scale, other = 0.5, 3.0, SimpleNamespace(lr=0.5)
    after = results()
    KEPT.extend(jitted)
    return {"first": first, "after": after}
