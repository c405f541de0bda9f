/* jxkernel's compiled cache hit: jit's recent hits, an eager primitive's last run, and the
   entry points in front of them, in C.

   Built at install by hatch_build.py (a hatchling build hook: `pip install .`, `uv pip
   install -e .`, a wheel) with the interpreter's C compiler against the CPython C API alone
   (no Cython, nanobind or PyO3: a compiler and Python's headers are all a fresh machine has),
   as jxkernel/core/_fastpath<EXT_SUFFIX>, and loaded by jxkernel/core/native.py; where it
   was not built (no compiler, Windows, Pyodide, a free-threaded Python) or
   JXKERNEL_FASTPATH=0, the Python methods it stands in front of run alone, doing the same
   work. docs/jaxlib.md "Execution and dispatch cost" says what it saves.

   Three kinds of object:

   - A Hit holds what a hit needs: the argument types (avals) and the first buffer's sharding
     object it last saw, the config generation it ran under, the executable's
     execute_sharded, its result handlers and output avals. Calling it checks the arguments
     against that signature and, if they match, runs the executable and wraps its buffers in
     Arrays; if they do not, it returns the MISS object given to setup() and the caller takes
     its Python path. Errors (from jaxlib or a comparison) propagate; the caller then takes
     its Python path too, which raises the error with jxkernel's message.
   - An EntryPoint is a method chosen in its class's body (`bind = native.bind(_python_bind)
     if native else _python_bind`): it tries the Hit its object last made and otherwise calls
     the Python function it was made with (its fallback) with the same arguments. It is a
     method descriptor (Py_TPFLAGS_METHOD_DESCRIPTOR, vectorcall), so `prim.bind(x)` and
     `f(x)` reach it with no bound-method object, as they reach a Python function.
   - A JitFunction is the base type of transforms/jit/function.py's Jitted: its call (vectorcall, no
     keyword dict) tries the jit's recent hits, its keyword names' (keyword arguments that
     are arrays, f(x=a)), or its static arguments', and otherwise calls `self._python_call`
     with the same arguments (see "jitted functions" below). Each of those keys holds up to
     8 Hits (transforms/jit/cache.py's Recent), tried in turn (`try_native`): signatures
     called in turn under one key each hit, as in JAX's C++ cache.

   What it reads of Python objects, all of it given to setup() or to an entry point's
   constructor by the module that owns the object (xla/fastpath.py, the class bodies):
   config._generation (identity only), ctx.trace (identity against eval_trace), Array's slots
   `_buf`, `aval`, `_npy`, `_sharding` (offsets found from their member descriptors at setup, and checked to
   be object slots), ShapedArray's `_hash` slot (its cached hash, an int: found the same
   way), a buffer's `_sharding` and `block_until_ready()`, the result of
   execute_sharded's `consume_with_handlers(handlers)`, a jit cache entry's `hits` and
   `look_at` (core/watches.py), the `native` attribute of a LastHit (a Hit or None) and of a
   Recent (a tuple of Hits; transforms/jit/cache.py) and of a _LastRun (xla/dispatch.py), a
   JitFunction's own `_last` dict, `_static_at` tuple of ints (its static positions, sorted)
   and `_static_argnames` frozenset, and the method `_python_call` of its class. What it
   writes: a result Array's four slots, a donated Array's `_npy` and `_buf` (a Gone of
   xla/deleted.py, its three slots found as Array's are, after the buffer's `delete()`), and
   a donating executable's `ran`.

   C-API checked against the documentation and headers of Python 3.11, 3.12 and 3.13 (and
   built with 3.11.7, 3.12.1 and 3.13.0 with -Wall -Wextra -Werror, nothing deprecated):
   - Py_TPFLAGS_METHOD_DESCRIPTOR (3.8), Py_TPFLAGS_HAVE_VECTORCALL (public name since 3.9,
     in the limited API since 3.12, which also drops it from a heap type whose __call__ is
     reassigned: EntryPoint is a static type), tp_vectorcall_offset, PyVectorcall_Call,
     PyVectorcall_NARGS, PY_VECTORCALL_ARGUMENTS_OFFSET (passed on to the fallback unchanged),
     PyObject_Vectorcall (3.9), PyObject_CallOneArg, PyObject_CallMethodNoArgs and
     PyObject_CallMethodOneArg (3.9), Py_NewRef (3.10), Py_XSETREF (public in 3.12, a macro
     of cpython/object.h before), Py_IS_TYPE (3.9), PyModule_AddObjectRef (3.10),
     PyObject_VectorcallMethod (3.9), PyObject_GenericGetDict (3.3, in the limited API since
     3.10), METH_CLASS (`__init_subclass__`), Py_TPFLAGS_BASETYPE, PyMem_Malloc/PyMem_Free,
     PyTuple_Pack, Py_BuildValue, PyErr_NoMemory,
     PyMethod_New, PyDict_GetItemWithError (a borrowed reference: each is taken (INCREF)
     before anything that could run Python code), PyDict_GET_SIZE, PyTuple_New and
     PyTuple_SET_ITEM (a static call's key), PyLong_AsSsize_t, PyErr_Occurred,
     PyArg_ParseTupleAndKeywords (3.13 takes `char * const *` keywords: a `char *[]`
     converts). PyDict_GetItemWithError is not deprecated in 3.13 (PyDict_GetItemRef, new
     there, is the preferred form; the old one stays for 3.11 and 3.12).
   - Added in stop 63 (donation in C, static names), checked against the 3.12 and 3.13
     headers and documentation, none deprecated or removed there: PySet_Contains (takes a
     frozenset; -1 with an exception for an unhashable key), PyFrozenSet_New(NULL),
     PyFrozenSet_CheckExact, PyObject_SetAttr, PyObject_CallMethodNoArgs, Py_XNewRef (3.10),
     PyUnicode_Check, a heap type's tp_alloc (PyType_GenericAlloc: zeroed, GC-tracked, takes a
     reference to the type) for a Gone whose __init__ is not run. Built with 3.12.1 and
     3.13.0's headers with -Wall -Wextra -Werror, and its Hit, donation and static-names
     paths run under both on stand-in types (no jaxlib there).
   - Added for several Hits per key (the multihit helper), checked against the 3.12 and 3.13
     headers, none deprecated or removed there: PyTuple_CheckExact, PyLong_CheckExact and
     PySequence_Fast_ITEMS (macros in tupleobject.h, longobject.h, abstract.h),
     PyLong_AsSsize_t, Py_CLEAR. Built with 3.12.1 and 3.13.0's headers with -Wall -Wextra
     -Werror, and a key's Hits tried in turn (positional, keyword, donating; stale config,
     another trace, a non-Hit in the tuple) run under both on stand-in types.
   - Added for a jit's unused arguments (the Hit's `unused` mask: those its program does not
     take are checked, never passed): PyMem_Calloc (3.5), nothing else new.
   - Py_TPFLAGS_HAVE_VECTORCALL's inheritance: 3.12 gives it to any subclass that keeps the
     base's tp_call; 3.11 only to immutable types, so JitFunction's __init_subclass__ sets it
     (see "jitted functions"). A class whose `__call__` is assigned later: 3.12 and 3.13 clear
     the flag, 3.11 keeps it and jitfn_vectorcall checks tp_call first.
   - PyMemberDef's type codes: T_OBJECT_EX and READONLY from structmember.h before 3.12,
     Py_T_OBJECT_EX and Py_READONLY from Python.h since (the old names are deprecated).
   - PyMemberDescrObject and its d_member (cpython/descrobject.h, the non-limited API, the same
     in 3.11-3.13): how setup() finds Array's slot offsets.
   - Python 3.13's Python.h no longer includes <stddef.h> (offsetof): included here (built
     before with 3.11's headers alone, the file failed to compile on 3.13, and jxkernel ran its
     Python path there without a word; found by building it with 3.13.0 and 3.12.1).
   - Added for a Hit's flatten that raised (give_back_room, stop 92): PyThreadState_Get and
     its counter field, `recursion_remaining` on 3.11, `c_recursion_remaining` on 3.12 and
     3.13 (cpython/pystate.h, the non-limited API: the field Py_EnterRecursiveCall takes
     from), PyErr_GetRaisedException/PyErr_SetRaisedException (3.12; PyErr_Fetch/PyErr_Restore,
     deprecated there, on 3.11 only), PyObject_CallNoArgs (3.9). Built with 3.11.7, 3.12.1 and
     3.13.0 by hatch_build.py.
   - Not built for a free-threaded Python (Py_GIL_DISABLED, 3.13t): the borrowed dict
     references and the unlocked reads of slots assume the GIL. hatch_build.py skips it there
     and the #error below stops a build by hand. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>       /* offsetof: Python.h includes it before 3.13, not since */
/* Python 3.12 moved PyMemberDef's type codes and flags into Python.h as Py_T_OBJECT_EX and
   Py_READONLY; structmember.h's old names are deprecated there. Before 3.12 they come from
   structmember.h under the old names. */
#ifdef Py_GIL_DISABLED
#error "jxkernel's fast path assumes the GIL (borrowed dict references): not for free-threaded Python"
#endif
#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#define Py_READONLY READONLY
#endif

static PyObject *config_obj, *ctx_obj, *eval_trace, *miss;
static PyTypeObject *array_type, *gone_type, *aval_type, *ndarray_type;
static Py_ssize_t off_buf, off_aval, off_npy, off_sharding;  /* Array's slots (descriptors) */
static Py_ssize_t off_hash;                 /* ShapedArray's `_hash` (its hash, an int) */
static Py_ssize_t off_gone_buf, off_gone_why, off_gone_aval;  /* xla/deleted.py's Gone's */
static PyObject *s_generation, *s_trace, *s_sharding, *s_consume, *s_hits, *one;
static PyObject *s_delete, *s_ran, *s_dtype, *s_shape, *s_look_at;

