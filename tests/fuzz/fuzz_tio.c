/*
 * fuzz_tio: sim/base/tio.h on arbitrary bytes.
 *
 * The input is split in place with tio_split at ',' and at '\t' (room for 4 and for 64 fields:
 * the count must not depend on the room, and every stored field must lie inside the line),
 * and every field is parsed with tio_double and tio_int64 (a parsed number must be finite; an
 * integer must also parse as a double) and tested with tio_skippable.  The same bytes are then
 * written to a file and read back line by line with tio_next, each line split the same way.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/base/tio.h"
#include "fuzzutil.h"

enum { ROOM = 64 };

static void split_and_parse(const char *line, size_t len)
{
    static const char seps[] = { ',', '\t' };
    for (int s = 0; s < 2; s++) {
        char *a = fz_cstr((const uint8_t *)line, len), *b = fz_cstr((const uint8_t *)line, len);
        char *fa[4], *fb[ROOM];
        int na = tio_split(a, seps[s], fa, 4), nb = tio_split(b, seps[s], fb, ROOM);
        if (na != nb || na == 0 || na < -1)
            fz_fail("tio_split: %d fields with room for 4, %d with room for %d", na, nb, ROOM);
        for (int i = 0; i < nb && i < ROOM; i++) {
            if (fb[i] < b || fb[i] > b + len || (i < 4 && fa[i] - a != fb[i] - b))
                fz_fail("tio_split: field %d outside the line", i);
            double v;
            long long k;
            int dv = tio_double(fb[i], &v), iv = tio_int64(fb[i], &k);
            if (dv == 0 && !isfinite(v))
                fz_fail("tio_double accepted a non-finite number");
            if (iv == 0 && dv != 0)
                fz_fail("tio_int64 accepted '%s' that tio_double rejects", fb[i]);
            (void)tio_skippable(fb[i]);
        }
        free(a);
        free(b);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the in-memory functions work on C strings: stop at the first NUL */
    const char *nul = memchr(data, 0, size);
    size_t len = nul != NULL ? (size_t)(nul - (const char *)data) : size;
    split_and_parse((const char *)data, len);
    char *s = fz_cstr(data, len);
    (void)tio_skippable(s);
    free(s);

    char path[4096];
    fz_write(path, sizeof path, "lines.txt", data, size);
    struct errbuf err;
    err_clear(&err);
    tio *r = NULL;
    if (tio_open(&r, path, &err) < 0)
        fz_fail("tio_open: %s", err.msg);
    char *line;
    size_t n;
    int rc;
    long lines = 0;
    while ((rc = tio_next(r, &line, &n, &err)) > 0) {
        lines++;
        if (strlen(line) != n || tio_lineno(r) != lines)
            fz_fail("tio_next: line %ld has length %zu, strlen %zu", lines, n, strlen(line));
        split_and_parse(line, n);
    }
    fz_check_err(rc, &err, "tio_next");
    tio_close(r);
    return 0;
}
