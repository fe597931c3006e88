/*
 * pybridge: the embedded interpreter, the module `hetsim` that policies see, and one decider
 * per domain that calls a module's hooks (pybridge.h says what a module provides).
 *
 * Cost of a decision beyond the hook's own Python: one call, the attribute reads it makes
 * (each a C getter on the world's struct), and the check of its answer (for training a copy
 * of the occupancy, O(GPUs), as a C policy's plan makes one).  Job objects are made once per
 * job, kept by slot.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "pybridge.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../plan.h"
#include "../route.h"
#include "../micro/msopt.h"
#include "../../sim/base/grow.h"
#include "../../sim/base/path.h"
#include "../../sim/base/rng.h"

#include <gsl/gsl_randist.h>
#include <limits.h>

/* ------------------------------------------------------------------ the instance */

struct pyview;
struct pyplace;
struct pyserve;
struct pymicro;

struct pypol {
    struct policy_ops  ops;     /* first: the policy layer holds &ops */
    struct train_hooks th;
    char               name[PATH_MAX_LEN + 8];      /* "py:FILE" as given */
    char               path[PATH_MAX_LEN];          /* FILE resolved */
    const char        *params[65];                  /* PARAMS, NULL-terminated */
    PyObject          *param_names;                 /* the strings params[] points into */
    PyObject          *mod;
    PyObject          *hook[3];                     /* by domain, see enum below */
    int                hook_line[3];                /* their `def` lines */
    const char        *hook_name[3];
    double             timeout_s;
    const cluster     *cl;
    /* training */
    struct pyview     *tview;
    PyObject         **jobs;    /* Job objects by slot */
    size_t             jcap;
    uint8_t           *marks;   /* grant_check's marks, jcap bytes */
    uint8_t           *changed; /* per grant of the list being checked */
    size_t             chcap;
    occ               *scratch; /* a plan's */
    occ               *chk;     /* the check's */
    struct grant_list *out_list;        /* the decision's, while it runs */
    uint64_t           decision;
    uint64_t           seed;
    /* placement */
    struct place_hooks ph;
    struct pyplace    *pview;
    /* serving */
    struct serve_hooks sh;
    struct pyserve    *sview;
    /* micro */
    struct micro_hooks mh;
    struct pymicro    *mview;
};

enum { HOOK_DECIDE, HOOK_AUX, HOOK_AUX2 };

/* ------------------------------------------------------------------ the interpreter */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PYBRIDGE_ASAN 1             /* clang's way of saying it */
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(PYBRIDGE_ASAN)
/* CPython 3.11 does not free everything it allocated when it is finalized (interned strings,
 * caches of its types and codecs): allocations of libpython, which LeakSanitizer (make
 * SANITIZE=address) is told to leave out.  The bridge's own allocations stay checked. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpython3\n";
}
#endif

static int py_live;             /* Python policies open in this process */
static int py_tab_added;
static PyTypeObject *t_job, *t_view, *t_list, *t_iter, *t_plan, *t_pview, *t_node, *t_pod,
                    *t_stream, *t_sview, *t_load, *t_req, *t_mview, *t_svc, *t_graph;
static uint64_t cur_seed;       /* the seed of the policy whose hook runs (hetsim.stream) */
static PyObject *e_timeout;     /* hetsim.PolicyTimeout */

/* The watchdog: samples the CPU clock of the thread that calls hooks while a call runs. */
static struct {
    pthread_t       th;
    int             up, stop;
    pthread_mutex_t mu;
    pthread_cond_t  cv;
    clockid_t       cpu;
    atomic_ullong   call;       /* hook calls begun */
    atomic_int      in_hook;
    atomic_llong    limit_us;   /* of the call running, CPU microseconds */
    unsigned long   main_ident; /* the thread that calls hooks (Python's id) */
} wd = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *watchdog(void *arg)
{
    (void)arg;
    unsigned long long seen = 0, fired = 0;
    double last = 0, spent = 0;
    pthread_mutex_lock(&wd.mu);
    while (!wd.stop) {
        double limit_s = (double)atomic_load(&wd.limit_us) * 1e-6;
        double period = limit_s / 4 < 0.25 ? limit_s / 4 : 0.25;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = until.tv_nsec + (long)(period * 1e9);
        until.tv_sec += ns / 1000000000L;
        until.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&wd.cv, &wd.mu, &until);
        if (wd.stop)
            break;
        unsigned long long call = atomic_load(&wd.call);
        double cpu = clock_s(wd.cpu);
        if (atomic_load(&wd.in_hook) && call == seen)
            spent += cpu - last;
        else
            spent = 0;          /* a new call began since the last look: count from now */
        seen = call;
        last = cpu;
        if (atomic_load(&wd.in_hook) && spent >= limit_s && fired != call) {
            /* Raise in the hook's thread.  The GIL is had when that thread lets it go
             * between bytecodes; a pending call would not do (3.11 sets the eval breaker for
             * pending calls only when the main thread adds them). */
            fired = call;
            pthread_mutex_unlock(&wd.mu);
            PyGILState_STATE g = PyGILState_Ensure();
            if (atomic_load(&wd.in_hook) && atomic_load(&wd.call) == call)
                PyThreadState_SetAsyncExc(wd.main_ident, e_timeout);
            PyGILState_Release(g);
            pthread_mutex_lock(&wd.mu);
        }
    }
    pthread_mutex_unlock(&wd.mu);
    return NULL;
}

static PyObject *hetsim_module_init(void);

static int interp_up(struct errbuf *err)
{
    if (py_live++ > 0)
        return 0;
    if (!py_tab_added) {
        if (PyImport_AppendInittab("hetsim", hetsim_module_init) < 0) {
            py_live--;
            return err_run(err, "python: cannot register the module hetsim");
        }
        py_tab_added = 1;
    }
    PyConfig cfg;
    PyConfig_InitIsolatedConfig(&cfg);
    cfg.install_signal_handlers = 0;
    cfg.parse_argv = 0;
    cfg.write_bytecode = 0;
    PyStatus st = Py_InitializeFromConfig(&cfg);
    PyConfig_Clear(&cfg);
    if (PyStatus_Exception(st)) {
        py_live--;
        return err_run(err, "python: cannot start the interpreter: %s",
                       st.err_msg ? st.err_msg : "?");
    }
    /* its types exist once it is imported, whether the policy imports it or not */
    PyObject *m = PyImport_ImportModule("hetsim");
    if (m == NULL) {
        PyErr_Print();
        Py_FinalizeEx();
        py_live--;
        return err_run(err, "python: cannot import the module hetsim");
    }
    Py_DECREF(m);
    wd.main_ident = PyThread_get_thread_ident();
    if (pthread_getcpuclockid(pthread_self(), &wd.cpu) != 0)
        wd.cpu = CLOCK_PROCESS_CPUTIME_ID;
    return 0;
}

static void interp_down(void)
{
    if (--py_live > 0)
        return;
    if (wd.up) {
        pthread_mutex_lock(&wd.mu);
        wd.stop = 1;
        pthread_cond_signal(&wd.cv);
        pthread_mutex_unlock(&wd.mu);
        PyThreadState *ts = PyEval_SaveThread();   /* it may be waiting for the GIL */
        pthread_join(wd.th, NULL);
        PyEval_RestoreThread(ts);
        wd.up = wd.stop = 0;
    }
    Py_FinalizeEx();
    t_job = t_view = t_list = t_iter = t_plan = t_pview = t_node = t_pod = t_stream = NULL;
    t_sview = t_load = t_req = t_mview = t_svc = t_graph = NULL;
    e_timeout = NULL;
}

/* ------------------------------------------------------------------ errors */

/* The Python error pending, as an input error of b's file: the innermost line of the file
 * in its traceback (else `line`), the exception, and the traceback after it. */
static int py_error(struct pypol *b, const char *hook, int line, struct errbuf *err)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL)
        PyException_SetTraceback(value, tb);
    char what[384] = "unknown error", trace[ERR_MSG_MAX] = "";
    /* a syntax error's line is its own */
    if (type != NULL && PyErr_GivenExceptionMatches(type, PyExc_SyntaxError) && value != NULL) {
        PyObject *ln = PyObject_GetAttrString(value, "lineno");
        if (ln != NULL && PyLong_Check(ln))
            line = (int)PyLong_AsLong(ln);
        Py_XDECREF(ln);
        PyErr_Clear();
    }
    for (PyTracebackObject *t = (PyTracebackObject *)tb; t != NULL; t = t->tb_next) {
        PyCodeObject *code = PyFrame_GetCode(t->tb_frame);
        const char *fn = PyUnicode_AsUTF8(code->co_filename);
        int mine = fn != NULL && strcmp(fn, b->path) == 0;
        Py_DECREF(code);
        if (mine) {             /* 3.11 computes tb_lineno lazily */
            PyObject *ln = PyObject_GetAttrString((PyObject *)t, "tb_lineno");
            if (ln != NULL && PyLong_Check(ln))
                line = (int)PyLong_AsLong(ln);
            Py_XDECREF(ln);
        }
    }
    PyErr_Clear();
    if (value != NULL) {
        PyObject *s = PyObject_Str(value);
        const char *cs = s ? PyUnicode_AsUTF8(s) : NULL;
        if (e_timeout != NULL && PyErr_GivenExceptionMatches(type, e_timeout))
            snprintf(what, sizeof what, "%s: the hook ran longer than sim.policy_timeout_s = %g "
                     "CPU seconds", ((PyTypeObject *)type)->tp_name, b->timeout_s);
        else
            snprintf(what, sizeof what, "%s: %s", ((PyTypeObject *)type)->tp_name,
                     cs ? cs : "?");
        Py_XDECREF(s);
        PyErr_Clear();
    }
    if (tb != NULL) {
        PyObject *tbm = PyImport_ImportModule("traceback");
        PyObject *lines = tbm ? PyObject_CallMethod(tbm, "format_exception", "OOO", type,
                                                    value, tb) : NULL;
        PyObject *sep = lines ? PyUnicode_FromString("") : NULL;
        PyObject *all = sep ? PyUnicode_Join(sep, lines) : NULL;
        const char *cs = all ? PyUnicode_AsUTF8(all) : NULL;
        if (cs != NULL) {       /* the end of a long one: the innermost frames */
            size_t n = strlen(cs), keep = sizeof trace - 512;
            snprintf(trace, sizeof trace, "\n%s%s", n > keep ? "..." : "",
                     n > keep ? cs + n - keep : cs);
            size_t m = strlen(trace);
            if (m > 0 && trace[m - 1] == '\n')
                trace[m - 1] = '\0';
        }
        Py_XDECREF(all);
        Py_XDECREF(sep);
        Py_XDECREF(lines);
        Py_XDECREF(tbm);
        PyErr_Clear();
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return err_input(err, b->path, line, hook, "%s%s", what, trace);
}

/* What hook `h` returned is wrong: an input error at its `def` line. */
static int bad_return(struct pypol *b, int h, struct errbuf *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_return(struct pypol *b, int h, struct errbuf *err, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err_clear(err);
    return err_input(err, b->path, b->hook_line[h], b->hook_name[h], "%s", msg);
}

/* A short repr of o for a message. */
static void repr_of(PyObject *o, char *buf, size_t cap)
{
    PyObject *r = PyObject_Repr(o);
    const char *s = r ? PyUnicode_AsUTF8(r) : NULL;
    snprintf(buf, cap, "%.120s%s", s ? s : "?", s && strlen(s) > 120 ? "..." : "");
    Py_XDECREF(r);
    PyErr_Clear();
}

/* Call hook h with args (a new tuple, stolen), the watchdog counting.  A new reference, or
 * NULL with err set. */
static PyObject *call_hook(struct pypol *b, int h, PyObject *args, struct errbuf *err)
{
    if (args == NULL)
        return py_error(b, b->hook_name[h], b->hook_line[h], err), NULL;
    atomic_store(&wd.limit_us, (long long)(b->timeout_s * 1e6));
    if (!wd.up && pthread_create(&wd.th, NULL, watchdog, NULL) == 0)
        wd.up = 1;
    cur_seed = b->seed;
    atomic_fetch_add(&wd.call, 1);
    atomic_store(&wd.in_hook, 1);
    PyObject *r = PyObject_Call(b->hook[h], args, NULL);
    atomic_store(&wd.in_hook, 0);
    Py_DECREF(args);
    if (r == NULL)
        py_error(b, b->hook_name[h], b->hook_line[h], err);
    return r;
}

/* ------------------------------------------------------------------ training: Job */

struct pyview {
    PyObject_HEAD
    const struct train_view *v;     /* during a decision, else NULL */
    struct pypol *b;                /* NULL once the policy closed */
    PyObject     *types;            /* tuple of the cluster's GPU types */
    PyObject     *lists[3];         /* active, waiting, running */
};

struct pyjob {
    PyObject_HEAD
    struct pyview *view;
    int32_t        slot;
    int64_t        id;
    PyObject      *dict;            /* what the policy keeps on it (job.x = ...) */
};

static const struct train_job *job_of(struct pyjob *o)
{
    const struct train_view *v = o->view->v;
    if (v == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Job can be read only during the decision "
                        "that handed it out");
        return NULL;
    }
    const struct train_job *j = &v->jobs[o->slot];
    if (j->id != o->id || j->state == JOB_DONE) {
        PyErr_Format(PyExc_RuntimeError, "job %lld has finished", (long long)o->id);
        return NULL;
    }
    return j;
}

#define JOB_INT(field)                                                                      \
    static PyObject *job_##field(PyObject *self, void *c)                                   \
    {                                                                                       \
        (void)c;                                                                            \
        const struct train_job *j = job_of((struct pyjob *)self);                           \
        return j ? PyLong_FromLongLong((long long)j->field) : NULL;                         \
    }
#define JOB_DBL(field)                                                                      \
    static PyObject *job_##field(PyObject *self, void *c)                                   \
    {                                                                                       \
        (void)c;                                                                            \
        const struct train_job *j = job_of((struct pyjob *)self);                           \
        return j ? PyFloat_FromDouble(j->field) : NULL;                                     \
    }
JOB_INT(jtype) JOB_INT(workers) JOB_INT(min_workers) JOB_INT(max_workers) JOB_INT(batch)
JOB_INT(user) JOB_INT(arrival) JOB_INT(state) JOB_INT(first_start) JOB_INT(preemptions)
JOB_INT(migrations) JOB_INT(ngpu) JOB_INT(gpu_type) JOB_INT(share) JOB_INT(sliced)
JOB_INT(run_from) JOB_INT(updated) JOB_INT(last_grant)
JOB_DBL(weight) JOB_DBL(work) JOB_DBL(rate) JOB_DBL(done) JOB_DBL(attained)

static PyObject *job_id(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLongLong((long long)((struct pyjob *)self)->id);
}

static PyObject *job_slot(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(((struct pyjob *)self)->slot);
}

