"""jxkernel._src.pjit, as jax._src.pjit for what JAX's tests read of it: `pjit` (jit, but for
one rule of JAX's pjit: called inside a `with mesh:` block, a None in its in_shardings or
out_shardings means replicated over that mesh, P(), where jit's None means unspecified),
`_pjit_lower`'s `cache_info()` (how often a jit's lowering of a trace was found already
lowered: transforms/jit/stages.py's lower_jit) and `make_jit_cpp_cache`, which jxkernel has
no counterpart of.

    >>> f = pjit(lambda x: x * 2)
    >>> before = _pjit_lower.cache_info()
    >>> f.lower(1.0) is not None and _pjit_lower.cache_info().misses == before.misses + 1
    True
"""
import collections
import contextlib
import functools
import inspect

from ...core.mesh import (UNSPECIFIED, NamedSharding, PartitionSpec, bare_spec_error,
                          check_unique_axes, legacy_mesh, on_context_mesh, set_mesh)
from ...core.native import native
from ...core.traceback_util import api_boundary
from ...transforms.api_util import check_callable
from ...transforms.jit import jit
from ...transforms.jit.function import Jitted
from ...transforms.jit import stages as _stages
from ...tree_util import tree_map

CacheInfo = collections.namedtuple("CacheInfo", "hits misses maxsize currsize")


class _LoweringCache:
    """The lowering cache's counts, as JAX's `_pjit_lower` (a cache) reports them: one entry
    per trace and what else shaped its module, held while the trace lives (no bound)."""

    def cache_info(self) -> CacheInfo:
        held = sum(len(modules) for modules in list(_stages._LOWERED.values()))
        return CacheInfo(_stages.LOWER_COUNTS.hits, _stages.LOWER_COUNTS.misses, None, held)

    def __repr__(self):
        return f"_pjit_lower({self.cache_info()})"


_pjit_lower = _LoweringCache()


def make_jit_cpp_cache(capacity):
    """JAX's C++ cache object for jit's fast path (config.jax_jit_cpp_cache_obj): jxkernel's
    jit keeps each function's compiled programs in a bounded cache of its own."""
    raise NotImplementedError(
        f"make_jit_cpp_cache({capacity!r}): jxkernel has no shared fast-path cache object; each "
        f"jitted function keeps its compiled programs in a bounded cache of its own "
        f"(jax.clear_caches() empties them)")


def pjit(fun=None, in_shardings=UNSPECIFIED, out_shardings=UNSPECIFIED, **options):
    """`jit(fun, ...)`, whose None shardings mean P() over the mesh of the `with mesh:` block
    it is called in (JAX's pjit's rule); outside one, and for UNSPECIFIED, jit's.

        >>> pjit(lambda x: x * 2)(3)
        Array(6, dtype=int32, weak_type=True)
    """
    if fun is None:
        return functools.partial(pjit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 **options)
    for what, given in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
        for s in _leaves(given):       # (checked when made, as JAX's; a mesh comes later)
            if isinstance(s, PartitionSpec):
                check_unique_axes(s, what)
    if not any(s is None or isinstance(s, PartitionSpec)
               for s in _leaves(in_shardings) + _leaves(out_shardings)):
        # (no device nor backend: the block's mesh applies; one given: jit's, as JAX's)
        made = _in_mesh_block if options.get("device") is None and \
            options.get("backend") is None else jit
        found = made(fun, in_shardings=in_shardings, out_shardings=out_shardings, **options)
        # (a pjit's committed arguments must lie on the devices of the `with mesh:` block it
        # is called in: JAX's error names "jit's context mesh")
        found._pjit = True
        return found
    return _Pjit(fun, in_shardings, out_shardings, options)


# jit's options and their defaults, which a pjit's function takes as jit(fun, ...) does
_JIT_OPTIONS = {name: p.default for name, p in inspect.signature(jit).parameters.items()
                if p.kind is p.KEYWORD_ONLY}


