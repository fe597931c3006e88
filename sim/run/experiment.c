/*
 * experiment: reads the top level of an experiment file.  Sub-objects (cluster, workload,
 * policy parameters) are validated by their own readers when a run opens them; this file
 * checks what belongs to the experiment itself and resolves file paths.
 */
#define _POSIX_C_SOURCE 200809L
#include "experiment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sched/policy.h"
#include "world_registry.h"

static int resolve_field(struct experiment *e, const struct jobj *o, const char *key,
                         const char *def, char *out, int required, struct errbuf *err)
{
    const char *v = NULL;
    if (jobj_str(o, key, JOPT, &v, err) < 0)
        return -1;
    if (v == NULL) {
        if (def == NULL) {
            out[0] = '\0';
            return required ? jsonf_error(e->doc, o->node, key, err, "required field is missing") : 0;
        }
        v = def;
    }
    if (path_resolve(out, PATH_MAX_LEN, e->base_dir, v) < 0) {
        char p[256];
        snprintf(p, sizeof p, "%s%s%s", o->path, o->path[0] ? "." : "", key);
        return jsonf_error(e->doc, cJSON_GetObjectItemCaseSensitive(o->node, key), p, err,
                           "file '%s' not found (looked next to the experiment, in the current "
                           "directory and under %s)", v, path_data_root());
    }
    return 0;
}

const char experiment_default_gpus[] = "models/data/gpus.json";
const char experiment_default_links[] = "models/data/links.json";
const char experiment_default_jobtypes[] = "models/data/jobtypes.json";
const char *const experiment_default_profiles[] = { "models/data/profiles/gavel.csv",
                                             "models/data/profiles/heet_fit.json", NULL };

/* Every key of an object: the generic ones and the world's own. */
static int known_keys(const struct jobj *o, const char *const *generic, const char *const *own,
                      struct errbuf *err)
{
    const char *keys[64];
    int n = 0;
    for (int i = 0; generic[i] != NULL && n < 63; i++)
        keys[n++] = generic[i];
    for (int i = 0; own != NULL && own[i] != NULL && n < 63; i++)
        keys[n++] = own[i];
    keys[n] = NULL;
    return jobj_known(o, keys, err);
}

/* models.elastic_sia: a folder (Sia's traces/), and the applications.json it extends:
 * models.elastic when given (the training world checks it too), else Pollux's shipped one. */
static int read_elastic_sia(struct experiment *e, const struct jobj *m, struct errbuf *err)
{
    const char *dir = NULL, *apps = NULL;
    e->elastic_sia_path[0] = e->elastic_apps_path[0] = '\0';
    if (jobj_str(m, "elastic_sia", JOPT, &dir, err) < 0)
        return -1;
    if (dir == NULL)
        return 0;
    if (path_resolve_dir(e->elastic_sia_path, PATH_MAX_LEN, e->base_dir, dir) < 0)
        return jsonf_error(e->doc, cJSON_GetObjectItemCaseSensitive(m->node, "elastic_sia"),
                           "models.elastic_sia", err, "folder '%s' not found (looked next to "
                           "the experiment, in the current directory and under %s): it is "
                           "Sia's traces folder (<application>/placements-<cluster>.csv)",
                           dir, path_data_root());
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m->node, "elastic")))
        apps = cJSON_GetObjectItemCaseSensitive(m->node, "elastic")->valuestring;
    if (path_resolve(e->elastic_apps_path, PATH_MAX_LEN, apps ? e->base_dir : NULL,
                     apps ? apps : "models/data/pollux/applications.json") < 0)
        return apps ? jsonf_error(e->doc, cJSON_GetObjectItemCaseSensitive(m->node, "elastic"),
                                  "models.elastic", err, "file '%s' not found", apps)
                    : err_input(err, "models/data/pollux/applications.json", 0, NULL,
                                "shipped profiles missing under %s (set HETSIM_DATA?)",
                                path_data_root());
    return 0;
}

