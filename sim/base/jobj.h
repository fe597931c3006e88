/*
 * jobj: typed, validating readers of the objects of a jsonf document.  Every error names
 * "FILE:LINE: FIELD.PATH: what" (jsonf_error), with a did-you-mean for unknown keys.
 *
 * Ownership: a jobj borrows its document; strings and nodes it returns live as long as the
 * document.
 */
#ifndef HETSIM_JOBJ_H
#define HETSIM_JOBJ_H

#include "jsonf.h"

/*
 * An object being read: the document, the node and its dotted path ("" for the root).
 * Readers take a key; flags say whether it is required.  A missing optional key leaves *out
 * at its default (set by the caller before the call).
 */
struct jobj {
    const jsonf *doc;
    const cJSON *node;
    char         path[192];
};

enum { JOPT = 0, JREQ = 1 };

int jobj_root(struct jobj *o, const jsonf *doc, struct errbuf *err);
/* Child object `key` (missing + JOPT: returns 0 with o->node == NULL). */
int jobj_obj(struct jobj *out, const struct jobj *parent, const char *key, int flags,
             struct errbuf *err);
/* Element i of array `arr` (a cJSON array inside parent) as an object. */
int jobj_elem(struct jobj *out, const struct jobj *parent, const char *key, const cJSON *elem,
              int index, struct errbuf *err);

int jobj_num(const struct jobj *o, const char *key, int flags, double lo, double hi,
             double *out, struct errbuf *err);
int jobj_int(const struct jobj *o, const char *key, int flags, int64_t lo, int64_t hi,
             int64_t *out, struct errbuf *err);
int jobj_str(const struct jobj *o, const char *key, int flags, const char **out,
             struct errbuf *err);
int jobj_bool(const struct jobj *o, const char *key, int flags, int *out, struct errbuf *err);
/* Array member `key`: *out is the cJSON array (NULL when missing and optional). */
int jobj_arr(const struct jobj *o, const char *key, int flags, const cJSON **out,
             struct errbuf *err);
/* A string that must be one of `choices` (NULL-terminated); *out gets its index. */
int jobj_enum(const struct jobj *o, const char *key, int flags, const char *const *choices,
              int *out, struct errbuf *err);

/* The dotted path of `rel` below o into buf (cap bytes), returned: "workload.day" and
 * "hourly[2]" give "workload.day.hourly[2]"; a tenant's "tenants.serving.workload.day" gives
 * "tenants.serving.workload.day.hourly[2]".  For the fields of errors that the readers above
 * do not report themselves, so that they name the object's place in the document. */
const char *jobj_field(const struct jobj *o, const char *rel, char *buf, size_t cap);
/* The same into a buffer of the enclosing block (a compound literal), for an argument:
 * jsonf_error(doc, node, JOBJ_FIELD(cfg, "trace"), err, ...). */
enum { JOBJ_FIELD_MAX = 256 };
#define JOBJ_FIELD(o, rel) jobj_field((o), (rel), (char[JOBJ_FIELD_MAX]){ 0 }, JOBJ_FIELD_MAX)

/* Fail on any member not in `known` (NULL-terminated) or given twice, with a did-you-mean. */
int jobj_known(const struct jobj *o, const char *const *known, struct errbuf *err);

/* Array member `key` of exactly two numbers in [lo, hi] ([start, end], [first, last]):
 * *given = 2 with out[] filled, or 0 when the key is absent (out[] untouched). */
int jobj_num_pair(const struct jobj *o, const char *key, double lo, double hi, double out[2],
                  int *given, struct errbuf *err);
int jobj_int_pair(const struct jobj *o, const char *key, int64_t lo, int64_t hi,
                  int64_t out[2], int *given, struct errbuf *err);

#endif
