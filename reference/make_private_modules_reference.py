"""Record what JAX 0.10.2's private modules answer for tests/data/private_modules_cases.py
(run by hand, not by the test suite):

    .venv-jax/bin/python reference/make_private_modules_reference.py

private_modules_reference.json: one entry per case function.
"""
import json
import os
import sys
import warnings

import numpy as np
import jax
import jax.extend.core as extend_core
from jax._src import api_util, checkify as checkify_private, config, core, dtypes, earray
from jax._src import jaxpr_util
from jax._src import literals as literals_module
from jax.experimental import checkify
from jax._src import test_util as jtu, tree_util
from jax._src.interpreters import pxla

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
sys.path.insert(0, HERE)
import private_modules_cases as cases  # noqa: E402

warnings.simplefilter("ignore")     # (JAX warns of int64 narrowed without x64)
record = {"literals": cases.literals(jax, literals_module, dtypes, core, np),
          "dtypes_private": cases.dtypes_private(jax, dtypes, config, np),
          "primal_tangent": cases.primal_tangent(jax, dtypes, np),
          "result_handler_wrap": cases.result_handler_wrap(jax, dtypes, core, pxla, earray, np),
          "tree_util_private": cases.tree_util_private(tree_util, jax),
          "compile_counts": cases.compile_counts(jax, jtu),
          "checkify_index_checks": cases.checkify_index_checks(jax, checkify, checkify_private),
          "nn_edges": cases.nn_edges(jax, core, np),
          "module_homes": cases.module_homes(jax, checkify, checkify_private),
          "error_homes": cases.error_homes(jax, checkify, checkify_private),
          "api_util_private": cases.api_util_private(jax, api_util),
          "jaxpr_util_counts": cases.jaxpr_util_counts(jax, jaxpr_util),
          "eval_jaxpr_literals": cases.eval_jaxpr_literals(jax, core, extend_core)}
with open(os.path.join(HERE, "private_modules_reference.json"), "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
print(f"{len(record)} cases written")
