"""tiresias: discretized two-dimensional least attained service (2D-LAS), any GPU type --
sched/training/tiresias.c in Python (Gu et al., NSDI 2019, section 4; that file's header
gives the rules and where each comes from).

A job's service s = GPU-seconds received since it last entered the top queue; it is in queue
k = #{thresholds <= s} (it never rises but by the starvation guard).  Jobs are walked by
(queue, id); each gets `workers` GPUs of one type if some type still has that many, on the type
with the most GPUs free and not held by a lower-priority running job (ties: the larger free
count, then cluster order; types where it cannot run skipped); a running job that keeps its
count stays on its GPUs.  The starvation guard ("promote_knob" > 0) sends a waiting job back
to the top queue once its waiting time reaches knob x its running time.  The policy asks to be
woken at the next demotion or promotion.
"""
import math

import hetsim

DOMAIN = "training"
PARAMS = ("thresholds", "promote_knob")
WAKE = hetsim.WAKE_ARRIVAL | hetsim.WAKE_COMPLETION

EPS = 1e-6          # service comparisons tolerate float accumulation of microsecond steps
thr = [3250.0]
knob = 0.0
decision = 0


def init(params, rng):
    global thr, knob
    thr = [float(t) for t in params.get("thresholds", [3250])]
    if not 1 <= len(thr) <= 15 or any(t <= 0 for t in thr) or \
            any(b <= a for a, b in zip(thr, thr[1:])):
        raise ValueError("thresholds must be 1 to 15 increasing positive GPU-seconds")
    knob = float(params.get("promote_knob", 0))
    if not 0 <= knob <= 1e9:
        raise ValueError("promote_knob must be in [0, 1e9]")


def update(view, job):
    """Bring the job's queue and starvation clock up to now; returns its queue."""
    if not hasattr(job, "q"):
        job.q, job.base, job.wait_s, job.last, job.granted = 0, 0.0, 0.0, job.arrival, 0
    a = view.attained(job)
    served = a - job.base
    waiting = job.state != hetsim.RUNNING
    if waiting and served > EPS:
        job.wait_s += (view.now - job.last) / 1e6
    job.last = view.now
    if knob > 0 and job.q > 0 and waiting and served > EPS:
        if job.wait_s >= knob * (served / job.workers) - EPS:
            job.q, job.base, job.wait_s = 0, a, 0.0
            return 0
    q = 0
    while q < len(thr) and served >= thr[q] - EPS:
        q += 1
    job.q = max(job.q, q)
    return job.q


def next_change(view, picks):
    """When the next demotion or promotion happens (microseconds), 0 if none is coming."""
    global decision
    decision += 1
    soonest = math.inf
    for job, _, n in picks:
        job.granted = decision
        if job.q >= len(thr):
            continue
        served = view.attained(job) - job.base
        soonest = min(soonest, (thr[job.q] - served) / n)
    if knob > 0:
        for job in view.active:
            served = view.attained(job) - job.base
            if job.granted == decision or job.q == 0 or served <= EPS:
                continue
            soonest = min(soonest, knob * served / job.workers - job.wait_s)
    if not math.isfinite(soonest):
        return 0
    return view.now + (math.ceil(soonest * 1e6) if soonest > 1e-6 else 1)


def decide(view):
    types = view.types
    held = [0] * len(types)
    jobs = []
    for job in view.active:
        jobs.append((update(view, job), job.id, job))
        if job.state == hetsim.RUNNING:
            held[types.index(job.gpu_type)] += job.ngpu
    jobs.sort(key=lambda e: (e[0], e[1]))
    free = [view.type_count(t) for t in types]
    picks = []
    for _, _, job in jobs:
        w, cur = job.workers, -1
        if job.state == hetsim.RUNNING:
            cur = types.index(job.gpu_type)
            held[cur] -= job.ngpu       # from here on its GPUs count as its own
        best = -1
        if cur >= 0 and job.ngpu == w and job.share == hetsim.WHOLE and free[cur] >= w:
            best = cur
        else:
            for i, t in enumerate(types):
                if free[i] < w or not view.rate(job, t, w) > 0:
                    continue
                if best < 0 or free[i] - held[i] > free[best] - held[best] or \
                        (free[i] - held[i] == free[best] - held[best] and free[i] > free[best]):
                    best = i
        if best < 0:
            continue
        free[best] -= w
        picks.append((job, types[best], w))
    plan = view.plan(full=True)
    plan.commit(picks)
    plan.wake_at = next_change(view, picks)
    return plan