static int read_models(struct experiment *e, const struct jobj *root, struct errbuf *err)
{
    static const char *const keys[] = { "gpus", "links", "job_types", "profiles",
                                        "gavel_throughputs", "elastic_sia", "note", NULL };
    const char *const *default_profiles = experiment_default_profiles;
    struct jobj m;
    const cJSON *arr = NULL;
    if (jobj_obj(&m, root, "models", JOPT, err) < 0 ||
        known_keys(&m, keys, e->world->model_keys, err) < 0 ||
        resolve_field(e, &m, "gpus", experiment_default_gpus, e->gpus_path, 1, err) < 0 ||
        resolve_field(e, &m, "links", experiment_default_links, e->links_path, 1, err) < 0 ||
        resolve_field(e, &m, "job_types", experiment_default_jobtypes, e->jobtypes_path, 1, err) < 0 ||
        resolve_field(e, &m, "gavel_throughputs", NULL, e->gavel_tput_path, 0, err) < 0 ||
        jobj_arr(&m, "profiles", JOPT, &arr, err) < 0 || read_elastic_sia(e, &m, err) < 0)
        return -1;
    if (arr == NULL) {
        for (int i = 0; default_profiles[i] != NULL; i++)
            if (path_resolve(e->profiles[e->nprofiles], PATH_MAX_LEN, NULL, default_profiles[i]) < 0)
                return err_input(err, default_profiles[i], 0, NULL,
                                 "shipped profile missing under %s (set HETSIM_DATA?)",
                                 path_data_root());
            else
                e->nprofiles++;
        return 0;
    }
    int i = 0;
    for (const cJSON *p = arr->child; p != NULL; p = p->next, i++) {
        char field[64];
        snprintf(field, sizeof field, "models.profiles[%d]", i);
        if (!cJSON_IsString(p) || i >= EXPERIMENT_MAX_PROFILES)
            return jsonf_error(e->doc, p, field, err, "must be a file name (at most %d)",
                               EXPERIMENT_MAX_PROFILES);
        if (path_resolve(e->profiles[i], PATH_MAX_LEN, e->base_dir, p->valuestring) < 0)
            return jsonf_error(e->doc, p, field, err, "file '%s' not found", p->valuestring);
        e->nprofiles = i + 1;
    }
    return 0;
}

static int read_sim(struct experiment *e, const struct jobj *root, struct jobj *s,
                    struct errbuf *err)
{
    static const char *const keys[] = { "sample_s", "sample_repeats", "until_s", "max_events",
                                        "measure_window", "measure_jobs", "timeline",
                                        "policy_timeout_s", "note", NULL };
    double sample_s = 600, until_s = 0;
    int64_t max_events = 0;
    e->sim = (struct world_sim){ .until = SIM_NEVER, .steady_first = -1, .steady_last = -1 };
    e->sample_repeats = 0;
    if (jobj_obj(s, root, "sim", JOPT, err) < 0 ||
        known_keys(s, keys, e->world->sim_keys, err) < 0 ||
        jobj_num(s, "sample_s", JOPT, 0, 1e9, &sample_s, err) < 0 ||
        jobj_num(s, "until_s", JOPT, 0, 9e12, &until_s, err) < 0 ||
        jobj_int(s, "max_events", JOPT, 0, INT64_MAX / 2, &max_events, err) < 0 ||
        jobj_bool(s, "sample_repeats", JOPT, &e->sample_repeats, err) < 0 ||
        jobj_bool(s, "timeline", JOPT, &e->sim.timeline, err) < 0)
        return -1;
    e->policy_timeout_s = EXPERIMENT_POLICY_TIMEOUT_S;
    if (jobj_num(s, "policy_timeout_s", JOPT, 1e-3, 1e6, &e->policy_timeout_s, err) < 0)
        return -1;
    double win[2];
    int64_t jobs[2];
    int nwin = 0, njobs = 0;
    if (jobj_num_pair(s, "measure_window", 0, 9e12, win, &nwin, err) < 0 ||
        jobj_int_pair(s, "measure_jobs", 0, INT64_C(1) << 40, jobs, &njobs, err) < 0)
        return -1;
    if (nwin == 2 && !(win[1] > win[0]))
        return jsonf_error(e->doc, cJSON_GetObjectItemCaseSensitive(s->node, "measure_window"),
                           JOBJ_FIELD(s, "measure_window"), err,
                           "[start_s, end_s] needs end_s > start_s");
    if (nwin == 2)
        e->sim.measure = (struct window){ win[0], win[1] };
    if (njobs == 2 && jobs[1] < jobs[0])
        return jsonf_error(e->doc, cJSON_GetObjectItemCaseSensitive(s->node, "measure_jobs"),
                           JOBJ_FIELD(s, "measure_jobs"), err,
                           "[first, last] needs last >= first");
    if (njobs == 2) {
        e->sim.steady_first = jobs[0];
        e->sim.steady_last = jobs[1];
    }
    e->sim.sample_period = sim_from_sec(sample_s);
    e->sim.until = until_s > 0 ? sim_from_sec(until_s) : SIM_NEVER;
    e->sim.max_events = (uint64_t)max_events;
    return 0;
}

