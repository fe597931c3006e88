/*
 * test_reproduce: the scripts in scripts/reproduce run end to end, in their QUICK mode (every
 * run cut to its first 60 jobs, or for FGD's placement runs every tenth node, or Derm's day
 * to 10 minutes, so a paper's whole sweep takes seconds to a minute): the sweep, the
 * figures, the reports, and the claims table with a mean and interval at every load, each
 * inside its stored band; and a figure outside its band (or without one) fails the script.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Run scripts/reproduce/NAME.sh quickly into the scratch directory OUTNAME (with `env`
 * before it, e.g. another bands file); *status gets its exit status; returns its stdout. */
static char *reproduce_with(const char *name, const char *outname, const char *env,
                            int *status)
{
    char out[600], cmd[2400], log[700];
    snprintf(out, sizeof out, "%s/%s", th_tmpdir(), outname);
    snprintf(log, sizeof log, "%s/%s.log", th_tmpdir(), outname);
    snprintf(cmd, sizeof cmd, "%s QUICK=1 JOBS=2 OUT=%s HETSIM=%s sh %s/scripts/reproduce/%s.sh "
             ">%s 2>/dev/null", env, out, HETSIM_BIN, getenv("HETSIM_DATA"), name, log);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s: status %d", cmd, st);
    *status = WEXITSTATUS(st);
    return slurp(log);
}

/* The quick run of a script: its figures, its reports, a line per claim with a figure at each
 * of the `nloads` loads, every one inside its band. */
static char *reproduce(const char *name, const char *const *figures, int nclaims, int nloads)
{
    int status;
    char *text = reproduce_with(name, name, "", &status);
    cr_assert_eq(status, 0, "%s", text);
    char out[600];
    snprintf(out, sizeof out, "%s/%s", th_tmpdir(), name);
    for (int i = 0; figures[i] != NULL; i++) {
        char p[900];
        snprintf(p, sizeof p, "%s/%s", out, figures[i]);
        cr_assert_gt(file_size(p), 5000, "%s missing or empty", p);
    }
    char rep[700];
    snprintf(rep, sizeof rep, "%s/report.csv", out);
    cr_assert_gt(file_size(rep), 500);
    /* every figure is "mean±ci", one per load, on each claim line */
    int cells = 0;
    for (const char *p = text; (p = strstr(p, "±")) != NULL; p++)
        cells++;
    /* the header's "mean ± 95% CI" has one too */
    cr_assert_eq(cells - 1, nclaims * nloads, "%s", text);
    cr_assert(strstr(text, "every figure is inside its band") != NULL, "%s", text);
    cr_assert(strstr(text, "OUT OF BAND") == NULL && strstr(text, "no band") == NULL, "%s", text);
    return text;
}

Test(reproduce, fft_script_runs_end_to_end, .timeout = 300)
{
    static const char *const figs[] = { "fft_load_jct_mean_vs_workload-arrival_scale.png",
                                        "fft_load_jct_mean_steady_vs_workload-arrival_scale.png",
                                        "fft_load_ftf_mean_vs_workload-arrival_scale.png",
                                        "fft_load_ftf_max_vs_workload-arrival_scale.png", NULL };
    char *text = reproduce("fft", figs, 9, 4);
    cr_assert(strstr(text, "JCT vs Gavel max-min (paper: up to 1/5.2=0.19)") != NULL, "%s",
              text);
    cr_assert(strstr(text, "workload.arrival_scale") != NULL, "%s", text);
}

Test(reproduce, oef_script_runs_end_to_end, .timeout = 300)
{
    static const char *const figs[] = {
        "oef_load_throughput_norm_window_vs_workload-rate_per_hour.png",
        "oef_load_jct_mean_vs_workload-rate_per_hour.png",
        "oef_load_ftf_mean_vs_workload-rate_per_hour.png", NULL };
    char *text = reproduce("oef", figs, 7, 3);
    cr_assert(strstr(text, "throughput vs Gavel max-min (paper: up to 1.32)") != NULL, "%s",
              text);
}

