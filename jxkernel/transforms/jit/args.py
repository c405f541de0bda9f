"""What `jit` (and make_jaxpr) do with their arguments before tracing: static and donated
argnums and argnames checked and filled in from each other (`Arguments`), a readable name per
argument leaf, and a leaf's type.

    >>> infer_argnums_and_argnames((0,), None, ["x", "n"])
    ({0}, {'x'})
"""
from __future__ import annotations

import dataclasses
import inspect   # (the docstring examples use it)
import re

import numpy as np

from ...core import dtypes
from ...core.config import config
from ...core.avals import ShapedArray, ShapeDtypeStruct, python_scalar_aval, shaped_abstractify
from ...core.avals import Token, abstract_token, get_aval, typeof_rules
from ...core.earray import constant_handlers  # noqa: F401 (jit.py's: closed-over classes)
from ...core.errors import (jax_array_abstractified, jax_type_text, provenance,
                            shapes_only_error)
from ...core.hijax import AvalQDD, cur_qdd, hi_value_types
from ...core.mesh import (UNCONSTRAINED, UNSPECIFIED, NamedSharding, PartitionSpec,
                          check_unique_axes)
from ...core.staging import is_ref
from ...core.symbolic import is_symbolic, symbolic_as_value
from ...core.trace import Tracer
from ...core.traceback_util import from_jaxs_c_call
from ...xla.array import ArrayImpl
from ...xla.layout import (AutoLayout, Format, Layout, check_layout_ranks, jit_layouts,
                           jit_sharding_of)
from ...xla.transfers import arguments_on, foreign_argument, shard_arg_handlers
from ...tree_util import (DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey, broadcast_prefix,
                          keystr, prefix_errors, tree_flatten, tree_flatten_with_path, tree_map,
                          tree_unflatten)
from ..api_util import PytreeLeaf, ensure_index_tuple, not_an_args_tuple


def as_tuple(x) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, (int, str)) else tuple(x)


def argnum_tuple(x) -> tuple:
    """static_argnums or donate_argnums as a tuple of ints (None: none), refused as JAX's
    _ensure_index_tuple refuses 1.5 or "x" (Python's TypeError) before anything else."""
    return () if x is None else ensure_index_tuple(x)


def check_argnums(signature, argnums: tuple, what: str) -> None:
    """As JAX: an argnum must name a positional parameter (any does if fun takes *args).

    >>> check_argnums(inspect.signature(lambda x: x), (1,), "static_argnums")
    Traceback (most recent call last):
    ValueError: Jitted function has static_argnums=(1,), but only accepts 1 positional arguments.
    """
    if signature is None or not argnums:
        return
    params = signature.parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if -min(argnums) > n or max(argnums) >= n:
        raise ValueError(f"Jitted function has {what}={argnums}, but only accepts {n} "
                         f"positional arguments.")


def static_key(args, kwargs, at, names=None) -> tuple:
    """A call's static arguments as jit's fast paths key them: () where none is passed, else
    the keyword names, the static values (the positional ones at `at`, sorted positions,
    then the keywords', all of them or, given the static `names`, those in call order) and
    their types. Typed as JAX's tree_util.Static compares them:
    f(x, True) and f(x, 1), f(x, 2.0) and f(x, 2) with n static are two programs (a plain
    tuple took them for one, and ran the program traced for True on 1). A plain tuple, so
    that a hit compares it in C (a tuple subclass with its own __eq__ cost each hit a Python
    call, 0.8 µs of a static jit's 9); the compiled fast path (core/_fastpath.c,
    `static_key`) builds the same tuple to find the call's last hit.

        >>> static_key((0.5, True), {}, (1,)) == static_key((0.5, 1), {}, (1,))
        False
        >>> static_key((0.5, 3), {"n": 2}, (1,))
        (('n',), 3, 2, <class 'int'>, <class 'int'>)
        >>> static_key((0.5,), {"y": 0.5, "n": 2}, (), names={"n"})
        (('y', 'n'), 2, <class 'int'>)
    """
    values = [args[i] for i in at if i < len(args)]
    if kwargs:
        values += kwargs.values() if names is None else \
            [v for k, v in kwargs.items() if k in names]
    elif not values:
        return ()
    return (tuple(kwargs), *values, *map(type, values))


class Statics(tuple):
    """Arguments.split's (name, value, position) triples, whose values also compare by type
    (as `static_key`'s)."""
    __slots__ = ()

    def __eq__(self, other):
        # types first: a value's __eq__ is only asked of one of its own type (JAX's), and
        # an error it raises is JAX's ValueError
        if len(self) != len(other) or \
                any(type(a[1]) is not type(b[1]) for a, b in zip(self, other)):
            return False
        for a, b in zip(self, other):
            try:
                if not a == b:
                    return False
            except Exception as e:      # noqa: BLE001 (any error of a user's __eq__)
                raise ValueError(f"static arguments should be comparable using __eq__.The "
                                 f"following error was raised when comparing two objects of "
                                 f"types {type(a[1])} and {type(b[1])}. The error was:\n"
                                 f"{type(e).__name__}: {e}") from None
        return True

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__


def check_argnames(signature, argnames: tuple, what: str) -> None:
    """As JAX: an argname must name a parameter passable by keyword (any but a positional-only
    one does when the function takes **kwargs)."""
    if signature is None or not argnames:
        return
    params = signature.parameters
    keyword = {n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    not_keyword = {n for n, p in params.items() if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)}
    if invalid := not_keyword & set(argnames):
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {what}. These are "
                         f"positional-only")
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    if invalid := set(argnames) - keyword:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {what}. Function "
                         f"does not take these args.")