typedef struct {
    PyObject_HEAD
    PyObject *avals;        /* tuple of the arguments' avals */
    PyObject *where;        /* the first buffer's _sharding object */
    PyObject *generation;   /* config._generation when made (settable) */
    PyObject *execute;      /* the loaded executable's execute_sharded */
    PyObject *handlers;     /* list of result handlers */
    PyObject *out_avals;    /* tuple of output avals */
    PyObject *finish;       /* None: return the list; else called on it (unflatten, itemgetter) */
    PyObject *entry;        /* None, or the jit cache entry whose `hits` to count */
    PyObject *params;       /* None (jit), or the eager primitive's params dict */
    int check_trace;        /* jit: only at the top level (ctx.trace is eval_trace) */
    PyObject *kinds;        /* None (all Arrays), or per argument None, a Python scalar type
                               or a NumPy dtype (an ndarray of it and the aval's shape) */
    PyObject *put;          /* None, or put(scalar, where) or put(ndarray, where, aval) -> its
                               buffer */
    Py_ssize_t first_array; /* the argument whose buffer's sharding is `where` (-1: none) */
    PyObject *consts;       /* tuple of buffers passed before the arguments (closed-over) */
    int alike;              /* eager, two operands of one type: 1 (integers) or 2 (inexact) */
    Py_ssize_t *order;      /* NULL, or per argument the index in the call's stack it comes
                               from (a keyword call: its flat order sorts the names) */
    Py_ssize_t norder;      /* how many (the call's arguments: with a tree, not its leaves) */
    PyObject *donate;       /* None, or the indices of the arguments the program donates */
    PyObject *whys;         /* donating: per donated argument why it is gone (a str) */
    PyObject *executable;   /* donating: the Executable, whose `ran` the first run sets */
    int ran;                /* donating: `ran` set */
    PyObject *tree;         /* None, or the structure of the call's arguments (a PyTreeDef):
                               they are flattened (`flatten`) and their leaves checked */
    PyObject *flatten;      /* with a tree: the pytree registry's flatten (jaxlib's C++) */
    unsigned char *unused;  /* NULL, or per argument 1 where the program does not take it
                               (jit drops what its function never reads, as JAX's) */
} Hit;

static int
slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *offset)
{
    PyObject *d = PyObject_GetAttrString((PyObject *)type, name);
    if (d == NULL)
        return -1;
    if (!Py_IS_TYPE(d, &PyMemberDescr_Type) ||
            ((PyMemberDescrObject *)d)->d_member->type != Py_T_OBJECT_EX) {
        Py_DECREF(d);
        PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", type->tp_name, name);
        return -1;
    }
    *offset = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return 0;
}

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static PyObject *last_runs, *impl_rules;       /* dispatch's {primitive: _LastRun}, rules */

/* setup(config, ctx, eval_trace, miss, array_type, last_runs, impl_rules, gone_type=None,
   aval_type=None, ndarray_type=None): what the Hits and entry points read, given once by xla/fastpath.py; before
   it every entry point falls back. Without a gone_type (xla/deleted.py's Gone) no Hit
   donates; without an aval_type (core/avals.py's ShapedArray) two avals that are not one
   object are always compared by their __eq__ (see `matches`); without an ndarray_type
   (numpy.ndarray) no Hit takes NumPy arrays. */
static PyObject *
setup(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"config", "ctx", "eval_trace", "miss", "array_type", "last_runs",
                         "impl_rules", "gone_type", "aval_type", "ndarray_type", NULL};
    PyObject *cfg, *ctx, *ev, *m, *at, *runs, *impls, *gone = NULL, *avt = NULL, *nd = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO!O!O!|O!O!O!", kw, &cfg, &ctx, &ev, &m,
                                     &PyType_Type, &at, &PyDict_Type, &runs, &PyDict_Type,
                                     &impls, &PyType_Type, &gone, &PyType_Type, &avt,
                                     &PyType_Type, &nd))
        return NULL;
    if (avt != NULL && slot_offset((PyTypeObject *)avt, "_hash", &off_hash) < 0)
        return NULL;
    if (slot_offset((PyTypeObject *)at, "_buf", &off_buf) < 0 ||
            slot_offset((PyTypeObject *)at, "aval", &off_aval) < 0 ||
            slot_offset((PyTypeObject *)at, "_npy", &off_npy) < 0 ||
            slot_offset((PyTypeObject *)at, "_sharding", &off_sharding) < 0)
        return NULL;
    if (gone != NULL && (slot_offset((PyTypeObject *)gone, "deleted_buf", &off_gone_buf) < 0 ||
            slot_offset((PyTypeObject *)gone, "why", &off_gone_why) < 0 ||
            slot_offset((PyTypeObject *)gone, "array_aval", &off_gone_aval) < 0))
        return NULL;
    Py_XSETREF(gone_type, (PyTypeObject *)Py_XNewRef(gone));
    Py_XSETREF(aval_type, (PyTypeObject *)Py_XNewRef(avt));
    Py_XSETREF(ndarray_type, (PyTypeObject *)Py_XNewRef(nd));
    Py_XSETREF(config_obj, Py_NewRef(cfg));
    Py_XSETREF(ctx_obj, Py_NewRef(ctx));
    Py_XSETREF(eval_trace, Py_NewRef(ev));
    Py_XSETREF(miss, Py_NewRef(m));
    Py_XSETREF(last_runs, Py_NewRef(runs));
    Py_XSETREF(impl_rules, Py_NewRef(impls));
    Py_XSETREF(array_type, (PyTypeObject *)Py_NewRef(at));
    Py_RETURN_NONE;
}

#define MAX_STATIC_CALL_ARGS 32   /* more arguments: the Python path */

/* A keyword call's `order` (a tuple of n ints, a permutation of 0..n-1) as a C array, or NULL
   with ValueError. */
static Py_ssize_t *
stack_order(PyObject *order, Py_ssize_t n)
{
    if (!PyTuple_Check(order) || PyTuple_GET_SIZE(order) != n || n > MAX_STATIC_CALL_ARGS) {
        PyErr_SetString(PyExc_ValueError, "Hit: `order` is one index per argument (at most 32)");
        return NULL;
    }
    Py_ssize_t *indices = PyMem_Malloc(n * sizeof(Py_ssize_t));
    if (indices == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    unsigned char seen[MAX_STATIC_CALL_ARGS] = {0};
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(order, i));
        if (at < 0 || at >= n || seen[at]) {
            PyMem_Free(indices);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "Hit: `order` is a permutation of 0..n-1");
            return NULL;
        }
        seen[at] = 1;
        indices[i] = at;
    }
    return indices;
}

/* Whether `donate` is a tuple of indices of Array arguments (of n; where `kinds` says none is
   a Python scalar there, whose buffer is cached: never donated), `whys` a str for each, and
   there is an executable (and setup's gone_type); 0 with ValueError if not. */
static int
donates_arrays(PyObject *donate, PyObject *kinds, Py_ssize_t n, PyObject *whys,
               PyObject *executable)
{
    int ok = PyTuple_Check(donate) && PyTuple_GET_SIZE(donate) > 0 && PyTuple_Check(whys) &&
             PyTuple_GET_SIZE(whys) == PyTuple_GET_SIZE(donate) && executable != Py_None &&
             gone_type != NULL;
    for (Py_ssize_t j = 0; ok && j < PyTuple_GET_SIZE(donate); j++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(donate, j));
        ok = i >= 0 && i < n && (kinds == Py_None || PyTuple_GET_ITEM(kinds, i) == Py_None) &&
             PyUnicode_Check(PyTuple_GET_ITEM(whys, j));
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "Hit: `donate` is the indices of Array arguments, "
                        "`whys` a str for each, with an `executable` (and setup's gone_type)");
    }
    return ok;
}

/* `unused` (a tuple of indices of the n arguments, each once) as a mask of n bytes, 1 where
   the program does not take that argument; NULL with ValueError if it is not such a tuple. */
static unsigned char *
unused_mask(PyObject *unused, Py_ssize_t n)
{
    unsigned char *mask = PyTuple_Check(unused) ? PyMem_Calloc(n > 0 ? n : 1, 1) : NULL;
    int ok = mask != NULL;
    for (Py_ssize_t j = 0; ok && j < PyTuple_GET_SIZE(unused); j++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(unused, j));
        ok = i >= 0 && i < n && !mask[i];
        if (ok)
            mask[i] = 1;
    }
    if (!ok) {
        PyMem_Free(mask);
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "Hit: `unused` is a tuple of argument indices");
        return NULL;
    }
    return mask;
}

