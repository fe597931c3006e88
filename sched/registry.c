/*
 * registry: every policy hetsim knows, by domain.  Adding a policy is one file under
 * sched/<domain>/, one extern line and one entry here, and one test.
 */
#include "policy.h"

extern const struct policy_ops policy_fifo;
extern const struct policy_ops policy_fifo_perf;
extern const struct policy_ops policy_srtf;
extern const struct policy_ops policy_oef;
extern const struct policy_ops policy_fft;
extern const struct policy_ops policy_tiresias;
extern const struct policy_ops policy_themis;
extern const struct policy_ops policy_gavel_las;
extern const struct policy_ops policy_gavel_las_perf;
extern const struct policy_ops policy_gavel_ftf;
extern const struct policy_ops policy_pollux_tiresias;
extern const struct policy_ops policy_optimus;
extern const struct policy_ops policy_pollux;
extern const struct policy_ops policy_exclusive;
extern const struct policy_ops policy_mps_even;
extern const struct policy_ops policy_gandiva;
extern const struct policy_ops policy_antman;
extern const struct policy_ops policy_iadeep;
extern const struct policy_ops policy_kernel_slice;
extern const struct policy_ops policy_srsf;
extern const struct policy_ops policy_afs;
extern const struct policy_ops policy_lyra;
extern const struct policy_ops policy_heet;
extern const struct policy_ops policy_sia;
extern const struct policy_ops policy_fgd;
extern const struct policy_ops policy_random;
extern const struct policy_ops policy_dotprod;
extern const struct policy_ops policy_bestfit;
extern const struct policy_ops policy_clustering;
extern const struct policy_ops policy_gpupacking;
extern const struct policy_ops policy_highend_only;
extern const struct policy_ops policy_uniform_pp;
extern const struct policy_ops policy_hexgen;
extern const struct policy_ops policy_splitwise;
extern const struct policy_ops policy_hetis;
extern const struct policy_ops policy_static_worst;
extern const struct policy_ops policy_erms;
extern const struct policy_ops policy_firm;
extern const struct policy_ops policy_derm;
extern const struct policy_ops policy_static;
extern const struct policy_ops policy_loan;
extern const struct policy_ops policy_hetero_loan;

const struct policy_ops *const policy_registry[] = {
    /* training */
    &policy_fifo,
    &policy_fifo_perf,
    &policy_srtf,
    &policy_oef,
    &policy_fft,
    &policy_tiresias,
    &policy_themis,
    &policy_gavel_las,
    &policy_gavel_las_perf,
    &policy_gavel_ftf,
    /* training, elastic (Pollux-compatible mode) */
    &policy_pollux_tiresias,
    &policy_optimus,
    &policy_pollux,
    /* multiplexing (training jobs sharing GPUs) */
    &policy_exclusive,
    &policy_mps_even,
    &policy_gandiva,
    &policy_antman,
    &policy_iadeep,
    &policy_kernel_slice,
    /* training, elastic jobs */
    &policy_srsf,
    &policy_afs,
    &policy_lyra,
    &policy_heet,
    &policy_sia,
    /* placement */
    &policy_fgd,
    &policy_random,
    &policy_dotprod,
    &policy_bestfit,
    &policy_clustering,
    &policy_gpupacking,
    /* serving */
    &policy_highend_only,
    &policy_uniform_pp,
    &policy_hexgen,
    &policy_splitwise,
    &policy_hetis,
    /* micro */
    &policy_static_worst,
    &policy_erms,
    &policy_firm,
    &policy_derm,
    /* colocate */
    &policy_static,
    &policy_loan,
    &policy_hetero_loan,
    NULL,
};