def infer_argnums_and_argnames(argnums, argnames, positional):
    """JAX accepts static args by position or by name and fills in the other; given
    both, it takes them as they are (Flax's lifted jit passes both, for a function
    whose signature is not the one it jits)."""
    both = argnums is not None and argnames is not None
    argnums, argnames = argnum_tuple(argnums), as_tuple(argnames)
    nums = {int(i) + len(positional) if int(i) < 0 else int(i) for i in argnums}
    names = set(argnames)
    if both:
        return nums, names
    for i in list(nums):
        if 0 <= i < len(positional):     # (past them: *args' entries, which have no name)
            names.add(positional[i])
    for n in list(names):
        if n in positional:
            nums.add(positional.index(n))
    return nums, names


def infer_by_signature(signature, argnums, argnames) -> tuple:
    """JAX's api_util.infer_argnums_and_argnames: (argnums, argnames) as tuples, the one not
    given filled in from `signature`'s positional-or-keyword parameters; both given, or
    neither, taken as they are.

    >>> infer_by_signature(inspect.signature(lambda x, y=1: x), None, "y")
    ((1,), ('y',))
    """
    if argnums is None and argnames is None:
        return (), ()
    if argnums is not None and argnames is not None:
        return argnum_tuple(argnums), as_tuple(argnames)
    by_keyword = [(i, name) for i, (name, p) in enumerate(signature.parameters.items())
                  if p.kind is p.POSITIONAL_OR_KEYWORD]
    if argnums is None:
        argnames = as_tuple(argnames)
        return tuple(i for i, name in by_keyword if name in argnames), argnames
    argnums = argnum_tuple(argnums)
    return argnums, tuple(name for i, name in by_keyword if i in argnums)


def no_signature_error(fun) -> ValueError:
    """JAX's refusal of donate_argnames for a function whose signature cannot be read."""
    return ValueError(f"Getting the signature of function {fun} failed. Pass donate_argnums "
                      f"instead of donate_argnames.")


def resolve_argnums(fun, signature, donate_argnums, donate_argnames, static_argnums,
                    static_argnames) -> tuple:
    """JAX's api_util.resolve_argnums: (donate_argnums, donate_argnames, static_argnums,
    static_argnames), each filled in from the other and checked against `signature` (None:
    taken unchecked, and donate_argnames refused)."""
    if signature is None:
        if donate_argnames is not None:
            raise no_signature_error(fun)
        return (argnum_tuple(donate_argnums), (), argnum_tuple(static_argnums),
                as_tuple(static_argnames))
    static_argnums, static_argnames = infer_by_signature(signature, static_argnums,
                                                         static_argnames)
    donate_argnums, donate_argnames = infer_by_signature(signature, donate_argnums,
                                                         donate_argnames)
    for what, nums, names in (("static", static_argnums, static_argnames),
                              ("donate", donate_argnums, donate_argnames)):
        check_argnums(signature, nums, f"{what}_argnums")
        check_argnames(signature, names, f"{what}_argnames")
    if both := set(static_argnames) & set(donate_argnames):
        raise ValueError(f"static_argnames and donate_argnames cannot intersect. Argument "
                         f"names {both} appear in both static_argnames and donate_argnames")
    return donate_argnums, donate_argnames, static_argnums, static_argnames


