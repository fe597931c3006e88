/*
 * siaprof: Sia's per-cluster profiles (Sia's artifact, siasosp23/artifacts @aaf7a0d,
 * sia-simulator/traces/<application>/{placements,scalability}-<cluster>.csv) turned into job
 * types of the throughput model, so that the native training world and its elastic policies
 * (sia, heet, afs, srsf) run Pollux's applications on every GPU type Sia measured.
 *
 * Sia's files carry no licence: they are read from the folder the user names
 * (models.elastic_sia), never shipped.  What this module adds to a tput model, for every
 * application of Pollux's applications.json (models.elastic) and every batch size B it has a
 * validation file for, is a job type "<application> (batch size B)" of strong scaling (one
 * iteration = one optimizer step of global batch B) with, per GPU type Sia profiled and
 * worker count n, consolidated and spread rates computed by models/elastic.c as Pollux's and
 * Sia's simulators compute them: step and sync time of the placement (1-D interpolation in
 * the local batch over a measured placement, else the Delaunay interpolation), the batch
 * rules of a fixed global batch (local, accumulation, atomic batch), iteration time step +
 * (step - sync) x accumulation.  See siaprof_load for the units.
 *
 * Ownership: siaprof_load reads its files and keeps nothing; the tput model owns the types.
 */
#ifndef HETSIM_SIAPROF_H
#define HETSIM_SIAPROF_H

#include "catalog.h"
#include "tput.h"
#include "../sim/base/err.h"

/* Sia's clusters, their GPU type and GPUs per node (Sia's simulator_config.py). */
struct siaprof_cluster {
    const char *cluster, *gpu;
    int         per_node;
};
extern const struct siaprof_cluster siaprof_clusters[];
extern const int siaprof_nclusters;

enum { SIAPROF_MAX_WORKERS = 128 };   /* table entries per (type, GPU): 1..this many workers */

/* Add the job types above to `t`, with rates on those of the GPU types gpus[0..ngpus) (a
 * cluster's) that Sia profiled (at least one must be).  apps_json: Pollux's applications.json (its T4 folders are
 * Pollux's own measurements, identical to Sia's -aws files, which are therefore not read
 * again); sia_dir: Sia's traces folder.  `origin` names where the folder was given (the
 * experiment's field), for errors.
 *
 * Units.  Placements: n <= the Sia cluster's GPUs per node k is one node ("n") when
 * consolidated and two nodes (ceil(n/2), floor(n/2)) when spread; n > k is packed on
 * ceil(n/k) nodes (k, k, ..., rest) in both classes, since a Sia node holds no more.  A
 * fixed batch B on n GPUs runs B' = n x atomic x (accumulation + 1) >= B, which takes fewer
 * steps; the rate is S(B) / S(B') / iteration time, in steps of B per second, where S(b) =
 * sum over epochs e up to the completion epoch of (progress(e + 1) - progress(e)) / gain(b,
 * e) is the steps to completion at batch b (gain = (var + sqr) / (var / scale + sqr), scale =
 * b / initial batch, the statistics of epoch e at b); a job of the type has work S(B)
 * (jobtype.steps).  The rate is exact for a job that keeps its n from start to end; the
 * gradient statistics change by epoch, and the native world keeps one rate per grant, so a
 * job that changes n mid-way mixes the averages.  Where the profile cannot say (a placement
 * outside the measured hull, a local batch outside the measured range), the rate is 0: the
 * job cannot run there.  0, or -1 with err naming the file, line and field. */
int siaprof_load(tput *t, const catalog *cat, const int *gpus, int ngpus,
                 const char *apps_json, const char *sia_dir, const char *origin,
                 struct errbuf *err);

/* The name of the job type of `app` at global batch `batch` ("cifar10 (batch size 2048)");
 * out holds at least JT_NAME_MAX bytes.  0, or -1 when it does not fit. */
int siaprof_type_name(char *out, size_t cap, const char *app, long long batch);

#endif