static PyObject *
hit_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"avals", "where", "generation", "execute", "handlers", "out_avals",
                         "finish", "entry", "params", "check_trace", "kinds", "put", "consts",
                         "alike", "order", "donate", "whys", "executable", "tree", "flatten",
                         "unused", NULL};
    PyObject *avals, *where, *gen, *execute, *handlers, *out_avals, *finish, *entry, *params;
    PyObject *kinds = Py_None, *put = Py_None, *consts = NULL, *order = Py_None;
    PyObject *donate = Py_None, *whys = Py_None, *executable = Py_None, *tree = Py_None;
    PyObject *flatten = Py_None, *unused = Py_None;
    int check_trace, alike = 0;
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_fastpath.setup() was not called");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOOO!O!OOOp|OOO!iOOOOOOO", kw,
                                     &PyTuple_Type, &avals, &where, &gen, &execute,
                                     &PyList_Type, &handlers, &PyTuple_Type, &out_avals,
                                     &finish, &entry, &params, &check_trace, &kinds, &put,
                                     &PyTuple_Type, &consts, &alike, &order, &donate, &whys,
                                     &executable, &tree, &flatten, &unused))
        return NULL;
    if (tree != Py_None && !PyCallable_Check(flatten)) {
        PyErr_SetString(PyExc_ValueError, "Hit: a tree needs a flatten");
        return NULL;
    }
    if (donate != Py_None &&
            !donates_arrays(donate, kinds, PyTuple_GET_SIZE(avals), whys, executable))
        return NULL;
    if (PyList_GET_SIZE(handlers) != PyTuple_GET_SIZE(out_avals) ||
            PyTuple_GET_SIZE(avals) == 0) {
        PyErr_SetString(PyExc_ValueError, "Hit: one handler per output, at least one argument");
        return NULL;
    }
    Py_ssize_t first_array = 0;
    if (kinds != Py_None) {
        if (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) != PyTuple_GET_SIZE(avals) ||
                !PyCallable_Check(put)) {
            PyErr_SetString(PyExc_ValueError, "Hit: one kind per argument, and a put");
            return NULL;
        }
        first_array = -1;
        for (Py_ssize_t i = PyTuple_GET_SIZE(kinds) - 1; i >= 0; i--)
            if (PyTuple_GET_ITEM(kinds, i) == Py_None)
                first_array = i;
    }
    Py_ssize_t n = order != Py_None && PyTuple_Check(order) ? PyTuple_GET_SIZE(order) : 0;
    Py_ssize_t *indices = NULL;
    if (order != Py_None && (indices = stack_order(order, n)) == NULL)
        return NULL;
    if (order != Py_None && tree == Py_None && n != PyTuple_GET_SIZE(avals)) {
        PyMem_Free(indices);
        PyErr_SetString(PyExc_ValueError, "Hit: `order` is one index per argument");
        return NULL;
    }
    unsigned char *skip = NULL;
    if (unused != Py_None && (skip = unused_mask(unused, PyTuple_GET_SIZE(avals))) == NULL) {
        PyMem_Free(indices);
        return NULL;
    }
    Hit *h = (Hit *)type->tp_alloc(type, 0);
    if (h == NULL) {
        PyMem_Free(indices);
        PyMem_Free(skip);
        return NULL;
    }
    h->order = indices;
    h->unused = skip;
    h->norder = n;
    h->donate = Py_NewRef(donate);
    h->whys = Py_NewRef(whys);
    h->executable = Py_NewRef(executable);
    h->ran = 0;
    h->tree = Py_NewRef(tree);
    h->flatten = Py_NewRef(flatten);
    h->avals = Py_NewRef(avals);
    h->where = Py_NewRef(where);
    h->generation = Py_NewRef(gen);
    h->execute = Py_NewRef(execute);
    h->handlers = Py_NewRef(handlers);
    h->out_avals = Py_NewRef(out_avals);
    h->finish = Py_NewRef(finish);
    h->entry = Py_NewRef(entry);
    h->params = Py_NewRef(params);
    h->check_trace = check_trace;
    h->kinds = Py_NewRef(kinds);
    h->put = Py_NewRef(put);
    h->first_array = first_array;
    h->alike = alike;
    h->consts = consts != NULL ? Py_NewRef(consts) : PyTuple_New(0);
    if (h->consts == NULL) {
        Py_DECREF(h);
        return NULL;
    }
    return (PyObject *)h;
}

static int
hit_traverse(Hit *h, visitproc visit, void *arg)
{
    Py_VISIT(h->avals); Py_VISIT(h->where); Py_VISIT(h->generation); Py_VISIT(h->execute);
    Py_VISIT(h->handlers); Py_VISIT(h->out_avals); Py_VISIT(h->finish); Py_VISIT(h->entry);
    Py_VISIT(h->params); Py_VISIT(h->kinds); Py_VISIT(h->put); Py_VISIT(h->consts);
    Py_VISIT(h->donate); Py_VISIT(h->whys); Py_VISIT(h->executable); Py_VISIT(h->tree);
    Py_VISIT(h->flatten);
    return 0;
}

static int
hit_clear(Hit *h)
{
    Py_CLEAR(h->avals); Py_CLEAR(h->where); Py_CLEAR(h->generation); Py_CLEAR(h->execute);
    Py_CLEAR(h->handlers); Py_CLEAR(h->out_avals); Py_CLEAR(h->finish); Py_CLEAR(h->entry);
    Py_CLEAR(h->params); Py_CLEAR(h->kinds); Py_CLEAR(h->put); Py_CLEAR(h->consts);
    Py_CLEAR(h->donate); Py_CLEAR(h->whys); Py_CLEAR(h->executable); Py_CLEAR(h->tree);
    Py_CLEAR(h->flatten);
    return 0;
}

static void
hit_dealloc(Hit *h)
{
    PyObject_GC_UnTrack(h);
    hit_clear(h);
    PyMem_Free(h->order);
    PyMem_Free(h->unused);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

/* Whether two avals that are not one object surely differ, without running Python code:
   both setup's aval_type (ShapedArray), with different cached hashes (its `_hash` slot: equal
   avals hash alike; were two not to, the Hit would miss and the Python path run, never a
   wrong program). A key's other Hits (another dtype, shape or weak type) are told apart
   this way, with no __eq__ frame; equal hashes go on to __eq__, as before. */
static int
surely_differ(PyObject *aval, PyObject *want)
{
    if (aval_type == NULL || Py_TYPE(aval) != aval_type || Py_TYPE(want) != aval_type)
        return 0;
    PyObject *a = SLOT(aval, off_hash), *b = SLOT(want, off_hash);
    if (a == NULL || b == NULL || !PyLong_CheckExact(a) || !PyLong_CheckExact(b))
        return 0;
    Py_ssize_t x = PyLong_AsSsize_t(a), y = PyLong_AsSsize_t(b);
    if ((x == -1 || y == -1) && PyErr_Occurred()) {      /* (a hash is a Py_hash_t: never) */
        PyErr_Clear();
        return 0;
    }
    return x != y;
}

/* 1 if `a` is a NumPy array (not a subclass) of the very dtype object `dtype` (NumPy's
   builtin dtypes are singletons: another byte order or a structured dtype is another
   object, and misses) and of `aval`'s shape; 0 if not, -1 on error. */
static int
host_array_matches(PyObject *a, PyObject *dtype, PyObject *aval)
{
    if (ndarray_type == NULL || Py_TYPE(a) != ndarray_type)
        return 0;
    PyObject *d = PyObject_GetAttr(a, s_dtype);
    if (d == NULL)
        return -1;
    int same = d == dtype;
    Py_DECREF(d);
    if (!same)
        return 0;
    PyObject *shape = PyObject_GetAttr(a, s_shape);
    if (shape == NULL)
        return -1;
    PyObject *want = PyObject_GetAttr(aval, s_shape);
    if (want == NULL) {
        Py_DECREF(shape);
        return -1;
    }
    int eq = PyObject_RichCompareBool(shape, want, Py_EQ);
    Py_DECREF(shape);
    Py_DECREF(want);
    return eq;
}

/* 1 if `args` (n Arrays) match the hit's signature, 0 if not, -1 on error. */
static int
matches(Hit *h, PyObject *const *args, Py_ssize_t n)
{
    if (PyTuple_GET_SIZE(h->avals) != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = args[i];
        if (h->kinds != Py_None) {   /* a Python scalar of its very type, or NumPy data? */
            PyObject *kind = PyTuple_GET_ITEM(h->kinds, i);
            if (kind != Py_None) {
                if (!PyType_Check(kind)) {    /* a dtype: NumPy data of it, of the aval's shape */
                    int ok = host_array_matches(a, kind, PyTuple_GET_ITEM(h->avals, i));
                    if (ok <= 0)
                        return ok;
                    continue;
                }
                if ((PyObject *)Py_TYPE(a) != kind)
                    return 0;
                continue;                     /* (its aval follows from type and config) */
            }
        }
        if (Py_TYPE(a) != array_type)
            return 0;
        PyObject *aval = SLOT(a, off_aval), *want = PyTuple_GET_ITEM(h->avals, i);
        if (aval == NULL || SLOT(a, off_buf) == NULL)
            return 0;
        if (aval != want) {
            if (surely_differ(aval, want))
                return 0;
            int eq = PyObject_RichCompareBool(aval, want, Py_EQ);
            if (eq <= 0)
                return eq;
        }
        /* every Array's sharding object is `where` (one per device and kind, committed or
           not): the call runs where the hit's did, its results as committed */
        PyObject *sharding = PyObject_GetAttr(SLOT(a, off_buf), s_sharding);
        if (sharding == NULL)
            return -1;
        int same = sharding == h->where;
        Py_DECREF(sharding);
        if (!same)
            return 0;
    }
    return 1;                                 /* (scalars alone: the default device's) */
}

/* A donating program's Arrays, before it runs: each one's cached NumPy view dropped (as
   Executable.call_arrays does: a view would make XLA skip the donation). */
static void
drop_views(Hit *h, PyObject *const *args)
{
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(h->donate); j++) {
        PyObject *a = args[PyLong_AsSsize_t(PyTuple_GET_ITEM(h->donate, j))];  /* (checked) */
        Py_XSETREF(SLOT(a, off_npy), Py_NewRef(Py_None));
    }
}

