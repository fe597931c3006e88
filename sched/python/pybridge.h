/*
 * pybridge: policies written in Python, run in process by an embedded CPython.
 *
 * A policy named "py:FILE" is the Python module FILE (found as every relative path of an
 * experiment is: next to the experiment, in the current directory, under the data root).
 * The module says what it is with a few names:
 *
 *   DOMAIN = "training"        required: the world it decides for ("training", "placement",
 *                              "serving" or "micro")
 *   PARAMS = ("backfill",)     the experiment parameters it accepts (others are refused as a
 *                              C policy's are); default none
 *   SEEDED = True              it draws random numbers (so the seed matters); default False
 *   init(params, rng)          optional: called once with its parameters (a dict, without
 *                              "name" and "label") and a random.Random seeded from the run's
 *                              seed (rng stream "python_policy", sim/base/rng.h)
 *
 * and the hooks of its domain, which receive the information the domain's view header gives
 * a C policy, as read-only Python objects of the built-in module `hetsim` (doc/python.md):
 *
 *   training   decide(view) -> a hetsim plan (view.plan()), a list of (job, gpus[, share])
 *              grants, or None; WAKE (hetsim.WAKE_* bits, default arrival | completion) and
 *              ROUND_S say when it is asked (sim/train/train_view.h)
 *   placement  place(view, pod) -> None (no node) or (node, [gpu indices])
 *              (sim/place/place_view.h)
 *   serving    deploy(env) -> a list of instances; route(view, req) -> an instance index
 *              (sim/serve/serve_view.h)
 *   micro      decide(view) -> containers per service (sim/micro/micro_view.h)
 *
 * The bridge hands each world exactly the decider its C policies present (the policy layer
 * binds it, sched/policy.c), so no world knows a policy is Python.  What a hook returns is
 * converted, then checked by the checks the world applies to a C policy's answer (for
 * training grant_check and the fit of every changed grant; for placement
 * place_view_check; ...) before the world sees it, so that a wrong answer is reported as the
 * policy's input error: exit 2, "FILE:LINE: hook: what was expected", LINE the hook's `def`.
 * A syntax error names its line; an exception in a hook names the innermost line of FILE in
 * its traceback, which follows the message.
 *
 * Objects are built once and updated: the view object of a policy is one for its whole run,
 * a job's object is made when the policy first sees the job and reused until it leaves, and
 * every attribute reads the world's C struct when it is asked for.  An object read outside
 * the call that handed it out raises RuntimeError.
 *
 * The interpreter: started when the first Python policy of the process opens, finalized when
 * the last one closes, so that a sweep's workers (forked by sim/batch/pool.c after the parent
 * has checked the experiment, which opens and closes its policies) each start their own after
 * the fork.  CPython is isolated from the environment (PYTHONPATH and user site ignored, no
 * signal handlers); the module's own folder is put first on sys.path for its imports.
 *
 * Time limit: a hook call that runs more than sim.policy_timeout_s CPU seconds of the calling
 * thread raises TimeoutError inside the hook (a watchdog thread samples that thread's CPU
 * clock and adds a pending call to the interpreter), so it is reported as an exception in
 * the hook, with its line.  A hook blocked without using CPU (sleep, I/O) or inside one long
 * C call (e.g. sum(range(10**12))) is not interrupted: the clock is CPU time, and pending calls
 * run between bytecodes.
 *
 * Ownership: pybridge_load allocates an instance and its policy_ops; pybridge_create gives it
 * its parameters and returns it as the policy's self; pybridge_unload frees both (the ops'
 * destroy only marks it closed).  Not for use from several threads.
 */
#ifndef HETSIM_PYBRIDGE_H
#define HETSIM_PYBRIDGE_H

#include "../policy.h"

#define PYBRIDGE_PREFIX "py:"

/* Load the module at `file` (the name without "py:") and describe it: *out is its ops, name
 * "py:FILE", domain and hooks as the module defines them.  An input error (exit 2) for a
 * missing file, a syntax error, an exception while it runs, a missing or unknown DOMAIN or
 * a missing hook. */
int  pybridge_load(const struct policy_ops **out, const char *file,
                   const struct policy_env *env, struct errbuf *err);
/* Call the module's init(params, rng) and return the instance as *self. */
int  pybridge_create(const struct policy_ops *ops, void **self, const struct jobj *params,
                     const struct policy_env *env, struct errbuf *err);
void pybridge_unload(const struct policy_ops *ops);

#endif
