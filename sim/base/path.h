/*
 * path: where hetsim finds its data files.
 *
 * The data root holds models/data/ and workloads/ (experiments, clusters, traces).  It is
 * $HETSIM_DATA when set, else the directory compiled in as HETSIM_DATADIR (the source tree for
 * an in-tree build, PREFIX/share/hetsim once installed).
 *
 * A relative path named in an experiment is tried against the experiment file's directory
 * first, then the current directory, then the data root.  A bare name ("default",
 * "gavel_108") is looked up as a shipped file of the given kind.
 */
#ifndef HETSIM_PATH_H
#define HETSIM_PATH_H

#include <stddef.h>

enum { PATH_MAX_LEN = 4096 };

/* The metrics database every command uses unless given --db. */
#define HETSIM_DEFAULT_DB "results/out/hetsim.db"

const char *path_data_root(void);

/* Resolve `name` as described above into out (cap bytes).  `base_dir` may be NULL.
 * Returns 0 if an existing file was found, -1 otherwise (out then holds `name` as given). */
int path_resolve(char *out, size_t cap, const char *base_dir, const char *name);
/* The same for a folder: 0 if an existing folder was found, -1 otherwise. */
int path_resolve_dir(char *out, size_t cap, const char *base_dir, const char *name);

/* A shipped file by bare name: kind "experiments" -> workloads/experiments/NAME.json,
 * "clusters" -> workloads/clusters/NAME.json.  Same return convention. */
int path_named(char *out, size_t cap, const char *kind, const char *name);

/* The directory part of a path ("." when it has none). */
void path_dirname(char *out, size_t cap, const char *path);

/* mkdir -p of the directory that will hold `file`.  0 ok, -1 failed (errno set). */
int path_make_parent(const char *file);

#endif