/* ... and after it ran, what Executable.call_arrays does after its run: each one's buffer
   deleted (XLA skips a donation that a NumPy view the user holds blocks; jaxlib's delete() of
   a donated buffer does nothing, and costs less than asking is_deleted() first), its place
   taken by a Gone saying where it went (xla/deleted.py's `mark`: the slots written here, as
   an Array's are, with no Python __init__ run), and, once, the executable's `ran` set (a
   donated Array given to it again is then JAX's ValueError). */
static int
donated(Hit *h, PyObject *const *args)
{
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(h->donate); j++) {
        PyObject *a = args[PyLong_AsSsize_t(PyTuple_GET_ITEM(h->donate, j))];   /* (checked) */
        PyObject *buf = SLOT(a, off_buf);
        if (buf == NULL || Py_IS_TYPE(buf, gone_type))    /* (marked: the first reason stays) */
            continue;
        Py_INCREF(buf);                                   /* (the Gone's, below) */
        PyObject *done = PyObject_CallMethodNoArgs(buf, s_delete);
        PyObject *gone = done != NULL ? gone_type->tp_alloc(gone_type, 0) : NULL;
        Py_XDECREF(done);
        if (gone == NULL) {
            Py_DECREF(buf);
            return -1;
        }
        SLOT(gone, off_gone_buf) = buf;
        SLOT(gone, off_gone_why) = Py_NewRef(PyTuple_GET_ITEM(h->whys, j));
        SLOT(gone, off_gone_aval) = Py_NewRef(SLOT(a, off_aval));     /* (matched: set) */
        Py_XSETREF(SLOT(a, off_buf), gone);
    }
    if (!h->ran) {
        if (PyObject_SetAttr(h->executable, s_ran, Py_True) < 0)
            return -1;
        h->ran = 1;
    }
    return 0;
}

static PyObject *
run(Hit *h, PyObject *const *args, Py_ssize_t n)
{
    Py_ssize_t c = PyTuple_GET_SIZE(h->consts);
    if (h->donate != Py_None)                 /* (matched: those are Arrays) */
        drop_views(h, args);
    Py_ssize_t taken = n;                     /* the arguments the program takes */
    if (h->unused != NULL)
        for (Py_ssize_t i = 0; i < n; i++)
            taken -= h->unused[i];
    PyObject *bufs = PyList_New(c + taken);
    if (bufs == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < c; i++)
        PyList_SET_ITEM(bufs, i, Py_NewRef(PyTuple_GET_ITEM(h->consts, i)));
    for (Py_ssize_t i = 0, k = c; i < n; i++) {
        PyObject *buf;
        if (h->unused != NULL && h->unused[i])
            continue;                         /* (not read: never moved, never passed) */
        PyObject *kind = h->kinds != Py_None ? PyTuple_GET_ITEM(h->kinds, i) : Py_None;
        if (kind != Py_None) {                /* NumPy data is given its (checked) aval too */
            buf = PyType_Check(kind) ?
                PyObject_CallFunctionObjArgs(h->put, args[i], h->where, NULL) :
                PyObject_CallFunctionObjArgs(h->put, args[i], h->where,
                                             PyTuple_GET_ITEM(h->avals, i), NULL);
            if (buf == NULL) {
                Py_DECREF(bufs);
                return NULL;
            }
        } else {
            buf = Py_NewRef(SLOT(args[i], off_buf));
        }
        PyList_SET_ITEM(bufs, k++, buf);
    }
    PyObject *results = PyObject_CallOneArg(h->execute, bufs);
    Py_DECREF(bufs);
    if (results == NULL)
        return NULL;
    if (h->donate != Py_None && donated(h, args) < 0) {
        Py_DECREF(results);
        return NULL;
    }
    PyObject *outs = PyObject_CallMethodOneArg(results, s_consume, h->handlers);
    Py_DECREF(results);
    if (outs == NULL)
        return NULL;
    Py_ssize_t m = PyTuple_GET_SIZE(h->out_avals);
    if (!PyList_Check(outs) || PyList_GET_SIZE(outs) != m) {
        Py_DECREF(outs);
        PyErr_SetString(PyExc_RuntimeError, "consume_with_handlers gave an unexpected result");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < m; i++) {      /* wrap each buffer in an Array, in place */
        PyObject *array = array_type->tp_alloc(array_type, 0);
        if (array == NULL) {
            Py_DECREF(outs);
            return NULL;
        }
        SLOT(array, off_buf) = Py_NewRef(PyList_GET_ITEM(outs, i));
        SLOT(array, off_aval) = Py_NewRef(PyTuple_GET_ITEM(h->out_avals, i));
        SLOT(array, off_npy) = Py_NewRef(Py_None);
        SLOT(array, off_sharding) = Py_NewRef(Py_None);     /* one device, no mesh */
        PyList_SetItem(outs, i, array);       /* steals array, drops the buffer's reference */
    }
    return outs;
}

/* Count a hit on a jit cache entry, or not where the notebook looks at this call
   (core/watches.py: a watched program's `hits` reached its `look_at`): 1, the call left to
   Python's path; 0, counted; -1, an error. */
static int
count_hit(PyObject *entry)
{
    PyObject *hits = PyObject_GetAttr(entry, s_hits);
    if (hits == NULL)
        return -1;
    PyObject *at = PyObject_GetAttr(entry, s_look_at);
    int due = at == NULL ? -1 : PyObject_RichCompareBool(hits, at, Py_GE);
    Py_XDECREF(at);
    if (due != 0) {
        Py_DECREF(hits);
        return due;
    }
    PyObject *more = PyNumber_Add(hits, one);
    Py_DECREF(hits);
    if (more == NULL)
        return -1;
    int rc = PyObject_SetAttr(entry, s_hits, more);
    Py_DECREF(more);
    return rc;
}

/* What a call's Hits are checked against, read once for all of a key's Hits: config's
   _generation and (for jit) ctx.trace, held until the call is done (only their identities
   are compared). */
typedef struct {
    PyObject *generation;
    PyObject *trace;        /* NULL: not read (an eager call: its caller checked it) */
} Now;

static int
now_read(Now *now, int with_trace)
{
    now->trace = NULL;
    now->generation = PyObject_GetAttr(config_obj, s_generation);
    if (now->generation == NULL)
        return -1;
    if (with_trace && (now->trace = PyObject_GetAttr(ctx_obj, s_trace)) == NULL) {
        Py_CLEAR(now->generation);
        return -1;
    }
    return 0;
}

static void
now_done(Now *now)
{
    Py_CLEAR(now->generation);
    Py_CLEAR(now->trace);
}

/* The hit on n arguments (params: the eager call's, NULL for jit) at `now`: the results, a
   new reference to MISS where the arguments or the config do not match, or NULL on an
   error. */
static PyObject *
hit_run(Hit *h, PyObject *const *args, Py_ssize_t n, PyObject *params, const Now *now)
{
    if (now->generation != h->generation)
        return Py_NewRef(miss);
    if (h->check_trace && now->trace != eval_trace)    /* (a jit's: read, not NULL) */
        return Py_NewRef(miss);
    int ok = matches(h, args, n);
    if (ok <= 0)
        return ok < 0 ? NULL : Py_NewRef(miss);
    if (h->params != Py_None) {
        if (params == NULL)
            return Py_NewRef(miss);
        if (params != h->params) {
            int eq = PyObject_RichCompareBool(params, h->params, Py_EQ);
            if (eq <= 0)
                return eq < 0 ? NULL : Py_NewRef(miss);
        }
    }
    if (h->entry != Py_None) {
        int due = count_hit(h->entry);
        if (due != 0)
            return due < 0 ? NULL : Py_NewRef(miss);
    }
    PyObject *outs = run(h, args, n);
    if (outs == NULL || h->finish == Py_None)
        return outs;
    PyObject *result = PyObject_CallOneArg(h->finish, outs);
    Py_DECREF(outs);
    return result;
}

/* recursion_room.after_error and its LEND (room_hook), or NULL: called where a Hit's flatten
   raised. jaxlib's flatten keeps the recursion levels it was in when it raises (all of them
   for a dict that holds itself), and the call of `_python_call` that follows a miss would then
   fail for want of a level: so this thread's counter is lent LEND levels (the field
   Py_EnterRecursiveCall takes from: PyThreadState's recursion_remaining on 3.11,
   c_recursion_remaining on 3.12 and 3.13, cpython/pystate.h), the hook gives back what was
   lost, and the loan is taken back, the flatten's error kept for the caller. */
static PyObject *room_hook;
static int room_lend;

static void
give_back_room(void)
{
    if (room_hook == NULL)
        return;
    PyThreadState *ts = PyThreadState_Get();
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *error = PyErr_GetRaisedException();
    ts->c_recursion_remaining += room_lend;
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    ts->recursion_remaining += room_lend;
#endif
    PyObject *given = PyObject_CallNoArgs(room_hook);
    if (given == NULL)
        PyErr_Clear();
    Py_XDECREF(given);
#if PY_VERSION_HEX >= 0x030C0000
    ts->c_recursion_remaining -= room_lend;
    PyErr_SetRaisedException(error);
#else
    ts->recursion_remaining -= room_lend;
    PyErr_Restore(type, value, tb);
#endif
}