Test(reproduce, derm_script_runs_end_to_end, .timeout = 300)
{
    static const char *const figs[] = {
        "derm_load_containers_mean_vs_workload-rate_per_s.png",
        "derm_load_sla_violation_prob_vs_workload-rate_per_s.png",
        "derm_load_e2e_p95_vs_workload-rate_per_s.png",
        "derm_load_fit_containers_mean_vs_workload-rate_per_s.png", NULL };
    /* under each truth five ratios and four policies' own violation probabilities, at three
     * loads (QUICK runs TrainTicket alone) */
    char *text = reproduce("derm", figs, 18, 3);
    cr_assert(strstr(text, "containers vs static worst case (paper: 0.316)") != NULL, "%s", text);
    cr_assert(strstr(text, "under the queueing truth") != NULL &&
              strstr(text, "the same under the fit's truth") != NULL, "%s", text);
    const char *why = strstr(text, "Why Derm's intervals break the SLA");
    cr_assert(why != NULL && strstr(why + 1, "Why Derm's intervals break the SLA") != NULL &&
              strstr(text, "intervals have a P95 over the SLA") != NULL, "%s", text);
}

Test(reproduce, fgd_script_runs_end_to_end, .timeout = 300)
{
    /* FGD's experiment on the openb lists of ../shared, in QUICK mode on every tenth node */
    static const char *const figs[] = { "fgd_openb_milli_alloc_frac_vs_sim-load.png",
                                        "fgd_openb_frag_frac_vs_sim-load.png",
                                        "fgd_openb_gpus_unallocated_vs_sim-load.png",
                                        "fgd_alloc_vs_arrived.png", "fgd_frag_vs_arrived.png",
                                        NULL };
    char *text = reproduce("fgd", figs, 13, 2);
    cr_assert(strstr(text, "fgd milli-GPU allocated (FGD: 0.952, 0.954)") != NULL, "%s", text);
    cr_assert(strstr(text, "milli-GPU vs best fit (FGD: 1.026, 1.025)") != NULL, "%s", text);
    cr_assert(strstr(text, "sim.load") != NULL, "%s", text);
}

Test(reproduce, hetis_script_runs_end_to_end, .timeout = 300)
{
    static const char *const figs[] = {
        "hetis_load_quick_tokens_per_s_vs_workload-rate_per_s.png",
        "hetis_load_quick_e2e_mean_vs_workload-rate_per_s.png",
        "hetis_load_quick_ttft_p95_vs_workload-rate_per_s.png", NULL };
    char *text = reproduce("hetis", figs, 9, 5);
    cr_assert(strstr(text, "throughput vs Splitwise (paper: up to 2.25)") != NULL, "%s", text);
    cr_assert(strstr(text, "Llama-2-13B") == NULL, "the quick run is the headline only");
}

Test(reproduce, colocate_script_runs_end_to_end, .timeout = 300)
{
    static const char *const figs[] = {
        "colocate_day_training_jct_mean_vs_tenants-serving-workload-rate_per_s.png",
        "colocate_day_serving_ttft_p99_vs_tenants-serving-workload-rate_per_s.png", NULL };
    char *text = reproduce("colocate", figs, 26, 3);
    cr_assert(strstr(text, "training JCT vs static (paper: 1/1.48=0.68)") != NULL, "%s", text);
}

Test(reproduce, iadeep_script_runs_end_to_end, .timeout = 300)
{
    /* IADeep's sweep on the 3090 table of ../shared, QUICK: 60 jobs a run */
    static const char *const figs[] = { "iadeep_load_jct_mean_vs_workload-rate_per_hour.png",
                                        "iadeep_load_makespan_vs_workload-rate_per_hour.png",
                                        "iadeep_load_util_total_vs_workload-rate_per_hour.png",
                                        NULL };
    int status;
    char *text = reproduce_with("iadeep", "iadeep", "", &status);
    cr_assert_eq(status, 0, "%s", text);
    for (int i = 0; figs[i] != NULL; i++) {
        char p[900];
        snprintf(p, sizeof p, "%s/iadeep/%s", th_tmpdir(), figs[i]);
        cr_assert_gt(file_size(p), 5000, "%s missing or empty", p);
    }
    /* two tables: IADeep's own (31 claims: 11 learned and oracle, learned against oracle
     * twice, the prediction error twice, 5 GPU uses), Lucid's pairs (17: 7 twice, learned
     * against oracle, the prediction error twice), 4 loads each; the two headers have a ±
     * each */
    int cells = 0;
    for (const char *p = text; (p = strstr(p, "±")) != NULL; p++)
        cells++;
    cr_assert_eq(cells - 2, (31 + 17) * 4, "%s", text);
    cr_assert(strstr(text, "prediction error (pred_error_mean), learned") != NULL, "%s", text);
    cr_assert(strstr(text, "(oracle)") != NULL, "%s", text);
    cr_assert(strstr(text, "mean JCT vs MPS (even shares)") != NULL, "%s", text);
    cr_assert(strstr(text, "mean JCT vs kernel-level time slicing") != NULL, "%s", text);
    cr_assert(strstr(text, "IADeep with Lucid's RTX 3090 pairs") != NULL, "%s", text);
    cr_assert(strstr(text, "workload.rate_per_hour") != NULL, "%s", text);
    cr_assert(strstr(text, "every figure is inside its band") != NULL, "%s", text);
    cr_assert(strstr(text, "OUT OF BAND") == NULL && strstr(text, "no band") == NULL, "%s", text);
}