class Arguments:
    """How a jitted function takes its arguments: which are static and which donated (by
    position and by name, each filled in from the other), and a readable name per leaf.

        >>> a = Arguments("f", inspect.signature(lambda x, n: x), (1,), None, None, None)
        >>> a.split((1.0, 3), {})
        ((1.0,), {}, (('n', 3, 1),))
    """

    def __init__(self, name, signature, static_argnums, static_argnames, donate_argnums,
                 donate_argnames, fun=None):
        self.name, self.fun = name, fun
        params = list(signature.parameters.values()) if signature else []
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.positional = positional
        # *args' name: its leaves are "xs[0]", "xs[1]", ... as JAX's debug info names them
        self.varargs = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
        if signature is None and donate_argnames is not None:
            raise no_signature_error(fun)
        for what, nums, names in (("static", static_argnums, static_argnames),
                                  ("donate", donate_argnums, donate_argnames)):
            check_argnums(signature, argnum_tuple(nums), f"{what}_argnums")
            check_argnames(signature, as_tuple(names), f"{what}_argnames")
        static_argnums, static_argnames = infer_argnums_and_argnames(
            static_argnums, static_argnames, positional)
        donate_argnums, donate_argnames = infer_argnums_and_argnames(
            donate_argnums, donate_argnames, positional)
        self.static_argnums = frozenset(static_argnums)
        self.static_argnames = frozenset(static_argnames)
        self.donate_argnums = frozenset(donate_argnums)
        self.donate_argnames = frozenset(donate_argnames)
        if self.static_argnames & self.donate_argnames:
            raise ValueError(f"static_argnames and donate_argnames cannot intersect. Argument "
                             f"names {set(self.static_argnames & self.donate_argnames)} appear "
                             f"in both static_argnames and donate_argnames")
        # (argnums both static and donated, which only *args or a function without a
        # signature leaves unnamed: JAX's jit takes them static, donating nothing there)

    def split(self, args, kwargs):
        """(dynamic args, dynamic kwargs, static (name, value, position or None) triples)."""
        if shard_arg_handlers:         # a library's array classes among them: their EArrays
            args, kwargs = tree_map(foreign_argument, (args, kwargs))
        statics = []
        if self.static_argnums:
            dyn_args = []
            for i, a in enumerate(args):
                if i in self.static_argnums:
                    statics.append((self.arg_name(i), a, i))
                else:
                    dyn_args.append(a)
            dyn_args = tuple(dyn_args)
        else:
            dyn_args = args
        if kwargs:
            dyn_kwargs = {}
            # passed by keyword: given back by keyword, keyed in name order (as JAX's, which
            # sorts a call's keywords: f(x, n=1, m=2) and f(x, m=2, n=1) are one program)
            for k, v in sorted(kwargs.items()) if len(kwargs) > 1 else kwargs.items():
                if k in self.static_argnames:
                    statics.append((k, v, None))
                else:
                    dyn_kwargs[k] = v
        else:
            dyn_kwargs = kwargs
        if statics:
            for name, value, pos in statics:
                try:
                    hash(value)
                except TypeError as e:
                    kind, why = unhashable_as_jax(value, e)
                    own = _is_jxkernel_own(self.fun)
                    # JAX 0.10.2's words alone, which name neither the argument nor the
                    # function: the notebook's card reads them from the attributes below
                    error = ValueError(
                        f"Non-hashable static arguments are not supported. An error "
                        f"occurred while trying to hash an object of type {kind}, "
                        f"{value}. The error was:\nTypeError: "
                        f"{why.splitlines()[0] if own else why}\n")
                    error.function, error.value, error.position = self.fun, value, pos
                    if own:
                        # a jnp function's inner jit (jnp.digitize's `right`): its card names
                        # the jnp function's argument and where the traced value came from
                        error.argument = name
                        error.provenance = provenance(value) if isinstance(value, Tracer) \
                            else None
                    else:
                        # the learner's jit: the static card names the argument and its
                        # function, and says what to pass instead (static.py)
                        error.static_argument, error.function_name = name, self.name
                        error.advice = _unhashable_advice(name, value, pos)
                    raise from_jaxs_c_call(error) from None
        return dyn_args, dyn_kwargs, Statics(statics)

    def arg_name(self, i) -> str:
        if i < len(self.positional):
            return self.positional[i]
        if self.varargs is not None:
            return f"{self.varargs}[{i - len(self.positional)}]"
        return f"args[{i}]"

    def dynamic_names(self, args) -> tuple:
        """The name of each positional argument passed to the traced function (the statics
        taken out): the recompile notes name an argument with no leaves (None, then ()) by it.

            >>> Arguments("f", inspect.signature(lambda x, n, y: x), (1,), None, None,
            ...           None).dynamic_names((1.0, None))
            ('x', 'y')
        """
        positions = [i for i in range(len(args) + len(self.static_argnums))
                     if i not in self.static_argnums][:len(args)]
        return tuple(self.arg_name(pos) for pos in positions)

    def leaf_names(self, args, kwargs) -> tuple:
        """A readable name per flat input, e.g. "params['w']" (only computed on a miss)."""
        names = []
        for name, a in zip(self.dynamic_names(args), args):
            names.extend(name + _arg_keystr(p) for p, _ in tree_flatten_with_path(a)[0])
        for k in sorted(kwargs):
            names.extend(k + _arg_keystr(p) for p, _ in tree_flatten_with_path(kwargs[k])[0])
        return tuple(names)

    def donated_leaves(self, args, kwargs) -> tuple:
        # none while jax_debug_nans is on, as JAX's jit: its rerun after a NaN
        # (check_jitted_values) calls the function again on the same arguments
        if not (self.donate_argnums or self.donate_argnames) or config.jax_debug_nans:
            return ()
        flags = []
        positions = [i for i in range(len(args) + len(self.static_argnums))
                     if i not in self.static_argnums][:len(args)]
        for pos, a in zip(positions, args):
            flags += [pos in self.donate_argnums] * len(tree_flatten(a)[0])
        for k in sorted(kwargs):
            flags += [k in self.donate_argnames] * len(tree_flatten(kwargs[k])[0])
        return tuple(flags)


_FLAT_INDEX = re.compile(r"<flat index ([^>]+)>")


def _arg_keystr(path) -> str:
    """A leaf's key path in an argument's name as JAX 0.10.2's debug info writes it
    (linear_util._clean_keystr_arg_names): a register_pytree_node child "[1]", not keystr's
    "[<flat index 1>]".

        >>> _arg_keystr((FlattenedIndexKey(1),))
        '[1]'
    """
    return _FLAT_INDEX.sub(r"\1", keystr(path))


def result_paths(out_tree) -> list:
    """A name per flat result, as JAX's `jax.result_info` gives them ("result",
    "result[0]", "result['w']"); computed on a compile, not a call.

        >>> result_paths(tree_flatten({"a": 1, "b": (2, 3)})[1])
        ["result['a']", "result['b'][0]", "result['b'][1]"]
    """
    try:
        example = tree_unflatten(out_tree, [0] * out_tree.num_leaves)
    except Exception:       # noqa: BLE001 (a custom node's unflatten may need its arrays)
        return ["result" + keystr(path) for path in _key_paths(out_tree)]
    return ["result" + keystr(path) for path, _ in tree_flatten_with_path(example)[0]]


def not_a_jax_type(where: str, value, i: int, out_tree, traced_for: str = "jit") -> TypeError:
    """JAX's error for a traced function's result `i` (of `out_tree`) of no JAX type, naming
    the output component where there are several ("at output component [1]") and what traced
    it (`traced_for`: "jit", or a loop body's "scan", "while_body", ...); a
    ShapeDtypeStruct's is JAX's refusal of it as a constant (JAX traces one as a constant
    and refuses it lowering the program; jxkernel refuses it tracing: jit's call, trace and
    lower raise this)."""
    if isinstance(value, ShapeDtypeStruct):
        return TypeError("A ShapeDtypeStruct does not have a value and cannot be used as a "
                         "constant in a JAX function.")
    path = result_paths(out_tree)[i].removeprefix("result") if out_tree is not None else ""
    extra = f" at output component {path}" if path else ""
    return TypeError(f"function {where} traced for {traced_for} returned a value of type "
                     f"{type(value)}{extra}, which is not a valid JAX type")