/* Policy entry i's "tenants" (experiment.h's tenant_policy): in a domain of tenants, an
 * object of tenant names, each a policy name or an object with a "name" and its parameters;
 * elsewhere an error.  Whether a policy suits its tenant is run_check's (as for a section's). */
static int read_tenant_policies(struct experiment *e, int i, struct errbuf *err)
{
    struct experiment_policy *ep = &e->policies[i];
    struct jobj tp;
    if (ep->params.node == NULL || jobj_obj(&tp, &ep->params, "tenants", JOPT, err) < 0)
        return ep->params.node == NULL ? 0 : -1;
    if (tp.node == NULL)
        return 0;
    if (e->world->tenants == NULL)
        return jsonf_error(e->doc, tp.node, tp.path, err, "only a policy of a domain of "
                           "tenants (colocate) names its tenants' policies");
    if (jobj_known(&tp, e->world->tenants, err) < 0)
        return -1;
    for (int k = 0; e->world->tenants[k] != NULL && k < EXPERIMENT_MAX_TENANTS; k++) {
        const char *key = e->world->tenants[k];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(tp.node, key);
        struct experiment_policy *q = &e->tenant_policy[i][k];
        if (v == NULL)
            continue;
        q->node = v;
        jobj_field(&tp, key, q->field, sizeof q->field);
        if (cJSON_IsString(v) && v->valuestring[0] != '\0') {
            q->name = q->label = v->valuestring;
        } else if (cJSON_IsObject(v)) {
            if (jobj_obj(&q->params, &tp, key, JREQ, err) < 0 ||
                jobj_str(&q->params, "name", JREQ, &q->name, err) < 0)
                return -1;
            q->label = q->name;
        } else {
            return jsonf_error(e->doc, v, q->field, err,
                               "must be a policy name or an object with a \"name\"");
        }
        if (!policy_is_python(q->name) && policy_find(q->name) == NULL) {
            char hint[96];
            return jsonf_error(e->doc, v, q->field, err, "unknown policy '%s'%s (see `hetsim "
                               "list policies`)", q->name,
                               policy_hint(q->name, hint, sizeof hint));
        }
    }
    return 0;
}

static int read_policies(struct experiment *e, const struct jobj *root, struct errbuf *err)
{
    const cJSON *arr;
    if (jobj_arr(root, "policies", JREQ, &arr, err) < 0)
        return -1;
    char field[96];
    if (cJSON_GetArraySize(arr) == 0)
        return jsonf_error(e->doc, arr, jobj_field(root, "policies", field, sizeof field), err,
                           "list at least one policy");
    int i = 0;
    for (const cJSON *p = arr->child; p != NULL; p = p->next, i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "policies[%d]", i);
        jobj_field(root, rel, field, sizeof field);
        if (i >= EXPERIMENT_MAX_POLICIES)
            return jsonf_error(e->doc, p, field, err, "at most %d policies", EXPERIMENT_MAX_POLICIES);
        struct experiment_policy *ep = &e->policies[i];
        memset(ep, 0, sizeof *ep);
        ep->node = p;
        memcpy(ep->field, field, sizeof ep->field);
        if (cJSON_IsString(p) && p->valuestring[0] != '\0') {
            ep->name = ep->label = p->valuestring;
        } else if (cJSON_IsObject(p)) {
            if (jobj_elem(&ep->params, root, "policies", p, i, err) < 0 ||
                jobj_str(&ep->params, "name", JREQ, &ep->name, err) < 0)
                return -1;
            ep->label = ep->name;
            if (jobj_str(&ep->params, "label", JOPT, &ep->label, err) < 0)
                return -1;
        } else {
            return jsonf_error(e->doc, p, field, err,
                               "must be a policy name or an object with a \"name\"");
        }
        if (!policy_is_python(ep->name) && policy_find(ep->name) == NULL) {
            char hint[96], f[112];
            snprintf(f, sizeof f, "%s%s", field, cJSON_IsObject(p) ? ".name" : "");
            return jsonf_error(e->doc, cJSON_IsObject(p) ? cJSON_GetObjectItemCaseSensitive(p,
                               "name") : p, f, err, "unknown policy '%s'%s (see `hetsim list "
                               "policies`)", ep->name, policy_hint(ep->name, hint, sizeof hint));
        }
        for (int k = 0; k < i; k++)
            if (strcmp(e->policies[k].label, ep->label) == 0)
                return jsonf_error(e->doc, p, field, err, "two policies are labelled '%s' (give "
                                   "one a different \"label\")", ep->label);
        if (read_tenant_policies(e, i, err) < 0)
            return -1;
        e->npolicies = i + 1;
    }
    return 0;
}

