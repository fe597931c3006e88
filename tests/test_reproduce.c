/*
 * test_reproduce: the scripts in scripts/reproduce run end to end, in their QUICK mode (every
 * run cut to its first 60 jobs, so a paper's whole sweep takes seconds): the sweep, the
 * figures, the report, and the claims table with a measured number on every line.
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

/* Run scripts/reproduce/NAME.sh quickly into a scratch directory; returns its stdout. */
static char *reproduce(const char *name, const char *const *figures, int nclaims)
{
    char out[600], cmd[2048], log[700];
    snprintf(out, sizeof out, "%s/%s", th_tmpdir(), name);
    snprintf(log, sizeof log, "%s/%s.log", th_tmpdir(), name);
    snprintf(cmd, sizeof cmd, "QUICK=1 JOBS=2 OUT=%s HETSIM=%s sh %s/scripts/reproduce/%s.sh "
             ">%s 2>/dev/null", out, HETSIM_BIN, getenv("HETSIM_DATA"), name, log);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
    for (int i = 0; figures[i] != NULL; i++) {
        char p[900];
        snprintf(p, sizeof p, "%s/%s", out, figures[i]);
        cr_assert_gt(file_size(p), 5000, "%s missing or empty", p);
    }
    char rep[700];
    snprintf(rep, sizeof rep, "%s/report.csv", out);
    cr_assert_gt(file_size(rep), 500);
    char *text = slurp(log);
    /* every claim line ends in a measured ratio "V (at AXIS=x..." */
    int lines = 0;
    for (const char *p = text; (p = strstr(p, " (at workload.")) != NULL; p++)
        lines++;
    cr_assert_eq(lines, nclaims, "%s", text);
    cr_assert(strstr(text, "(no ") == NULL, "%s", text);
    return text;
}

Test(reproduce, fft_script_runs_end_to_end, .timeout = 300)
{
    static const char *const figs[] = { "fft_load_jct_mean_vs_workload.arrival_scale.png",
                                        "fft_load_ftf_mean_vs_workload.arrival_scale.png",
                                        "fft_load_ftf_max_vs_workload.arrival_scale.png", NULL };
    char *text = reproduce("fft", figs, 6);
    cr_assert(strstr(text, "up to 5.2x lower average JCT than Gavel") != NULL, "%s", text);
}

Test(reproduce, oef_script_runs_end_to_end, .timeout = 300)
{
    static const char *const figs[] = { "oef_load_throughput_norm_vs_workload.rate_per_hour.png",
                                        "oef_load_jct_mean_vs_workload.rate_per_hour.png",
                                        "oef_load_ftf_mean_vs_workload.rate_per_hour.png", NULL };
    char *text = reproduce("oef", figs, 4);
    cr_assert(strstr(text, "up to 32% higher total throughput") != NULL, "%s", text);
}
