/*
 * firm: a FIRM-style reactive scaler (after Qiu et al., OSDI 2020): act only on what the
 * last interval showed.  When its end-to-end quantile broke the SLA, find the critical path
 * — in the graph type with the worst quantile, from the root, through each stage's child
 * whose subtree took longest on average (mean call latencies as measured) — and scale out
 * every service on it whose utilization (load per container over the fit's max_load) is
 * above `high`, or the most utilized one if none is, by `step_out` of its containers (at
 * least one).  When the quantile was comfortably within the SLA (below (1 - margin) SLA),
 * scale in every service whose utilization is below `low` by `step_in` (at least one,
 * never under one container).  FIRM's SVM detector and RL agent are replaced by these
 * rules; it keeps the application's initial containers until the first interval ends.
 * Parameters: high (0.7), low (0.3), step_out (0.25), step_in (0.1), margin (0.2).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policy.h"

struct firm {
    double high, low, step_out, step_in, margin;
};

static int firm_create(void **self, const struct jobj *params, const struct policy_env *env,
                       struct errbuf *err)
{
    (void)env;
    struct firm *f = calloc(1, sizeof *f);
    if (f == NULL)
        return err_run(err, "out of memory");
    *f = (struct firm){ 0.7, 0.3, 0.25, 0.1, 0.2 };
    if (jobj_num(params, "high", JOPT, 0, 10, &f->high, err) < 0 ||
        jobj_num(params, "low", JOPT, 0, 10, &f->low, err) < 0 ||
        jobj_num(params, "step_out", JOPT, 0, 100, &f->step_out, err) < 0 ||
        jobj_num(params, "step_in", JOPT, 0, 1, &f->step_in, err) < 0 ||
        jobj_num(params, "margin", JOPT, 0, 1, &f->margin, err) < 0) {
        free(f);
        return -1;
    }
    if (f->low >= f->high) {
        char path[256];
        snprintf(path, sizeof path, "%s.low", params->path);
        jsonf_error(params->doc, cJSON_GetObjectItemCaseSensitive(params->node, "low"), path,
                    err, "%g must be below high (%g)", f->low, f->high);
        free(f);
        return -1;
    }
    *self = f;
    return 0;
}

static void firm_destroy(void *self)
{
    free(self);
}

/* mean time of call i's subtree, by the measured mean call latencies */
static double subtree(const struct micro_view *v, const struct micro_graph *g, int i)
{
    const struct micro_call *c = &g->calls[i];
    double t = c->count * v->call_mean_s[c->service];
    for (int s = g->stage_off[i]; s < g->stage_off[i + 1]; s++) {
        double m = 0;
        for (int j = g->child_off[s]; j < g->child_off[s + 1]; j++) {
            double x = subtree(v, g, g->child[j]);
            m = x > m ? x : m;
        }
        t += m;
    }
    return t;
}

/* mark the services of the critical path from call i */
static void path(const struct micro_view *v, const struct micro_graph *g, int i, char *on)
{
    on[g->calls[i].service] = 1;
    for (int s = g->stage_off[i]; s < g->stage_off[i + 1]; s++) {
        int best = -1;
        double m = -1;
        for (int j = g->child_off[s]; j < g->child_off[s + 1]; j++) {
            double x = subtree(v, g, g->child[j]);
            if (x > m) {
                m = x;
                best = g->child[j];
            }
        }
        if (best >= 0)
            path(v, g, best, on);
    }
}

static int firm_decide(void *self, const struct micro_view *v, int *out, struct errbuf *err)
{
    struct firm *f = self;
    const struct micro_app *a = v->app;
    int S = a->nservices;
    if (!v->have_last)
        return 0;
    if (v->e2e_q_s > v->sla_s) {
        int worst = -1;
        for (int g = 0; g < a->ngraphs; g++)
            if (v->mix[g] > 0 && (worst < 0 || v->graph_p95_s[g] > v->graph_p95_s[worst]))
                worst = g;
        if (worst < 0)
            return 0;
        char *on = calloc((size_t)S, 1);
        if (on == NULL)
            return err_run(err, "out of memory");
        path(v, &a->graph[worst], 0, on);
        int hot = -1, any = 0;
        double top = -1;
        for (int k = 0; k < S; k++) {
            if (!on[k])
                continue;
            double u = v->load[k] / (v->containers[k] * a->svc[k].lat.max_load);
            if (u > top) {
                top = u;
                hot = k;
            }
            if (u > f->high) {
                int add = (int)ceil(v->containers[k] * f->step_out);
                out[k] = v->containers[k] + (add < 1 ? 1 : add);
                any = 1;
            }
        }
        if (!any && hot >= 0) {
            int add = (int)ceil(v->containers[hot] * f->step_out);
            out[hot] = v->containers[hot] + (add < 1 ? 1 : add);
        }
        free(on);
    } else if (v->e2e_q_s < (1 - f->margin) * v->sla_s) {
        for (int k = 0; k < S; k++) {
            double u = v->load[k] / (v->containers[k] * a->svc[k].lat.max_load);
            if (u < f->low && v->containers[k] > 1) {
                int drop = (int)floor(v->containers[k] * f->step_in);
                out[k] = v->containers[k] - (drop < 1 ? 1 : drop);
                if (out[k] < 1)
                    out[k] = 1;
            }
        }
    }
    return 0;
}

static const char *const firm_params[] = { "high", "low", "step_out", "step_in", "margin",
                                           NULL };
static const struct micro_hooks firm_hooks = { .decide = firm_decide };

const struct policy_ops policy_firm = {
    .name = "firm",
    .domain = "micro",
    .summary = "reactive: scale out the critical path after an SLA violation, scale in idle "
               "services (FIRM-style)",
    .params = firm_params,
    .create = firm_create,
    .destroy = firm_destroy,
    .micro = &firm_hooks,
};
