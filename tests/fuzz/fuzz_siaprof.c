/*
 * fuzz_siaprof: Sia's per-cluster profile reader (elastic_add_sia, any column order) and the
 * job types built on it (siaprof_load, models/siaprof.h) — one application's RTX 2080Ti
 * files in a Sia-layout folder.
 *
 * Input: SELECTOR FILE.  SELECTOR (one byte): even, FILE is placements-rtx.csv and
 * scalability-rtx.csv is a fixed valid one; odd, the other way round.  The folder holds only
 * cifar10/, so that the other applications are skipped as Sia skips unprofiled ones.  A load
 * that fails must say why (fz_check_err); one that succeeds must give every registered type
 * a finite rate >= 0 on 1 to 16 RTX 2080Ti in both placement classes, and steps > 0.
 *
 * The application's own (T4) profile is a cut of Pollux's cifar10 (fz_pollux_apps: a few
 * placements, three epochs; batches 128 and 256 only): Sia's files bring only the RTX
 * profile, and the rest of siaprof_load's work is per application, batch size and epoch, so
 * that the shipped applications (six of them, up to 100 epochs) made a run take a tenth of a
 * second.
 */
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>

#include "../../models/siaprof.h"
#include "fuzzutil.h"

static const char placements_ok[] =
    "local_bsz,step_time,sync_time,placement\n32,0.05,0.001,1\n64,0.07,0.001,1\n"
    "32,0.08,0.02,2\n64,0.1,0.02,2\n32,0.09,0.03,4\n64,0.12,0.03,4\n";
static const char scalability_ok[] =
    "local_bsz,step_time,sync_time,num_nodes,num_replicas\n32,0.05,0.001,1,1\n"
    "64,0.06,0.001,1,1\n32,0.2,0.1,2,2\n64,0.3,0.1,2,4\n32,0.4,0.2,3,6\n64,0.5,0.2,4,16\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int scal = data[0] & 1;
    char dir[4096], sub[4200], path[4096], apps[4096];
    snprintf(dir, sizeof dir, "%s/sia", fz_dir());
    mkdir(dir, 0755);
    snprintf(sub, sizeof sub, "%s/cifar10", dir);
    mkdir(sub, 0755);
    fz_write(path, sizeof path, "sia/cifar10/placements-rtx.csv",
             scal ? (const void *)placements_ok : data + 1,
             scal ? sizeof placements_ok - 1 : size - 1);
    fz_write(path, sizeof path, "sia/cifar10/scalability-rtx.csv",
             scal ? data + 1 : (const void *)scalability_ok,
             scal ? size - 1 : sizeof scalability_ok - 1);
    static const char *const cifar10[] = { "cifar10", NULL };
    snprintf(apps, sizeof apps, "%s", fz_pollux_apps(cifar10));
    static int two_batches;
    if (!two_batches) {         /* batches 128 and 256 only: each is 256 rates to build */
        static const char *const drop[] = { "512", "1024", "2048", "4096", NULL };
        for (int i = 0; drop[i] != NULL; i++) {
            char v[4200];
            snprintf(v, sizeof v, "%s/models/data/pollux/cifar10/validation-%s.csv", fz_dir(),
                     drop[i]);
            remove(v);
        }
        two_batches = 1;
    }

    struct errbuf err;
    err_clear(&err);
    tput *t = NULL;
    if (tput_create(&t, fz_catalog(), &err) < 0)
        fz_fail("tput_create: %s", err.msg);
    int rtx = catalog_gpu_find(fz_catalog(), "RTX2080Ti");
    int rc = siaprof_load(t, fz_catalog(), &rtx, 1, apps, dir, "fuzz", &err);
    fz_check_err(rc, &err, "siaprof_load");
    for (int jt = 0; rc == 0 && jt < tput_ntypes(t); jt++) {
        if (!(tput_type(t, jt)->steps > 0) || !isfinite(tput_type(t, jt)->steps))
            fz_fail("type %s: steps %g", tput_type(t, jt)->name, tput_type(t, jt)->steps);
        for (int n = 1; n <= 16; n++)
            for (int s = 0; s <= (n > 1); s++) {
                double r = tput_measured(t, jt, rtx, n, s);
                if (!isfinite(r) || r < 0)
                    fz_fail("type %s on %d RTX2080Ti (spread %d): rate %g",
                            tput_type(t, jt)->name, n, s, r);
            }
    }
    tput_destroy(t);
    return 0;
}