def _key_paths(treedef, prefix=()) -> list:
    """The key paths of `treedef`'s leaves, read from the structure alone: a custom node's
    children by their flat index, as JAX names those of register_pytree_node's nodes."""
    data = treedef.node_data()
    if data is None:
        return [prefix]
    kind, aux = data
    children = treedef.children()
    if kind is dict:
        keys = [DictKey(k) for k in aux]
    elif kind in (tuple, list):
        keys = [SequenceKey(i) for i in range(len(children))]
    elif hasattr(kind, "_fields"):
        keys = [GetAttrKey(f) for f in kind._fields]
    else:
        keys = [FlattenedIndexKey(i) for i in range(len(children))]
    return [path for key, child in zip(keys, children)
            for path in _key_paths(child, (*prefix, key))]


def python_value_of(name: str, ndim: int) -> str:
    """The hashable Python value of an array `name` of rank `ndim`, as code: tuple() of a
    rank-0 array's tolist() fails (a bool or a number is not iterable), and a rank-2 one's
    rows are lists, unhashable.

        >>> python_value_of("flag", 0), python_value_of("shape", 1)
        ('flag.item()', 'tuple(shape.tolist())')
    """
    if ndim == 0:
        return f"{name}.item()"
    if ndim == 1:
        return f"tuple({name}.tolist())"
    if ndim == 2:
        return f"tuple(map(tuple, {name}.tolist()))"
    return f"a nested tuple of {name}.tolist()"


def unhashable_as_jax(value, error: TypeError) -> tuple:
    """(the type, hash's error) of an unhashable static argument as JAX's ValueError writes
    them: an Array's class is jaxlib's to JAX (`<class 'jaxlib._jax.ArrayImpl'>`, "unhashable
    type: 'jaxlib._jax.ArrayImpl'"), the name a learner finds in JAX's docs and issues; any
    other value's type as Python writes it.

        >>> unhashable_as_jax([1], TypeError("unhashable type: 'list'"))
        ("<class 'list'>", "unhashable type: 'list'")
    """
    if isinstance(value, ArrayImpl):
        return f"<class '{_JAX_ARRAY_CLASS}'>", f"unhashable type: '{_JAX_ARRAY_CLASS}'"
    kind = type(value)
    module = _JAX_CLASS_MODULES.get(kind.__name__)
    if module is not None and kind.__module__.startswith("jxkernel."):   # not a user's class
        return f"<class '{module}.{kind.__name__}'>", str(error)    # where JAX 0.10.2 keeps it
    return str(kind), str(error)


_JAX_ARRAY_CLASS = "jaxlib._jax.ArrayImpl"     # JAX 0.10.2's concrete Array class
_JAX_CLASS_MODULES = {"DynamicJaxprTracer": "jax._src.interpreters.partial_eval",
                      "BatchTracer": "jax._src.interpreters.batching",
                      "JVPTracer": "jax._src.interpreters.ad",
                      "LinearizeTracer": "jax._src.interpreters.ad",
                      "PRNGKeyArray": "jax._src.random.prng"}


def _is_jxkernel_own(fun) -> bool:
    """A function of jxkernel's own (a jnp function's inner jit), not the learner's."""
    return (getattr(fun, "__module__", None) or "").startswith("jxkernel.")


def _unhashable_advice(name: str, value, pos) -> str:
    """What to do with an unhashable static argument, for its kind of value: an array is a
    value to trace (a tuple of a list's items would not help); a list or a set has a hashable
    twin."""
    option = "static_argnames" if pos is None else "static_argnums"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return (f"An array is a value to trace: take '{name}' out of {option} and pass it as an "
                f"argument; if its values must be Python numbers while tracing (an `if`, a "
                f"shape, a loop count), pass {python_value_of(name, len(value.shape))}.")
    if _eq_without_hash(value):       # an object is not traceable: "pass it traced" cannot work
        kind = type(value).__name__
        if dataclasses.is_dataclass(value):     # __eq__ written by @dataclass, not the user
            return (f"{kind} is a dataclass, not frozen: the __eq__ @dataclass gives it sets "
                    f"its __hash__ to None, so it is unhashable: make it "
                    f"@dataclasses.dataclass(frozen=True), which hashes by its fields (an "
                    f"equal {kind} then reuses the program).")
        return (f"{kind} defines __eq__ but not __hash__, and Python then makes it unhashable: "
                f"give {kind} a __hash__ over the fields its __eq__ compares (or make it a "
                f"frozen dataclass, which has both).")
    fields = _unhashable_fields(value)
    if fields:                        # a frozen dataclass holding a list: the field is the cause
        kind, field = type(value).__name__, fields[0]
        if all(_is_array(getattr(value, f)) for f in fields):    # a tuple of it fails too
            names = [f.name for f in dataclasses.fields(value)]
            data = [f for f in names if _is_array(getattr(value, f))
                    or isinstance(getattr(value, f), (int, float, complex))]
            meta = [f for f in names if f not in data]
            return (f"{kind}'s field {field} holds an array, which is not hashable: an array "
                    f"is a value to trace. Register {kind} as a pytree and pass it traced "
                    f"(take '{name}' out of {option}): "
                    f"jax.tree_util.register_dataclass({kind}, data_fields={data}, "
                    f"meta_fields={meta}).")
        return (f"{kind}'s field {field} holds a {type(getattr(value, field)).__name__}, "
                f"which is not hashable: make it hashable where the {kind} is made (a tuple "
                f"for a list: {kind}({field}=tuple(...))).")
    # traced only where the function does arithmetic with it: a shape, a size or a loop
    # count must stay a Python value (traced, jnp.zeros(shape) fails: "Shapes must be 1D
    # sequences of concrete values"), so the advice says when tracing it can work
    traced = (f", or, if the function only computes with '{name}' (never uses it as a shape, a "
              f"size or a loop count), pass it as a traced argument.")
    if isinstance(value, (list, set)):
        twin = f"tuple({name})" if isinstance(value, list) else f"frozenset({name})"
        return f"Use a hashable value ({twin}){traced}"
    return f"Use a hashable value{traced}"


