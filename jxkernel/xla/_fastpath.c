/* jxkernel's compiled cache hit: jit's last hit and an eager primitive's last run, in C.

   Built on first use by jxkernel/xla/fastpath.py with the machine's C compiler against the
   CPython C API alone (no Cython, nanobind or PyO3: gcc and Python's headers are all a fresh
   machine has, and the build needs nothing from a package index), and cached per Python
   version and source hash. Without it, the Python paths in transforms/jit.py and
   xla/dispatch.py do the same work; docs/jaxlib.md "Execution and dispatch cost" says why
   and what it saves.

   A Hit holds what a hit needs: the argument types (avals) and the first buffer's sharding
   object it last saw, the config generation it ran under, the executable's execute_sharded,
   its result handlers and output avals. Calling it checks the arguments against that
   signature and, if they match, runs the executable and wraps its buffers in Arrays; if they
   do not, it returns the MISS object given to setup() and the caller takes its Python path.
   Errors (from jaxlib or a comparison) propagate; the caller then takes its Python path too,
   which raises the error with jxkernel's message. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
/* Python 3.12 moved PyMemberDef's type codes and flags into Python.h as Py_T_OBJECT_EX and
   Py_READONLY; structmember.h's old names are deprecated there. Before 3.12 they come from
   structmember.h under the old names. */
#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#define Py_READONLY READONLY
#endif

static PyObject *config_obj, *ctx_obj, *eval_trace, *miss;
static PyTypeObject *array_type;
static Py_ssize_t off_buf, off_aval, off_npy;   /* Array's slots, found from its descriptors */
static PyObject *s_generation, *s_trace, *s_sharding, *s_consume, *s_hits, *one;

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
    PyObject *kinds;        /* None (all Arrays), or per argument None or a Python scalar type */
    PyObject *put;          /* None, or put(scalar, where) -> the scalar's buffer */
    Py_ssize_t first_array; /* the argument whose buffer's sharding is `where` (-1: none) */
    PyObject *consts;       /* tuple of buffers passed before the arguments (closed-over) */
    int alike;              /* eager, two operands of one type: 1 (integers) or 2 (inexact) */
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

static PyObject *
setup(PyObject *self, PyObject *args)
{
    PyObject *cfg, *ctx, *ev, *m, *at;
    if (!PyArg_ParseTuple(args, "OOOOO!", &cfg, &ctx, &ev, &m, &PyType_Type, &at))
        return NULL;
    if (slot_offset((PyTypeObject *)at, "_buf", &off_buf) < 0 ||
            slot_offset((PyTypeObject *)at, "aval", &off_aval) < 0 ||
            slot_offset((PyTypeObject *)at, "_npy", &off_npy) < 0)
        return NULL;
    Py_XSETREF(config_obj, Py_NewRef(cfg));
    Py_XSETREF(ctx_obj, Py_NewRef(ctx));
    Py_XSETREF(eval_trace, Py_NewRef(ev));
    Py_XSETREF(miss, Py_NewRef(m));
    Py_XSETREF(array_type, (PyTypeObject *)Py_NewRef(at));
    Py_RETURN_NONE;
}

static PyObject *
hit_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"avals", "where", "generation", "execute", "handlers", "out_avals",
                         "finish", "entry", "params", "check_trace", "kinds", "put", "consts",
                         "alike", NULL};
    PyObject *avals, *where, *gen, *execute, *handlers, *out_avals, *finish, *entry, *params;
    PyObject *kinds = Py_None, *put = Py_None, *consts = NULL;
    int check_trace, alike = 0;
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_fastpath.setup() was not called");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOOO!O!OOOp|OOO!i", kw, &PyTuple_Type,
                                     &avals, &where, &gen, &execute, &PyList_Type, &handlers,
                                     &PyTuple_Type, &out_avals, &finish, &entry, &params,
                                     &check_trace, &kinds, &put, &PyTuple_Type, &consts,
                                     &alike))
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
    Hit *h = (Hit *)type->tp_alloc(type, 0);
    if (h == NULL)
        return NULL;
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
    return 0;
}

