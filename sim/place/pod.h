/*
 * pod: the placement world's entity — one pod of a pod list, as the workload layer delivers it
 * (workloads/trace_openb.c reads Alibaba's openb lists): what it asks for and where it came
 * from.  Pods come from a struct entity_source (sim/core/entity.h) whose `out` is a pod_spec;
 * its arrival is its position in the list, in seconds (the first pod at 0), so that the
 * workload layer can skip and cut a pod list like any stream.
 *
 * Ownership: the strings belong to the reader and live until its next call; a world that keeps
 * a pod copies them.
 */
#ifndef HETSIM_POD_H
#define HETSIM_POD_H

#include <stdint.h>

#include "../base/simtime.h"

struct pod_spec {
    simtime     arrival;        /* its position in the list, seconds */
    int64_t     row;            /* its row in the list, from 0 (header and comments aside) */
    const char *name;           /* unique in the list */
    int64_t     cpu_milli;      /* CPU asked for, 1/1000 of a core, >= 0 */
    int64_t     mem_mib;        /* memory asked for, MiB, >= 0 */
    int32_t     num_gpu;        /* GPUs asked for, 0 for a CPU-only pod */
    int32_t     gpu_milli;      /* per GPU, 1/1000 of one: 1..1000 for one GPU (below 1000 it
                                   shares the GPU), 1000 for several, 0 for none */
    const char *gpu_spec;       /* the GPU models it may use, '|'-separated as in the list
                                   (empty parts dropped); "" for any */
    const char *origin;         /* the file, for error messages */
    long        line;           /* its line there */
};

#endif
