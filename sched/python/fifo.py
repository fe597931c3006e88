"""fifo: first in, first out, any GPU type, no preemption -- sched/training/fifo.c in Python.

Jobs start in arrival order, each on `workers` whole GPUs of the type with the most free GPUs
(ties: cluster order), packed onto the fewest nodes; a started job runs to completion.  Strict
FIFO stops at the first job that does not fit; with "backfill": true later jobs that fit may
start meanwhile.  "placement": "spread" puts one GPU per node.
"""
import hetsim

DOMAIN = "training"
PARAMS = ("backfill", "placement")
WAKE = hetsim.WAKE_ARRIVAL | hetsim.WAKE_COMPLETION

backfill = False
spread = False


def init(params, rng):
    global backfill, spread
    backfill = bool(params.get("backfill", False))
    placement = params.get("placement", "pack")
    if placement not in ("pack", "spread"):
        raise ValueError(f"placement must be 'pack' or 'spread', not {placement!r}")
    spread = placement == "spread"


def decide(view):
    plan = view.plan()
    for job in view.waiting:
        n = job.workers
        t = plan.most_free_type(n)
        if (t is None or not plan.place(job, t, n, spread)) and not backfill:
            break
    return plan
