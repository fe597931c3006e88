/*
 * test_inputs: bad input through the real command line.  Every row of the table below writes
 * a few files into the test's temporary directory, runs `hetsim` and checks three things:
 * the exit code (2 for bad input or usage, 1 for I/O), a message fragment that names
 * FILE:LINE: FIELD (or the --set / option the value came from), and that the database named
 * with --db holds no run afterwards (it may not exist).  A handful of rows are good input
 * that must be accepted (a UTF-8 BOM, CRLF line ends, an unsorted Philly list, tenant names,
 * a PCIe 4 GPU in a PCIe 3 server, Gavel's True/False and SLO factors): they expect exit 0
 * and one run.
 *
 * In `want`, "%d" stands for the temporary directory and '*' separates fragments that must
 * appear in this order.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../results/db.h"
#include "helpers.h"

struct file {
    const char *name, *text;
};

struct row {
    const char *name;
    struct file files[3];
    const char *args[16];
    int         status;
    const char *want;               /* stderr fragments ('*'-separated, in order) */
    int         runs;               /* runs in the --db database afterwards */
    const char *(*setup)(void);     /* extra files; returns a reason to skip, or NULL */
};

/* ---- building blocks of the inputs ---- */

#define BOM "\xEF\xBB\xBF"
#define R50 "ResNet-50 (batch size 64)"
#define R51 "ResNet-51 (batch size 64)"
#define DYM_R50 "(did you mean '" R50 "'?)"
#define BIG "99999999999999999999"      /* overflows int64 */

/* The experiment, one field per line: 2 name, 3 seed, 4 cluster, 5 workload, 6 policies,
 * 7 whatever `more` adds. */
#define EXPF(name, seed, cl, wl, pol, more)                                                  \
    "{\n \"name\": " name ",\n \"seed\": " seed ",\n \"cluster\": " cl ",\n \"workload\": " wl \
    ",\n \"policies\": " pol more "\n}\n"
#define N_ "\"t\""
#define S_ "1"
#define C_ "\"mixed_small\""
#define W_ "{ \"format\": \"hetsim\", \"trace\": \"ok.csv\" }"
#define P_ "[\"fifo\"]"
#define E_NAME(x) EXPF(x, S_, C_, W_, P_, "")
#define E_SEED(x) EXPF(N_, x, C_, W_, P_, "")
#define E_CL(x)   EXPF(N_, S_, x, W_, P_, "")
#define E_WL(x)   EXPF(N_, S_, C_, x, P_, "")
#define E_POL(x)  EXPF(N_, S_, C_, W_, x, "")
#define E_MORE(x) EXPF(N_, S_, C_, W_, P_, ",\n " x)
#define E_OK      EXPF(N_, S_, C_, W_, P_, "")
#define E_SIM(x)  E_MORE("\"sim\": { " x " }")
#define E_HWL(x)  E_WL("{ \"format\": \"hetsim\", \"trace\": \"ok.csv\", " x " }")
#define E_MODELS(x) E_MORE("\"models\": { " x " }")

/* hetsim CSV */
#define HDR "arrival_s,job_type,workers,iterations\n"
#define JOB(arr, workers, iters) arr "," R50 "," workers "," iters "\n"
#define OK_TRACE HDR JOB("0", "1", "1000") "10,ResNet-18 (batch size 64),2,2000\n" \
    "20,LM (batch size 20),1,500\n"
#define WL_T "{ \"format\": \"hetsim\", \"trace\": \"t.csv\" }"
/* Gavel, tab-separated: 7 fields (old) and 10 fields (current) */
#define G7(steps, arr, sf) R50 "\tcmd\t-step\t1\t" steps "\t" arr "\t" sf "\n"
#define G10(steps, sf, weight, arr) R50 "\tcmd\tdir\t-step\t1\t" steps "\t" sf "\t" weight \
    "\t-1\t" arr "\n"
#define WL_G "{ \"format\": \"gavel\", \"trace\": \"g.trace\" }"
/* Philly job list */
#define PHDR "timestamp,duration,num_gpus,gpu_time,cluster\n"
#define PHDR_TRAILING "timestamp,duration,num_gpus,gpu_time,cluster,\n"
#define TS "2017-10-03 12:00:00"
#define PJ(ts, dur, gpus, gpu_time) ts "," dur "," gpus "," gpu_time ",vc1\n"
#define MIX "\"job_types\": { \"" R50 "\": 1 }"
#define WL_P "{ \"format\": \"philly\", \"trace\": \"ph.csv\", " MIX " }"
/* synthetic */
#define SYN(fields) E_WL("{ \"format\": \"synthetic\", " fields " }")
#define JOBS "\"jobs\": 3, \"rate_per_hour\": 60"
#define DUR "\"duration\": { \"dist\": \"exponential\", \"mean_s\": 600 }"
/* a cluster file: 2 name, 3 network, 4 "groups", 5 the group */
#define CLUSTER(net, group) "{\n \"name\": \"c\",\n" net " \"groups\": [\n  " group "\n ]\n}\n"
#define NET(n) " \"network\": \"" n "\",\n"
#define IB NET("ib-100g")
#define GRP(count, gpu, per, more) "{ \"count\": " count ", \"gpu\": \"" gpu "\"" \
    ", \"gpus_per_node\": " per more " }"
#define INLINE(net, group) E_CL("{ " net "\"groups\": [" group "] }")
#define INET "\"network\": \"ib-100g\", "
/* catalogs: one entry per line from line 2 */
#define GPU(name, mem, more) "{ \"name\": \"" name "\", \"mem_gb\": " mem \
    ", \"fp32_tflops\": 10, \"fp16_tflops\": 20, \"mem_bw_gbs\": 900, \"price_hr\": 1" more " }"
#define GPUS(a, b) "{ \"gpus\": [\n  " a ",\n  " b "\n] }\n"
#define PCIE ", \"pcie\": \"pcie3\""
#define GOOD_GPU GPU("Y", "16", PCIE)
#define LINK(name, scope, bw) "{ \"name\": \"" name "\", \"scope\": \"" scope "\", \"bw_gbs\": " \
    bw ", \"lat_us\": 1 }"
#define LINKS(a, b) "{ \"links\": [\n  " a ",\n  " b "\n] }\n"
#define JT(name, batch, more) "{ \"name\": \"" name "\", \"batch\": " batch ", \"scaling\": " \
    "\"weak\", \"precision\": \"fp32\", \"params_m\": 10, \"gflops_per_sample\": 1, " \
    "\"mem_gb\": 2" more " }"
#define JTS(a) "{ \"job_types\": [\n  " a "\n] }\n"
#define PRHDR "job_type,gpu,workers,placement,iters_per_s\n"
#define PR(gpu, workers, rate) PRHDR "\"" R50 "\"," gpu "," workers ",consolidated," rate "\n"

/* a hetsim trace with a user column */
#define UHDR "arrival_s,job_type,workers,iterations,user\n"
#define UJOB(arr, user) arr "," R50 ",1,100," user "\n"
/* a cluster group of 2 x 4 GPUs with an intra-node link and a name */
#define GRPL(gpu, intra) GRP("2", gpu, "4", ", \"intra\": \"" intra "\"")
#define GRPN(gpu, name) GRP("1", gpu, "4", ", \"name\": \"" name "\"")
/* a GPU catalog with sources, the GPU on line 3 */
#define SGPUS(src, gpu) "{ \"sources\": { " src " },\n \"gpus\": [\n  " gpu "\n] }\n"

/* ---- the microservice world ---- */
/* an experiment: 2 name, 3 domain, 4 cluster (inline), 5 app, 6 sla_ms, 7 workload,
 * 8 policies, 9 what `more` adds */
#define MEXPF(app, sla, wl, pol, more)                                                       \
    "{\n \"name\": \"m\",\n \"domain\": \"micro\",\n \"cluster\": { \"name\": \"m\", "        \
    "\"groups\": [ { \"count\": 2, \"cpus\": 8, \"memory_gb\": 16 } ] },\n \"app\": " app      \
    ",\n \"sla_ms\": " sla ",\n \"workload\": " wl ",\n \"policies\": " pol more "\n}\n"
#define MWL "{ \"format\": \"micro_poisson\", \"duration_s\": 120, \"rate_per_s\": 10 }"
#define MWLX(x) "{ \"format\": \"micro_poisson\", \"duration_s\": 120, \"rate_per_s\": 10, " x " }"
#define MEXP(more) MEXPF("\"a.json\"", "50", MWL, "[\"derm\"]", more)
#define MEXP_WL(wl) MEXPF("\"a.json\"", "50", wl, "[\"derm\"]", "")
#define MEXP_POL(pol) MEXPF("\"a.json\"", "50", MWL, pol, "")
/* an application: services one per line from line 3, the graphs from line 7 */
#define MSVC(name, a, b, maxl) "  { \"name\": \"" name "\", \"latency\": { \"model\": \"derm\", " \
    "\"a\": " a ", \"b\": " b ", \"shift_ms\": 1, \"max_load\": " maxl " } }"
#define MAPP(s1, s2, graph) "{\n \"services\": [\n" s1 ",\n" s2 "\n ],\n \"graphs\": [\n  " graph \
    "\n ]\n}\n"
#define MA MSVC("a", "-0.01", "2", "100")
#define MB MSVC("b", "-0.01", "2", "100")
#define MCALLS(c) "{ \"name\": \"g\", \"calls\": [ " c " ] }"
#define MROOT "{ \"id\": \"r\", \"service\": \"a\" }"
#define MG MCALLS(MROOT ", { \"id\": \"x\", \"service\": \"b\", \"parent\": \"r\" }")
#define MOK MAPP(MA, MB, MG)
#define MICRO(app) { { "e.json", MEXP("") }, { "a.json", app } }
/* an Alibaba trace behind the app */
#define ALI(text) { { "e.json", MEXPF("{ \"alibaba\": \"ali.csv\" }", "5000", MWL, "[\"derm\"]", \
                                      "") }, { "ali.csv", text } }
#define AHDR ",traceid,timestamp,rpcid,um,rpctype,dm,interface,rt\n"
/* a micro trace */
#define MTRACE(text) { { "e.json", MEXP_WL("{ \"format\": \"micro_trace\", \"trace\": \"r.csv\" }") }, \
                       { "a.json", MOK }, { "r.csv", text } }

/* the files of a row: the experiment alone, or with the one file it points to */
#define EXP(text)     { { "e.json", text } }
#define TRACE(text)   { { "e.json", E_WL(WL_T) }, { "t.csv", text } }
#define GAVEL(text)   { { "e.json", E_WL(WL_G) }, { "g.trace", text } }
#define PHILLY(text)  { { "e.json", E_WL(WL_P) }, { "ph.csv", text } }
#define CFILE(text)   { { "e.json", E_CL("\"c.json\"") }, { "c.json", text } }
#define GFILE(text)   { { "e.json", E_MODELS("\"gpus\": \"g.json\"") }, { "g.json", text } }
#define LFILE(text)   { { "e.json", E_MODELS("\"links\": \"l.json\"") }, { "l.json", text } }
#define PROF(text)    { { "e.json", E_MODELS("\"profiles\": [\"prof.csv\"]") }, \
                        { "prof.csv", text } }
#define PROFJ(text)   { { "e.json", E_MODELS("\"profiles\": [\"prof.json\"]") }, \
                        { "prof.json", text } }
#define HEETHDR "gpu_type,model,batch_size,workers,epoch_time_s,batch_time_s\n"
/* Vidur's mlp.csv: every kernel's median, then n_head,n_kv_head,n_embd (ARCH), the expanded
 * size, gated, 64 tokens and the TP degree */
#define MLPHDR                                                                               \
    "time_stats.attn_pre_proj.median,time_stats.attn_post_proj.median,"                      \
    "time_stats.mlp_up_proj.median,time_stats.mlp_down_proj.median,"                         \
    "time_stats.input_layernorm.median,time_stats.post_attention_layernorm.median,"          \
    "time_stats.attn_rope.median,time_stats.mlp_act.median,time_stats.add.median,"           \
    "n_head,n_kv_head,n_embd,n_expanded_embd,use_gated_mlp,num_tokens,"                      \
    "num_tensor_parallel_workers\n"
#define MLPROW(arch, tp) "0.1,0.1,0.1,0.1,0.01,0.01,0.01,0.01,0.01," arch ",11008,true,64," tp "\n"
#define PTSHDR "source,gpu,model,tp,batch,prompt_tokens,output_tokens,ttft_ms,tpot_ms\n"
#define HJT "\"VGG-19 CIFAR-10 (batch size 64)\""
/* a file of fits, one fit on line 2: job types, GPU, overlap, then what follows */
#define FITS(fit) "{ \"fits\": [\n " fit " }\n] }\n"
#define FIT(jts, gpu, overlap) "{ \"job_types\": [" jts "], \"gpu\": " gpu ", \"link\": " \
    "\"pcie3\", \"sample_s\": 0.001, \"step_s\": 0.01, \"sync_s\": 0.1, \"worker_s\": 0, " \
    "\"overlap\": " overlap
#define JTFILE(text)  { { "e.json", E_MODELS("\"job_types\": \"jt.json\"") }, { "jt.json", text } }

/* where a message must point: "<tmp>/FILE:LINE: " */
#define AT(f, n) "%d/" f ":" #n ": "
#define RUN "run", "%d/e.json", "--db", "%d/t.db", "-q"


/* ---- colocate: an experiment, one field per line: 2 name, 3 domain, 4 cluster (group a100:
 * one A100-80GB; v100: one V100), 5 serving_groups, 6 broker, 7 "tenants", 8 its serving,
 * 9 its training, 11 policies ---- */
#define CEXPF(groups, broker, serving, training, pol)                                        \
    "{\n \"name\": \"c\",\n \"domain\": \"colocate\",\n \"cluster\": { \"network\": "        \
    "\"ib-100g\", \"groups\": [ { \"name\": \"a100\", \"count\": 1, \"gpu\": \"A100-80GB\", " \
    "\"gpus_per_node\": 1 }, { \"name\": \"v100\", \"count\": 1, \"gpu\": \"V100\", "          \
    "\"gpus_per_node\": 1 } ] },\n \"serving_groups\": " groups ",\n \"broker\": " broker       \
    ",\n \"tenants\": {\n  \"serving\": " serving ",\n  \"training\": " training "\n },\n"     \
    " \"policies\": " pol "\n}\n"
#define C_GROUPS "[\"a100\"]"
#define C_BROKER "{ \"period_s\": 60 }"
#define C_SERVING_P(pol) "{ \"model\": \"llama-2-7b\", \"workload\": { \"format\": "             \
    "\"llm_synthetic\", \"requests\": 5, \"rate_per_s\": 1 }, \"policies\": " pol ", \"sim\": "  \
    "{ \"overlong\": \"truncate\" } }"
#define C_SERVING C_SERVING_P("[\"highend_only\"]")
#define C_TRAINING_P(pol) "{ \"workload\": { \"format\": \"synthetic\", \"jobs\": 3, "           \
    "\"rate_per_hour\": 10, \"reference_gpu\": \"V100\", \"workers\": { \"1\": 1 }, "           \
    "\"duration\": { \"dist\": \"lognormal\", \"median_s\": 600, \"sigma\": 1 }, "              \
    "\"job_types\": { \"" R50 "\": 1 } }, \"policies\": " pol " }"
#define C_TRAINING C_TRAINING_P("[\"fifo\"]")
#define C_OK CEXPF(C_GROUPS, C_BROKER, C_SERVING, C_TRAINING, "[\"static\", \"loan\"]")
#define C_POL(pol) CEXPF(C_GROUPS, C_BROKER, C_SERVING, C_TRAINING, pol)

/* ---- serving: an experiment, one field per line: 2 name, 3 domain, 4 cluster (one
 * A100-80GB), 5 model, 6 workload, 7 policies, 8 what `more` adds ---- */
#define SEXPF(model, wl, pol, more)                                                          \
    "{\n \"name\": \"s\",\n \"domain\": \"serving\",\n \"cluster\": { \"network\": "          \
    "\"ib-100g\", \"groups\": [ { \"count\": 1, \"gpu\": \"A100-80GB\", \"gpus_per_node\": 1 } ] }" \
    ",\n \"model\": " model ",\n \"workload\": " wl ",\n \"policies\": " pol more "\n}\n"
#define S_MODEL "\"llama-2-7b\""
#define S_AZ "{ \"format\": \"azure_llm\", \"trace\": \"a.csv\" }"
#define S_POL "[\"highend_only\"]"
#define S_OK SEXPF(S_MODEL, S_AZ, S_POL, "")
#define S_MORE(x) SEXPF(S_MODEL, S_AZ, S_POL, ",\n " x)
#define S_WL(x) SEXPF(S_MODEL, x, S_POL, "")
#define AZHDR "TIMESTAMP,ContextTokens,GeneratedTokens\n"
#define AZ(ts, p, o) "2023-11-16 " ts "," p "," o "\n"
#define AZ_OK AZHDR AZ("18:17:03.9799600", "100", "10") AZ("18:17:04.0319600", "300", "8")
#define AZFILE(exp, text) { { "e.json", exp }, { "a.csv", text } }
#define RQFILE(text) { { "e.json", S_WL("{ \"format\": \"requests\", \"trace\": \"r.csv\" }") }, \
                       { "r.csv", text } }
#define SYNL(fields) AZFILE(S_WL("{ \"format\": \"llm_synthetic\", " fields " }"), AZ_OK)
/* the latency model's factors f.json, one part per line: 2 default, 3 gpus, 4 system,
 * 5 engines; the experiment (line 8) names it and may choose an engine */
#define FIT_DEF(more) "{ \"eta_compute\": 0.7, \"eta_mem\": 0.7, \"p\": 2, \"kernel_us\": 1, " \
    "\"eta_elem\": { \"norm\": 0.5, \"rope\": 0.5, \"act\": 0.5, \"add\": 0.5 }, " \
    "\"elem_us\": 1" more " }"
#define FIT_SYS(more) "{ \"eta_attn\": 0.6, \"eta_link\": 0.9, \"lat_factor\": 1, " \
    "\"coll_us\": 10" more " }"
#define FIT_ENG(name, more) "\"" name "\": { \"iter_ms\": 1, \"seq_ms\": 0.1, " \
    "\"first_ms\": 5, \"source\": \"s\"" more " }"
#define FIT_ENG_OK(name) FIT_ENG(name, ", \"licence\": \"l\"")
#define FITJ(def, gpus, sys, eng) "{\n \"default\": " def ",\n \"gpus\": { " gpus " },\n" \
    " \"system\": " sys ",\n \"engines\": { " eng " }\n}\n"
#define FITJ_OK(eng) FITJ(FIT_DEF(""), "", FIT_SYS(""), eng)
#define FITFILE(sim, fit) { { "e.json", S_MORE("\"models\": { \"llm_fit\": \"f.json\" }" sim) }, \
                            { "a.csv", AZ_OK }, { "f.json", fit } }
#define FIT_ENGINE(name) ", \"sim\": { \"engine\": \"" name "\" }"
/* multiplexing: an experiment with a "multiplex" section on line 7 and its table i.csv */
#define MUX(src) E_MORE("\"multiplex\": { \"interference\": [ " src " ] }")
#define MUXG "{ \"format\": \"gavel\", \"path\": \"i.csv\" }"
#define MUXI "{ \"format\": \"iadeep\", \"gpu\": \"RTX3090\", \"path\": \"i.csv\" }"
#define GPHDR "worker_type,job_a,job_b,norm_speed_a,norm_speed_b\n"
#define GPAIR "v100," R50 ",LM (batch size 20),0.5,0.8\n"
#define IAHDR "vgg16,squeezenet,vgg16_num,squeezenet_num,sum_interference\n"
#define MUXFILES(e, t) { { "e.json", e }, { "i.csv", t } }
/* Lucid's pairs: invented model names mapped to job types (never rows of Lucid's file) */
#define MUXL "{ \"format\": \"lucid\", \"gpu\": \"RTX3090\", \"path\": \"i.csv\", " \
             "\"models\": { \"Alpha\": \"vgg16\", \"Beta\": \"lstm\" } }"
#define LHDR ",model1,speed1,model2,speed2,batchsize1,batchsize2,amp1,amp2,gpu_num1,gpu_num2\n"
#define LROW "0,Alpha,0.8,Beta,0.9,128,64,0,0,1,1\n"

/* ---- setups: files that do not fit in a string literal, and database states ---- */

static void write_bytes(const char *name, const char *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", th_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* head + n copies of `unit` + tail */
static void write_repeated(const char *name, const char *head, const char *unit, size_t n,
                           const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail), len = hl + n * ul + tl;
    char *b = malloc(len + 1);
    cr_assert_not_null(b);
    memcpy(b, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(b + hl + i * ul, unit, ul);
    memcpy(b + hl + n * ul, tail, tl);
    write_bytes(name, b, len);
    free(b);
}

static const char *long_field_hetsim(void)
{
    write_repeated("t.csv", HDR "0,", "A", 150000, ",1,100\n");
    return NULL;
}

static const char *many_fields_hetsim(void)
{
    write_repeated("t.csv", HDR "0", ",1", 100000, "\n");
    return NULL;
}

static const char *many_fields_gavel(void)
{
    write_repeated("g.trace", G7("100", "0", "1") R50, "\tx", 100000, "\n");
    return NULL;
}

static const char *long_vc_philly(void)
{
    write_repeated("ph.csv", PHDR TS ",3600,1,3600,", "v", 150000, "\n");
    return NULL;
}

/* a day's rate series of 1,441 rows, one more than its reader takes */
static const char *many_rows_dayrate(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/d.csv", th_tmpdir());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs("hour,rate\n", f);
    for (int i = 0; i < 1441; i++)
        fprintf(f, "%.9f,1\n", 24.0 * i / 1441);
    fclose(f);
    return NULL;
}

static const char nul_hetsim_text[] = HDR JOB("0", "1", "100") "5,Res\0Net,1,100\n";
static const char nul_gavel_text[] = G7("100", "0", "1") R50 "\tc\0md\t-step\t1\t100\t5\t1\n";
static const char nul_philly_text[] = PHDR PJ(TS, "60", "1", "60") TS ",6\0" "0,1,60,vc1\n";
static const char nul_json_text[] = "{\n \"name\": \"t\0\"\n}\n";

static const char *nul_hetsim(void)
{
    write_bytes("t.csv", nul_hetsim_text, sizeof nul_hetsim_text - 1);
    return NULL;
}

static const char *nul_gavel(void)
{
    write_bytes("g.trace", nul_gavel_text, sizeof nul_gavel_text - 1);
    return NULL;
}

static const char *nul_philly(void)
{
    write_bytes("ph.csv", nul_philly_text, sizeof nul_philly_text - 1);
    return NULL;
}

static const char *nul_json(void)
{
    write_bytes("e.json", nul_json_text, sizeof nul_json_text - 1);
    return NULL;
}

/* an application folder toy/ beside a.json whose points all lie on the plane nodes =
 * replicas, so that no 3-D triangulation exists */
static const char *toy_coplanar(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/toy", th_tmpdir());
    mkdir(dir, 0755);
    free(th_write("toy/placements.csv", "placement,local_bsz,step_time,sync_time\n"
                                        "1,32,0.1,0.01\n1,64,0.2,0.02\n"));
    free(th_write("toy/scalability.csv", "num_nodes,num_replicas,local_bsz,step_time,sync_time\n"
                                         "2,2,32,0.2,0.1\n3,3,32,0.2,0.1\n4,4,64,0.3,0.1\n"));
    free(th_write("toy/validation-64.csv", "progress,iteration,metric,grad_sqr,grad_var\n"
                                           "10,10,0.5,1,2\n20,20,0.6,1,2\n"));
    return NULL;
}

/* Sia's per-cluster profiles (models.elastic_sia): a folder sia/cifar10/ with an RTX 2080Ti
 * profile whose third line has a bad step time, or whose header lacks sync_time */
static const char *sia_folder(const char *placements)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/sia", th_tmpdir());
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/sia/cifar10", th_tmpdir());
    mkdir(dir, 0755);
    free(th_write("sia/cifar10/placements-rtx.csv", placements));
    free(th_write("sia/cifar10/scalability-rtx.csv",
                  "local_bsz,step_time,sync_time,num_nodes,num_replicas\n"
                  "32,0.05,0.001,1,1\n64,0.06,0.001,1,1\n32,0.2,0.1,2,2\n"
                  "64,0.3,0.1,2,4\n32,0.4,0.2,3,6\n"));
    return NULL;
}
static const char *sia_bad_step(void)
{
    return sia_folder("local_bsz,step_time,sync_time,placement\n32,0.05,0.001,1\n"
                      "64,x,0.001,1\n");
}
static const char *sia_no_sync(void)
{
    return sia_folder("local_bsz,step_time,placement\n32,0.05,1\n");
}
/* sia/ as a link to the shared Sia profiles; skipped when they are absent */
static const char *sia_real(void)
{
    char from[1024], to[512];
    snprintf(from, sizeof from, "%s/pollux_sia/sia_sosp23/traces", th_shared_dir("traces"));
    snprintf(to, sizeof to, "%s/sia", th_tmpdir());
    struct stat st;
    if (stat(from, &st) != 0)
        return "no Sia profiles under ../shared/traces";
    if (lstat(to, &st) == 0 && !S_ISLNK(st.st_mode))
        return "sia/ is a folder of another row";
    remove(to);
    return symlink(from, to) == 0 ? NULL : "cannot link sia/";
}

