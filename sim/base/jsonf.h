/*
 * jsonf: a parsed JSON document that remembers where each value came from, and typed,
 * validating readers on top of it.
 *
 * cJSON keeps no positions, so at load time a second pass walks the text in step with the
 * parsed tree and records the line of every value (the key's line for object members).
 * Values replaced by a command-line override (jsonf_set) are reported as coming from
 * "--set PATH" instead of a line.  Every reader error names "FILE:LINE: FIELD.PATH: what".
 *
 * Ownership: jsonf_load/jsonf_parse allocate the document, jsonf_destroy frees it with every
 * cJSON node and string inside; pointers returned by the readers live as long as the document.
 */
#ifndef HETSIM_JSONF_H
#define HETSIM_JSONF_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>

#include "err.h"

typedef struct jsonf jsonf;

int  jsonf_load(jsonf **out, const char *path, struct errbuf *err);
int  jsonf_parse(jsonf **out, const char *name, const char *text, size_t len,
                 struct errbuf *err);
void jsonf_destroy(jsonf *d);

cJSON      *jsonf_root(const jsonf *d);
const char *jsonf_name(const jsonf *d);

/* Override "a.b.0.c" with `value` (parsed as JSON when it parses, else taken as a string).
 * Missing objects on the path are created; array indices must exist. */
int  jsonf_set(jsonf *d, const char *path, const char *value, struct errbuf *err);
/* The same, with errors about the new value reported as coming from `origin` (e.g. a sweep
 * file's "FILE:LINE") instead of "--set PATH". */
int  jsonf_set_from(jsonf *d, const char *path, const char *value, const char *origin,
                    struct errbuf *err);

/* Where a node came from: *file is the document name or "--set PATH", *line 0 if unknown. */
void jsonf_where(const jsonf *d, const cJSON *node, const char **file, long *line);

/* Report bad input at `node` (field named `path`); always returns -1. */
int  jsonf_error(const jsonf *d, const cJSON *node, const char *path, struct errbuf *err,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The closest of `choices` to `s` within edit distance 2 (or a prefix match), else NULL. */
const char *jsonf_suggest(const char *s, const char *const *choices);

#endif
