/*
 * progress: formatting only (progress.h).  Every line fits in about 100 columns for the
 * usual magnitudes; nothing here reads a clock.
 */
#include "progress.h"

#include <math.h>
#include <stdio.h>

void progress_clock(char *out, size_t cap, double s)
{
    if (!(s >= 0) || s > 9.2e15) {
        snprintf(out, cap, "-");
        return;
    }
    long long v = (long long)(s + 0.5);
    if (v >= 3600)
        snprintf(out, cap, "%lld:%02lld:%02lld", v / 3600, v / 60 % 60, v % 60);
    else
        snprintf(out, cap, "%lld:%02lld", v / 60, v % 60);
}

void progress_span(char *out, size_t cap, double s)
{
    if (!(s >= 0))
        snprintf(out, cap, "-");
    else if (s < 60)
        snprintf(out, cap, "%.0f s", s);
    else if (s < 3600)
        snprintf(out, cap, "%.1f min", s / 60);
    else if (s < 86400)
        snprintf(out, cap, "%.2f h", s / 3600);
    else
        snprintf(out, cap, "%.2f d", s / 86400);
}

double progress_eta(double elapsed, double f)
{
    if (!(f > 0) || f > 1 || !(elapsed >= 0))
        return NAN;
    return elapsed * (1 - f) / f;
}

double progress_run_fraction(const struct progress_run *p)
{
    double f = p->total > 0 ? (double)p->done / (double)p->total : 0;
    if (p->until_s > 0 && p->sim_s / p->until_s > f)
        f = p->sim_s / p->until_s;
    return f > 1 ? 1 : f;
}

/* events per second with a unit prefix: "950 events/s", "1.21 M events/s" */
static void rate_text(char *out, size_t cap, double r)
{
    if (!(r >= 0))
        snprintf(out, cap, "- events/s");
    else if (r >= 1e6)
        snprintf(out, cap, "%.2f M events/s", r / 1e6);
    else if (r >= 1e4)
        snprintf(out, cap, "%.0f k events/s", r / 1e3);
    else
        snprintf(out, cap, "%.0f events/s", r);
}

void progress_run_line(char *out, size_t cap, const struct progress_run *p)
{
    char sim[32], until[40] = "", count[96], rate[32], el[32], eta[32];
    progress_span(sim, sizeof sim, p->sim_s);
    if (p->until_s > 0) {
        char u[32];
        progress_span(u, sizeof u, p->until_s);
        snprintf(until, sizeof until, " of %s", u);
    }
    if (p->total > 0)
        snprintf(count, sizeof count, "%s %lld/%lld (%.0f%%)", p->entity, (long long)p->done,
                 (long long)p->total, 100.0 * (double)p->done / (double)p->total);
    else
        snprintf(count, sizeof count, "%s %lld done", p->entity, (long long)p->done);
    rate_text(rate, sizeof rate, p->wall_s > 0 ? (double)p->events / p->wall_s : NAN);
    progress_clock(el, sizeof el, p->wall_s);
    progress_clock(eta, sizeof eta, progress_eta(p->wall_s, progress_run_fraction(p)));
    snprintf(out, cap, "%s  sim %s%s  %s  %s  %s elapsed  ETA %s", p->label, sim, until, count,
             rate, el, eta);
}

void progress_sweep_line(char *out, size_t cap, const struct progress_sweep *p)
{
    char el[32], eta[32], failed[48] = "";
    progress_clock(el, sizeof el, p->wall_s);
    progress_clock(eta, sizeof eta, p->done == p->total ? 0
                                                        : progress_eta(p->wall_s, p->work_frac));
    if (p->failed > 0)
        snprintf(failed, sizeof failed, ", %zu failed", p->failed);
    snprintf(out, cap, "%s%zu/%zu runs (%.0f%% of the work), %zu running%s, %s elapsed, ETA %s",
             p->prefix, p->done, p->total, 100 * p->work_frac, p->running, failed, el, eta);
}