static int
hit_clear(Hit *h)
{
    Py_CLEAR(h->avals); Py_CLEAR(h->where); Py_CLEAR(h->generation); Py_CLEAR(h->execute);
    Py_CLEAR(h->handlers); Py_CLEAR(h->out_avals); Py_CLEAR(h->finish); Py_CLEAR(h->entry);
    Py_CLEAR(h->params); Py_CLEAR(h->kinds); Py_CLEAR(h->put); Py_CLEAR(h->consts);
    return 0;
}

static void
hit_dealloc(Hit *h)
{
    PyObject_GC_UnTrack(h);
    hit_clear(h);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

/* 1 if `args` (n Arrays) match the hit's signature, 0 if not, -1 on error. */
static int
matches(Hit *h, PyObject *const *args, Py_ssize_t n)
{
    if (PyTuple_GET_SIZE(h->avals) != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = args[i];
        if (h->kinds != Py_None) {            /* a Python scalar of its very type here? */
            PyObject *kind = PyTuple_GET_ITEM(h->kinds, i);
            if (kind != Py_None) {
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
            int eq = PyObject_RichCompareBool(aval, want, Py_EQ);
            if (eq <= 0)
                return eq;
        }
    }
    if (h->first_array < 0)                   /* scalars alone: the default device's */
        return 1;
    PyObject *sharding = PyObject_GetAttr(SLOT(args[h->first_array], off_buf), s_sharding);
    if (sharding == NULL)
        return -1;
    int same = sharding == h->where;
    Py_DECREF(sharding);
    return same;
}

static PyObject *
run(Hit *h, PyObject *const *args, Py_ssize_t n)
{
    Py_ssize_t c = PyTuple_GET_SIZE(h->consts);
    PyObject *bufs = PyList_New(c + n);
    if (bufs == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < c; i++)
        PyList_SET_ITEM(bufs, i, Py_NewRef(PyTuple_GET_ITEM(h->consts, i)));
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *buf;
        if (h->kinds != Py_None && PyTuple_GET_ITEM(h->kinds, i) != Py_None) {
            buf = PyObject_CallFunctionObjArgs(h->put, args[i], h->where, NULL);
            if (buf == NULL) {
                Py_DECREF(bufs);
                return NULL;
            }
        } else {
            buf = Py_NewRef(SLOT(args[i], off_buf));
        }
        PyList_SET_ITEM(bufs, c + i, buf);
    }
    PyObject *results = PyObject_CallOneArg(h->execute, bufs);
    Py_DECREF(bufs);
    if (results == NULL)
        return NULL;
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
        PyList_SetItem(outs, i, array);       /* steals array, drops the buffer's reference */
    }
    return outs;
}

static int
count_hit(PyObject *entry)
{
    PyObject *hits = PyObject_GetAttr(entry, s_hits);
    if (hits == NULL)
        return -1;
    PyObject *more = PyNumber_Add(hits, one);
    Py_DECREF(hits);
    if (more == NULL)
        return -1;
    int rc = PyObject_SetAttr(entry, s_hits, more);
    Py_DECREF(more);
    return rc;
}

/* The hit on n arguments (params: the eager call's, NULL for jit): the results, a new
   reference to MISS where the arguments or the config do not match, or NULL on an error. */
static PyObject *
hit_run(Hit *h, PyObject *const *args, Py_ssize_t n, PyObject *params)
{
    PyObject *gen = PyObject_GetAttr(config_obj, s_generation);
    if (gen == NULL)
        return NULL;
    Py_DECREF(gen);                               /* (only its identity is compared) */
    if (gen != h->generation)
        return Py_NewRef(miss);
    if (h->check_trace) {
        PyObject *trace = PyObject_GetAttr(ctx_obj, s_trace);
        if (trace == NULL)
            return NULL;
        Py_DECREF(trace);
        if (trace != eval_trace)
            return Py_NewRef(miss);
    }
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
    if (h->entry != Py_None && count_hit(h->entry) < 0)
        return NULL;
    PyObject *outs = run(h, args, n);
    if (outs == NULL || h->finish == Py_None)
        return outs;
    PyObject *result = PyObject_CallOneArg(h->finish, outs);
    Py_DECREF(outs);
    return result;
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
    return hit_run(h, PySequence_Fast_ITEMS(args), PyTuple_GET_SIZE(args), params);
}