class _PjitInMeshBlock(Jitted):
    """A pjit with no shardings given: jit's function whose calls, traces and lowerings inside
    a `with mesh:` block run as under set_mesh of that mesh. JAX's pjit traces and places its
    program under its resource mesh (`_internal_use_concrete_mesh(ctx_mesh)`), so it runs over
    the mesh's devices, its results committed there (P() where nothing splits them), where
    jit's runs on one device. Its calls take jit's: outside a block, the C fast path's hits
    too; inside one, whose config generation is its own (Mesh.__enter__), none of the hits
    made outside, and its Python call adds the block's mesh. Made as `jit(fun, ...)` makes
    its function, from jit's options."""

    def __init__(self, fun, **options):
        unknown = [name for name in options if name not in _JIT_OPTIONS]
        if unknown:                 # (jit's own error: pjit passes its options on to jit's)
            raise TypeError(f"jit() got an unexpected keyword argument {unknown[0]!r}")
        o = {**_JIT_OPTIONS, **options}
        check_callable(fun)
        super().__init__(fun, o["static_argnums"], o["static_argnames"], o["donate_argnums"],
                         o["donate_argnames"], o["backend"], o["device"], o["inline"],
                         o["keep_unused"], in_shardings=o["in_shardings"],
                         out_shardings=o["out_shardings"],
                         compiler_options=o["compiler_options"])

    def _python_call(self, *args, **kwargs):
        if legacy_mesh() is None:
            return Jitted._python_call(self, *args, **kwargs)
        with _block_mesh():
            return Jitted._python_call(self, *args, **kwargs)

    if native is None:                  # (else the C base's call, which falls back to it)
        __call__ = _python_call

    def trace(self, *args, **kwargs):
        with _block_mesh():
            return super().trace(*args, **kwargs)

    def lower(self, *args, **kwargs):
        with _block_mesh():
            return super().lower(*args, **kwargs)

    def eval_shape(self, *args, **kwargs):
        with _block_mesh():
            return super().eval_shape(*args, **kwargs)


# made behind jit's api_boundary, as jit(fun, ...) makes its function: an error in the options
# leaves with jxkernel's frames filtered out of its traceback
_in_mesh_block = api_boundary(_PjitInMeshBlock)


@contextlib.contextmanager
def _block_mesh():
    """set_mesh of the `with mesh:` block's mesh where one is entered and no set_mesh is."""
    mesh = legacy_mesh()
    if mesh is None or mesh.empty or on_context_mesh():
        yield
    else:
        with set_mesh(mesh):
            yield


def _leaves(shardings) -> list:
    if shardings is None:
        return [None]
    if isinstance(shardings, (tuple, list)):
        return [leaf for s in shardings for leaf in _leaves(s)]
    if isinstance(shardings, dict):
        return [leaf for s in shardings.values() for leaf in _leaves(s)]
    return [shardings]


class _Pjit:
    """A pjit whose None shardings and bare PartitionSpecs depend on the `with mesh:` block of
    each call (JAX's pjit reads that mesh, jit set_mesh's): one jit per such mesh (and the
    plain one outside any, where a bare PartitionSpec raises JAX's pjit error)."""

    def __init__(self, fun, in_shardings, out_shardings, options):
        functools.update_wrapper(self, fun)
        self._fun, self._given, self._options = fun, (in_shardings, out_shardings), options
        self._jits = {}

    def _jit(self):
        mesh = legacy_mesh()
        found = self._jits.get(mesh)
        if found is None:
            def replicated(s):
                return NamedSharding(mesh, PartitionSpec()) if s is None else \
                    NamedSharding(mesh, s) if isinstance(s, PartitionSpec) else s
            if mesh is None:
                for what, given in zip(("in_shardings", "out_shardings"), self._given):
                    spec = next((s for s in _leaves(given) if isinstance(s, PartitionSpec)),
                                None)
                    if spec is not None:
                        raise bare_spec_error(spec, f"pjit's {what}")
            shardings = self._given if mesh is None else [
                replicated(None) if given is None else
                tree_map(replicated, given, is_leaf=lambda s: s is None)
                for given in self._given]
            found = self._jits[mesh] = jit(self._fun, in_shardings=shardings[0],
                                           out_shardings=shardings[1], **self._options)
            found._pjit = True
        return found

    def __call__(self, *args, **kwargs):
        return self._jit()(*args, **kwargs)

    def __getattr__(self, name):        # lower, trace, eval_shape, ...: the call's jit's
        return getattr(self._jit(), name)
