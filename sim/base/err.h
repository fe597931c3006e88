/*
 * err: the error slot every library call fills instead of printing.
 *
 * Ownership: the caller owns the errbuf (usually on its stack) and passes a pointer down.
 * A function that fails returns a negative status and writes one message here; the first
 * message wins, so a low-level cause is not overwritten by a caller's generic wrapper.
 * `code` is the process exit status main should use: 2 for bad input or usage, 1 for a
 * run that failed for another reason (I/O, solver, database).
 */
#ifndef HETSIM_ERR_H
#define HETSIM_ERR_H

#include <stdarg.h>

enum { ERR_MSG_MAX = 1024 };

enum err_code {
    ERR_NONE  = 0,
    ERR_RUN   = 1,   /* I/O, database, solver: the input was fine */
    ERR_INPUT = 2    /* bad input or usage: the user must change something */
};

struct errbuf {
    int  code;                 /* enum err_code; 0 while no error was set */
    char msg[ERR_MSG_MAX];
};

void err_clear(struct errbuf *err);

/* Bad input at a known place: "FILE:LINE: FIELD: message".  line <= 0 omits the line,
 * a NULL or empty field omits the field.  Always returns -1 so callers can
 * `return err_input(...)`. */
int err_input(struct errbuf *err, const char *file, long line, const char *field,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A failure that is not the user's input (I/O, database, solver).  Returns -1. */
int err_run(struct errbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefix an existing message with context ("running policy fifo: ...").  Keeps the code. */
void err_prefix(struct errbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A note for the user on stderr (text ends in a newline), printed once per process: a
 * reader opened again for every run of an experiment says what it left out only the first
 * time.  Keeps the last 16 distinct notes; not for use from several threads. */
void err_note_once(const char *text);

#endif