static char *tmp_path(const char *name)
{
    char *p = malloc(512);
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    return p;
}

/* a valid hetsim database with no run: t.db */
static const char *empty_db(void)
{
    char *p = tmp_path("t.db");
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, p, &err), 0, "%s", err.msg);
    db_close(d);
    free(p);
    return NULL;
}

/* a database whose write-ahead log cannot be created (works for root too) */
static const char *wal_blocked_db(void)
{
    empty_db();
    char *p = tmp_path("t.db-wal");
    cr_assert_eq(mkdir(p, 0755), 0);
    free(p);
    return NULL;
}

static const char *garbage_db(void)
{
    write_repeated("t.db", "", "this is not a database\n", 200, "");
    return NULL;
}

/* placement: an experiment one field per line (2 name, 3 domain, 4 seed, 5 cluster, 6 nodes,
 * 7 workload, 8 policies, 9 whatever `more` adds), a node list and a pod list */
#define PEXPF(cl, nodes, wl, pol, more)                                                      \
    "{\n \"name\": \"p\",\n \"domain\": \"placement\",\n \"seed\": 1,\n \"cluster\": " cl      \
    ",\n \"nodes\": " nodes ",\n \"workload\": " wl ",\n \"policies\": " pol more "\n}\n"
#define PCL_ "\"node_list\""
#define PN_ "\"n.csv\""
#define PW_ "{ \"format\": \"openb\", \"trace\": \"p.csv\" }"
#define PP_ "[\"fgd\", \"random\"]"
#define PEXP_OK PEXPF(PCL_, PN_, PW_, PP_, "")
#define PEXP_MORE(x) PEXPF(PCL_, PN_, PW_, PP_, ",\n " x)
#define NODES_HDR "sn,cpu_milli,memory_mib,gpu,model\n"
#define NODES_OK NODES_HDR "a,32000,65536,8,T4\nb,16000,32768,2,V100M16\n"
#define PODS_HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
#define PODS_OK PODS_HDR "p0,4000,1024,1,500,\np1,2000,1024,0,0,\np2,8000,4096,2,1000,T4\n"
/* the files of a placement row: the experiment, the node list, the pod list */
#define PLACE(e, n, p) { { "e.json", e }, { "n.csv", n }, { "p.csv", p } }
/* a Python policy p.py (its text) run by the training experiment */
#define PYF(text) { { "e.json", E_POL("[\"py:p.py\"]") }, { "p.py", text } }

/* Pollux mode: an experiment one field per line (2 name, 3 mode, 4 cluster, 5 workload,
 * 6 policies, 7 whatever `more` adds) and a Pollux workload w.csv (header on line 1) */
#define XEXPF(cl, pol, more)                                                                 \
    "{\n \"name\": \"x\",\n \"mode\": \"pollux\",\n \"cluster\": " cl                  \
    ",\n \"workload\": { \"format\": \"pollux\", \"trace\": \"w.csv\" },\n \"policies\": " \
    pol more "\n}\n"
#define XCL_ "\"pollux_t4_64\""
#define XP_ "[\"pollux_tiresias\", \"optimus\"]"
#define XEXP_OK XEXPF(XCL_, XP_, "")
#define XEXP_MORE(x) XEXPF(XCL_, XP_, ",\n " x)
#define XHDR "name,time,application,num_replicas,batch_size\n"
#define XJ(name, t, app, r, b) name "," t "," app "," r "," b "\n"
#define XOK XHDR XJ("a", "0", "cifar10", "1", "128") XJ("b", "10", "ncf", "1", "32768")
#define POLLUX(w)      { { "e.json", XEXP_OK }, { "w.csv", w } }
#define POLLUX_E(e)    { { "e.json", e }, { "w.csv", XOK } }
#define WL_X "{ \"format\": \"pollux\", \"trace\": \"w.csv\" }"

/* a native experiment with Sia's profiles, one field per line: 2 name, 3 cluster, 4
 * workload, 5 policies, 6 models */
#define SIA_EXPF(cl, dir)                                                                    \
    "{\n \"name\": \"x\",\n \"cluster\": " cl ",\n \"workload\": " WL_X                       \
    ",\n \"policies\": [\"sia\"],\n \"models\": { \"elastic_sia\": " dir " }\n}\n"
#define SCL_RTX "{ \"network\": \"ethernet-25g\", \"groups\": [{ \"count\": 1, \"gpu\": " \
                "\"RTX2080Ti\", \"gpus_per_node\": 8 }] }"
#define SIA_EXP_OK SIA_EXPF(SCL_RTX, "\"sia\"")
#define SIA_WOK XHDR XJ("a", "0", "cifar10", "2", "2048") XJ("b", "30", "cifar10", "1", "4096")
#define SIA_E(e) { { "e.json", e }, { "w.csv", SIA_WOK } }

/* a placement policy in Python beside the three files of a placement row */
static const char *py_place_file(void)
{
    static const char text[] = "DOMAIN = 'placement'\ndef place(view, pod):\n"
                               "    return (0, [9] * pod.num_gpu)\n";
    write_bytes("pol.py", text, sizeof text - 1);
    return NULL;
}

/* a serving policy in Python: high-end replicas, and `route` (line 5) as given */
#define PY_SERVE(route) "import hetsim\nDOMAIN = 'serving'\ndef deploy(env):\n" \
    "    return env.replicas([env.high_type()])\ndef route(view, req):\n    " route "\n"

/* ---- the table ---- */

