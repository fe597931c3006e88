/*
 * cmd_model: `hetsim model llm` answers what-if questions with the LLM latency model
 * (models/llm.h): the prefill time of a prompt batch and the time of one decode step, with
 * the weights and KV room of one GPU; `hetsim model fit` calibrates the model's free terms
 * on measurements (models/llm_fit.h) and prints the residual of every row; `hetsim model fit
 * heet FILE` fits the step-time models of Heet's job types on its CSV (models/heet_fit.h),
 * prints every point's error and with --out writes the fits that hetsim ships.
 */
#define _GNU_SOURCE
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/heet_fit.h"
#include "../../models/llm.h"
#include "../../models/llm_fit.h"
#include "../base/path.h"
#include "../run/experiment.h"

static const char model_usage[] =
    "llm --model M [--gpu G] --tp N [--pp N] --batch B --prompt P [--context C] [options] | "
    "fit [options] | fit heet FILE [--out FILE] [--format table|csv]";

static const char model_help[] =
    "usage: hetsim model llm --model M [--gpu G] --tp N [--pp N] --batch B --prompt P\n"
    "                        [--context C] [--link L] [--stage-link L] [--engine E]\n"
    "                        [--format table|csv]\n"
    "       hetsim model fit [--profile GPU=FILE ...] [--allreduce FILE --ar-link N=LINK ...]\n"
    "                        [--measured FILE] [--fit-source NAME] [--out FILE]\n"
    "                        [--format table|csv]\n"
    "       hetsim model fit heet FILE [--out FILE] [--format table|csv]\n"
    "llm: the modelled latency of one LLM deployment (doc/serving.md, \"The LLM latency model\"):\n"
    "prefill_ms, one iteration that prefills B prompts of P tokens (their first tokens\n"
    "included), and decode_ms, one decode step of B requests whose context is C tokens,\n"
    "on pp pipeline stages of tp GPUs each; with the weights one GPU holds and the KV\n"
    "cache tokens that fit beside them (90% of memory, as vLLM's default), the engine\n"
    "whose overheads are included, and whether the GPU type's kernel factors are\n"
    "calibrated (on which measurements) or borrowed (from which calibrated types).\n"
    "Without --gpu, one row per GPU type of the catalog.\n\n"
    "  -m, --model M        an LLM of models/data/llms.json (hetsim list llms)\n"
    "  -g, --gpu G          a GPU type (hetsim list gpus; default: every type)\n"
    "  -t, --tp N           tensor-parallel degree of each stage\n"
    "  -P, --pp N           pipeline stages (default 1; layers split evenly)\n"
    "  -b, --batch B        requests in the batch\n"
    "  -p, --prompt P       prompt tokens of each request\n"
    "  -c, --context C      context of each request at the decode step (default P + 1)\n"
    "  -l, --link L         the link inside a TP group (default: the GPU's NVSwitch, else\n"
    "                       its NVLink, else its PCIe)\n"
    "  -s, --stage-link L   the link between stages (default: --link while tp x pp fits\n"
    "                       in one 8-GPU server, else ib-100g)\n"
    "  -f, --format FMT     table (default) or csv\n"
    "      --llms FILE      the architectures (default models/data/llms.json)\n"
    "      --fit FILE       the fitted factors (default models/data/llm_fit.json)\n"
    "      --engine E       an engine profile of the fit file (default: its first)\n\n"
    "fit: fit the factors on Vidur kernel profiles, all-reduce times and end-to-end\n"
    "measurements (each optional), print every row's residual, and with --out write the\n"
    "factors as a llm_fit.json (scripts/fit-llm.sh does it on the reference data).\n\n"
    "      --profile GPU=FILE   a Vidur mlp.csv measured on GPU (repeatable)\n"
    "      --allreduce FILE     a Vidur all_reduce.csv\n"
    "      --ar-link N=LINK     its collectives of N GPUs cross LINK (repeatable)\n"
    "      --measured FILE      end-to-end rows (measured_points.csv)\n"
    "      --fit-source NAME    the engine whose one-GPU rows are fitted (its profile's\n"
    "                           iter_ms and first_ms on single requests, seq_ms on batched\n"
    "                           decode steps); every other row is a check (default lmdeploy)\n"
    "  -o, --out FILE           write the fitted factors there\n"
    "  -h, --help               this help\n\n"
    "fit heet: fit the step-time model of each (model, GPU type) of Heet's CSV FILE\n"
    "(gpu_type,model,batch_size,workers,epoch_time_s,batch_time_s; on the development\n"
    "machine ../shared/traces/heet/elastic_profiles.csv), print the parameters and every\n"
    "point's error, and with --out write them as models/data/profiles/heet_fit.json.\n"
    "  -o, --out FILE           write the fits there\n"
    "  -f, --format FMT         table (default) or csv (one line per point)\n";

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "hetsim model: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: hetsim model %s\nTry 'hetsim model --help'.\n", model_usage);
    return 2;
}

