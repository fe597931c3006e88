"""static_worst: the static worst-case baseline of Derm's evaluation (ISCA 2024) --
sched/micro/static_worst.c in Python.

Provision every service once for the worst-case graph at peak load, and keep it: every
service takes the load it would have if every request at the peak rate called it as often as
the graph type that calls it most (gamma_k = peak x max_g calls_gk), and the SLA must hold
for the graph type least likely to meet it at no load (Derm's chain model).  The containers
come from Derm's own minimization (view.solve, sched/micro/msopt.h) for that one type at those
loads.  The peak is the "peak_rate" parameter, else the workload's declared peak, else the
highest interval rate seen so far (recomputed when that grows).  Parameters: peak_rate,
iterations (30), trim (true), paths ("all" or "critical").
"""
DOMAIN = "micro"
PARAMS = ("peak_rate", "iterations", "trim", "paths")

peak_param, iterations, trim, paths = 0.0, 30, True, "all"
alloc, done_for = None, 0.0


def init(params, rng):
    global peak_param, iterations, trim, paths
    peak_param = float(params.get("peak_rate", 0))
    iterations = int(params.get("iterations", 30))
    trim = bool(params.get("trim", True))
    paths = params.get("paths", "all")


def decide(view):
    global alloc, done_for
    peak = peak_param if peak_param > 0 else view.peak_rate
    if alloc is not None and peak <= done_for:
        return alloc
    if not peak > 0:
        return None                             # keep what runs
    graphs = [g.calls_per_service for g in view.graphs]
    worst = [max([0.0] + [calls[k] for calls in graphs]) for k in range(len(view.services))]
    gamma = [peak * w for w in worst]
    worst_g, worst_p = 0, 2.0                   # the least likely to meet the SLA at no load
    for g in range(len(graphs)):
        p = view.prob_idle(gamma, [(g, 1.0)], paths)
        if p < worst_p:
            worst_g, worst_p = g, p
    alloc, _ = view.solve(gamma, [(worst_g, 1.0)], iterations, trim, paths)
    done_for = peak
    return alloc