static PyObject *job_gpus(PyObject *self, void *c)
{
    (void)c;
    const struct train_job *j = job_of((struct pyjob *)self);
    if (j == NULL)
        return NULL;
    PyObject *t = PyTuple_New(j->ngpu);
    for (int i = 0; t != NULL && i < j->ngpu; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(j->gpus[i]));
    return t;
}

static PyObject *job_repr(PyObject *self)
{
    struct pyjob *o = (struct pyjob *)self;
    return PyUnicode_FromFormat("<job %lld>", (long long)o->id);
}

static void job_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pyjob *)self)->dict);
    Py_XDECREF(((struct pyjob *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

#define G(name, doc) { #name, job_##name, NULL, doc, NULL }
static PyGetSetDef job_getset[] = {
    G(id, "unique, in arrival order"), G(slot, "index of the job in the world (reused)"),
    G(jtype, "job type id"), G(workers, "requested workers"),
    G(min_workers, "fewest GPUs it runs on"), G(max_workers, "most GPUs it runs on"),
    G(batch, "batch size (0: its type's)"), G(user, "tenant"), G(weight, "priority weight"),
    G(arrival, "arrival, microseconds"), G(work, "total iterations"),
    G(state, "hetsim.QUEUED, RUNNING or PREEMPTED"),
    G(first_start, "first start, microseconds (-1: never ran)"),
    G(preemptions, "times preempted"), G(migrations, "times moved or resized"),
    G(ngpu, "GPUs held now"), G(gpu_type, "type of its first GPU, -1 when it holds none"),
    G(share, "thousandths of each GPU it holds"), G(sliced, "1: its GPUs are time-sliced"),
    G(gpus, "the GPU ids it holds (a tuple)"), G(rate, "iterations/s while it runs"),
    G(run_from, "progress accrues from here, microseconds (after a restore)"),
    G(updated, "when done and attained were last brought up to date, microseconds"),
    G(done, "iterations completed as of updated (view.done(job): as of now)"),
    G(attained, "GPU-seconds received as of updated (view.attained(job): as of now)"),
    G(last_grant, "when its current grant took effect, microseconds"),
    { NULL, NULL, NULL, NULL, NULL },
};
#undef G

static PyMemberDef job_members[] = {
    { "__dictoffset__", T_PYSSIZET, offsetof(struct pyjob, dict), READONLY, NULL },
    { NULL, 0, 0, 0, NULL },
};

static PyType_Slot job_slots[] = {
    { Py_tp_getset, job_getset },
    { Py_tp_members, job_members },
    { Py_tp_repr, job_repr },
    { Py_tp_dealloc, job_dealloc },
    { Py_tp_doc, "A training job of the view (sim/train/train_view.h, struct train_job): "
                 "its fields read-only, valid during a decision; the same object every "
                 "decision until the job leaves, so a policy may keep its own attributes on "
                 "it (job.rates = ...)." },
    { 0, NULL },
};

static PyType_Spec job_spec = { "hetsim.Job", sizeof(struct pyjob), 0, Py_TPFLAGS_DEFAULT,
                                job_slots };

/* The Job object of slot s (a borrowed reference), made when the slot holds a job the
 * policy has not seen. */
static PyObject *job_at(struct pyview *view, int32_t s)
{
    struct pypol *b = view->b;
    if ((size_t)s >= b->jcap) {
        size_t old = b->jcap, n = (size_t)s + 1 > 2 * old ? (size_t)s + 1 : 2 * old;
        PyObject **a = realloc(b->jobs, n * sizeof *a);
        uint8_t *m = a ? realloc(b->marks, n) : NULL;
        if (a != NULL)
            b->jobs = a;
        if (m == NULL)
            return PyErr_NoMemory();
        b->marks = m;
        memset(b->jobs + old, 0, (n - old) * sizeof *a);
        memset(b->marks + old, 0, n - old);
        b->jcap = n;
    }
    struct pyjob *o = (struct pyjob *)b->jobs[s];
    if (o != NULL && o->id == view->v->jobs[s].id)
        return (PyObject *)o;
    Py_XDECREF(o);
    o = PyObject_New(struct pyjob, t_job);
    if (o == NULL)
        return (PyObject *)(b->jobs[s] = NULL);
    Py_INCREF(view);
    o->view = view;
    o->slot = s;
    o->id = view->v->jobs[s].id;
    o->dict = NULL;
    b->jobs[s] = (PyObject *)o;
    return (PyObject *)o;
}

/* ------------------------------------------------------------------ training: job lists */

enum { L_ACTIVE, L_WAITING, L_RUNNING };

struct pylist {
    PyObject_HEAD
    struct pyview *view;
    int which;
};

struct pyiter {
    PyObject_HEAD
    struct pyview *view;
    int which;
    int32_t cur;
    uint64_t decision;
};

static const struct train_view *live(struct pyview *view)
{
    if (view->v == NULL)
        PyErr_SetString(PyExc_RuntimeError, "the view can be read only during a decision");
    return view->v;
}

static Py_ssize_t list_len(PyObject *self)
{
    struct pylist *l = (struct pylist *)self;
    const struct train_view *v = live(l->view);
    if (v == NULL)
        return -1;
    return l->which == L_ACTIVE ? v->n_active : l->which == L_WAITING ? v->n_waiting
                                                                        : v->n_running;
}

static PyObject *list_iter(PyObject *self)
{
    struct pylist *l = (struct pylist *)self;
    const struct train_view *v = live(l->view);
    if (v == NULL)
        return NULL;
    struct pyiter *it = PyObject_New(struct pyiter, t_iter);
    if (it == NULL)
        return NULL;
    Py_INCREF(l->view);
    it->view = l->view;
    it->which = l->which;
    it->cur = l->which == L_ACTIVE ? v->active_head : l->which == L_WAITING ? v->waiting_head
                                                                            : v->running_head;
    it->decision = l->view->b->decision;
    return (PyObject *)it;
}

static PyObject *iter_next(PyObject *self)
{
    struct pyiter *it = (struct pyiter *)self;
    const struct train_view *v = live(it->view);
    if (v == NULL)
        return NULL;
    if (it->view->b->decision != it->decision) {
        PyErr_SetString(PyExc_RuntimeError, "a job list can be walked only during the "
                        "decision that handed it out");
        return NULL;
    }
    if (it->cur < 0)
        return NULL;
    int32_t s = it->cur;
    const int32_t *next = it->which == L_ACTIVE ? v->next_active
                          : it->which == L_WAITING ? v->next_waiting : v->next_running;
    it->cur = next[s];
    PyObject *o = job_at(it->view, s);
    Py_XINCREF(o);
    return o;
}

static void list_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pylist *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static void iter_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pyiter *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot list_slots[] = {
    { Py_sq_length, list_len },
    { Py_tp_iter, list_iter },
    { Py_tp_dealloc, list_dealloc },
    { Py_tp_doc, "Jobs of a list of the view, in the view's order (iterate; len)." },
    { 0, NULL },
};
static PyType_Spec list_spec = { "hetsim.JobList", sizeof(struct pylist), 0,
                                 Py_TPFLAGS_DEFAULT, list_slots };

static PyType_Slot iter_slots[] = {
    { Py_tp_iter, PyObject_SelfIter },
    { Py_tp_iternext, iter_next },
    { Py_tp_dealloc, iter_dealloc },
    { 0, NULL },
};
static PyType_Spec iter_spec = { "hetsim.JobIter", sizeof(struct pyiter), 0,
                                 Py_TPFLAGS_DEFAULT, iter_slots };

/* ------------------------------------------------------------------ training: the view */

static PyObject *view_get_now(PyObject *self, void *c)
{
    (void)c;
    const struct train_view *v = live((struct pyview *)self);
    return v ? PyLong_FromLongLong((long long)v->now) : NULL;
}

static PyObject *view_get_now_s(PyObject *self, void *c)
{
    (void)c;
    const struct train_view *v = live((struct pyview *)self);
    return v ? PyFloat_FromDouble(sim_to_sec(v->now)) : NULL;
}

static PyObject *view_get_reason(PyObject *self, void *c)
{
    (void)c;
    const struct train_view *v = live((struct pyview *)self);
    return v ? PyLong_FromUnsignedLong(v->reason) : NULL;
}

static PyObject *view_get_round(PyObject *self, void *c)
{
    (void)c;
    const struct train_view *v = live((struct pyview *)self);
    return v ? PyLong_FromLongLong((long long)v->round) : NULL;
}

static PyObject *view_get_round_index(PyObject *self, void *c)
{
    (void)c;
    const struct train_view *v = live((struct pyview *)self);
    return v ? PyLong_FromLongLong((long long)v->round_index) : NULL;
}

static PyObject *view_get_list(PyObject *self, void *c)
{
    struct pyview *view = (struct pyview *)self;
    if (live(view) == NULL)
        return NULL;
    PyObject *l = view->lists[(intptr_t)c];
    Py_INCREF(l);
    return l;
}

static PyObject *view_get_types(PyObject *self, void *c)
{
    (void)c;
    PyObject *t = ((struct pyview *)self)->types;
    Py_INCREF(t);
    return t;
}

static PyObject *view_get_ngpus(PyObject *self, void *c)
{
    (void)c;
    struct pyview *view = (struct pyview *)self;
    return view->b ? PyLong_FromLong(cluster_ngpus(view->b->cl)) : NULL;
}

static PyGetSetDef view_getset[] = {
    { "now", view_get_now, NULL, "the clock, microseconds", NULL },
    { "now_s", view_get_now_s, NULL, "the clock, seconds", NULL },
    { "reason", view_get_reason, NULL, "why it is asked: hetsim.WAKE_* bits", NULL },
    { "round", view_get_round, NULL, "round length (WAKE_ROUND policies), microseconds",
      NULL },
    { "round_index", view_get_round_index, NULL, "rounds begun so far", NULL },
    { "active", view_get_list, NULL, "arrived, unfinished jobs, in arrival order",
      (void *)(intptr_t)L_ACTIVE },
    { "waiting", view_get_list, NULL, "queued and preempted jobs, in order of entering the "
      "queue", (void *)(intptr_t)L_WAITING },
    { "running", view_get_list, NULL, "running jobs, most recently started first",
      (void *)(intptr_t)L_RUNNING },
    { "types", view_get_types, NULL, "the cluster's GPU types (catalog ids), cluster order",
      NULL },
    { "ngpus", view_get_ngpus, NULL, "GPUs of the cluster (ids 0 .. ngpus-1)", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

/* Parse a Job of this view from o; NULL with a Python error when it is not one. */
static const struct train_job *arg_job(struct pyview *view, PyObject *o)
{
    if (Py_TYPE(o) != t_job || ((struct pyjob *)o)->view != view) {
        PyErr_Format(PyExc_TypeError, "expected a Job of this view, got %.80s",
                     Py_TYPE(o)->tp_name);
        return NULL;
    }
    return job_of((struct pyjob *)o);
}

static int arg_type(struct pyview *view, PyObject *o, int *out)
{
    long t = PyLong_AsLong(o);
    if (t == -1 && PyErr_Occurred())
        return -1;
    if (t < 0 || t > INT32_MAX || cluster_type_slot(view->b->cl, (int)t) < 0) {
        PyErr_Format(PyExc_ValueError, "GPU type %ld is not one of the cluster's (view.types)",
                     t);
        return -1;
    }
    *out = (int)t;
    return 0;
}

static PyObject *view_rate(PyObject *self, PyObject *const *a, Py_ssize_t n)
{
    struct pyview *view = (struct pyview *)self;
    int type;
    long w;
    const struct train_job *j;
    if (n != 3) {
        PyErr_SetString(PyExc_TypeError, "rate(job, gpu_type, n)");
        return NULL;
    }
    if (live(view) == NULL || (j = arg_job(view, a[0])) == NULL ||
        arg_type(view, a[1], &type) < 0 || ((w = PyLong_AsLong(a[2])) == -1 && PyErr_Occurred()))
        return NULL;
    if (w < 1 || w > cluster_ngpus(view->b->cl))
        return PyFloat_FromDouble(0);
    return PyFloat_FromDouble(train_view_rate(view->v, j, type, (int)w));
}

static PyObject *view_restore_s(PyObject *self, PyObject *arg)
{
    struct pyview *view = (struct pyview *)self;
    const struct train_job *j;
    if (live(view) == NULL || (j = arg_job(view, arg)) == NULL)
        return NULL;
    return PyFloat_FromDouble(train_view_restore_s(view->v, j));
}

static PyObject *view_done(PyObject *self, PyObject *arg)
{
    struct pyview *view = (struct pyview *)self;
    const struct train_job *j;
    if (live(view) == NULL || (j = arg_job(view, arg)) == NULL)
        return NULL;
    return PyFloat_FromDouble(train_view_done(j, view->v->now));
}

static PyObject *view_attained(PyObject *self, PyObject *arg)
{
    struct pyview *view = (struct pyview *)self;
    const struct train_job *j;
    if (live(view) == NULL || (j = arg_job(view, arg)) == NULL)
        return NULL;
    return PyFloat_FromDouble(train_view_attained(j, view->v->now));
}

static PyObject *view_type_count(PyObject *self, PyObject *arg)
{
    struct pyview *view = (struct pyview *)self;
    int type;
    if (arg_type(view, arg, &type) < 0)
        return NULL;
    /* during a decision, less what a broker gave another tenant (train_view_type_cap) */
    return PyLong_FromLong(view->v != NULL ? train_view_type_cap(view->v, type)
                                           : cluster_type_count(view->b->cl, type));
}

static PyObject *view_type_name(PyObject *self, PyObject *arg)
{
    struct pyview *view = (struct pyview *)self;
    int type;
    if (arg_type(view, arg, &type) < 0)
        return NULL;
    return PyUnicode_FromString(catalog_gpu(cluster_catalog(view->b->cl), type)->name);
}

static PyObject *view_free(PyObject *self, PyObject *arg)
{
    struct pyview *view = (struct pyview *)self;
    int type;
    if (live(view) == NULL || arg_type(view, arg, &type) < 0)
        return NULL;
    return PyLong_FromLong(occ_free_whole(view->v->occ, type));
}

static PyObject *view_gpu_type(PyObject *self, PyObject *arg)
{
    struct pyview *view = (struct pyview *)self;
    long g = PyLong_AsLong(arg);
    if (g == -1 && PyErr_Occurred())
        return NULL;
    if (g < 0 || g >= cluster_ngpus(view->b->cl)) {
        PyErr_Format(PyExc_ValueError, "GPU id %ld outside 0 .. %d", g,
                     cluster_ngpus(view->b->cl) - 1);
        return NULL;
    }
    return PyLong_FromLong(cluster_gpu_type(view->b->cl, (int)g));
}

static PyObject *plan_begin_py(struct pyview *view, int full);

static PyObject *view_plan(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kws[] = { "full", NULL };
    int full = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kws, &full))
        return NULL;
    return plan_begin_py((struct pyview *)self, full);
}

static PyMethodDef view_methods[] = {
    { "rate", (PyCFunction)(void (*)(void))view_rate, METH_FASTCALL,
      "rate(job, gpu_type, n): iterations/s of job on n GPUs of that type, placed as well as "
      "the cluster allows (0: it cannot run there)" },
    { "restore_s", view_restore_s, METH_O, "restore_s(job): seconds a restart costs it" },
    { "done", view_done, METH_O, "done(job): iterations it has completed by now" },
    { "attained", view_attained, METH_O, "attained(job): GPU-seconds it has received by now" },
    { "type_count", view_type_count, METH_O,
      "type_count(gpu_type): GPUs of that type this policy may use (in a decision, less "
      "those a broker gave another tenant)" },
    { "type_name", view_type_name, METH_O, "type_name(gpu_type): its catalog name" },
    { "free", view_free, METH_O, "free(gpu_type): whole GPUs of that type free right now" },
    { "gpu_type", view_gpu_type, METH_O, "gpu_type(gpu_id): the type of a GPU" },
    { "plan", (PyCFunction)(void (*)(void))view_plan, METH_VARARGS | METH_KEYWORDS,
      "plan(full=False): a plan of this decision (sched/plan.h): from the current occupancy "
      "(jobs it does not mention keep their GPUs), or with full=True from an empty cluster "
      "(running jobs it does not grant are preempted)" },
    { NULL, NULL, 0, NULL },
};

static void view_dealloc(PyObject *self)
{
    struct pyview *view = (struct pyview *)self;
    Py_XDECREF(view->types);
    for (int i = 0; i < 3; i++)
        Py_XDECREF(view->lists[i]);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot view_slots[] = {
    { Py_tp_getset, view_getset },
    { Py_tp_methods, view_methods },
    { Py_tp_dealloc, view_dealloc },
    { Py_tp_doc, "What a training policy sees (sim/train/train_view.h), read-only." },
    { 0, NULL },
};
static PyType_Spec view_spec = { "hetsim.TrainView", sizeof(struct pyview), 0,
                                 Py_TPFLAGS_DEFAULT, view_slots };

/* ------------------------------------------------------------------ training: the plan */

struct pyplan {
    PyObject_HEAD
    struct pyview *view;
    struct plan    p;
    uint64_t       decision;        /* the decision it belongs to */
    long long      wake_at;
};

static struct pyplan *the_plan;     /* one per process is enough: one decision at a time */

static PyObject *plan_begin_py(struct pyview *view, int full)
{
    const struct train_view *v = live(view);
    if (v == NULL)
        return NULL;
    struct pypol *b = view->b;
    if (the_plan != NULL && the_plan->decision == b->decision && the_plan->view == view) {
        PyErr_SetString(PyExc_RuntimeError, "one plan per decision: this decision has one");
        return NULL;
    }
    if (the_plan == NULL) {
        the_plan = PyObject_New(struct pyplan, t_plan);
        if (the_plan == NULL)
            return NULL;
        the_plan->view = NULL;
    }
    Py_XDECREF(the_plan->view);
    Py_INCREF(view);
    the_plan->view = view;
    the_plan->decision = b->decision;
    the_plan->wake_at = 0;
    plan_begin(&the_plan->p, v, b->scratch, b->out_list, full ? PLAN_FULL : PLAN_DELTA);
    Py_INCREF(the_plan);
    return (PyObject *)the_plan;
}

static int plan_live(struct pyplan *pl)
{
    if (pl->view == NULL || pl->view->v == NULL || pl->view->b == NULL ||
        pl->decision != pl->view->b->decision) {
        PyErr_SetString(PyExc_RuntimeError, "a plan can be used only during its decision");
        return -1;
    }
    return 0;
}

/* A C error of the planner as a Python exception. */
static PyObject *plan_fail(struct errbuf *err)
{
    PyErr_SetString(PyExc_RuntimeError, err->msg);
    return NULL;
}

static PyObject *plan_place_py(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kws[] = { "job", "gpu_type", "n", "spread", NULL };
    struct pyplan *pl = (struct pyplan *)self;
    PyObject *jo, *to;
    long n;
    int spread = 0, type;
    const struct train_job *j;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOl|p", kws, &jo, &to, &n, &spread) ||
        plan_live(pl) < 0 || (j = arg_job(pl->view, jo)) == NULL || arg_type(pl->view, to, &type) < 0)
        return NULL;
    if (n < 1 || n > cluster_ngpus(pl->view->b->cl)) {
        PyErr_Format(PyExc_ValueError, "place: %ld GPUs", n);
        return NULL;
    }
    struct errbuf err = { 0 };
    int rc = plan_place(&pl->p, j, type, (int)n, spread ? OCC_SPREAD : OCC_PACK, &err);
    if (rc < 0)
        return plan_fail(&err);
    return PyBool_FromLong(rc == 0);
}

static PyObject *plan_keep_py(PyObject *self, PyObject *arg)
{
    struct pyplan *pl = (struct pyplan *)self;
    const struct train_job *j;
    if (plan_live(pl) < 0 || (j = arg_job(pl->view, arg)) == NULL)
        return NULL;
    struct errbuf err = { 0 };
    int rc = plan_keep(&pl->p, j, &err);
    if (rc < 0)
        return plan_fail(&err);
    return PyBool_FromLong(rc == 0);
}

static PyObject *plan_free_py(PyObject *self, PyObject *arg)
{
    struct pyplan *pl = (struct pyplan *)self;
    int type;
    if (plan_live(pl) < 0 || arg_type(pl->view, arg, &type) < 0)
        return NULL;
    return PyLong_FromLong(plan_free(&pl->p, type));
}

static PyObject *type_or_none(int t)
{
    if (t < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(t);
}

static PyObject *plan_most_free_py(PyObject *self, PyObject *arg)
{
    struct pyplan *pl = (struct pyplan *)self;
    long n = PyLong_AsLong(arg);
    if ((n == -1 && PyErr_Occurred()) || plan_live(pl) < 0)
        return NULL;
    return type_or_none(plan_most_free_type(&pl->p, n < 1 ? 1 : (int)n));
}

static PyObject *plan_fastest_py(PyObject *self, PyObject *const *a, Py_ssize_t na)
{
    struct pyplan *pl = (struct pyplan *)self;
    const struct train_job *j;
    long n;
    if (na != 2) {
        PyErr_SetString(PyExc_TypeError, "fastest_type(job, n)");
        return NULL;
    }
    if (plan_live(pl) < 0 || (j = arg_job(pl->view, a[0])) == NULL ||
        ((n = PyLong_AsLong(a[1])) == -1 && PyErr_Occurred()))
        return NULL;
    return type_or_none(plan_fastest_type(&pl->p, j, n < 1 ? 1 : (int)n));
}

/* commit(picks): picks an iterable of (job, gpu_type, n) */
static PyObject *plan_commit_py(PyObject *self, PyObject *arg)
{
    struct pyplan *pl = (struct pyplan *)self;
    if (plan_live(pl) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(arg, "commit(picks): picks must be a sequence of "
                                         "(job, gpu_type, n)");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    struct plan_pick *picks = malloc((size_t)(n > 0 ? n : 1) * sizeof *picks);
    if (picks == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    PyObject *r = NULL;
    int count[CLUSTER_MAX_TYPES] = { 0 };
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *e = PySequence_Fast_GET_ITEM(seq, k);
        long w;
        int type;
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 3) {
            PyErr_Format(PyExc_TypeError, "commit: pick %zd is not a (job, gpu_type, n) "
                         "tuple", k);
            goto out;
        }
        const struct train_job *j = arg_job(pl->view, PyTuple_GET_ITEM(e, 0));
        if (j == NULL || arg_type(pl->view, PyTuple_GET_ITEM(e, 1), &type) < 0 ||
            ((w = PyLong_AsLong(PyTuple_GET_ITEM(e, 2))) == -1 && PyErr_Occurred()))
            goto out;
        int ts = cluster_type_slot(pl->view->b->cl, type);
        if (w < 1 || (count[ts] += (int)w) > plan_free(&pl->p, type)) {
            PyErr_Format(PyExc_ValueError, "commit: pick %zd (job %lld, %ld GPUs of type %d) "
                         "exceeds the free GPUs of its type", k, (long long)j->id, w, type);
            goto out;
        }
        picks[k] = (struct plan_pick){ j, type, (int)w };
    }
    struct errbuf err = { 0 };
    if (plan_commit(&pl->p, picks, (int)n, &err) < 0) {
        plan_fail(&err);
        goto out;
    }
    r = Py_None;
    Py_INCREF(r);
out:
    free(picks);
    Py_DECREF(seq);
    return r;
}

static PyObject *plan_get_wake(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLongLong(((struct pyplan *)self)->wake_at);
}

static int plan_set_wake(PyObject *self, PyObject *val, void *c)
{
    (void)c;
    long long t = val ? PyLong_AsLongLong(val) : 0;
    if (t == -1 && PyErr_Occurred())
        return -1;
    ((struct pyplan *)self)->wake_at = t;
    return 0;
}

static PyMethodDef plan_methods[] = {
    { "place", (PyCFunction)(void (*)(void))plan_place_py, METH_VARARGS | METH_KEYWORDS,
      "place(job, gpu_type, n, spread=False): grant job n whole free GPUs of that type, "
      "packed on the fewest nodes (or one per node); True if granted, False if no room" },
    { "keep", plan_keep_py, METH_O, "keep(job): grant a running job what it holds; False if "
      "its GPUs were taken" },
    { "commit", plan_commit_py, METH_O, "commit(picks): grant every (job, gpu_type, n); "
      "running jobs that stay on their type and count keep their very GPUs, the others are "
      "packed after them (plan_commit)" },
    { "free", plan_free_py, METH_O, "free(gpu_type): whole GPUs of that type still free in "
      "the plan" },
    { "most_free_type", plan_most_free_py, METH_O, "most_free_type(n): the type with the most "
      "free GPUs, at least n (ties: cluster order), or None" },
    { "fastest_type", (PyCFunction)(void (*)(void))plan_fastest_py, METH_FASTCALL,
      "fastest_type(job, n): the type with n free GPUs where job runs fastest, or None" },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef plan_getset[] = {
    { "wake_at", plan_get_wake, plan_set_wake, "ask to be called again at this time, "
      "microseconds (> now; 0: no request)", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static void plan_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pyplan *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot plan_slots[] = {
    { Py_tp_methods, plan_methods },
    { Py_tp_getset, plan_getset },
    { Py_tp_dealloc, plan_dealloc },
    { Py_tp_doc, "A decision being built on a scratch copy of the occupancy (sched/plan.h)." },
    { 0, NULL },
};
static PyType_Spec plan_spec = { "hetsim.Plan", sizeof(struct pyplan), 0, Py_TPFLAGS_DEFAULT,
                                 plan_slots };

/* ------------------------------------------------------------------ training: the decider */

/* Append a plain list of grants (job, gpus[, share]) to out. */
static int take_grants(struct pypol *b, PyObject *r, struct grant_list *out, struct errbuf *err)
{
    PyObject *seq = PySequence_Fast(r, "");
    if (seq == NULL) {
        PyErr_Clear();
        char rep[160];
        repr_of(r, rep, sizeof rep);
        return bad_return(b, HOOK_DECIDE, err, "returned %s; expected a plan (view.plan()), "
                          "a list of (job, gpus) or (job, gpus, share) grants, or None", rep);
    }
    int rc = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int ids_small[64];
    for (Py_ssize_t k = 0; k < n && rc == 0; k++) {
        PyObject *e = PySequence_Fast_GET_ITEM(seq, k);
        char rep[160];
        Py_ssize_t m = PyTuple_Check(e) ? PyTuple_GET_SIZE(e) : 0;
        const struct train_job *j = NULL;
        PyObject *gs = NULL;
        long share = OCC_WHOLE;
        if (m == 2 || m == 3) {
            j = arg_job(b->tview, PyTuple_GET_ITEM(e, 0));
            gs = j ? PySequence_Fast(PyTuple_GET_ITEM(e, 1), "") : NULL;
            if (gs != NULL && m == 3) {
                share = PyLong_AsLong(PyTuple_GET_ITEM(e, 2));
                if (share == -1 && PyErr_Occurred())
                    Py_CLEAR(gs);
            }
        }
        if (gs == NULL) {
            PyErr_Clear();
            repr_of(e, rep, sizeof rep);
            rc = bad_return(b, HOOK_DECIDE, err, "grant %zd is %s; expected (job, gpus) or "
                            "(job, gpus, share): a Job of this view, a list of GPU ids, a "
                            "share in thousandths", k, rep);
            break;
        }
        Py_ssize_t ng = PySequence_Fast_GET_SIZE(gs);
        int *ids = ng <= 64 ? ids_small : malloc((size_t)ng * sizeof *ids);
        if (ids == NULL)
            rc = err_run(err, "out of memory");
        for (Py_ssize_t i = 0; rc == 0 && i < ng; i++) {
            long g = PyLong_AsLong(PySequence_Fast_GET_ITEM(gs, i));
            if ((g == -1 && PyErr_Occurred()) || g < INT32_MIN || g > INT32_MAX) {
                PyErr_Clear();
                repr_of(e, rep, sizeof rep);
                rc = bad_return(b, HOOK_DECIDE, err, "grant %zd is %s; expected GPU ids "
                                "(integers)", k, rep);
            }
            else
                ids[i] = (int)g;
        }
        if (rc == 0 && (share < 0 || share > 65535))
            rc = bad_return(b, HOOK_DECIDE, err, "grant %zd gives job %lld a share of %ld; "
                            "expected 1 .. 1000 thousandths", k, (long long)j->id, share);
        if (rc == 0 && grant_add(out, j->slot, ids, (int)ng, (int)share) < 0)
            rc = err_run(err, "out of memory");
        if (ids != ids_small)
            free(ids);
        Py_DECREF(gs);
    }
    Py_DECREF(seq);
    return rc;
}

/* The world's checks of a grant list (grant_check), then the fit the world's apply checks as
 * it installs the grants: jobs whose grant changes give back their GPUs first (and, in a full
 * list, running jobs left out), then each changed grant must fit on what is left. */
static int check_grants(struct pypol *b, const struct train_view *v, struct grant_list *out,
                        struct errbuf *err)
{
    int rc = grant_check(out, v->jobs, (int32_t)b->jcap, cluster_ngpus(v->cl), b->marks, err);
    if (rc == 0 && out->n > b->chcap) {
        uint8_t *c = realloc(b->changed, out->n);
        if (c == NULL)
            rc = err_run(err, "out of memory");
        else {
            b->changed = c;
            b->chcap = out->n;
        }
    }
    if (rc == 0) {
        occ_copy(b->chk, v->occ);
        for (size_t k = 0; k < out->n; k++) {
            const struct grant *g = &out->g[k];
            const struct train_job *j = &v->jobs[g->slot];
            b->changed[k] = !grant_same(j, grant_ids(out, g), g->ngpu, g->share, g->batch,
                                        g->sliced);
            if (b->changed[k] && j->state == JOB_RUNNING)
                occ_release(b->chk, j->gpus, j->ngpu, j->share);
        }
        if (out->full)
            for (int32_t s = v->running_head; s >= 0; s = v->next_running[s])
                if ((size_t)s >= b->jcap || !b->marks[s])
                    occ_release(b->chk, v->jobs[s].gpus, v->jobs[s].ngpu, v->jobs[s].share);
        for (size_t k = 0; k < out->n && rc == 0; k++) {
            const struct grant *g = &out->g[k];
            if (!b->changed[k] || g->ngpu == 0)
                continue;
            const int *ids = grant_ids(out, g);
            if (!occ_fits(b->chk, ids, g->ngpu, g->share))
                rc = err_run(err, "policy over-allocated: job %lld was granted GPU %d beyond "
                             "its capacity", (long long)v->jobs[g->slot].id, ids[0]);
            else
                occ_take(b->chk, ids, g->ngpu, g->share);
        }
    }
    grant_check_clear(out, (int32_t)b->jcap, b->marks);
    if (rc < 0) {
        char msg[ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return bad_return(b, HOOK_DECIDE, err, "returned a decision the world refuses: %s",
                          msg);
    }
    return 0;
}

static int py_train_decide(void *self, const struct train_view *v, struct grant_list *out,
                           struct errbuf *err)
{
    struct pypol *b = self;
    b->decision++;
    b->tview->v = v;
    b->out_list = out;
    PyObject *args = PyTuple_Pack(1, (PyObject *)b->tview);
    PyObject *r = call_hook(b, HOOK_DECIDE, args, err);
    int rc = r == NULL ? -1 : 0;
    int planned = the_plan != NULL && the_plan->view == b->tview &&
                  the_plan->decision == b->decision;
    if (rc == 0 && r == (PyObject *)the_plan && planned) {
        out->wake_at = the_plan->wake_at;
    } else if (rc == 0 && planned) {
        char rep[160];
        repr_of(r, rep, sizeof rep);
        rc = bad_return(b, HOOK_DECIDE, err, "made a plan but returned %s; expected the plan",
                        rep);
    } else if (rc == 0 && r != Py_None) {
        rc = take_grants(b, r, out, err);
    }
    if (rc == 0)
        rc = check_grants(b, v, out, err);
    Py_XDECREF(r);
    b->tview->v = NULL;
    b->out_list = NULL;
    return rc;
}


static int need_hook(struct pypol *b, int h, const char *name, struct errbuf *err);

/* ------------------------------------------------------------------ fields by offset */

/* A read-only field of a C struct, for the getters of the objects below. */
struct field {
    size_t off;
    char   kind;                /* 'i' int, 'l' int64_t, 'u' uint64_t, 'd' double, 's' char *,
                                   'I' int32_t[count] */
    int    count;
};

static PyObject *field_get(const void *base, const struct field *f)
{
    const char *p = (const char *)base + f->off;
    switch (f->kind) {
    case 'i': return PyLong_FromLong(*(const int *)p);
    case 'l': return PyLong_FromLongLong((long long)*(const int64_t *)p);
    case 'u': return PyLong_FromUnsignedLongLong((unsigned long long)*(const uint64_t *)p);
    case 'd': return PyFloat_FromDouble(*(const double *)p);
    case 's': return PyUnicode_FromString(*(const char *const *)p);
    default: {
        int n = f->count;
        PyObject *t = PyTuple_New(n);
        for (int i = 0; t != NULL && i < n; i++)
            PyTuple_SET_ITEM(t, i, PyLong_FromLong(((const int32_t *)p)[i]));
        return t;
    }
    }
}

/* ------------------------------------------------------------------ placement */

struct pyplace {
    PyObject_HEAD
    const struct place_view *v;         /* during a decision, else NULL */
    const struct place_pod  *pod;
    struct pypol            *b;
    PyObject                *nodes;     /* tuple of Node objects, made at the first pod */
    PyObject                *podobj;    /* the Pod object, one for the run */
};

struct pynode {
    PyObject_HEAD
    struct pyplace *view;
    int             idx;
};

struct pypod {
    PyObject_HEAD
    struct pyplace *view;
};

static const struct place_view *plive(struct pyplace *pv)
{
    if (pv->v == NULL)
        PyErr_SetString(PyExc_RuntimeError, "the view can be read only during a decision");
    return pv->v;
}

#define NF(name, kind) { offsetof(struct place_node, name), kind, 0 }
static const struct field node_fields[] = {
    NF(name, 's'), NF(model, 'i'), NF(ngpus, 'i'), NF(cpu_milli, 'l'), NF(mem_mib, 'l'),
    NF(cpu_free, 'l'), NF(mem_free, 'l'), NF(ntags, 'i'), NF(version, 'u'),
};
#undef NF

static PyObject *node_get(PyObject *self, void *c)
{
    struct pynode *o = (struct pynode *)self;
    const struct place_view *v = plive(o->view);
    if (v == NULL)
        return NULL;
    const struct place_node *n = &v->nodes[o->idx];
    intptr_t k = (intptr_t)c;
    if (k == -1)
        return PyLong_FromLong(o->idx);
    if (k == -2) {
        struct field f = { offsetof(struct place_node, gpu_free), 'I', n->ngpus };
        return field_get(n, &f);
    }
    if (k == -3) {
        struct field f = { offsetof(struct place_node, tag_pods), 'I', PLACE_NTAGS };
        return field_get(n, &f);
    }
    return field_get(n, &node_fields[k]);
}

#define NG(name, k, doc) { name, node_get, NULL, doc, (void *)(intptr_t)(k) }
static PyGetSetDef node_getset[] = {
    NG("index", -1, "its index in view.nodes (fixed for the run)"),
    NG("name", 0, "the node list's sn"), NG("model", 1, "GPU model: an index of view.models"),
    NG("ngpus", 2, "GPUs"), NG("cpu_milli", 3, "CPU capacity, milli"),
    NG("mem_mib", 4, "memory capacity, MiB"), NG("cpu_free", 5, "CPU free, milli"),
    NG("mem_free", 6, "memory free, MiB"), NG("ntags", 7, "kinds of GPU pod it holds"),
    NG("version", 8, "changes whenever anything of the node does"),
    NG("gpu_free", -2, "milli free on each GPU (a tuple)"),
    NG("tag_pods", -3, "GPU pods it holds by kind (index 0: sharing, n: n whole GPUs)"),
    { NULL, NULL, NULL, NULL, NULL },
};
#undef NG

#define PF(name, kind) { offsetof(struct place_pod, name), kind, 0 }
static const struct field pod_fields[] = {
    PF(name, 's'), PF(cpu_milli, 'l'), PF(mem_mib, 'l'), PF(num_gpu, 'i'), PF(gpu_milli, 'i'),
    PF(models, 'u'), PF(tag, 'i'),
};
#undef PF

static PyObject *pod_get(PyObject *self, void *c)
{
    struct pypod *o = (struct pypod *)self;
    if (plive(o->view) == NULL)
        return NULL;
    return field_get(o->view->pod, &pod_fields[(intptr_t)c]);
}

#define PG(name, k, doc) { name, pod_get, NULL, doc, (void *)(intptr_t)(k) }
static PyGetSetDef pod_getset[] = {
    PG("name", 0, "the pod's name"), PG("cpu_milli", 1, "CPU, milli"),
    PG("mem_mib", 2, "memory, MiB"), PG("num_gpu", 3, "GPUs (0: CPU only)"),
    PG("gpu_milli", 4, "milli of each GPU (below 1000: it shares one)"),
    PG("models", 5, "GPU models it may use: bit m is view.models[m]; 0: any"),
    PG("tag", 6, "its kind (0 sharing, n whole GPUs, -1 CPU only)"),
    { NULL, NULL, NULL, NULL, NULL },
};
#undef PG

static PyObject *pview_get(PyObject *self, void *c)
{
    struct pyplace *pv = (struct pyplace *)self;
    const struct place_view *v = plive(pv);
    if (v == NULL)
        return NULL;
    if ((intptr_t)c == 0)
        return PyLong_FromLongLong((long long)v->seq);
    if ((intptr_t)c == 1) {
        Py_INCREF(pv->nodes);
        return pv->nodes;
    }
    PyObject *t = PyTuple_New(v->nmodels);
    for (int i = 0; t != NULL && i < v->nmodels; i++)
        PyTuple_SET_ITEM(t, i, PyUnicode_FromString(v->models[i]));
    return t;
}

static PyGetSetDef pview_getset[] = {
    { "seq", pview_get, NULL, "the pod's position in the arrival sequence", (void *)0 },
    { "nodes", pview_get, NULL, "the nodes (a tuple of Node, in the list's order)", (void *)1 },
    { "models", pview_get, NULL, "GPU model names by bit index", (void *)2 },
    { NULL, NULL, NULL, NULL, NULL },
};

/* A node of this view from a Node or an index. */
static const struct place_node *arg_node(struct pyplace *pv, PyObject *o)
{
    long i = Py_TYPE(o) == t_node ? ((struct pynode *)o)->idx : PyLong_AsLong(o);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= pv->v->nnodes) {
        PyErr_Format(PyExc_ValueError, "node %ld outside 0 .. %d", i, pv->v->nnodes - 1);
        return NULL;
    }
    return &pv->v->nodes[i];
}

static PyObject *pview_fits(PyObject *self, PyObject *arg)
{
    struct pyplace *pv = (struct pyplace *)self;
    const struct place_node *n;
    if (plive(pv) == NULL || (n = arg_node(pv, arg)) == NULL)
        return NULL;
    return PyBool_FromLong(place_view_fits(n, pv->pod));
}

static PyObject *pview_gpu_free(PyObject *self, PyObject *arg)
{
    struct pyplace *pv = (struct pyplace *)self;
    const struct place_node *n;
    if (plive(pv) == NULL || (n = arg_node(pv, arg)) == NULL)
        return NULL;
    return PyLong_FromLongLong((long long)place_view_gpu_free(n));
}

static PyObject *pview_gpus_idle(PyObject *self, PyObject *arg)
{
    struct pyplace *pv = (struct pyplace *)self;
    const struct place_node *n;
    if (plive(pv) == NULL || (n = arg_node(pv, arg)) == NULL)
        return NULL;
    return PyLong_FromLong(place_view_gpus_idle(n));
}

static PyMethodDef pview_methods[] = {
    { "fits", pview_fits, METH_O, "fits(node): can the node take the pod at all (CPU, memory, "
      "GPU model and room): place_view_fits" },
    { "gpu_free", pview_gpu_free, METH_O, "gpu_free(node): free milli over its GPUs" },
    { "gpus_idle", pview_gpus_idle, METH_O, "gpus_idle(node): its GPUs with all milli free" },
    { NULL, NULL, 0, NULL },
};

static void node_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pynode *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static void pod_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pypod *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static void pview_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pyplace *)self)->nodes);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot node_slots[] = {
    { Py_tp_getset, node_getset }, { Py_tp_dealloc, node_dealloc },
    { Py_tp_doc, "A node of the placement view (struct place_node), read-only." }, { 0, NULL },
};
static PyType_Spec node_spec = { "hetsim.Node", sizeof(struct pynode), 0, Py_TPFLAGS_DEFAULT,
                                 node_slots };
static PyType_Slot pod_slots[] = {
    { Py_tp_getset, pod_getset }, { Py_tp_dealloc, pod_dealloc },
    { Py_tp_doc, "The pod to place (struct place_pod), read-only." }, { 0, NULL },
};
static PyType_Spec pod_spec = { "hetsim.Pod", sizeof(struct pypod), 0, Py_TPFLAGS_DEFAULT,
                                pod_slots };
static PyType_Slot pview_slots[] = {
    { Py_tp_getset, pview_getset }, { Py_tp_methods, pview_methods },
    { Py_tp_dealloc, pview_dealloc },
    { Py_tp_doc, "What a placement policy sees (sim/place/place_view.h), read-only." },
    { 0, NULL },
};
static PyType_Spec pview_spec = { "hetsim.PlaceView", sizeof(struct pyplace), 0,
                                  Py_TPFLAGS_DEFAULT, pview_slots };

/* The nodes' objects, made once: nodes never move. */
static int make_nodes(struct pyplace *pv)
{
    if (pv->nodes != NULL && PyTuple_GET_SIZE(pv->nodes) == pv->v->nnodes)
        return 0;
    Py_CLEAR(pv->nodes);
    PyObject *t = PyTuple_New(pv->v->nnodes);
    for (int i = 0; t != NULL && i < pv->v->nnodes; i++) {
        struct pynode *n = PyObject_New(struct pynode, t_node);
        if (n == NULL) {
            Py_CLEAR(t);
            break;
        }
        Py_INCREF(pv);
        n->view = pv;
        n->idx = i;
        PyTuple_SET_ITEM(t, i, (PyObject *)n);
    }
    pv->nodes = t;
    return t != NULL ? 0 : -1;
}

static int py_place_decide(void *self, const struct place_view *v, const struct place_pod *pod,
                           struct place_choice *out, struct errbuf *err)
{
    struct pypol *b = self;
    struct pyplace *pv = b->pview;
    pv->v = v;
    pv->pod = pod;
    out->node = -1;
    out->ngpus = 0;
    PyObject *r = NULL;
    int rc = -1;
    if (make_nodes(pv) < 0)
        py_error(b, b->hook_name[HOOK_DECIDE], b->hook_line[HOOK_DECIDE], err);
    else
        r = call_hook(b, HOOK_DECIDE, PyTuple_Pack(2, (PyObject *)pv, pv->podobj), err);
    if (r == Py_None) {
        rc = 0;
    } else if (r != NULL) {
        char rep[160];
        repr_of(r, rep, sizeof rep);
        PyObject *gs = NULL;
        long node = -2;
        if (PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2) {
            PyObject *no = PyTuple_GET_ITEM(r, 0);
            node = Py_TYPE(no) == t_node ? ((struct pynode *)no)->idx : PyLong_AsLong(no);
            gs = PySequence_Fast(PyTuple_GET_ITEM(r, 1), "");
        }
        Py_ssize_t ng = gs ? PySequence_Fast_GET_SIZE(gs) : 0;
        int ok = gs != NULL && !PyErr_Occurred() && node >= INT32_MIN && node <= INT32_MAX &&
                 ng <= PLACE_MAX_GPUS;
        for (Py_ssize_t i = 0; ok && i < ng; i++) {
            long g = PyLong_AsLong(PySequence_Fast_GET_ITEM(gs, i));
            ok = !(g == -1 && PyErr_Occurred()) && g >= INT32_MIN && g <= INT32_MAX;
            out->gpus[i] = (int)g;
        }
        Py_XDECREF(gs);
        PyErr_Clear();
        if (!ok) {
            rc = bad_return(b, HOOK_DECIDE, err, "returned %s; expected None (no node) or "
                            "(node, [gpu indices on it]), at most %d GPUs", rep, PLACE_MAX_GPUS);
        } else {
            out->node = (int)node;
            out->ngpus = (int)ng;
            rc = place_view_check(v, pod, out, err);
            if (rc < 0) {
                char msg[ERR_MSG_MAX];
                snprintf(msg, sizeof msg, "%s", err->msg);
                rc = bad_return(b, HOOK_DECIDE, err, "returned %s, which the world refuses: %s",
                                rep, msg);
            }
        }
    }
    Py_XDECREF(r);
    pv->v = NULL;
    pv->pod = NULL;
    return rc;
}

static int bind_placement(struct pypol *b, struct errbuf *err)
{
    if (need_hook(b, HOOK_DECIDE, "place", err) < 0)
        return -1;
    b->ph.decide = py_place_decide;
    b->ops.place = &b->ph;
    b->pview = PyObject_New(struct pyplace, t_pview);
    if (b->pview == NULL)
        return py_error(b, NULL, 0, err);
    b->pview->v = NULL;
    b->pview->pod = NULL;
    b->pview->b = b;
    b->pview->nodes = NULL;
    b->pview->podobj = NULL;
    struct pypod *po = PyObject_New(struct pypod, t_pod);
    if (po == NULL)
        return py_error(b, NULL, 0, err);
    Py_INCREF(b->pview);
    po->view = b->pview;
    b->pview->podobj = (PyObject *)po;
    return 0;
}

/* ------------------------------------------------------------------ serving */

struct pyserve {
    PyObject_HEAD
    const struct serve_env_view *env;       /* during deploy */
    const struct serve_view     *v;         /* during route */
    const struct serve_req_view *req;
    struct pypol                *b;
    PyObject                    *loads;     /* tuple of Load objects, one per instance */
    PyObject                    *reqobj;
};

struct pyload {
    PyObject_HEAD
    struct pyserve *view;
    int             idx;
};

static PyObject *serve_env_get(PyObject *self, void *c)
{
    struct pyserve *sv = (struct pyserve *)self;
    const struct serve_env_view *e = sv->env ? sv->env : sv->v ? sv->v->env : NULL;
    if (e == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the view can be read only during a call");
        return NULL;
    }
    switch ((intptr_t)c) {
    case 0: {
        const int *types;
        int nt = cluster_types(e->cl, &types);
        PyObject *t = PyTuple_New(nt);
        for (int i = 0; t != NULL && i < nt; i++)
            PyTuple_SET_ITEM(t, i, PyLong_FromLong(types[i]));
        return t;
    }
    case 1: return PyLong_FromLong(cluster_ngpus(e->cl));
    case 2: return PyLong_FromLong(cluster_nnodes(e->cl));
    case 3: return PyUnicode_FromString(e->arch->name);
    case 4: return PyLong_FromLong(e->arch->layers);
    }
    return NULL;
}

static PyObject *serve_route_get(PyObject *self, void *c)
{
    struct pyserve *sv = (struct pyserve *)self;
    if (sv->v == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the routing view can be read only during route");
        return NULL;
    }
    switch ((intptr_t)c) {
    case 0: return PyLong_FromLongLong((long long)sv->v->now);
    case 1: return PyLong_FromLong(sv->v->n);
    case 2: return PyFloat_FromDouble(sv->v->mean_output);
    case 3: Py_INCREF(sv->loads); return sv->loads;
    }
    return NULL;
}

static PyGetSetDef serve_getset[] = {
    { "types", serve_env_get, NULL, "the cluster's GPU types (catalog ids)", (void *)0 },
    { "ngpus", serve_env_get, NULL, "GPUs of the cluster", (void *)1 },
    { "nnodes", serve_env_get, NULL, "nodes of the cluster", (void *)2 },
    { "model", serve_env_get, NULL, "the model served", (void *)3 },
    { "layers", serve_env_get, NULL, "its layers", (void *)4 },
    { "now", serve_route_get, NULL, "route: the clock, microseconds", (void *)0 },
    { "n", serve_route_get, NULL, "route: instances", (void *)1 },
    { "mean_output", serve_route_get, NULL, "route: mean output tokens of the requests "
      "finished so far (0 before the first)", (void *)2 },
    { "loads", serve_route_get, NULL, "route: each instance's load (a tuple of Load)",
      (void *)3 },
    { NULL, NULL, NULL, NULL, NULL },
};

static const struct serve_env_view *senv(struct pyserve *sv)
{
    const struct serve_env_view *e = sv->env ? sv->env : sv->v ? sv->v->env : NULL;
    if (e == NULL)
        PyErr_SetString(PyExc_RuntimeError, "the view can be read only during a call");
    return e;
}

static PyObject *serve_high_type(PyObject *self, PyObject *unused)
{
    (void)unused;
    const struct serve_env_view *e = senv((struct pyserve *)self);
    return e ? PyLong_FromLong(route_high_type(e->cl)) : NULL;
}

static PyObject *serve_node_gpus(PyObject *self, PyObject *arg)
{
    const struct serve_env_view *e = senv((struct pyserve *)self);
    long n = e ? PyLong_AsLong(arg) : -1;
    if (e == NULL || (n == -1 && PyErr_Occurred()))
        return NULL;
    if (n < 0 || n >= cluster_nnodes(e->cl)) {
        PyErr_Format(PyExc_ValueError, "node %ld outside 0 .. %d", n, cluster_nnodes(e->cl) - 1);
        return NULL;
    }
    int32_t ids[256];
    if (cluster_max_gpus_per_node(e->cl) > 256)
        return PyErr_NoMemory();
    int k = route_node_gpus(e->cl, (int)n, ids);
    PyObject *t = PyTuple_New(k);
    for (int i = 0; t != NULL && i < k; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(ids[i]));
    return t;
}

static PyObject *serve_gpu_type(PyObject *self, PyObject *arg)
{
    const struct serve_env_view *e = senv((struct pyserve *)self);
    long g = e ? PyLong_AsLong(arg) : -1;
    if (e == NULL || (g == -1 && PyErr_Occurred()))
        return NULL;
    if (g < 0 || g >= cluster_ngpus(e->cl)) {
        PyErr_Format(PyExc_ValueError, "GPU %ld outside 0 .. %d", g, cluster_ngpus(e->cl) - 1);
        return NULL;
    }
    return PyLong_FromLong(cluster_gpu_type(e->cl, (int)g));
}

static PyObject *serve_type_name(PyObject *self, PyObject *arg)
{
    const struct serve_env_view *e = senv((struct pyserve *)self);
    long t = e ? PyLong_AsLong(arg) : -1;
    if (e == NULL || (t == -1 && PyErr_Occurred()))
        return NULL;
    if (t < 0 || t > INT32_MAX || cluster_type_slot(e->cl, (int)t) < 0) {
        PyErr_Format(PyExc_ValueError, "GPU type %ld is not one of the cluster's", t);
        return NULL;
    }
    return PyUnicode_FromString(catalog_gpu(cluster_catalog(e->cl), (int)t)->name);
}

static PyObject *deployment_to_py(const struct serve_deployment *d)
{
    PyObject *l = PyList_New(d->n);
    for (int i = 0; l != NULL && i < d->n; i++) {
        const struct serve_instance *in = &d->inst[i];
        PyObject *st = PyList_New(in->nstages);
        for (int s = 0; st != NULL && s < in->nstages; s++) {
            PyObject *g = PyTuple_New(in->stages[s].ngpu);
            for (int k = 0; g != NULL && k < in->stages[s].ngpu; k++)
                PyTuple_SET_ITEM(g, k, PyLong_FromLong(in->stages[s].gpus[k]));
            PyObject *pair = g ? Py_BuildValue("(Ni)", g, in->stages[s].layers) : NULL;
            if (pair == NULL) {
                Py_CLEAR(st);
                break;
            }
            PyList_SET_ITEM(st, s, pair);
        }
        PyObject *inst = st ? Py_BuildValue("(iN)", in->role, st) : NULL;
        if (inst == NULL) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, inst);
    }
    return l;
}

/* replicas(types, tp=0, prompt=1024, output=128): route_replicas (sched/route.h) */
static PyObject *serve_replicas(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kws[] = { "types", "tp", "prompt", "output", NULL };
    const struct serve_env_view *e = senv((struct pyserve *)self);
    PyObject *types;
    long long tp = 0;
    struct route_ref ref = { 1024, 128 };
    if (e == NULL ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O|Ldd", kws, &types, &tp, &ref.prompt,
                                     &ref.output))
        return NULL;
    unsigned char mask[ROUTE_MAX_TYPES] = { 0 };
    PyObject *seq = PySequence_Fast(types, "replicas: types must be a sequence of GPU types");
    if (seq == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long t = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((t == -1 && PyErr_Occurred()) || t < 0 || t >= ROUTE_MAX_TYPES) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "replicas: GPU type %ld out of range", t);
            return NULL;
        }
        mask[t] = 1;
    }
    Py_DECREF(seq);
    if (tp < 0 || tp > SERVE_MAX_TP || !(ref.prompt >= 1) || !(ref.output >= 1)) {
        PyErr_SetString(PyExc_ValueError, "replicas: tp in 0..8, prompt and output >= 1");
        return NULL;
    }
    struct serve_deployment *d = calloc(1, sizeof *d);
    if (d == NULL)
        return PyErr_NoMemory();
    struct errbuf err = { 0 };
    PyObject *r = NULL;
    if (route_replicas(e, mask, tp, &ref, d, &err) < 0)
        PyErr_SetString(PyExc_ValueError, err.msg);
    else
        r = deployment_to_py(d);
    free(d);
    return r;
}