/* set_room_hook(after_error, lend): see room_hook. */
static PyObject *
set_room_hook(PyObject *self, PyObject *args)
{
    PyObject *hook;
    int lend;
    if (!PyArg_ParseTuple(args, "Oi", &hook, &lend))
        return NULL;
    Py_XSETREF(room_hook, Py_NewRef(hook));
    room_lend = lend;
    Py_RETURN_NONE;
}

/* The hit on a jit call's n arguments: hit_run on them, or, for a Hit with a tree (containers
   among them: a dict of arrays, a model's parameters), on their leaves, where flatten(args)
   gives the tree it holds (compared by identity, else by PyTreeDef's own ==, in C++). */
static PyObject *
hit_run_args(Hit *h, PyObject *const *args, Py_ssize_t n, const Now *now)
{
    if (h->tree == Py_None)
        return hit_run(h, args, n, NULL, now);
    PyObject *tuple = PyTuple_New(n);
    if (tuple == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
    PyObject *flat = PyObject_CallOneArg(h->flatten, tuple), *out = NULL;
    Py_DECREF(tuple);
    if (flat == NULL) {
        give_back_room();       /* what the flatten kept where it raised (see room_hook) */
        return NULL;
    }
    if (!PyTuple_Check(flat) || PyTuple_GET_SIZE(flat) != 2 ||
            !PyList_Check(PyTuple_GET_ITEM(flat, 0))) {
        Py_DECREF(flat);
        return Py_NewRef(miss);
    }
    PyObject *leaves = PyTuple_GET_ITEM(flat, 0), *tree = PyTuple_GET_ITEM(flat, 1);
    int same = tree == h->tree ? 1 : PyObject_RichCompareBool(tree, h->tree, Py_EQ);
    if (same > 0)               /* (the list is flat's: nothing here changes it) */
        out = hit_run(h, PySequence_Fast_ITEMS(leaves), PyList_GET_SIZE(leaves), NULL, now);
    else if (same == 0)
        out = Py_NewRef(miss);
    Py_DECREF(flat);
    return out;
}

/* The hit on a jit call's n dynamic arguments as the call gives them: for a Hit with an
   `order` (keyword arguments among them), taken in the flat order it picks, else as they
   are; then hit_run_args. */
static PyObject *
jit_run(Hit *h, PyObject *const *args, Py_ssize_t n, const Now *now)
{
    if (h->order == NULL)
        return hit_run_args(h, args, n, now);
    if (h->norder != n)                       /* (another count: another call's Hit) */
        return Py_NewRef(miss);
    PyObject *flat[MAX_STATIC_CALL_ARGS];     /* (its order: at most 32 indices, each < n) */
    for (Py_ssize_t i = 0; i < n; i++)
        flat[i] = args[h->order[i]];          /* (borrowed: the caller holds its arguments) */
    return hit_run_args(h, flat, n, now);     /* (containers among them: flattened there) */
}

/* hit(args) for jit, hit(args, params) for an eager primitive. */
static PyObject *
hit_call(Hit *h, PyObject *call_args, PyObject *kwds)
{
    PyObject *args, *params = NULL;
    if (!PyArg_UnpackTuple(call_args, "Hit", 1, 2, &args, &params))
        return NULL;
    if (!PyTuple_Check(args))
        return Py_NewRef(miss);
    Now now;
    if (now_read(&now, h->check_trace) < 0)
        return NULL;
    PyObject *out = params == NULL ?
        hit_run_args(h, PySequence_Fast_ITEMS(args), PyTuple_GET_SIZE(args), &now) :
        hit_run(h, PySequence_Fast_ITEMS(args), PyTuple_GET_SIZE(args), params, &now);
    now_done(&now);
    return out;
}

static PyMemberDef hit_members[] = {
    {"generation", Py_T_OBJECT_EX, offsetof(Hit, generation), 0, "config._generation it holds for"},
    {"avals", Py_T_OBJECT_EX, offsetof(Hit, avals), Py_READONLY, "the arguments' avals"},
    {NULL, 0, 0, 0, NULL}
};

static PyTypeObject HitType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "jxkernel.xla._fastpath.Hit",
    .tp_basicsize = sizeof(Hit),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A cache hit's signature and executable; call it with (args) or (args, params).",
    .tp_new = hit_new,
    .tp_call = (ternaryfunc)hit_call,
    .tp_traverse = (traverseproc)hit_traverse,
    .tp_clear = (inquiry)hit_clear,
    .tp_dealloc = (destructor)hit_dealloc,
    .tp_members = hit_members,
};

/* ---------------------------------------------------------------- entry points
   An EntryPoint stands in front of one Python function (its fallback) as a method of the
   class whose body chose it. Each tries a Hit and otherwise calls the fallback with the very
   arguments it was given: anything unusual, a miss or an error (which the Python path then
   reports in its own words) goes there. */
enum { BIND, READY, OPERATOR };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback;     /* the Python function this stands in front of */
    PyObject *primitive;    /* operator: the primitive whose last eager run it tries */
    PyObject *name;         /* its name in its class (__set_name__), or NULL */
    PyObject *qualname;     /* Class.name, or NULL */
    int kind;
    int min_alike;          /* operator: 1 (one integer or inexact type), 2 (inexact: /) */
} EntryPoint;

static PyTypeObject EntryPointType;
static PyObject *s_native, *s_block, *no_params;

#define MAX_HITS_PER_KEY 16   /* a longer tuple: its first 16 (jit.cache.Recent keeps 8) */

/* One Hit's results on these arguments: a new reference, MISS, or NULL on an error. */
static PyObject *
one_hit(Hit *h, PyObject *const *args, Py_ssize_t n, PyObject *params, const Now *now)
{
    return params == NULL ? jit_run(h, args, n, now) : hit_run(h, args, n, params, now);
}

/* `holder.native`'s results on these arguments, or NULL with no exception set: no Hit there
   (or one whose operands are less `alike` than asked), a miss, or an error (left to the
   Python path to report). `native` is a Hit (an eager primitive's last run, a LastHit), or a
   tuple of Hits (jit.cache.Recent: a `_last` key's several signatures, newest first), tried
   in turn until one matches: f(a) and f(i), f(x=a) and f(x=i) called in turn each hit, as in
   JAX's C++ cache, which holds every signature. Each miss is cheap (an identity, a type, a
   cached hash: no Python code), and config and trace are read once for all of them. */
static PyObject *
try_native(PyObject *holder, PyObject *const *args, Py_ssize_t n, PyObject *params,
           int min_alike)
{
    PyObject *out = NULL, *native = PyObject_GetAttr(holder, s_native);
    Py_ssize_t count = native == NULL ? 0 : Py_IS_TYPE(native, &HitType) ? 1 :
        PyTuple_CheckExact(native) ? PyTuple_GET_SIZE(native) : 0;
    PyObject *const *hits = count == 1 && !PyTuple_CheckExact(native) ? &native :
        count > 0 ? PySequence_Fast_ITEMS(native) : NULL;   /* (the tuple holds them) */
    Now now;
    if (count > 0 && array_type != NULL && now_read(&now, params == NULL) == 0) {
        for (Py_ssize_t i = 0; i < count && i < MAX_HITS_PER_KEY; i++) {
            if (!Py_IS_TYPE(hits[i], &HitType) || ((Hit *)hits[i])->alike < min_alike)
                continue;
            out = one_hit((Hit *)hits[i], args, n, params, &now);
            if (out != miss)                  /* (results, or an error: the Python path's) */
                break;
            Py_CLEAR(out);
        }
        now_done(&now);
    }
    Py_XDECREF(native);
    if (out != NULL && out == miss) {
        Py_DECREF(out);
        out = NULL;
    }
    if (out == NULL)
        PyErr_Clear();
    return out;
}

/* The last run of `primitive` (a borrowed reference), when eager (ctx.trace is eval_trace);
   NULL with no exception set otherwise. */
static PyObject *
eager_last_run(PyObject *primitive)
{
    if (last_runs == NULL)                              /* (before setup) */
        return NULL;
    PyObject *trace = PyObject_GetAttr(ctx_obj, s_trace);
    if (trace == NULL) {
        PyErr_Clear();
        return NULL;
    }
    Py_DECREF(trace);                                   /* (only its identity is compared) */
    if (trace != eval_trace)
        return NULL;
    PyObject *last = PyDict_GetItemWithError(last_runs, primitive);
    if (last == NULL)
        PyErr_Clear();
    return last;
}

/* ---------------------------------------------------------------- jitted functions
   JitFunction: the C base of transforms/jit/function.py's Jitted (JAX's PjitFunction is a C++ type
   too). Why a type, where the other hot methods are EntryPoints: a call of an instance of a
   Python class goes through its type's tp_call, slot_tp_call, which looks `__call__` up,
   and for keyword arguments makes a dict of them that _PyObject_Call_Prepend then unpacks
   again into a fresh tuple of names, about 100 ns of the 650 that `g(x, n=3)` spent in C
   (benchmarks/README.md, "Stop 61"). An instance of this type is called by vectorcall,
   with the call site's own stack and keyword names, and reads its `_last` (the jit's dict of
   Recents) and `_static_at` (its sorted static positions) from its own struct. A miss, and
   anything unusual, calls `self._python_call(*args, **kwargs)` with the same arguments.

   Python 3.12 gives a class deriving from a vectorcall type the vectorcall too; 3.11 only
   gives it to immutable (C) classes, and a Python class's calls would go through
   PyVectorcall_Call, with the keywords in a dict again. __init_subclass__ sets the flag on
   3.11 as 3.12 does, for a subclass that keeps the inherited call; a class whose `__call__`
   is assigned later (which 3.12 handles by clearing the flag) is seen by jitfn_vectorcall,
   which then calls that class's own tp_call. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *last;          /* `_last`: {LAST_HIT, a static key or keyword names: Recent} */
    PyObject *static_at;     /* `_static_at`: the static positions, sorted (ints) */
    PyObject *static_names;  /* `_static_argnames`: a frozenset of the static names */
} JitFunction;

