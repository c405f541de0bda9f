"""Write tests/data/tracer_contract_reference.json from real JAX 0.10.2 (run by hand):

    .venv-jax/bin/python reference/make_tracer_contract_reference.py

A library's own Tracer subclass built by JAX's constructor contract, `Tracer.__init__(trace,
aval)`, as JAX's tests/errors_test.py builds one (trace and aval None): its repr, and the text
of each jax.errors class constructed with it (errors_test's testErrorsURL); and a subclass
given a real type: its shape, dtype and ndim."""
import json
import os

import numpy as np

import jax
from jax._src import core

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")


class FakeTracer(core.Tracer):
    def __init__(self, trace):
        super().__init__(trace, None)


class Typed(core.Tracer):
    pass


NAMES = ["ConcretizationTypeError", "KeyReuseError", "NonConcreteBooleanIndexError",
         "TracerArrayConversionError", "TracerBoolConversionError",
         "TracerIntegerConversionError", "JAXIndexError", "UnexpectedTracerError"]
typed = Typed(None, core.ShapedArray((2, 3), np.dtype("float32")))
with open(os.path.join(DATA, "tracer_contract_reference.json"), "w") as f:
    json.dump({"jax_version": jax.__version__,
               "repr": repr(FakeTracer(None)),
               "errors": {n: str(getattr(jax.errors, n)(FakeTracer(None))) for n in NAMES},
               "typed": {"shape": list(typed.shape), "dtype": str(typed.dtype),
                         "ndim": typed.ndim,
                         "bool_error": str(jax.errors.TracerBoolConversionError(typed))}},
              f, indent=1)
    f.write("\n")
