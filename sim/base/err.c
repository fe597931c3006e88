/*
 * err: formatted error messages with an exit-code class.  The first error set wins.
 */
#include "err.h"

#include <stdio.h>
#include <string.h>

void err_clear(struct errbuf *err)
{
    err->code = ERR_NONE;
    err->msg[0] = '\0';
}

static int vset(struct errbuf *err, int code, const char *head, const char *fmt, va_list ap)
{
    if (err == NULL || err->code != ERR_NONE)
        return -1;
    size_t n = (size_t)snprintf(err->msg, sizeof err->msg, "%s", head);
    if (n < sizeof err->msg)
        vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
    err->code = code;
    return -1;
}

int err_input(struct errbuf *err, const char *file, long line, const char *field,
              const char *fmt, ...)
{
    char head[512];
    int n = 0;
    if (file != NULL && *file != '\0')
        n = line > 0 ? snprintf(head, sizeof head, "%s:%ld: ", file, line)
                     : snprintf(head, sizeof head, "%s: ", file);
    if (n < 0)
        n = 0;
    if (field != NULL && *field != '\0' && (size_t)n < sizeof head)
        snprintf(head + n, sizeof head - (size_t)n, "%s: ", field);
    else if ((size_t)n < sizeof head)
        head[n] = '\0';
    va_list ap;
    va_start(ap, fmt);
    int rc = vset(err, ERR_INPUT, head, fmt, ap);
    va_end(ap);
    return rc;
}

int err_run(struct errbuf *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vset(err, ERR_RUN, "", fmt, ap);
    va_end(ap);
    return rc;
}

void err_prefix(struct errbuf *err, const char *fmt, ...)
{
    if (err == NULL || err->code == ERR_NONE)
        return;
    char old[ERR_MSG_MAX];
    memcpy(old, err->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%s", old);
}

void err_note_once(const char *text)
{
    enum { KEPT = 16 };
    static unsigned long long seen[KEPT];
    static int nseen, next;
    unsigned long long h = 14695981039346656037ULL;     /* FNV-1a of the text */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    for (int i = 0; i < nseen; i++)
        if (seen[i] == h)
            return;
    seen[next] = h;
    next = (next + 1) % KEPT;
    if (nseen < KEPT)
        nseen++;
    fputs(text, stderr);
}
