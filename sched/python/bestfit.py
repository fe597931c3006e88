"""bestfit: best fit, FGD's "BestFit" baseline -- sched/placement/bestfit.c in Python.

The node the pod leaves with the least free capacity, CPU and GPU weighted equally over the
largest node's (128,000 milli-CPU, 8,000 milli-GPU):
    raw(n) = int(100 * (1 - (0.5 (free_cpu - r_cpu) / 128000 + 0.5 (free_gpu - r_gpu) / 8000)))
over the nodes that fit, min-max normalized to 0..100 in integers; the highest wins, ties to
the node first in a random order of the nodes drawn once per run (sched/placement/pick.h:
FGD's simulator), or with "ties": "random" a fresh draw among the tied nodes per pod.  Then
the GPU with the least free milli that fits for a pod sharing one, the first fully free GPUs
for whole ones.  The draws come from the run's GSL streams "place_nodes" and "place_ties", as
the C policy's, so that both make the same choices.
"""
import hetsim

DOMAIN = "placement"
PARAMS = ("ties",)
SEEDED = True

MAX_CPU, MAX_GPU = 128000, 8000
random_ties = False
tie_stream = None
rank = None             # each node's place in the tie order


def init(params, rng):
    global random_ties, tie_stream
    ties = params.get("ties", "order")
    if ties not in ("order", "random"):
        raise ValueError(f"ties must be 'order' or 'random', not {ties!r}")
    random_ties = ties == "random"
    tie_stream = hetsim.stream("place_ties")


def score(view, n, pod):
    s = (n.cpu_free - pod.cpu_milli) / MAX_CPU * 0.5
    s += (view.gpu_free(n) - pod.num_gpu * pod.gpu_milli) / MAX_GPU * 0.5
    return int((1.0 - s) * 100)


def gpus_for(n, pod):
    if pod.num_gpu == 0:
        return []
    free = n.gpu_free
    if pod.gpu_milli == 1000:
        return [g for g in range(n.ngpus) if free[g] == 1000][:pod.num_gpu]
    fit = [g for g in range(n.ngpus) if free[g] >= pod.gpu_milli]
    return [min(fit, key=lambda g: free[g])] if fit else []


def place(view, pod):
    global rank
    nodes = view.nodes
    if rank is None or len(rank) != len(nodes):
        order = hetsim.stream("place_nodes").shuffle(range(len(nodes)))
        rank = order
    cand = [n for n in nodes if view.fits(n)]
    if not cand:
        return None
    sc = [score(view, n, pod) for n in cand]
    hi, lo = max(sc), min(sc)
    sc = [0 if hi == lo else (s - lo) * 100 // (hi - lo) for s in sc]
    hi = 0 if hi == lo else 100
    if random_ties:
        tied = [n for n, s in zip(cand, sc) if s == hi]
        best = tied[tie_stream.uniform_int(len(tied)) if len(tied) > 1 else 0]
    else:
        best = min((n for n, s in zip(cand, sc) if s == hi), key=lambda n: rank[n.index])
    return best, gpus_for(best, pod)