/* One tenant of e: the section `key` of its "tenants" object, when present, read as an
 * experiment of the domain `domain`, borrowing e's document and everything of e's a tenant
 * shares. */
static int read_tenant(struct experiment *e, const struct jobj *tenants, const char *key,
                       const char *domain, struct errbuf *err)
{
    static const char *const keys[] = { "workload", "policies", "sim", "models", "note",
                                        NULL };
    struct jobj sec, sim, models;
    if (jobj_obj(&sec, tenants, key, JOPT, err) < 0)
        return -1;
    if (sec.node == NULL)
        return 0;
    const struct world_ops *wo = world_find(domain);
    if (wo == NULL || wo->attach == NULL || wo->finish == NULL)
        return jsonf_error(e->doc, sec.node, sec.path, err, "the %s domain cannot be a tenant "
                           "of a shared cluster", domain);
    struct experiment *t = calloc(1, sizeof *t);
    if (t == NULL)
        return err_run(err, "out of memory");
    e->tenant[e->ntenants] = t;
    e->tenant_name[e->ntenants++] = key;
    *t = (struct experiment){ .doc = e->doc, .doc_borrowed = 1, .name = e->name,
                              .domain = wo->domain, .description = "", .world = wo,
                              .seed = e->seed };
    memcpy(t->path, e->path, sizeof t->path);
    memcpy(t->base_dir, e->base_dir, sizeof t->base_dir);
    memcpy(t->cluster_path, e->cluster_path, sizeof t->cluster_path);
    if (known_keys(&sec, keys, wo->top_keys, err) < 0 ||
        jobj_obj(&t->workload, &sec, "workload", JREQ, err) < 0 ||
        read_policies(t, &sec, err) < 0 || read_sim(t, &sec, &sim, err) < 0 ||
        wo->read(&t->world_config, &sec, &sim, e->base_dir, err) < 0 ||
        jobj_obj(&models, &sec, "models", JOPT, err) < 0 ||
        (models.node != NULL && known_keys(&models, (const char *const[]){ "note", NULL },
                                           wo->model_keys, err) < 0))
        return -1;
    if (t->npolicies != 1)
        return jsonf_error(e->doc, cJSON_GetObjectItemCaseSensitive(sec.node, "policies"),
                           JOBJ_FIELD(&sec, "policies"), err, "a tenant runs one "
                           "policy (the experiment's \"policies\" are the broker's)");
    return 0;
}

