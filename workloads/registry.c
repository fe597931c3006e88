/*
 * registry: every workload format, in the order `hetsim list formats` prints them.  Adding a
 * format is one file with one `const struct workload_format` and one line here.
 */
#include "reader.h"

extern const struct workload_format trace_hetsim_format, trace_gavel_format,
    trace_philly_format, trace_pollux_format, synth_format, trace_openb_format,
    trace_azure_format, trace_requests_format, synth_llm_format, micro_poisson_format,
    micro_trace_format;

const struct workload_format *const workload_registry[] = {
    &trace_hetsim_format,
    &trace_gavel_format,
    &trace_philly_format,
    &trace_pollux_format,
    &synth_format,
    &trace_openb_format,
    &trace_azure_format,
    &trace_requests_format,
    &synth_llm_format,
    &micro_poisson_format,
    &micro_trace_format,
    NULL,
};
