"""The transformation laws over the jnp API, for test_transforms_numpy*.py: a case is a function
and an input spec per array argument; for each case

* vmap: `vmap(f, in_axes)(xs)` equals stacking `f(x)` over the examples (dtype, shape and
  weak type too), with every argument mapped at 1 in one vmap and at -1 in another (a mix of
  1, -1 and 0 with several arguments), and with several arguments, each one unmapped (None)
  in turn; the second vmap is `vmap(jit(f), out_axes=-1)`, all of them run under one `jit`
  (so `jit(vmap(f))`), and a nested `vmap(vmap(f))` maps at 0 and mixed axes, with one
  argument mapped by the inner vmap only;
* grads: `check_grads(order=2, modes=("fwd", "rev"))` over the float arguments (complex ones
  as real and imaginary parts), or, for functions that are flat or integer-valued, zero
  tangents and cotangents;
* for a subset: `vmap(grad(f))` and `grad(sum(vmap(f)))` equal per-example grads,
  `jacfwd(f) == jacrev(f)`, and check_grads through jnp's jit wrappers.

Speed: compiling dominates. The vmap forms and f on each example all go into one jitted
program per case (f once, mapped over the examples by lax.map), whose outputs are concatenated
so that XLA fuses what it can (a kernel per form would compile several times slower); a
test's cases go 16 to a program, with one lax.map for all of them (_vmap_together). The
derivatives of f are taken with jnp's jitted functions inlined (`disable_jit`), not through
the jit primitive's rules (test_jit_path_grads covers those). test_grads evaluates op by op:
an eager op compiles one XLA program per (primitive, params, shapes), and the cases share a
few shapes, so those compiles are shared across the table; a table whose cases share few
(test_transforms_numpy_arrays) asks for check_grads_together instead. The batched grads and
the jacobians of a case, whose comparisons are within the case, compute as one program.
"""
import dataclasses
import re
import typing
import zlib

import numpy as np
import pytest
from compiled import LOOP_EMITTERS, jit_together
from grads_together import check_grads_together
from numerics import ELEMENTWISE, assert_allclose_ulp

import jxkernel as jax
import jxkernel.numpy as jnp
from jxkernel import lax
from jxkernel.transforms.ad_util import float0
from jxkernel.test_util import check_grads
from jxkernel.tree_util import tree_flatten, tree_map

B, B1 = 3, 2                  # batch sizes: the single vmaps (and the nested inner), the outer
B2 = B

# Input kinds: values kept away from kinks, poles and branch cuts (0, +-1, integers for most),
# so that finite differences are meaningful.
KINDS = {
    "x": lambda r, s: r.choice([-1.0, 1.0], s) * r.uniform(0.2, 0.9, s),  # |x| in (0.2, 0.9)
    "u": lambda r, s: r.uniform(-0.7, 0.7, s),                              # inside (-1, 1)
    "p": lambda r, s: r.uniform(0.5, 2.0, s),                               # positive
    "g": lambda r, s: r.uniform(1.2, 3.0, s),                               # > 1 (arccosh)
    "h": lambda r, s: r.uniform(0.1, 0.9, s),                               # inside (0, 1)
    "w": lambda r, s: r.standard_normal(s) * 2,                             # wide, any sign
    "i": lambda r, s: r.integers(-5, 6, s).astype(np.int32),
    "n": lambda r, s: r.integers(1, 6, s).astype(np.int32),                 # positive ints
    "b": lambda r, s: r.random(s) < 0.5,
    "c": lambda r, s: (r.uniform(-1, 1, s) + 1j * r.uniform(-1, 1, s)).astype(np.complex64),
    "e": lambda r, s: (r.choice([-1.0, 1.0], s) * r.uniform(0.2, 0.9, s)).astype(np.float16),
    "z": lambda r, s: r.integers(0, 256, s).astype(np.uint8),
}
FLOAT_KINDS = set("xupghw")
GRAD_KINDS = FLOAT_KINDS | {"c"}          # (float16 "e": finite differences too coarse)