static int read_tenants(struct experiment *e, const struct jobj *root, struct errbuf *err)
{
    struct jobj tenants;
    if (cJSON_GetObjectItemCaseSensitive(root->node, "workload") != NULL)
        return jsonf_error(e->doc, cJSON_GetObjectItemCaseSensitive(root->node, "workload"),
                           "workload", err, "a %s experiment has a workload per tenant, in "
                           "\"tenants\"", e->domain);
    if (jobj_obj(&tenants, root, "tenants", JREQ, err) < 0 ||
        jobj_known(&tenants, e->world->tenants, err) < 0)
        return -1;
    int index[EXPERIMENT_MAX_TENANTS];      /* by tenant read: its key's position */
    for (int i = 0; e->world->tenants[i] != NULL; i++) {
        if (i == EXPERIMENT_MAX_TENANTS)
            return err_run(err, "domain %s has more than %d tenants", e->domain,
                           EXPERIMENT_MAX_TENANTS);
        const char *key = e->world->tenants[i];
        int before = e->ntenants;
        if (read_tenant(e, &tenants, key, e->world->tenant_domains != NULL
                                              ? e->world->tenant_domains[i] : key, err) < 0)
            return -1;
        if (e->ntenants > before)
            index[before] = i;
    }
    /* the policies' tenant entries were read by key position: by tenant from here on, and
     * one naming a tenant the experiment does not have is an error */
    for (int pi = 0; pi < e->npolicies; pi++) {
        struct experiment_policy by_key[EXPERIMENT_MAX_TENANTS];
        memcpy(by_key, e->tenant_policy[pi], sizeof by_key);
        memset(e->tenant_policy[pi], 0, sizeof e->tenant_policy[pi]);
        for (int t = 0; t < e->ntenants; t++) {
            e->tenant_policy[pi][t] = by_key[index[t]];
            by_key[index[t]].name = NULL;
        }
        for (int k = 0; k < EXPERIMENT_MAX_TENANTS; k++)
            if (by_key[k].name != NULL)
                return jsonf_error(e->doc, by_key[k].node, by_key[k].field, err, "the "
                                   "experiment has no %s tenant (no \"tenants\": { \"%s\" })",
                                   e->world->tenants[k], e->world->tenants[k]);
    }
    /* the tenants use the experiment's model files */
    for (int i = 0; i < e->ntenants; i++) {
        struct experiment *t = e->tenant[i];
        memcpy(t->gpus_path, e->gpus_path, sizeof t->gpus_path);
        memcpy(t->links_path, e->links_path, sizeof t->links_path);
        memcpy(t->jobtypes_path, e->jobtypes_path, sizeof t->jobtypes_path);
    }
    return 0;
}

int experiment_load(struct experiment **out, const char *name_or_path, char *const *sets, int nsets,
             struct errbuf *err)
{
    return experiment_load_from(out, name_or_path, sets, NULL, nsets, err);
}

int experiment_load_from(struct experiment **out, const char *name_or_path, char *const *sets,
                  const char *const *origins, int nsets, struct errbuf *err)
{
    static const char *const keys[] = { "name", "description", "domain", "seed", "cluster",
                                        "workload", "policies", "sim", "models", "note",
                                        NULL };
    const char *domains[16];
    int nd = 0;
    for (; world_registry[nd] != NULL && nd < 15; nd++)
        domains[nd] = world_registry[nd]->domain;
    domains[nd] = NULL;
    *out = NULL;
    struct experiment *e = calloc(1, sizeof *e);
    if (e == NULL)
        return err_run(err, "out of memory");
    if (path_named(e->path, sizeof e->path, "experiments", name_or_path) < 0) {
        err_input(err, name_or_path, 0, NULL, "no such experiment file or shipped experiment "
                  "(see `hetsim list experiments`)");
        goto fail;
    }
    path_dirname(e->base_dir, sizeof e->base_dir, e->path);
    if (jsonf_load(&e->doc, e->path, err) < 0)
        goto fail;
    for (int i = 0; i < nsets; i++) {
        const char *eq = strchr(sets[i], '=');
        if (eq == NULL || eq == sets[i]) {
            err_input(err, "--set", 0, sets[i], "expected key=value");
            goto fail;
        }
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        if (jsonf_set_from(e->doc, key, eq + 1, origins ? origins[i] : NULL, err) < 0)
            goto fail;
    }
    struct jobj root, sim;
    int domain = 0;
    int64_t seed = 1;
    e->name = "unnamed";
    e->description = "";
    /* the domain first: its world's fields are known fields too */
    if (jobj_root(&root, e->doc, err) < 0 ||
        jobj_enum(&root, "domain", JOPT, domains, &domain, err) < 0)
        goto fail;
    e->world = world_registry[domain];
    e->domain = e->world->domain;
    if (known_keys(&root, keys, e->world->top_keys, err) < 0 ||
        jobj_str(&root, "name", JOPT, &e->name, err) < 0 ||
        jobj_str(&root, "description", JOPT, &e->description, err) < 0 ||
        jobj_int(&root, "seed", JOPT, 0, INT64_MAX, &seed, err) < 0 ||
        (e->world->tenants == NULL &&
         jobj_obj(&e->workload, &root, "workload", JREQ, err) < 0) ||
        read_policies(e, &root, err) < 0 || read_sim(e, &root, &sim, err) < 0 ||
        e->world->read(&e->world_config, &root, &sim, e->base_dir, err) < 0 ||
        read_models(e, &root, err) < 0)
        goto fail;
    e->seed = (uint64_t)seed;
    if (e->world->tenants != NULL && read_tenants(e, &root, err) < 0)
        goto fail;
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(jsonf_root(e->doc), "cluster");
    if (cl == NULL) {
        jsonf_error(e->doc, jsonf_root(e->doc), "cluster", err, "required field is missing");
        goto fail;
    }
    e->cluster_ref = "inline";
    if (cJSON_IsString(cl)) {
        e->cluster_ref = cl->valuestring;
        if (path_named(e->cluster_path, sizeof e->cluster_path, "clusters", cl->valuestring) < 0 &&
            path_resolve(e->cluster_path, sizeof e->cluster_path, e->base_dir, cl->valuestring) < 0) {
            jsonf_error(e->doc, cl, "cluster", err, "no cluster file or shipped cluster '%s' "
                        "(see `hetsim list clusters`)", cl->valuestring);
            goto fail;
        }
    } else if (jobj_obj(&e->cluster, &root, "cluster", JREQ, err) < 0) {
        goto fail;
    } else {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(cl, "name");
        if (cJSON_IsString(nm) && nm->valuestring[0] != '\0')
            e->cluster_ref = nm->valuestring;
    }
    *out = e;
    return 0;
fail:
    experiment_free(e);
    return -1;
}