Test(reproduce, gavel_colocation_script_runs_end_to_end, .timeout = 300)
{
    /* Gavel's cluster with its measured pairs, QUICK: 60 jobs a run; 11 ratios and 2 values */
    static const char *const figs[] = {
        "gavel_coloc_load_jct_mean_vs_workload-rate_per_hour.png",
        "gavel_coloc_load_makespan_vs_workload-rate_per_hour.png",
        "gavel_coloc_load_queue_delay_mean_vs_workload-rate_per_hour.png", NULL };
    char *text = reproduce("gavel_colocation", figs, 13, 4);
    cr_assert(strstr(text, "NOT REPRODUCED") != NULL, "%s", text);
    cr_assert(strstr(text, "mean JCT, IADeep vs exclusive GPUs") != NULL, "%s", text);
}

Test(reproduce, heet_script_runs_end_to_end, .timeout = 300)
{
    /* two sweeps, two tables: heet_load (9 claims) and sia_load (4 claims), 4 loads each */
    int status;
    char *text = reproduce_with("heet", "heet", "", &status);
    cr_assert_eq(status, 0, "%s", text);
    static const char *const figs[] = { "heet_load_jct_mean_vs_workload-arrival_scale.png",
                                        "heet_load_jct_p50_vs_workload-arrival_scale.png",
                                        "heet_load_makespan_vs_workload-arrival_scale.png",
                                        "sia_load_jct_mean_vs_workload-arrival_scale.png",
                                        "sia_load_jct_p50_vs_workload-arrival_scale.png", NULL };
    for (int i = 0; figs[i] != NULL; i++) {
        char p[900];
        snprintf(p, sizeof p, "%s/heet/%s", th_tmpdir(), figs[i]);
        cr_assert_gt(file_size(p), 5000, "%s missing or empty", p);
    }
    int cells = 0;
    for (const char *p = text; (p = strstr(p, "±")) != NULL; p++)
        cells++;
    cr_assert_eq(cells - 2, (9 + 4) * 4, "%s", text);     /* two headers have one each */
    cr_assert(strstr(text, "JCT vs AFS (paper: up to 1/2.46=0.41)") != NULL, "%s", text);
    cr_assert(strstr(text, "JCT vs AFS (paper: 0.07-0.70 vs its baselines)") != NULL, "%s",
              text);
    cr_assert(strstr(text, "every figure is inside its band") != NULL, "%s", text);
    cr_assert(strstr(text, "OUT OF BAND") == NULL && strstr(text, "no band") == NULL, "%s", text);
}

Test(reproduce, a_figure_outside_its_band_fails, .timeout = 300)
{
    /* the shipped quick bands, with one band moved away from the measured figure */
    char src[700], bands[700], cmd[1600];
    snprintf(src, sizeof src, "%s/scripts/reproduce/bands/oef.csv", getenv("HETSIM_DATA"));
    snprintf(bands, sizeof bands, "%s/oef_bad_bands.csv", th_tmpdir());
    snprintf(cmd, sizeof cmd, "sed -e 's/^quick,oef_coop,gavel_las_perf,jct_mean,12,.*/"
             "quick,oef_coop,gavel_las_perf,jct_mean,12,5,6/' "
             "-e '/^quick,oef_coop,gavel_las_perf,ftf_mean,24,/d' %s > %s", src, bands);
    cr_assert_eq(system(cmd), 0);
    char env[800];
    snprintf(env, sizeof env, "BANDS_FILE=%s", bands);
    int status;
    char *text = reproduce_with("oef", "oef_bad", env, &status);
    cr_assert_eq(status, 1, "status %d: %s", status, text);
    cr_assert(strstr(text, "OUT OF BAND: 12:") != NULL, "%s", text);
    cr_assert(strstr(text, "not in [5, 6]") != NULL, "%s", text);
    cr_assert(strstr(text, "no band for 24") != NULL, "%s", text);
    cr_assert(strstr(text, "some figures are outside their bands") != NULL, "%s", text);
}