def gen(spec: str, rng):
    """One example for a spec "KIND[N]:d0,d1" ("kN": ints in [0, N); "qN": distinct ints in
    [0, N); "x:" a scalar)."""
    kind, n, dims = re.fullmatch(r"([a-z])(\d*):([\d,]*)", spec).groups()
    shape = tuple(int(d) for d in dims.split(",") if d)
    if kind == "k":
        return rng.integers(0, int(n), shape).astype(np.int32)
    if kind == "q":
        return rng.permutation(int(n))[:int(np.prod(shape))].reshape(shape).astype(np.int32)
    v = np.asarray(KINDS[kind](rng, shape))
    return v.astype(np.float32) if kind in FLOAT_KINDS else v


def differentiable(spec: str) -> bool:
    return spec[0] in GRAD_KINDS


@dataclasses.dataclass
class Case:
    name: str
    fn: object
    specs: tuple
    grad: str | None          # "check" (check_grads), "zero" (flat or integer-valued), None
    vgrad: bool               # also vmap(grad(f)), grad(sum(vmap(f))), jacfwd vs jacrev
    jit_grad: bool            # also check_grads through JAX's jit wrappers (no disable_jit)
    gfn: object               # the function whose derivatives are checked (default fn)

    def param(self, xfail=None):
        marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
        return pytest.param(self, id=self.name, marks=marks)


def C(name, fn, *specs, grad="auto", vgrad=False, jit_grad=False, rtol=None, gfn=None,
      xfail=None):
    """A case as a pytest param; grad="auto" checks grads when some argument is a float.
    `rtol` is accepted for the tables written before the bounds went to ulps, and unused:
    floats compare within VMAP_ULPS / GRAD_ULPS of their own dtype (float16's ulp is the
    1e-3 those tables give their float16 cases)."""
    if grad == "auto":
        grad = "check" if any(map(differentiable, specs)) else None
    return Case(name, fn, specs, grad, vgrad, jit_grad, gfn).param(xfail)


def only(cases, pred, known=None):
    """The params of `cases` whose Case satisfies `pred` (marks kept); those named in
    `known` ({name: reason}) marked as strict expected failures."""
    known = known or {}
    return [pytest.param(c.values[0], id=c.id, marks=[*c.marks, pytest.mark.xfail(
        strict=True, reason=known[c.id])] if c.id in known else c.marks)
        for c in cases if pred(c.values[0])]


