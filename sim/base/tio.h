/*
 * tio: line-oriented text input for traces and tables.
 *
 * A reader streams a file line by line with no length limit (getline), strips a UTF-8 BOM on
 * the first line and a trailing CR on every line, and counts lines so that errors can name
 * them.  The line buffer belongs to the reader and is overwritten by the next tio_next.
 * tio_split cuts a line in place into fields; a field may be double-quoted ("a,b" and "" for a
 * quote inside), as CSV writers produce.
 *
 * Ownership: tio_open allocates, tio_close frees; the caller's path string must outlive it.
 */
#ifndef HETSIM_TIO_H
#define HETSIM_TIO_H

#include <stddef.h>

#include "err.h"

typedef struct tio tio;

int  tio_open(tio **out, const char *path, struct errbuf *err);
void tio_close(tio *r);

/* Next line (without its newline) into *line; returns 1, 0 at end of file, -1 on read error. */
int  tio_next(tio *r, char **line, size_t *len, struct errbuf *err);

long        tio_lineno(const tio *r);
const char *tio_path(const tio *r);

/* Split `line` in place at `sep`, honouring double quotes.  Writes up to `max` field pointers
 * and returns the number of fields found (which may exceed max: the rest are not stored).
 * Returns -1 on an unterminated quote. */
int  tio_split(char *line, char sep, char **fields, int max);

/* 1 if the line is blank or a '#' comment. */
int  tio_skippable(const char *line);

/* Strict number parsing of a whole field (surrounding blanks allowed).  0 ok, -1 if the field
 * is empty, not a number, NaN, infinite, or out of range. */
int  tio_double(const char *s, double *out);
int  tio_int64(const char *s, long long *out);

/* Read a whole file into a NUL-terminated heap buffer (caller frees). */
int  tio_slurp(const char *path, char **buf, size_t *len, struct errbuf *err);

#endif
