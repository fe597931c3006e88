/*
 * fuzzutil: what the libFuzzer harnesses in tests/fuzz/ share — a private scratch directory
 * under /dev/shm (or /tmp) for inputs that the library reads by path, cutting an input into
 * parts at a separator byte, the shipped catalog and models (loaded once), and the
 * clean-error check.
 *
 * Ownership: fz_dir's directory and the files written into it live until the process exits
 * (removed by an atexit handler); fz_catalog / fz_models are loaded once and never freed.
 * Strings from fz_cstr are heap copies the caller frees.
 *
 * A harness input that the library rejects must be rejected with a status < 0 and a message
 * in the errbuf (fz_check_err); anything else — a sanitizer report, an abort, a leak, a
 * missing message — is a finding.
 */
#ifndef HETSIM_FUZZUTIL_H
#define HETSIM_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "../../models/catalog.h"
#include "../../models/tput.h"
#include "../../sim/base/err.h"

/* libFuzzer's entry points (declared here for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* This process's scratch directory, /dev/shm/hetsim-fuzz-XXXXXX (a tmpfs; /tmp/... where
 * there is none), created on first use. */
const char *fz_dir(void);

/* Write len bytes to fz_dir()/name and put the full path in out (cap bytes).  Aborts if the
 * file cannot be written: that is the harness's environment, not a finding. */
void fz_write(char *out, size_t cap, const char *name, const void *data, size_t len);

/* The part of *data before the first `sep` (its length in *n_out); *data and *len move past
 * the separator.  With no separator left, the whole rest is the part and *len becomes 0. */
const uint8_t *fz_cut(const uint8_t **data, size_t *len, uint8_t sep, size_t *n_out);

/* A NUL-terminated heap copy of n bytes (caller frees). */
char *fz_cstr(const uint8_t *p, size_t n);

/* A shipped data file (relative to the data root) as a full path in out. */
void fz_shipped(char *out, size_t cap, const char *rel);

/* The shipped catalog, and the shipped job types + profiles on it (loaded once). */
const catalog *fz_catalog(void);
const tput    *fz_models(void);

/* A cut of Pollux's shipped applications (models/data/pollux), written into the scratch
 * directory at the same relative path on the first call (so that an experiment naming the
 * shipped file reads the cut): only the applications named in apps (NULL-terminated; NULL:
 * all six), each with its placements 1, 2 and 11, its first 12 multi-node rows and every
 * validation file cut to 3 epochs (max_epochs at most 3).  Reading the whole profiles took
 * most of a run of the harnesses that load them.  Returns the cut applications.json. */
const char *fz_pollux_apps(const char *const *apps);

/* A failed call (rc < 0) must leave a message and an error class; a successful one none.
 * Aborts otherwise, naming `what`.  With FUZZ_VERBOSE set in the environment, every call's
 * outcome is printed to stderr (to see which paths a seed reaches). */
void fz_check_err(int rc, const struct errbuf *err, const char *what);

/* Abort with a message (a broken invariant the harness checks). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
