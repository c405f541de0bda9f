"""The card for the real JAX given jxkernel's array: a learner's `import jxkernel as jax` in
a kernel where a library (Optax, Flax) imported the real JAX, whose functions then meet
jxkernel's arrays. JAX 0.10.2 says "Argument '[0. 1. 2.]' of type <class
'jxkernel.xla.array.ArrayImpl'> is not a valid JAX type." (jit, grad, jnp.sum), "add requires
ndarray or scalar arguments, got <class 'jxkernel.xla.array.ArrayImpl'> at position 0."
(jnp.add), or fails inside its own code (jnp.zeros_like, as `optax.adam(...).init(params)`
calls it: an AttributeError of the array's sharding): tests/data/mixed_arrays_reference.json.
Its words name no library and no way out; the card names the library the learner called and
how to run it on jxkernel (the alias, imported first) or on JAX alone.
"""
from __future__ import annotations

import os
import re

from ...core.basearray import Array
from ...core.source_info import real_jax
from .card import ErrorCard
from .reading import _installed, traceback_frames

_NAMED = re.compile(r"<class '(jxkernel\.[\w.]+)'>")


def _in(frame, folder: str) -> bool:
    return os.path.abspath(frame.f_code.co_filename).startswith(folder)


def _real_jax_folder() -> str | None:
    module = real_jax()
    return None if module is None else os.path.dirname(os.path.abspath(module.__file__)) + \
        os.sep


def _is_real_jax_array(e) -> bool:
    """With the real JAX imported: its words name jxkernel's class, or it raised inside its
    own code with one of jxkernel's arrays among that frame's names."""
    folder = _real_jax_folder()
    if folder is None or not isinstance(e, Exception):
        return False
    if _NAMED.search(str(e)):
        return True
    return any(_in(f, folder) and any(isinstance(v, Array) for v in list(f.f_locals.values()))
               for f in traceback_frames(e))


def _library(exc, folder: str) -> str | None:
    """The installed package the user's code called, which called the real JAX (optax), or
    None where the user called JAX's function itself."""
    for frame in traceback_frames(exc):
        if _in(frame, folder):
            return None
        name = frame.f_globals.get("__name__", "")
        top = name.partition(".")[0] if isinstance(name, str) else ""
        if _installed(frame.f_code.co_filename) and top not in ("jxkernel", "IPython", ""):
            return top
    return None


def _real_jax_array_card(exc, where, called_from) -> ErrorCard:
    folder = _real_jax_folder()
    module = real_jax()
    version = getattr(module, "__version__", "?")
    library = _library(exc, folder)
    named = _NAMED.search(str(exc))
    array = f"jxkernel's array ({named.group(1)})" if named else "jxkernel's array"
    by = f"{library}, which imported the real JAX {version}," if library else \
        f"the real JAX {version}"
    first = library or "anything that imports jax"
    return ErrorCard(
        "real-jax-array", f"{library or 'the real JAX'} was given {array}",
        why=(f"Two libraries are imported here: your jax is jxkernel, so jnp.zeros and the "
             f"rest make jxkernel's arrays, while {by} computes with JAX, whose functions do "
             f"not take another library's arrays."),
        fix=(f"Run {first} on jxkernel, with its notes and views: restart the kernel, then "
             f"`import jxkernel; jxkernel.install_as_jax()` before importing {first}, so that "
             f"its `import jax` gives jxkernel too (or choose the kernel \"Python 3 (JAX on "
             f"jxkernel)\"). Or use the real JAX throughout: `import jax, jax.numpy as jnp`."),
        rewrite=("import jxkernel; jxkernel.install_as_jax()    # first, in a restarted kernel\n"
                 "import jax, jax.numpy as jnp                  # jxkernel now\n" +
                 (f"import {library}    # its `import jax` gives jxkernel too"
                  if library else "")).rstrip(),
        docs=None)
