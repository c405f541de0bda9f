"""The names eager operations' programs have, against JAX 0.10.2's for the same operations
(tests/data/eager_program_names_cases.py, recorded by
reference/make_eager_program_names_reference.py): in jax_explain_cache_misses's
persistent-cache lines ("PERSISTENT COMPILATION CACHE MISS for 'jit_sin'") and in
jax_log_compiles's lines ("Finished tracing multiply for jit", "Compiling jit(multiply) ...")."""
import inspect
import re

import pytest

import jxkernel
import jxkernel.numpy as jnp
from jxkernel.numpy import ufunc_api, ufuncs
from jxkernel.xla.dispatch import JAX_JITTED_UFUNCS

from eager_program_names_cases import CASES, inputs, run, top_level_jits
from logged import logged_messages      # tests/support
import locations  # tests/support: the repository's folders

REFERENCE = locations.jax_answers("eager_program_names_reference.json")
RECORDED = REFERENCE["cases"]
MISS = re.compile(r"PERSISTENT COMPILATION CACHE MISS for '([^']*)'")
COMPILE_LINE = re.compile(r"^(Finished tracing |Compiling |Finished jaxpr to MLIR module "
                          r"conversion |Finished XLA compilation of )")
SECONDS = re.compile(r"in \d+(\.\d+)?(e-?\d+)? sec")
# JAX's jnp.ones/zeros compile a convert and a broadcast of the fill value; jxkernel's make
# the array on the host and compile nothing: one program fewer per new shape (a speed win
# kept; test_ones_and_zeros_compile_nothing_where_jax_compiles_two_programs says so)
HOST_MADE = ("jit_convert_element_type", "jit_broadcast_in_dim")
DIFFERENT = {"ones_plus_one", "zeros"}


_RAN: dict = {}


def ran(name, tmp_path_factory):
    """(program names, jax_log_compiles lines) of case `name` under jxkernel: a folder of its
    own (every program missed there), no program kept in memory."""
    if name not in _RAN:
        args = inputs(jxkernel)
        with jxkernel.config.override("jax_compilation_cache_dir",
                                      str(tmp_path_factory.mktemp(name))), \
                jxkernel.config.override("jax_persistent_cache_min_compile_time_secs", 0.0), \
                jxkernel.config.override("jax_explain_cache_misses", True), \
                jxkernel.config.override("jax_log_compiles", True):
            jxkernel.clear_caches()
            with logged_messages("jxkernel.compilation_cache", "jxkernel.compile_log") as texts:
                run(jxkernel, name, args)
        # the programs that missed, by name; the jax_log_compiles lines, seconds as "<s>"
        names = [MISS.match(t).group(1) for t in texts if MISS.match(t)]
        lines = [SECONDS.sub("in <s> sec", t) for t in texts
                 if not MISS.match(t) and COMPILE_LINE.match(t)]
        _RAN[name] = names, lines
    return _RAN[name]


@pytest.mark.xla_only("XLA compiler")  # the lines of XLA's compilation cache on disk
@pytest.mark.parametrize("name", sorted(set(CASES) - DIFFERENT))
def test_eager_programs_are_named_as_jax_names_them(name, tmp_path_factory):
    assert ran(name, tmp_path_factory)[0] == RECORDED[name]


@pytest.mark.parametrize("name", sorted(set(CASES) - DIFFERENT))
def test_log_compiles_names_eager_programs_as_jax(name, tmp_path_factory):
    """JAX's four lines per program, in order: its tracing, "Compiling jit(NAME) with global
    shapes and types", its lowering and XLA's compilation (the seconds aside); jxkernel's
    "Compiling" line writes the types its way and says why (docs/seeing_inside.md)."""
    head = "with global shapes and types"
    ours = [line.partition(head)[0] for line in ran(name, tmp_path_factory)[1]]
    theirs = [line.partition(head)[0] for line in REFERENCE["log_compiles"][name]]
    assert ours == theirs


@pytest.mark.xla_only("XLA compiler")  # the lines of XLA's compilation cache on disk
@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_ones_and_zeros_compile_nothing_where_jax_compiles_two_programs(name,
                                                                        tmp_path_factory):
    theirs = RECORDED[name]
    assert theirs[:2] == list(HOST_MADE)
    assert ran(name, tmp_path_factory)[0] == theirs[2:]


def test_the_jitted_ufuncs_are_those_jax_runs_as_jits_of_their_name():
    """dispatch.JAX_JITTED_UFUNCS, against JAX's recorded jnp functions that are jits (or
    jnp.ufuncs) of their own name: each is one, and each of jxkernel's numpy/ufuncs.py
    functions JAX jits so is in it."""
    jitted = {k for k, v in REFERENCE["jitted"].items() if k == v}
    assert JAX_JITTED_UFUNCS <= jitted
    ours = set()
    for name in dir(jnp):
        fun = getattr(jnp, name)
        code = getattr(fun, "__code__", None) if inspect.isfunction(fun) else None
        if isinstance(fun, ufunc_api.ufunc) or code is not None and \
                code.co_filename == ufuncs.__file__:
            ours.add(name)
    assert ours & jitted <= JAX_JITTED_UFUNCS, sorted(ours & jitted - JAX_JITTED_UFUNCS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_make_jaxpr_shows_jaxs_jit_equations(name):
    """The jit equations at the top of the case's jaxpr, as JAX's: `jnp.nansum` is a jit of its
    own (`jit[name=nansum]`), `jnp.std(x, where=m)` calls `_std`, a where= mask of sum goes
    through `jit[name=_where]`; jnp.sum or jnp.sin add none (inline jits). What is inside
    those jits is jxkernel's own (docs/seeing_inside.md)."""
    assert top_level_jits(jxkernel, name, inputs(jxkernel)) == \
        REFERENCE["jaxpr_jits"][name]


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(CASES) == sorted(REFERENCE["log_compiles"]) == \
        sorted(REFERENCE["jaxpr_jits"])
