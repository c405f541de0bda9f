"""A library's calls recorded first and compiled together afterwards (issue 45).

A test that compares many calls with another library's values (`close(ours.expm(a),
scipy.linalg.expm(a))`) compiled one program per call through `compiled.compiled_per_call`,
~25 ms of fixed cost each. `recorder(namespace)` gives the same calls as `Call`s instead of
values: `compiled.jit_together(jax, {key: (call, call.arrays())})` then compiles them all as
one program, and the test compares afterwards. What is traced is what compiled_per_call
traces: NumPy array arguments are traced, the others stay static (Python scalars keep their
weak types, keyword arguments are static).
"""
import types

import numpy as np


def recorder(namespace):
    """`namespace` (a module, nested modules included) whose functions return a `Call`.

    >>> import jxkernel, jxkernel.numpy as jnp
    >>> call = recorder(jnp).add(np.float32([1.0]), 2.0)
    >>> float(jxkernel.jit(call)(*call.arrays())[0])
    3.0
    """
    return _Recorder(namespace)


class _Recorder:
    def __init__(self, namespace):
        self._namespace = namespace

    def __getattr__(self, name):
        attr = getattr(self._namespace, name)
        if isinstance(attr, types.ModuleType):
            return _Recorder(attr)
        return lambda *args, **kwargs: Call(attr, args, kwargs)


class Call:
    """fun(*args, **kwargs) to compute later, as `self(*self.arrays())`: the NumPy arrays among
    args are its arguments, the rest static; a Call among args is computed in the same program
    (`ours.cho_solve(ours.cho_factor(a), b)`)."""

    def __init__(self, fun, args, kwargs):
        self.fun, self.args, self.kwargs = fun, args, kwargs

    def arrays(self):
        return [x for a in self.args for x in (
            a.arrays() if isinstance(a, Call) else [a] if isinstance(a, np.ndarray) else [])]

    def __call__(self, *arrays):
        return self._run(iter(arrays))

    def _run(self, arrays):
        # the arrays in arrays()' order: depth first, left to right
        args = [a._run(arrays) if isinstance(a, Call) else next(arrays)
                if isinstance(a, np.ndarray) else a for a in self.args]
        return self.fun(*args, **self.kwargs)
