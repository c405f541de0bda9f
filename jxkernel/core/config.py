"""Global options, named and read as JAX names them.

    >>> from jxkernel import config
    >>> config.update("jax_enable_x64", True)
    >>> config.jax_enable_x64
    True
    >>> config.update("jax_enable_x64", False)

Options are plain attributes of the ``config`` object, so the hot paths read
them at the cost of one attribute lookup. Each option may take its initial
value from an environment variable.
"""
from __future__ import annotations

import contextlib
import enum
import itertools
import linecache
import os
import re
import sys
import threading
import weakref


def _parse_bool(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


def _check_choice(value, choices, kind: str) -> None:
    if value not in choices:
        raise ValueError(f"{value!r} is not a valid {kind}: use one of {', '.join(choices)}")


def _check_optional_enum(value, choices) -> None:
    if value is not None and value not in choices:
        raise ValueError(f"new enum value must be None or in {list(choices)}, got {value} of "
                         f"type {type(value)}.")


def _check_enum(value, choices) -> None:
    if value not in choices:
        raise ValueError(f"new enum value must be in {list(choices)}, got {value} of type "
                         f"{type(value)}.")


def _check_int(value, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} takes an int, got {value!r} of type {type(value).__name__}")


class ExplicitX64Mode(enum.IntEnum):
    """What a 64-bit dtype asked for by name does without jax_enable_x64 (option
    jax_explicit_x64_dtypes): WARN and become 32 bits, ERROR, or ALLOW (kept). Also read from
    'warn', 'error', 'allow', as JAX's."""
    WARN = 1
    ERROR = 2
    ALLOW = 3

    @classmethod
    def _missing_(cls, value):
        return cls.__members__.get(value.upper()) if isinstance(value, str) else None


class EffortLevel(enum.Enum):
    """XLA's effort levels, the values of the compiler options `optimization_level` and
    `memory_fitting_level` (JAX's enum: `jit(f, compiler_options={"optimization_level":
    EffortLevel.O1.value})`)."""
    UNKNOWN = 0
    O0 = 9
    O1 = 19
    O2 = 29
    O3 = 39


class _Option:
    __slots__ = ("name", "default", "env", "parse", "help", "validate")

    def __init__(self, name, default, env=None, parse=None, help="", validate=None):
        self.name, self.default, self.env, self.help = name, default, env, help
        self.parse = parse or (lambda s: s)
        self.validate = validate


def _flag(name, default, help):
    """A True/False option, set also by the environment variable of its name in capitals."""
    return _Option(name, default, name.upper(), _parse_bool, help)


def _one_value(name, value, help, instead):
    """One of JAX's switches between two implementations of its own, of which jxkernel has
    the one at `value`: the other value raises, naming the option, rather than being kept
    and changing nothing (`instead`: what jxkernel does, for the error)."""
    def only(new):
        if new is not value:
            raise ValueError(f"{name}={new!r} is not supported by jxkernel: {instead}. Leave "
                             f"{name} at {value!r}.")
    return _Option(name, value, name.upper(), _parse_bool, f"{help} (jxkernel: {value} only; "
                   f"{instead}).", validate=only)


def _switch(name, default, help):
    """One of JAX's switches between two implementations of its own, meant to behave alike
    (JAX's tests run their checks under both): jxkernel has one implementation, so the value
    is kept for code that reads it and changes nothing else."""
    return _Option(name, default, name.upper(), _parse_bool,
                   f"{help}. JAX's choice between two implementations of its own: jxkernel has "
                   f"one, whatever the value.", validate=lambda v: _check_enum(v, (True, False)))


_OPTIONS = [
    _flag("jax_enable_x64", False,
          "Use 64-bit floats and ints (otherwise float32/int32 are the widest types)."),
    _flag("jax_disable_jit", False,
          "Run jitted functions op by op, for debugging."),
    _flag("jax_log_compiles", False,
          "Print every compile event (function, reason, timings) as it happens."),
    _flag("jax_log_checkpoint_residuals", False,
          "Log (logging, level WARNING; else DEBUG) what each checkpoint saves for the "
          "backward pass when it is differentiated: the inputs and the intermediates."),
    _flag("jax_explain_cache_misses", False,
          "Log (logging, level WARNING) why each jit call traced again: where the call is, "
          "what differs from the nearest earlier signature, and how to avoid it."),
    _Option("jax_logging_level", "NOTSET", "JAX_LOGGING_LEVEL", None,
            "The level of the loggers 'jax' and 'jaxlib', which then write to stderr (JAX's "
            "format), and of jaxlib's C++ log: 'DEBUG' shows every compile line; None or "
            "'NOTSET' leaves them alone.",
            validate=lambda v: _check_optional_enum(v, ("NOTSET", "DEBUG", "INFO", "WARNING",
                                                        "ERROR", "CRITICAL"))),
    _Option("jax_debug_log_modules", "", "JAX_DEBUG_LOG_MODULES", None,
            "Comma-separated logger names (JAX's modules: 'jax._src.dispatch', or 'jax' for "
            "all) that log at DEBUG to stderr; '' for none."),
    _Option("jax_platforms", None, "JAX_PLATFORMS", None,
            "Comma-separated backends to use, in order of preference, e.g. 'cuda,cpu'."),
    _Option("jax_platform_name", None, "JAX_PLATFORM_NAME", None,
            "The default backend (cpu, gpu, tpu)."),
    _Option("jax_default_device", None, "JXKERNEL_DEFAULT_DEVICE", None,
            "Where computations run when no device is named: a Device, or 'cpu', 'gpu:1', ... "
            "(inputs are moved there)."),
    _Option("jax_num_cpu_devices", -1, "JXKERNEL_CPU_DEVICES", int,
            "How many CPU devices to create (-1, JAX's default: XLA_FLAGS's count, else one); "
            "settable only before the CPU backend starts."),
    _Option("jax_enable_compilation_cache", True, "JXKERNEL_COMPILATION_CACHE", _parse_bool,
            "Reuse compiled executables across functions: by module text in memory, and on disk "
            "across processes."),
    _Option("jax_compilation_cache_dir", None, "JXKERNEL_COMPILATION_CACHE_DIR", None,
            "Folder of the persistent compilation cache (default: a user cache folder)."),
    _flag("jax_disable_most_optimizations", False,
          "Compile with XLA's backend optimizations mostly off: quicker compiles of slower "
          "code, for programs that run once (tests). Applies to compiles after the change; "
          "jax.clear_caches() drops the executables made before."),
    _Option("jax_compilation_cache_max_size", -1, "JAX_COMPILATION_CACHE_MAX_SIZE", int,
            "The most bytes the persistent compilation cache's folder may hold: past it, the "
            "least recently used entries are deleted. -1: no limit; 0: the folder is not used."),
    _Option("jax_persistent_cache_min_compile_time_secs", 1.0,
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", float,
            "Only executables that took at least this long to compile are written to the "
            "cache folder you set (JAX's default, 1 s: a quick compile is \"Not writing ...\" "
            "under jax_explain_cache_misses); jxkernel's default folder keeps every one."),
    _Option("jax_default_matmul_precision", None, "JAX_DEFAULT_MATMUL_PRECISION", None,
            "Default precision of dot_general (None, 'highest', ...)."),
    _Option("jax_numpy_dtype_promotion", "standard", "JAX_NUMPY_DTYPE_PROMOTION", None,
            "How jax.numpy promotes mixed dtypes: 'standard' (JAX's lattice) or 'strict' "
            "(only weak Python scalars promote; other mixes raise TypePromotionError).",
            validate=lambda v: _check_choice(v, ("standard", "strict"), "NumpyDtypePromotion")),
    _Option("jax_explicit_x64_dtypes", ExplicitX64Mode.WARN, "JAX_EXPLICIT_X64_DTYPES",
            ExplicitX64Mode, "What a 64-bit dtype named in a call (jnp.zeros(3, jnp.int64)) "
            "does without jax_enable_x64: WARN and narrow to 32 bits, ERROR, or ALLOW.",
            validate=ExplicitX64Mode),
    _Option("jax_numpy_rank_promotion", "allow", "JAX_NUMPY_RANK_PROMOTION", None,
            "What jax.numpy does when operands of different ranks meet (NumPy's implicit rank "
            "promotion, a common source of shape bugs): 'allow', 'warn' or 'raise'.",
            validate=lambda v: _check_enum(v, ("allow", "warn", "raise"))),
    _flag("jax_debug_nans", False,
          "Raise FloatingPointError when a result contains NaN (a jitted function with a NaN "
          "output is rerun op by op to name the operation)."),
    _flag("jax_debug_infs", False,
          "Raise FloatingPointError when a result contains inf, as jax_debug_nans does for NaN."),
    _flag("jax_check_tracer_leaks", False,
          "Raise when a tracer outlives the jit or vmap trace that made it (slow: a garbage "
          "collection per trace)."),
    _Option("jax_tracer_error_num_traceback_frames", 5, "JAX_TRACER_ERROR_NUM_TRACEBACK_FRAMES",
            int, "How many of the user's stack frames an UnexpectedTracerError lists for where "
            "the leaked value was made (0 or less: none, only its line). Applies to values "
            "traced after the change.", validate=lambda v: _check_int(
                v, "jax_tracer_error_num_traceback_frames")),
    _flag("jax_enable_checks", False,
          "Type-check every jaxpr as it is traced (jit, make_jaxpr, the transformations' "
          "inner jaxprs): a wrong rule fails where it ran, not in XLA. Makes tracing slower."),
    _flag("jax_check_static_indices", False,
          "Raise IndexError for a static integer index out of bounds in array indexing "
          "(x[5] of a size-3 axis), where the indexing mode is promise_in_bounds, the "
          "default of x[idx]; otherwise such an index is clamped."),
    _flag("jax_no_tracing", False,
          "Raise RuntimeError when a jitted function would be traced (again): to assert that "
          "a loop hits jit's caches."),
    _flag("jax_allow_f16_reductions", True,
          "If False, reduce_sum of float16 or bfloat16 over more than one element raises "
          "ValueError (to find sums that lose precision)."),
    _Option("jax_traceback_filtering", "auto", "JAX_TRACEBACK_FILTERING", None,
            "How an error leaving jxkernel drops jxkernel's own frames from its traceback: "
            "'off', 'tracebackhide' (marks them for IPython and pytest to hide), "
            "'remove_frames' (the whole traceback kept as the error's __cause__), "
            "'quiet_remove_frames' (a note says how to see them) or 'auto' (tracebackhide in "
            "IPython, quiet_remove_frames elsewhere).",
            validate=lambda v: _check_enum(v, ("off", "tracebackhide", "remove_frames",
                                               "quiet_remove_frames", "auto"))),
    _Option("jax_legacy_prng_key", "allow", "JAX_LEGACY_PRNG_KEY", None,
            "What jax.random does with a raw uint32 key (from PRNGKey) in place of a typed key "
            "(from key): 'allow', 'warn' or 'error'.",
            validate=lambda v: _check_enum(v, ("allow", "warn", "error"))),
    _Option("jax_default_prng_impl", "threefry2x32", "JAX_DEFAULT_PRNG_IMPL", None,
            "The PRNG implementation of keys made without `impl` and of raw keys given to "
            "jax.random: 'threefry2x32', 'threefry4x32', 'rbg', 'unsafe_rbg', 'philox2x32' or "
            "'philox4x32'.",
            validate=lambda v: _check_enum(v, ("threefry2x32", "threefry4x32", "rbg",
                                               "unsafe_rbg", "philox2x32", "philox4x32"))),
    _Option("jax_random_seed_offset", 0, "JAX_RANDOM_SEED_OFFSET", int,
            "Added to every seed a PRNG key is made from (jax.random.key, PRNGKey): other "
            "keys, hence other random numbers, from the same code.",
            validate=lambda v: _check_int(v, "jax_random_seed_offset")),
    _flag("jax_softmax_custom_jvp", False,
          "jax.nn.softmax with a custom_jvp rule (its derivative from its output: less memory, "
          "more stable) instead of differentiating its operations."),
    _flag("jax_threefry_partitionable", True,
          "Threefry's split and random bits from each element's own counter (JAX's default, "
          "the same values however the array is sharded); False: JAX's original scheme, "
          "hashing one flat run of counters (other values)."),
    _flag("jax_auto_pcast", True,
          "In shard_map bodies, put pvary in automatically where an operation's inputs vary "
          "over different manual axes; False: raise instead (use lax.pcast by hand)."),
    _flag("jax_thread_guard", False,
          "Raise if a multi-process operation is launched from a thread other than the one "
          "that set the guard (jaxlib checks it; a single process is never affected)."),
    _flag("jax_remove_size_one_mesh_axis_from_type", False,
          "Removes mesh axes of size 1 from ShapedArray.sharding and vma"),
    _flag("jax_disable_vmap_shmap_error", False,
          "Temporary workaround to disable an error check in vmap-of-shmap."),
    _Option("jax_array_garbage_collection_guard", None, "JAX_ARRAY_GARBAGE_COLLECTION_GUARD",
            None, "What happens when a jax.Array is freed by Python's garbage collector (a "
            "reference cycle) rather than by reference counting: 'allow' (nothing), 'log' (an "
            "error logged) or 'fatal' (the process aborts); None: jaxlib's default, allow. "
            "jaxlib's guard checks it (as JAX's).",
            validate=lambda v: _check_optional_enum(v, ("allow", "log", "fatal"))),
    _flag("jax_no_execution", False,
          "Raise RuntimeError when a compiled program would run (tracing and compiling "
          "still happen)."),
    _Option("jax_use_shardy_partitioner", True, "JAX_USE_SHARDY_PARTITIONER", _parse_bool,
            "Partition with Shardy: jxkernel's only partitioner (GSPMD's False is refused).",
            validate=lambda v: _check_enum(v, (True,))),
    _flag("jax_include_full_tracebacks_in_locations", True,
          "Include the Python traceback (the user's frames up to the function jitted, then "
          "those that lowered it) in the MLIR locations of `Lowered.compiler_ir()` and "
          "`as_text(debug_info=True)`; False: the innermost user frame's file, line and "
          "column only."),
    _flag("jax_threefry_gpu_kernel_lowering", False, "(GPU only in JAX) threefry as the "
          "CUDA/ROCm kernel cu_threefry2x32; jxkernel's is XLA operations everywhere: no "
          "effect here."),
    _flag("jax_ragged_dot_use_ragged_dot_instruction", True, "(TPU only in JAX) ragged_dot as "
          "chlo.ragged_dot; jxkernel's is dot_general operations everywhere: no effect here."),
    _Option("jax2tf_associative_scan_reductions", False,
            "JAX2TF_ASSOCIATIVE_SCAN_REDUCTIONS", _parse_bool,
            "Read by jax2tf only (which jxkernel does not have): which lowering of cumsum, "
            "cumprod, cummax and cummin it uses. jxkernel's follow JAX's CPU/GPU lowering."),
    _Option("jxkernel_compile_notes", "recompiles", "JXKERNEL_COMPILE_NOTES", None,
            "Which compiles of your functions a notebook cell notes under its output: "
            "'recompiles' (a second compile or later, with what changed and the fix), 'all' "
            "(first compiles too, and the eager operations and jxkernel's or libraries' "
            "functions the cell compiled) or 'off'. %jxnotes sets it.",
            validate=lambda v: _check_enum(v, ("all", "recompiles", "off"))),
    _Option("jxkernel_watched_calls", "sampled", "JXKERNEL_WATCHED_CALLS", None,
            "Which calls of a jitted function the notebook looks at for its notes (a NaN "
            "gradient inside it, an index out of bounds it met): 'sampled' (each cell's "
            "first 8, then about one in so many, looking kept to about 5 % of a loop's "
            "time: a loop runs at the fast paths' speed) or 'all' (every call: a loop of "
            "small steps runs several times slower, and an index out of bounds or a first "
            "NaN at any step is told). core/watches.py.",
            validate=lambda v: _check_enum(v, ("sampled", "all"))),
    _flag("jax_debug_key_reuse", False,
          "Check typed PRNG keys (jax.random.key) for reuse: a key consumed twice (by a "
          "sampler, split, ...) raises KeyReuseError, in jitted code as it is traced and "
          "eagerly (random/key_reuse.py). Slows every jit call with keys a little."),
    _flag("jax_pprint_use_color", True,
          "Color jaxprs' printing (JAX's syntax highlighting: keywords bold blue, binders' "
          "types magenta) where JAX colors them: in a terminal, Jupyter or Colab "
          "(`pretty_print(use_color=True)` colors anywhere)."),
    _flag("jax_disable_bwd_checks", False,
          "Skip the check that a custom_vjp bwd rule's cotangents have the shapes of the "
          "primal inputs."),
    _one_value("jax_mutable_array_checks", True,
               "Enable error checks for mutable arrays that rule out aliasing",
               "its checks of mutable arrays (a Ref returned from a jit, one Ref passed as "
               "two arguments) are always made, as JAX's default"),
    _one_value("jax_use_simplified_jaxpr_constants", False,
               "Array constants as literals of a jaxpr rather than its constvars",
               "its jaxprs take array constants as constvars (JAX's default)"),
    _Option("jax_export_calling_convention_version", 10,
            "JAX_EXPORT_CALLING_CONVENTION_VERSION", int,
            "The calling convention version number jax.export writes (9 or 10, as JAX 0.10.2 "
            "supports; 10 by default). Both give the same module here: 10 tells TensorFlow's "
            "XlaCallModule that the module was partitioned with Shardy.",
            validate=lambda v: _check_int(v, "jax_export_calling_convention_version")),
    _Option("jax_export_ignore_forward_compatibility", False,
            "JAX_EXPORT_IGNORE_FORWARD_COMPATIBILIY", _parse_bool,
            "Whether jax.export ignores the forward-compatibility lowering rules (JAX's "
            "option, and its environment variable's spelling). jxkernel has no such rules: "
            "it lowers each primitive one way, the newest (LAPACK's typed-FFI calls), so "
            "both values export the same module. Lowering rules read it as "
            "ctx.module_context.lowering_parameters.export_ignore_forward_compatibility."),
    _Option("jax_xla_profile_version", 0, "JAX_XLA_PROFILE_VERSION", int,
            "The XLA-AutoFDO profile version compile options name (JAX's "
            "compiler.get_compile_options); 0: none set. Meaningful only where XLA fetches "
            "remote compilation profiles (TPU deployments): it changes no CPU or GPU program.",
            validate=lambda v: _check_int(v, "jax_xla_profile_version")),
    _Option("jax_embedded_constants_max_bytes", 32, "JAX_EMBEDDED_CONSTANTS_MAX_BYTES", int,
            "The largest array literal (bytes) a jaxpr keeps in its lowered module under "
            "jax_use_simplified_jaxpr_constants=True, larger ones hoisted as arguments. With "
            "that option False (jxkernel's only value, JAX's default) array constants are "
            "constvars and this changes nothing, in JAX as here.",
            validate=lambda v: _check_int(v, "jax_embedded_constants_max_bytes")),
    _Option("jax_captured_constants_warn_bytes", 2 * 10 ** 9,
            "JAX_CAPTURED_CONSTANTS_WARN_BYTES", int,
            "The bytes of constants (arrays a jitted function closes over) its trace may hold "
            "before lowering warns (about 2 GB). -1: never warn.",
            validate=lambda v: _check_int(v, "jax_captured_constants_warn_bytes")),
    _Option("jax_captured_constants_report_frames", 0, "JAX_CAPTURED_CONSTANTS_REPORT_FRAMES",
            int, "How many frames the warning of jax_captured_constants_warn_bytes reports for "
            "each of the largest constants, where it is used: -1 all, 0 no report.",
            validate=lambda v: _check_int(v, "jax_captured_constants_report_frames")),
    # JAX's tests check that results do not depend on these two (test_use_direct_linearize,
    # Remat3Test: api_test's checkpoint tests again under remat3): one implementation meets
    # both values, so both are accepted. Not so simplified constants: they change jaxprs' text
    _switch("jax_use_direct_linearize", True,
            "Linearize by a linearize trace rather than by jvp and partial evaluation"),
    _one_value("jax_bcoo_cusparse_lowering", False,
               "Enables lowering BCOO ops to cuSparse",
               "BCOO's and BCSR's products lower to XLA's own operations on every platform "
               "(JAX's default; cuSPARSE is a CUDA GPU's)"),
    _switch("jax_remat3", False, "JAX's experimental rewrite of checkpoint (remat)"),
    _switch("jax_custom_vjp3", False, "JAX's experimental rewrite of custom_vjp"),
    _flag("jax_enable_custom_prng", False,
          "JAX's upgrade to typed keys: PRNGKey, and split/fold_in of a raw key, return typed "
          "keys (dtype key<fry>); a raw key given to jax.random warns (FutureWarning)."),
]
# The transfer guards (jxkernel/xla/transfer_guard.py): a direction's own level wins over
# jax_transfer_guard; None defers to it.
_TRANSFER_GUARD_LEVELS = (None, "allow", "log", "disallow", "log_explicit", "disallow_explicit")


def _check_transfer_guard(value) -> None:
    if value not in _TRANSFER_GUARD_LEVELS:
        raise ValueError(f"new enum value must be None or in {list(_TRANSFER_GUARD_LEVELS[1:])}, "
                         f"got {value} of type {type(value)}.")


_TRANSFER_GUARD_OPTIONS = ("jax_transfer_guard", "jax_transfer_guard_host_to_device",
                           "jax_transfer_guard_device_to_device",
                           "jax_transfer_guard_device_to_host")
_OPTIONS += [_Option(name, None, name.upper(), None,
                     "Guard transfers " + ("of every kind" if name == "jax_transfer_guard" else
                                           name[len("jax_transfer_guard_"):].replace("_", " "))
                     + ": allow, log, disallow, log_explicit or disallow_explicit.",
                     validate=_check_transfer_guard)
             for name in _TRANSFER_GUARD_OPTIONS]


# Options that change what tracing a function produces: jit retraces when one changes.
_TRACE_OPTIONS = ("jax_enable_x64", "jax_explicit_x64_dtypes", "jax_check_static_indices",
                  "jax_numpy_dtype_promotion", "jax_numpy_rank_promotion",
                  "jax_default_matmul_precision",
                  # (not jax_check_tracer_leaks: JAX 0.10.2 keys no trace on it, so a call
                  # inside jax.checking_leaks() of a function compiled outside is a hit; nor
                  # the PRNG options jax_legacy_prng_key, jax_enable_custom_prng and
                  # jax_default_prng_impl: a key made inside a jit keeps the implementation
                  # of its first trace, as in JAX (tests/data/recompile_cases.py,
                  # "trace_context_*"))
                  "jax_allow_f16_reductions", "jax_softmax_custom_jvp",
                  "jax_threefry_partitionable", "jax_auto_pcast", "jax_random_seed_offset",
                  "jax_debug_key_reuse", "jax_remove_size_one_mesh_axis_from_type",
                  # as in JAX's trace context: a call inside jax.default_device(d) traces and
                  # compiles again even where d is the device it ran on before
                  "jax_default_device",
                  # and these, each named in JAX's miss when it changes (jax_no_execution: a
                  # call traces and compiles again before it is refused)
                  "jax_custom_vjp3", "jax_remat3", "jax_use_direct_linearize",
                  "jax_embedded_constants_max_bytes", "jax_no_execution")


# jax.make_user_context's contexts: their values join every jit cache key. Each is a hidden
# entry of the config ("_user_context_3"), so that, as an option's, its value is per thread:
# `with ctx(v):` sets it in this thread only, `set_global` in every thread not inside one
_USER_CONTEXTS: list = []
_USER_KEYS: list = []
# set_mesh's mesh (core/mesh.py) is the hidden entry "_context_mesh", in every jit cache key
# too, as in JAX's trace context: a jit called under it runs over its devices, one called
# outside on one device. It is this thread's own (set_mesh is thread-local in JAX, even as a
# setter), never a global value.
# use_abstract_mesh's mesh is "_abstract_mesh", in the keys alike (JAX's trace context holds
# it: a jit called under an abstract mesh of another kind of device traces again)
# A `with mesh:` block's mesh is "_legacy_mesh", in no key: set in this thread while a block is
# entered, so that every change of the config there makes a new `_generation` (a jit's
# remembered hits from outside the block never serve a call inside it: _jax/_src/pjit.py)
_HIDDEN = {"_context_mesh": None, "_abstract_mesh": None, "_legacy_mesh": None}


class UserContext:
    """A value of the user's own that jit's caches depend on (`jax.make_user_context`):
    ``with ctx(v):`` sets it in the block (in this thread), and a jitted function traced
    under another value is traced and compiled again.

    >>> ctx = make_user_context(0)
    >>> with ctx(2):
    ...     ctx.value
    2
    >>> ctx.value
    0
    """

    def __init__(self, default_value=None):
        self._key = f"_user_context_{len(_USER_CONTEXTS)}"
        # how the recompile explainer names it: the variable the user's line assigns it to
        # (`ctx = jax.make_user_context(0)`), and where it was made
        frame = sys._getframe(2)
        self.name, self.made_at = _made_where(frame)
        self._scope = frame.f_globals if frame is not None else {}
        _USER_CONTEXTS.append(self)
        _USER_KEYS.append(self._key)
        _HIDDEN[self._key] = default_value              # (a Config made later starts there)
        config._set_global(self._key, default_value)    # (every key grew: a new generation)

    @property
    def value(self):
        """Its value in this thread."""
        return getattr(config, self._key)

    def __call__(self, new_value):
        return config._override(self._key, new_value)

    @property
    def label(self) -> str | None:
        """The name the user's code holds it by: assigned on the line that made it, else a
        global of that module holding it (a line linecache cannot read), else None."""
        if self.name is None:
            self.name = next((n for n, v in list(self._scope.items()) if v is self and
                              not n.startswith("_")), None)
        return self.name

    def set_global(self, new_value) -> None:
        config._set_global(self._key, new_value)

    def get_global(self):
        return _SHARED[config].values[self._key]


_ASSIGNED = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(?::[^=]*)?=\s*[\w.]*make_user_context\(")


def _made_where(frame) -> tuple:
    """(the name a line `name = jax.make_user_context(...)` gives the context, or None;
    "file:line") of the frame that called make_user_context."""
    if frame is None:
        return None, None
    file, line = frame.f_code.co_filename, frame.f_lineno
    found = _ASSIGNED.match(linecache.getline(file, line, frame.f_globals))
    return (found.group(1) if found else None), f"{file}:{line}"


def make_user_context(default_value=None) -> UserContext:
    """A new context whose value joins jit's cache keys (see UserContext)."""
    return UserContext(default_value)


class _Shared:
    """What every thread's view of one Config shares: the global values (`config.update`),
    what derives from them, the watchers, and each thread's view (to update it)."""

    def __init__(self, options):
        self.options = options
        self.values = {}
        for o in options.values():
            raw = os.environ.get(o.env) if o.env else None
            self.values[o.name] = o.parse(raw) if raw not in (None, "") else o.default
            if o.validate is not None and raw not in (None, ""):
                o.validate(self.values[o.name])     # (JAX_REMAT3=1 refused as update refuses)
        self.values.update(_HIDDEN)
        self.derived = _derived(self.values.__getitem__)
        self.watchers: dict[str, list] = {}
        self.views = weakref.WeakKeyDictionary()    # thread -> its view (its __dict__)
        self.lock = threading.RLock()
        self.absl_flags = None


def _derived(read) -> dict:
    """The values the hot paths read in one lookup, from the options as `read` gives them."""
    debug = read("jax_debug_nans") or read("jax_debug_infs") or read("jax_no_execution")
    mesh, abstract = read("_context_mesh"), read("_abstract_mesh")
    return {
        # what a trace depends on, with jax.make_user_context's values: jit's cache keys
        "_trace_state": (tuple(read(n) for n in _TRACE_OPTIONS)
                         + tuple(read(k) for k in _USER_KEYS)
                         + ((mesh,) if mesh is not None else ())
                         + ((abstract,) if abstract is not None else ())),
        # may the dispatch hot paths skip checking results (NaN/inf, jax_no_execution)?
        "_debug_values": debug,
        # and jit's eager calls: leave them to check results, or keys (key reuse)?
        "_checked_calls": debug or read("jax_debug_key_reuse"),
        # may eager dispatch run a primitive's remembered one-device program? Not with a
        # default device chosen, results to check, or under set_mesh (JAX runs eager
        # operations over the mesh then)
        "_eager_fast": (read("jax_default_device") is None and not debug
                        and (mesh is None or mesh.empty)),
        # are 64-bit dtypes a call names kept (jax_enable_x64, or jax_explicit_x64_dtypes
        # ALLOW)? One read for dtype canonicalization's hot paths, not the enum's
        "_named_x64": (read("jax_enable_x64")
                       or read("jax_explicit_x64_dtypes") == ExplicitX64Mode.ALLOW),
        # is any transfer guard set to more than "allow"?
        "_transfer_guarded": any(read(n) not in (None, "allow") for n in _TRANSFER_GUARD_OPTIONS),
        # a new token at every change: a hot path that remembers what it saw (jit's last hit)
        # checks that nothing changed since with one `is`
        "_generation": object(),
    }


# each Config's shared state (a threading.local's own attributes are per thread)
_SHARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Config(threading.local):
    """The option table; read options as attributes, change them with `update`.

    As JAX's, `update` sets an option for the whole process and `override` (what
    ``with jax.enable_x64():`` and the other context managers use) for this thread only:
    each thread reads its own copy of the options (a threading.local, so a read stays one
    attribute lookup), which `update` rewrites in every thread, where no `with` holds it.
    """

    def __init__(self):
        # (threading.local runs this once per thread that reads the config: a new thread
        # starts from the global values, with no override of its own)
        shared = _SHARED.get(self)
        if shared is None:
            shared = _SHARED[self] = _Shared({o.name: o for o in _OPTIONS})
        view = self.__dict__
        view.update(shared.values)
        view.update(shared.derived)
        view["_overridden"] = {}          # option -> how many `with` blocks set it here
        with shared.lock:
            shared.views[threading.current_thread()] = view

    @property
    def _options(self) -> dict:
        return _SHARED[self].options

    @property
    def use_absl(self) -> bool:
        """True once config_with_absl has defined absl flags."""
        return _SHARED[self].absl_flags is not None

    @property
    def absl_flags(self):
        return _SHARED[self].absl_flags

    def _refresh(self, view) -> None:
        # a thread's derived values: the global ones where it overrides nothing (sharing the
        # generation token, so that jit's remembered hit serves every such thread)
        shared = _SHARED[self]
        view.update(_derived(view.__getitem__) if view["_overridden"] else shared.derived)

    def _note_generation(self) -> None:
        """A new generation token everywhere: every remembered jit hit is stale (the tests'
        way to forget them)."""
        shared = _SHARED[self]
        with shared.lock:
            shared.derived = _derived(shared.values.__getitem__)
            for view in list(shared.views.values()):
                self._refresh(view)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            raise AttributeError(f"config has no settable attribute {name!r}")
        self.update(name, value)

    def _checked(self, name: str, value):
        option = self._options.get(name)
        if option is None:
            known = ", ".join(sorted(self._options))
            raise AttributeError(f"Unrecognized config option {name!r}; known options: {known}")
        if option.validate is not None:
            option.validate(value)
        if isinstance(option.default, enum.Enum):      # a name of a member: the member
            value = type(option.default)(value)
        return value

    def _watch_change(self, name: str, old, new) -> None:
        for watcher in _SHARED[self].watchers.get(name, ()):
            watcher(old, new)      # a watcher may refuse the change by raising

    def update(self, name: str, value) -> None:
        """Set option `name` for the whole process, e.g.
        ``config.update("jax_enable_x64", True)`` (a thread inside a `with` block of it
        keeps the block's value until the block ends)."""
        self._set_global(name, self._checked(name, value))

    @contextlib.contextmanager
    def override(self, name: str, value):
        """Set an option inside a ``with`` block only, in this thread only (as JAX's
        context managers). The value is checked on entering the block: a refused value used
        as a decorator (`@config.use_simplified_jaxpr_constants(True)`) fails the function's
        calls, not the module defining it."""
        with self._override(name, self._checked(name, value)):
            yield

    def _set_global(self, name: str, value) -> None:
        """`update` of a checked value, or of a hidden entry (a user context's)."""
        shared = _SHARED[self]
        with shared.lock:
            self._watch_change(name, shared.values.get(name), value)
            shared.values[name] = value
            shared.derived = _derived(shared.values.__getitem__)
            for view in list(shared.views.values()):
                if name not in view["_overridden"]:
                    view[name] = value
                self._refresh(view)

    @contextlib.contextmanager
    def _override(self, name: str, value):
        """`override` of a checked value, or of a hidden entry (`with ctx(v):`)."""
        shared, view = _SHARED[self], self.__dict__
        with shared.lock:
            prior = view[name]
            self._watch_change(name, prior, value)
            view[name] = value
            view["_overridden"][name] = view["_overridden"].get(name, 0) + 1
            self._refresh(view)
        try:
            yield
        finally:
            with shared.lock:
                overridden = view["_overridden"]
                overridden[name] -= 1
                if not overridden[name]:      # the last block of it here: the global value
                    del overridden[name]
                    prior = shared.values[name]
                self._watch_change(name, value, prior)
                view[name] = prior
                self._refresh(view)

    def _set_local(self, name: str, value) -> None:
        """Set a hidden entry in this thread only, for good (set_mesh's mesh: JAX's
        `swap_local`); the global value again ends this thread's own."""
        shared, view = _SHARED[self], self.__dict__
        with shared.lock:
            view[name] = value
            if value is shared.values[name]:
                view["_overridden"].pop(name, None)
            else:
                view["_overridden"][name] = 1
            self._refresh(view)

    def global_value(self, name: str):
        """The option's value outside any `with` block of it (what `update` last set)."""
        if name not in self._options:
            raise AttributeError(f"Unrecognized config option {name!r}")
        return _SHARED[self].values[name]

    def global_values(self) -> dict:
        """Every option's value outside any `with` block (a copy), e.g. to see what a piece
        of code left changed: ``before = config.global_values()``, then later compare it with
        ``config.global_values()``."""
        return {name: _SHARED[self].values[name] for name in self._options}

    def read(self, name: str):
        return getattr(self, name)

    def _read(self, name: str):
        """`read`, by JAX's private name (JAX's tests call `jax.config._read`)."""
        return self.read(name)

    @property
    def x64_enabled(self) -> bool:
        """`jax_enable_x64`, by the older name JAX still answers (`jax.config.x64_enabled`)."""
        return self.jax_enable_x64

    def parse_flags_with_absl(self, argv=None) -> None:
        """Set options from command-line flags, as JAX reads them with absl: `--jax_name=value`,
        and for booleans `--jax_name` / `--nojax_name` (test programs call this first). Other
        arguments are left alone, as are flags of options jxkernel does not have (absl's
        known-only parsing leaves them too).

        >>> config.parse_flags_with_absl(["prog", "--jax_log_compiles=false", "-v"])
        >>> config.jax_log_compiles
        False

        Where absl is installed, the first call also does what JAX's does with it: an absl flag
        per option (`config_with_absl`) and absl's flags parsed from the `--jax` arguments
        (known only), so that absl's FLAGS count as parsed: absltest's `create_tempdir` reads
        `FLAGS.test_tmpdir`, which absl refuses before a parse (Flax's checkpoint tests call
        this at import for that).
        """
        args = sys.argv if argv is None else argv
        if not self.use_absl:
            try:
                import absl.flags as absl_flags     # as JAX's (which needs absl)
            except ImportError:
                absl_flags = None
            if absl_flags is not None:
                jax_argv = ["", *(a for a in itertools.takewhile(lambda a: a != "--", args[1:])
                                  if a.startswith("--jax"))]
                self.config_with_absl()
                absl_flags.FLAGS(jax_argv, known_only=True)
                self.complete_absl_config(absl_flags)
        for arg in args[1:]:
            if not arg.startswith(("--jax_", "--nojax_")):
                continue
            name, has_value, raw = arg[2:].partition("=")
            negated = name.startswith("nojax_") and not has_value
            name = name[2:] if negated else name
            if name not in self._options:
                continue
            option = self._options[name]
            if has_value:
                value = option.parse(raw)
            elif isinstance(option.default, bool):
                value = not negated
            else:
                raise ValueError(f"flag --{name} needs a value: --{name}=VALUE")
            self.update(name, value)

    def config_with_absl(self) -> None:
        """Define an absl flag for each option (its type from its default) and, once absl's
        app has parsed the command line, set the options whose flags were given, as JAX's
        ``jax.config.config_with_absl()`` (call it before ``app.run(main)``). absl is
        imported here, so it is needed only by those who call this.
        """
        from absl import app, flags as absl_flags     # only for absl programs, as in JAX
        _SHARED[self].absl_flags = absl_flags
        for name, option in self._options.items():
            default = getattr(self, name)
            define = {bool: absl_flags.DEFINE_bool, int: absl_flags.DEFINE_integer,
                      float: absl_flags.DEFINE_float}.get(type(option.default),
                                                          absl_flags.DEFINE_string)
            if define is absl_flags.DEFINE_string and default is not None:
                default = str(default)
            define(name, default, option.help)
        app.call_after_init(lambda: self.complete_absl_config(absl_flags))

    def complete_absl_config(self, absl_flags) -> None:
        """Set each option whose absl flag was given on the command line (JAX's name; called
        by config_with_absl once absl has parsed the flags)."""
        for name, option in self._options.items():
            try:
                flag = absl_flags.FLAGS[name]
            except KeyError:
                continue
            if flag.present:
                value = flag.value
                if isinstance(value, str) and not isinstance(option.default, str):
                    value = option.parse(value)
                self.update(name, value)

    def watch(self, name: str, callback) -> None:
        """Call `callback(old, new)` before option `name` changes; raising refuses the change."""
        _SHARED[self].watchers.setdefault(name, []).append(callback)

    def values(self) -> dict:
        return {name: getattr(self, name) for name in self._options}

    def __repr__(self):
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in self.values().items()) + ")"


config = Config()
