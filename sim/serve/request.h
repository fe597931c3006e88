/*
 * request: one LLM inference request as a trace or generator describes it — the entity type
 * of the serving world, what workloads/ readers of the "serving" domain yield through a
 * struct entity_source (sim/core/entity.h).
 *
 * Ownership: the strings are the reader's, valid until its next call.
 */
#ifndef HETSIM_REQUEST_H
#define HETSIM_REQUEST_H

#include <stdint.h>

#include "../base/simtime.h"

struct request_spec {
    int64_t     id;             /* the trace's request id */
    simtime     arrival;
    int32_t     prompt;         /* prompt (prefill) tokens, >= 1 */
    int32_t     output;         /* output (decode) tokens, >= 1, the first one included */
    const char *cls;            /* its class (the trace's kind, a tenant); NULL: "default" */
    const char *origin;         /* file it came from, for error messages (may be NULL) */
    long        line;           /* its line there, 0 if none */
    const char *prompt_field;   /* the column its prompt came from, for error messages
                                   (NULL: "prompt_tokens") */
};

#endif