static int fail(const struct errbuf *err)
{
    fprintf(stderr, "hetsim: %s\n", err->msg);
    return err->code == ERR_INPUT ? 2 : 1;
}

static int int_arg(const char *opt, const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s needs an integer in [%ld, %ld], not '%%s'", opt, lo, hi);
        return usage(msg, s);
    }
    *out = (int)v;
    return 0;
}

/* The catalogs: GPUs and links, then the LLMs with their factors. */
static int open_catalogs(catalog **cat, llm_catalog **llm, const char *llms, const char *fit,
                         struct errbuf *err)
{
    char gp[PATH_MAX_LEN], lp[PATH_MAX_LEN], ap[PATH_MAX_LEN], fp[PATH_MAX_LEN];
    *cat = NULL;
    *llm = NULL;
    path_resolve(gp, sizeof gp, NULL, experiment_default_gpus);
    path_resolve(lp, sizeof lp, NULL, experiment_default_links);
    if (path_resolve(ap, sizeof ap, NULL, llms) < 0)
        return err_input(err, llms, 0, NULL, "no such file");
    if (path_resolve(fp, sizeof fp, NULL, fit) < 0)
        return err_input(err, fit, 0, NULL, "no such file");
    if (catalog_load(cat, gp, lp, err) < 0 || llm_load(llm, *cat, ap, fp, err) < 0)
        return -1;
    return 0;
}

static int link_arg(const catalog *cat, const char *opt, const char *name, int *out)
{
    *out = catalog_link_find(cat, name);
    if (*out < 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: unknown link '%%s' (see `hetsim list links`)", opt);
        return usage(msg, name);
    }
    return 0;
}

/* One GPU type's answer. */
struct whatif_row {
    int    gpu, link, stage_link;
    double prefill_s, decode_s, weights, kv_tokens, room;
};

static int whatif_row(const catalog *cat, const llm_catalog *lc, const struct llm_arch *a,
                      struct llm_whatif w, int gpu, const char *link, const char *slink,
                      struct whatif_row *out, struct errbuf *err)
{
    const struct gpu_spec *gs = catalog_gpu(cat, gpu);
    w.gpu = gpu;
    w.link = gs->nvswitch >= 0 ? gs->nvswitch : gs->nvlink >= 0 ? gs->nvlink : gs->pcie;
    if (link != NULL)
        w.link = catalog_link_find(cat, link);
    w.stage_link = w.tp * w.pp <= 8 ? w.link : catalog_link_find(cat, "ib-100g");
    if (slink != NULL)
        w.stage_link = catalog_link_find(cat, slink);
    if (llm_whatif_s(lc, a, &w, &out->prefill_s, &out->decode_s, err) < 0)
        return -1;
    /* the fullest stage (the first, with the embedding and the remainder of the layers, or
       the last, with the head) sets what one GPU holds */
    int per = a->layers / w.pp + (a->layers % w.pp != 0);
    double wb = llm_weight_bytes(a, per, w.tp, 1, w.pp == 1);
    double wl = llm_weight_bytes(a, a->layers / w.pp, w.tp, w.pp == 1, 1);
    if (wl > wb)
        wb = wl;
    double act = llm_activation_bytes(a, w.tp, (int64_t)w.batch * (int64_t)w.prompt, w.batch);
    out->gpu = gpu;
    out->link = w.link;
    out->stage_link = w.stage_link;
    out->weights = wb;
    out->room = 0.9 * gs->mem_gb * 1e9 - wb - act;
    out->kv_tokens = out->room > 0 ? out->room / llm_kv_bytes(a, per, w.tp) : 0;
    return 0;
}