# ---------------------------------------------------------------- inputs
def examples(case: Case, count: int):
    """`count` examples per argument: [[arg0_ex0, ...], [arg1_ex0, ...], ...]."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    return [[gen(s, rng) for _ in range(count)] for s in case.specs]


def in_axes_variants(specs) -> list:
    """in_axes of the single vmaps: every argument at 1 in the first and at -1 in the second
    (a mix of 1, -1 and 0 with several arguments), and with several, each one unmapped (None)
    in turn; the nested vmap maps at 0 (nested_axes). Axis 1 of a scalar is its axis 0."""
    n = len(specs)
    variants = [tuple((1, -1, 0)[j % 3] for j in range(n)), tuple((-1, 0, 1)[j % 3]
                                                                    for j in range(n))]
    if n > 1:
        variants += [tuple(None if j == i else (0, 1, -1)[j % 3] for j in range(n))
                     for i in range(n)]
    fix = lambda ax, s: ax if ax is None or ax != 1 or s.split(":")[1] else 0
    out = []
    for v in variants:
        v = tuple(fix(ax, s) for ax, s in zip(v, specs))
        if v not in out:
            out.append(v)
    return out


def batch(exs, ax, idx):
    """The examples `exs[i] for i in idx` stacked along `ax` (None: example 0, unbatched)."""
    if ax is None:
        return exs[0]
    return np.stack([exs[i] for i in idx], ax if ax >= 0 else ax + exs[0].ndim + 1)


# ---------------------------------------------------------------- comparisons
def leaves(tree):
    return tree_flatten(tree)[0]


# Bounds in ulps of each output's dtype, measured at the output's largest finite |value| (an
# entry that cancels is only as exact as the terms'); integers and booleans compare exactly.
# vmap forms against f on each example, all in one jitted program: XLA vectorizes and fuses
# the batched and the unbatched computations differently (worst seen 2, float32: logspace on
# AVX-512 and AVX2, vdot on AVX; 1.5 complex64 vdot; float16 0: its ops round from float32)
VMAP_ULPS = {"float16": ELEMENTWISE, "bfloat16": ELEMENTWISE, "float32": ELEMENTWISE,
             "float64": ELEMENTWISE}
# per-example grads batched against one at a time, jacfwd against jacrev: the same derivative
# in another order (worst seen 1, float32: jacobians of hypot on every CPU, vmap(grad) of
# einsum on AVX)
GRAD_ULPS = {"float16": ELEMENTWISE, "bfloat16": ELEMENTWISE, "float32": ELEMENTWISE,
             "float64": ELEMENTWISE}


def assert_close(got, want, ulps, what):
    """Leafwise: dtype and shape exactly, floats within ulps[dtype] (complex: of its parts)."""
    got_l, want_l = leaves(got), leaves(want)
    assert len(got_l) == len(want_l), f"{what}: {len(got_l)} outputs != {len(want_l)}"
    for g, w in zip(got_l, want_l):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, f"{what}: dtype {g.dtype} != {w.dtype}"
        assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
        if g.dtype.kind in "biu" or g.dtype == float0:
            np.testing.assert_array_equal(g, w, err_msg=what)
            continue
        size = np.abs(w.astype(np.complex128))
        scale = size[np.isfinite(size)].max(initial=0)
        part = np.real(np.zeros((), w.dtype)).dtype.name
        # (on a GPU, the float32 dots inside run in TF32, rounded after the shapes: its bound)
        assert_allclose_ulp(g, w, ulps[part], scale=scale, err_msg=what, gpu="tf32")


def stacked(outs, axis=0):
    """Stack a list of per-example outputs (pytrees) leafwise."""
    return tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs], axis), *outs)


# ---------------------------------------------------------------- the checks
def nested_axes(n):
    """(outer, inner) in_axes of the nested vmap: argument 0 mapped at axis 1 by the outer
    vmap and 0 by the inner; argument 1 by the inner only; the others at 0 and -1."""
    outer = tuple((1, None, 0)[min(j, 2)] for j in range(n))
    inner = tuple((0, 0, -1)[min(j, 2)] for j in range(n))
    return outer, inner


def _out_last(f, axes):
    """vmap(jit(f), out_axes=-1), its batch axes moved back to the front."""
    mapped = jax.vmap(jax.jit(f), in_axes=axes, out_axes=-1)
    return lambda *xs: tree_map(lambda o: jnp.moveaxis(o, -1, 0), mapped(*xs))


def vmap_plan(case: Case):
    """(examples, [(label, transformation of f, its arguments, keys, batch rank)]): vmap for
    each in_axes variant (the second one as vmap(jit(f))) and the nested vmap. `keys` (B of
    them, or B1 * B2 in row-major order) say which examples f is applied to, to stack into
    the expected result: key (i, j) stands for f(arg0 example i, arg1 example j)."""
    f, exs = case.fn, examples(case, B)
    plan = []
    for k, axes in enumerate(in_axes_variants(case.specs)):
        args = [batch(e, ax, range(B)) for e, ax in zip(exs, axes)]
        keys = [tuple(0 if ax is None else b for ax in axes) for b in range(B)]
        form = (f"vmap(jit(f), in_axes={axes}, out_axes=-1)", _out_last(f, axes)) if k == 1 \
            else (f"jit(vmap(f, in_axes={axes}))", jax.vmap(f, in_axes=axes))
        plan.append((*form, args, keys, 1))
    # nested: at outer index b1 and inner b2, an argument mapped by both vmaps takes example
    # (b1 + b2) % B (rows differ, and f needs no more examples than above), one mapped by
    # the inner only takes example b2
    outer, inner = nested_axes(len(exs))
    pick = lambda o, b1, b2: b2 if o is None else (b1 + b2) % B
    args = []
    for e, o, i in zip(exs, outer, inner):
        rows = [batch([e[pick(o, b1, b2)] for b2 in range(B2)], i, range(B2))
                for b1 in range(B1 if o is not None else 1)]
        args.append(rows[0] if o is None else
                    np.stack(rows, o if o >= 0 else o + rows[0].ndim + 1))
    keys = [tuple(pick(o, b1, b2) for o in outer) for b1 in range(B1) for b2 in range(B2)]
    plan.append((f"vmap(vmap(f, {inner}), {outer})",
                 jax.vmap(jax.vmap(f, in_axes=inner), in_axes=outer), args, keys, 2))
    return exs, plan


def check_vmap(case: Case, together=None):
    """Every form of the plan against f applied to each example, all in one jitted program
    (one compile per case); dtypes, shapes and weak types too. The program returns each
    output concatenated over the forms and examples (batch dims flattened): XLA then fuses
    them into one kernel where it can, which compiles several times faster than a kernel
    (or a program) each. `together` (the test's list of params): the programs of all its
    cases are compiled together, _VMAP_CHUNK per program, f on all their examples by one
    lax.map (_vmap_together)."""
    done = _vmap_together(together) if together is not None else {}
    if id(case) in done:          # built and run with its test's other cases: checked here
        outs, finish = done[id(case)]
        finish(outs)
        return
    parts = _vmap_program(case)
    parts.finish(jax.jit(parts.program)(parts.form_args,
                                        [jnp.asarray(s) for s in parts.stacked]))


# Each case's program alone is one XLA compile (~35 ms of fixed cost, issue 45): the
# programs of a test's cases are outputs of one jitted program per chunk of cases, f on every
# case's examples by one lax.map (a loop of XLA's per case cost ~6 ms of its compile: stop
# 102, below). They share no values, so XLA compiles each case's kernels as it would alone.
# An expected failure runs alone, and so does each case of a chunk that fails to trace (a
# types check raises as its program is traced) or to compile. Measured (stop 102, -k
# "test_vmap and not grad" over both transforms files, the tests' CPU by --count-compiles,
# back to back): a loop per case, 32 cases per program 22.1-22.9 s, 8 per program 20.6-20.7 s
# (XLA's compile of the loop emitters' one LLVM module grows faster than the program); one
# loop per program, 32 16.9-17.4 s, 16 16.3-16.4 s, 8 16.8-17.0 s.
_VMAP_CHUNK = 16
_VMAP_DONE: dict = {}
# the loop emitters: these comparisons are within one program (see compiled.LOOP_EMITTERS)
_VMAP_XLA = LOOP_EMITTERS


def _vmap_together(params) -> dict:
    """{id(case): (its program's outputs, the checks of them)} for the cases of `params` run
    together (each case's program built once: its types checked, its forms traced)."""
    key = tuple(id(p.values[0]) for p in params)
    if key in _VMAP_DONE:
        return _VMAP_DONE[key]
    ready = []
    for p in params:
        if any(m.name == "xfail" for m in p.marks):
            continue
        try:
            parts = _vmap_program(p.values[0])
        except Exception:  # noqa: BLE001  (raises again alone, in its own test)
            continue
        ready.append((id(p.values[0]), parts))
    done = {}
    for start in range(0, len(ready), _VMAP_CHUNK):
        chunk = [parts for _, parts in ready[start:start + _VMAP_CHUNK]]
        try:
            # f on every case's examples in one lax.map: each case's rows padded to the
            # chunk's most with its first example, whose results are sliced off again
            rows = [len(parts.stacked[0]) for parts in chunk]
            padded = [[jnp.asarray(np.concatenate([s, np.repeat(s[:1], max(rows) - n, 0)]))
                       for s in parts.stacked] for parts, n in zip(chunk, rows)]

            def together(form_args, padded, chunk=chunk, rows=rows):
                f_outs = lax.map(lambda xs: [p.f_leaves(x) for p, x in zip(chunk, xs)], padded)
                return [p.assemble(a, [o[:n] for o in f_out])
                        for p, a, f_out, n in zip(chunk, form_args, f_outs, rows)]
            outs = jax.jit(together, compiler_options=_VMAP_XLA)(
                [parts.form_args for parts in chunk], padded)
            jax.block_until_ready(outs)
        except Exception:  # noqa: BLE001  (each runs alone)
            continue
        done.update((k, (out, parts.finish))
                    for (k, parts), out in zip(ready[start:start + _VMAP_CHUNK], outs))
    _VMAP_DONE[key] = done
    return done


class _VmapProgram(typing.NamedTuple):
    """A case's parts of check_vmap's program: `f_leaves(xs)` is f's outputs on one example
    (xs: one row of `stacked`), `assemble(form_args, f_outs)` the program's outputs from
    the forms (traced there) and f's outputs stacked over the rows, `finish(outs)` the
    checks of those outputs."""
    form_args: list
    stacked: list         # f's examples, stacked by argument (NumPy arrays)
    f_leaves: object
    assemble: object
    finish: object

    def program(self, form_args, stacked):
        """The case's program alone: f on its examples by a lax.map of its own."""
        return self.assemble(form_args, lax.map(self.f_leaves, stacked))


def _vmap_program(case: Case) -> _VmapProgram:
    """check_vmap's jitted program, in parts (_VmapProgram), and the checks of its outputs.
    The types of every form are checked as the program is traced, before it compiles (one
    trace: a separate eval_shape of the forms doubled test_vmap's tracing)."""
    exs, plan = vmap_plan(case)
    f = case.fn
    unique = list(dict.fromkeys(k for *_, keys, _ in plan for k in keys))
    form_args = [[jnp.asarray(a) for a in args] for _, _, args, _, _ in plan]
    # f on the examples as one copy of f in the program, run on each example in turn (lax.map:
    # a scan, f unbatched as when called alone): a copy per example made XLA compile f up to
    # 8 times per case (a sort or a scatter ~0.1 s each; test_vmap's CPU 21 -> 14 s)
    stacked = [np.stack([e[key[j]] for key in unique]) for j, e in enumerate(exs)]
    nbatch = [nb for *_, nb in plan] + [1]
    shapes = []           # the types of each form's outputs, set as the program is traced
    one = []              # f's types on one example (the examples share shapes and dtypes)

    def f_leaves(xs):
        out = leaves(f(*xs))
        one[:] = [jax.typeof(o) for o in out]
        return out

    def assemble(form_args, f_outs):
        outs = [leaves(fn(*a)) for (_, fn, *_), a in zip(plan, form_args)]
        outs.append(f_outs)
        ref = [(o.dtype, o.shape, o.weak_type) for o in one]
        shapes[:] = [[jax.typeof(o) for o in out] for out in outs[:-1]]
        for (label, *_), types, nb in zip(plan, shapes, nbatch):
            assert [(o.dtype, o.shape[nb:], o.weak_type) for o in types] == ref, \
                f"{label}: (dtype, shape, weak_type) of the outputs differ from f's"
        return [lax.concatenate([o[k].reshape((-1,) + o[k].shape[nb:])
                                 for o, nb in zip(outs, nbatch)], 0) for k in range(len(ref))]
    return _VmapProgram(form_args, stacked, f_leaves, assemble,
                        lambda outs: _check_vmap_outputs(plan, shapes, unique, outs))


def _check_vmap_outputs(plan, shapes, unique, outs):
    got = [np.asarray(o) for o in outs]
    n_forms = sum(len(keys) for *_, keys, _ in plan)
    per_key = {k: [g[n_forms + i] for g in got] for i, k in enumerate(unique)}
    start = 0
    for (label, _, _, keys, _), outs in zip(plan, shapes):
        size = len(keys)
        want = [np.stack([per_key[k][leaf] for k in keys]).reshape(o.shape)
                for leaf, o in enumerate(outs)]
        assert_close([g[start:start + size].reshape(o.shape) for g, o in zip(got, outs)],
                     want, VMAP_ULPS, label)
        start += size


def float_args(case: Case, exs, which=0):
    """(g, floats): the grad function over the float arguments only (others fixed)."""
    fn = case.gfn or case.fn
    pos = [j for j, s in enumerate(case.specs) if differentiable(s)]
    fixed = [jnp.asarray(e[which]) for e in exs]

    def g(*floats):
        args = list(fixed)
        for j, v in zip(pos, floats):
            args[j] = jnp.asarray(v)       # finite differences call g with NumPy arrays
        return fn(*args)
    return g, pos


def real_view(g, args):
    """(h, real args): g with each complex argument given as its (real, imag) parts and each
    complex output returned as (real, imag), so that derivatives through complex functions
    are checked with real inner products."""
    is_c = [np.iscomplexobj(x) for x in args]
    flat = [p for x, c in zip(args, is_c) for p in ((x.real, x.imag) if c else (x,))]

    def h(*xs):
        it = iter(xs)
        out = g(*[lax.complex(next(it), next(it)) if c else next(it) for c in is_c])
        return tree_map(lambda o: (jnp.real(o), jnp.imag(o)) if jnp.iscomplexobj(o) else o, out)
    return h, tuple(flat)


def grad_inputs(case: Case):
    """(g, floats): the function whose derivatives test_grads checks, and where."""
    exs = examples(case, 1)
    g, pos = float_args(case, exs)
    return real_view(g, tuple(exs[j][0] for j in pos))


def check_grads_case(case: Case):
    g, floats = grad_inputs(case)
    if case.grad == "check":
        # the rules' own check (differences in float64 over a half span): JAX's check_grads
        # (public API, as JAX's) steps 1e-4 in float32, too coarse for a second order of
        # nn.standardize(axis=0) and the like
        check_grads_together(g, floats, order=2, modes=("fwd", "rev"))
        return
    # "zero": zero tangents (float0 ones for integer outputs: test_integer_output_tangents),
    # and zero cotangents
    tangents = tuple(np.ones_like(x) for x in floats)
    out, out_t = jax.jvp(g, floats, tangents)
    for t in map(np.asarray, leaves(out_t)):
        assert t.dtype == float0 or not np.any(t), f"nonzero tangent {t}"
    out, pullback = jax.vjp(g, *floats)
    ct = tree_map(lambda o: np.zeros(np.shape(o), float0) if np.asarray(o).dtype.kind in "biu"
                  else np.ones_like(np.asarray(o)), out)
    for c in pullback(ct):
        assert not np.any(np.asarray(c)), f"nonzero cotangent {c}"


def first_float(out):
    """The first inexact output of a pytree of outputs, as a real array."""
    return jnp.real([o for o in leaves(out) if jnp.issubdtype(o.dtype, jnp.inexact)][0])


def scalar_loss(g):
    """A weighted sum of g's first float output: a scalar to take grad of."""
    def loss(*xs):
        out = first_float(g(*xs))
        return jnp.sum(out * (1.0 + jnp.arange(out.size).reshape(out.shape) / 7))
    return loss


def op_by_op(calls):
    """{key: fun(*args)} for `calls` ({key: (fun, args)}), evaluated as they come (under
    disable_jit: each primitive compiled once per shape, shared by the table's cases)."""
    return {k: fun(*args) for k, (fun, args) in calls.items()}


def together(calls):
    """op_by_op's results computed as one program (compiled.jit_together; jnp's jitted
    functions inlined as op by op): the comparisons are within it, so the loop emitters."""
    return jit_together(jax, {k: (_op_by_op(fun), args) for k, (fun, args) in calls.items()},
                        chunk=max(1, len(calls)), compiler_options=LOOP_EMITTERS)


def check_vmap_grad(case: Case, evaluate=op_by_op):
    """Per-example gradients two ways against grads taken one example at a time:
    vmap(grad(loss)) over a batch of the float arguments (at 0 and -1 alternating; the
    others fixed), and grad of the summed vmap(loss). `evaluate`: op_by_op or together."""
    exs = examples(case, B)
    g, pos = float_args(case, exs)
    loss = scalar_loss(g)
    grad = jax.grad(loss, argnums=tuple(range(len(pos))))
    axes = tuple((0, -1)[k % 2] for k in range(len(pos)))
    args = [batch(exs[j], ax, range(B)) for j, ax in zip(pos, axes)]
    calls = {b: (grad, [exs[j][b] for j in pos]) for b in range(B)}
    calls["vmap"] = (jax.vmap(grad, in_axes=axes), args)
    calls["summed"] = (jax.grad(lambda *xs: jnp.sum(jax.vmap(loss, in_axes=axes)(*xs)),
                                argnums=tuple(range(len(pos)))), args)
    got = evaluate(calls)
    want = stacked([got[b] for b in range(B)])
    assert_close(got["vmap"], want, GRAD_ULPS, "vmap(grad(f))")
    assert_close(got["summed"], [np.moveaxis(w, 0, ax) for w, ax in zip(want, axes)],
                 GRAD_ULPS, "grad(sum(vmap(f)))")


def check_jacobians(case: Case, evaluate=op_by_op):
    """jacfwd(f) == jacrev(f) (both built on vmap) for f's first float output."""
    exs = examples(case, 1)
    g, pos = float_args(case, exs)
    out = lambda *xs: first_float(g(*xs))
    x0 = [exs[j][0] for j in pos]
    argnums = tuple(range(len(pos)))
    got = evaluate({"fwd": (jax.jacfwd(out, argnums), x0), "rev": (jax.jacrev(out, argnums), x0)})
    assert_close(got["fwd"], got["rev"], GRAD_ULPS, "jacfwd(f) vs jacrev(f)")


# ---------------------------------------------------------------- test bodies
def run_grad_test(case: Case):
    with jax.disable_jit():
        check_grads_case(case)


# One program per case: the alternatives measured (test_transforms_numpy_arrays -k test_grads,
# CPU user+sys on a loaded 2-core Xeon, where this one took 22.5-28.3 s from run to run) were
# no faster: 12 or 32 cases per program 26.2 and 28.3 s (XLA's compile of the loop emitters'
# single LLVM module grows faster than the program); a case's evaluations 8 or 5 per program
# 28.4 and 32.0 s (against 24.0 s side by side); each function's evaluations as one nested jit
# sharing its trace 28.9 s; eval_shape's traces of the derivatives replaced by their known
# shapes 28.6 s (against 28.3 s side by side).
def run_grad_test_together(case: Case):
    """run_grad_test's check_grads as check_grads_together: the same checks, with all of its
    evaluations in one program per case (jnp's jit wrappers still inlined, as op by op).
    Cases with an integer output keep op by op (a jitted jvp cannot return float0)."""
    g, floats = grad_inputs(case)
    if case.grad != "check" or not all(
            jnp.issubdtype(o.dtype, jnp.inexact) for o in leaves(jax.eval_shape(g, *floats))):
        run_grad_test(case)
        return
    check_grads_together(_op_by_op(g), floats, order=2, modes=("fwd", "rev"))


def _op_by_op(g):
    """g with jnp's jitted functions run inline (disable_jit) while it is traced."""
    def inline(*xs):
        with jax.disable_jit():
            return g(*xs)
    return inline


def run_vmap_grad_test(case: Case):
    with jax.disable_jit():
        check_vmap_grad(case)


def run_vmap_grad_test_together(case: Case):
    check_vmap_grad(case, together)


def run_jacobian_test(case: Case):
    with jax.disable_jit():
        check_jacobians(case)


def run_jacobian_test_together(case: Case):
    check_jacobians(case, together)


def run_jit_path_grad_test(case: Case):
    """check_grads with jnp's jit wrappers on: the transformations of the jit primitive."""
    exs = examples(case, 1)
    g, pos = float_args(case, exs)
    # second order in float32 by JAX's step (1e-4, in float32): float32 loosened to 1e-2, as
    # JAX's own tests do for such checks (lax_autodiff_test.py's grad_tol)
    tol = {np.float32: 1e-2, np.complex64: 1e-2}
    check_grads(*real_view(g, tuple(exs[j][0] for j in pos)), order=2, modes=("fwd", "rev"),
                atol=tol, rtol=tol)


def transform_tests(cases, grads_together=False):
    """The tests over a table of cases, which a test file binds under their names:
    `test_vmap, test_grads, test_vmap_of_grad, test_jacobians, test_jit_path_grads =
    transform_tests(CASES)` (pytest names a test by the module attribute, so the ids are the
    file's own). vmap for every case; the derivative checks for the cases that ask for them.
    `grads_together`: test_grads by check_grads_together, for a table where that was measured
    to pay (op by op, cases that share primitives and shapes share their compiles)."""
    def test(run, pred=None):
        @pytest.mark.parametrize("case", cases if pred is None else only(cases, pred))
        def test_case(case):
            run(case)
        return test_case

    @pytest.mark.parametrize("case", cases)
    def test_vmap(case):
        check_vmap(case, together=cases)
    grads = run_grad_test_together if grads_together else run_grad_test
    return (test_vmap, test(grads, lambda c: c.grad),
            test(run_vmap_grad_test_together, lambda c: c.vgrad),
            test(run_jacobian_test_together, lambda c: c.vgrad),
            test(run_jit_path_grad_test, lambda c: c.jit_grad))