static PyMethodDef serve_methods[] = {
    { "high_type", serve_high_type, METH_NOARGS, "high_type(): the cluster's high-end GPU "
      "type (highest fp16 FLOP/s, then memory bandwidth)" },
    { "node_gpus", serve_node_gpus, METH_O, "node_gpus(n): the GPU ids of node n" },
    { "gpu_type", serve_gpu_type, METH_O, "gpu_type(gpu): its type" },
    { "type_name", serve_type_name, METH_O, "type_name(t): the catalog name" },
    { "replicas", (PyCFunction)(void (*)(void))serve_replicas, METH_VARARGS | METH_KEYWORDS,
      "replicas(types, tp=0, prompt=1024, output=128): unified replicas of the model on the "
      "nodes of those types, the TP degree serving the most reference requests a second "
      "(route_replicas, sched/route.h), as a deployment" },
    { NULL, NULL, 0, NULL },
};

#define LF(name, kind) { offsetof(struct serve_inst_load, name), kind, 0 }
static const struct field load_fields[] = {
    { offsetof(struct serve_inst_load, role), 'I', 0 },
    LF(pending_prefill, 'l'), LF(kv_free, 'd'), LF(speed, 'd'),
};
#undef LF

static PyObject *load_get(PyObject *self, void *c)
{
    struct pyload *o = (struct pyload *)self;
    const struct serve_view *v = o->view->v;
    if (v == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a Load can be read only during route");
        return NULL;
    }
    const struct serve_inst_load *l = &v->load[o->idx];
    switch ((intptr_t)c) {
    case 0: return PyLong_FromLong(l->role);
    case 1: return PyLong_FromLong(l->waiting);
    case 2: return PyLong_FromLong(l->running);
    case 3: return field_get(l, &load_fields[1]);
    case 4: return field_get(l, &load_fields[2]);
    case 5: return field_get(l, &load_fields[3]);
    }
    return PyLong_FromLong(o->idx);
}