static PyObject *s_last_hit, *s_python_call;

/* A call with static arguments: its Recent hits are last[k], k the call's static key as
   jit.args.static_key makes it: (keyword names, the positional arguments at the sorted
   positions `at` that the call passes, then the keyword arguments named in `static_names`
   (in call order), then the types of those values). The other arguments are the
   Hit's, the positional ones and then the dynamic keywords' values in call order, which a
   Hit with an `order` (jit.cache.c_last_hit's, for keywords among them) puts in flat order.
   NULL, an exception set or not, where it does not hit (the caller clears it). */
static PyObject *
static_hit(PyObject *at, PyObject *static_names, PyObject *last, PyObject *const *args,
           Py_ssize_t n, PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    if (n + nkw > MAX_STATIC_CALL_ARGS)
        return NULL;
    PyObject *dyn[MAX_STATIC_CALL_ARGS], *stat[MAX_STATIC_CALL_ARGS];
    Py_ssize_t ndyn = 0, nstat = 0, nat = PyTuple_GET_SIZE(at), next = 0;
    for (Py_ssize_t i = 0; i < n; i++) {      /* (positions sorted, each once, none < 0) */
        Py_ssize_t pos = next < nat ? PyLong_AsSsize_t(PyTuple_GET_ITEM(at, next)) : -1;
        if (pos == i) {
            stat[nstat++] = args[i];
            next++;
        } else {
            dyn[ndyn++] = args[i];
        }
    }
    if (PyErr_Occurred())                     /* (a position that is not an int) */
        return NULL;
    for (Py_ssize_t j = 0; j < nkw; j++) {    /* (a str in a frozenset: its cached hash) */
        int is_static = PySet_Contains(static_names, PyTuple_GET_ITEM(kwnames, j));
        if (is_static < 0)
            return NULL;
        if (is_static)
            stat[nstat++] = args[n + j];
        else
            dyn[ndyn++] = args[n + j];
    }
    Py_ssize_t m = nstat;
    if (m == 0)                     /* nothing static passed: LAST_HIT's or keyword_hit's */
        return NULL;
    PyObject *key = PyTuple_New(1 + 2 * m);
    if (key == NULL)
        return NULL;
    PyObject *names = nkw ? Py_NewRef(kwnames) : PyTuple_New(0);
    if (names == NULL) {
        Py_DECREF(key);
        return NULL;
    }
    PyTuple_SET_ITEM(key, 0, names);
    for (Py_ssize_t j = 0; j < m; j++) {
        PyObject *value = stat[j];
        PyTuple_SET_ITEM(key, 1 + j, Py_NewRef(value));
        PyTuple_SET_ITEM(key, 1 + m + j, Py_NewRef((PyObject *)Py_TYPE(value)));
    }
    /* hashing runs the values' __hash__ (an unhashable one raises: the Python path then
       raises JAX's error), the lookup their __eq__; the Recent found is taken (INCREF)
       before anything else can run Python code */
    PyObject *out = NULL, *hit = PyDict_GetItemWithError(last, key);
    if (hit != NULL) {
        Py_INCREF(hit);
        out = try_native(hit, dyn, ndyn, NULL, 0);
        Py_DECREF(hit);
    }
    Py_DECREF(key);
    return out;
}

/* A call with keyword arguments, all dynamic (JAX's C++ path keys their names and takes their
   values as arguments): its Recent hits are last[kwnames], made by jit.py's _call for a call that
   passes no static argument (jit.cache.keyword_hit). Its Hit takes the arguments in their
   flat order, the positional ones and then the keywords' values sorted by name (as a dict
   flattens), which its `order` picks from the call's stack. So f(x=a, y=b) and f(y=b, x=a)
   run one program (one cache entry, as in JAX), each order with its own LastHit. NULL, an
   exception set or not, where it does not hit (the caller clears it). */
static PyObject *
keyword_hit(PyObject *last, PyObject *const *args, Py_ssize_t total, PyObject *kwnames)
{
    PyObject *holder = PyDict_GetItemWithError(last, kwnames);       /* borrowed */
    if (holder == NULL)
        return NULL;
    Py_INCREF(holder);
    PyObject *out = try_native(holder, args, total, NULL, 0);   /* (its Hit: jit_run's order) */
    Py_DECREF(holder);
    return out;
}

/* Whether a call passes any static argument: a keyword (where a static LastHit exists,
   every keyword is static), or a positional one at or past the first static position. */
static int
passes_static(PyObject *at, Py_ssize_t nargs, Py_ssize_t nkw)
{
    if (nkw > 0)
        return 1;
    if (PyTuple_GET_SIZE(at) == 0)
        return 0;
    Py_ssize_t first = PyLong_AsSsize_t(PyTuple_GET_ITEM(at, 0));
    return first >= 0 && nargs > first;      /* (-1, an error: cleared by the caller) */
}

/* The call through the type's own tp_call, for a Python class that assigned `__call__` after
   __init_subclass__ gave it the vectorcall flag (Python 3.11 keeps the flag then). */
static PyObject *
call_tp_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *tuple = PyTuple_New(nargs), *kwargs = nkw ? PyDict_New() : NULL, *out = NULL;
    int ok = tuple != NULL && (nkw == 0 || kwargs != NULL);
    for (Py_ssize_t i = 0; ok && i < nargs; i++)
        PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
    for (Py_ssize_t i = 0; ok && i < nkw; i++)
        ok = PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) == 0;
    if (ok)
        out = Py_TYPE(self)->tp_call(self, tuple, kwargs);
    Py_XDECREF(tuple);
    Py_XDECREF(kwargs);
    return out;
}

/* self._python_call(*args, **kwargs), with the very arguments of the call. */
static PyObject *
jitfn_fallback(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t total = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    if (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) {     /* args[-1] is ours to borrow */
        PyObject **stack = (PyObject **)args - 1, *saved = stack[0];
        stack[0] = self;
        PyObject *out = PyObject_VectorcallMethod(s_python_call, stack, nargs + 1, kwnames);
        stack[0] = saved;
        return out;
    }
    PyObject **stack = PyMem_Malloc((total + 1) * sizeof(PyObject *));
    if (stack == NULL)
        return PyErr_NoMemory();
    stack[0] = self;
    memcpy(stack + 1, args, total * sizeof(PyObject *));
    PyObject *out = PyObject_VectorcallMethod(s_python_call, stack, nargs + 1, kwnames);
    PyMem_Free(stack);
    return out;
}

/* A jitted function's call: the recent hits of its keyword names for a call with dynamic
   keyword arguments (keyword_hit), those of `_last[LAST_HIT]` for a call that passes no static
   argument, else those of the call's static arguments (static_hit); each key's several
   signatures tried in turn (try_native). */
static PyObject *
jitfn_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (Py_TYPE(self)->tp_call != PyVectorcall_Call)   /* `__call__` reassigned (3.11) */
        return call_tp_call(self, args, PyVectorcall_NARGS(nargsf), kwnames);
    JitFunction *f = (JitFunction *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    if (f->last != NULL && PyDict_CheckExact(f->last) && PyDict_GET_SIZE(f->last) > 0 &&
            f->static_at != NULL && PyTuple_CheckExact(f->static_at) &&
            f->static_names != NULL && PyFrozenSet_CheckExact(f->static_names)) {
        /* both taken: a hit counts on its entry, and could reach Python code that sets them */
        PyObject *last = Py_NewRef(f->last), *at = Py_NewRef(f->static_at), *out = NULL;
        if (nkw > 0 && (out = keyword_hit(last, args, nargs + nkw, kwnames)) == NULL)
            PyErr_Clear();                    /* (then as static keywords, else Python) */
        if (out == NULL && passes_static(at, nargs, nkw)) {
            out = static_hit(at, f->static_names, last, args, nargs, kwnames);
        } else if (out == NULL && !PyErr_Occurred()) {
            PyObject *hit = PyDict_GetItemWithError(last, s_last_hit);   /* borrowed */
            if (hit != NULL) {
                Py_INCREF(hit);
                out = try_native(hit, args, nargs, NULL, 0);
                Py_DECREF(hit);
            }
        }
        Py_DECREF(last);
        Py_DECREF(at);
        PyErr_Clear();
        if (out != NULL)
            return out;
    }
    return jitfn_fallback(self, args, nargsf, kwnames);
}

static PyObject *
jitfn_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    JitFunction *f = (JitFunction *)type->tp_alloc(type, 0);  /* (__init__ takes the args) */
    if (f == NULL)
        return NULL;
    f->vectorcall = jitfn_vectorcall;
    f->last = PyDict_New();                  /* (until __init__ gives the shared ones) */
    f->static_at = PyTuple_New(0);
    f->static_names = PyFrozenSet_New(NULL);
    if (f->last == NULL || f->static_at == NULL || f->static_names == NULL) {
        Py_DECREF(f);
        return NULL;
    }
    return (PyObject *)f;
}

static int
jitfn_traverse(JitFunction *f, visitproc visit, void *arg)
{
    Py_VISIT(f->last);
    Py_VISIT(f->static_at);
    Py_VISIT(f->static_names);
    return 0;
}

