/*
 * registry: every policy hetsim knows, by domain.  Adding a policy is one file under
 * sched/<domain>/, one extern line and one entry here, and one test.
 */
#include "policy.h"

extern const struct policy_ops policy_fifo;
extern const struct policy_ops policy_srtf;

const struct policy_ops *const policy_registry[] = {
    /* training */
    &policy_fifo,
    &policy_srtf,
    NULL,
};