static PyGetSetDef load_getset[] = {
    { "role", load_get, NULL, "hetsim.UNIFIED, PREFILL or DECODE", (void *)0 },
    { "waiting", load_get, NULL, "requests routed, not admitted", (void *)1 },
    { "running", load_get, NULL, "requests admitted", (void *)2 },
    { "pending_prefill", load_get, NULL, "prompt tokens not yet prefilled", (void *)3 },
    { "kv_free", load_get, NULL, "fraction of its KV cache free", (void *)4 },
    { "speed", load_get, NULL, "modelled tokens/s when full", (void *)5 },
    { "index", load_get, NULL, "the instance", (void *)6 },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyObject *req_get(PyObject *self, void *c)
{
    struct pyserve *sv = ((struct pyload *)self)->view;
    if (sv->req == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "a request can be read only during route");
        return NULL;
    }
    switch ((intptr_t)c) {
    case 0: return PyLong_FromLongLong((long long)sv->req->id);
    case 1: return PyLong_FromLong(sv->req->prompt);
    case 2: return PyLong_FromLong(sv->req->want_role);
    }
    return PyLong_FromLong(sv->req->from);
}

static PyGetSetDef req_getset[] = {
    { "id", req_get, NULL, "the trace's request id", (void *)0 },
    { "prompt", req_get, NULL, "prompt tokens", (void *)1 },
    { "want_role", req_get, NULL, "hetsim.PREFILL: an instance for its prompt; hetsim.DECODE: "
      "a decode-only instance after prefill on from_inst", (void *)2 },
    { "from_inst", req_get, NULL, "with DECODE: the prefill instance", (void *)3 },
    { NULL, NULL, NULL, NULL, NULL },
};