/* "calibrated" or "borrowed", and on what / from which types */
static const char *calibration(const llm_catalog *lc, int gpu, const char **what)
{
    const char *data = llm_gpu_data(lc, gpu);
    if (data != NULL) {
        *what = data[0] != '\0' ? data : "its own factors (the file does not say on what)";
        return "calibrated";
    }
    *what = llm_default_from(lc)[0] != '\0' ? llm_default_from(lc) : "the default factors";
    return "borrowed";
}

/* a CSV field, quoted */
static void csv_text(const char *s)
{
    putchar('"');
    for (; *s != '\0'; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static int model_llm(int argc, char **argv)
{
    enum { O_LLMS = 1000, O_FIT, O_ENGINE };
    static const struct option opts[] = {
        { "model", required_argument, NULL, 'm' },  { "gpu", required_argument, NULL, 'g' },
        { "tp", required_argument, NULL, 't' },     { "pp", required_argument, NULL, 'P' },
        { "batch", required_argument, NULL, 'b' },  { "prompt", required_argument, NULL, 'p' },
        { "context", required_argument, NULL, 'c' }, { "link", required_argument, NULL, 'l' },
        { "stage-link", required_argument, NULL, 's' },
        { "format", required_argument, NULL, 'f' }, { "llms", required_argument, NULL, O_LLMS },
        { "fit", required_argument, NULL, O_FIT },  { "engine", required_argument, NULL, O_ENGINE },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *model = NULL, *gpu = NULL, *link = NULL, *slink = NULL, *format = "table";
    const char *llms = llm_default_models, *fitp = llm_default_fit, *engine = NULL;
    int tp = 0, pp = 1, batch = 0, prompt = 0, context = -1, c, rc = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "m:g:t:P:b:p:c:l:s:f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'm': model = optarg; break;
        case 'g': gpu = optarg; break;
        case 'l': link = optarg; break;
        case 's': slink = optarg; break;
        case 'f': format = optarg; break;
        case O_LLMS: llms = optarg; break;
        case O_FIT: fitp = optarg; break;
        case O_ENGINE: engine = optarg; break;
        case 't': rc = int_arg("--tp", optarg, 1, 64, &tp); break;
        case 'P': rc = int_arg("--pp", optarg, 1, 1000, &pp); break;
        case 'b': rc = int_arg("--batch", optarg, 1, 1 << 20, &batch); break;
        case 'p': rc = int_arg("--prompt", optarg, 1, 1 << 24, &prompt); break;
        case 'c': rc = int_arg("--context", optarg, 1, 1 << 24, &context); break;
        case 'h': fputs(model_help, stdout); return 0;
        default: return usage("unknown or incomplete option '%s'", argv[optind - 1]);
        }
        if (rc != 0)                    /* a number out of its range */
            return rc;
    }
    if (optind != argc)
        return usage("unexpected argument '%s'", argv[optind]);
    const char *missing = model == NULL ? "--model" : tp == 0 ? "--tp" : batch == 0 ? "--batch"
                          : prompt == 0 ? "--prompt" : NULL;
    if (missing != NULL)
        return usage("%s is required", missing);
    if (strcmp(format, "table") != 0 && strcmp(format, "csv") != 0)
        return usage("--format must be table or csv, not '%s'", format);
    struct errbuf err;
    err_clear(&err);
    catalog *cat;
    llm_catalog *lc;
    struct whatif_row *rows = NULL;
    rc = 0;
    if (open_catalogs(&cat, &lc, llms, fitp, &err) < 0) {
        rc = fail(&err);
        goto out;
    }
    const struct llm_arch *a = llm_find(lc, model);
    char hint[96];
    if (a == NULL) {
        err_input(&err, "--model", 0, NULL, "unknown model '%s'%s (see `hetsim list llms`)",
                  model, llm_hint(lc, model, hint, sizeof hint));
        rc = fail(&err);
        goto out;
    }
    int g = -1, dummy;
    if (gpu != NULL && (g = catalog_gpu_find(cat, gpu)) < 0) {
        err_input(&err, "--gpu", 0, NULL, "unknown GPU type '%s' (see `hetsim list gpus`)",
                  gpu);
        rc = fail(&err);
        goto out;
    }
    if ((link != NULL && (rc = link_arg(cat, "--link", link, &dummy)) != 0) ||
        (slink != NULL && (rc = link_arg(cat, "--stage-link", slink, &dummy)) != 0))
        goto out;
    if (engine != NULL && llm_use_engine(lc, engine) < 0) {
        char names[256];
        err_input(&err, "--engine", 0, NULL, "no engine profile '%s' in %s (it has: %s)",
                  engine, fitp, llm_engine_names(lc, names, sizeof names));
        rc = fail(&err);
        goto out;
    }
    /* one GPU type, or every type of the catalog */
    int first = g >= 0 ? g : 0, last = g >= 0 ? g : catalog_ngpus(cat) - 1, n = 0;
    rows = calloc((size_t)(last - first + 1), sizeof *rows);
    if (rows == NULL) {
        rc = 1;
        goto out;
    }
    struct llm_whatif w = { .tp = tp, .pp = pp, .batch = batch, .prompt = prompt,
                            .context = context > 0 ? context : prompt + 1 };
    for (int k = first; k <= last; k++)
        if (whatif_row(cat, lc, a, w, k, link, slink, &rows[n++], &err) < 0) {
            rc = fail(&err);
            goto out;
        }
    const struct llm_engine *e = llm_engine_in_use(lc);
    const struct llm_fit *f = llm_fit_of(lc);
    const char *ename = e != NULL ? e->name : "-";
    if (strcmp(format, "csv") == 0) {
        printf("model,gpu,tp,pp,batch,prompt,context,prefill_ms,decode_ms,weights_gb_per_gpu,"
               "kv_tokens,engine,calibration,calibration_data\n");
        for (int k = 0; k < n; k++) {
            const struct whatif_row *r = &rows[k];
            const char *what, *cal = calibration(lc, r->gpu, &what);
            printf("%s,%s,%d,%d,%d,%d,%g,%.6g,%.6g,%.4g,%.0f,%s,%s,", a->name,
                   catalog_gpu(cat, r->gpu)->name, tp, pp, batch, prompt, w.context,
                   r->prefill_s * 1e3, r->decode_s * 1e3, r->weights / 1e9, r->kv_tokens, ename,
                   cal);
            csv_text(what);
            putchar('\n');
        }
        goto out;
    }
    if (g < 0) {
        printf("%s, tp %d, pp %d: batch %d, prompt %d tokens, decode context %g tokens; engine "
               "%s\n", a->name, tp, pp, batch, prompt, w.context, ename);
        printf("%-10s %-12s %11s %10s %11s %10s  %s\n", "gpu", "link", "prefill_ms",
               "decode_ms", "weights_gb", "kv_tokens", "calibration");
        for (int k = 0; k < n; k++) {
            const struct whatif_row *r = &rows[k];
            const char *what, *cal = calibration(lc, r->gpu, &what);
            printf("%-10s %-12s %11.3f %10.3f %11.2f %10.0f  %s %s %s\n",
                   catalog_gpu(cat, r->gpu)->name, catalog_link(cat, r->link)->name,
                   r->prefill_s * 1e3, r->decode_s * 1e3, r->weights / 1e9, r->kv_tokens, cal,
                   strcmp(cal, "calibrated") == 0 ? "on" : "from", what);
        }
        goto out;
    }
    const struct whatif_row *r = &rows[0];
    const struct gpu_spec *gs = catalog_gpu(cat, g);
    const char *what, *cal = calibration(lc, g, &what);
    printf("%s on %d x %s (tp %d, pp %d; %s inside a stage, %s between stages)\n", a->name,
           tp * pp, gs->name, tp, pp, catalog_link(cat, r->link)->name,
           pp > 1 ? catalog_link(cat, r->stage_link)->name : "-");
    printf("  batch %d, prompt %d tokens, decode context %g tokens\n", batch, prompt,
           w.context);
    printf("  prefill_ms  %10.3f   (the batch's prompts, first tokens included)\n",
           r->prefill_s * 1e3);
    printf("  decode_ms   %10.3f   (one step: one token for each request)\n", r->decode_s * 1e3);
    printf("  weights     %10.2f GB per GPU of %g GB\n", r->weights / 1e9, gs->mem_gb);
    printf("  kv_tokens   %10.0f   (KV cache room per GPU at 90%% of memory)%s\n", r->kv_tokens,
           r->room > 0 ? "" : ": the weights do not fit");
    printf("  engine      %s: %.4f ms an iteration + %.4f ms a sequence, %.4f ms a first "
           "token%s%s\n", ename, f->iter_ms, f->seq_ms, f->first_ms,
           e != NULL ? "; fitted on " : "", e != NULL ? e->source : "");
    printf("  calibration %s %s %s\n", cal, strcmp(cal, "calibrated") == 0 ? "on" : "from",
           what);
out:
    free(rows);
    llm_destroy(lc);
    catalog_destroy(cat);
    return rc;
}

enum { MAX_PROFILES = 16 };

/* `hetsim model fit heet FILE`: argv[0] is "heet". */
static int model_fit_heet(int argc, char **argv)
{
    static const struct option opts[] = {
        { "out", required_argument, NULL, 'o' }, { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },      { NULL, 0, NULL, 0 },
    };
    const char *out = NULL, *format = "table";
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': format = optarg; break;
        case 'h': fputs(model_help, stdout); return 0;
        default: return usage("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return usage("fit heet needs Heet's CSV (e.g. "
                     "../shared/traces/heet/elastic_profiles.csv)%s", "");
    if (optind + 1 != argc)
        return usage("unexpected argument '%s'", argv[optind + 1]);
    if (strcmp(format, "table") != 0 && strcmp(format, "csv") != 0)
        return usage("--format must be table or csv, not '%s'", format);
    const char *path = argv[optind];
    struct errbuf err;
    err_clear(&err);
    char gp[PATH_MAX_LEN], lp[PATH_MAX_LEN];
    path_resolve(gp, sizeof gp, NULL, experiment_default_gpus);
    path_resolve(lp, sizeof lp, NULL, experiment_default_links);
    catalog *cat = NULL;
    struct heet_point *pt = NULL;
    enum { CAP = 64 };
    struct heet_fit fits[CAP];
    int np = 0, nf = 0, rc = 0;
    if (catalog_load(&cat, gp, lp, &err) < 0 || heet_csv_read(cat, path, &pt, &np, &err) < 0 ||
        (nf = heet_fit_solve(cat, pt, np, fits, CAP, &err)) < 0) {
        rc = fail(&err);
        goto out;
    }
    int csv = strcmp(format, "csv") == 0;
    if (csv)
        printf("gpu,model,batch,workers,measured_s,model_s,error_pct\n");
    for (int i = 0; i < nf; i++) {
        const struct heet_fit *h = &fits[i];
        const char *g = catalog_gpu(cat, h->gpu)->name, *m = heet_csv_models[h->model];
        if (!csv)
            printf("%s on %s (%s): sample_s %.4g, step_s %.4g, sync_s %.4g, worker_s %.4g, "
                   "overlap %.2f; %d points, %d parameters, median |error| %.1f%%, worst %.1f%%\n",
                   m, g, catalog_link(cat, h->f.link)->name, h->f.sample_s, h->f.step_s,
                   h->f.sync_s, h->f.worker_s, h->f.overlap, h->points, HEET_FIT_NPARAM,
                   100 * h->median_err, 100 * h->max_err);
        for (int k = 0; k < np; k++) {
            if (pt[k].gpu != h->gpu || pt[k].model != h->model)
                continue;
            double t = heet_fit_time(h, &pt[k]), e = 100 * (t / pt[k].batch_s - 1);
            if (csv)
                printf("%s,%s,%d,%d,%.6g,%.6g,%.3f\n", g, m, pt[k].batch, pt[k].workers,
                       pt[k].batch_s, t, e);
            else
                printf("  batch %4d on %d: measured %8.4f s, model %8.4f s, %+6.1f%%\n",
                       pt[k].batch, pt[k].workers, pt[k].batch_s, t, e);
        }
    }
    if (out != NULL) {
        FILE *f = fopen(out, "w");
        if (f == NULL || heet_fit_write(f, cat, fits, nf, "fitted on the batch times of Heet's "
                                        "repository (github.com/mozizhao/elastic, "
                                        "our_scheduler.py @638c16e)") < 0 ||
            fclose(f) != 0) {
            fprintf(stderr, "hetsim: %s: cannot write\n", out);
            rc = 1;
        }
    }
out:
    free(pt);
    catalog_destroy(cat);
    return rc;
}

static int model_fit(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "heet") == 0)
        return model_fit_heet(argc - 1, argv + 1);
    enum { O_PROFILE = 1000, O_AR, O_ARLINK, O_MEASURED, O_SOURCE };
    static const struct option opts[] = {
        { "profile", required_argument, NULL, O_PROFILE },
        { "allreduce", required_argument, NULL, O_AR },
        { "ar-link", required_argument, NULL, O_ARLINK },
        { "measured", required_argument, NULL, O_MEASURED },
        { "fit-source", required_argument, NULL, O_SOURCE },
        { "out", required_argument, NULL, 'o' },    { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    const char *profiles[MAX_PROFILES], *allreduce = NULL, *measured = NULL, *out = NULL;
    const char *source = "lmdeploy", *format = "table";
    const char *arlinks[16];
    int np = 0, nal = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:f:h", opts, NULL)) != -1) {
        switch (c) {
        case O_PROFILE:
            if (np == MAX_PROFILES)
                return usage("at most 16 --profile options%s", "");
            profiles[np++] = optarg;
            break;
        case O_AR: allreduce = optarg; break;
        case O_ARLINK:
            if (nal == 16)
                return usage("at most 16 --ar-link options%s", "");
            arlinks[nal++] = optarg;
            break;
        case O_MEASURED: measured = optarg; break;
        case O_SOURCE: source = optarg; break;
        case 'o': out = optarg; break;
        case 'f': format = optarg; break;
        case 'h': fputs(model_help, stdout); return 0;
        default: return usage("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc)
        return usage("unexpected argument '%s'", argv[optind]);
    if (np == 0 && allreduce == NULL && measured == NULL)
        return usage("nothing to fit: give --profile, --allreduce or --measured%s", "");
    if (strcmp(format, "table") != 0 && strcmp(format, "csv") != 0)
        return usage("--format must be table or csv, not '%s'", format);
    struct errbuf err;
    err_clear(&err);
    catalog *cat = NULL;
    llm_catalog *lc = NULL;
    llm_fit_data *d = llm_fit_data_create();
    struct llm_resid *res = NULL;
    int rc = 0, link_of[17];
    for (int i = 0; i < 17; i++)
        link_of[i] = -1;
    if (d == NULL || open_catalogs(&cat, &lc, llm_default_models, llm_default_fit, &err) < 0) {
        rc = d == NULL ? 1 : fail(&err);
        goto out;
    }
    for (int i = 0; i < nal; i++) {
        char name[64];
        int n = 0, k = 0;
        if (sscanf(arlinks[i], "%d=%63s%n", &n, name, &k) != 2 || arlinks[i][k] != '\0' ||
            n < 2 || n > 16) {
            rc = usage("--ar-link needs N=LINK with 2 <= N <= 16, not '%s'", arlinks[i]);
            goto out;
        }
        if ((rc = link_arg(cat, "--ar-link", name, &link_of[n])) != 0)
            goto out;
    }
    if (allreduce != NULL && nal == 0) {
        rc = usage("--allreduce needs --ar-link N=LINK for its GPU counts%s", "");
        goto out;
    }
    for (int i = 0; i < np; i++) {
        const char *eq = strchr(profiles[i], '=');
        char gname[64];
        if (eq == NULL || eq == profiles[i] || (size_t)(eq - profiles[i]) >= sizeof gname) {
            rc = usage("--profile needs GPU=FILE, not '%s'", profiles[i]);
            goto out;
        }
        snprintf(gname, sizeof gname, "%.*s", (int)(eq - profiles[i]), profiles[i]);
        int g = catalog_gpu_find(cat, gname);
        if (g < 0) {
            err_input(&err, "--profile", 0, NULL, "unknown GPU type '%s'", gname);
            rc = fail(&err);
            goto out;
        }
        if (llm_fit_add_profile(d, eq + 1, g, &err) < 0) {
            rc = fail(&err);
            goto out;
        }
    }
    if ((allreduce != NULL && llm_fit_add_allreduce(d, allreduce, link_of, &err) < 0) ||
        (measured != NULL && llm_fit_add_points(d, measured, lc, source, &err) < 0) ||
        llm_fit_solve(d, lc, &err) < 0) {
        rc = fail(&err);
        goto out;
    }
    enum { CAP = 256 };
    res = calloc(CAP, sizeof *res);
    if (res == NULL) {
        rc = 1;
        goto out;
    }
    int n = llm_fit_residuals(d, lc, res, CAP);
    int csv = strcmp(format, "csv") == 0;
    const struct llm_fit *s = llm_fit_of(lc);
    if (csv)
        printf("row,used,points,measured_ms,model_ms,error_pct,worst_pct\n");
    else
        printf("fitted: eta_attn %.4f, eta_link %.4f, lat_factor %.4f, coll_us %.2f; engine "
               "%s: iter_ms %.4f, seq_ms %.4f, first_ms %.4f; default (from %s) eta_compute "
               "%.4f, eta_mem %.4f, p %.3f, kernel_us %.3f, eta_elem %.3f/%.3f/%.3f/%.3f "
               "(norm/rope/act/add), elem_us %.3f\n",
               s->eta_attn, s->eta_link, s->lat_factor, s->coll_us,
               llm_engine_in_use(lc) != NULL ? llm_engine_in_use(lc)->name : "-", s->iter_ms,
               s->seq_ms, s->first_ms, llm_default_from(lc), s->dflt.eta_compute,
               s->dflt.eta_mem, s->dflt.p, s->dflt.kernel_us, s->dflt.eta_elem[0],
               s->dflt.eta_elem[1], s->dflt.eta_elem[2], s->dflt.eta_elem[3],
               s->dflt.elem_us);
    for (int i = 0; i < n; i++) {
        const struct llm_resid *r = &res[i];
        if (csv)
            printf("\"%s\",%s,%d,%.6g,%.6g,%.4f,%.4f\n", r->what, r->fitted ? "fit" : "check",
                   r->n, r->kind == LLM_RESID_POINT ? r->measured_ms : 0,
                   r->kind == LLM_RESID_POINT ? r->model_ms : 0, r->err_pct, r->max_pct);
        else if (r->kind == LLM_RESID_POINT)
            printf("  %-5s %-52s measured %8.1f ms  model %8.1f ms  %+6.1f%%\n",
                   r->fitted ? "fit" : "check", r->what, r->measured_ms, r->model_ms,
                   r->err_pct);
        else
            printf("  %-5s %-52s %5d points, median |error| %5.1f%%, worst %+7.1f%%\n", "fit",
                   r->what, r->n, r->err_pct, r->max_pct);
    }
    if (out != NULL) {
        FILE *f = fopen(out, "w");
        if (f == NULL || llm_fit_write(f, lc, res, n, "Fitted by `hetsim model fit` "
                                       "(scripts/fit-llm.sh); doc/serving.md, 'The LLM "
                                       "latency model', gives the method and these "
                                       "residuals.") < 0 ||
            fclose(f) != 0) {
            fprintf(stderr, "hetsim: %s: cannot write\n", out);
            rc = 1;
        }
    }
out:
    free(res);
    llm_fit_data_destroy(d);
    llm_destroy(lc);
    catalog_destroy(cat);
    return rc;
}

int cmd_model(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "llm") == 0)
        return model_llm(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "fit") == 0)
        return model_fit(argc - 1, argv + 1);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(model_help, stdout);
        return 0;
    }
    return usage("expected 'llm' or 'fit'%s", argc >= 2 ? "" : " (nothing given)");
}