static int
jitfn_clear(JitFunction *f)
{
    Py_CLEAR(f->last);
    Py_CLEAR(f->static_at);
    Py_CLEAR(f->static_names);
    return 0;
}

static void
jitfn_dealloc(JitFunction *f)
{
    PyObject_GC_UnTrack(f);
    jitfn_clear(f);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

/* The vectorcall flag for a subclass that keeps this type's call (see above); no arguments,
   as object.__init_subclass__. */
static PyObject *
jitfn_init_subclass(PyObject *cls, PyObject *args, PyObject *kwds)
{
    if (PyTuple_GET_SIZE(args) != 0 || (kwds != NULL && PyDict_GET_SIZE(kwds) != 0)) {
        PyErr_SetString(PyExc_TypeError, "JitFunction.__init_subclass__() takes no arguments");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    if (type->tp_call == PyVectorcall_Call &&
            type->tp_vectorcall_offset == offsetof(JitFunction, vectorcall))
        type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    Py_RETURN_NONE;
}

static PyMethodDef jitfn_methods[] = {
    {"__init_subclass__", (PyCFunction)(void (*)(void))jitfn_init_subclass,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, "Give the subclass this type's vectorcall."},
    {NULL, NULL, 0, NULL}
};

static PyMemberDef jitfn_members[] = {
    {"_last", Py_T_OBJECT_EX, offsetof(JitFunction, last), 0,
     "{LAST_HIT, a static key or keyword names: its Recent hits} (transforms/jit/cache.py)"},
    {"_static_at", Py_T_OBJECT_EX, offsetof(JitFunction, static_at), 0,
     "the static positions, sorted (jit.args.static_key's `at`)"},
    {"_static_argnames", Py_T_OBJECT_EX, offsetof(JitFunction, static_names), 0,
     "the static names, a frozenset (jit.args.Arguments')"},
    {NULL, 0, 0, 0, NULL}
};

static PyTypeObject JitFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "jxkernel.core._fastpath.JitFunction",
    .tp_basicsize = sizeof(JitFunction),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "The compiled base of a jitted function: its call tries its recent hits in C.",
    .tp_vectorcall_offset = offsetof(JitFunction, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = jitfn_new,
    .tp_traverse = (traverseproc)jitfn_traverse,
    .tp_clear = (inquiry)jitfn_clear,
    .tp_dealloc = (destructor)jitfn_dealloc,
    .tp_methods = jitfn_methods,
    .tp_members = jitfn_members,
};

/* ---------------------------------------------------------------- the buffer protocol

   ArrayBuffer: the C base of xla/array.py's ArrayImpl, there for one thing, the buffer
   protocol (`memoryview(x)`, PEP 3118), which a Python class can export only from Python
   3.12 (`__buffer__`, PEP 688); a C type's tp_as_buffer is inherited by its Python
   subclasses on every version. It adds no field (its size is a bare object's), so
   ArrayImpl's slots keep their offsets; its __new__ is PyType_GenericNew (a static type
   without one cannot be instantiated; `Array.__new__(Array)` is it, `object.__new__(Array)`
   is refused as "not safe").

   getbuffer calls the Array's `_buffer_host(flags)`, which checks what JAX's checks (one
   CPU buffer, a type with a PEP 3118 format, read-only, alive: JAX's BufferError words) and
   returns its host value, a read-only NumPy array (`_value`, kept in `_npy`), and JAX's
   format string ('=f', '=q': NumPy's own says 'f', 'l'); the view is that array's own,
   taken into a Py_buffer held in `internal` (with the format) and given back by
   releasebuffer, with the Array as its `obj` (as JAX's memoryview(x).obj is x). The NumPy
   array holds the jaxlib buffer's host view, so a later x.delete() leaves the view readable
   (JAX's external reference does the same). NumPy asks the buffer protocol first when it
   converts an object (np.asarray(x)); where it is refused, NumPy clears the error and reads
   `__array__` (bfloat16, float8, int4, an array over several devices), as with JAX's.

   C-API (3.11-3.13, none deprecated): PyBufferProcs' bf_getbuffer/bf_releasebuffer,
   PyObject_GetBuffer, PyBuffer_Release, PyObject_CallMethodOneArg (3.9), PyUnicode_AsUTF8
   (its buffer lives as long as the str, held here until release). */
static PyObject *s_buffer_host;

typedef struct {
    Py_buffer host;         /* the host value's own view, released with the Array's */
    PyObject *format;       /* JAX's format string (a str: its UTF-8 is the view's format) */
} HostView;

static int
array_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    PyObject *f = PyLong_FromLong(flags);
    if (f == NULL)
        return -1;
    /* (value, format): the checks and their BufferErrors are Python's (xla/array.py) */
    PyObject *answer = PyObject_CallMethodOneArg(self, s_buffer_host, f);
    Py_DECREF(f);
    if (answer == NULL)
        return -1;
    if (!PyTuple_CheckExact(answer) || PyTuple_GET_SIZE(answer) != 2 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(answer, 1))) {
        Py_DECREF(answer);
        PyErr_SetString(PyExc_TypeError, "_buffer_host() must return (value, format)");
        return -1;
    }
    const char *format = PyUnicode_AsUTF8(PyTuple_GET_ITEM(answer, 1));
    HostView *held = format == NULL ? NULL : PyMem_Malloc(sizeof(HostView));
    if (held == NULL) {
        Py_DECREF(answer);
        if (format != NULL)
            PyErr_NoMemory();
        return -1;
    }
    if (PyObject_GetBuffer(PyTuple_GET_ITEM(answer, 0), &held->host, flags) < 0) {
        Py_DECREF(answer);
        PyMem_Free(held);
        return -1;
    }
    held->format = Py_NewRef(PyTuple_GET_ITEM(answer, 1));
    Py_DECREF(answer);              /* (held->host.obj holds the value) */
    *view = held->host;
    if (view->format != NULL)       /* asked for (PyBUF_FORMAT) */
        view->format = (char *)format;
    view->obj = Py_NewRef(self);
    view->internal = held;
    return 0;
}

static void
array_releasebuffer(PyObject *self, Py_buffer *view)
{
    HostView *held = (HostView *)view->internal;
    if (held != NULL) {
        PyBuffer_Release(&held->host);
        Py_DECREF(held->format);
        PyMem_Free(held);
        view->internal = NULL;
    }
}

static PyBufferProcs array_buffer_procs = {
    .bf_getbuffer = array_getbuffer,
    .bf_releasebuffer = array_releasebuffer,
};

static PyTypeObject ArrayBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "jxkernel.core._fastpath.ArrayBuffer",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The compiled base of ArrayImpl: the buffer protocol (memoryview(x)).",
    .tp_as_buffer = &array_buffer_procs,
    .tp_new = PyType_GenericNew,    /* (a static type without one could not be instantiated) */
};

/* Primitive.bind(self, *args, **params): at the top level, the primitive's last eager run
   (dispatch._last_run), unless the primitive has an impl rule (which runs instead). */
static PyObject *
prim_bind(EntryPoint *e, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *last = nargs > 1 ? eager_last_run(args[0]) : NULL;        /* borrowed */
    Py_XINCREF(last);                     /* (taken before a lookup that could run Python) */
    if (last != NULL && PyDict_Contains(impl_rules, args[0]) == 0) {
        PyObject *params = PyDict_New(), *out = NULL;
        Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        int ok = params != NULL;
        for (Py_ssize_t i = 0; ok && i < nkw; i++)
            ok = PyDict_SetItem(params, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) == 0;
        if (ok)
            out = try_native(last, args + 1, nargs - 1, params, 0);
        Py_XDECREF(params);
        if (out != NULL) {
            Py_DECREF(last);
            return out;
        }
    }
    Py_XDECREF(last);
    PyErr_Clear();
    return PyObject_Vectorcall(e->fallback, args, nargsf, kwnames);
}

/* Array.block_until_ready(self): the buffer's own wait; a failure (or a deleted buffer)
   goes to the Python method, which raises jaxlib's error or jxkernel's. */
static PyObject *
array_ready(EntryPoint *e, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 1 && kwnames == NULL && array_type != NULL &&
            PyObject_TypeCheck(args[0], array_type)) {
        PyObject *buf = SLOT(args[0], off_buf);
        if (buf != NULL) {
            Py_INCREF(buf);                             /* (the wait releases the GIL) */
            PyObject *done = PyObject_CallMethodNoArgs(buf, s_block);
            Py_DECREF(buf);
            if (done != NULL) {
                Py_DECREF(done);
                return Py_NewRef(args[0]);
            }
            PyErr_Clear();
        }
    }
    return PyObject_Vectorcall(e->fallback, args, nargsf, kwnames);
}

/* Array's +, -, *, /: with two Arrays whose types equal the ones the operator's primitive
   last ran on eagerly, and these alike (one dtype, weak type and shape, not bool; inexact
   for /), jnp's promotion would change nothing and the operator binds the primitive to the
   two as they are: run its last run's Hit. Anything else goes to the Python operator. */
static PyObject *
array_operator(EntryPoint *e, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 2 && kwnames == NULL && array_type != NULL &&
            Py_TYPE(args[0]) == array_type && Py_TYPE(args[1]) == array_type) {
        PyObject *last = eager_last_run(e->primitive), *out = NULL;     /* borrowed */
        if (last != NULL) {
            Py_INCREF(last);
            out = try_native(last, args, 2, no_params, e->min_alike);
            Py_DECREF(last);
        }
        if (out != NULL)
            return out;
    }
    return PyObject_Vectorcall(e->fallback, args, nargsf, kwnames);
}