static PyMemberDef hit_members[] = {
    {"generation", Py_T_OBJECT_EX, offsetof(Hit, generation), 0, "config._generation it holds for"},
    {"avals", Py_T_OBJECT_EX, offsetof(Hit, avals), Py_READONLY, "the arguments' avals"},
    {NULL}
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
   Installed in place of three Python methods once the extension loads (install()), so that
   a hot call reaches its Hit with no Python frame in between: a jitted function's __call__,
   Primitive.bind and Array.block_until_ready. Each tries the hit and otherwise calls the
   Python method it replaced (its fallback) with the same arguments: anything unusual, a miss
   or an error (which the Python path then reports in its own words) goes there. */
static PyObject *jit_fallback, *bind_fallback, *ready_fallback;
static PyObject *last_hit_key, *last_runs, *impl_rules;
static PyObject *s_last, *s_native, *s_block;

/* fn(self, *args, **kwargs), from a vectorcall's arguments */
static PyObject *
call_with_self(PyObject *fn, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames)
{
    Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[8], **stack = small;
    if (total + 1 > 8) {
        stack = PyMem_Malloc((total + 1) * sizeof(PyObject *));
        if (stack == NULL)
            return PyErr_NoMemory();
    }
    stack[0] = self;
    memcpy(stack + 1, args, total * sizeof(PyObject *));
    PyObject *result = PyObject_Vectorcall(fn, stack, nargs + 1, kwnames);
    if (stack != small)
        PyMem_Free(stack);
    return result;
}

/* `holder.native`'s results on these arguments, or NULL with no exception set: no Hit there
   (or one whose operands are less `alike` than asked), a miss, or an error (left to the
   Python path to report). */
static PyObject *
try_native(PyObject *holder, PyObject *const *args, Py_ssize_t n, PyObject *params,
           int min_alike)
{
    PyObject *out = NULL, *native = PyObject_GetAttr(holder, s_native);
    if (native != NULL && Py_IS_TYPE(native, &HitType) && ((Hit *)native)->alike >= min_alike)
        out = hit_run((Hit *)native, args, n, params);
    Py_XDECREF(native);
    if (out == miss) {
        Py_DECREF(out);
        out = NULL;
    }
    if (out == NULL)
        PyErr_Clear();
    return out;
}

/* Jitted.__call__: its last hit (self._last[LAST_HIT].native) for positional arguments. */
static PyObject *
jit_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0) {
        PyObject *last = PyObject_GetAttr(self, s_last), *out = NULL;
        if (last != NULL && PyDict_CheckExact(last)) {
            PyObject *hit = PyDict_GetItemWithError(last, last_hit_key);     /* borrowed */
            if (hit != NULL) {
                Py_INCREF(hit);
                out = try_native(hit, args, nargs, NULL, 0);
                Py_DECREF(hit);
            }
        }
        Py_XDECREF(last);
        PyErr_Clear();
        if (out != NULL)
            return out;
    }
    return call_with_self(jit_fallback, self, args, nargs, kwnames);
}

/* Primitive.bind: at the top level, the primitive's last eager run (dispatch._last_run). */
static PyObject *
prim_bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *trace = PyObject_GetAttr(ctx_obj, s_trace);
    if (trace == NULL)
        return NULL;
    Py_DECREF(trace);                             /* (only its identity is compared) */
    if (trace == eval_trace && nargs > 0) {
        PyObject *last = PyDict_GetItemWithError(last_runs, self);          /* borrowed */
        int has_impl = last != NULL ? PyDict_Contains(impl_rules, self) : 0;
        if (last != NULL && has_impl == 0) {
            PyObject *params = PyDict_New(), *out = NULL;
            Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
            int ok = params != NULL;
            for (Py_ssize_t i = 0; ok && i < nkw; i++)
                ok = PyDict_SetItem(params, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) == 0;
            if (ok) {
                Py_INCREF(last);
                out = try_native(last, args, nargs, params, 0);
                Py_DECREF(last);
            }
            Py_XDECREF(params);
            PyErr_Clear();
            if (out != NULL)
                return out;
        }
        PyErr_Clear();
    }
    return call_with_self(bind_fallback, self, args, nargs, kwnames);
}