def _is_array(value) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _unhashable_fields(value) -> list:
    """The fields of a dataclass that cannot be hashed (a frozen config holding a list)."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return []
    found = []
    for field in dataclasses.fields(value):
        try:
            hash(getattr(value, field.name, None))
        except TypeError:
            found.append(field.name)
    return found


def _eq_without_hash(value) -> bool:
    """An object of a user's class that defines __eq__ and so lost object's __hash__."""
    kind = type(value)
    return kind.__hash__ is None and kind.__eq__ is not object.__eq__ and \
        hasattr(value, "__dict__")


SCALAR_TYPES = (bool, int, float, complex)


def python_inputs(leaves) -> frozenset:
    """The positions of the flat arguments that are Python or NumPy scalars (errors offer a
    static argument for those alone: they are hashable; an array, even 0-d, is not).

        >>> sorted(python_inputs([1.0, np.ones(2), True, np.float32(2)]))
        [0, 2, 3]
    """
    return frozenset(i for i, x in enumerate(leaves)
                     if type(x) in SCALAR_TYPES or isinstance(x, np.generic))


def token_carriers(leaves: list, treedef) -> tuple:
    """(leaves, treedef) of a jit's arguments with each Token (a pytree leaf, as JAX's) as its
    carrier, the Array of the token type a program takes (JAX's argument handler for a Token
    passes its buffer); traced, the function sees a tracer of the token type. A symbolic
    dimension (jax.export) is passed as its value, a weakly typed int (as JAX's
    `pytype_aval_mappings` types it).

    >>> from jxkernel import lax
    >>> token_carriers([lax.create_token()], None)[0][0].aval
    AbstractToken()
    """
    if any(type(x) is Token or is_symbolic(x) for x in leaves):
        leaves = [x._buf if type(x) is Token else symbolic_as_value(x) for x in leaves]
    return leaves, treedef


def leaf_aval(x, index_name, fun=None) -> ShapedArray:
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray) or is_ref(x) or \
            aval is abstract_token:    # (a token's carrier, or a tracer of one)
        return aval                    # (a Ref's is its AbstractRef: transforms/jit/refs.py)
    if type(x) in SCALAR_TYPES:
        dtype = dtypes.python_scalar_dtype(x)
        if type(x) is int and not _fits(x, dtype):
            raise OverflowError(f"An overflow was encountered while parsing an argument to a "
                                f"jitted computation, whose argument path is {index_name()}. "
                                f"Got {type(x)} with value {x}")      # (JAX's words)
        return python_scalar_aval(type(x), dtype)
    if isinstance(x, (np.ndarray, np.generic)) and dtypes.is_numeric_kind(x.dtype):
        return get_aval(x)
    if isinstance(x, ShapeDtypeStruct):
        return x.aval
    if getattr(x, "__jax_array__", None) is not None:
        raise jax_array_abstractified()
    base = next((t for t in type(x).__mro__[1:] if t in SCALAR_TYPES), None)
    if base is not None:        # an IntEnum member, a float subclass: its base type's, as
        return leaf_aval(base(x), index_name, fun)     # JAX finds its handler along the MRO
    raise not_an_array(fun, index_name, x)


def check_jax_types(leaves, avals) -> None:
    """JAX's TypeError for an argument no program takes, a StringDType Array (JAX's
    `valid_jaxtype` is False for it; XLA has no string type), checked as a jit traces."""
    for x, aval in zip(leaves, avals):
        if dtypes.is_string(getattr(aval, "dtype", None)):
            raise TypeError(f"Argument '{x}' of type {jax_type_text(x)} is not a valid JAX "
                            f"type.")


def _fits(x: int, dtype) -> bool:
    info = dtypes.iinfo(dtype)
    return int(info.min) <= x <= int(info.max)


def arguments_placed(device, values, kept, leaves, names) -> list:
    """A program's arguments on `device` (xla/transfers.arguments_on), or JAX's error for a
    ShapeDtypeStruct among a jitted function's `leaves`: the call traced (it has a type), and
    there is nothing to run on. `names()` gives the leaves' names."""
    try:
        return arguments_on(device, values, kept)
    except TypeError:
        shapes_only = [i for i, x in enumerate(leaves) if isinstance(x, ShapeDtypeStruct)]
        if not shapes_only:
            raise
        raise shapes_only_error(names()[shapes_only[0]], leaves[shapes_only[0]]) from None


def not_an_array(fun, index_name, x) -> TypeError:
    """JAX's error for an argument that is no array (a string, an object), naming the
    function as `str(fun)` does and the argument by its path (JAX's pjit._infer_params)."""
    error = TypeError(f"Error interpreting argument to {fun} as an abstract array. The "
                      f"problematic value is of type {jax_type_text(x)} and was passed to "
                      f"the function at path {index_name()}.\nThis typically means that a "
                      f"jit-wrapped function was called with a non-array argument, and this "
                      f"argument was not marked as static using the static_argnums or "
                      f"static_argnames parameters of jax.jit.")
    error.value, error.fun = x, fun     # the notebook's card reads them (a method's `self`)
    return error


def abstract_leaf_aval(x, index_name, fun=None) -> ShapedArray:
    """leaf_aval for tracing without data (trace, lower, eval_shape, make_jaxpr): avals and
    duck-typed arrays (anything with `shape` and `dtype`) are taken too, as JAX takes them."""
    rule = typeof_rules.get(type(x))
    if rule is not None and type(x) in hi_value_types:    # a library's high value (hijax)
        aval = rule(x)                  # a mutable one: with what it holds now
        return AvalQDD(aval, cur_qdd(x)) if aval.has_qdd else aval
    try:
        return shaped_abstractify(x)
    except TypeError:
        raise not_an_array(fun, index_name, x) from None


# jit's leaves that may carry a layout (jax.experimental.layout's)
_LAYOUT_LEAVES = (Format, Layout, type(AutoLayout))


