/*
 * row: one typed value of a database row — integer, real, text or NULL — the currency between
 * the worlds that produce rows (sim/core/world.h's writer) and the writer that stores them
 * (results/db.h), neither of which may include the other.
 */
#ifndef HETSIM_ROW_H
#define HETSIM_ROW_H

#include <stdint.h>

enum row_type { ROW_NULL, ROW_INT, ROW_REAL, ROW_TEXT };

struct row_value {
    int type;                   /* enum row_type */
    union {
        int64_t     i;
        double      r;
        const char *s;          /* borrowed: valid for the call that takes the row */
    } v;
};

static inline struct row_value row_null(void)
{
    return (struct row_value){ ROW_NULL, { .i = 0 } };
}
static inline struct row_value row_int(int64_t i)
{
    return (struct row_value){ ROW_INT, { .i = i } };
}
static inline struct row_value row_real(double r)
{
    return (struct row_value){ ROW_REAL, { .r = r } };
}
static inline struct row_value row_text(const char *s)
{
    return (struct row_value){ ROW_TEXT, { .s = s } };
}
/* A time or figure that may be missing: NULL when x < 0. */
static inline struct row_value row_opt(double x)
{
    return x < 0 ? row_null() : row_real(x);
}

#endif