/* Array.block_until_ready: the buffer's own wait; a failure (or a deleted buffer) goes to
   the Python method, which raises jaxlib's error or jxkernel's. */
static PyObject *
array_ready(PyObject *self, PyObject *unused)
{
    PyObject *buf = SLOT(self, off_buf);
    if (buf != NULL) {
        Py_INCREF(buf);                           /* (the wait releases the GIL) */
        PyObject *done = PyObject_CallMethodNoArgs(buf, s_block);
        Py_DECREF(buf);
        if (done != NULL) {
            Py_DECREF(done);
            return Py_NewRef(self);
        }
        PyErr_Clear();
    }
    return PyObject_CallOneArg(ready_fallback, self);
}

/* Array's +, -, *, /: with two Arrays whose types equal the ones the operator's primitive
   last ran on eagerly, and these alike (one dtype, weak type and shape, not bool; inexact
   for /), jnp's promotion would change nothing and the operator binds the primitive to the
   two as they are: run its last run's Hit. Anything else goes to the Python operator. */
enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, N_OPS };
static PyObject *op_prims[N_OPS], *op_fallbacks[N_OPS], *no_params;

static PyObject *
array_operator(int which, PyObject *self, PyObject *other)
{
    if (op_prims[which] != NULL && Py_TYPE(other) == array_type && Py_TYPE(self) == array_type) {
        PyObject *trace = PyObject_GetAttr(ctx_obj, s_trace), *out = NULL;
        if (trace == NULL)
            return NULL;
        Py_DECREF(trace);
        PyObject *last = trace == eval_trace ?
            PyDict_GetItemWithError(last_runs, op_prims[which]) : NULL;      /* borrowed */
        if (last != NULL) {
            PyObject *operands[2] = {self, other};
            Py_INCREF(last);
            out = try_native(last, operands, 2, no_params, which == OP_DIV ? 2 : 1);
            Py_DECREF(last);
        }
        PyErr_Clear();
        if (out != NULL)
            return out;
    }
    return PyObject_CallFunctionObjArgs(op_fallbacks[which], self, other, NULL);
}

static PyObject *array_add(PyObject *a, PyObject *b) { return array_operator(OP_ADD, a, b); }
static PyObject *array_sub(PyObject *a, PyObject *b) { return array_operator(OP_SUB, a, b); }
static PyObject *array_mul(PyObject *a, PyObject *b) { return array_operator(OP_MUL, a, b); }
static PyObject *array_div(PyObject *a, PyObject *b) { return array_operator(OP_DIV, a, b); }

static PyMethodDef operator_entry_points[N_OPS] = {
    {"__add__", array_add, METH_O, "self + other"},
    {"__sub__", array_sub, METH_O, "self - other"},
    {"__mul__", array_mul, METH_O, "self * other"},
    {"__truediv__", array_div, METH_O, "self / other"},
};

static PyMethodDef entry_points[] = {
    {"__call__", (PyCFunction)(void (*)(void))jit_call, METH_FASTCALL | METH_KEYWORDS,
     "Call the jitted function (its last hit in C; anything else in Python)."},
    {"bind", (PyCFunction)(void (*)(void))prim_bind, METH_FASTCALL | METH_KEYWORDS,
     "Bind the primitive to the current trace (its last eager run in C at the top level)."},
    {"block_until_ready", (PyCFunction)array_ready, METH_NOARGS,
     "Wait until the computation producing this array is done; returns self."},
};