def unless_all_none(shardings, what: str):
    """`shardings` (jit's `what`: "in_shardings"), or None where each of its leaves is None
    (or it is None). A jit's shardings name every dimension: P.UNCONSTRAINED is JAX's error.
    UNSPECIFIED (JAX's own "not given") is None."""
    leaves, tree = tree_flatten(shardings, is_leaf=lambda x: x is None)
    if any(s is UNSPECIFIED or isinstance(s, _LAYOUT_LEAVES) for s in leaves):
        # a Format's sharding stands for it (one with a layout is refused there)
        leaves = [None if s is UNSPECIFIED else jit_sharding_of(s, what) for s in leaves]
        shardings = tree_unflatten(tree, leaves)
    for s in leaves:
        check_sharding_leaf(s, what)
        if getattr(getattr(s, "mesh", None), "empty", False):
            raise ValueError(f"One of {what} leaf specifications got an empty NamedSharding: "
                             f"{s!r} which is not allowed.")
        spec = getattr(s, "spec", s if isinstance(s, PartitionSpec) else None)
        if spec is not None and UNCONSTRAINED in spec.partitions:
            raise ValueError(f"Unconstrained dims are not allowed when passed to {what}: {s!r}")
        if isinstance(s, PartitionSpec):        # (a NamedSharding's was checked when made)
            check_unique_axes(s, what)
    return None if all(s is None for s in leaves) else shardings


def prefix_flat(given, tree, what: str, is_leaf) -> list:
    """`given` (jit's `what`: "in_shardings" or "out_shardings") broadcast over `tree` (the
    positional arguments' tuple, or the results), or JAX's ValueError for one that is no
    tree prefix of it (api_util's flatten_axis_resources: for in_shardings, a list is a
    tuple, and one not a tuple of the arguments' count says so first)."""
    if what == "in_shardings" and type(given) is list:
        given = tuple(given)
    try:
        return broadcast_prefix(given, tree, is_leaf=is_leaf)
    except ValueError:
        pass
    name = f"pjit {what}"
    if what == "in_shardings" and (type(given) is not tuple or len(given) != len(tree)):
        raise ValueError(not_an_args_tuple(name, given, len(tree), lambda: broadcast_prefix(
            (given,), tree, is_leaf=is_leaf)))
    errors = prefix_errors(given, tree, is_leaf=is_leaf)
    raise ValueError(f"Mismatch details ({len(errors)} found):\n" +
                     "\n".join(str(e(name)) for e in errors)) from None


def layouts_checked(jitted, dyn_args, avals, names, out_tree, closed):
    """The trace `closed`, after JAX's error where `jitted`'s shardings given all None are no
    tree prefix of the arguments or results, or where a Layout given to jit in a Format
    (`_layouts`: xla/layout.py's jit_layouts, None where none was given) is not of its
    argument's or its result's rank; `avals` and `names()` are the arguments' leaves'
    (dyn_args' first: in_shardings take no keyword arguments)."""
    none = jitted._none_trees
    if none is not None:      # shardings all None: still a prefix of the arguments, results
        if none[0] is not None:
            prefix_flat(none[0], dyn_args, "in_shardings", lambda x: x is None)
        if none[1] is not None:
            prefix_flat(none[1], tree_unflatten(out_tree, [PytreeLeaf()] * out_tree.num_leaves),
                        "out_shardings", lambda x: x is None)
    if jitted._layouts is None:
        return closed
    flat_in, flat_out = _flat_layouts(jitted._layouts, dyn_args, out_tree)
    if flat_in is not None:
        check_layout_ranks(flat_in, avals[:len(flat_in)], names()[:len(flat_in)], "arguments")
    if flat_out is not None:
        check_layout_ranks(flat_out, closed.out_avals, result_paths(out_tree), "outputs")
    return closed


def _flat_layouts(layouts, dyn_args, out_tree) -> tuple:
    """(per positional argument leaf, per result leaf) the layout jit's Formats (`layouts`,
    its `_layouts`) give it: Layout.AUTO, a Layout or None; either list None where none is
    given on that side. `dyn_args`: the positional arguments (or a tree of their shape)."""
    is_leaf = lambda x: x is None or isinstance(x, _LAYOUT_LEAVES)     # noqa: E731
    given_in, given_out = layouts
    flat_in = None if given_in is None else broadcast_prefix(given_in, dyn_args,
                                                             is_leaf=is_leaf)
    flat_out = None if given_out is None else broadcast_prefix(
        given_out, tree_unflatten(out_tree, [PytreeLeaf()] * out_tree.num_leaves),
        is_leaf=is_leaf)
    return flat_in, flat_out


def check_arg_layouts(jitted, closed, in_tree, out_tree, leaves) -> None:
    """JAX's ValueError (pjit's _resolve_in_layouts) where a committed Array among `leaves` is
    laid out otherwise than the layout `jitted`'s Formats give its argument (Layout.AUTO
    included: such an Array's layout is concrete), checked as a call compiles its program
    and as `.lower()` lowers it (`in_tree`, `out_tree`: the trace's, as layout_modes)."""
    modes = layout_modes(jitted, closed, in_tree, out_tree)
    if modes is None:
        return
    for x, given in zip(leaves, modes[0]):
        if given is None or not isinstance(x, ArrayImpl) or not x._buf._committed or \
                x.is_deleted():
            continue
        have = x.format.layout
        if have is None or (given.major_to_minor == have.major_to_minor
                            if isinstance(given, Layout) and not given.tiling else given == have):
            continue
        extra = "" if isinstance(given, Layout) else (  # (JAX's words)
            " The layout given to `jax.jit` is `Layout.AUTO` but the corresponding argument "
            "passed is a `jax.Array` with a concrete layout. Consider passing a "
            "`jax.ShapeDtypeStruct` instead of `jax.Array` as an argument to the jitted "
            "function  when using `Layout.AUTO`.")
        raise ValueError(f"Layout passed to jit does not match the layout on the respective "
                         f"arg. Got jit layout: {given},\narg layout: {have} for arg type: "
                         f"{x.aval.str_short()}.{extra}")