static void load_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pyload *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static void sview_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pyserve *)self)->loads);
    Py_XDECREF(((struct pyserve *)self)->reqobj);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot sview_slots[] = {
    { Py_tp_getset, serve_getset }, { Py_tp_methods, serve_methods },
    { Py_tp_dealloc, sview_dealloc },
    { Py_tp_doc, "What a serving policy sees (sim/serve/serve_view.h): deploy's environment "
                 "and route's loads, read-only." }, { 0, NULL },
};
static PyType_Spec sview_spec = { "hetsim.ServeView", sizeof(struct pyserve), 0,
                                  Py_TPFLAGS_DEFAULT, sview_slots };
static PyType_Slot load_slots[] = {
    { Py_tp_getset, load_getset }, { Py_tp_dealloc, load_dealloc },
    { Py_tp_doc, "An instance's load now (struct serve_inst_load), read-only." }, { 0, NULL },
};
static PyType_Spec load_spec = { "hetsim.Load", sizeof(struct pyload), 0, Py_TPFLAGS_DEFAULT,
                                 load_slots };
static PyType_Slot req_slots[] = {
    { Py_tp_getset, req_getset }, { Py_tp_dealloc, load_dealloc },
    { Py_tp_doc, "The request being routed (struct serve_req_view), read-only." }, { 0, NULL },
};
static PyType_Spec req_spec = { "hetsim.Request", sizeof(struct pyload), 0, Py_TPFLAGS_DEFAULT,
                                req_slots };