static PyObject *
entry_new(int kind, vectorcallfunc call, PyObject *fallback)
{
    if (!PyCallable_Check(fallback)) {
        PyErr_Format(PyExc_TypeError, "an entry point's fallback must be callable, not %s",
                     Py_TYPE(fallback)->tp_name);
        return NULL;
    }
    EntryPoint *e = PyObject_GC_New(EntryPoint, &EntryPointType);
    if (e == NULL)
        return NULL;
    e->vectorcall = call;
    e->fallback = Py_NewRef(fallback);
    e->primitive = e->name = e->qualname = NULL;
    e->kind = kind;
    e->min_alike = 0;
    PyObject_GC_Track(e);
    return (PyObject *)e;
}

static int
entry_traverse(EntryPoint *e, visitproc visit, void *arg)
{
    Py_VISIT(e->fallback); Py_VISIT(e->primitive);
    Py_VISIT(e->name); Py_VISIT(e->qualname);
    return 0;
}

static int
entry_clear(EntryPoint *e)
{
    Py_CLEAR(e->fallback); Py_CLEAR(e->primitive);
    Py_CLEAR(e->name); Py_CLEAR(e->qualname);
    return 0;
}

static void
entry_dealloc(EntryPoint *e)
{
    PyObject_GC_UnTrack(e);
    entry_clear(e);
    PyObject_GC_Del(e);
}

/* A method: obj.name gives a bound method (calls through the class dict skip it, as for a
   Python function: Py_TPFLAGS_METHOD_DESCRIPTOR). */
static PyObject *
entry_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static const char *const kind_names[] = {"bind", "block_until_ready", "binary_operator"};

static PyObject *
entry_repr(EntryPoint *e)
{
    PyObject *name = e->fallback ? PyObject_GetAttrString(e->fallback, "__qualname__") : NULL;
    if (name == NULL) {
        PyErr_Clear();
        name = PyUnicode_FromString("?");
        if (name == NULL)
            return NULL;
    }
    PyObject *r = PyUnicode_FromFormat("<jxkernel fast path %s, else %U>",
                                       kind_names[e->kind], name);
    Py_DECREF(name);
    return r;
}

/* Called by type() on the attributes of a class body: the name it has there. */
static PyObject *
entry_set_name(EntryPoint *e, PyObject *args)
{
    PyObject *owner, *name;
    if (!PyArg_ParseTuple(args, "OU", &owner, &name))
        return NULL;
    PyObject *owner_name = PyObject_GetAttrString(owner, "__qualname__");
    if (owner_name == NULL)
        return NULL;
    PyObject *qualname = PyUnicode_FromFormat("%U.%U", owner_name, name);
    Py_DECREF(owner_name);
    if (qualname == NULL)
        return NULL;
    Py_XSETREF(e->name, Py_NewRef(name));
    Py_XSETREF(e->qualname, qualname);
    Py_RETURN_NONE;
}

static PyMethodDef entry_methods[] = {
    {"__set_name__", (PyCFunction)entry_set_name, METH_VARARGS, "Take its name in a class."},
    {NULL, NULL, 0, NULL}
};

/* __doc__, __module__ (and __name__, __qualname__ until a class body names it): the
   fallback's, so help() and inspect read the Python method; __wrapped__ is the fallback
   itself (inspect.signature follows it). */
static PyObject *
entry_fallback_attr(EntryPoint *e, void *name)
{
    return PyObject_GetAttrString(e->fallback, (const char *)name);
}

static PyObject *
entry_name(EntryPoint *e, void *unused)
{
    return e->name ? Py_NewRef(e->name) : entry_fallback_attr(e, "__name__");
}

static PyObject *
entry_qualname(EntryPoint *e, void *unused)
{
    return e->qualname ? Py_NewRef(e->qualname) : entry_fallback_attr(e, "__qualname__");
}

static PyObject *
entry_wrapped(EntryPoint *e, void *unused)
{
    return Py_NewRef(e->fallback);
}

static PyGetSetDef entry_getset[] = {
    {"__name__", (getter)entry_name, NULL, NULL, NULL},
    {"__qualname__", (getter)entry_qualname, NULL, NULL, NULL},
    {"__doc__", (getter)entry_fallback_attr, NULL, NULL, "__doc__"},
    {"__module__", (getter)entry_fallback_attr, NULL, NULL, "__module__"},
    {"__wrapped__", (getter)entry_wrapped, NULL, "the Python function it falls back to", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject EntryPointType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "jxkernel.core._fastpath.EntryPoint",
    .tp_basicsize = sizeof(EntryPoint),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_vectorcall_offset = offsetof(EntryPoint, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = entry_get,
    .tp_repr = (reprfunc)entry_repr,
    .tp_getset = entry_getset,
    .tp_methods = entry_methods,
    .tp_traverse = (traverseproc)entry_traverse,
    .tp_clear = (inquiry)entry_clear,
    .tp_dealloc = (destructor)entry_dealloc,
};

static PyObject *
make_bind(PyObject *self, PyObject *fallback)
{
    return entry_new(BIND, (vectorcallfunc)prim_bind, fallback);
}

static PyObject *
make_ready(PyObject *self, PyObject *fallback)
{
    return entry_new(READY, (vectorcallfunc)array_ready, fallback);
}

static PyObject *
make_operator(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"fallback", "primitive", "inexact_only", NULL};
    PyObject *fallback, *primitive;
    int inexact_only = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|p", kw, &fallback, &primitive,
                                     &inexact_only))
        return NULL;
    EntryPoint *e = (EntryPoint *)entry_new(OPERATOR, (vectorcallfunc)array_operator,
                                            fallback);
    if (e != NULL) {
        e->primitive = Py_NewRef(primitive);
        e->min_alike = inexact_only ? 2 : 1;
    }
    return (PyObject *)e;
}

static PyMethodDef methods[] = {
    {"set_room_hook", set_room_hook, METH_VARARGS,
     "set_room_hook(after_error, lend): called, with lend levels lent, where a Hit's flatten "
     "raised (tree_util/recursion_room.py)"},
    {"setup", (PyCFunction)(void (*)(void))setup, METH_VARARGS | METH_KEYWORDS,
     "setup(config, ctx, eval_trace, miss, array_type, last_runs, impl_rules): what every Hit "
     "and entry point reads (before it, each entry point calls its fallback)."},
    {"bind", make_bind, METH_O,
     "bind(fallback): Primitive.bind that, eagerly, tries the primitive's last run in C."},
    {"block_until_ready", make_ready, METH_O,
     "block_until_ready(fallback): Array.block_until_ready waiting on the buffer in C."},
    {"binary_operator", (PyCFunction)(void (*)(void))make_operator,
     METH_VARARGS | METH_KEYWORDS,
     "binary_operator(fallback, primitive, inexact_only=False): Array's operator that runs "
     "the primitive's last eager run on two Arrays of one type."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastpath", "jxkernel's compiled cache hit (core/native.py).", -1,
    methods, NULL, NULL, NULL, NULL
};

#ifndef JXKERNEL_FASTPATH_SHA256
#define JXKERNEL_FASTPATH_SHA256 "unknown"
#endif

PyMODINIT_FUNC
PyInit__fastpath(void)
{
    if (PyType_Ready(&HitType) < 0 || PyType_Ready(&EntryPointType) < 0 ||
            PyType_Ready(&JitFunctionType) < 0 || PyType_Ready(&ArrayBufferType) < 0)
        return NULL;
    s_generation = PyUnicode_InternFromString("_generation");
    s_trace = PyUnicode_InternFromString("trace");
    s_sharding = PyUnicode_InternFromString("_sharding");
    s_consume = PyUnicode_InternFromString("consume_with_handlers");
    s_hits = PyUnicode_InternFromString("hits");
    s_look_at = PyUnicode_InternFromString("look_at");
    s_native = PyUnicode_InternFromString("native");
    s_block = PyUnicode_InternFromString("block_until_ready");
    s_python_call = PyUnicode_InternFromString("_python_call");
    s_delete = PyUnicode_InternFromString("delete");
    s_ran = PyUnicode_InternFromString("ran");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_shape = PyUnicode_InternFromString("shape");
    s_buffer_host = PyUnicode_InternFromString("_buffer_host");
    /* jit.cache.LAST_HIT, interned there too: the same object, found by identity */
    s_last_hit = PyUnicode_InternFromString("last hit");
    one = PyLong_FromLong(1);
    no_params = PyDict_New();
    if (!s_generation || !s_trace || !s_sharding || !s_consume || !s_hits || !s_look_at ||
            !s_native || !s_block || !s_python_call || !s_last_hit || !s_delete || !s_ran ||
            !s_dtype || !s_shape || !s_buffer_host || !one || !no_params)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* SOURCE_SHA256: the hash of the _fastpath.c it was built from (hatch_build.py passes
       it), so that core/native.py can refuse a build older than the source beside it */
    if (PyModule_AddObjectRef(m, "Hit", (PyObject *)&HitType) < 0 ||
            PyModule_AddObjectRef(m, "EntryPoint", (PyObject *)&EntryPointType) < 0 ||
            PyModule_AddObjectRef(m, "JitFunction", (PyObject *)&JitFunctionType) < 0 ||
            PyModule_AddObjectRef(m, "ArrayBuffer", (PyObject *)&ArrayBufferType) < 0 ||
            PyModule_AddStringConstant(m, "SOURCE_SHA256", JXKERNEL_FASTPATH_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