def layout_modes(jitted, closed, in_tree, out_tree, arg_layouts=None):
    """(per argument leaf, per result leaf) the layout `jitted`'s Formats give it
    (Layout.AUTO, a Layout or None) in its trace `closed`, whose arguments are the pytree
    `in_tree` ((args, kwargs): in_shardings cover the positional ones) and results
    `out_tree`; or where they give none the one of `arg_layouts` (per argument leaf, a
    committed Array's layout other than row-major, JAX's dispatch_arg_layout); None where
    none is. Read from the jit's own Formats and the trees, so a trace another jit of the
    function made (jit's caches are shared) is read as this jit's."""
    given = None
    if jitted._layouts is not None:
        n_in, n_out = len(closed.in_avals), len(closed.out_avals)
        args = tree_unflatten(in_tree, [PytreeLeaf()] * in_tree.num_leaves)[0]
        flat_in, flat_out = _flat_layouts(jitted._layouts, args, out_tree)
        # (keyword arguments, then Refs' final values: none given)
        given = ((flat_in or []) + [None] * (n_in - len(flat_in or [])),
                 (flat_out or []) + [None] * (n_out - len(flat_out or [])))
    if arg_layouts is None or len(arg_layouts) != len(closed.in_avals):
        return given
    if given is None:
        given = ([None] * len(closed.in_avals), [None] * len(closed.out_avals))
    return ([g if g is not None else a for g, a in zip(given[0], arg_layouts)], given[1])


def out_formats(jitted, out_tree, n: int) -> list:
    """Per result leaf the Format with a Layout jit's out_shardings gave it, or None: its
    layout (`_layouts`) with the sharding given beside it (`_out_shardings`)."""
    if jitted._layouts is None or jitted._layouts[1] is None:
        return [None] * n
    tree = tree_unflatten(out_tree, [0] * n)
    layouts = broadcast_prefix(jitted._layouts[1], tree,
                               is_leaf=lambda x: x is None or isinstance(x, _LAYOUT_LEAVES))
    shardings = broadcast_prefix(jitted._out_shardings, tree,
                                 is_leaf=lambda x: x is None or _sharding_leaf(x))
    # (Layout.AUTO: XLA's choice, known once compiled)
    return [None if not isinstance(layout, Layout) or not _sharding_leaf(s) else Format(layout, s)
            for layout, s in zip(layouts, shardings)]


def check_device_arguments(device, backend, in_shardings, out_shardings) -> None:
    """JAX's errors for jit's `device` and `backend` given together, or with shardings (None
    and UNSPECIFIED give none)."""
    if device is not None and backend is not None:
        raise ValueError(f"can't specify both a device and a backend for jit, got "
                         f"device={device!r} and backend={backend!r}")
    if device is not None or backend is not None:
        for what, given in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
            if given is not None and given is not UNSPECIFIED:
                raise ValueError(f"If backend or device is specified on jit, then {what} "
                                 f"should not be specified.")


def check_no_kwargs(in_shardings, dyn_kwargs) -> None:
    """JAX's error for keyword arguments to a jit given in_shardings (which apply to its
    positional arguments; static keyword arguments pass here, where JAX refuses them too)."""
    if dyn_kwargs and in_shardings is not None:
        raise ValueError("pjit does not support kwargs when in_shardings is specified.")


def set_jit_shardings(jitted, in_shardings, out_shardings, device, backend=None) -> None:
    """Set a jit's `_in_shardings`, `_out_shardings` (None for all-None shardings, a Format
    standing for its sharding), `_pinned` (the device SingleDeviceShardings pin it to,
    pinned_device, else None), `_sharded` (whether it runs over a mesh: given other
    shardings) and `_layouts` (the Formats' Layouts, xla/layout.py's jit_layouts; None: none
    given). `device` and `backend` are checked too. It also declares the state other
    modules fill later, `_none_trees` to `_logs_no_miss` below: None or False till then."""
    check_device_arguments(device, backend, in_shardings, out_shardings)
    layouts = jit_layouts(in_shardings, out_shardings, tree_flatten, tree_unflatten)
    given = in_shardings, out_shardings
    in_shardings = unless_all_none(in_shardings, "in_shardings")
    out_shardings = unless_all_none(out_shardings, "out_shardings")
    # (all None in a pytree: JAX still checks that it is a prefix of the arguments, results)
    trees = tuple(g if s is None and g is not None and g is not UNSPECIFIED and not
                  isinstance(g, _LAYOUT_LEAVES) else None
                  for g, s in zip(given, (in_shardings, out_shardings)))
    # those trees, checked by layouts_checked (None where there are none)
    jitted._none_trees = trees if trees != (None, None) else None
    # the given shardings made hashable, by sharded.call_key on the first sharded call
    jitted._sharding_key = None
    # the mesh of a sharding constraint a trace met, set with `_sharded` where one is met
    # (function.py's _call, stages.py, export/_sharded.py, views/call_explanation.py)
    jitted._constraint_mesh = None
    # sharded.call_jitted's {call key: (closed, out_tree, jaxpr, consts)}: the traces of calls
    # with sharded arguments that read or write Refs (run as jit equations), made on the first
    jitted._with_refs = None
    # _jax/_src/pjit.py: made by pjit (a `with mesh:` block's mesh applies, sharded.py)
    jitted._pjit = False
    # api/pmap.py: pmap's jit with shardings, which leaves the donated arguments it moved
    jitted._keeps_moved_donors = False
    # api/pmap.py: its jits of `_fun`, which JAX counts as its own: no TRACING CACHE MISS
    # logged for them (compile_record._log_miss); their notes' layout cause (recompile_explainer)
    jitted._logs_no_miss = False
    pinned = pinned_device(in_shardings, out_shardings) if device is None else None
    sharded = (in_shardings is not None or out_shardings is not None) and pinned is None
    jitted._in_shardings, jitted._out_shardings, jitted._pinned, jitted._sharded = (
        in_shardings, out_shardings, pinned, sharded)
    jitted._layouts = None if layouts == (None, None) else layouts