static int
put_method(PyObject *type, PyMethodDef *def, PyObject *fallback, PyObject **slot)
{
    PyObject *descr = PyDescr_NewMethod((PyTypeObject *)type, def);
    if (descr == NULL)
        return -1;
    Py_XSETREF(*slot, Py_NewRef(fallback));
    int rc = PyObject_SetAttrString(type, def->ml_name, descr);
    Py_DECREF(descr);
    return rc;
}

static PyObject *
install_jit(PyObject *self, PyObject *args)
{
    PyObject *type, *fallback, *key;
    if (!PyArg_ParseTuple(args, "O!OO", &PyType_Type, &type, &fallback, &key))
        return NULL;
    Py_XSETREF(last_hit_key, Py_NewRef(key));
    if (put_method(type, &entry_points[0], fallback, &jit_fallback) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
install_bind(PyObject *self, PyObject *args)
{
    PyObject *type, *fallback, *runs, *impls;
    if (!PyArg_ParseTuple(args, "O!OO!O!", &PyType_Type, &type, &fallback, &PyDict_Type, &runs,
                          &PyDict_Type, &impls))
        return NULL;
    Py_XSETREF(last_runs, Py_NewRef(runs));
    Py_XSETREF(impl_rules, Py_NewRef(impls));
    if (put_method(type, &entry_points[1], fallback, &bind_fallback) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *
install_ready(PyObject *self, PyObject *fallback)
{
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_fastpath.setup() was not called");
        return NULL;
    }
    if (put_method((PyObject *)array_type, &entry_points[2], fallback, &ready_fallback) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* install_operators(Array, {"__add__": (add_p, python_add), ...}) */
static PyObject *
install_operators(PyObject *self, PyObject *args)
{
    PyObject *type, *table;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &type, &PyDict_Type, &table))
        return NULL;
    if (last_runs == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "install_bind() first: the operators read its runs");
        return NULL;
    }
    if (no_params == NULL && (no_params = PyDict_New()) == NULL)
        return NULL;
    for (int i = 0; i < N_OPS; i++) {
        PyObject *pair = PyDict_GetItemString(table, operator_entry_points[i].ml_name);
        PyObject *prim, *fallback;
        if (pair == NULL)
            continue;
        if (!PyArg_ParseTuple(pair, "OO", &prim, &fallback))
            return NULL;
        Py_XSETREF(op_prims[i], Py_NewRef(prim));
        if (put_method(type, &operator_entry_points[i], fallback, &op_fallbacks[i]) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(config, ctx, eval_trace, miss, array_type): what every Hit reads."},
    {"install_jit", install_jit, METH_VARARGS,
     "install_jit(Jitted, python_call, last_hit_key): Jitted.__call__ tries its last hit in C."},
    {"install_bind", install_bind, METH_VARARGS,
     "install_bind(Primitive, python_bind, last_runs, impl_rules): bind tries the last run."},
    {"install_operators", install_operators, METH_VARARGS,
     "install_operators(Array, {name: (primitive, python_method)}): +, -, *, / in C."},
    {"install_ready", install_ready, METH_O,
     "install_ready(python_method): Array.block_until_ready waits in C."},
    {NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastpath", "jxkernel's compiled cache hit.", -1, methods,
};

PyMODINIT_FUNC
PyInit__fastpath(void)
{
    if (PyType_Ready(&HitType) < 0)
        return NULL;
    s_generation = PyUnicode_InternFromString("_generation");
    s_trace = PyUnicode_InternFromString("trace");
    s_sharding = PyUnicode_InternFromString("_sharding");
    s_consume = PyUnicode_InternFromString("consume_with_handlers");
    s_hits = PyUnicode_InternFromString("hits");
    s_last = PyUnicode_InternFromString("_last");
    s_native = PyUnicode_InternFromString("native");
    s_block = PyUnicode_InternFromString("block_until_ready");
    one = PyLong_FromLong(1);
    if (!s_generation || !s_trace || !s_sharding || !s_consume || !s_hits || !s_last ||
            !s_native || !s_block || !one)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Hit", (PyObject *)&HitType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