/* Rows list name, files, arguments, exit code and message, and leave the rest zero (no run
 * expected, no setup) unless they say otherwise. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct row rows[] = {
    /* -------- experiment JSON: types of the top-level fields -------- */
    { "name_not_string", EXP(E_NAME("5")),
      { RUN }, 2, AT("e.json", 2) "name: must be a string" },
    { "seed_string", EXP(E_SEED("\"1\"")),
      { RUN }, 2, AT("e.json", 3) "seed: must be an integer" },
    { "cluster_number", EXP(E_CL("5")),
      { RUN }, 2, AT("e.json", 4) "cluster: must be an object" },
    { "cluster_unknown_name", EXP(E_CL("\"mixed_smal\"")),
      { RUN }, 2, AT("e.json", 4) "cluster: no cluster file or shipped cluster 'mixed_smal'" },
    { "workload_string", EXP(E_WL("\"ok.csv\"")),
      { RUN }, 2, AT("e.json", 5) "workload: must be an object" },
    { "policies_string", EXP(E_POL("\"fifo\"")),
      { RUN }, 2, AT("e.json", 6) "policies: must be an array" },
    { "policies_empty", EXP(E_POL("[]")),
      { RUN }, 2, AT("e.json", 6) "policies: list at least one policy" },
    { "sim_number", EXP(E_MORE("\"sim\": 5")),
      { RUN }, 2, AT("e.json", 7) "sim: must be an object" },
    { "mode_typo", EXP(E_MORE("\"mode\": \"gavl\"")),
      { RUN }, 2, AT("e.json", 7) "mode: 'gavl' is not one of: native, gavel, pollux "
                                  "(did you mean 'gavel'?)" },
    { "document_not_object", EXP("[1, 2]\n"),
      { RUN }, 2, AT("e.json", 1) "the document must be a JSON object" },

    /* -------- experiment JSON: missing and unknown fields -------- */
    { "missing_workload",
      EXP("{\n \"name\": \"t\",\n \"cluster\": \"mixed_small\",\n \"policies\": [\"fifo\"]\n}\n"),
      { RUN }, 2, AT("e.json", 1) "workload: required field is missing" },
    { "missing_policies",
      EXP("{\n \"name\": \"t\",\n \"cluster\": \"mixed_small\",\n \"workload\": " W_ "\n}\n"),
      { RUN }, 2, AT("e.json", 1) "policies: required field is missing" },
    { "missing_cluster",
      EXP("{\n \"name\": \"t\",\n \"workload\": " W_ ",\n \"policies\": [\"fifo\"]\n}\n"),
      { RUN }, 2, AT("e.json", 1) "cluster: required field is missing" },
    { "missing_workload_format", EXP(E_WL("{ \"trace\": \"ok.csv\" }")),
      { RUN }, 2, AT("e.json", 5) "workload.format: required field is missing" },
    { "workload_trace_not_found", EXP(E_WL("{ \"format\": \"hetsim\", \"trace\": \"nope.csv\" }")),
      { RUN }, 2, AT("e.json", 5) "workload.trace: trace file 'nope.csv' not found" },
    { "unknown_top_field", EXP(E_MORE("\"polices\": [\"srtf\"]")),
      { RUN }, 2, AT("e.json", 7) "polices: unknown field (did you mean 'policies'?" },
    { "unknown_sim_field", EXP(E_SIM("\"sample\": 60")),
      { RUN }, 2, AT("e.json", 7) "sim.sample: unknown field (did you mean 'sample_s'?" },
    { "unknown_workload_field", EXP(E_HWL("\"max_job\": 2")),
      { RUN }, 2, AT("e.json", 5) "workload.max_job: unknown field (did you mean 'max_jobs'?" },
    { "field_given_twice", EXP(E_MORE("\"seed\": 2")),
      { RUN }, 2, AT("e.json", 7) "seed: field given twice" },

    /* -------- experiment JSON: numbers out of range -------- */
    { "seed_negative", EXP(E_SEED("-1")),
      { RUN }, 2, AT("e.json", 3) "seed: -1 is out of range [0, 9223372036854775807]" },
    { "seed_fraction", EXP(E_SEED("1.5")),
      { RUN }, 2, AT("e.json", 3) "seed: must be an integer" },
    { "seed_infinite", EXP(E_SEED("1e999")),
      { RUN }, 2, AT("e.json", 3) "seed: must be an integer" },
    { "seed_overflow", EXP(E_SEED("1e30")),
      { RUN }, 2, AT("e.json", 3) "seed: 1e+30 is out of range" },
    { "seed_nan_literal", EXP(E_SEED("NaN")),
      { RUN }, 2, AT("e.json", 3) "JSON syntax error" },
    { "sample_s_negative", EXP(E_SIM("\"sample_s\": -1")),
      { RUN }, 2, AT("e.json", 7) "sim.sample_s: -1 is out of range [0, 1e+09]" },
    { "sample_s_infinite", EXP(E_SIM("\"sample_s\": 1e999")),
      { RUN }, 2, AT("e.json", 7) "sim.sample_s: must be a finite number" },
    { "sample_repeats_number", EXP(E_SIM("\"sample_repeats\": 1")),
      { RUN }, 2, AT("e.json", 7) "sim.sample_repeats: must be true or false" },
    { "until_s_negative", EXP(E_SIM("\"until_s\": -5")),
      { RUN }, 2, AT("e.json", 7) "sim.until_s: -5 is out of range [0, 9e+12]" },
    { "max_events_negative", EXP(E_SIM("\"max_events\": -1")),
      { RUN }, 2, AT("e.json", 7) "sim.max_events: -1 is out of range [0, 4611686018427387903]" },
    { "measure_window_empty", EXP(E_SIM("\"measure_window\": [10, 10]")),
      { RUN }, 2, AT("e.json", 7) "sim.measure_window: [start_s, end_s] needs end_s > start_s" },
    { "measure_window_not_a_pair", EXP(E_SIM("\"measure_window\": 600")),
      { RUN }, 2, AT("e.json", 7) "sim.measure_window: must be a pair [start, end] of numbers" },
    { "measure_window_text", EXP(E_SIM("\"measure_window\": [0, \"end\"]")),
      { RUN }, 2, AT("e.json", 7) "sim.measure_window[1]: must be a number" },
    { "measure_window_infinite", EXP(E_SIM("\"measure_window\": [0, 1e999]")),
      { RUN }, 2, AT("e.json", 7) "sim.measure_window[1]: must be a finite number" },
    { "measure_jobs_backwards", EXP(E_SIM("\"measure_jobs\": [50, 10]")),
      { RUN }, 2, AT("e.json", 7) "sim.measure_jobs: [first, last] needs last >= first" },
    { "measure_jobs_negative", EXP(E_SIM("\"measure_jobs\": [-1, 10]")),
      { RUN }, 2, AT("e.json", 7) "sim.measure_jobs[0]: -1 is out of range [0, 1099511627776]" },
    { "measure_jobs_fraction", EXP(E_SIM("\"measure_jobs\": [0, 2.5]")),
      { RUN }, 2, AT("e.json", 7) "sim.measure_jobs[1]: must be an integer" },
    { "hetsim_job_types_unknown", EXP(E_HWL("\"job_types\": { \"ResNet-51\": 1 }")),
      { RUN }, 2, AT("e.json", 5) "workload.job_types.ResNet-51: unknown job type 'ResNet-51'" },
    { "hetsim_job_types_zero", EXP(E_HWL("\"job_types\": { \"A3C\": 0 }")),
      { RUN }, 2, AT("e.json", 5) "workload.job_types: weights must not all be zero" },
    { "max_jobs_negative", EXP(E_HWL("\"max_jobs\": -3")),
      { RUN }, 2, AT("e.json", 5) "workload.max_jobs: -3 is out of range [0, 1099511627776]" },
    { "max_jobs_overflow", EXP(E_HWL("\"max_jobs\": 1e30")),
      { RUN }, 2, AT("e.json", 5) "workload.max_jobs: 1e+30 is out of range" },
    { "arrival_scale_zero", EXP(E_HWL("\"arrival_scale\": 0")),
      { RUN }, 2, AT("e.json", 5) "workload.arrival_scale: 0 is out of range [1e-09, 1e+09]" },
    { "arrival_scale_infinite", EXP(E_HWL("\"arrival_scale\": 1e999")),
      { RUN }, 2, AT("e.json", 5) "workload.arrival_scale: must be a finite number" },

    /* -------- experiment JSON: policies -------- */
    { "policy_unknown", EXP(E_POL("[\"fifoo\"]")),
      { RUN }, 2, AT("e.json", 6) "policies[0]: unknown policy 'fifoo' (did you mean 'fifo'?)" },
    { "policy_unknown_second", EXP(E_POL("[\"fifo\", \"srtff\"]")),
      { RUN }, 2, AT("e.json", 6) "policies[1]: unknown policy 'srtff' (did you mean 'srtf'?)" },
    { "policy_param_bad_second", EXP(E_POL("[\"fifo\", { \"name\": \"srtf\", \"bogus\": 1 }]")),
      { RUN }, 2, AT("e.json", 6) "policies[1].bogus: unknown field" },
    { "policy_labels_twice",
      EXP(E_POL("[{ \"name\": \"fifo\", \"label\": \"a\" },\n"
                "  { \"name\": \"srtf\", \"label\": \"a\" }]")),
      { RUN }, 2, AT("e.json", 7) "policies[1]: two policies are labelled 'a'" },
    { "policy_param_type", EXP(E_POL("[{ \"name\": \"fifo\", \"backfill\": \"yes\" }]")),
      { RUN }, 2, AT("e.json", 6) "policies[0].backfill: must be true or false" },
    { "policy_param_unknown", EXP(E_POL("[{ \"name\": \"fifo\", \"backfil\": true }]")),
      { RUN }, 2, AT("e.json", 6) "policies[0].backfil: unknown field (did you mean 'backfill'?" },
    { "policy_tenants_outside_colocate",
      EXP(E_POL("[{ \"name\": \"fifo\", \"tenants\": { \"training\": \"srtf\" } }]")),
      { RUN }, 2, AT("e.json", 6) "policies[0].tenants: only a policy of a domain of tenants "
          "(colocate) names its tenants' policies" },
    { "policy_round_negative", EXP(E_POL("[{ \"name\": \"gavel_las\", \"round_s\": -1 }]")),
      { RUN }, 2, AT("e.json", 6) "policies[0].round_s: -1 is out of range [0.001, 1e+09]" },

    /* -------- experiment JSON: syntax, empty files, BOM, CRLF, NUL -------- */
    { "syntax_double_comma",
      EXP("{\n \"name\": \"t\",\n \"seed\": 1,,\n \"cluster\": \"mixed_small\"\n}\n"),
      { RUN }, 2, AT("e.json", 3) "JSON syntax error" },
    { "syntax_unclosed", EXP("{\n \"name\": \"t\",\n \"seed\": 1\n"),
      { RUN }, 2, AT("e.json", 3) "JSON syntax error" },
    { "syntax_trailing_text", EXP(E_OK "}\n"),
      { RUN }, 2, AT("e.json", 8) "unexpected text after the JSON document" },
    { "empty_file", EXP(""),
      { RUN }, 2, "%d/e.json: empty file: expected a JSON object" },
    { "nul_byte", EXP(""),
      { RUN }, 2, "%d/e.json: NUL byte in JSON text", .setup = nul_json },
    { "bom_accepted", EXP(BOM E_OK),
      { RUN }, 0, NULL, 1 },
    { "crlf_accepted",
      EXP("{\r\n \"name\": \"t\",\r\n \"seed\": 1,\r\n \"cluster\": \"mixed_small\",\r\n"
          " \"workload\": " W_ ",\r\n \"policies\": [\"fifo\"]\r\n}\r\n"),
      { RUN }, 0, NULL, 1 },
    { "crlf_error_line",
      EXP("{\r\n \"name\": \"t\",\r\n \"seed\": 1,\r\n \"cluster\": \"mixed_small\",\r\n"
          " \"workload\": " W_ ",\r\n \"policies\": [\"fifo\"],\r\n"
          " \"sim\": { \"sample_s\": -1 }\r\n}\r\n"),
      { RUN }, 2, AT("e.json", 7) "sim.sample_s: -1 is out of range" },
    { "crlf_syntax_line",
      EXP("{\r\n \"name\": \"t\",\r\n \"seed\": 1,\r\n \"cluster\": \"mixed_small\",\r\n"
          " \"workload\" " W_ ",\r\n \"policies\": [\"fifo\"]\r\n}\r\n"),
      { RUN }, 2, AT("e.json", 5) "JSON syntax error" },
    { "experiment_not_found", EXP(E_OK),
      { "run", "%d/nope.json", "--db", "%d/t.db", "-q" }, 2,
      "%d/nope.json: no such experiment file or shipped experiment" },

    /* -------- clusters: a separate file -------- */
    { "cluster_gpu_unknown", CFILE(CLUSTER(IB, GRP("2", "A100-40G", "4", ""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].gpu: unknown GPU type 'A100-40G' "
                                  "(did you mean 'A100-40GB'?)" },
    { "cluster_intra_unknown", CFILE(CLUSTER(IB, GRP("2", "V100", "4", ", \"intra\": \"nvlnk2\""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].intra: unknown intra-node link 'nvlnk2' "
                                  "(did you mean 'nvlink2'?)" },
    { "cluster_intra_link_as_network", CFILE(CLUSTER(NET("nvlink2"), GRP("2", "V100", "4", ""))),
      { RUN }, 2, AT("c.json", 3) "network: 'nvlink2' is an intra-node link; this field needs an inter-node link" },
    { "cluster_network_as_intra",
      CFILE(CLUSTER(IB, GRP("2", "V100", "4", ", \"intra\": \"ib-100g\""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].intra: 'ib-100g' is an inter-node link; this field needs an intra-node link" },
    { "cluster_placeholder_not_bool",
      CFILE(CLUSTER(IB " \"placeholder\": \"yes\",\n", GRP("2", "V100", "4", ""))),
      { RUN }, 2, AT("c.json", 4) "placeholder: must be true or false" },
    { "cluster_count_zero", CFILE(CLUSTER(IB, GRP("0", "V100", "4", ""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].count: 0 is out of range [1, 1000000]" },
    { "cluster_count_negative", CFILE(CLUSTER(IB, GRP("-2", "V100", "4", ""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].count: -2 is out of range [1, 1000000]" },
    { "cluster_count_fraction", CFILE(CLUSTER(IB, GRP("1.5", "V100", "4", ""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].count: must be an integer" },
    { "cluster_per_node_zero", CFILE(CLUSTER(IB, GRP("2", "V100", "0", ""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].gpus_per_node: 0 is out of range [1, 64]" },
    { "cluster_per_node_65", CFILE(CLUSTER(IB, GRP("2", "V100", "65", ""))),
      { RUN }, 2, AT("c.json", 5) "groups[0].gpus_per_node: 65 is out of range [1, 64]" },
    { "cluster_missing_groups", CFILE("{\n \"name\": \"c\",\n \"network\": \"ib-100g\"\n}\n"),
      { RUN }, 2, AT("c.json", 1) "groups: required field is missing" },
    { "cluster_empty_groups",
      CFILE("{\n \"name\": \"c\",\n \"network\": \"ib-100g\",\n \"groups\": []\n}\n"),
      { RUN }, 2, AT("c.json", 4) "groups: at least one node group is needed" },
    { "cluster_no_network", CFILE(CLUSTER("", GRP("2", "V100", "4", ""))),
      { RUN }, 2, AT("c.json", 4) "groups[0]: no inter-node network" },
    { "cluster_t4_on_nvlink", CFILE(CLUSTER(IB, GRPL("T4", "nvlink3"))),
      { RUN }, 2, AT("c.json", 5) "groups[0].intra: a T4 node cannot have 'nvlink3' "
                                  "(links a T4 can have: pcie3)" },
    { "cluster_k80_on_nvswitch", CFILE(CLUSTER(IB, GRPL("K80", "nvswitch"))),
      { RUN }, 2, AT("c.json", 5) "groups[0].intra: a K80 node cannot have 'nvswitch' "
                                  "(links a K80 can have: pcie3)" },
    { "cluster_v100_on_a100_nvswitch", CFILE(CLUSTER(IB, GRPL("V100", "nvswitch"))),
      { RUN }, 2, AT("c.json", 5) "groups[0].intra: a V100-16GB node cannot have 'nvswitch' "
                                  "(links a V100-16GB can have: nvlink2, nvswitch2, pcie3)" },
    { "cluster_pcie3_gpu_on_pcie4", CFILE(CLUSTER(IB, GRPL("T4", "pcie4"))),
      { RUN }, 2, AT("c.json", 5) "groups[0].intra: a T4 node cannot have 'pcie4'" },
    { "cluster_a100_on_nvlink2", CFILE(CLUSTER(IB, GRPL("A100", "nvlink2"))),
      { RUN }, 2, AT("c.json", 5) "groups[0].intra: a A100-40GB node cannot have 'nvlink2' "
                                  "(links a A100-40GB can have: nvlink3, nvswitch, pcie3, pcie4)" },
    { "cluster_pcie4_gpu_in_pcie3_host_accepted", CFILE(CLUSTER(IB, GRPL("A100", "pcie3"))),
      { RUN }, 0, NULL, 1 },
    { "cluster_v100_on_nvswitch2_accepted", CFILE(CLUSTER(IB, GRPL("V100", "nvswitch2"))),
      { RUN }, 0, NULL, 1 },
    { "cluster_group_names_twice",
      CFILE(CLUSTER(IB, GRPN("V100", "fast") ",\n  " GRPN("A100", "fast"))),
      { RUN }, 2, AT("c.json", 6) "groups[1].name: groups[0] has the name 'fast' too: group "
                                  "names must differ" },
    { "cluster_note_number", CFILE("{\n \"name\": \"c\",\n \"note\": 1,\n" IB
                                   " \"groups\": [\n  " GRP("1", "V100", "4", "") "\n ]\n}\n"),
      { RUN }, 2, AT("c.json", 3) "note: must be a string" },

    /* -------- clusters: inline in the experiment (line 4) -------- */
    { "inline_gpu_unknown", EXP(INLINE(INET, GRP("2", "A100-40G", "4", ""))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].gpu: unknown GPU type 'A100-40G' "
                                  "(did you mean 'A100-40GB'?)" },
    { "inline_count_zero", EXP(INLINE(INET, GRP("0", "V100", "4", ""))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].count: 0 is out of range [1, 1000000]" },
    { "inline_no_network", EXP(INLINE("", GRP("1", "V100", "4", ""))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0]: no inter-node network" },
    { "inline_empty_groups", EXP(INLINE(INET, "")),
      { RUN }, 2, AT("e.json", 4) "cluster.groups: at least one node group is needed" },
    { "inline_t4_on_nvlink", EXP(INLINE(INET, GRPL("T4", "nvlink2"))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].intra: a T4 node cannot have 'nvlink2'" },
    { "inline_group_names_twice", EXP(INLINE(INET, GRPN("V100", "g") ", " GRPN("T4", "g"))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[1].name: cluster.groups[0] has the name 'g' "
                                  "too" },
    { "cli_set_impossible_intra", EXP(INLINE(INET, GRP("1", "K80", "4", ""))),
      { RUN, "--set", "cluster.groups.0.intra=nvswitch" }, 2,
      "hetsim: --set cluster.groups.0.intra: cluster.groups[0].intra: a K80 node cannot have "
      "'nvswitch'" },

    /* -------- GPU and link catalogs -------- */
    { "gpu_defined_twice", GFILE(GPUS(GPU("X", "16", PCIE), GPU("X", "16", PCIE))),
      { RUN }, 2, AT("g.json", 3) "gpus[1]: GPU type 'X' is defined twice" },
    { "gpu_alias_clash",
      GFILE(GPUS(GPU("X", "16", PCIE), GPU("Y", "16", PCIE ", \"aliases\": [\"X\"]"))),
      { RUN }, 2, AT("g.json", 3) "gpus[1]: alias 'X' already names another GPU" },
    { "gpu_missing_pcie", GFILE(GPUS(GPU("X", "16", ""), GOOD_GPU)),
      { RUN }, 2, AT("g.json", 2) "gpus[0].pcie: required field is missing" },
    { "gpu_negative_memory", GFILE(GPUS(GPU("X", "-16", PCIE), GOOD_GPU)),
      { RUN }, 2, AT("g.json", 2) "gpus[0].mem_gb: -16 is out of range [0.1, 100000]" },
    { "gpu_unknown_link", GFILE(GPUS(GPU("X", "16", ", \"pcie\": \"pcie9\""), GOOD_GPU)),
      { RUN }, 2, AT("g.json", 2) "gpus[0].pcie: unknown intra-node link 'pcie9' (did you mean 'pcie3'?)" },
    { "gpu_pcie_is_network", GFILE(GPUS(GPU("X", "16", ", \"pcie\": \"ib-100g\""), GOOD_GPU)),
      { RUN }, 2, AT("g.json", 2) "gpus[0].pcie: 'ib-100g' is an inter-node link; this field needs an intra-node link" },
    { "link_defined_twice",
      LFILE(LINKS(LINK("pcie3", "intra", "15"), LINK("pcie3", "intra", "15"))),
      { RUN }, 2, AT("l.json", 3) "links[1]: link 'pcie3' is defined twice" },
    { "link_negative_bandwidth",
      LFILE(LINKS(LINK("pcie3", "intra", "-1"), LINK("ib", "inter", "12"))),
      { RUN }, 2, AT("l.json", 2) "links[0].bw_gbs: -1 is out of range [1e-06, 1e+06]" },
    { "gpu_nvswitch_without_nvlink",
      GFILE(GPUS(GPU("X", "16", PCIE ", \"nvswitch\": \"nvswitch\""), GOOD_GPU)),
      { RUN }, 2, AT("g.json", 2) "gpus[0].nvswitch: 'nvswitch' needs NVLink, and this GPU type "
                                  "has no \"nvlink\"" },
    { "gpu_nvswitch_faster_than_nvlink",
      GFILE(GPUS(GPU("X", "16", PCIE ", \"nvlink\": \"nvlink2\", \"nvswitch\": \"nvswitch\""),
                 GOOD_GPU)),
      { RUN }, 2, AT("g.json", 2) "gpus[0].nvswitch: 'nvswitch' carries 300 GB/s per GPU, more "
                                  "than the GPU's own NVLink 'nvlink2' (150 GB/s)" },
    { "gpu_source_unknown",
      GFILE(SGPUS("\"x\": \"X data sheet\"", GPU("X", "16", PCIE ", \"source\": \"xx\""))),
      { RUN }, 2, AT("g.json", 3) "gpus[0].source: 'xx' is not an entry of \"sources\" "
                                  "(did you mean 'x'?)" },
    { "gpu_price_source_unknown",
      GFILE(SGPUS("\"x\": \"X data sheet\"", GPU("X", "16", PCIE ", \"price_source\": \"aws\""))),
      { RUN }, 2, AT("g.json", 3) "gpus[0].price_source: 'aws' is not an entry of \"sources\"" },
    { "gpu_sources_not_strings", GFILE(SGPUS("\"x\": 1", GOOD_GPU)),
      { RUN }, 2, AT("g.json", 1) "sources.x: must be a string" },
    { "gpu_vendor_number", GFILE(GPUS(GPU("X", "16", PCIE ", \"vendor\": 1"), GOOD_GPU)),
      { RUN }, 2, AT("g.json", 2) "gpus[0].vendor: must be a string" },
    { "link_source_unknown",
      LFILE("{ \"sources\": { \"pcie\": \"PCI-SIG\" },\n \"links\": [\n  "
            "{ \"name\": \"pcie3\", \"scope\": \"intra\", \"bw_gbs\": 15, \"lat_us\": 1, "
            "\"source\": \"pci-sig\" },\n  " LINK("ib-100g", "inter", "12") "\n] }\n"),
      { RUN }, 2, AT("l.json", 3) "links[0].source: 'pci-sig' is not an entry of \"sources\"" },
    { "link_missing_for_gpu",
      { { "e.json", E_MODELS("\"gpus\": \"g.json\", \"links\": \"l.json\"") },
        { "g.json", GPUS(GPU("X", "16", PCIE ", \"nvlink\": \"nvlink2\""), GOOD_GPU) },
        { "l.json", LINKS(LINK("pcie3", "intra", "15"), LINK("ib-100g", "inter", "12")) } },
      { RUN }, 2, AT("g.json", 2) "gpus[0].nvlink: unknown intra-node link 'nvlink2'; known: pcie3" },

    /* -------- job types and profiles -------- */
    { "profile_header_name", PROF("job_type,gpu,worker,placement,iters_per_s\n"),
      { RUN }, 2, AT("prof.csv", 1) "worker: header column 3 must be 'workers'" },
    { "profile_unknown_gpu", PROF(PR("V1000", "1", "4.4")),
      { RUN }, 2, AT("prof.csv", 2) "gpu: unknown GPU type 'V1000'" },
    { "profile_workers_zero", PROF(PR("V100", "0", "4.4")),
      { RUN }, 2, AT("prof.csv", 2) "workers: '0' is not a worker count in [1, 4096]" },
    { "profile_negative_rate", PROF(PR("V100", "1", "-4.4")),
      { RUN }, 2, AT("prof.csv", 2) "iters_per_s: '-4.4' is not a rate >= 0" },
    /* Heet's CSV as a profile (models/heet_csv.h) and the JSON file of fits (models/tput.c) */
    { "heet_csv_header", PROF("gpu_type,model,batch,workers,epoch_time_s,batch_time_s\n"),
      { RUN }, 2, AT("prof.csv", 1) "batch: header column 3 must be 'batch_size'" },
    { "heet_csv_unknown_gpu", PROF(HEETHDR "T5,vgg19,64,1,10,0.1\n"),
      { RUN }, 2, AT("prof.csv", 2) "gpu_type: unknown GPU type 'T5'" },
    { "heet_csv_unknown_model", PROF(HEETHDR "T4,vgg16,64,1,10,0.1\n"),
      { RUN }, 2, AT("prof.csv", 2) "model: 'vgg16' must be vgg19, resnet152 or densenet121" },
    { "heet_csv_batch_zero", PROF(HEETHDR "T4,vgg19,0,1,10,0.1\n"),
      { RUN }, 2, AT("prof.csv", 2) "batch_size: '0' is not a batch size in [1, 1048576]" },
    { "heet_csv_zero_time", PROF(HEETHDR "T4,vgg19,64,1,10,0\n"),
      { RUN }, 2, AT("prof.csv", 2) "batch_time_s: '0' is not a time in (0, 1e6] s" },
    { "heet_csv_bad_epoch", PROF(HEETHDR "T4,vgg19,64,1,ten,0.1\n"),
      { RUN }, 2, AT("prof.csv", 2) "epoch_time_s: 'ten' is not empty or a time >= 0" },
    { "heet_csv_few_fields", PROF(HEETHDR "T4,vgg19,64,1,0.1\n"),
      { RUN }, 2, AT("prof.csv", 2) "expected 6 fields, found 5" },
    { "heet_csv_twice", PROF(HEETHDR "T4,vgg19,64,1,10,0.1\nT4,vgg19,64,1,11,0.11\n"),
      { RUN }, 2, AT("prof.csv", 3) "T4 vgg19 batch 64 on 1 workers is given twice (first on "
                                    "line 2)" },
    { "heet_fit_missing_fits", PROFJ("{ \"note\": \"x\" }\n"),
      { RUN }, 2, "prof.json:1: fits: required" },
    { "heet_fit_unknown_key", PROFJ(FITS(FIT(HJT, "\"T4\"", "0.5") ", \"overlapp\": 1")),
      { RUN }, 2, AT("prof.json", 2) "fits[0].overlapp: unknown field (did you mean 'overlap'?" },
    { "heet_fit_overlap_above_one", PROFJ(FITS(FIT(HJT, "\"T4\"", "1.5"))),
      { RUN }, 2, AT("prof.json", 2) "fits[0].overlap: 1.5 is out of range [0, 1]" },
    { "heet_fit_unknown_gpu", PROFJ(FITS(FIT(HJT, "\"T5\"", "0.5"))),
      { RUN }, 2, AT("prof.json", 2) "fits[0].gpu: unknown GPU type 'T5'" },
    { "heet_fit_unknown_job_type", PROFJ(FITS(FIT("\"VGG-20 CIFAR-10 (batch size 64)\"",
                                                  "\"T4\"", "0.5"))),
      { RUN }, 2, AT("prof.json", 2) "fits[0].job_types: 'VGG-20 CIFAR-10 (batch size 64)' is "
                                     "not a job type" },
    { "heet_fit_twice", PROFJ(FITS(FIT(HJT ", " HJT, "\"T4\"", "0.5"))),
      { RUN }, 2, AT("prof.json", 2) "fits[0].job_types: job type 'VGG-19 CIFAR-10 (batch size 64)' on T4 "
                                     "is fitted twice" },
    { "heet_fit_unknown_link", PROFJ("{ \"fits\": [\n { \"job_types\": [" HJT "], \"gpu\": \"T4\", "
                                     "\"link\": \"pcie9\", \"sample_s\": 0, \"step_s\": 1, "
                                     "\"sync_s\": 0, \"worker_s\": 0, \"overlap\": 0 }\n] }\n"),
      { RUN }, 2, AT("prof.json", 2) "fits[0].link: unknown link 'pcie9'" },
    { "heet_fit_no_time", PROFJ("{ \"fits\": [\n { \"job_types\": [" HJT "], \"gpu\": \"T4\", "
                                "\"link\": \"pcie3\", \"sample_s\": 0, \"step_s\": 0, "
                                "\"sync_s\": 0, \"worker_s\": 0, \"overlap\": 0 }\n] }\n"),
      { RUN }, 2, AT("prof.json", 2) "fits[0]: step_s + sample_s must be > 0" },
    /* `hetsim model fit heet FILE`: its reader's errors, and a pair too small to fit */
    { "heet_fit_cli_bad_row", { { "h.csv", HEETHDR "T4,vgg19,64,-1,10,0.1\n" } },
      { "model", "fit", "heet", "%d/h.csv" }, 2,
      AT("h.csv", 2) "workers: '-1' is not a worker count in [1, 4096]" },
    { "heet_fit_cli_too_few_points", { { "h.csv", HEETHDR "T4,vgg19,64,1,10,0.1\n"
                                                  "T4,vgg19,64,2,10,0.2\n" } },
      { "model", "fit", "heet", "%d/h.csv" }, 2,
      "heet fit:2: vgg19 on T4 has 2 points (1 on several workers): a fit of 5 parameters "
      "needs more than 5" },
    { "heet_fit_cli_no_file", EXP("{}"), { "model", "fit", "heet" }, 2,
      "fit heet needs Heet's CSV" },
    /* `hetsim model llm`: a number out of its range stops the command */
    { "model_llm_tp_zero", EXP("{}"),
      { "model", "llm", "-m", "llama-2-7b", "--tp", "0", "-b", "1", "-p", "128" }, 2,
      "hetsim model: --tp needs an integer in [1, 64], not '0'" },
    { "model_llm_prompt_too_long", EXP("{}"),
      { "model", "llm", "-m", "llama-2-7b", "--tp", "1", "-b", "1", "-p", "99999999" }, 2,
      "hetsim model: --prompt needs an integer in [1, 16777216], not '99999999'" },
    /* `hetsim model fit`'s three readers: Vidur's kernel profile and all-reduce times, and
       the end-to-end measurements */
    { "llmfit_profile_tp_fraction", { { "mlp.csv", MLPHDR MLPROW("32,32,4096", "1.5") } },
      { "model", "fit", "--profile", "A100-80GB=%d/mlp.csv" }, 2,
      AT("mlp.csv", 2) "num_tensor_parallel_workers: '1.5' is not a whole number in [1, 64]" },
    { "llmfit_profile_heads_beyond_int", { { "mlp.csv", MLPHDR MLPROW("1e300,32,4096", "1") } },
      { "model", "fit", "--profile", "A100-80GB=%d/mlp.csv" }, 2,
      AT("mlp.csv", 2) "n_head: '1e300' is not a whole number in [1, 1048576]" },
    { "llmfit_profile_more_kv_heads", { { "mlp.csv", MLPHDR MLPROW("8,32,4096", "1") } },
      { "model", "fit", "--profile", "A100-80GB=%d/mlp.csv" }, 2,
      AT("mlp.csv", 2) "n_head: implausible architecture" },
    { "llmfit_profile_time_not_a_number",
      { { "mlp.csv",
          MLPHDR "0.1,0.1,0.1,0.1,0.01,0.01,0.01,0.01,x,32,32,4096,11008,true,64,1\n" } },
      { "model", "fit", "--profile", "A100-80GB=%d/mlp.csv" }, 2,
      AT("mlp.csv", 2) "time_stats.add.median: 'x' is not a time in [1e-06, 1e+06] ms" },
    { "llmfit_allreduce_zero_time", { { "ar.csv", "time_stats.all_reduce.median,num_workers,size\n"
                                                  "0,2,2048\n" } },
      { "model", "fit", "--allreduce", "%d/ar.csv", "--ar-link", "2=nvlink3" }, 2,
      AT("ar.csv", 2) "time_stats.all_reduce.median: '0' is not a time in [1e-06, 1e+06] ms" },
    { "llmfit_allreduce_fraction", { { "ar.csv", "time_stats.all_reduce.median,num_workers,size\n"
                                                 "0.05,2.5,2048\n" } },
      { "model", "fit", "--allreduce", "%d/ar.csv", "--ar-link", "2=nvlink3" }, 2,
      AT("ar.csv", 2) "num_workers: '2.5' is not a GPU count" },
    { "llmfit_points_batch_zero", { { "pts.csv", PTSHDR "lmdeploy,A100-80GB,llama-2-7b,1,0,128,"
                                                 "128,22,10\n" } },
      { "model", "fit", "--measured", "%d/pts.csv" }, 2,
      AT("pts.csv", 2) "batch: '0' is not a whole number in [1, 1048576]" },
    { "llmfit_points_negative_ttft", { { "pts.csv", PTSHDR "lmdeploy,A100-80GB,llama-2-7b,1,1,"
                                                    "128,128,-22,10\n" } },
      { "model", "fit", "--measured", "%d/pts.csv" }, 2,
      AT("pts.csv", 2) "ttft_ms: '-22' is not a time in [1e-06, 1e+07] ms" },
    { "llmfit_points_beyond_context", { { "pts.csv", PTSHDR "lmdeploy,A100-80GB,llama-2-7b,1,"
                                                     "1,5000,128,22,10\n" } },
      { "model", "fit", "--measured", "%d/pts.csv" }, 2,
      AT("pts.csv", 2) "prompt_tokens: 5000 prompt tokens and the first output exceed the "
                       "context of llama-2-7b (4096)" },
    { "llmfit_points_output_beyond_context", { { "pts.csv", PTSHDR "lmdeploy,A100-80GB,"
                                                            "llama-2-7b,1,1,4000,500,22,10\n" } },
      { "model", "fit", "--measured", "%d/pts.csv" }, 2,
      AT("pts.csv", 2) "output_tokens: 4000 prompt tokens and half the output exceed the "
                       "context of llama-2-7b (4096)" },
    { "jobtype_unknown_field", JTFILE(JTS(JT("J", "32", ", \"scalling\": \"weak\""))),
      { RUN }, 2, AT("jt.json", 2) "job_types[0].scalling: unknown field "
                                   "(did you mean 'scaling'? the fields here: name, aliases" },
    { "jobtype_batch_zero", JTFILE(JTS(JT("J", "0", ""))),
      { RUN }, 2, AT("jt.json", 2) "job_types[0].batch: 0 is out of range [1, 16777216]" },
    { "jobtype_max_local_batch_zero",
      JTFILE(JTS(JT("J", "32", ", \"max_local_batch\": 0"))),
      { RUN }, 2, AT("jt.json", 2) "job_types[0].max_local_batch: 0 is out of range "
                                   "[1, 16777216]" },
    { "jobtype_defined_twice", JTFILE(JTS(JT("J", "32", "") ",\n  " JT("J", "64", ""))),
      { RUN }, 2, AT("jt.json", 3) "job_types[1]: job type 'J' is too long or defined twice" },

    /* -------- hetsim CSV traces -------- */
    { "hetsim_header_trailing_comma", TRACE("arrival_s,job_type,workers,iterations,\n"
                                            "0," R50 ",1,100,\n"),
      { RUN }, 2, AT("t.csv", 1) "header: column 5 has no name (a trailing comma?)" },
    { "hetsim_header_empty_column", TRACE("arrival_s,,job_type,workers,iterations\n"),
      { RUN }, 2, AT("t.csv", 1) "header: column 2 has no name" },
    { "hetsim_header_column_twice", TRACE("arrival_s,job_type,workers,iterations,arrival_s\n"),
      { RUN }, 2, AT("t.csv", 1) "arrival_s: column given twice (columns 1 and 5)" },
    { "hetsim_header_unknown_column", TRACE("arrival_s,job_type,workers,iterations,gpu\n"),
      { RUN }, 2, AT("t.csv", 1) "gpu: unknown column (the columns are arrival_s, job_type, "
                                 "workers, iterations or duration_s, id, user, weight, "
                                 "min_workers, max_workers, batch)" },
    /* a job's own global batch (line 2) */
    { "hetsim_batch_zero",
      TRACE("arrival_s,job_type,workers,iterations,batch\n0," R50 ",2,100,0\n"),
      { RUN }, 2, AT("t.csv", 2) "batch: '0' is not a batch size from 1 to 16777216" },
    { "hetsim_batch_not_a_number",
      TRACE("arrival_s,job_type,workers,iterations,batch\n0," R50 ",2,100,64x\n"),
      { RUN }, 2, AT("t.csv", 2) "batch: '64x' is not a batch size from 1 to 16777216" },
    { "hetsim_batch_weak_type",
      TRACE("arrival_s,job_type,workers,iterations,batch\n0," R50 ",2,100,64\n"),
      { RUN }, 2, AT("t.csv", 2) "batch: job type 'ResNet-50 (batch size 64)' has a "
                                 "per-worker batch (weak scaling)" },
    /* elastic jobs: the worker range (the job's row is line 2) */
    { "hetsim_min_workers_above_workers",
      TRACE("arrival_s,job_type,workers,iterations,min_workers\n0," R50 ",2,100,3\n"),
      { RUN }, 2, AT("t.csv", 2) "min_workers: '3' is not a GPU count from 1 to the job's 2 "
                                 "workers" },
    { "hetsim_min_workers_zero",
      TRACE("arrival_s,job_type,workers,iterations,min_workers\n0," R50 ",2,100,0\n"),
      { RUN }, 2, AT("t.csv", 2) "min_workers: '0' is not a GPU count" },
    { "hetsim_max_workers_below_workers",
      TRACE("arrival_s,job_type,workers,iterations,max_workers\n0," R50 ",4,100,2\n"),
      { RUN }, 2, AT("t.csv", 2) "max_workers: '2' is not a GPU count of at least the job's 4 "
                                 "workers" },
    { "hetsim_max_workers_text",
      TRACE("arrival_s,job_type,workers,iterations,max_workers\n0," R50 ",1,100,four\n"),
      { RUN }, 2, AT("t.csv", 2) "max_workers: 'four' is not a GPU count" },
    { "hetsim_elastic_range_accepted",
      TRACE("arrival_s,job_type,workers,iterations,min_workers,max_workers\n"
            "0," R50 ",2,100,1,8\n"),
      { RUN }, 0, "", 1 },
    { "hetsim_workload_min_above_max", EXP(E_HWL("\"min_workers\": 4, \"max_workers\": 2")),
      { RUN }, 2, AT("e.json", 5) "workload.min_workers: 4 is more than max_workers 2" },
    { "hetsim_workload_max_workers_zero", EXP(E_HWL("\"max_workers\": 0")),
      { RUN }, 2, AT("e.json", 5) "workload.max_workers: 0 is out of range [1, 1000000]" },
    { "synth_min_above_max",
      EXP(SYN(JOBS ", " MIX ", " DUR ", \"min_workers\": 3, \"max_workers\": 2")),
      { RUN }, 2, AT("e.json", 5) "workload.min_workers: 3 is more than max_workers 2" },
    { "restore_by_type_unknown", EXP(E_SIM("\"restore_by_type\": { \"ResNet-51\": 30 }")),
      { RUN }, 2, AT("e.json", 7) "sim.restore_by_type.ResNet-51: unknown job type 'ResNet-51'" },
    { "restore_by_type_negative", EXP(E_SIM("\"restore_by_type\": { \"" R50 "\": -1 }")),
      { RUN }, 2, AT("e.json", 7) "sim.restore_by_type." R50 ": -1 is out of range" },
    { "restore_by_type_not_object", EXP(E_SIM("\"restore_by_type\": 30")),
      { RUN }, 2, AT("e.json", 7) "sim.restore_by_type: must be an object" },
    { "heet_rank_zero", EXP(E_POL("[{ \"name\": \"heet\", \"rank\": 0 }]")),
      { RUN }, 2, AT("e.json", 6) "policies[0].rank: 0 is out of range [1, 8]" },
    { "heet_unknown_param", EXP(E_POL("[{ \"name\": \"heet\", \"rnak\": 2 }]")),
      { RUN }, 2, AT("e.json", 6) "policies[0].rnak: unknown field (did you mean 'rank'?" },
    { "hetsim_tenant_names_accepted", TRACE(UHDR UJOB("0", "alice") UJOB("5", "bob")
                                            UJOB("9", "alice")),
      { RUN }, 0, NULL, 1 },
    { "hetsim_user_name_after_numbers", TRACE(UHDR UJOB("0", "3") UJOB("5", "bob")),
      { RUN }, 2, AT("t.csv", 3) "user: 'bob' is not a user number >= 0 (line 2 gives numbers, "
                                 "so names cannot follow)" },
    { "hetsim_user_number_after_names", TRACE(UHDR UJOB("0", "alice") UJOB("5", "7")),
      { RUN }, 2, AT("t.csv", 3) "user: '7' is a number, but line 2 names a tenant: a trace "
                                 "gives every user as a number or every user as a name" },
    { "hetsim_user_empty", TRACE(UHDR UJOB("0", "")),
      { RUN }, 2, AT("t.csv", 2) "user: empty: give a user number >= 0 or a tenant name" },
    { "hetsim_user_negative", TRACE(UHDR UJOB("0", "-1")),
      { RUN }, 2, AT("t.csv", 2) "user: '-1' is not a user number >= 0" },
    { "hetsim_id_negative",
      TRACE("id,arrival_s,job_type,workers,iterations\n-7,0," R50 ",1,100\n"),
      { RUN }, 2, AT("t.csv", 2) "id: '-7' is not an integer >= 0" },
    { "hetsim_too_few_fields", TRACE(HDR "0," R50 ",1\n"),
      { RUN }, 2, AT("t.csv", 2) "expected 4 fields, found 3" },
    { "hetsim_workers_word", TRACE(HDR JOB("0", "zero", "100")),
      { RUN }, 2, AT("t.csv", 2) "workers: 'zero' is not a GPU count >= 1" },
    { "hetsim_workers_overflow", TRACE(HDR JOB("0", BIG, "100")),
      { RUN }, 2, AT("t.csv", 2) "workers: '" BIG "' is not a GPU count >= 1" },
    { "hetsim_arrival_negative", TRACE(HDR JOB("-5", "1", "100")),
      { RUN }, 2, AT("t.csv", 2) "arrival_s: '-5' is not a time >= 0" },
    { "hetsim_arrival_nan", TRACE(HDR JOB("nan", "1", "100")),
      { RUN }, 2, AT("t.csv", 2) "arrival_s: 'nan' is not a time >= 0" },
    { "hetsim_unsorted", TRACE(HDR JOB("100", "1", "100") JOB("50", "1", "100")),
      { RUN }, 2, AT("t.csv", 3) "arrival: job 1 arrives at 50.000000 s, "
                                 "before the previous job (100.000000 s)" },
    { "hetsim_unsorted_after_comment",
      TRACE(HDR JOB("0", "1", "100") "# a comment\n" JOB("10", "1", "100") JOB("5", "1", "100")),
      { RUN }, 2, AT("t.csv", 5) "arrival: job 2 arrives at 5.000000 s" },
    { "hetsim_duplicate_id",
      TRACE("id,arrival_s,job_type,workers,iterations\n7,0," R50 ",1,100\n7,1," R50 ",1,100\n"),
      { RUN }, 2, AT("t.csv", 3) "id: job id 7 appears twice" },
    { "hetsim_too_many_gpus", TRACE(HDR JOB("0", "64", "100")),
      { RUN }, 2, AT("t.csv", 2) "workers: job 0 asks for 64 GPUs; "
                                 "no GPU type of cluster 'mixed-small' has that many" },
    { "hetsim_unknown_job_type", TRACE(HDR "0," R51 ",1,100\n"),
      { RUN }, 2, AT("t.csv", 2) "job_type: unknown job type '" R51 "' " DYM_R50 },
    { "hetsim_empty", TRACE(""),
      { RUN }, 2, "%d/t.csv: empty file: expected a header line" },
    { "hetsim_header_only", TRACE(HDR),
      { RUN }, 2, "%d/t.csv: *no jobs" },
    { "hetsim_crlf_bom_accepted",
      TRACE(BOM "arrival_s,job_type,workers,iterations\r\n0," R50 ",1,100\r\n"
            "5," R50 ",2,100\r\n"),
      { RUN }, 0, NULL, 1 },
    { "hetsim_crlf_error_line",
      TRACE(BOM "arrival_s,job_type,workers,iterations\r\n0," R50 ",1,100\r\n"
            "5," R50 ",x,100\r\n"),
      { RUN }, 2, AT("t.csv", 3) "workers: 'x' is not a GPU count >= 1" },
    { "hetsim_long_field", EXP(E_WL(WL_T)),
      { RUN }, 2, AT("t.csv", 2) "job_type: unknown job type 'AAAAAAAA",
      .setup = long_field_hetsim },
    { "hetsim_many_fields", EXP(E_WL(WL_T)),
      { RUN }, 2, AT("t.csv", 2) "expected 4 fields, found 100001", .setup = many_fields_hetsim },
    { "hetsim_nul_byte", EXP(E_WL(WL_T)),
      { RUN }, 2, AT("t.csv", 3) "NUL byte in a text line", .setup = nul_hetsim },

    /* -------- Gavel traces -------- */
    { "gavel_8_fields", GAVEL(R50 "\tcmd\t-step\t1\t100\t0\t1\textra\n"),
      { RUN }, 2, AT("g.trace", 1) "a Gavel trace line has 7 or 10 tab-separated fields, "
                                   "this one has 8" },
    { "gavel_steps_word", GAVEL(G7("abc", "0", "1")),
      { RUN }, 2, AT("g.trace", 1) "total_steps: 'abc' is not a step count >= 1" },
    { "gavel_steps_overflow", GAVEL(G7(BIG, "0", "1")),
      { RUN }, 2, AT("g.trace", 1) "total_steps: '" BIG "' is not a step count >= 1" },
    { "gavel_arrival_negative", GAVEL(G7("100", "-1", "1")),
      { RUN }, 2, AT("g.trace", 1) "arrival_time: '-1' is not a time >= 0" },
    { "gavel_arrival_inf", GAVEL(G10("100", "1", "1", "inf")),
      { RUN }, 2, AT("g.trace", 1) "arrival_time: 'inf' is not a time >= 0" },
    { "gavel_weight_nan", GAVEL(G10("100", "1", "nan", "0")),
      { RUN }, 2, AT("g.trace", 1) "priority_weight: 'nan' is not a weight > 0" },
    { "gavel_unsorted_7", GAVEL(G7("100", "50", "1") G7("100", "10", "1")),
      { RUN }, 2, AT("g.trace", 2) "arrival: job 1 arrives at 10.000000 s" },
    { "gavel_unsorted_10",
      GAVEL(G10("100", "1", "1", "50") G10("100", "1", "1", "60") G10("100", "1", "1", "5")),
      { RUN }, 2, AT("g.trace", 3) "arrival: job 2 arrives at 5.000000 s" },
    { "gavel_too_many_gpus", GAVEL(G7("100", "0", "64")),
      { RUN }, 2, AT("g.trace", 1) "workers: job 0 asks for 64 GPUs" },
    { "gavel_unknown_job_type", GAVEL(R51 "\tcmd\t-step\t1\t100\t0\t1\n"),
      { RUN }, 2, AT("g.trace", 1) "job_type: unknown job type '" R51 "' " DYM_R50 },
    { "gavel_command_empty", GAVEL(R50 "\t\t-step\t1\t100\t0\t1\n"),
      { RUN }, 2, AT("g.trace", 1) "command: empty: Gavel runs this command" },
    { "gavel_working_directory_empty", GAVEL(R50 "\tcmd\t \t-step\t1\t100\t1\t1\t-1\t0\n"),
      { RUN }, 2, AT("g.trace", 1) "working_directory: empty" },
    { "gavel_num_steps_arg_not_a_flag", GAVEL(R50 "\tcmd\tsteps\t1\t100\t0\t1\n"),
      { RUN }, 2, AT("g.trace", 1) "num_steps_arg: 'steps' is not a command-line flag such as "
                                   "-n or --num_steps" },
    { "gavel_needs_data_dir_2", GAVEL(R50 "\tcmd\t-step\t2\t100\t0\t1\n"),
      { RUN }, 2, AT("g.trace", 1) "needs_data_dir: '2' is not 0, 1, True or False" },
    { "gavel_needs_data_dir_word", GAVEL(G7("100", "0", "1") R50 "\tcmd\t-n\tyes\t100\t5\t1\n"),
      { RUN }, 2, AT("g.trace", 2) "needs_data_dir: 'yes' is not 0, 1, True or False" },
    { "gavel_needs_data_dir_bool_accepted",
      GAVEL(R50 "\tcmd\t-n\tTrue\t100\t0\t1\n" R50 "\tcmd\t--num_steps\tFalse\t100\t5\t1\n"),
      { RUN }, 0, NULL, 1 },
    { "gavel_slo_zero", GAVEL(R50 "\tcmd\tdir\t-n\t1\t100\t1\t1\t0\t0\n"),
      { RUN }, 2, AT("g.trace", 1) "SLO: '0' is not an SLO: a factor > 0 of the job's duration, "
                                   "or < 0 (-1) for none" },
    { "gavel_slo_word", GAVEL(R50 "\tcmd\tdir\t-n\t1\t100\t1\t1\tnone\t0\n"),
      { RUN }, 2, AT("g.trace", 1) "SLO: 'none' is not an SLO" },
    { "gavel_slo_factor_accepted", GAVEL(R50 "\tcmd\tdir\t-n\t1\t100\t1\t1\t1.2\t0\n"),
      { RUN }, 0, NULL, 1 },
    { "gavel_empty", GAVEL(""),
      { RUN }, 2, "%d/g.trace: empty trace: no jobs" },
    { "gavel_crlf_bom_accepted",
      GAVEL(BOM R50 "\tcmd\t-step\t1\t100\t0\t1\r\n" R50 "\tcmd\t-step\t1\t100\t5\t2\r\n"),
      { RUN }, 0, NULL, 1 },
    { "gavel_many_fields", EXP(E_WL(WL_G)),
      { RUN }, 2, AT("g.trace", 2) "a Gavel trace line has 7 or 10 tab-separated fields, "
                                   "this one has 100001", .setup = many_fields_gavel },
    { "gavel_nul_byte", EXP(E_WL(WL_G)),
      { RUN }, 2, AT("g.trace", 2) "NUL byte in a text line", .setup = nul_gavel },

    /* -------- Philly job lists -------- */
    { "philly_bad_header", PHILLY("time,duration,num_gpus,gpu_time,cluster\n"),
      { RUN }, 2, AT("ph.csv", 1) "header must be: timestamp,duration,num_gpus,gpu_time,cluster" },
    { "philly_4_fields", PHILLY(PHDR TS ",3600,1,3600\n"),
      { RUN }, 2, AT("ph.csv", 2) "expected 5 fields, found 4" },
    { "philly_bad_timestamp", PHILLY(PHDR PJ("yesterday", "3600", "1", "3600")),
      { RUN }, 2, AT("ph.csv", 2) "timestamp: 'yesterday' is not YYYY-MM-DD HH:MM:SS" },
    { "philly_duration_negative", PHILLY(PHDR PJ(TS, "-5", "1", "5")),
      { RUN }, 2, AT("ph.csv", 2) "duration: '-5' is not a duration in (0, 1e9] s" },
    { "philly_duration_nan", PHILLY(PHDR PJ(TS, "NaN", "1", "60")),
      { RUN }, 2, AT("ph.csv", 2) "duration: 'NaN' is not a duration in (0, 1e9] s" },
    { "philly_gpus_overflow", PHILLY(PHDR PJ(TS, "60", BIG, "60")),
      { RUN }, 2, AT("ph.csv", 2) "num_gpus: '" BIG "' is not a GPU count >= 1" },
    { "philly_too_many_gpus", PHILLY(PHDR PJ(TS, "60", "1", "60")
                                          PJ("2017-10-03 12:00:01", "60", "64", "3840")),
      { RUN }, 2, AT("ph.csv", 3) "workers: job 1 asks for 64 GPUs" },
    { "philly_gpu_time_mismatch", PHILLY(PHDR PJ(TS, "60", "2", "60")),
      { RUN }, 2, AT("ph.csv", 2) "gpu_time: 60 GPU-seconds, but duration x num_gpus = "
                                  "60 x 2 = 120" },
    { "philly_gpu_time_negative", PHILLY(PHDR PJ(TS, "60", "1", "-60")),
      { RUN }, 2, AT("ph.csv", 2) "gpu_time: '-60' is not a number of GPU-seconds >= 0" },
    { "philly_cluster_empty", PHILLY(PHDR TS ",60,1,60,\n"),
      { RUN }, 2, AT("ph.csv", 2) "cluster: empty: the virtual cluster's name" },
    { "philly_header_trailing_comma", PHILLY(PHDR_TRAILING),
      { RUN }, 2, AT("ph.csv", 1) "header: column 6 has no name (a trailing comma?)" },
    { "philly_header_gpu_time_misnamed", PHILLY("timestamp,duration,num_gpus,gpu_secs,cluster\n"),
      { RUN }, 2, AT("ph.csv", 1) "header must be: timestamp,duration,num_gpus,gpu_time,cluster" },
    { "philly_bad_row_of_another_vc",
      { { "e.json", E_WL("{ \"format\": \"philly\", \"trace\": \"ph.csv\", \"vc\": \"vc1\", "
                         MIX " }") },
        { "ph.csv", PHDR PJ(TS, "60", "1", "60") TS ",60,1,61.5,vc2\n" } },
      { RUN }, 2, AT("ph.csv", 3) "gpu_time: 61.5 GPU-seconds, but duration x num_gpus = "
                                  "60 x 1 = 60" },
    { "philly_empty", PHILLY(""),
      { RUN }, 2, "%d/ph.csv: empty file: expected a header line" },
    { "philly_mix_unknown_type",
      { { "e.json", E_WL("{ \"format\": \"philly\", \"trace\": \"ph.csv\", "
                         "\"job_types\": { \"" R51 "\": 1 } }") },
        { "ph.csv", PHDR PJ(TS, "60", "1", "60") } },
      { RUN }, 2, AT("e.json", 5) "workload.job_types." R51 ": unknown job type '" R51 "' "
                                  DYM_R50 },
    { "philly_unsorted_crlf_bom_accepted",
      PHILLY(BOM "timestamp,duration,num_gpus,gpu_time,cluster\r\n"
             "2017-10-03 12:10:00,60,1,60,vc1\r\n2017-10-03 12:00:00,60,2,120,vc2\r\n"),
      { RUN }, 0, NULL, 1 },
    { "philly_long_vc", EXP(E_WL(WL_P)),
      { RUN }, 2, AT("ph.csv", 2) "cluster: virtual cluster name longer than 63 characters",
      .setup = long_vc_philly },
    { "philly_nul_byte", EXP(E_WL(WL_P)),
      { RUN }, 2, AT("ph.csv", 3) "NUL byte in a text line", .setup = nul_philly },

    /* -------- synthetic workloads (the workload object is on line 5) -------- */
    { "synth_jobs_zero", EXP(SYN("\"jobs\": 0, \"rate_per_hour\": 60, " MIX ", " DUR)),
      { RUN }, 2, AT("e.json", 5) "workload.jobs: 0 is out of range [1, 1099511627776]" },
    { "synth_jobs_fraction", EXP(SYN("\"jobs\": 2.5, \"rate_per_hour\": 60, " MIX ", " DUR)),
      { RUN }, 2, AT("e.json", 5) "workload.jobs: must be an integer" },
    { "synth_rate_infinite", EXP(SYN("\"jobs\": 3, \"rate_per_hour\": 1e999, " MIX ", " DUR)),
      { RUN }, 2, AT("e.json", 5) "workload.rate_per_hour: must be a finite number" },
    { "synth_dist_typo",
      EXP(SYN(JOBS ", " MIX ", \"duration\": { \"dist\": \"lognorm\", \"median_s\": 60 }")),
      { RUN }, 2, AT("e.json", 5) "workload.duration.dist: 'lognorm' is not one of: lognormal, "
                                  "exponential, uniform (did you mean 'lognormal'?)" },
    { "synth_too_many_gpus", EXP(SYN(JOBS ", " MIX ", " DUR ", \"workers\": { \"64\": 1 }")),
      { RUN }, 2, AT("e.json", 5) "workload.workers.64: job 0 asks for 64 GPUs" },
    { "synth_workers_leading_zero", EXP(SYN(JOBS ", " MIX ", " DUR ", \"workers\": { \"04\": 1 }")),
      { RUN }, 2, AT("e.json", 5) "workload.workers.04: keys must be GPU counts >= 1, written "
                                  "plainly" },
    { "synth_workers_twice",
      EXP(SYN(JOBS ", " MIX ", " DUR ", \"workers\": { \"2\": 1, \"2\": 3 }")),
      { RUN }, 2, AT("e.json", 5) "workload.workers.2: 2 GPUs given twice" },
    { "synth_duration_other_parameter",
      EXP(SYN(JOBS ", " MIX ", \"duration\": { \"dist\": \"exponential\", \"mean_s\": 600, "
              "\"sigma\": 2 }")),
      { RUN }, 2, AT("e.json", 5) "workload.duration.sigma: not a parameter of the exponential "
                                  "distribution (it takes mean_s)" },
    { "synth_users_and_tenants",
      EXP(SYN(JOBS ", " DUR ", \"users\": 4, \"tenants\": [{ \"name\": \"a\", " MIX " }]")),
      { RUN }, 2, AT("e.json", 5) "workload.users: give either users or tenants, not both" },
    { "synth_tenant_names_twice",
      EXP(SYN(JOBS ", " DUR ", \"tenants\": [{ \"name\": \"a\", " MIX " }, { \"name\": \"a\", "
              MIX " }]")),
      { RUN }, 2, AT("e.json", 5) "workload.tenants[1].name: two tenants are named 'a'" },
    { "synth_job_type_twice",
      EXP(SYN(JOBS ", " DUR ", \"job_types\": { \"" R50 "\": 1, \"resnet-50 (batch size 64)\": 1 }")),
      { RUN }, 2, AT("e.json", 5) "workload.job_types.resnet-50 (batch size 64): job type '"
                                  R50 "' is in the mix twice" },
    { "synth_start_typo", EXP(SYN(JOBS ", \"start\": \"steady\", " MIX ", " DUR)),
      { RUN }, 2, AT("e.json", 5) "workload.start: 'steady' is not one of: empty, stationary" },
    { "synth_start_unbounded", EXP(SYN(JOBS ", \"start\": \"stationary\", " MIX ", " DUR)),
      { RUN }, 2, AT("e.json", 5) "workload.start: a stationary start needs bounded durations: "
                                  "the largest (1e+09 s) is 1.67e+06 times the mean (600 s)" },
    { "workload_note_number", EXP(E_HWL("\"note\": 5")),
      { RUN }, 2, AT("e.json", 5) "workload.note: must be a string" },
    { "synth_unknown_job_type", EXP(SYN(JOBS ", \"job_types\": { \"" R51 "\": 1 }, " DUR)),
      { RUN }, 2, AT("e.json", 5) "workload.job_types." R51 ": unknown job type '" R51 "' "
                                  DYM_R50 },

    /* -------- the command line -------- */
    { "cli_unknown_command", EXP(E_OK),
      { "frobnicate", "--db", "%d/t.db" }, 2, "hetsim: unknown command 'frobnicate'" },
    { "cli_unknown_option", EXP(E_OK),
      { RUN, "--bogus" }, 2, "hetsim run: unknown or incomplete option '--bogus'" },
    { "cli_missing_argument", EXP(E_OK),
      { RUN, "--seed" }, 2, "hetsim run: unknown or incomplete option '--seed'" },
    { "cli_seed_word", EXP(E_OK),
      { RUN, "--seed", "abc" }, 2, "hetsim run: --seed needs an integer >= 0, not 'abc'" },
    { "cli_seed_empty", EXP(E_OK),
      { RUN, "--seed", "" }, 2, "hetsim run: --seed needs an integer >= 0, not ''" },
    { "cli_seed_overflow", EXP(E_OK),
      { RUN, "--seed", BIG }, 2, "hetsim run: --seed needs an integer >= 0, not '" BIG "'" },
    { "cli_set_without_equals", EXP(E_OK),
      { RUN, "--set", "seed5" }, 2, "hetsim: --set: seed5: expected key=value" },
    { "cli_set_empty_key", EXP(E_OK),
      { RUN, "--set", "=5" }, 2, "hetsim: --set: =5: expected key=value" },
    { "cli_set_empty_segment", EXP(E_OK),
      { RUN, "--set", "sim..sample_s=5" }, 2,
      "hetsim: --set sim..sample_s: empty key in override" },
    { "cli_set_through_number", EXP(E_OK),
      { RUN, "--set", "seed.x=1" }, 2,
      "hetsim: --set seed.x: 'x' is inside a value that is not an object" },
    { "cli_set_bad_value", EXP(E_OK),
      { RUN, "--set", "sim.sample_s=-1" }, 2,
      "hetsim: --set sim.sample_s: sim.sample_s: -1 is out of range [0, 1e+09]" },
    { "cli_set_unknown_field", EXP(E_OK),
      { RUN, "--set", "sim.sampel_s=5" }, 2,
      "hetsim: --set sim.sampel_s: sim.sampel_s: unknown field (did you mean 'sample_s'?" },
    { "cli_set_inline_cluster", EXP(E_OK),
      { RUN, "--set", "cluster={\"network\": \"ib-100g\", \"groups\": [" GRP("0", "V100", "4", "")
                      "]}" }, 2,
      "hetsim: --set cluster: cluster.groups[0].count: 0 is out of range [1, 1000000]" },
    { "cli_policy_unknown", EXP(E_OK),
      { RUN, "--policy", "fifoo" }, 2,
      "hetsim: --policy: unknown policy 'fifoo' (did you mean 'fifo'?)" },
    { "cli_report_format", EXP(E_OK),
      { "report", "--db", "%d/t.db", "--format", "xml" }, 2,
      "hetsim report: --format must be table, csv or markdown, not 'xml'" },
    { "cli_plot_format", EXP(E_OK),
      { "plot", "--db", "%d/t.db", "--format", "jpg", "--out", "%d/plots" }, 2,
      "hetsim: --format: 'jpg' must be png, svg or pdf", .setup = empty_db },
    { "cli_report_all_and_columns", EXP(E_OK),
      { "report", "--db", "%d/t.db", "--all", "--columns", "jct_mean" }, 2,
      "hetsim report: --all or --columns, not both" },
    { "cli_report_html_all", EXP(E_OK),
      { "report", "--db", "%d/t.db", "--html", "%d/r.html", "--all" }, 2,
      "hetsim report: --html takes --sweep or --experiment, --baseline and --db" },

    /* -------- the database (I/O, not the user's input: exit 1) -------- */
    { "db_directory_uncreatable", { { "e.json", E_OK }, { "afile", "a regular file" } },
      { "run", "%d/e.json", "--db", "%d/afile/sub/t.db", "-q" }, 1,
      "hetsim: %d/afile/sub/t.db: cannot create its directory" },
    { "db_is_a_directory", EXP(E_OK),
      { "run", "%d/e.json", "--db", "%d", "-q" }, 1, "hetsim: %d: cannot open database" },
    { "db_not_a_database", EXP(E_OK),
      { RUN }, 1, "hetsim: %d/t.db: *not a database", .setup = garbage_db },
    { "db_wal_blocked", EXP(E_OK),
      { RUN }, 1, "hetsim: %d/t.db: *unable to open", .setup = wal_blocked_db },
    /* -------- the microservice world: applications, SLA, cluster, workloads -------- */
    { "micro_ok", MICRO(MOK), { RUN }, 0, "", 1 },
    { "micro_graph_cycle",
      MICRO(MAPP(MA, MB, MCALLS(MROOT ", { \"id\": \"x\", \"service\": \"b\", \"parent\": \"y\" }, "
                                "{ \"id\": \"y\", \"service\": \"b\", \"parent\": \"x\" }"))),
      { RUN }, 2, AT("a.json", 7) "graphs[0].calls: graph 'g' has a cycle of calls" },
    { "micro_call_self_parent",
      MICRO(MAPP(MA, MB, MCALLS(MROOT ", { \"id\": \"x\", \"service\": \"b\", \"parent\": \"x\" }"))),
      { RUN }, 2, AT("a.json", 7) "graphs[0].calls[1].parent: call 'x' names itself as its parent" },
    { "micro_call_unknown_service",
      MICRO(MAPP(MA, MB, MCALLS(MROOT ", { \"id\": \"x\", \"service\": \"bb\", \"parent\": \"r\" }"))),
      { RUN }, 2, AT("a.json", 7) "graphs[0].calls[1].service: a call to an unknown service 'bb' "
      "(did you mean 'b'?)" },
    { "micro_call_unknown_parent",
      MICRO(MAPP(MA, MB, MCALLS(MROOT ", { \"id\": \"x\", \"service\": \"b\", \"parent\": \"q\" }"))),
      { RUN }, 2, AT("a.json", 7) "graphs[0].calls[1].parent: no call of graph 'g' has the id 'q'" },
    { "micro_two_roots",
      MICRO(MAPP(MA, MB, MCALLS(MROOT ", { \"id\": \"x\", \"service\": \"b\" }"))),
      { RUN }, 2, AT("a.json", 7) "graphs[0].calls: graph 'g' has two root calls" },
    { "micro_call_id_twice",
      MICRO(MAPP(MA, MB, MCALLS(MROOT ", { \"id\": \"r\", \"service\": \"b\", \"parent\": \"r\" }"))),
      { RUN }, 2, AT("a.json", 7) "graphs[0].calls[1].id: call id 'r' is used twice in graph 'g'" },
    { "micro_service_twice", MICRO(MAPP(MA, MSVC("a", "-0.01", "2", "100"), MG)),
      { RUN }, 2, AT("a.json", 4) "services[1].name: service 'a' is named twice" },
    { "micro_fit_rate_not_positive", MICRO(MAPP(MA, MSVC("b", "-0.03", "2", "100"), MG)),
      { RUN }, 2, AT("a.json", 4) "services[1].latency: the rate a*w + b is -1 per ms at load "
      "100, not positive" },
    { "micro_fit_rate_zero_load", MICRO(MAPP(MA, MSVC("b", "-0.03", "0", "100"), MG)),
      { RUN }, 2, AT("a.json", 4) "services[1].latency.b: 0 is out of range [1e-12, 1e+12]" },
    { "micro_erms_fit_below_shift",
      MICRO(MAPP(MA, "  { \"name\": \"b\", \"latency\": { \"model\": \"erms\", \"shift_ms\": 5, "
                 "\"max_load\": 10, \"before\": { \"slope\": 0.1, \"intercept\": 2 } } }", MG)),
      { RUN }, 2, AT("a.json", 4) "services[1].latency: the P95 latency at load 0 is 2 ms, not "
      "above the shift 5 ms" },
    { "micro_sla_below_minimum",
      { { "e.json", MEXPF("\"a.json\"", "1.5", MWL, "[\"derm\"]", "") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 6) "sla_ms: 1.5 ms is below the minimum latency of graph type "
      "'g', 2 ms, which no number of containers shortens (the shifts along its slowest path: "
      "a 1 ms + b 1 ms)" },
    { "micro_nodes_too_small",
      { { "e.json", "{\n \"name\": \"m\",\n \"domain\": \"micro\",\n \"cluster\": { \"name\": "
          "\"m\", \"groups\": [ { \"count\": 2, \"cpus\": 0.1, \"memory_gb\": 16 } ] },\n \"app\": "
          "\"a.json\",\n \"sla_ms\": 50,\n \"workload\": " MWL ",\n \"policies\": [\"derm\"]\n}\n" },
        { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0]: a node of 0.1 cores and 16 GB holds no "
      "container (the smallest takes 0.2 cores and 1 GB)" },
    { "micro_cluster_without_cpus",
      { { "e.json", "{\n \"name\": \"m\",\n \"domain\": \"micro\",\n \"cluster\": \"mixed_small\",\n "
          "\"app\": \"a.json\",\n \"sla_ms\": 50,\n \"workload\": " MWL ",\n \"policies\": "
          "[\"derm\"]\n}\n" }, { "a.json", MOK } },
      { RUN }, 2, "cluster 'mixed-small' has no CPU node groups" },
    { "micro_cpu_group_with_gpu_field",
      EXP(E_CL("{ \"network\": \"ib-100g\", \"groups\": [ { \"count\": 1, \"cpus\": 8, "
               "\"memory_gb\": 8, \"gpus_per_node\": 4 } ] }")),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].gpus_per_node: a CPU node group (no \"gpu\") "
      "has no gpus_per_node" },
    { "micro_gpu_group_with_cpus",
      EXP(E_CL("{ \"network\": \"ib-100g\", \"groups\": [" GRP("1", "V100", "4", ", \"cpus\": 8")
               "] }")),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].cpus: a GPU node group has no cpus" },
    { "micro_mix_unknown_graph",
      { { "e.json", MEXP_WL(MWLX("\"mix\": { \"gg\": 1 }")) }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 7) "graph: unknown graph type 'gg' (did you mean 'g'?)" },
    { "micro_measure_jobs",
      { { "e.json", MEXP(",\n \"sim\": { \"measure_jobs\": [1, 5] }") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 9) "sim.measure_jobs: the microservice world measures over time: "
      "use sim.measure_window" },
    { "micro_timeline",
      { { "e.json", MEXP(",\n \"sim\": { \"timeline\": true }") }, { "a.json", MOK } },
      { RUN }, 0, "", 1 },
    { "micro_timeline_off", { { "e.json", MEXP(",\n \"sim\": { \"timeline\": false }") },
                              { "a.json", MOK } }, { RUN }, 0, "", 1 },
    { "micro_policy_round_s",
      { { "e.json", MEXP_POL("[{ \"name\": \"derm\", \"round_s\": 30 }]") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 8) "policies[0]: policy 'derm' takes no round_s: microservice "
      "policies decide every sim.interval_s" },
    { "micro_training_policy",
      { { "e.json", MEXP_POL("[\"fifo\"]") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 8) "policies[0]: policy 'fifo' is for the training domain; the "
      "experiment is micro" },
    { "micro_policy_param",
      { { "e.json", MEXP_POL("[{ \"name\": \"derm\", \"predictor\": \"lstm\" }]") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 8) "policies[0].predictor" },
    { "micro_training_format",
      { { "e.json", MEXP_WL(WL_T) }, { "a.json", MOK }, { "t.csv", OK_TRACE } },
      { RUN }, 2, AT("e.json", 7) "workload.format: the format is for the training domain; the "
      "experiment is micro" },
    { "micro_poisson_negative_knot",
      { { "e.json", MEXP_WL(MWLX("\"rate_shape\": [1, -2]")) }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 7) "workload.rate_shape[1]: a multiplier >= 0" },
    { "micro_poisson_zero_knots",
      { { "e.json", MEXP_WL(MWLX("\"rate_shape\": [0, 0]")) }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 7) "workload.rate_shape: every multiplier is 0" },
    { "micro_poisson_batch_without_mix",
      { { "e.json", MEXP_WL(MWLX("\"batch_s\": 60")) }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 7) "workload.batch_s: batches are counted per graph type" },
    { "micro_poisson_change_without_mix",
      { { "e.json", MEXP_WL(MWLX("\"mix_change\": { \"every_s\": 60 }")) }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 7) "workload.mix_change: needs a mix" },
    { "micro_poisson_mix_file_without_columns",
      { { "e.json", MEXP_WL(MWLX("\"mix_file\": \"a.json\"")) }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 7) "workload.mix_columns: required with mix_file" },
    { "micro_poisson_rate_file_value",
      { { "e.json", MEXP_WL(MWLX("\"rate_file\": \"r.csv\"")) }, { "a.json", MOK },
        { "r.csv", "rate\n1\nfast\n" } },
      { RUN }, 2, AT("r.csv", 3) "rate: 'fast' is not a number >= 0" },
    { "micro_poisson_unknown_field",
      { { "e.json", MEXP_WL(MWLX("\"rate_shap\": [1]")) }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 7) "workload.rate_shap: unknown field (did you mean 'rate_shape'?" },
    { "micro_trace_ok", MTRACE("arrival_s,graph\n0,g\n1.5,g\n"), { RUN }, 0, "", 1 },
    { "micro_trace_decreasing", MTRACE("arrival_s,graph\n5,g\n1.5,g\n"),
      { RUN }, 2, AT("r.csv", 3) "arrival_s: 1.5 is before the previous request's 5.000000" },
    { "micro_trace_bad_arrival", MTRACE("arrival_s,graph\n-1,g\n"),
      { RUN }, 2, AT("r.csv", 2) "arrival_s: '-1' is not a time >= 0" },
    { "micro_trace_unknown_graph", MTRACE("arrival_s,graph\n0,g\n1,h\n"),
      { RUN }, 2, AT("r.csv", 3) "graph: unknown graph type 'h'" },
    { "micro_trace_id_twice", MTRACE("id,arrival_s,graph\n1,0,g\n1,1,g\n"),
      { RUN }, 2, AT("r.csv", 3) "id: request id 1 appears twice" },
    { "micro_trace_unknown_column", MTRACE("arrival_s,grap\n0,g\n"),
      { RUN }, 2, AT("r.csv", 1) "grap: unknown column (did you mean 'graph'?)" },
    { "micro_trace_missing_column", MTRACE("arrival_s\n0\n"),
      { RUN }, 2, AT("r.csv", 1) "graph: required column is missing" },
    { "alibaba_ok", ALI(AHDR "0,T,1,0,,http,svcAAAAAAAA,x,10\n1,T,2,0.1,svcAAAAAAAA,rpc,svcBBBBBBBB,x,-1\n"),
      { RUN }, 0, "", 1 },
    { "alibaba_missing_rt", ALI(",traceid,timestamp,rpcid,um,rpctype,dm\n0,T,1,0,,http,a\n"),
      { RUN }, 2, AT("ali.csv", 1) "rt: column missing" },
    { "alibaba_bad_rpcid", ALI(AHDR "0,T,1,0..1,,http,a,x,10\n"),
      { RUN }, 2, AT("ali.csv", 2) "rpcid: '0..1' is not an rpc position" },
    { "alibaba_bad_rt", ALI(AHDR "0,T,1,0,,http,a,x,slow\n"),
      { RUN }, 2, AT("ali.csv", 2) "rt: 'slow' is not a response time in ms" },
    { "alibaba_short_row", ALI(AHDR "0,T,1,0,,http,a,x,10\n1,T,2,0.1\n"),
      { RUN }, 2, AT("ali.csv", 3) "4 fields, the header has 9" },
    { "alibaba_empty_trace_id", ALI(AHDR "0,,1,0,,http,a,x,10\n"),
      { RUN }, 2, AT("ali.csv", 2) "traceid: empty" },
    { "alibaba_no_rows", ALI(AHDR), { RUN }, 2, AT("ali.csv", 1) "no calls after the header" },
    { "alibaba_unknown_option",
      { { "e.json", MEXPF("{ \"alibaba\": \"ali.csv\", \"max_graph\": 3 }", "5000", MWL,
                          "[\"derm\"]", "") }, { "ali.csv", AHDR "0,T,1,0,,http,a,x,10\n" } },
      { RUN }, 2, AT("e.json", 5) "app.max_graph: unknown field (did you mean 'max_graphs'?" },
    { "derm_fit_missing_column",
      { { "e.json", MEXPF("\"pars.csv\"", "5000", MWL, "[\"derm\"]", "") },
        { "pars.csv", ",chain,ms,n,a1,b1\n0,1,0,22,-0.05,6.6\n" } },
      { RUN }, 2, AT("pars.csv", 1) "s: column missing" },
    { "derm_fit_bad_chain",
      { { "e.json", MEXPF("\"pars.csv\"", "5000", MWL, "[\"derm\"]", "") },
        { "pars.csv", ",chain,ms,n,a1,b1,s\n0,3,0,22,-0.05,6.6,0.3\n" } },
      { RUN }, 2, AT("pars.csv", 2) "chain: 3: Derm's chains are 1 (simple) and 2 (complex)" },
    { "derm_fit_ms_beyond_int",     /* found by fuzz_microapp: the cast came before the range */
      { { "e.json", MEXPF("\"pars.csv\"", "5000", MWL, "[\"derm\"]", "") },
        { "pars.csv", ",chain,ms,n,a1,b1,s\n0,1,1e66,22,-0.05,6.6,0.3\n" } },
      { RUN }, 2, AT("pars.csv", 2) "ms: 1e66: TrainTicket's services are 0 to 11" },
    { "derm_fit_chain_beyond_int",
      { { "e.json", MEXPF("\"pars.csv\"", "5000", MWL, "[\"derm\"]", "") },
        { "pars.csv", ",chain,ms,n,a1,b1,s\n0,-3e40,0,22,-0.05,6.6,0.3\n" } },
      { RUN }, 2, AT("pars.csv", 2) "chain: -3e40: Derm's chains are 1 (simple) and 2 "
      "(complex)" },
    /* the truths (queueing: FIFO containers; fit), routing, the load window, concurrency */
    { "micro_truth_fit_ok", { { "e.json", MEXP(",\n \"truth\": \"fit\"") }, { "a.json", MOK } },
      { RUN }, 0, "", 1 },
    { "micro_truth_unknown", { { "e.json", MEXP(",\n \"truth\": \"queue\"") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 9) "truth: 'queue' is not one of" },
    { "micro_truth_queueing_analytical",
      { { "e.json", MEXP(",\n \"mode\": \"analytical\", \"truth\": \"queueing\"") },
        { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 9) "truth: the analytical mode computes the fit's latency "
      "distribution, so its truth is \"fit\" by definition" },
    { "micro_routing_jsq_ok",
      { { "e.json", MEXP(",\n \"routing\": \"jsq\"") }, { "a.json", MOK } }, { RUN }, 0, "", 1 },
    { "micro_routing_unknown",
      { { "e.json", MEXP(",\n \"routing\": \"least\"") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 9) "routing: 'least' is not one of" },
    { "micro_load_window_zero",
      { { "e.json", MEXP(",\n \"sim\": { \"load_window_s\": 0 }") }, { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 9) "sim.load_window_s: 0 is out of range" },
    { "micro_concurrency_ok",
      MICRO(MAPP("  { \"name\": \"a\", \"concurrency\": 4, \"latency\": { \"model\": "
                 "\"derm\", \"a\": -0.01, \"b\": 2, \"shift_ms\": 1, \"max_load\": 100 } }",
                 MB, MG)), { RUN }, 0, "", 1 },
    { "micro_concurrency_zero",
      MICRO(MAPP("  { \"name\": \"a\", \"concurrency\": 0, \"latency\": { \"model\": "
                 "\"derm\", \"a\": -0.01, \"b\": 2, \"shift_ms\": 1, \"max_load\": 100 } }",
                 MB, MG)),
      { RUN }, 2, AT("a.json", 3) "services[0].concurrency: 0 is out of range" },
    { "micro_concurrency_fraction",
      MICRO(MAPP("  { \"name\": \"a\", \"concurrency\": 1.5, \"latency\": { \"model\": "
                 "\"derm\", \"a\": -0.01, \"b\": 2, \"shift_ms\": 1, \"max_load\": 100 } }",
                 MB, MG)),
      { RUN }, 2, AT("a.json", 3) "services[0].concurrency" },
    { "alibaba_concurrency_zero",
      { { "e.json", MEXPF("{ \"alibaba\": \"ali.csv\", \"service\": { \"concurrency\": 0 } }",
                          "5000", MWL, "[\"derm\"]", "") },
        { "ali.csv", AHDR "0,T,1,0,,http,svcAAAAAAAA,x,10\n" } },
      { RUN }, 2, AT("e.json", 5) "app.service.concurrency: 0 is out of range" },

    /* -------- serving (sim/serve, workloads/trace_azure.c, trace_requests.c, synth_llm.c) */
    { "serve_azure_ok", AZFILE(S_OK, AZ_OK), { RUN }, 0, NULL, 1 },
    { "serve_azure_crlf_ok", AZFILE(S_OK, "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                                         "2023-11-16 18:17:03.97,100,10\r\n"), { RUN }, 0, NULL, 1 },
    { "serve_azure_zero_prompt", AZFILE(S_OK, AZ_OK AZ("18:17:05", "0", "10")), { RUN }, 2,
      AT("a.csv", 4) "ContextTokens: 0 tokens: a request needs at least one prompt token" },
    { "serve_azure_zero_output", AZFILE(S_OK, AZ_OK AZ("18:17:05", "10", "0")), { RUN }, 2,
      AT("a.csv", 4) "GeneratedTokens: 0 tokens: a request needs at least one output token" },
    { "serve_azure_bad_tokens", AZFILE(S_OK, AZHDR AZ("18:17:05", "ten", "1")), { RUN }, 2,
      AT("a.csv", 2) "ContextTokens: 'ten' is not a token count" },
    { "serve_azure_bad_time", AZFILE(S_OK, AZHDR "2023-13-16 18:17:03,100,10\n"), { RUN }, 2,
      AT("a.csv", 2) "TIMESTAMP: '2023-13-16 18:17:03' is not a time" },
    { "serve_azure_feb_29", AZFILE(S_OK, AZHDR "2023-02-29 18:17:03,100,10\n"), { RUN }, 2,
      AT("a.csv", 2) "TIMESTAMP: '2023-02-29 18:17:03' is not a time" },
    { "serve_azure_decreasing", AZFILE(S_OK, AZHDR AZ("18:17:05", "10", "1")
                                              AZ("18:17:04", "10", "1")), { RUN }, 2,
      AT("a.csv", 3) "TIMESTAMP: '2023-11-16 18:17:04' is earlier than the row before" },
    { "serve_azure_header", AZFILE(S_OK, "TIMESTAMP,Context,GeneratedTokens\n"), { RUN }, 2,
      AT("a.csv", 1) "header: expected TIMESTAMP,ContextTokens,GeneratedTokens" },
    { "serve_azure_fields", AZFILE(S_OK, AZHDR "2023-11-16 18:17:05,10\n"), { RUN }, 2,
      AT("a.csv", 2) "expected 3 fields, found 2" },
    { "serve_azure_empty", AZFILE(S_OK, AZHDR), { RUN }, 2,
      "empty trace: no requests after the header" },
    { "serve_prompt_beyond_context", AZFILE(S_OK, AZ_OK AZ("18:17:05", "5000", "10")), { RUN }, 2,
      AT("a.csv", 4) "ContextTokens: 5000 prompt + 10 output tokens exceed the context of "
      "llama-2-7b (4096 tokens" },
    { "serve_prompt_truncated_ok", AZFILE(S_MORE("\"sim\": { \"overlong\": \"truncate\" }"),
                                          AZ_OK AZ("18:17:05", "5000", "10")), { RUN }, 0, NULL, 1 },
    { "serve_drain_unknown", AZFILE(S_MORE("\"sim\": { \"drain\": \"move\" }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "sim.drain: 'move' is not one of: finish, migrate" },
    { "serve_request_sample_above_one",
      AZFILE(S_MORE("\"sim\": { \"request_sample\": 1.5 }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "sim.request_sample: 1.5 is out of range" },
    { "serve_request_sample_negative",
      AZFILE(S_MORE("\"sim\": { \"request_sample\": -0.1 }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "sim.request_sample: -0.1 is out of range" },
    { "serve_request_sample_not_a_number",
      AZFILE(S_MORE("\"sim\": { \"request_sample\": \"all\" }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "sim.request_sample: must be a number" },
    { "serve_weights_do_not_fit", AZFILE(SEXPF("\"llama-2-70b\"", S_AZ, S_POL, ""), AZ_OK),
      { RUN }, 2, AT("e.json", 7) "policies[0]: policy 'highend_only' finds no deployment: "
      "llama-2-70b (138 GB of fp16 weights) fits no group or pipeline of the A100-80GB GPUs" },
    { "serve_uniform_pp_does_not_fit", AZFILE(SEXPF("\"llama-2-70b\"", S_AZ,
                                                    "[\"uniform_pp\"]", ""), AZ_OK),
      { RUN }, 2, AT("e.json", 7) "policies[0]: policy 'uniform_pp' deploys what cannot run: "
      "cannot hold llama-2-70b: instance 0 stage 0 puts 80 layers on 1 x A100-80GB" },
    { "serve_unknown_model", AZFILE(SEXPF("\"llama-2-7c\"", S_AZ, S_POL, ""), AZ_OK), { RUN },
      2, AT("e.json", 5) "model: unknown model 'llama-2-7c' (did you mean 'llama-2-7b'?)" },
    { "serve_model_missing", AZFILE("{\n \"domain\": \"serving\",\n \"cluster\": \"hetis_testbed\","
                                    "\n \"workload\": " S_AZ ",\n \"policies\": " S_POL "\n}\n",
                                    AZ_OK), { RUN }, 2, "model: required field is missing" },
    { "serve_unknown_gpu", AZFILE("{\n \"domain\": \"serving\",\n \"model\": " S_MODEL ",\n"
                                  " \"cluster\": { \"network\": \"ib-100g\", \"groups\": [ { "
                                  "\"count\": 1, \"gpu\": \"A200\", \"gpus_per_node\": 1 } ] },\n"
                                  " \"workload\": " S_AZ ",\n \"policies\": " S_POL "\n}\n", AZ_OK),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].gpu: unknown GPU type 'A200'" },
    { "serve_training_policy", AZFILE(SEXPF(S_MODEL, S_AZ, "[\"fifo\"]", ""), AZ_OK), { RUN },
      2, AT("e.json", 7) "policies[0]: policy 'fifo' is for the training domain; the "
      "experiment is serving" },
    { "serve_training_format", AZFILE(S_WL("{ \"format\": \"hetsim\", \"trace\": \"ok.csv\" }"),
                                      AZ_OK), { RUN }, 2,
      "workload.format: the format is for the training domain; the experiment is serving" },
    { "serve_policy_param", AZFILE(SEXPF(S_MODEL, S_AZ, "[{ \"name\": \"hetis\", \"gain\": -1 }]",
                                         ""), AZ_OK), { RUN }, 2,
      AT("e.json", 7) "policies[0].gain: -1 is out of range" },
    { "serve_routing_unknown", AZFILE(SEXPF(S_MODEL, S_AZ, "[{ \"name\": \"hexgen\", "
                                            "\"routing\": \"random\" }]", ""), AZ_OK), { RUN }, 2,
      AT("e.json", 7) "policies[0].routing: 'random' is not one of: least_work, round_robin" },
    { "serve_slo_field", AZFILE(S_MORE("\"slo\": { \"ttft\": 1 }"), AZ_OK), { RUN }, 2,
      AT("e.json", 8) "slo.ttft: unknown field (did you mean 'ttft_s'?" },
    { "serve_slo_negative", AZFILE(S_MORE("\"slo\": { \"tpot_s\": -1 }"), AZ_OK), { RUN }, 2,
      AT("e.json", 8) "slo.tpot_s: -1 is out of range" },
    { "serve_whole_prompts_need_the_context", AZFILE(S_MORE("\"sim\": { \"chunked_prefill\": "
                                                            "false, \"max_batch_tokens\": 1024 }"),
                                                     AZ_OK), { RUN }, 2,
      AT("e.json", 8) "sim.max_batch_tokens: 1024 tokens: without chunked prefill an iteration "
      "must hold a whole prompt, up to the context of llama-2-7b (4096 tokens)" },
    { "serve_sim_field_of_training", AZFILE(S_MORE("\"sim\": { \"restore_delay_s\": 5 }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "sim.restore_delay_s: unknown field" },
    { "serve_mem_util", AZFILE(S_MORE("\"sim\": { \"mem_util\": 1.5 }"), AZ_OK), { RUN }, 2,
      AT("e.json", 8) "sim.mem_util: 1.5 is out of range [0.05, 1]" },
    { "serve_timeline", AZFILE(S_MORE("\"sim\": { \"timeline\": true }"), AZ_OK),
      { RUN }, 0, "", 1 },
    { "serve_llm_file_missing", AZFILE(S_MORE("\"models\": { \"llm\": \"nope.json\" }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "models.llm: file 'nope.json' not found" },
    { "serve_requests_ok", RQFILE("arrival_s,prompt_tokens,output_tokens,class\n0,10,5,a\n1,20,5,b\n"),
      { RUN }, 0, NULL, 1 },
    { "serve_requests_unknown_column", RQFILE("arrival_s,prompt,output_tokens\n0,10,5\n"), { RUN },
      2, AT("r.csv", 1) "prompt: unknown column (did you mean 'prompt_tokens'?)" },
    { "serve_requests_missing_column", RQFILE("arrival_s,prompt_tokens\n0,10\n"), { RUN }, 2,
      AT("r.csv", 1) "output_tokens: required column is missing" },
    { "serve_requests_zero_output", RQFILE("arrival_s,prompt_tokens,output_tokens\n0,10,0\n"),
      { RUN }, 2, AT("r.csv", 2) "output_tokens: 0 tokens: a request needs at least one" },
    { "serve_requests_duplicate_id", RQFILE("id,arrival_s,prompt_tokens,output_tokens\n"
                                            "4,0,10,5\n4,1,10,5\n"), { RUN }, 2,
      AT("r.csv", 3) "id: request id 4 appears twice" },
    { "serve_requests_decreasing", RQFILE("arrival_s,prompt_tokens,output_tokens\n5,10,5\n"
                                          "1,10,5\n"), { RUN }, 2,
      AT("r.csv", 3) "arrival_s: 1 is earlier than the row before (5): arrivals must not "
      "decrease" },
    { "serve_requests_trailing_comma", RQFILE("arrival_s,prompt_tokens,output_tokens,\n0,1,1,\n"),
      { RUN }, 2, AT("r.csv", 1) "header: column 4 has no name (a trailing comma?)" },
    { "serve_synth_ok", SYNL("\"requests\": 20, \"rate_per_s\": 5, \"arrivals\": \"gamma\", "
                             "\"cv\": 4, \"prompt\": { \"max\": 3000 }"), { RUN }, 0, NULL, 1 },
    { "serve_synth_overlong", SYNL("\"requests\": 2000, \"rate_per_s\": 5"), { RUN }, 2,
      AT("e.json", 6) "workload.prompt: 7437 prompt + " },
    { "serve_synth_cv_poisson", SYNL("\"requests\": 20, \"rate_per_s\": 5, \"cv\": 4"),
      { RUN }, 2, AT("e.json", 6) "workload.cv: only gamma arrivals have a coefficient of "
      "variation" },
    { "serve_synth_no_requests", SYNL("\"rate_per_s\": 5"), { RUN }, 2,
      AT("e.json", 6) "workload.requests: required field is missing" },
    { "serve_synth_max_below_min", SYNL("\"requests\": 2, \"rate_per_s\": 5, \"prompt\": { "
                                        "\"min\": 100, \"max\": 10 }"), { RUN }, 2,
      AT("e.json", 6) "workload.prompt.max: 10 is below min (100)" },
    { "serve_synth_prompt_field", SYNL("\"requests\": 2, \"rate_per_s\": 5, \"prompt\": { "
                                       "\"mean\": 100 }"), { RUN }, 2,
      AT("e.json", 6) "workload.prompt.mean: unknown field" },
    /* a day's rate envelope (workload.day) */
#define DAYS(x) SYNL("\"requests\": 20, \"rate_per_s\": 5, \"prompt\": { \"max\": 3000 }, " \
                     "\"day\": " x)
    { "serve_day_ok", DAYS("{ \"peak_to_trough\": 4, \"peak_hour\": 20, \"start_hour\": 19 }"),
      { RUN }, 0, NULL, 1 },
    { "serve_day_hourly_ok", DAYS("{ \"hourly\": [1, 2, 0.5] }"), { RUN }, 0, NULL, 1 },
    { "serve_day_ratio_below_one", DAYS("{ \"peak_to_trough\": 0.5 }"), { RUN }, 2,
      AT("e.json", 6) "workload.day.peak_to_trough: 0.5 is out of range [1, " },
    { "serve_day_peak_hour_25", DAYS("{ \"peak_hour\": 25 }"), { RUN }, 2,
      AT("e.json", 6) "workload.day.peak_hour: 25 is out of range" },
    { "serve_day_unknown_field", DAYS("{ \"peak\": 14 }"), { RUN }, 2,
      AT("e.json", 6) "workload.day.peak: unknown field" },
    { "serve_day_hourly_negative", DAYS("{ \"hourly\": [1, -1] }"), { RUN }, 2,
      AT("e.json", 6) "workload.day.hourly[1]: a rate is a number >= 0" },
    { "serve_day_hourly_zero", DAYS("{ \"hourly\": [0, 0] }"), { RUN }, 2,
      AT("e.json", 6) "workload.day.hourly: the rates are all 0" },
    { "serve_day_hourly_empty", DAYS("{ \"hourly\": [] }"), { RUN }, 2,
      AT("e.json", 6) "workload.day.hourly: 1 to 1440 rates" },
    { "serve_day_sine_and_hourly", DAYS("{ \"peak_to_trough\": 2, \"hourly\": [1] }"),
      { RUN }, 2, AT("e.json", 6) "workload.day: give one shape: the sine's peak_to_trough and "
                                  "peak_hour, hourly rates or a rates_file (peak_to_trough and "
                                  "hourly are both given)" },
    { "serve_day_gamma", SYNL("\"requests\": 20, \"rate_per_s\": 5, \"arrivals\": \"gamma\", "
                              "\"day\": {}"), { RUN }, 2,
      AT("e.json", 6) "workload.day: a day's envelope shapes Poisson arrivals" },
    /* its rate series (workload.day.rates_file): the file d.csv */
#define DAYF(text) { { "e.json", DAYS_J("{ \"rates_file\": \"d.csv\" }") }, { "d.csv", text } }
#define DAYS_J(x) S_WL("{ \"format\": \"llm_synthetic\", \"requests\": 20, \"rate_per_s\": " \
                       "5, \"prompt\": { \"max\": 3000 }, \"day\": " x " }")
    { "serve_day_rates_file_ok", DAYF("# a day in four steps\nhour,rate\n0,1\n6.5,3\n\n"
                                      "18,0.5\r\n23.75,0\n"), { RUN }, 0, NULL, 1 },
    { "serve_day_rates_file_columns_swapped", DAYF("rate,hour\n2,0\n1,12\n"), { RUN }, 0,
      NULL, 1 },
    { "serve_day_rates_file_not_found",
      { { "e.json", DAYS_J("{ \"rates_file\": \"nope.csv\" }") } }, { RUN }, 2,
      AT("e.json", 6) "workload.day.rates_file: file 'nope.csv' not found" },
    { "serve_day_rates_file_not_string", { { "e.json", DAYS_J("{ \"rates_file\": 3 }") } },
      { RUN }, 2, AT("e.json", 6) "workload.day.rates_file: must be a string" },
    { "serve_day_rates_file_and_hourly",
      { { "e.json", DAYS_J("{ \"hourly\": [1], \"rates_file\": \"d.csv\" }") },
        { "d.csv", "hour,rate\n0,1\n" } },
      { RUN }, 2, AT("e.json", 6) "workload.day: give one shape: the sine's peak_to_trough and "
                                  "peak_hour, hourly rates or a rates_file (hourly and "
                                  "rates_file are both given)" },
    { "serve_day_rates_file_and_peak_hour",
      { { "e.json", DAYS_J("{ \"peak_hour\": 9, \"rates_file\": \"d.csv\" }") },
        { "d.csv", "hour,rate\n0,1\n" } },
      { RUN }, 2, AT("e.json", 6) "workload.day: give one shape*(peak_hour and rates_file are "
                                  "both given)" },
    { "serve_day_rates_file_empty", DAYF(""), { RUN }, 2,
      "%d/d.csv: empty file: expected a header line (hour,rate)" },
    { "serve_day_rates_file_bad_header", DAYF("hours,rate\n0,1\n"), { RUN }, 2,
      AT("d.csv", 1) "hours: unknown column (did you mean 'hour'?) (the columns are hour, "
      "rate)" },
    { "serve_day_rates_file_no_rate_column", DAYF("hour\n0\n"), { RUN }, 2,
      AT("d.csv", 1) "rate: required column is missing" },
    { "serve_day_rates_file_no_rows", DAYF("hour,rate\n# nothing yet\n"), { RUN }, 2,
      "%d/d.csv: empty trace: no rates after the header" },
    { "serve_day_rates_file_short_row", DAYF("hour,rate\n0,1\n6\n"), { RUN }, 2,
      AT("d.csv", 3) "expected 2 fields, found 1" },
    { "serve_day_rates_file_hour_not_number", DAYF("hour,rate\n0,1\nnoon,2\n"), { RUN }, 2,
      AT("d.csv", 3) "hour: 'noon' is not a number" },
    { "serve_day_rates_file_rate_not_number", DAYF("hour,rate\n0,lots\n"), { RUN }, 2,
      AT("d.csv", 2) "rate: 'lots' is not a rate >= 0" },
    { "serve_day_rates_file_rate_negative", DAYF("hour,rate\n0,1\n5,-2\n"), { RUN }, 2,
      AT("d.csv", 3) "rate: '-2' is not a rate >= 0" },
    { "serve_day_rates_file_rate_nan", DAYF("hour,rate\n0,nan\n"), { RUN }, 2,
      AT("d.csv", 2) "rate: 'nan' is not a rate >= 0" },
    { "serve_day_rates_file_hours_repeat", DAYF("hour,rate\n0,1\n6,2\n6,3\n"), { RUN }, 2,
      AT("d.csv", 4) "hour: 6 is not after the row before's (6): hours must increase" },
    { "serve_day_rates_file_hours_decrease", DAYF("hour,rate\n12,1\n3,2\n"), { RUN }, 2,
      AT("d.csv", 3) "hour: 3 is not after the row before's (12): hours must increase" },
    { "serve_day_rates_file_hour_24", DAYF("hour,rate\n0,1\n24,2\n"), { RUN }, 2,
      AT("d.csv", 3) "hour: 24 is not an hour of the day in [0, 24)" },
    { "serve_day_rates_file_hour_negative", DAYF("hour,rate\n-1,1\n"), { RUN }, 2,
      AT("d.csv", 2) "hour: -1 is not an hour of the day in [0, 24)" },
    { "serve_day_rates_file_all_zero", DAYF("hour,rate\n0,0\n12,0\n"), { RUN }, 2,
      "%d/d.csv: rate: the rates are all 0: no request would ever arrive" },
    { "serve_day_rates_file_overflow", DAYF("hour,rate\n0,1e308\n1,1e308\n"), { RUN }, 2,
      "%d/d.csv: rate: the rates cannot be scaled to mean 1" },
    { "serve_day_rates_file_too_many_rows", DAYF(""), { RUN }, 2,
      AT("d.csv", 1442) "more than 1440 rows (at most one a minute)",
      .setup = many_rows_dayrate },
    { "serve_day_hourly_overflow", DAYS("{ \"hourly\": [1e308, 1e308] }"), { RUN }, 2,
      AT("e.json", 6) "workload.day.hourly: the rates cannot be scaled to mean 1" },
#undef DAYF
#undef DAYS_J
#undef DAYS
    /* the engine profile (sim.engine) and the factors file's engines, calibrations, links */
    { "serve_engine_ok", AZFILE(S_MORE("\"sim\": { \"engine\": \"lmdeploy\" }"), AZ_OK),
      { RUN }, 0, NULL, 1 },
    { "serve_engine_unknown", AZFILE(S_MORE("\"sim\": { \"engine\": \"vllm\" }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "sim.engine: no engine profile 'vllm' in *llm_fit.json (it "
      "has: lmdeploy)" },
    { "serve_engine_not_string", AZFILE(S_MORE("\"sim\": { \"engine\": 1 }"), AZ_OK),
      { RUN }, 2, AT("e.json", 8) "sim.engine: must be a string" },
    { "serve_fit_second_engine_ok", FITFILE(FIT_ENGINE("b"),
                                            FITJ_OK(FIT_ENG_OK("a") ", " FIT_ENG_OK("b"))),
      { RUN }, 0, NULL, 1 },
    { "serve_fit_engine_not_in_file", FITFILE(FIT_ENGINE("lmdeploy"), FITJ_OK(FIT_ENG_OK("a"))),
      { RUN }, 2, AT("e.json", 8) "sim.engine: no engine profile 'lmdeploy' in *f.json (it "
      "has: a)" },
    { "serve_fit_no_engines", FITFILE("", "{\n \"default\": " FIT_DEF("") ",\n \"system\": "
                                      FIT_SYS("") "\n}\n"),
      { RUN }, 2, AT("f.json", 1) "engines: required field is missing" },
    { "serve_fit_engines_empty", FITFILE("", FITJ_OK("")),
      { RUN }, 2, AT("f.json", 5) "engines: empty: at least one engine profile" },
    { "serve_fit_engine_licence_missing", FITFILE("", FITJ_OK(FIT_ENG("a", ""))),
      { RUN }, 2, AT("f.json", 5) "engines.a.licence: required field is missing" },
    { "serve_fit_engine_seq_negative", FITFILE("", FITJ_OK("\"a\": { \"iter_ms\": 1, "
                                               "\"seq_ms\": -1, \"first_ms\": 5, \"source\": "
                                               "\"s\", \"licence\": \"l\" }")),
      { RUN }, 2, AT("f.json", 5) "engines.a.seq_ms: -1 is out of range" },
    { "serve_fit_engine_unknown_field", FITFILE("", FITJ_OK(FIT_ENG("a", ", \"licence\": "
                                                             "\"l\", \"per_seq_ms\": 1"))),
      { RUN }, 2, AT("f.json", 5) "engines.a.per_seq_ms: unknown field" },
    { "serve_fit_iter_in_system", FITFILE("", FITJ(FIT_DEF(""), "",
                                                   FIT_SYS(", \"iter_ms\": 1"),
                                                   FIT_ENG_OK("a"))),
      { RUN }, 2, AT("f.json", 4) "system.iter_ms: an engine's overhead: it belongs under "
      "\"engines\"" },
    { "serve_fit_default_from_unknown", FITFILE("", FITJ(FIT_DEF(", \"from\": [\"A200\"]"), "",
                                                         FIT_SYS(""), FIT_ENG_OK("a"))),
      { RUN }, 2, AT("f.json", 2) "default.from[0]: not a GPU type" },
    { "serve_fit_default_from_uncalibrated",
      FITFILE("", FITJ(FIT_DEF(", \"from\": [\"A100-80GB\", \"T4\"]"),
                       "\"A100-80GB\": " FIT_DEF(", \"data\": \"mine\""), FIT_SYS(""),
                       FIT_ENG_OK("a"))),
      { RUN }, 2, AT("f.json", 2) "default.from[1]: 'T4' has no factors of its own under "
      "\"gpus\"" },
    { "serve_fit_gpu_data_not_string",
      FITFILE("", FITJ(FIT_DEF(""), "\"A100-80GB\": " FIT_DEF(", \"data\": 3"), FIT_SYS(""),
                       FIT_ENG_OK("a"))),
      { RUN }, 2, AT("f.json", 3) "gpus.A100-80GB.data: must be a string" },
    { "serve_fit_from_on_a_gpu", FITFILE("", FITJ(FIT_DEF(""), "\"A100-80GB\": "
                                                  FIT_DEF(", \"from\": []"), FIT_SYS(""),
                                                  FIT_ENG_OK("a"))),
      { RUN }, 2, AT("f.json", 3) "gpus.A100-80GB.from: unknown field" },
    { "serve_fit_eta_link_above_one", FITFILE("", FITJ(FIT_DEF(""), "",
                                                       "{ \"eta_attn\": 0.6, \"eta_link\": "
                                                       "1.4, \"lat_factor\": 1, \"coll_us\": "
                                                       "10 }", FIT_ENG_OK("a"))),
      { RUN }, 2, AT("f.json", 4) "system.eta_link: 1.4 is out of range [0.001, 1]" },
    /* -------- multiplexing: the "multiplex" section and its interference tables -------- */
    { "mux_ok", MUXFILES(MUX(MUXG), GPHDR GPAIR), { RUN }, 0, NULL, 1 },
    { "mux_gavel_missing_column", MUXFILES(MUX(MUXG), "worker_type,job_a,job_b,norm_speed_a\n"),
      { RUN }, 2, AT("i.csv", 1) "norm_speed_b: required column is missing" },
    { "mux_gavel_unknown_column", MUXFILES(MUX(MUXG), "worker_type,job_a,job_b,norm_speed_a,"
                                           "norm_speed_b,norm_sped\n"),
      { RUN }, 2, AT("i.csv", 1) "norm_sped: not a column of Gavel's co-location pairs" },
    { "mux_gavel_speed_zero", MUXFILES(MUX(MUXG), GPHDR "v100," R50 "," R50 ",0,0.5\n"),
      { RUN }, 2, AT("i.csv", 2) "norm_speed_a: '0' is not a number in [1e-06, 10]" },
    { "mux_gavel_unknown_job", MUXFILES(MUX(MUXG), GPHDR GPAIR "v100," R50 "," R51 ",0.5,0.5\n"),
      { RUN }, 2, AT("i.csv", 3) "job_b: '" R51 "' is not a known job type" },
    { "mux_gavel_unknown_gpu", MUXFILES(MUX(MUXG), GPHDR "v101," R50 "," R50 ",0.5,0.5\n"),
      { RUN }, 2, AT("i.csv", 2) "worker_type: 'v101' is not a GPU type of the catalog" },
    { "mux_gavel_short_row", MUXFILES(MUX(MUXG), GPHDR "v100," R50 "," R50 ",0.5\n"),
      { RUN }, 2, AT("i.csv", 2) "4 fields, the header has 5" },
    { "mux_gavel_speed_not_coloc_over_iso", MUXFILES(MUX(MUXG), "worker_type,job_a,job_b,"
          "norm_speed_a,norm_speed_b,iso_tput_a_steps_per_s,coloc_tput_a_steps_per_s\n"
          "v100," R50 "," R50 ",0.5,0.5,10,6\n"),
      { RUN }, 2, AT("i.csv", 2) "norm_speed_a: 0.5 is not coloc_tput_a_steps_per_s / "
                                 "iso_tput_a_steps_per_s = 0.6" },
    { "mux_gavel_empty", MUXFILES(MUX(MUXG), ""),
      { RUN }, 2, "i.csv: empty file: expected a header naming the columns" },
    { "mux_iadeep_bad_count", MUXFILES(MUX(MUXI), IAHDR "1,1,01,12,0.9\n"),
      { RUN }, 2, AT("i.csv", 2) "squeezenet_num: '12' is not a copy count in binary" },
    { "mux_iadeep_too_many_jobs", MUXFILES(MUX(MUXI), IAHDR "1,1,11,10,0.9\n"),
      { RUN }, 2, AT("i.csv", 2) "squeezenet_num: more than 4 jobs on one GPU" },
    { "mux_iadeep_unknown_model", MUXFILES(MUX(MUXI), "vgg19,vgg19_num,sum_interference\n"),
      { RUN }, 2, AT("i.csv", 1) "vgg19: 'vgg19' is not a known job type" },
    { "mux_iadeep_num_without_flag", MUXFILES(MUX(MUXI), "vgg16_num,sum_interference\n"),
      { RUN }, 2, AT("i.csv", 1) "vgg16_num: no presence column 'vgg16' for it" },
    { "mux_iadeep_missing_sum", MUXFILES(MUX(MUXI), "vgg16,vgg16_num\n1,10\n"),
      { RUN }, 2, AT("i.csv", 1) "sum_interference: required column is missing" },
    { "mux_iadeep_sum_below_minus_jobs", MUXFILES(MUX(MUXI), IAHDR "1,1,01,01,-3\n"),
      { RUN }, 2, AT("i.csv", 2) "sum_interference: '-3' is not a number in" },
    { "mux_iadeep_bad_flag", MUXFILES(MUX(MUXI), IAHDR "2,1,01,01,0.5\n"),
      { RUN }, 2, AT("i.csv", 2) "column 1: '2' is not a presence flag (0 or 1)" },
    { "mux_iadeep_no_job", MUXFILES(MUX(MUXI), IAHDR "0,0,00,00,0.5\n"),
      { RUN }, 2, AT("i.csv", 2) "no job on the GPU" },
    { "mux_iadeep_without_gpu", MUXFILES(MUX("{ \"format\": \"iadeep\", \"path\": \"i.csv\" }"),
                                         IAHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference[0].gpu" },
    { "mux_iadeep_unknown_gpu", MUXFILES(MUX("{ \"format\": \"iadeep\", \"gpu\": \"RTX3091\", "
                                             "\"path\": \"i.csv\" }"), IAHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference.gpu: 'RTX3091' is not a GPU type of "
                                  "the catalog" },
    { "mux_path_missing", MUXFILES(MUX("{ \"format\": \"gavel\", \"path\": \"nope.csv\" }"),
                                   GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference.path: 'nope.csv' not found" },
    { "mux_format_unknown", MUXFILES(MUX("{ \"format\": \"gandiva\", \"path\": \"i.csv\" }"),
                                     GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference[0].format" },
    { "mux_no_tables", MUXFILES(MUX(""), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference: needs at least one table" },
    { "mux_unknown_field", MUXFILES(E_MORE("\"multiplex\": { \"overhed\": 0.1, "
                                           "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.overhed: unknown field (did you mean 'overhead'?" },
    { "mux_overhead_out_of_range", MUXFILES(E_MORE("\"multiplex\": { \"overhead\": 1, "
                                                   "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.overhead" },
    { "mux_gns_unknown_type", MUXFILES(E_MORE("\"multiplex\": { \"gns\": { \"nope\": 10 }, "
                                              "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.gns: 'nope' is not a known job type" },
    { "mux_gns_not_positive", MUXFILES(E_MORE("\"multiplex\": { \"gns\": { \"" R50 "\": 0 }, "
                                              "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.gns: '" R50 "': a gradient noise scale" },
    { "mux_factorisation_rank", MUXFILES(E_MORE("\"multiplex\": { \"factorisation\": "
                                                "{ \"rank\": 0 }, \"interference\": [ " MUXG
                                                " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.factorisation.rank" },
    { "mux_validate_reads_the_table", MUXFILES(MUX(MUXG), GPHDR "v100," R50 ",nope,0.5,0.5\n"),
      { "validate", "%d/e.json" }, 2, AT("i.csv", 2) "job_b: 'nope' is not a known job type" },
    { "mux_gns_ratio_zero", MUXFILES(E_MORE("\"multiplex\": { \"gns_ratio\": 0, "
                                            "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.gns_ratio" },
    { "mux_pressure_negative", MUXFILES(E_MORE("\"multiplex\": { \"pressure_exp\": -1, "
                                               "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.pressure_exp" },
    { "mux_context_string", MUXFILES(E_MORE("\"multiplex\": { \"context_gb\": \"1\", "
                                            "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.context_gb" },
    { "mux_gns_not_object", MUXFILES(E_MORE("\"multiplex\": { \"gns\": [1], "
                                            "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.gns: an object: job type -> gradient noise scale" },
    { "mux_factorisation_unknown", MUXFILES(E_MORE("\"multiplex\": { \"factorisation\": "
                                                   "{ \"epoch\": 5 }, \"interference\": [ "
                                                   MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.factorisation.epoch: unknown field (did you mean "
                                  "'epochs'? the fields here: rank, lr, reg, epochs, seed)" },
    { "mux_factorisation_lr", MUXFILES(E_MORE("\"multiplex\": { \"factorisation\": "
                                              "{ \"lr\": 2 }, \"interference\": [ " MUXG
                                              " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.factorisation.lr" },
    { "mux_lucid_ok", MUXFILES(MUX(MUXL), LHDR LROW), { RUN }, 0, NULL, 1 },
    { "mux_lucid_speed_zero", MUXFILES(MUX(MUXL), LHDR LROW "1,Alpha,0,Beta,0.9,128,64,0,0,1,1\n"),
      { RUN }, 2, AT("i.csv", 3) "speed1: '0' is not a number in [1e-06, 10]" },
    { "mux_lucid_bad_amp", MUXFILES(MUX(MUXL), LHDR "0,Alpha,0.8,Beta,0.9,128,64,2,0,1,1\n"),
      { RUN }, 2, AT("i.csv", 2) "amp1: '2' is not 0 or 1" },
    { "mux_lucid_batch_fraction", MUXFILES(MUX(MUXL), LHDR "0,Alpha,0.8,Beta,0.9,128,6.5,0,0,1,1\n"),
      { RUN }, 2, AT("i.csv", 2) "batchsize2: '6.5' is not a batch size" },
    { "mux_lucid_gpu_num_zero", MUXFILES(MUX(MUXL), LHDR "0,Alpha,0.8,Beta,0.9,128,64,0,0,0,1\n"),
      { RUN }, 2, AT("i.csv", 2) "gpu_num1: '0' is not a number in [1, 64]" },
    { "mux_lucid_util_over_100", MUXFILES(MUX(MUXL), ",model1,speed1,model2,speed2,gmem_util\n"
                                          "0,Alpha,0.8,Beta,0.9,100.5\n"),
      { RUN }, 2, AT("i.csv", 2) "gmem_util: '100.5' is not a number in [0, 100]" },
    { "mux_lucid_no_model", MUXFILES(MUX(MUXL), LHDR "0,,0.8,Beta,0.9,128,64,0,0,1,1\n"),
      { RUN }, 2, AT("i.csv", 2) "model1: no model name" },
    { "mux_lucid_unknown_column", MUXFILES(MUX(MUXL), ",model1,speed1,model2,speed2,speed3\n"),
      { RUN }, 2, AT("i.csv", 1) "speed3: not a column of Lucid's co-location pairs" },
    { "mux_lucid_missing_speed2", MUXFILES(MUX(MUXL), ",model1,speed1,model2\n"),
      { RUN }, 2, AT("i.csv", 1) "speed2: required column is missing" },
    { "mux_lucid_unnamed_not_first", MUXFILES(MUX(MUXL), "model1,,speed1,model2,speed2\n"),
      { RUN }, 2, AT("i.csv", 1) "header: column 2 has no name" },
    { "mux_lucid_short_row", MUXFILES(MUX(MUXL), LHDR "0,Alpha,0.8,Beta,0.9,128,64,0,0,1\n"),
      { RUN }, 2, AT("i.csv", 2) "10 fields, the header has 11" },
    { "mux_lucid_unmapped_name", MUXFILES(MUX("{ \"format\": \"lucid\", \"gpu\": \"RTX3090\", "
                                              "\"path\": \"i.csv\" }"), LHDR LROW),
      { RUN }, 2, AT("i.csv", 2) "model1: 'Alpha' is not a known job type" },
    { "mux_lucid_map_unknown_type", MUXFILES(MUX("{ \"format\": \"lucid\", \"gpu\": \"RTX3090\", "
                                                 "\"path\": \"i.csv\", \"models\": "
                                                 "{ \"Alpha\": \"vgg99\" } }"), LHDR LROW),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference.models: 'vgg99' is not a known job type" },
    { "mux_lucid_map_not_string", MUXFILES(MUX("{ \"format\": \"lucid\", \"gpu\": \"RTX3090\", "
                                               "\"path\": \"i.csv\", \"models\": "
                                               "{ \"Alpha\": 3 } }"), LHDR LROW),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference.models: 'Alpha': a job type name" },
    { "mux_lucid_without_gpu", MUXFILES(MUX("{ \"format\": \"lucid\", \"path\": \"i.csv\" }"),
                                        LHDR LROW),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference[0].gpu" },
    { "mux_models_on_gavel", MUXFILES(MUX("{ \"format\": \"gavel\", \"path\": \"i.csv\", "
                                          "\"models\": { \"a\": \"b\" } }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference.models: only Lucid's pairs" },
    { "mux_interference_not_array", MUXFILES(E_MORE("\"multiplex\": { \"interference\": "
                                                    MUXG " }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference" },
    { "mux_gavel_with_gpu", MUXFILES(MUX("{ \"format\": \"gavel\", \"gpu\": \"V100\", "
                                         "\"path\": \"i.csv\" }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex.interference.gpu: Gavel's pairs name their GPU" },
    { "mux_scale_factor_fraction", MUXFILES(MUX(MUXG), "worker_type,job_a,job_b,norm_speed_a,"
                                            "norm_speed_b,scale_factor_a\nv100," R50 "," R50
                                            ",0.5,0.5,1.5\n"),
      { RUN }, 2, AT("i.csv", 2) "scale_factor_a: '1.5' is not a worker count" },
    { "mux_iadeep_two_sums", MUXFILES(MUX(MUXI), "vgg16,vgg16_num,sum_interference,"
                                      "online_interference\n"),
      { RUN }, 2, AT("i.csv", 1) "online_interference: a second slowdown-sum column" },
    { "mux_iadeep_column_twice", MUXFILES(MUX(MUXI), "vgg16,vgg16,vgg16_num,sum_interference\n"),
      { RUN }, 2, AT("i.csv", 1) "vgg16: column given twice (columns 1 and 2)" },
    { "mux_mps_max_jobs", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"mps_even\", "
                                        "\"max_jobs\": 0 }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].max_jobs: 0 is out of range [1, 8]" },
    { "mux_gandiva_observe", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"gandiva\", "
                                           "\"observe_s\": -1 }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].observe_s" },
    { "mux_antman_share", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"antman\", "
                                        "\"guaranteed_share\": 1000 }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].guaranteed_share: 1000 is out of range [500, 999]" },
    { "mux_iadeep_candidates", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"iadeep\", "
                                             "\"candidates\": 17 }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].candidates: 17 is out of range [1, 16]" },
    { "mux_in_gavel_mode", MUXFILES(E_MORE("\"mode\": \"gavel\", \"multiplex\": { "
                                           "\"interference\": [ " MUXG " ] }"), GPHDR),
      { RUN }, 2, AT("e.json", 7) "multiplex: shared GPUs need the native mode" },
    { "mux_policy_param", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"iadeep\", "
                                        "\"max_jobs\": 9 }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].max_jobs: 9 is out of range [1, 4]" },
    { "mux_iadeep_predictor", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"iadeep\", "
                                            "\"predictor\": \"oracel\" }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].predictor: 'oracel' is not one of: learned, "
                                  "oracle (did you mean 'oracle'?)" },
    { "mux_iadeep_known_pairs", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"iadeep\", "
                                              "\"known_pairs\": 1.5 }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].known_pairs: 1.5 is out of range [0, 1]" },
    { "mux_iadeep_known_pairs_string", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": "
                                                     "\"iadeep\", \"known_pairs\": \"half\" }]",
                                                     ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].known_pairs" },
    { "mux_iadeep_pressure_exp", MUXFILES(EXPF(N_, S_, C_, W_, "[{ \"name\": \"iadeep\", "
                                               "\"pressure_exp\": -0.5 }]", ""), GPHDR),
      { RUN }, 2, AT("e.json", 6) "policies[0].pressure_exp: -0.5 is out of range [0, 4]" },
    /* -------- placement: openb node and pod lists, the world's fields (issue 12) -------- */
    { "place_ok_bom_crlf", PLACE(PEXP_OK, NODES_OK, BOM "name,cpu_milli,memory_mib,num_gpu,"
                                 "gpu_milli\r\np0,4000,1024,1,500\r\np1,100,1,0,0\r\n"),
      { RUN }, 0, NULL, 2 },
    { "place_milli_zero", PLACE(PEXP_OK, NODES_OK, PODS_HDR "p0,4000,1024,1,0,\n"),
      { RUN }, 2, AT("p.csv", 2) "gpu_milli: 0 is not a share of one GPU: 1 to 1000 (1000 = "
                                 "the whole GPU); 0 would ask for no GPU" },
    { "place_milli_over_one_gpu", PLACE(PEXP_OK, NODES_OK, PODS_OK "p3,1,1,1,1500,\n"),
      { RUN }, 2, AT("p.csv", 5) "gpu_milli: 1500 is not a share of one GPU" },
    { "place_milli_fractional_multi_gpu", PLACE(PEXP_OK, NODES_OK, PODS_HDR "p0,1,1,4,250,\n"),
      { RUN }, 2, AT("p.csv", 2) "gpu_milli: 250 for 4 GPUs: a pod of several GPUs takes them "
                                 "whole (1000); only a one-GPU pod shares its GPU" },
    { "place_milli_without_gpu", PLACE(PEXP_OK, NODES_OK, PODS_HDR "p0,1,1,0,300,\n"),
      { RUN }, 2, AT("p.csv", 2) "gpu_milli: 300, but the pod asks for no GPU (num_gpu 0)" },
    { "place_milli_not_integer", PLACE(PEXP_OK, NODES_OK, PODS_HDR "p0,1,1,1,0.5,\n"),
      { RUN }, 2, AT("p.csv", 2) "gpu_milli: '0.5' is not an integer (milli-GPU per GPU)" },
    { "place_unknown_gpu_model", PLACE(PEXP_OK, NODES_OK, PODS_OK "p3,1,1,1,100,T4|A100\n"),
      { RUN }, 2, AT("p.csv", 5) "gpu_spec: unknown GPU model 'A100' (the node list has: T4, "
                                 "V100M16)" },
    { "place_node_without_gpus", PLACE(PEXP_OK, NODES_OK "c,8000,1024,0,\n", PODS_OK),
      { RUN }, 2, AT("n.csv", 4) "gpu: node 'c' has no GPUs: the placement world places pods "
                                 "on GPU nodes" },
    { "place_node_gpus_without_model", PLACE(PEXP_OK, NODES_OK "c,8000,1024,4,\n", PODS_OK),
      { RUN }, 2, AT("n.csv", 4) "model: empty: a node with GPUs names their model" },
    { "place_node_missing_column", PLACE(PEXP_OK, "sn,cpu_milli,gpu,model\na,1,1,T4\n",
                                         PODS_OK),
      { RUN }, 2, AT("n.csv", 1) "memory_mib: required column is missing" },
    { "place_node_twice", PLACE(PEXP_OK, NODES_OK "a,8000,1024,1,T4\n", PODS_OK),
      { RUN }, 2, AT("n.csv", 4) "sn: node 'a' is listed twice (line 2)" },
    { "place_pod_missing_column", PLACE(PEXP_OK, NODES_OK,
                                        "name,cpu_milli,memory_mib,num_gpu\np0,1,1,0\n"),
      { RUN }, 2, AT("p.csv", 1) "gpu_milli: required column is missing (an openb pod list "
                                 "has: name, cpu_milli, memory_mib, num_gpu, gpu_milli, "
                                 "gpu_spec (optional)" },
    { "place_pod_column_misspelt", PLACE(PEXP_OK, NODES_OK,
                                         "name,cpu_milli,memory_mib,num_gpu,gpu_mili\n"),
      { RUN }, 2, AT("p.csv", 1) "gpu_mili: not a column of an openb pod list (did you mean "
                                 "'gpu_milli'?)" },
    { "place_pod_twice", PLACE(PEXP_OK, NODES_OK, PODS_OK "p1,1,1,0,0,\n"),
      { RUN }, 2, AT("p.csv", 5) "name: pod 'p1' is listed twice (line 3)" },
    { "place_pod_short_row", PLACE(PEXP_OK, NODES_OK, PODS_OK "p3,1,1,0\n"),
      { RUN }, 2, AT("p.csv", 5) "expected 6 fields (as the header), found 4" },
    { "place_cluster_not_the_placeholder",
      PLACE(PEXPF(C_, PN_, PW_, PP_, ""), NODES_OK, PODS_OK),
      { RUN }, 2, AT("e.json", 5) "cluster: the placement domain places pods on the machines of "
                                  "\"nodes\" (an openb node list), not on a cluster: write "
                                  "\"cluster\": \"node_list\"" },
    { "place_nodes_missing", PLACE(PEXPF(PCL_, "\"none.csv\"", PW_, PP_, ""), NODES_OK, PODS_OK),
      { RUN }, 2, AT("e.json", 6) "nodes: node list 'none.csv' not found" },
    { "place_sample_s_unused", PLACE(PEXP_MORE("\"sim\": { \"sample_s\": 60 }"), NODES_OK,
                                     PODS_OK),
      { RUN }, 2, AT("e.json", 9) "sim.sample_s: not used by the placement domain: its clock "
                                  "counts pods" },
    { "place_timeline", PLACE(PEXP_MORE("\"sim\": { \"timeline\": true }"), NODES_OK,
                              PODS_OK), { RUN }, 0, "", 2 },
    { "place_order_misspelt", PLACE(PEXP_MORE("\"sim\": { \"order\": \"shufled\" }"),
                                    NODES_OK, PODS_OK),
      { RUN }, 2, AT("e.json", 9) "sim.order: 'shufled' is not one of: trace, shuffled (did "
                                  "you mean 'shuffled'?)" },
    { "place_load_negative", PLACE(PEXP_MORE("\"sim\": { \"load\": -1 }"), NODES_OK, PODS_OK),
      { RUN }, 2, AT("e.json", 9) "sim.load: -1 is out of range [0, 100]" },
    { "place_load_without_gpu_pods",
      PLACE(PEXP_MORE("\"sim\": { \"load\": 1.3 }"), NODES_OK, PODS_HDR "p0,1,1,0,0,\n"),
      { RUN }, 2, AT("e.json", 9) "sim.load: the pods ask for no GPU, so their GPU load cannot "
                                  "be brought to 1.3 of the cluster's" },
    { "place_training_policy", PLACE(PEXPF(PCL_, PN_, PW_, "[\"fifo\"]", ""), NODES_OK, PODS_OK),
      { RUN }, 2, AT("e.json", 8) "policies[0]: policy 'fifo' is for the training domain; the "
                                  "experiment is placement" },
    { "place_training_format", PLACE(PEXPF(PCL_, PN_, "{ \"format\": \"hetsim\", \"trace\": "
                                           "\"ok.csv\" }", PP_, ""), NODES_OK, PODS_OK),
      { RUN }, 2, AT("e.json", 7) "workload.format: the format is for the training domain; the "
                                  "experiment is placement" },
    { "place_validate_rejects_what_run_rejects",
      PLACE(PEXP_OK, NODES_OK, PODS_OK "p3,1,1,1,100,G3\n"),
      { "validate", "%d/e.json" }, 2, AT("p.csv", 5) "gpu_spec: unknown GPU model 'G3'" },
    /* Pollux's and Sia's workload CSV, and Pollux-compatible mode */
    { "pollux_ok", POLLUX(XOK), { RUN }, 0, NULL, 2 },
    { "pollux_crlf_bom_reordered_accepted",
      POLLUX(BOM "time,name,batch_size,application,num_replicas\r\n0,a,128,cifar10,1\r\n"),
      { RUN }, 0, NULL, 2 },
    { "pollux_header_missing_column", POLLUX("name,time,application,num_replicas\na,0,ncf,1\n"),
      { RUN }, 2, AT("w.csv", 1) "header: missing column 'batch_size'" },
    { "pollux_header_unknown_column", POLLUX("name,time,application,num_replicas,batch_size,gpu\n"),
      { RUN }, 2, AT("w.csv", 1) "header: unknown column 'gpu'" },
    { "pollux_header_column_twice",
      POLLUX("name,time,application,num_replicas,batch_size,time\n"),
      { RUN }, 2, AT("w.csv", 1) "header: column 'time' named twice" },
    { "pollux_empty_file", POLLUX(""), { RUN }, 2, "%d/w.csv: empty file: expected the header" },
    { "pollux_no_jobs", POLLUX(XHDR), { RUN }, 2, "%d/w.csv: empty trace: no jobs after the header" },
    { "pollux_too_few_fields", POLLUX(XHDR "a,0,cifar10,1\n"),
      { RUN }, 2, AT("w.csv", 2) "4 fields, the header has 5" },
    { "pollux_name_blank", POLLUX(XHDR XJ("", "0", "cifar10", "1", "128")),
      { RUN }, 2, AT("w.csv", 2) "name: a job's name is not blank" },
    { "pollux_name_twice", POLLUX(XHDR XJ("a", "0", "cifar10", "1", "128") XJ("a", "1", "ncf", "1", "32768")),
      { RUN }, 2, AT("w.csv", 3) "name: job 'a' is named twice" },
    { "pollux_time_negative", POLLUX(XHDR XJ("a", "-1", "cifar10", "1", "128")),
      { RUN }, 2, AT("w.csv", 2) "time: '-1' is not a submission time >= 0 s" },
    { "pollux_time_word", POLLUX(XHDR XJ("a", "soon", "cifar10", "1", "128")),
      { RUN }, 2, AT("w.csv", 2) "time: 'soon' is not a submission time" },
    { "pollux_time_nan", POLLUX(XHDR XJ("a", "nan", "cifar10", "1", "128")),
      { RUN }, 2, AT("w.csv", 2) "time: 'nan' is not a submission time" },
    { "pollux_unsorted", POLLUX(XHDR XJ("a", "10", "cifar10", "1", "128") XJ("b", "5", "ncf", "1", "32768")),
      { RUN }, 2, AT("w.csv", 3) "time: job b is submitted at 5.000000 s, before the previous job" },
    { "pollux_replicas_zero", POLLUX(XHDR XJ("a", "0", "cifar10", "0", "128")),
      { RUN }, 2, AT("w.csv", 2) "num_replicas: '0' is not a GPU count >= 1" },
    { "pollux_replicas_fraction", POLLUX(XHDR XJ("a", "0", "cifar10", "1.5", "128")),
      { RUN }, 2, AT("w.csv", 2) "num_replicas: '1.5' is not a GPU count" },
    { "pollux_replicas_overflow", POLLUX(XHDR XJ("a", "0", "cifar10", BIG, "128")),
      { RUN }, 2, AT("w.csv", 2) "num_replicas: '" BIG "' is not a GPU count" },
    { "pollux_replicas_over_cluster", POLLUX(XHDR XJ("a", "0", "cifar10", "65", "128")),
      { RUN }, 2, AT("w.csv", 2) "num_replicas: job a asks for 65 GPUs; cluster 'pollux-t4-64' "
                                 "has 64" },
    { "pollux_batch_zero", POLLUX(XHDR XJ("a", "0", "cifar10", "1", "0")),
      { RUN }, 2, AT("w.csv", 2) "batch_size: '0' is not a batch size >= 1" },
    { "pollux_batch_outside_validated", POLLUX(XHDR XJ("a", "0", "cifar10", "1", "64")),
      { RUN }, 2, AT("w.csv", 2) "batch_size: 64 is outside cifar10's validated batch sizes 128 "
                                 "to 4096" },
    { "pollux_application_empty", POLLUX(XHDR XJ("a", "0", "", "1", "128")),
      { RUN }, 2, AT("w.csv", 2) "application: empty: name the job's application" },
    { "pollux_application_unknown", POLLUX(XHDR XJ("a", "0", "cifar100", "1", "128")),
      { RUN }, 2, AT("w.csv", 2) "application: unknown application 'cifar100' (did you mean "
                                 "'cifar10'?)" },
    { "pollux_validate_rejects_what_run_rejects", POLLUX(XHDR XJ("a", "0", "bertt", "1", "128")),
      { "validate", "%d/e.json" }, 2, AT("w.csv", 2) "application: unknown application 'bertt' "
                                                     "(did you mean 'bert'?)" },
    { "pollux_cluster_several_types", POLLUX_E(XEXPF("\"mixed_small\"", XP_, "")),
      { RUN }, 2, "cluster: Pollux-compatible mode simulates one GPU type, as Pollux's simulator "
                  "does; cluster 'mixed-small' has 3" },
    { "pollux_cluster_node_of_ten", POLLUX_E(XEXPF("{ \"network\": \"ethernet-25g\", \"groups\": "
                                                   "[{ \"count\": 1, \"gpu\": \"T4\", "
                                                   "\"gpus_per_node\": 10 }] }", XP_, "")),
      { RUN }, 2, "cluster: node 0 of cluster 'cluster' has 10 GPUs: Pollux names placements by "
                  "one digit per node" },
    { "pollux_cluster_unprofiled_type", POLLUX_E(XEXPF("\"gavel_48\"", XP_, "")),
      { RUN }, 2, "cluster: Pollux-compatible mode simulates one GPU type" },
    { "pollux_cluster_no_profile", POLLUX_E(XEXPF("{ \"network\": \"ethernet-25g\", \"groups\": "
                                                  "[{ \"count\": 2, \"gpu\": \"V100\", "
                                                  "\"gpus_per_node\": 4 }] }", XP_, "")),
      { RUN }, 2, "models.elastic: no elastic application has a profile on V100-16GB" },
    { "pollux_tick_fraction", POLLUX_E(XEXP_MORE("\"sim\": { \"tick_s\": 60.5 }")),
      { RUN }, 2, AT("e.json", 7) "sim.tick_s: Pollux's interval is a whole number of seconds, "
                                  "not 60.5" },
    { "pollux_tick_zero", POLLUX_E(XEXP_MORE("\"sim\": { \"tick_s\": 0 }")),
      { RUN }, 2, AT("e.json", 7) "sim.tick_s: 0 is out of range" },
    { "pollux_restart_negative", POLLUX_E(XEXP_MORE("\"sim\": { \"restart_s\": -1 }")),
      { RUN }, 2, AT("e.json", 7) "sim.restart_s: -1 is out of range" },
    { "pollux_timeline", POLLUX_E(XEXP_MORE("\"sim\": { \"timeline\": true }")),
      { RUN }, 0, "", 2 },
    { "pollux_profiles_missing", POLLUX_E(XEXP_MORE("\"models\": { \"elastic\": \"nope.json\" }")),
      { RUN }, 2, AT("e.json", 7) "models.elastic: file 'nope.json' not found" },
    { "pollux_profiles_key_typo", POLLUX_E(XEXP_MORE("\"models\": { \"elastik\": \"a.json\" }")),
      { RUN }, 2, AT("e.json", 7) "models.elastik: unknown field (did you mean 'elastic'?" },
    { "pollux_profiles_unknown_gpu",
      { { "e.json", XEXP_MORE("\"models\": { \"elastic\": \"a.json\" }") }, { "w.csv", XOK },
        { "a.json", "{\n \"gpu\": \"T5\",\n \"applications\": [{ \"name\": \"toy\" }]\n}\n" } },
      { RUN }, 2, AT("a.json", 2) "gpu: unknown GPU type 'T5'" },
    { "pollux_profiles_no_folder",
      { { "e.json", XEXP_MORE("\"models\": { \"elastic\": \"a.json\" }") }, { "w.csv", XOK },
        { "a.json", "{\n \"gpu\": \"T4\",\n \"applications\": [{ \"name\": \"toyx\" }]\n}\n" } },
      { RUN }, 2, "toyx/placements.csv: cannot open" },
    /* points on one plane fail when a placement outside placements.csv needs them, as in
     * Pollux's simulator (a job on 4 GPUs here): not at load, so that single-node profiles
     * (Sia's quad) serve the placements they measured */
    { "pollux_profiles_coplanar",
      { { "e.json", XEXP_MORE("\"models\": { \"elastic\": \"a.json\" }") },
        { "w.csv", XHDR XJ("a", "0", "toy", "4", "64") },
        { "a.json", "{\n \"gpu\": \"T4\",\n \"applications\": [{ \"name\": \"toy\", "
                    "\"max_epochs\": 2 }]\n}\n" } },
      { RUN }, 2, "toy/placements.csv and %d/toy/scalability.csv: the 5 points lie on one plane: "
                  "no 3-D triangulation", .setup = toy_coplanar },
    { "pollux_native_policy", POLLUX_E(XEXPF(XCL_, "[\"fifo\"]", "")),
      { RUN }, 2, AT("e.json", 6) "policies[0]: policy 'fifo' has no elastic allocation rule, "
                                  "which Pollux-compatible mode (\"mode\": \"pollux\") needs" },
    { "pollux_threshold_negative",
      POLLUX_E(XEXPF(XCL_, "[{ \"name\": \"pollux_tiresias\", \"threshold_gpu_s\": -1 }]", "")),
      { RUN }, 2, AT("e.json", 6) "policies[0].threshold_gpu_s: -1 is out of range" },
    { "pollux_optimus_pack_zero", POLLUX_E(XEXPF(XCL_, "[{ \"name\": \"optimus\", \"pack\": 0 }]", "")),
      { RUN }, 2, AT("e.json", 6) "policies[0].pack: 0 is out of range [1, 9]" },
    { "pollux_policy_p_above_one",
      POLLUX_E(XEXPF(XCL_, "[{ \"name\": \"pollux\", \"p\": 2 }]", "")),
      { RUN }, 2, AT("e.json", 6) "policies[0].p: 2 is out of range [-10, 1]" },
    { "pollux_policy_restart_negative",
      POLLUX_E(XEXPF(XCL_, "[{ \"name\": \"pollux\", \"restart_s\": -1 }]", "")),
      { RUN }, 2, AT("e.json", 6) "policies[0].restart_s: -1 is out of range [0, 1e+06]" },
    { "pollux_policy_unknown_param",
      POLLUX_E(XEXPF(XCL_, "[{ \"name\": \"pollux\", \"q\": 1 }]", "")),
      { RUN }, 2, AT("e.json", 6) "policies[0].q: unknown field (did you mean 'p'?" },
    { "pollux_hetsim_workload",
      EXP("{\n \"name\": \"x\",\n \"mode\": \"pollux\",\n \"cluster\": " XCL_ ",\n "
          "\"workload\": " W_ ",\n \"policies\": " XP_ "\n}\n"),
      { RUN }, 2, AT("ok.csv", 2) "job_type: job 0 is not an elastic application's: "
                                  "Pollux-compatible mode reads the \"pollux\" workload format" },
    { "native_elastic_policy", EXP(E_POL("[\"optimus\"]")),
      { RUN }, 2, AT("e.json", 6) "policies[0]: policy 'optimus' is an elastic policy of "
                                  "Pollux's interface: it runs only in Pollux-compatible mode" },
    /* Sia's profiles (models.elastic_sia) */
    { "sia_folder_missing", SIA_E(SIA_EXPF(SCL_RTX, "\"nope\"")),
      { RUN }, 2, AT("e.json", 6) "models.elastic_sia: folder 'nope' not found" },
    { "sia_profile_bad_step_time", SIA_E(SIA_EXP_OK), { RUN }, 2,
      "sia/cifar10/placements-rtx.csv:3: step_time: 'x' is not a number", .setup = sia_bad_step },
    { "sia_profile_missing_column", SIA_E(SIA_EXP_OK), { RUN }, 2,
      "sia/cifar10/placements-rtx.csv:1: sync_time: missing column", .setup = sia_no_sync },
    { "sia_batch_not_profiled",
      { { "e.json", SIA_EXP_OK }, { "w.csv", XHDR XJ("a", "0", "cifar10", "1", "100") } },
      { RUN }, 2, AT("w.csv", 2) "batch_size: job a: Sia's profiles (models.elastic_sia) have "
                                 "no job type 'cifar10 (batch size 100)'", .setup = sia_real },
    { "sia_cluster_without_sia_types",
      SIA_E(SIA_EXPF("{ \"network\": \"ethernet-25g\", \"groups\": [{ \"count\": 1, "
                     "\"gpu\": \"K80\", \"gpus_per_node\": 8 }] }", "\"sia\"")),
      { RUN }, 2, "models.elastic_sia: the cluster has none of the GPU types Sia profiled",
      .setup = sia_real },
    { "sia_profiles_in_pollux_mode",
      POLLUX_E(XEXP_MORE("\"models\": { \"elastic_sia\": \"sia\" }")),
      { RUN }, 2, AT("e.json", 7) "models.elastic_sia: Sia's profiles are for the native mode",
      .setup = sia_real },
    { "sia_workload_ok", { { "e.json", SIA_EXP_OK }, { "w.csv", SIA_WOK } }, { RUN }, 0, NULL, 1,
      .setup = sia_real },
    { "native_pollux_workload", { { "e.json", E_WL(WL_X) }, { "w.csv", XOK } },
      { RUN }, 2, AT("w.csv", 2) "application: job a is an elastic application's (cifar10): it "
                                 "runs in Pollux-compatible mode" },
    /* -------- policies written in Python (sched/python/pybridge.c): the module p.py -------- */
    { "py_file_missing", EXP(E_POL("[\"py:nope.py\"]")),
      { RUN }, 2, "nope.py: no such Python policy file" },
    { "py_syntax_error", PYF("DOMAIN = 'training'\ndef decide(view)\n    return None\n"),
      { RUN }, 2, AT("p.py", 2) "SyntaxError: expected ':'" },
    { "py_no_domain", PYF("def decide(view):\n    return None\n"),
      { RUN }, 2, "p.py: DOMAIN: the module must set DOMAIN to \"training\"" },
    { "py_no_hook", PYF("DOMAIN = 'training'\n"),
      { RUN }, 2, "p.py: decide: a training policy defines decide()" },
    { "py_exception_in_hook",
      PYF("DOMAIN = 'training'\ndef half(x):\n    return 1 / x\ndef decide(view):\n"
          "    return half(0)\n"),
      { RUN }, 2, AT("p.py", 3) "decide: ZeroDivisionError: division by zero*Traceback*"
                                "line 5, in decide*line 3, in half" },
    { "py_exception_in_init",
      PYF("DOMAIN = 'training'\ndef init(params, rng):\n    raise ValueError('no')\n"
          "def decide(view):\n    return None\n"),
      { RUN }, 2, AT("p.py", 3) "init: ValueError: no" },
    { "py_wrong_return_type", PYF("DOMAIN = 'training'\ndef decide(view):\n    return 42\n"),
      { RUN }, 2, AT("p.py", 2) "decide: returned 42; expected a plan (view.plan()), a list of "
                                "(job, gpus) or (job, gpus, share) grants, or None" },
    { "py_grant_not_a_job",
      PYF("DOMAIN = 'training'\ndef decide(view):\n    return [(7, [0])]\n"),
      { RUN }, 2, AT("p.py", 2) "decide: grant 0 is (7, [0]); expected (job, gpus)" },
    { "py_over_allocation",
      PYF("DOMAIN = 'training'\ndef decide(view):\n"
          "    return [(j, list(range(j.workers))) for j in view.waiting]\n"),
      { RUN }, 2, AT("p.py", 2) "decide: returned a decision the world refuses: policy "
                                "over-allocated: job 1 was granted GPU 0" },
    { "py_twice_granted",
      PYF("DOMAIN = 'training'\ndef decide(view):\n    j = next(iter(view.waiting))\n"
          "    return [(j, [0]), (j, [1])]\n"),
      { RUN }, 2, AT("p.py", 2) "decide: returned a decision the world refuses: policy granted "
                                "an unknown, finished or twice-granted job" },
    { "py_share_out_of_range",
      PYF("DOMAIN = 'training'\ndef decide(view):\n    j = next(iter(view.waiting))\n"
          "    return [(j, [0], 1500)]\n"),
      { RUN }, 2, AT("p.py", 2) "decide: returned*a share of 1500/1000" },
    { "py_plan_made_list_returned",
      PYF("DOMAIN = 'training'\ndef decide(view):\n    view.plan()\n    return []\n"),
      { RUN }, 2, AT("p.py", 2) "decide: made a plan but returned []; expected the plan" },
    { "py_hook_over_time",
      PYF("DOMAIN = 'training'\ndef decide(view):\n    while True:\n        pass\n"),
      { "run", "%d/e.json", "--db", "%d/t.db", "-q", "--set", "sim.policy_timeout_s=0.3" }, 2,
      AT("p.py", 3) "decide: PolicyTimeout: the hook ran longer than sim.policy_timeout_s = 0.3 "
                    "CPU seconds" },
    { "py_timeout_zero", { { "e.json", E_MORE("\"sim\": { \"policy_timeout_s\": 0 }") } },
      { RUN }, 2, AT("e.json", 7) "sim.policy_timeout_s: 0 is out of range" },
    { "py_unknown_parameter",
      { { "e.json", E_POL("[{ \"name\": \"py:p.py\", \"backfil\": true }]") },
        { "p.py", "DOMAIN = 'training'\nPARAMS = ('backfill',)\ndef decide(view):\n"
                  "    return None\n" } },
      { RUN }, 2, AT("e.json", 6) "policies[0].backfil: unknown field (did you mean "
                                  "'backfill'?" },
    { "py_wrong_domain", PYF("DOMAIN = 'placement'\ndef place(view, pod):\n    return None\n"),
      { RUN }, 2, AT("e.json", 6) "policies[0]: policy 'py:p.py' is for the placement domain; "
                                  "the experiment is training" },
    { "py_bad_wake", PYF("DOMAIN = 'training'\nWAKE = 'often'\ndef decide(view):\n"
                         "    return None\n"),
      { RUN }, 2, "p.py: WAKE: expected a sum of hetsim.WAKE_ARRIVAL" },
    { "py_micro_wrong_length", { { "e.json", MEXP_POL("[\"py:p.py\"]") },
                                 { "a.json", MOK },
                                 { "p.py", "DOMAIN = 'micro'\ndef decide(view):\n"
                                           "    return [1]\n" } },
      { RUN }, 2, AT("p.py", 2) "decide: returned [1]; expected 2 integers >= 1, the "
                                "containers of each service" },
    { "py_place_gpu_out_of_range",
      PLACE(PEXPF(PCL_, PN_, PW_, "[\"py:pol.py\"]", ""), NODES_OK, PODS_OK),
      { RUN }, 2, AT("pol.py", 2) "place: returned (0, [9*which the world refuses: pod p*: "
                                  "the policy chose GPU 9 of node a", .setup = py_place_file },
    { "py_serve_bad_instance",
      { { "e.json", SEXPF(S_MODEL, S_AZ, "[\"py:p.py\"]", "") }, { "a.csv", AZ_OK },
        { "p.py", PY_SERVE("return 5") } },
      { RUN }, 2, AT("p.py", 5) "route: returned 5, which the world refuses: policy routed "
                                "request*to instance 5" },
    { "py_serve_bad_deployment",
      { { "e.json", SEXPF(S_MODEL, S_AZ, "[\"py:p.py\"]", "") }, { "a.csv", AZ_OK },
        { "p.py", "import hetsim\nDOMAIN = 'serving'\ndef deploy(env):\n"
                  "    return [(hetsim.UNIFIED, [([0], 1)])]\ndef route(view, req):\n"
                  "    return 0\n" } },
      { RUN }, 2, AT("e.json", 7) "policies[0]: policy 'py:p.py' finds no deployment: "
                                  "%d/p.py:3: deploy: returned a deployment the world "
                                  "refuses: " },
    /* -------- colocate: its fields, its tenants, its policies -------- */
    { "colocate_ok", { { "e.json", C_OK } }, { RUN }, 0, "", 2 },
    { "colocate_group_unknown",
      { { "e.json", CEXPF("[\"h100\"]", C_BROKER, C_SERVING, C_TRAINING, "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 5) "serving_groups[0]: no node group 'h100' in cluster*'a100', "
                                  "'v100'" },
    { "colocate_groups_empty",
      { { "e.json", CEXPF("[]", C_BROKER, C_SERVING, C_TRAINING, "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 5) "serving_groups: name at least one node group" },
    { "colocate_group_not_string",
      { { "e.json", CEXPF("[3]", C_BROKER, C_SERVING, C_TRAINING, "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 5) "serving_groups[0]: must be the name of a node group" },
    { "colocate_groups_missing",
      { { "e.json", CEXPF("null", C_BROKER, C_SERVING, C_TRAINING, "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 5) "serving_groups" },
    { "colocate_period_zero",
      { { "e.json", CEXPF(C_GROUPS, "{ \"period_s\": 0 }", C_SERVING, C_TRAINING,
                          "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 6) "broker.period_s" },
    { "colocate_broker_unknown_field",
      { { "e.json", CEXPF(C_GROUPS, "{ \"period\": 60 }", C_SERVING, C_TRAINING,
                          "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 6) "broker.period: unknown field*period_s" },
    { "colocate_tenant_missing",
      { { "e.json", CEXPF(C_GROUPS, C_BROKER, C_SERVING, "null", "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 9) "tenants.training" },
    { "colocate_tenant_two_policies",
      { { "e.json", CEXPF(C_GROUPS, C_BROKER, C_SERVING_P("[\"highend_only\", \"hetis\"]"),
                          C_TRAINING, "[\"static\"]") } },
      { RUN }, 2, "hetsim: " AT("e.json", 8) "tenants.serving.policies: a tenant runs one "
                              "policy" },
    { "colocate_tenant_policy_of_another_domain",
      { { "e.json", CEXPF(C_GROUPS, C_BROKER, C_SERVING_P("[\"fifo\"]"), C_TRAINING,
                          "[\"static\"]") } },
      { RUN }, 2, "hetsim: " AT("e.json", 8) "tenants.serving.policies[0]: policy 'fifo' is for "
                              "the training domain; the experiment is serving" },
    { "colocate_broker_policy_of_another_domain", { { "e.json", C_POL("[\"fifo\"]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0]: policy 'fifo' is for the training domain; the "
                                   "experiment is colocate" },
    { "colocate_headroom_negative",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"headroom\": -1 }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].headroom: -1 is out of range" },
    { "colocate_tenant_bad_workload",
      { { "e.json", CEXPF(C_GROUPS, C_BROKER, C_SERVING,
                          "{ \"workload\": 3, \"policies\": [\"fifo\"] }", "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 9) "tenants.training.workload: " },
    /* a tenant's fields are named by their path from the top, tenants.<name>.<field>, with no
     * "tenant <name>:" before it ("hetsim: " then the file); a file of its own keeps it */
#define C_SWL(wl) "{ \"model\": \"llama-2-7b\", \"workload\": { \"format\": \"llm_synthetic\", " \
    "\"requests\": 5, \"rate_per_s\": 1" wl " }, \"policies\": [\"highend_only\"], \"sim\": { " \
    "\"overlong\": \"truncate\" } }"
#define C_TWL(wl) "{ \"workload\": { \"format\": \"synthetic\", \"jobs\": 3, \"rate_per_hour\": " \
    "10, \"duration\": { \"dist\": \"lognormal\", \"median_s\": "                        \
    "600, \"sigma\": 1 }, \"job_types\": { \"" R50 "\": 1 }" wl " }, \"policies\": [\"fifo\"] }"
#define C_TEN(serving, training) \
    { { "e.json", CEXPF(C_GROUPS, C_BROKER, serving, training, "[\"static\"]") } }
    { "colocate_tenant_day_hourly_negative",
      C_TEN(C_SWL(", \"day\": { \"hourly\": [1, -1] }"), C_TRAINING), { RUN }, 2,
      "hetsim: " AT("e.json", 8) "tenants.serving.workload.day.hourly[1]: a rate is a number "
                                 ">= 0" },
    { "colocate_tenant_cv_poisson", C_TEN(C_SWL(", \"cv\": 3"), C_TRAINING), { RUN }, 2,
      "hetsim: " AT("e.json", 8) "tenants.serving.workload.cv: only gamma arrivals have" },
    { "colocate_tenant_prompt_max_below_min",
      C_TEN(C_SWL(", \"prompt\": { \"min\": 100, \"max\": 10 }"), C_TRAINING), { RUN }, 2,
      "hetsim: " AT("e.json", 8) "tenants.serving.workload.prompt.max: 10 is below min (100)" },
    { "colocate_tenant_rates_file_missing",
      C_TEN(C_SWL(", \"day\": { \"rates_file\": \"nope.csv\" }"), C_TRAINING), { RUN }, 2,
      "hetsim: " AT("e.json", 8) "tenants.serving.workload.day.rates_file: file 'nope.csv' not "
                                 "found" },
    { "colocate_tenant_rates_file_bad_row",
      { { "e.json", CEXPF(C_GROUPS, C_BROKER, C_SWL(", \"day\": { \"rates_file\": \"d.csv\" }"),
                          C_TRAINING, "[\"static\"]") },
        { "d.csv", "hour,rate\n0,1\n30,2\n" } }, { RUN }, 2,
      "hetsim: tenant serving: " AT("d.csv", 3) "hour: 30 is not an hour of the day" },
    { "colocate_tenant_engine_unknown",
      C_TEN("{ \"model\": \"llama-2-7b\", \"workload\": { \"format\": \"llm_synthetic\", "
            "\"requests\": 5, \"rate_per_s\": 1 }, \"policies\": [\"highend_only\"], \"sim\": { "
            "\"engine\": \"vllm\" } }", C_TRAINING), { RUN }, 2,
      "hetsim: " AT("e.json", 8) "tenants.serving.sim.engine: no engine profile 'vllm'" },
    { "colocate_tenant_model_unknown",
      C_TEN("{ \"model\": \"llama-9\", \"workload\": { \"format\": \"llm_synthetic\", "
            "\"requests\": 5, \"rate_per_s\": 1 }, \"policies\": [\"highend_only\"] }",
            C_TRAINING), { RUN }, 2,
      "hetsim: " AT("e.json", 8) "tenants.serving.model: unknown model 'llama-9'" },
    { "colocate_tenant_overlong_prompt",
      C_TEN("{ \"model\": \"llama-2-7b\", \"workload\": { \"format\": \"llm_synthetic\", "
            "\"requests\": 5, \"rate_per_s\": 1, \"prompt\": { \"min\": 7000, \"max\": 7000 } }, "
            "\"policies\": [\"highend_only\"] }", C_TRAINING), { RUN }, 2,
      "hetsim: " AT("e.json", 8) "tenants.serving.workload.prompt: 7000 prompt + " },
    { "colocate_tenant_min_workers_above_max",
      C_TEN(C_SERVING, C_TWL(", \"min_workers\": 4, \"max_workers\": 2")), { RUN }, 2,
      "hetsim: " AT("e.json", 9) "tenants.training.workload.min_workers: 4 is more than "
                                 "max_workers 2" },
    { "colocate_tenant_reference_gpu_unknown",
      C_TEN(C_SERVING, C_TWL(", \"reference_gpu\": \"V99\"")), { RUN }, 2,
      "hetsim: " AT("e.json", 9) "tenants.training.workload.reference_gpu: unknown GPU type "
                                 "'V99'" },
    { "colocate_tenant_job_too_wide",
      C_TEN(C_SERVING, C_TWL(", \"workers\": { \"64\": 1 }")), { RUN }, 2,
      "hetsim: " AT("e.json", 9) "tenants.training.workload.workers.64: job 0 asks for 64 GPUs; "
                                 "no GPU type of cluster" },
#undef C_TEN
#undef C_TWL
#undef C_SWL
    { "colocate_lend_unknown",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"lend\": \"always\" }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].lend: 'always' is not one of: waiting, spare" },
    { "colocate_tenants_unknown_tenant",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"tenants\": { \"trainin\": \"lyra\" } }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].tenants.trainin: unknown field (did you mean "
          "'training'?" },
    { "colocate_tenants_unknown_policy",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"tenants\": { \"training\": \"lyr\" } }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].tenants.training: unknown policy 'lyr' (did you "
          "mean 'lyra'?)" },
    { "colocate_tenants_wrong_domain",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"tenants\": { \"training\": \"hexgen\" } "
          "}]") } },
      { RUN }, 2, "hetsim: tenant training: " AT("e.json", 11) "policies[0].tenants.training: "
          "policy 'hexgen' is for the serving domain; the experiment is training" },
    { "colocate_tenants_not_a_policy",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"tenants\": { \"training\": 3 } }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].tenants.training: must be a policy name or an "
          "object with a \"name\"" },
    { "colocate_tenants_policy_param",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"tenants\": { \"training\": { \"name\": "
          "\"lyra\", \"backfil\": true } } }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].tenants.training.backfil: unknown field (did "
          "you mean 'backfill'?" },
    { "colocate_lyra_backfill_type",
      { { "e.json", CEXPF(C_GROUPS, C_BROKER, C_SERVING,
                          C_TRAINING_P("[{ \"name\": \"lyra\", \"backfill\": 1 }]"),
                          "[\"loan\"]") } },
      { RUN }, 2, "hetsim: " AT("e.json", 9) "tenants.training.policies[0].backfill: "
                                       "must be true or false" },
    { "colocate_lyra_unknown_param",
      { { "e.json", CEXPF(C_GROUPS, C_BROKER, C_SERVING,
                          C_TRAINING_P("[{ \"name\": \"lyra\", \"placement\": \"pack\" }]"),
                          "[\"loan\"]") } },
      { RUN }, 2, "hetsim: " AT("e.json", 9) "tenants.training.policies[0].placement: "
                                       "unknown field" },
    /* the microservices tenant: its section on line 10 (after training's), on the cluster's
     * CPU groups (C_CPU: one; without it, none), its app a.json (MOK) */
#define C_CPU ", { \"name\": \"cpu\", \"count\": 2, \"cpus\": 8, \"memory_gb\": 16 }"
#define C_MS_P(pol, more) "{ \"app\": \"a.json\", \"sla_ms\": 50, \"workload\": " MWL            \
    ", \"policies\": " pol more " }"
#define C_MS C_MS_P("[\"derm\"]", "")
#define CMEXPF(cpu, micro, pol)                                                               \
    "{\n \"name\": \"c\",\n \"domain\": \"colocate\",\n \"cluster\": { \"network\": "        \
    "\"ib-100g\", \"groups\": [ { \"name\": \"a100\", \"count\": 1, \"gpu\": \"A100-80GB\", " \
    "\"gpus_per_node\": 1 }, { \"name\": \"v100\", \"count\": 1, \"gpu\": \"V100\", "          \
    "\"gpus_per_node\": 1 }" cpu " ] },\n \"serving_groups\": " C_GROUPS ",\n \"broker\": "      \
    C_BROKER ",\n \"tenants\": {\n  \"serving\": " C_SERVING ",\n  \"training\": " C_TRAINING    \
    ",\n  \"microservices\": " micro "\n },\n \"policies\": " pol "\n}\n"
#define C_MICRO(cpu, micro) { { "e.json", CMEXPF(cpu, micro, "[\"static\"]") }, { "a.json", MOK } }
/* training and microservices alone: 4 cluster, 5 broker, 6 "tenants", 7 training, 8 the
 * microservices, 10 policies; `groups` a line before the broker's (shifting them) */
#define CTMEXPF(groups, micro)                                                                \
    "{\n \"name\": \"c\",\n \"domain\": \"colocate\",\n \"cluster\": { \"network\": "        \
    "\"ib-100g\", \"groups\": [ { \"name\": \"v100\", \"count\": 1, \"gpu\": \"V100\", "       \
    "\"gpus_per_node\": 1 }" C_CPU " ] },\n" groups " \"broker\": " C_BROKER ",\n \"tenants\": "  \
    "{\n  \"training\": " C_TRAINING micro "\n },\n \"policies\": [\"static\", \"loan\"]\n}\n"
    { "colocate_micro_ok", { { "e.json", CMEXPF(C_CPU, C_MS, "[\"static\", \"loan\"]") },
                             { "a.json", MOK } }, { RUN }, 0, "", 2 },
    { "colocate_micro_with_training_alone_ok",
      { { "e.json", CTMEXPF("", ",\n  \"microservices\": " C_MS) }, { "a.json", MOK } },
      { RUN }, 0, "", 2 },
    { "colocate_micro_no_cpu_groups", C_MICRO("", C_MS), { RUN }, 2,
      AT("e.json", 10) "tenants.microservices: cluster 'cluster' has no CPU node groups, where "
                       "the microservice tenant's containers run" },
    { "colocate_micro_unknown_field", C_MICRO(C_CPU, C_MS_P("[\"derm\"]", ", \"sla_m\": 3")),
      { RUN }, 2, AT("e.json", 10) "tenants.microservices.sla_m: unknown field (did you mean "
                                   "'sla_ms'?" },
    { "colocate_micro_app_missing",
      { { "e.json", CMEXPF(C_CPU, "{ \"app\": \"nope.json\", \"sla_ms\": 50, \"workload\": "
                                  MWL ", \"policies\": [\"derm\"] }", "[\"static\"]") } },
      { RUN }, 2, AT("e.json", 10) "tenants.microservices.app: file 'nope.json' not found" },
    { "colocate_micro_app_bad",
      { { "e.json", CMEXPF(C_CPU, C_MS, "[\"static\"]") },
        { "a.json", MAPP(MA, MB, MCALLS(MROOT ", { \"id\": \"x\", \"service\": \"bb\", "
                                              "\"parent\": \"r\" }")) } },
      { RUN }, 2, AT("a.json", 7) "graphs[0].calls[1].service: a call to an unknown service 'bb'" },
    { "colocate_micro_sla_below_minimum",
      { { "e.json", CMEXPF(C_CPU, "{ \"app\": \"a.json\", \"sla_ms\": 0.5, \"workload\": "
                                  MWL ", \"policies\": [\"derm\"] }", "[\"static\"]") },
        { "a.json", MOK } },
      { RUN }, 2, AT("e.json", 10) "tenants.microservices.sla_ms: 0.5 ms is below the minimum "
                                   "latency of graph type 'g'" },
    { "colocate_micro_policy_of_another_domain", C_MICRO(C_CPU, C_MS_P("[\"fifo\"]", "")),
      { RUN }, 2, "hetsim: " AT("e.json", 10) "tenants.microservices.policies[0]: policy 'fifo' "
                                          "is for the training domain; the experiment is micro" },
    { "colocate_training_alone",
      { { "e.json", CTMEXPF("", "") } }, { RUN }, 2,
      AT("e.json", 6) "tenants: training shares the cluster with \"serving\", "
                      "\"microservices\" or both" },
    { "colocate_serving_groups_without_serving",
      { { "e.json", CTMEXPF(" \"serving_groups\": [\"v100\"],\n",
                            ",\n  \"microservices\": " C_MS) }, { "a.json", MOK } }, { RUN }, 2,
      AT("e.json", 5) "serving_groups: there is no serving tenant" },
    { "colocate_tenants_policy_of_absent_tenant",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"tenants\": { \"microservices\": "
                          "\"erms\" } }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].tenants.microservices: the experiment has no "
                                   "microservices tenant" },
    /* the loaning brokers' SLO guard (sched/loan.h) */
    { "colocate_slo_guard_above_one",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"slo_guard\": 1.5 }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].slo_guard: 1.5 is out of range" },
    { "colocate_slo_guard_not_a_number",
      { { "e.json", C_POL("[{ \"name\": \"hetero_loan\", \"slo_guard\": \"on\" }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].slo_guard: must be a number" },
    { "colocate_slo_decrease_one",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"slo_guard\": 0, \"slo_decrease\": 1 "
                          "}]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].slo_decrease: 1 is out of range" },
    { "colocate_slo_increase_zero",
      { { "e.json", C_POL("[{ \"name\": \"hetero_loan\", \"slo_guard\": 0.1, "
                          "\"slo_increase\": 0 }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].slo_increase: 0 is out of range" },
    { "colocate_slo_decrease_without_guard",
      { { "e.json", C_POL("[{ \"name\": \"loan\", \"slo_decrease\": 0.5 }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].slo_decrease: has no effect without slo_guard" },
    { "colocate_slo_guard_on_static",
      { { "e.json", C_POL("[{ \"name\": \"static\", \"slo_guard\": 0.1 }]") } },
      { RUN }, 2, AT("e.json", 11) "policies[0].slo_guard: unknown field" },
    { "colocate_slo_guard_without_objective",
      { { "e.json", C_POL("[\"static\", { \"name\": \"hetero_loan\", \"slo_guard\": 0.1 "
                          "}]") } },
      { RUN }, 2, AT("e.json", 11) "policies[1]: policy 'hetero_loan' watches serving's TTFT "
                                   "objective (slo_guard), but tenants.serving gives none" },
    /* the host cores of GPU servers ("host_cpus", "host_memory_gb"): cluster line 4 */
    { "colocate_host_cpus_negative",
      EXP(INLINE(INET, GRP("1", "V100", "4", ", \"host_cpus\": -2, \"host_memory_gb\": 8"))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].host_cpus: -2 is out of range" },
    { "colocate_host_memory_not_a_number",
      EXP(INLINE(INET, GRP("1", "V100", "4", ", \"host_cpus\": 2, \"host_memory_gb\": "
                                               "\"8\""))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].host_memory_gb: must be a number" },
    { "colocate_host_cpus_without_memory",
      EXP(INLINE(INET, GRP("1", "V100", "4", ", \"host_cpus\": 2"))),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].host_cpus: a server that leaves host_cpus "
                                  "to containers leaves host_memory_gb too" },
    { "colocate_host_cpus_on_a_cpu_group",
      EXP(INLINE(INET, "{ \"count\": 1, \"cpus\": 8, \"memory_gb\": 16, \"host_cpus\": 2 }")),
      { RUN }, 2, AT("e.json", 4) "cluster.groups[0].host_cpus: a CPU node group (no \"gpu\") "
                                  "has no host_cpus (its own are cpus and memory_gb)" },
#undef CTMEXPF
#undef C_MICRO
#undef CMEXPF
#undef C_MS
#undef C_MS_P
#undef C_CPU
};
#pragma GCC diagnostic pop

/* ---- running a row ---- */

/* s with every "%d" replaced by the temporary directory (caller frees) */
static char *expand(const char *s)
{
    const char *dir = th_tmpdir();
    size_t n = 0, dl = strlen(dir);
    for (const char *p = s; *p; p++)
        n += p[0] == '%' && p[1] == 'd' ? dl : 1;
    char *out = malloc(n + 1), *w = out;
    cr_assert_not_null(out);
    for (const char *p = s; *p; p++) {
        if (p[0] == '%' && p[1] == 'd') {
            memcpy(w, dir, dl);
            w += dl;
            p++;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    return out;
}

/* Runs stored in a database file; 0 when there is no file or no hetsim schema in it. */
static int db_runs(const char *path)
{
    struct stat st;
    if (path == NULL || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    sqlite3 *h;
    int n = 0;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &q, NULL) == SQLITE_OK) {
            if (sqlite3_step(q) == SQLITE_ROW)
                n = sqlite3_column_int(q, 0);
            sqlite3_finalize(q);
        }
    }
    sqlite3_close(h);
    return n;
}

/* 1 if the '*'-separated fragments of `want` occur in `text` in order */
static int has_fragments(const char *text, const char *want)
{
    char *w = strdup(want), *save = NULL;
    const char *at = text;
    int ok = 1;
    for (char *frag = strtok_r(w, "*", &save); frag != NULL && ok;
         frag = strtok_r(NULL, "*", &save)) {
        const char *hit = strstr(at, frag);
        ok = hit != NULL;
        if (ok)
            at = hit + strlen(frag);
    }
    free(w);
    return ok;
}

static void run_row(const struct row *r)
{
    for (int i = 0; i < 3 && r->files[i].name != NULL; i++)
        free(th_write(r->files[i].name, r->files[i].text));
    free(th_write("ok.csv", OK_TRACE));
    const char *skip = r->setup != NULL ? r->setup() : NULL;
    if (skip != NULL)
        cr_skip_test("[%s] skipped: %s", r->name, skip);

    char *argv[17] = { NULL }, cmd[1024] = "hetsim";
    const char *dbfile = NULL;
    for (int i = 0; r->args[i] != NULL; i++) {
        argv[i] = expand(r->args[i]);
        if (i > 0 && strcmp(r->args[i - 1], "--db") == 0)
            dbfile = argv[i];
        size_t n = strlen(cmd);
        snprintf(cmd + n, sizeof cmd - n, " %.60s", argv[i]);
    }
    struct th_out o = th_hetsim((const char *const *)argv);
    int runs = db_runs(dbfile);
    char *want = r->want != NULL ? expand(r->want) : NULL;

    char why[1024] = "";
    size_t n = 0;
    if (o.status != r->status)
        n += (size_t)snprintf(why + n, sizeof why - n, "exit %d, expected %d; ", o.status,
                              r->status);
    if (want != NULL && !has_fragments(o.err, want) && n < sizeof why)
        n += (size_t)snprintf(why + n, sizeof why - n, "stderr lacks '%.300s'; ", want);
    if (runs != r->runs && n < sizeof why)
        snprintf(why + n, sizeof why - n, "%d run(s) in %s, expected %d; ", runs, dbfile,
                 r->runs);
    n = strlen(why);
    if (n >= 2)
        why[n - 2] = '\0';       /* the last "; " */

    cr_assert(why[0] == '\0', "[%s] %s\n    command: %s\n    stderr: %.600s", r->name, why, cmd,
              o.err);
    free(want);
    for (int i = 0; argv[i] != NULL; i++)
        free(argv[i]);
    th_out_free(&o);
}

/* Criterion copies parameters into the worker process, where the table's pointers would not
 * hold (the worker may be a new exec), so the parameter is the row's index. */
static void free_params(struct criterion_test_params *p)
{
    cr_free(p->params);
}

ParameterizedTestParameters(inputs, rejected)
{
    size_t n = sizeof rows / sizeof rows[0];
    int *idx = cr_malloc(n * sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = (int)i;
    return cr_make_param_array(int, idx, n, free_params);
}

ParameterizedTest(int *i, inputs, rejected)
{
    run_row(&rows[*i]);
}

/* Tenant names in a hetsim trace reach the database as the integers they are numbered with
 * (0, 1, ... by first appearance), in jobs.user. */
Test(inputs, tenant_names_stored_as_numbers)
{
    free(th_write("e.json", E_WL(WL_T)));
    free(th_write("t.csv", UHDR UJOB("0", "vision") UJOB("5", "nlp") UJOB("9", "vision")
                               UJOB("12", "rl") UJOB("20", "nlp")));
    char *exp = tmp_path("e.json"), *dbp = tmp_path("t.db");
    const char *const args[] = { "run", exp, "--db", dbp, "-q", NULL };
    struct th_out o = th_hetsim(args);
    cr_assert_eq(o.status, 0, "%s", o.err);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(dbp, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT job_id, typeof(user), user FROM jobs "
                                       "ORDER BY job_id", -1, &q, NULL), SQLITE_OK);
    static const int want[] = { 0, 1, 0, 2, 1 };
    int n = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        cr_assert_lt(n, 5);
        cr_assert_eq(sqlite3_column_int(q, 0), n);
        cr_assert_str_eq((const char *)sqlite3_column_text(q, 1), "integer");
        cr_assert_eq(sqlite3_column_int(q, 2), want[n], "job %d: user %d, want %d", n,
                     sqlite3_column_int(q, 2), want[n]);
        n++;
    }
    cr_assert_eq(n, 5, "%d job rows", n);
    sqlite3_finalize(q);
    sqlite3_close(h);
    th_out_free(&o);
    free(exp);
    free(dbp);
}
