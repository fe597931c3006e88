"""round_robin: the model on the cluster's high-end GPUs, requests dealt in turn --
highend_only with "routing": "round_robin" (sched/serving/highend_only.c, sched/route.c) in
Python.

Deployment: unified replicas on the nodes of the high-end GPU type (highest fp16 FLOP/s,
then memory bandwidth), tensor-parallel inside a node, the TP degree whose replicas serve the
most reference requests a second ("prompt" and "output" tokens, defaults 1024 and 128; "tp"
forces it): env.replicas, the planner the C policies share.  Routing: each request to the
next instance in turn that serves what it wants (its prompt: a unified or prefill-only
instance; its decoding: a decode-only one), one turn for prompts and one for decoding.
"""
import hetsim

DOMAIN = "serving"
PARAMS = ("tp", "prompt", "output")

tp, prompt, output = 0, 1024, 128
turn = [0, 0]       # next candidate for prompts, for decoding


def init(params, rng):
    global tp, prompt, output
    tp = int(params.get("tp", 0))
    prompt = float(params.get("prompt", 1024))
    output = float(params.get("output", 128))


def deploy(env):
    return env.replicas([env.high_type()], tp=tp, prompt=prompt, output=output)


def route(view, req):
    decode = req.want_role == hetsim.DECODE
    k = 1 if decode else 0
    loads = view.loads
    for step in range(view.n):
        i = (turn[k] + step) % view.n
        if (loads[i].role == hetsim.DECODE) == decode:
            turn[k] = (i + 1) % view.n
            return i
    raise RuntimeError("no instance serves " + ("decoding" if decode else "prompts"))
