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
#include <structmember.h>

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
} Hit;

static int
slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *offset)
{
    PyObject *d = PyObject_GetAttrString((PyObject *)type, name);
    if (d == NULL)
        return -1;
    if (!Py_IS_TYPE(d, &PyMemberDescr_Type) ||
            ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
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
                         "finish", "entry", "params", "check_trace", NULL};
    PyObject *avals, *where, *gen, *execute, *handlers, *out_avals, *finish, *entry, *params;
    int check_trace;
    if (array_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_fastpath.setup() was not called");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OOOO!O!OOOp", kw, &PyTuple_Type, &avals,
                                     &where, &gen, &execute, &PyList_Type, &handlers,
                                     &PyTuple_Type, &out_avals, &finish, &entry, &params,
                                     &check_trace))
        return NULL;
    if (PyList_GET_SIZE(handlers) != PyTuple_GET_SIZE(out_avals) ||
            PyTuple_GET_SIZE(avals) == 0) {
        PyErr_SetString(PyExc_ValueError, "Hit: one handler per output, at least one argument");
        return NULL;
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
    return (PyObject *)h;
}

static int
hit_traverse(Hit *h, visitproc visit, void *arg)
{
    Py_VISIT(h->avals); Py_VISIT(h->where); Py_VISIT(h->generation); Py_VISIT(h->execute);
    Py_VISIT(h->handlers); Py_VISIT(h->out_avals); Py_VISIT(h->finish); Py_VISIT(h->entry);
    Py_VISIT(h->params);
    return 0;
}

static int
hit_clear(Hit *h)
{
    Py_CLEAR(h->avals); Py_CLEAR(h->where); Py_CLEAR(h->generation); Py_CLEAR(h->execute);
    Py_CLEAR(h->handlers); Py_CLEAR(h->out_avals); Py_CLEAR(h->finish); Py_CLEAR(h->entry);
    Py_CLEAR(h->params);
    return 0;
}

static void
hit_dealloc(Hit *h)
{
    PyObject_GC_UnTrack(h);
    hit_clear(h);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

/* 1 if `args` (a tuple of Arrays) match the hit's signature, 0 if not, -1 on error. */
static int
matches(Hit *h, PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(h->avals);
    if (PyTuple_GET_SIZE(args) != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
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
    PyObject *sharding = PyObject_GetAttr(SLOT(PyTuple_GET_ITEM(args, 0), off_buf), s_sharding);
    if (sharding == NULL)
        return -1;
    int same = sharding == h->where;
    Py_DECREF(sharding);
    return same;
}

static PyObject *
run(Hit *h, PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *bufs = PyList_New(n);
    if (bufs == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyList_SET_ITEM(bufs, i, Py_NewRef(SLOT(PyTuple_GET_ITEM(args, i), off_buf)));
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

/* hit(args) for jit, hit(args, params) for an eager primitive. */
static PyObject *
hit_call(Hit *h, PyObject *call_args, PyObject *kwds)
{
    PyObject *args, *params = NULL;
    if (!PyArg_UnpackTuple(call_args, "Hit", 1, 2, &args, &params))
        return NULL;
    if (!PyTuple_Check(args))
        return Py_NewRef(miss);
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
    int ok = matches(h, args);
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
    PyObject *outs = run(h, args);
    if (outs == NULL || h->finish == Py_None)
        return outs;
    PyObject *result = PyObject_CallOneArg(h->finish, outs);
    Py_DECREF(outs);
    return result;
}

static PyMemberDef hit_members[] = {
    {"generation", T_OBJECT_EX, offsetof(Hit, generation), 0, "config._generation it holds for"},
    {"avals", T_OBJECT_EX, offsetof(Hit, avals), READONLY, "the arguments' avals"},
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

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(config, ctx, eval_trace, miss, array_type): what every Hit reads."},
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
    one = PyLong_FromLong(1);
    if (!s_generation || !s_trace || !s_sharding || !s_consume || !s_hits || !one)
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