static int py_serve_deploy(void *self, const struct serve_env_view *v,
                           struct serve_deployment *out, struct errbuf *err)
{
    struct pypol *b = self;
    struct pyserve *sv = b->sview;
    sv->env = v;
    PyObject *r = call_hook(b, HOOK_AUX, PyTuple_Pack(1, (PyObject *)sv), err);
    int rc = r == NULL ? -1 : 0;
    char rep[160] = "";
    if (r != NULL)
        repr_of(r, rep, sizeof rep);
    PyObject *seq = r ? PySequence_Fast(r, "") : NULL;
    Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
    if (rc == 0 && (seq == NULL || n < 1 || n > SERVE_MAX_INSTANCES)) {
        PyErr_Clear();
        rc = bad_return(b, HOOK_AUX, err, "returned %s; expected a list of 1 to %d instances, "
                        "each (role, [(gpus, layers), ...])", rep, SERVE_MAX_INSTANCES);
    }
    memset(out, 0, sizeof *out);
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        PyObject *in = PySequence_Fast_GET_ITEM(seq, i), *stages = NULL;
        struct serve_instance *si = &out->inst[i];
        long role = -1;
        if (PyTuple_Check(in) && PyTuple_GET_SIZE(in) == 2) {
            role = PyLong_AsLong(PyTuple_GET_ITEM(in, 0));
            stages = PySequence_Fast(PyTuple_GET_ITEM(in, 1), "");
        }
        Py_ssize_t ns = stages ? PySequence_Fast_GET_SIZE(stages) : 0;
        int ok = stages != NULL && !PyErr_Occurred() && role >= SERVE_UNIFIED &&
                 role <= SERVE_DECODE && ns >= 1 && ns <= SERVE_MAX_STAGES;
        si->role = (int32_t)role;
        si->nstages = (int32_t)ns;
        for (Py_ssize_t s = 0; ok && s < ns; s++) {
            PyObject *st = PySequence_Fast_GET_ITEM(stages, s), *g = NULL;
            long layers = -1;
            if (PyTuple_Check(st) && PyTuple_GET_SIZE(st) == 2) {
                g = PySequence_Fast(PyTuple_GET_ITEM(st, 0), "");
                layers = PyLong_AsLong(PyTuple_GET_ITEM(st, 1));
            }
            Py_ssize_t ng = g ? PySequence_Fast_GET_SIZE(g) : 0;
            ok = g != NULL && !PyErr_Occurred() && ng >= 1 && ng <= SERVE_MAX_TP &&
                 layers >= 1 && layers <= INT32_MAX;
            si->stages[s].ngpu = (int32_t)ng;
            si->stages[s].layers = (int32_t)layers;
            for (Py_ssize_t k = 0; ok && k < ng; k++) {
                long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(g, k));
                ok = !(x == -1 && PyErr_Occurred()) && x >= INT32_MIN && x <= INT32_MAX;
                si->stages[s].gpus[k] = (int32_t)x;
            }
            Py_XDECREF(g);
        }
        Py_XDECREF(stages);
        PyErr_Clear();
        if (!ok) {
            char irep[160];
            repr_of(in, irep, sizeof irep);
            rc = bad_return(b, HOOK_AUX, err, "instance %zd is %s; expected (role, [(gpus, "
                            "layers), ...]): role hetsim.UNIFIED, PREFILL or DECODE, 1 to %d "
                            "stages of 1 to %d GPU ids and at least one layer", i, irep,
                            SERVE_MAX_STAGES, SERVE_MAX_TP);
        }
    }
    out->n = (int32_t)n;
    char msg[ERR_MSG_MAX];
    if (rc == 0 && serve_check_deployment(v, out, msg, sizeof msg) < 0)
        rc = bad_return(b, HOOK_AUX, err, "returned a deployment the world refuses: %s", msg);
    Py_XDECREF(seq);
    Py_XDECREF(r);
    sv->env = NULL;
    return rc;
}

static int py_serve_route(void *self, const struct serve_view *v, const struct serve_req_view *q,
                          int32_t *inst, struct errbuf *err)
{
    struct pypol *b = self;
    struct pyserve *sv = b->sview;
    if (sv->loads == NULL || PyTuple_GET_SIZE(sv->loads) != v->n) {
        Py_CLEAR(sv->loads);
        PyObject *t = PyTuple_New(v->n);
        for (int i = 0; t != NULL && i < v->n; i++) {
            struct pyload *l = PyObject_New(struct pyload, t_load);
            if (l == NULL) {
                Py_CLEAR(t);
                break;
            }
            Py_INCREF(sv);
            l->view = sv;
            l->idx = i;
            PyTuple_SET_ITEM(t, i, (PyObject *)l);
        }
        if (t == NULL)
            return py_error(b, "route", b->hook_line[HOOK_DECIDE], err);
        sv->loads = t;
    }
    sv->v = v;
    sv->req = q;
    PyObject *r = call_hook(b, HOOK_DECIDE, PyTuple_Pack(2, (PyObject *)sv, sv->reqobj), err);
    int rc = r == NULL ? -1 : 0;
    if (rc == 0) {
        long i = PyLong_Check(r) && !PyBool_Check(r) ? PyLong_AsLong(r) : -2;
        char rep[160];
        repr_of(r, rep, sizeof rep);
        PyErr_Clear();
        if (i == -2 || i < INT32_MIN || i > INT32_MAX) {
            rc = bad_return(b, HOOK_DECIDE, err, "returned %s; expected an instance index", rep);
        } else if (serve_view_route_check(v, q, (int32_t)i, err) < 0) {
            char msg[ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            rc = bad_return(b, HOOK_DECIDE, err, "returned %s, which the world refuses: %s",
                            rep, msg);
        } else {
            *inst = (int32_t)i;
        }
    }
    Py_XDECREF(r);
    sv->v = NULL;
    sv->req = NULL;
    return rc;
}

static int bind_serving(struct pypol *b, struct errbuf *err)
{
    if (need_hook(b, HOOK_DECIDE, "route", err) < 0 || need_hook(b, HOOK_AUX, "deploy", err) < 0)
        return -1;
    b->sh.deploy = py_serve_deploy;
    b->sh.route = py_serve_route;
    b->ops.serve = &b->sh;
    b->sview = PyObject_New(struct pyserve, t_sview);
    if (b->sview == NULL)
        return py_error(b, NULL, 0, err);
    b->sview->env = NULL;
    b->sview->v = NULL;
    b->sview->req = NULL;
    b->sview->b = b;
    b->sview->loads = NULL;
    b->sview->reqobj = NULL;
    struct pyload *q = PyObject_New(struct pyload, t_req);
    if (q == NULL)
        return py_error(b, NULL, 0, err);
    Py_INCREF(b->sview);
    q->view = b->sview;
    q->idx = 0;
    b->sview->reqobj = (PyObject *)q;
    return 0;
}

/* ------------------------------------------------------------------ microservices */

struct pymicro {
    PyObject_HEAD
    const struct micro_view *v;         /* during a decision, else NULL */
    struct pypol            *b;
    PyObject                *services, *graphs;     /* made at the first decision */
};

struct pyapp {                          /* a Service or a Graph */
    PyObject_HEAD
    struct pymicro *view;
    int             idx;
};

static const struct micro_view *mlive(struct pymicro *mv)
{
    if (mv->v == NULL)
        PyErr_SetString(PyExc_RuntimeError, "the view can be read only during a decision");
    return mv->v;
}

static PyObject *dtuple(const double *a, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++)
        PyTuple_SET_ITEM(t, i, PyFloat_FromDouble(a != NULL ? a[i] : 0));
    return t;
}

static PyObject *ituple(const int *a, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(a[i]));
    return t;
}

static PyObject *mview_get(PyObject *self, void *c)
{
    struct pymicro *mv = (struct pymicro *)self;
    const struct micro_view *v = mlive(mv);
    if (v == NULL)
        return NULL;
    int S = v->app->nservices, G = v->app->ngraphs;
    switch ((intptr_t)c) {
    case 0: return PyLong_FromLongLong((long long)v->now);
    case 1: return PyLong_FromLongLong((long long)v->interval);
    case 2: return PyFloat_FromDouble(v->interval_s);
    case 3: return PyFloat_FromDouble(v->sla_s);
    case 4: return PyFloat_FromDouble(v->quantile);
    case 5: return ituple(v->containers, S);
    case 6: return ituple(v->ready, S);
    case 7: return PyFloat_FromDouble(v->startup_s);
    case 8: return PyFloat_FromDouble(v->capacity_cpus);
    case 9: return PyFloat_FromDouble(v->capacity_memory_gb);
    case 10: return PyFloat_FromDouble(v->peak_rate);
    case 11: return PyBool_FromLong(v->have_last);
    case 12: return PyFloat_FromDouble(v->rate);
    case 13: return dtuple(v->mix, G);
    case 14: return dtuple(v->load, S);
    case 15: return dtuple(v->call_mean_s, S);
    case 16: return dtuple(v->graph_p95_s, G);
    case 17: return PyFloat_FromDouble(v->e2e_q_s);
    case 18: return PyFloat_FromDouble(v->miss_frac);
    case 19: return dtuple(v->hist_rate, v->nhist);
    case 20: return dtuple(v->hist_mix, v->nhist * G);
    case 21: Py_INCREF(mv->services); return mv->services;
    case 22: Py_INCREF(mv->graphs); return mv->graphs;
    case 23: return PyUnicode_FromString(v->app->name);
    }
    return NULL;
}

#define MG(name, k, doc) { name, mview_get, NULL, doc, (void *)(intptr_t)(k) }
static PyGetSetDef mview_getset[] = {
    MG("now", 0, "the clock, microseconds"), MG("interval", 1, "the interval that starts now"),
    MG("interval_s", 2, "seconds of an interval"), MG("sla_s", 3, "the SLA's latency"),
    MG("quantile", 4, "the SLA's quantile"),
    MG("containers", 5, "containers allocated now per service (ready and starting)"),
    MG("ready", 6, "containers serving now per service"),
    MG("startup_s", 7, "a new container serves this long after it is asked for"),
    MG("capacity_cpus", 8, "the cluster's cores"), MG("capacity_memory_gb", 9, "its memory"),
    MG("peak_rate", 10, "requests/s at the declared peak, else the highest seen so far"),
    MG("have_last", 11, "False before the first interval ends"),
    MG("rate", 12, "the last interval's requests/s"), MG("mix", 13, "its graph mix"),
    MG("load", 14, "its calls/s per service"),
    MG("call_mean_s", 15, "its mean call latency per service (0: none)"),
    MG("graph_p95_s", 16, "its end-to-end quantile per graph (0: none)"),
    MG("e2e_q_s", 17, "its end-to-end quantile"), MG("miss_frac", 18, "its share over the SLA"),
    MG("hist_rate", 19, "the latest intervals' rates, oldest first"),
    MG("hist_mix", 20, "their mixes, interval by interval (len(hist_rate) x graphs)"),
    MG("services", 21, "the services (a tuple of Service)"),
    MG("graphs", 22, "the graph types (a tuple of Graph)"), MG("app", 23, "the app's name"),
    { NULL, NULL, NULL, NULL, NULL },
};
#undef MG

static PyObject *svc_get(PyObject *self, void *c)
{
    struct pyapp *o = (struct pyapp *)self;
    const struct micro_view *v = mlive(o->view);
    if (v == NULL)
        return NULL;
    const struct micro_service *s = &v->app->svc[o->idx];
    switch ((intptr_t)c) {
    case 0: return PyUnicode_FromString(s->name);
    case 1: return PyFloat_FromDouble(s->cpus);
    case 2: return PyFloat_FromDouble(s->memory_gb);
    case 3: return PyLong_FromLong(s->init);
    case 4: return PyLong_FromLong(s->concurrency);
    }
    return PyLong_FromLong(o->idx);
}

static PyGetSetDef svc_getset[] = {
    { "name", svc_get, NULL, "its name", (void *)0 },
    { "cpus", svc_get, NULL, "cores of one container", (void *)1 },
    { "memory_gb", svc_get, NULL, "memory of one container", (void *)2 },
    { "init", svc_get, NULL, "containers when the run starts", (void *)3 },
    { "concurrency", svc_get, NULL, "calls a container serves at once (queueing truth)",
      (void *)4 },
    { "index", svc_get, NULL, "its index", (void *)5 },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyObject *graph_get(PyObject *self, void *c)
{
    struct pyapp *o = (struct pyapp *)self;
    const struct micro_view *v = mlive(o->view);
    if (v == NULL)
        return NULL;
    const struct micro_graph *g = &v->app->graph[o->idx];
    switch ((intptr_t)c) {
    case 0: return PyUnicode_FromString(g->name);
    case 1: return PyFloat_FromDouble(g->weight);
    case 2: return PyLong_FromLong(g->ncalls);
    case 3: return dtuple(g->calls_per_service, v->app->nservices);
    case 4: return PyFloat_FromDouble(g->min_latency_s);
    }
    return PyLong_FromLong(o->idx);
}

static PyGetSetDef graph_getset[] = {
    { "name", graph_get, NULL, "its name", (void *)0 },
    { "weight", graph_get, NULL, "its share of requests when a workload gives no mix",
      (void *)1 },
    { "ncalls", graph_get, NULL, "calls of its tree", (void *)2 },
    { "calls_per_service", graph_get, NULL, "calls per request of each service", (void *)3 },
    { "min_latency_s", graph_get, NULL, "no request of it is faster", (void *)4 },
    { "index", graph_get, NULL, "its index", (void *)5 },
    { NULL, NULL, NULL, NULL, NULL },
};

/* The arguments of prob_idle and solve: gamma (a value per service) and chains, each
 * (graph, weight); the chain's calls are the graph's.  *g and *ch are malloc'd. */
static int msopt_args(struct pymicro *mv, PyObject *gamma_o, PyObject *chains_o,
                      const char *paths_s, double **g, struct msopt_chain **ch, int *nch,
                      int *paths)
{
    const struct micro_view *v = mlive(mv);
    if (v == NULL)
        return -1;
    int S = v->app->nservices, G = v->app->ngraphs;
    *g = NULL;
    *ch = NULL;
    if (strcmp(paths_s, "all") == 0 || strcmp(paths_s, "critical") == 0) {
        *paths = paths_s[0] == 'a' ? MSOPT_ALL : MSOPT_CRITICAL;
    } else {
        PyErr_SetString(PyExc_ValueError, "paths must be 'all' or 'critical'");
        return -1;
    }
    PyObject *gs = PySequence_Fast(gamma_o, "gamma: a sequence of calls/s per service");
    PyObject *cs = gs ? PySequence_Fast(chains_o, "chains: a sequence of (graph, weight)") : NULL;
    int rc = -1;
    if (cs == NULL)
        goto out;
    if (PySequence_Fast_GET_SIZE(gs) != S) {
        PyErr_Format(PyExc_ValueError, "gamma: %d values expected (one per service)", S);
        goto out;
    }
    *nch = (int)PySequence_Fast_GET_SIZE(cs);
    *g = malloc((size_t)S * sizeof **g);
    *ch = malloc((size_t)(*nch > 0 ? *nch : 1) * sizeof **ch);
    if (*g == NULL || *ch == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    for (int k = 0; k < S; k++)
        if (((*g)[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(gs, k))) == -1 &&
            PyErr_Occurred())
            goto out;
    for (int c = 0; c < *nch; c++) {
        PyObject *e = PySequence_Fast_GET_ITEM(cs, c);
        long gi = -1;
        double w = 0;
        if (PyTuple_Check(e) && PyTuple_GET_SIZE(e) == 2) {
            gi = PyLong_AsLong(PyTuple_GET_ITEM(e, 0));
            w = PyFloat_AsDouble(PyTuple_GET_ITEM(e, 1));
        }
        if (PyErr_Occurred() || gi < 0 || gi >= G || !(w >= 0)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "chain %d: expected (graph index, weight >= 0)", c);
            goto out;
        }
        (*ch)[c] = (struct msopt_chain){ v->app->graph[gi].calls_per_service, w, (int)gi };
    }
    rc = 0;
out:
    Py_XDECREF(gs);
    Py_XDECREF(cs);
    if (rc < 0) {
        free(*g);
        free(*ch);
        *g = NULL;
        *ch = NULL;
    }
    return rc;
}

static PyObject *mview_prob_idle(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kws[] = { "gamma", "chains", "paths", NULL };
    struct pymicro *mv = (struct pymicro *)self;
    PyObject *go, *co;
    const char *ps = "all";
    double *g;
    struct msopt_chain *ch;
    int nch, paths;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|s", kws, &go, &co, &ps) ||
        msopt_args(mv, go, co, ps, &g, &ch, &nch, &paths) < 0)
        return NULL;
    struct msopt_problem z = { .app = mv->v->app, .gamma = g, .chain = ch, .nchains = nch,
                               .sla_s = mv->v->sla_s, .quantile = mv->v->quantile,
                               .paths = paths };
    double p = msopt_prob_idle(&z);
    free(g);
    free(ch);
    return PyFloat_FromDouble(p);
}

