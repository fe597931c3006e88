"""srtf: preemptive shortest remaining time first -- sched/training/srtf.c in Python.

At every arrival and completion, jobs are ranked by remaining time = remaining iterations /
the job's rate on its fastest GPU type (with its requested workers, best placement); ties go
to the earlier arrival (job id).  Walking that order, each job is given `workers` GPUs if they
are still free: a waiting job goes to the fastest type with room; a running job keeps its GPUs
unless a faster type has room and the restore delay plus the remaining time there is shorter
than its remaining time where it is.  Jobs that lose their place are preempted (a full plan);
jobs that do not fit are skipped.
"""
import hetsim

DOMAIN = "training"
WAKE = hetsim.WAKE_ARRIVAL | hetsim.WAKE_COMPLETION


def rates(view, job):
    """The job's rate on each type (cluster order) and the types it runs on, fastest first
    (ties to the earlier type); computed once, kept on the job object."""
    if not hasattr(job, "r"):
        job.r = [view.rate(job, t, job.workers) for t in view.types]
        job.best = max(job.r + [0.0])
        job.ord = sorted((i for i, r in enumerate(job.r) if r > 0), key=lambda i: -job.r[i])
    return job


def decide(view):
    now = view.now
    ranked = []
    for job in view.active:
        rates(view, job)
        left = job.work - view.done(job)
        ranked.append((left / job.best if job.best > 0 else 1e300, job.id, job))
    ranked.sort(key=lambda e: (e[0], e[1]))
    types = view.types
    free = [view.type_count(t) for t in types]
    picks = []
    for _, _, job in ranked:
        w = job.workers
        slot = next((o for o in job.ord if free[o] >= w), -1)
        cur = types.index(job.gpu_type) if job.state == hetsim.RUNNING else -1
        if cur >= 0 and slot != cur:
            # move a running job only if the faster type pays for the restart
            left = job.work - view.done(job)
            if not (job.rate > 0) or slot < 0 or \
                    view.restore_s(job) + left / job.r[slot] >= left / job.rate:
                slot = cur
        if slot >= 0 and free[slot] >= w:
            free[slot] -= w
            picks.append((job, types[slot], w))
    plan = view.plan(full=True)
    plan.commit(picks)
    return plan