def _one_device(s) -> bool:
    """A SingleDeviceSharding (duck-typed: xla/sharding.py loads with the first sharding): a
    Sharding over one device without a PartitionSpec."""
    return not hasattr(s, "spec") and len(getattr(s, "_device_assignment", ())) == 1


def check_sharding_leaf(s, what: str) -> None:
    """JAX's TypeError (its prepare_axis_resources') for a leaf of `what` ("in_shardings",
    with_sharding_constraint's "shardings") that is neither a sharding nor None."""
    if not (s is None or _sharding_leaf(s)):
        raise TypeError(f"{what} leaf specifications are expected to be PartitionSpec "
                        f"instances or None, but got {s}")


def _sharding_leaf(s) -> bool:
    """A PartitionSpec or a Sharding (duck-typed, as _one_device; a NamedSharding over an
    AbstractMesh, which JAX's jit takes, has no devices to ask for)."""
    return isinstance(s, (PartitionSpec, NamedSharding)) or hasattr(s, "_device_assignment")


def _sharding_leaves(shardings) -> list:
    return tree_flatten(shardings, is_leaf=_sharding_leaf)[0]


def pinned_device(in_shardings, out_shardings):
    """The device of a jit whose shardings are SingleDeviceShardings on one device (the others
    None): JAX runs it there, its results committed, as jit(device=d) runs; else None.

    >>> import jxkernel as jax
    >>> d = jax.devices()[0]
    >>> pinned_device((jax.sharding.SingleDeviceSharding(d), None), None) == d
    True
    """
    leaves = _sharding_leaves((in_shardings, out_shardings))
    devices = {s._device_assignment for s in leaves if _one_device(s)}
    if len(devices) != 1 or not all(_one_device(s) for s in leaves):
        return None
    return next(iter(devices))[0]


def device_mismatch(fun_name: str, names, leaves, found) -> None:
    """JAX's ValueError for a jit whose shardings name other devices (jax/_src/stages.py's
    _device_assignment_mismatch_error). `found`: (device assignment, kind) in JAX's order
    ("jit's context mesh", the arguments' "ARG_SHARDING", "explicit output sharding"); the
    first that differs from the first is named, an argument's by its name where its own
    sharding is that one."""
    first = found[0]
    second = next((f for f in found if tuple(f[0]) != tuple(first[0])), None)
    if second is None:
        return

    def plain(f) -> str:       # (an entry's third item: where inside the program, " at ...")
        return f"with device ids {[d.id for d in f[0]]} on platform " \
            f"{f[0][0].platform.upper()}{f[2] if len(f) > 2 else ''}"

    def argument(f):
        for name, x in zip(names, leaves):
            da = getattr(getattr(x, "sharding", None), "_device_assignment", None)
            if f[1] == "ARG_SHARDING" and da is not None and tuple(da) == tuple(f[0]):
                shape = f"{x.dtype.name}[{','.join(map(str, x.shape))}]"    # JAX's long names
                return f"argument {name} of {fun_name} with shape {shape} and {plain(f)}"
        return None
    named = [m for m in map(argument, (first, second)) if m is not None]
    if len(named) == 2:
        got = f" Got {named[0]} and {named[1]}"
    elif named:
        left = second if first[1] == "ARG_SHARDING" else first
        got = f" Got {named[0]} and {left[1]} {plain(left)}"
    else:
        got = f" Got {first[1]} {plain(first)} and {second[1]} {plain(second)}"
    raise ValueError(f"Received incompatible devices for jitted computation.{got}")


def flat_pinned(given, tree) -> list:
    """One SingleDeviceSharding or None per leaf of `tree` from a pinned jit's `given`
    in_shardings or out_shardings (a prefix of `tree`)."""
    n = len(tree_flatten(tree)[0])
    return [None] * n if given is None else [given] * n if _one_device(given) else \
        broadcast_prefix(given, tree, is_leaf=lambda s: s is None or _one_device(s))


def result_memories(jitted, out_tree) -> list | None:
    """Per result of a jit pinned to one device, the SingleDeviceSharding its out_shardings
    give it (its memory kind, 'device' included: a host-typed result asked there is placed
    there), for the module's result attributes and placements (xla/memory_kinds.py's
    program_kinds), as JAX lowers them; None where none is given."""
    if jitted._pinned is None or jitted._out_shardings is None:
        return None
    flat = flat_pinned(jitted._out_shardings, tree_unflatten(out_tree, [0] * out_tree.num_leaves))
    if all(getattr(s, "memory_kind", None) is None for s in flat):
        return None
    return flat


def pinned_found(jitted, dyn_args, leaves) -> list:
    """device_mismatch's list for a call of `jitted` on `leaves`: the given in_shardings (a
    committed argument's own where none is given), then the given out_shardings; `device=`
    gives every argument's; a plain jit's committed arguments'."""
    if jitted._device is not None and jitted._pinned is None:        # device= (or backend=)
        return [((jitted._device,), "ARG_SHARDING")]
    committed = lambda x: getattr(x, "committed", False)   # noqa: E731
    if jitted._pinned is None:
        return [(x.sharding._device_assignment, "ARG_SHARDING") for x in leaves if committed(x)]
    flat_in = flat_pinned(jitted._in_shardings, dyn_args)
    found = [(s._device_assignment if s is not None else x.sharding._device_assignment,
              "ARG_SHARDING") for s, x in zip(flat_in, leaves) if s is not None or committed(x)]
    return found + [(s._device_assignment, "explicit output sharding")
                    for s in _sharding_leaves(jitted._out_shardings)]