static PyObject *mview_solve(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kws[] = { "gamma", "chains", "iterations", "trim", "paths", NULL };
    struct pymicro *mv = (struct pymicro *)self;
    PyObject *go, *co;
    const char *ps = "all";
    int iterations = 30, trim = 1, nch, paths;
    double *g;
    struct msopt_chain *ch;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|ips", kws, &go, &co, &iterations, &trim,
                                     &ps) ||
        msopt_args(mv, go, co, ps, &g, &ch, &nch, &paths) < 0)
        return NULL;
    if (iterations < 1 || iterations > 10000) {
        free(g);
        free(ch);
        PyErr_SetString(PyExc_ValueError, "iterations in 1 .. 10000");
        return NULL;
    }
    int S = mv->v->app->nservices;
    int *n = calloc((size_t)S, sizeof *n);
    struct msopt_problem pr = { .app = mv->v->app, .gamma = g, .chain = ch, .nchains = nch,
                                .sla_s = mv->v->sla_s, .quantile = mv->v->quantile,
                                .cap_cpus = mv->v->capacity_cpus, .iterations = iterations,
                                .trim = trim, .paths = paths };
    struct msopt_result res;
    struct errbuf err = { 0 };
    PyObject *r = NULL;
    if (n == NULL)
        PyErr_NoMemory();
    else if (msopt_solve(&pr, n, &res, &err) < 0)
        PyErr_SetString(PyExc_MemoryError, err.msg);
    else
        r = Py_BuildValue("(NO)", ituple(n, S), res.feasible ? Py_True : Py_False);
    free(n);
    free(g);
    free(ch);
    return r;
}

static PyMethodDef mview_methods[] = {
    { "prob_idle", (PyCFunction)(void (*)(void))mview_prob_idle, METH_VARARGS | METH_KEYWORDS,
      "prob_idle(gamma, chains, paths='all'): Derm's model of P(latency <= SLA) with every "
      "service at no load (msopt_prob_idle, sched/micro/msopt.h); chains: [(graph, weight)]" },
    { "solve", (PyCFunction)(void (*)(void))mview_solve, METH_VARARGS | METH_KEYWORDS,
      "solve(gamma, chains, iterations=30, trim=True, paths='all'): Derm's container "
      "minimization under the SLA within the cluster's cores (msopt_solve) -> (containers, "
      "feasible)" },
    { NULL, NULL, 0, NULL },
};

static void app_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pyapp *)self)->view);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static void mview_dealloc(PyObject *self)
{
    Py_XDECREF(((struct pymicro *)self)->services);
    Py_XDECREF(((struct pymicro *)self)->graphs);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot mview_slots[] = {
    { Py_tp_getset, mview_getset }, { Py_tp_methods, mview_methods },
    { Py_tp_dealloc, mview_dealloc },
    { Py_tp_doc, "What a microservice policy sees (sim/micro/micro_view.h), read-only." },
    { 0, NULL },
};
static PyType_Spec mview_spec = { "hetsim.MicroView", sizeof(struct pymicro), 0,
                                  Py_TPFLAGS_DEFAULT, mview_slots };
static PyType_Slot svc_slots[] = {
    { Py_tp_getset, svc_getset }, { Py_tp_dealloc, app_dealloc },
    { Py_tp_doc, "A service of the app (struct micro_service), read-only." }, { 0, NULL },
};
static PyType_Spec svc_spec = { "hetsim.Service", sizeof(struct pyapp), 0, Py_TPFLAGS_DEFAULT,
                                svc_slots };
static PyType_Slot graph_slots[] = {
    { Py_tp_getset, graph_getset }, { Py_tp_dealloc, app_dealloc },
    { Py_tp_doc, "A graph type of the app (struct micro_graph), read-only." }, { 0, NULL },
};
static PyType_Spec graph_spec = { "hetsim.Graph", sizeof(struct pyapp), 0, Py_TPFLAGS_DEFAULT,
                                  graph_slots };

static PyObject *app_objects(struct pymicro *mv, PyTypeObject *tp, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++) {
        struct pyapp *o = PyObject_New(struct pyapp, tp);
        if (o == NULL) {
            Py_CLEAR(t);
            break;
        }
        Py_INCREF(mv);
        o->view = mv;
        o->idx = i;
        PyTuple_SET_ITEM(t, i, (PyObject *)o);
    }
    return t;
}

static int py_micro_decide(void *self, const struct micro_view *v, int *containers,
                           struct errbuf *err)
{
    struct pypol *b = self;
    struct pymicro *mv = b->mview;
    int S = v->app->nservices;
    if (mv->services == NULL &&
        ((mv->services = app_objects(mv, t_svc, S)) == NULL ||
         (mv->graphs = app_objects(mv, t_graph, v->app->ngraphs)) == NULL))
        return py_error(b, "decide", b->hook_line[HOOK_DECIDE], err);
    mv->v = v;
    PyObject *r = call_hook(b, HOOK_DECIDE, PyTuple_Pack(1, (PyObject *)mv), err);
    int rc = r == NULL ? -1 : 0;
    if (rc == 0 && r != Py_None) {      /* None: keep the containers as they are */
        char rep[160];
        repr_of(r, rep, sizeof rep);
        PyObject *seq = PySequence_Fast(r, "");
        int ok = seq != NULL && PySequence_Fast_GET_SIZE(seq) == S;
        for (int k = 0; ok && k < S; k++) {
            PyObject *x = PySequence_Fast_GET_ITEM(seq, k);
            long n = PyLong_Check(x) && !PyBool_Check(x) ? PyLong_AsLong(x) : -1;
            ok = n >= 1 && n <= INT32_MAX;
            if (ok)
                containers[k] = (int)n;
        }
        Py_XDECREF(seq);
        PyErr_Clear();
        if (!ok)
            rc = bad_return(b, HOOK_DECIDE, err, "returned %s; expected %d integers >= 1, the "
                            "containers of each service (view.services), or None", rep, S);
    }
    Py_XDECREF(r);
    mv->v = NULL;
    return rc;
}

static int bind_micro(struct pypol *b, struct errbuf *err)
{
    if (need_hook(b, HOOK_DECIDE, "decide", err) < 0)
        return -1;
    b->mh.decide = py_micro_decide;
    b->ops.micro = &b->mh;
    b->mview = PyObject_New(struct pymicro, t_mview);
    if (b->mview == NULL)
        return py_error(b, NULL, 0, err);
    b->mview->v = NULL;
    b->mview->b = b;
    b->mview->services = b->mview->graphs = NULL;
    return 0;
}

/* ------------------------------------------------------------------ hetsim.stream */

/* A GSL stream named per purpose from the run's seed (sim/base/rng.h), as C policies draw:
 * what a Python policy needs to repeat a C policy's draws exactly. */
struct pystream {
    PyObject_HEAD
    gsl_rng *r;
};

static PyObject *stream_new(PyObject *mod, PyObject *arg)
{
    (void)mod;
    const char *name = PyUnicode_AsUTF8(arg);
    if (name == NULL)
        return NULL;
    struct pystream *s = PyObject_New(struct pystream, t_stream);
    if (s == NULL)
        return NULL;
    if ((s->r = rng_stream(cur_seed, name)) == NULL) {
        Py_DECREF(s);
        return PyErr_NoMemory();
    }
    return (PyObject *)s;
}

static PyObject *stream_uniform_int(PyObject *self, PyObject *arg)
{
    unsigned long n = PyLong_AsUnsignedLong(arg);
    if (n == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "uniform_int(n) needs n >= 1");
        return NULL;
    }
    return PyLong_FromUnsignedLong(gsl_rng_uniform_int(((struct pystream *)self)->r, n));
}

static PyObject *stream_uniform(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyFloat_FromDouble(gsl_rng_uniform(((struct pystream *)self)->r));
}

/* shuffle(list of ints) -> a new list, permuted as gsl_ran_shuffle permutes an int array */
static PyObject *stream_shuffle(PyObject *self, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "shuffle: expected a sequence of integers");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    PyObject *out = NULL;
    if (a == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((x == -1 && PyErr_Occurred()) || x < INT_MIN || x > INT_MAX) {
            PyErr_SetString(PyExc_ValueError, "shuffle: expected integers");
            goto done;
        }
        a[i] = (int)x;
    }
    gsl_ran_shuffle(((struct pystream *)self)->r, a, (size_t)n, sizeof *a);
    out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++)
        PyList_SET_ITEM(out, i, PyLong_FromLong(a[i]));
done:
    free(a);
    Py_DECREF(seq);
    return out;
}