void experiment_free(struct experiment *e)
{
    if (e == NULL)
        return;
    for (int i = 0; i < e->ntenants; i++)
        experiment_free(e->tenant[i]);
    if (e->world != NULL && e->world_config != NULL)
        e->world->free_config(e->world_config);
    if (!e->doc_borrowed)
        jsonf_destroy(e->doc);
    free(e);
}

void experiment_set_seed(struct experiment *e, uint64_t seed)
{
    e->seed = seed;
    for (int i = 0; i < e->ntenants; i++)
        experiment_set_seed(e->tenant[i], seed);
}

int experiment_only_policy(struct experiment *e, const char *name, struct errbuf *err)
{
    for (int i = 0; i < e->npolicies; i++)
        if (strcmp(e->policies[i].label, name) == 0) {
            e->policies[0] = e->policies[i];
            memcpy(e->tenant_policy[0], e->tenant_policy[i], sizeof e->tenant_policy[0]);
            e->npolicies = 1;
            return 0;
        }
    /* not in the file: run it with default parameters */
    if (!policy_is_python(name) && policy_find(name) == NULL) {
        char hint[96];
        return err_input(err, "--policy", 0, NULL, "unknown policy '%s'%s (see `hetsim list "
                         "policies`)", name, policy_hint(name, hint, sizeof hint));
    }
    e->policies[0] = (struct experiment_policy){ .name = name, .label = name };
    memset(e->tenant_policy[0], 0, sizeof e->tenant_policy[0]);
    e->npolicies = 1;
    return 0;
}

char *experiment_config_json(const struct experiment *e, int policy_index)
{
    cJSON *copy = cJSON_Duplicate(jsonf_root(e->doc), 1);
    if (copy == NULL)
        return NULL;
    const struct experiment_policy *p = &e->policies[policy_index];
    cJSON *pol = p->params.node ? cJSON_Duplicate(p->params.node, 1) : cJSON_CreateString(p->name);
    cJSON *arr = cJSON_CreateArray();
    if (pol == NULL || arr == NULL) {
        cJSON_Delete(pol);
        cJSON_Delete(arr);
        cJSON_Delete(copy);
        return NULL;
    }
    cJSON_AddItemToArray(arr, pol);
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "policies");
    cJSON_AddItemToObject(copy, "policies", arr);
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "seed");
    cJSON_AddNumberToObject(copy, "seed", (double)e->seed);
    char *s = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    return s;
}
