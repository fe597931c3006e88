/*
 * experiment: an experiment file — what to simulate (cluster, workload, models), which
 * policies to compare, with which seed and simulation settings.  It reads the fields every
 * domain shares; the world of its "domain" (sim/run/world_registry.h) reads its own fields
 * (e.g. the training world's "mode" and sim.restore_*) into `world_config`.
 *
 * Loading applies the command line's --set overrides to the JSON before anything is read, so
 * every field can be overridden and every error still names its origin (file:line, or the
 * --set that put the value there).  The experiment keeps the parsed document; the readers of
 * the cluster, workload and policies take their objects from it.
 *
 * Ownership: experiment_load allocates; experiment_free frees the experiment, its world
 * config and its document.  Pointers into it (names, jobj nodes) live until experiment_free.
 */
#ifndef HETSIM_EXPERIMENT_H
#define HETSIM_EXPERIMENT_H

#include <stdint.h>

#include "../base/jobj.h"
#include "../base/path.h"
#include "../core/world.h"

enum { EXPERIMENT_MAX_POLICIES = 64, EXPERIMENT_MAX_PROFILES = 16, EXPERIMENT_MAX_TENANTS = 4 };

struct experiment_policy {
    const char *name;
    const char *label;          /* "label" parameter, or the name */
    struct jobj params;         /* node NULL when given as a bare name */
    const cJSON *node;          /* its element of "policies" (NULL: named by --policy) */
    char        field[96];      /* that element's path: "policies[1]", a tenant's
                                   "tenants.serving.policies[0]" */
};


struct experiment {
    jsonf      *doc;
    char        path[PATH_MAX_LEN];
    char        base_dir[PATH_MAX_LEN];
    const char *name, *domain, *description;
    const struct world_ops *world;      /* the world of its domain */
    void       *world_config;           /* what world->read made of its fields */
    uint64_t    seed;
    int         sample_repeats;         /* store samples equal to both neighbours too */
    struct experiment_policy policies[EXPERIMENT_MAX_POLICIES];
    int         npolicies;
    /* A domain of tenants (colocate): policies[i] may run tenant k (world->tenants order)
     * under tenant_policy[i][k] instead of its section's policy (name NULL: the section's):
     * { "name": "loan", "label": "loan+lyra", "tenants": { "training": "lyra" } }, so that
     * combinations are policies of one experiment, compared by label like any other. */
    struct experiment_policy tenant_policy[EXPERIMENT_MAX_POLICIES][EXPERIMENT_MAX_TENANTS];
    struct jobj cluster;        /* inline cluster object (node NULL if given by path) */
    const char *cluster_ref;    /* the cluster as the experiment names it: its "cluster"
                                   string, or the inline object's "name" ("inline") */
    char        cluster_path[PATH_MAX_LEN];
    struct jobj workload;
    struct world_sim sim;       /* the generic "sim" fields */
    double      policy_timeout_s;   /* sim.policy_timeout_s: CPU seconds one call of a Python
                                       policy's hook may take (sched/python/pybridge.h) */
    /* model files, resolved */
    char        gpus_path[PATH_MAX_LEN], links_path[PATH_MAX_LEN], jobtypes_path[PATH_MAX_LEN];
    char        profiles[EXPERIMENT_MAX_PROFILES][PATH_MAX_LEN];
    int         nprofiles;
    char        gavel_tput_path[PATH_MAX_LEN];     /* "" if none */
    /* models.elastic_sia: Sia's per-cluster profiles (models/siaprof.h), "" if none, and
     * the applications.json they extend (models.elastic, else Pollux's shipped one) */
    char        elastic_sia_path[PATH_MAX_LEN];
    char        elastic_apps_path[PATH_MAX_LEN];
    /* A domain of tenants (world_ops.tenants: colocate): its "tenants" object, one section
     * per tenant read as an experiment of that domain — its workload, its one policy, its
     * "sim" and its world's fields — sharing this experiment's document, folder, seed,
     * cluster and model files (a tenant's "models" holds only its world's own files).  Such
     * an experiment has no "workload" of its own. */
    struct experiment *tenant[EXPERIMENT_MAX_TENANTS];
    const char *tenant_name[EXPERIMENT_MAX_TENANTS];
    int         ntenants;
    int         doc_borrowed;   /* a tenant's: the document is its parent's */
};

/* sim.policy_timeout_s when the experiment gives none: generous, a hook that takes this long
 * is stuck */
enum { EXPERIMENT_POLICY_TIMEOUT_S = 600 };

/* The model files an experiment uses unless its "models" object names others (relative to the
 * data root); experiment_default_profiles is NULL-terminated. */
extern const char experiment_default_gpus[], experiment_default_links[], experiment_default_jobtypes[];
extern const char *const experiment_default_profiles[];

/* Load `name_or_path` (a file, or the name of a shipped experiment), apply the nsets
 * "key=value" overrides, and read the experiment-level fields. */
int  experiment_load(struct experiment **out, const char *name_or_path, char *const *sets, int nsets,
              struct errbuf *err);
/* The same, with origins[i] (when origins and it are not NULL) named as the source of
 * sets[i] in errors, instead of "--set KEY" (a sweep names its file and line). */
int  experiment_load_from(struct experiment **out, const char *name_or_path, char *const *sets,
                   const char *const *origins, int nsets, struct errbuf *err);
void experiment_free(struct experiment *e);

/* Keep only policy `name` (the --policy option; a name or a label); it need not be listed in
 * the file, but must be a registered policy. */
int  experiment_only_policy(struct experiment *e, const char *name, struct errbuf *err);
/* Run e under `seed` instead of its file's (--seed): e's and each tenant's, as "seed" in the
 * file would have given them. */
void experiment_set_seed(struct experiment *e, uint64_t seed);

/* The experiment as one policy's run sees it, as compact JSON (for runs.config_json).
 * Caller frees with free(). */
char *experiment_config_json(const struct experiment *e, int policy_index);

#endif