static void stream_dealloc(PyObject *self)
{
    if (((struct pystream *)self)->r != NULL)
        gsl_rng_free(((struct pystream *)self)->r);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMethodDef stream_methods[] = {
    { "uniform_int", stream_uniform_int, METH_O, "uniform_int(n): gsl_rng_uniform_int, 0..n-1" },
    { "uniform", stream_uniform, METH_NOARGS, "uniform(): gsl_rng_uniform, [0, 1)" },
    { "shuffle", stream_shuffle, METH_O, "shuffle(ints): a new list, as gsl_ran_shuffle" },
    { NULL, NULL, 0, NULL },
};

static PyType_Slot stream_slots[] = {
    { Py_tp_methods, stream_methods }, { Py_tp_dealloc, stream_dealloc },
    { Py_tp_doc, "hetsim.stream(name): the GSL stream `name` of the run's seed." }, { 0, NULL },
};
static PyType_Spec stream_spec = { "hetsim.Stream", sizeof(struct pystream), 0,
                                   Py_TPFLAGS_DEFAULT, stream_slots };

static PyMethodDef hetsim_functions[] = {
    { "stream", stream_new, METH_O, "stream(name): the run's GSL random stream `name` "
      "(MT19937 seeded with rng_derive_seed(seed, name), sim/base/rng.h), as C policies draw" },
    { NULL, NULL, 0, NULL },
};

/* ------------------------------------------------------------------ the module hetsim */

static PyObject *hetsim_module_init(void)
{
    static PyModuleDef def = { PyModuleDef_HEAD_INIT, "hetsim",
                               "What hetsim's Python policies see (doc/python.md).", -1,
                               hetsim_functions, NULL, NULL, NULL, NULL };
    PyObject *m = PyModule_Create(&def);
    if (m == NULL)
        return NULL;
    t_job = (PyTypeObject *)PyType_FromSpec(&job_spec);
    t_view = (PyTypeObject *)PyType_FromSpec(&view_spec);
    t_list = (PyTypeObject *)PyType_FromSpec(&list_spec);
    t_iter = (PyTypeObject *)PyType_FromSpec(&iter_spec);
    t_plan = (PyTypeObject *)PyType_FromSpec(&plan_spec);
    t_pview = (PyTypeObject *)PyType_FromSpec(&pview_spec);
    t_node = (PyTypeObject *)PyType_FromSpec(&node_spec);
    t_pod = (PyTypeObject *)PyType_FromSpec(&pod_spec);
    t_stream = (PyTypeObject *)PyType_FromSpec(&stream_spec);
    t_sview = (PyTypeObject *)PyType_FromSpec(&sview_spec);
    t_load = (PyTypeObject *)PyType_FromSpec(&load_spec);
    t_req = (PyTypeObject *)PyType_FromSpec(&req_spec);
    t_mview = (PyTypeObject *)PyType_FromSpec(&mview_spec);
    t_svc = (PyTypeObject *)PyType_FromSpec(&svc_spec);
    t_graph = (PyTypeObject *)PyType_FromSpec(&graph_spec);
    e_timeout = PyErr_NewExceptionWithDoc("hetsim.PolicyTimeout", "A hook ran longer than "
                                          "sim.policy_timeout_s CPU seconds.",
                                          PyExc_TimeoutError, NULL);
    if (t_job == NULL || t_view == NULL || t_list == NULL || t_iter == NULL || t_plan == NULL ||
        t_pview == NULL || t_node == NULL || t_pod == NULL || t_stream == NULL ||
        t_sview == NULL || t_load == NULL || t_req == NULL || t_mview == NULL ||
        t_svc == NULL || t_graph == NULL ||
        PyModule_AddIntConstant(m, "UNIFIED", SERVE_UNIFIED) < 0 ||
        PyModule_AddIntConstant(m, "PREFILL", SERVE_PREFILL) < 0 ||
        PyModule_AddIntConstant(m, "DECODE", SERVE_DECODE) < 0 ||
        e_timeout == NULL || PyModule_AddObjectRef(m, "PolicyTimeout", e_timeout) < 0 ||
        PyModule_AddObjectRef(m, "Job", (PyObject *)t_job) < 0 ||
        PyModule_AddObjectRef(m, "TrainView", (PyObject *)t_view) < 0 ||
        PyModule_AddObjectRef(m, "Plan", (PyObject *)t_plan) < 0 ||
        PyModule_AddIntConstant(m, "QUEUED", JOB_QUEUED) < 0 ||
        PyModule_AddIntConstant(m, "RUNNING", JOB_RUNNING) < 0 ||
        PyModule_AddIntConstant(m, "PREEMPTED", JOB_PREEMPTED) < 0 ||
        PyModule_AddIntConstant(m, "WAKE_ARRIVAL", WAKE_ARRIVAL) < 0 ||
        PyModule_AddIntConstant(m, "WAKE_COMPLETION", WAKE_COMPLETION) < 0 ||
        PyModule_AddIntConstant(m, "WAKE_ROUND", WAKE_ROUND) < 0 ||
        PyModule_AddIntConstant(m, "WAKE_TIMER", WAKE_TIMER) < 0 ||
        PyModule_AddIntConstant(m, "WHOLE", OCC_WHOLE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

/* ------------------------------------------------------------------ loading */

static void pol_free(struct pypol *b)
{
    if (b == NULL)
        return;
    if (b->tview != NULL) {
        b->tview->v = NULL;
        b->tview->b = NULL;
        for (int i = 0; i < 3; i++)     /* the lists point back at the view: break the cycle */
            Py_CLEAR(b->tview->lists[i]);
    }
    if (the_plan != NULL && the_plan->view == b->tview) {
        Py_CLEAR(the_plan);
    }
    for (size_t s = 0; s < b->jcap; s++)
        Py_XDECREF(b->jobs[s]);
    Py_XDECREF((PyObject *)b->tview);
    if (b->mview != NULL) {
        b->mview->v = NULL;
        b->mview->b = NULL;
        Py_CLEAR(b->mview->services);
        Py_CLEAR(b->mview->graphs);
        Py_DECREF(b->mview);
    }
    if (b->sview != NULL) {
        b->sview->b = NULL;
        Py_CLEAR(b->sview->loads);
        Py_CLEAR(b->sview->reqobj);
        Py_DECREF(b->sview);
    }
    if (b->pview != NULL) {
        b->pview->v = NULL;
        b->pview->b = NULL;
        /* the nodes and the pod point back at the view: break the cycle */
        Py_CLEAR(b->pview->nodes);
        Py_CLEAR(b->pview->podobj);
        Py_DECREF(b->pview);
    }
    for (int h = 0; h < 3; h++)
        Py_XDECREF(b->hook[h]);
    Py_XDECREF(b->param_names);
    Py_XDECREF(b->mod);
    free(b->jobs);
    free(b->marks);
    free(b->changed);
    occ_destroy(b->scratch);
    occ_destroy(b->chk);
    free(b);
}

static void py_destroy(void *self)
{
    (void)self;                 /* pybridge_unload frees the instance, ops and all */
}

static int py_create_unused(void **self, const struct jobj *params, const struct policy_env *env,
                            struct errbuf *err)
{
    (void)self;
    (void)params;
    (void)env;
    return err_run(err, "a Python policy is created by pybridge_create");
}

/* The hook `name` of the module: a new reference and its `def` line, or NULL (absent). */
static PyObject *hook_of(struct pypol *b, const char *name, int *line)
{
    PyObject *f = PyObject_GetAttrString(b->mod, name);
    if (f == NULL) {
        PyErr_Clear();
        return NULL;
    }
    *line = 0;
    if (PyFunction_Check(f))
        *line = ((PyCodeObject *)PyFunction_GetCode(f))->co_firstlineno;
    return f;
}

static int read_file(const char *path, char **out, struct errbuf *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_input(err, path, 0, NULL, "cannot open the policy: %s", strerror(errno));
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    while (s != NULL) {
        size_t got = fread(s + n, 1, cap - n - 1, f);
        n += got;
        if (n + 1 < cap)
            break;
        char *t = realloc(s, cap * 2);
        if (t == NULL) {
            free(s);
            s = NULL;
        }
        s = t;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (s == NULL)
        return err_run(err, "out of memory");
    if (bad) {
        free(s);
        return err_input(err, path, 0, NULL, "cannot read the policy");
    }
    s[n] = '\0';
    *out = s;
    return 0;
}

/* Run the file as a fresh module (not in sys.modules: each policy its own globals). */
static int exec_module(struct pypol *b, struct errbuf *err)
{
    char *src = NULL;
    if (read_file(b->path, &src, err) < 0)
        return -1;
    /* its folder first on sys.path, for its own imports */
    char dir[PATH_MAX_LEN];
    path_dirname(dir, sizeof dir, b->path);
    PyObject *sp = PySys_GetObject("path"), *d = PyUnicode_FromString(dir);
    if (sp != NULL && d != NULL && PySequence_Contains(sp, d) == 0)
        PyList_Insert(sp, 0, d);
    Py_XDECREF(d);
    b->mod = PyModule_New("hetsim_policy");
    PyObject *g = b->mod ? PyModule_GetDict(b->mod) : NULL;
    PyObject *code = NULL, *r = NULL;
    if (g != NULL && PyDict_SetItemString(g, "__file__", PyUnicode_FromString(b->path)) == 0 &&
        PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) == 0)
        code = Py_CompileString(src, b->path, Py_file_input);
    free(src);
    if (code != NULL)
        r = PyEval_EvalCode(code, g, g);
    Py_XDECREF(code);
    if (r == NULL)
        return py_error(b, NULL, 0, err);
    Py_DECREF(r);
    return 0;
}

/* A module-level constant: an input error naming the module when it has the wrong type. */
static PyObject *module_attr(struct pypol *b, const char *name)
{
    PyObject *o = PyObject_GetAttrString(b->mod, name);
    if (o == NULL)
        PyErr_Clear();
    return o;
}

static int read_header(struct pypol *b, struct errbuf *err)
{
    static const char *const domains[] = { "training", "placement", "serving", "micro", NULL };
    PyObject *dom = module_attr(b, "DOMAIN");
    const char *ds = dom && PyUnicode_Check(dom) ? PyUnicode_AsUTF8(dom) : NULL;
    int di = -1;
    for (int i = 0; ds != NULL && domains[i] != NULL; i++)
        if (strcmp(ds, domains[i]) == 0)
            di = i;
    Py_XDECREF(dom);
    if (di < 0)
        return err_input(err, b->path, 0, "DOMAIN", "the module must set DOMAIN to "
                         "\"training\", \"placement\", \"serving\" or \"micro\"");
    b->ops.domain = domains[di];
    /* PARAMS */
    PyObject *ps = module_attr(b, "PARAMS");
    if (ps != NULL) {
        b->param_names = PySequence_Tuple(ps);
        Py_DECREF(ps);
        Py_ssize_t n = b->param_names ? PyTuple_GET_SIZE(b->param_names) : -1;
        if (n < 0 || n > 64) {
            PyErr_Clear();
            return err_input(err, b->path, 0, "PARAMS", "expected a tuple of at most 64 "
                             "parameter names");
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *s = PyTuple_GET_ITEM(b->param_names, i);
            if (!PyUnicode_Check(s) || (b->params[i] = PyUnicode_AsUTF8(s)) == NULL) {
                PyErr_Clear();
                return err_input(err, b->path, 0, "PARAMS", "parameter names are strings");
            }
        }
        b->params[n] = NULL;
        b->ops.params = b->params;
    }
    PyObject *sd = module_attr(b, "SEEDED");
    if (sd != NULL && PyObject_IsTrue(sd) == 1)
        b->ops.flags |= POLICY_SEEDED;
    Py_XDECREF(sd);
    PyErr_Clear();
    return 0;
}

static int need_hook(struct pypol *b, int h, const char *name, struct errbuf *err)
{
    b->hook_name[h] = name;
    b->hook[h] = hook_of(b, name, &b->hook_line[h]);
    if (b->hook[h] == NULL || !PyCallable_Check(b->hook[h]))
        return err_input(err, b->path, 0, name, "a %s policy defines %s()", b->ops.domain,
                         name);
    return 0;
}

static int bind_training(struct pypol *b, struct errbuf *err)
{
    if (need_hook(b, HOOK_DECIDE, "decide", err) < 0)
        return -1;
    b->th.wake = WAKE_ARRIVAL | WAKE_COMPLETION;
    b->th.round_s = 0;
    PyObject *w = module_attr(b, "WAKE"), *rs = module_attr(b, "ROUND_S");
    long wake = w ? PyLong_AsLong(w) : (long)b->th.wake;
    double round_s = rs ? PyFloat_AsDouble(rs) : 0;
    Py_XDECREF(w);
    Py_XDECREF(rs);
    if (PyErr_Occurred() || wake <= 0 || (wake & ~(long)(WAKE_ARRIVAL | WAKE_COMPLETION |
                                                         WAKE_ROUND)) != 0) {
        PyErr_Clear();
        return err_input(err, b->path, 0, "WAKE", "expected a sum of hetsim.WAKE_ARRIVAL, "
                         "WAKE_COMPLETION and WAKE_ROUND");
    }
    if (!(round_s >= 0 && round_s <= 1e9)) {
        PyErr_Clear();
        return err_input(err, b->path, 0, "ROUND_S", "expected seconds in [0, 1e9]");
    }
    if ((wake & WAKE_ROUND) && round_s == 0)
        round_s = 60;
    b->th.wake = (unsigned)wake;
    b->th.round_s = round_s;
    b->th.decide = py_train_decide;
    b->ops.train = &b->th;
    b->tview = PyObject_New(struct pyview, t_view);
    if (b->tview == NULL)
        return py_error(b, NULL, 0, err);
    b->tview->v = NULL;
    b->tview->b = b;
    b->tview->types = NULL;
    for (int i = 0; i < 3; i++)
        b->tview->lists[i] = NULL;
    const int *types;
    int nt = cluster_types(b->cl, &types);
    b->tview->types = PyTuple_New(nt);
    for (int i = 0; b->tview->types != NULL && i < nt; i++)
        PyTuple_SET_ITEM(b->tview->types, i, PyLong_FromLong(types[i]));
    for (int i = 0; i < 3; i++) {
        struct pylist *l = PyObject_New(struct pylist, t_list);
        if (l == NULL)
            return py_error(b, NULL, 0, err);
        Py_INCREF(b->tview);
        l->view = b->tview;
        l->which = i;
        b->tview->lists[i] = (PyObject *)l;
    }
    if (b->tview->types == NULL)
        return py_error(b, NULL, 0, err);
    if ((b->scratch = occ_create(b->cl)) == NULL || (b->chk = occ_create(b->cl)) == NULL)
        return err_run(err, "out of memory");
    return 0;
}

int pybridge_load(const struct policy_ops **out, const char *file,
                  const struct policy_env *env, struct errbuf *err)
{
    *out = NULL;
    struct pypol *b = calloc(1, sizeof *b);
    if (b == NULL)
        return err_run(err, "out of memory");
    snprintf(b->name, sizeof b->name, "%s%s", PYBRIDGE_PREFIX, file);
    if (file[0] == '\0' || path_resolve(b->path, sizeof b->path, env->base_dir, file) < 0) {
        free(b);
        return err_input(err, file[0] ? file : "py:", 0, NULL, "no such Python policy file "
                         "(looked next to the experiment, in the current directory and under "
                         "%s)", path_data_root());
    }
    if (env->cl == NULL) {
        free(b);
        return err_run(err, "a Python policy needs the cluster");
    }
    if (interp_up(err) < 0) {
        free(b);
        return -1;
    }
    b->ops = (struct policy_ops){ .name = b->name, .summary = "a policy written in Python",
                                  .create = py_create_unused, .destroy = py_destroy };
    b->cl = env->cl;
    b->seed = env->seed;
    cur_seed = env->seed;
    b->timeout_s = env->timeout_s > 0 ? env->timeout_s : 600;
    int rc = exec_module(b, err);
    if (rc == 0)
        rc = read_header(b, err);
    if (rc == 0 && strcmp(b->ops.domain, "training") == 0)
        rc = bind_training(b, err);
    else if (rc == 0 && strcmp(b->ops.domain, "placement") == 0)
        rc = bind_placement(b, err);
    else if (rc == 0 && strcmp(b->ops.domain, "serving") == 0)
        rc = bind_serving(b, err);
    else if (rc == 0 && strcmp(b->ops.domain, "micro") == 0)
        rc = bind_micro(b, err);
    else if (rc == 0)
        rc = err_input(err, b->path, 0, "DOMAIN", "Python policies of the %s domain are not "
                       "supported yet", b->ops.domain);
    if (rc < 0) {
        pol_free(b);
        interp_down();
        return -1;
    }
    *out = &b->ops;
    return 0;
}

/* A JSON value of the experiment as a Python value (numbers that are whole and exact as
 * doubles become int). */
static PyObject *from_json(const cJSON *j)
{
    if (cJSON_IsBool(j))
        return PyBool_FromLong(cJSON_IsTrue(j));
    if (cJSON_IsNull(j))
        Py_RETURN_NONE;
    if (cJSON_IsNumber(j)) {
        double x = j->valuedouble;
        if (x == (double)(long long)x && x > -9007199254740992.0 && x < 9007199254740992.0)
            return PyLong_FromLongLong((long long)x);
        return PyFloat_FromDouble(x);
    }
    if (cJSON_IsString(j))
        return PyUnicode_FromString(j->valuestring);
    if (cJSON_IsArray(j)) {
        PyObject *l = PyList_New(0);
        for (const cJSON *e = j->child; l != NULL && e != NULL; e = e->next) {
            PyObject *x = from_json(e);
            if (x == NULL || PyList_Append(l, x) < 0)
                Py_CLEAR(l);
            Py_XDECREF(x);
        }
        return l;
    }
    PyObject *d = PyDict_New();
    for (const cJSON *e = j->child; d != NULL && e != NULL; e = e->next) {
        PyObject *x = from_json(e);
        if (x == NULL || PyDict_SetItemString(d, e->string, x) < 0)
            Py_CLEAR(d);
        Py_XDECREF(x);
    }
    return d;
}

int pybridge_create(const struct policy_ops *ops, void **self, const struct jobj *params,
                    const struct policy_env *env, struct errbuf *err)
{
    struct pypol *b = (struct pypol *)ops;
    PyObject *d = PyDict_New();
    for (const cJSON *e = params->node ? params->node->child : NULL; d && e; e = e->next) {
        if (strcmp(e->string, "name") == 0 || strcmp(e->string, "label") == 0)
            continue;
        PyObject *x = from_json(e);
        if (x == NULL || PyDict_SetItemString(d, e->string, x) < 0)
            Py_CLEAR(d);
        Py_XDECREF(x);
    }
    int line = 0;
    PyObject *init = hook_of(b, "init", &line), *r = NULL;
    if (d != NULL && init != NULL) {
        PyObject *rmod = PyImport_ImportModule("random");
        PyObject *rng = rmod ? PyObject_CallMethod(rmod, "Random", "K", (unsigned long long)
                                                   rng_derive_seed(env->seed, "python_policy"))
                             : NULL;
        Py_XDECREF(rmod);
        if (rng != NULL) {
            b->hook[HOOK_AUX2] = init;
            b->hook_line[HOOK_AUX2] = line;
            b->hook_name[HOOK_AUX2] = "init";
            init = NULL;
            r = call_hook(b, HOOK_AUX2, PyTuple_Pack(2, d, rng), err);
            Py_DECREF(rng);
            Py_XDECREF(r);
            Py_DECREF(d);
            return r == NULL ? -1 : (*self = b, 0);
        }
    }
    Py_XDECREF(init);
    if (d == NULL || PyErr_Occurred()) {
        Py_XDECREF(d);
        return py_error(b, "init", line, err);
    }
    Py_DECREF(d);
    *self = b;
    return 0;
}

void pybridge_unload(const struct policy_ops *ops)
{
    if (ops == NULL)
        return;
    pol_free((struct pypol *)ops);
    interp_down();
}
