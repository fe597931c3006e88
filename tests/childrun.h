/*
 * childrun: one run of a program in a child process, measured as the kernel counts it
 * (wait4): its CPU seconds (user + system) and peak resident memory, under an optional cap of
 * CPU time (RLIMIT_CPU) past which the run counts as capped rather than failed.  What the
 * benchmarks that start `hetsim run ...` exactly as a user does share.
 */
#ifndef HETSIM_CHILDRUN_H
#define HETSIM_CHILDRUN_H

struct childrun {
    double cpu_s, rss_mb;
    int    capped;              /* stopped at the CPU cap */
};

/* Run argv (NULL-terminated, argv[0] the program's path) with at most cap_s CPU seconds (0:
 * no cap).  0: measured (capped or exited 0); -1: it could not start or failed, said on
 * stderr after `who`. */
int childrun(char *const *argv, int cap_s, const char *who, struct childrun *out);

#endif