/* The claims ledger: a row whose relation holds on the run is "holds", one whose relation no
 * longer holds fails the script naming its id and loads, a relation that is not one of the
 * four and a baseline without a report are named too; and a band wider than the claim on its
 * figure fails (quick figures of oef: agnostic Gavel's throughput ratio is 1.2-1.3 at every
 * load, OEF's mean JCT ratio at 24 jobs an hour about 0.99 with a CI containing 1). */
Test(reproduce, a_claim_that_flips_fails, .timeout = 300)
{
    char ledger[700], bands[700], src[700], cmd[2000];
    snprintf(ledger, sizeof ledger, "%s/oef_ledger.csv", th_tmpdir());
    FILE *f = fopen(ledger, "w");
    cr_assert_not_null(f);
    fputs("id,policy,baseline,metric,load,relation,wording\n"
          "# a comment line\n"
          "agn,oef_coop,gavel_las,throughput_norm_window,*,above 1,higher, by {range}\n"
          "flip,oef_coop,gavel_las_perf,jct_mean,24,below 1,OEF lowers JCT at 24\n"
          "lvl,oef_coop,gavel_las_perf,jct_mean,24,level 1,no JCT difference at 24\n"
          "paper,oef_coop,gavel_las,throughput_norm_window,6;24,within 1.5 2,as the paper\n"
          "rel,oef_coop,gavel_las,throughput_norm_window,*,better 1,bad relation\n"
          "nobase,oef_coop,fifo,jct_mean,*,below 1,no such report\n", f);
    fclose(f);
    /* the shipped quick bands, but the agnostic throughput band at 12 made to straddle the
     * row agn's threshold of 1 */
    snprintf(src, sizeof src, "%s/scripts/reproduce/bands/oef.csv", getenv("HETSIM_DATA"));
    snprintf(bands, sizeof bands, "%s/oef_ledger_bands.csv", th_tmpdir());
    snprintf(cmd, sizeof cmd, "sed -e 's/^quick,oef_coop,gavel_las,throughput_norm_window,12,.*/"
             "quick,oef_coop,gavel_las,throughput_norm_window,12,0.9,1.5/' %s > %s", src, bands);
    cr_assert_eq(system(cmd), 0);
    char env[1600];
    snprintf(env, sizeof env, "LEDGER_MODE=quick LEDGER_FILE=%s BANDS_FILE=%s", ledger, bands);
    int status;
    char *text = reproduce_with("oef", "oef_ledger", env, &status);
    cr_assert_eq(status, 1, "status %d: %s", status, text);
    cr_assert(strstr(text, "holds    higher, by 1.") != NULL, "%s", text);
    cr_assert(strstr(text, "FLIPPED  OEF lowers JCT at 24") != NULL, "%s", text);
    cr_assert(strstr(text, "FLIPPED at 24: no longer below 1") != NULL, "%s", text);
    cr_assert(strstr(text, "holds    no JCT difference at 24") != NULL, "%s", text);
    cr_assert(strstr(text, "FLIPPED  as the paper") != NULL, "%s", text);
    cr_assert(strstr(text, "FLIPPED at 6 24: no longer within 1.5 2") != NULL, "%s", text);
    cr_assert(strstr(text, "MISSING  rel: unknown relation \"better 1\"") != NULL, "%s", text);
    cr_assert(strstr(text, "MISSING  nobase: no report") != NULL, "%s", text);
    cr_assert(strstr(text, "claims: 4 of 6 rows") != NULL, "%s", text);
    cr_assert(strstr(text, "12: band [0.9, 1.5] is wider than [1, inf], its claim") != NULL,
              "%s", text);
    cr_assert(strstr(text, "some claims of the ledger flipped") != NULL, "%s", text);
}
