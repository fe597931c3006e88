/*
 * test_crash: the database survives what users do to long runs — a run killed with SIGKILL
 * while it simulates, or while it copies its rows into the file, leaves a valid file
 * (integrity_check ok) with no trace of that run, and the file takes the next run normally;
 * four processes appending runs to one file at once lose nothing and write the rows each
 * would have written alone; a full disk mid-run is reported and rolled back; unwritable and
 * read-only databases are reported, and a read-only one can still be read.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../results/db.h"
#include "helpers.h"

extern char **environ;

static pid_t spawn_hetsim(const char *const *args)
{
    const char *argv[32] = { HETSIM_BIN };
    int n = 1;
    for (; args[n - 1] != NULL && n < 31; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    cr_assert_eq(posix_spawn(&pid, HETSIM_BIN, &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

static char *text_value(const char *path, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    char *out = strdup(sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0)
                                                      : "");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* a run of a few seconds: 400,000 synthetic jobs on 1,024 GPUs */
static const char big_exp[] =
    "{ \"name\": \"big\", \"seed\": 3, \"cluster\": { \"network\": \"ib-100g\", \"groups\": [\n"
    "   { \"count\": 32, \"gpu\": \"A100-40GB\", \"gpus_per_node\": 8 },\n"
    "   { \"count\": 96, \"gpu\": \"V100\", \"gpus_per_node\": 4 },\n"
    "   { \"count\": 96, \"gpu\": \"T4\", \"gpus_per_node\": 4 } ] },\n"
    "  \"workload\": { \"format\": \"synthetic\", \"jobs\": 400000, \"rate_per_hour\": 420,\n"
    "    \"job_types\": { \"ResNet-50 (batch size 64)\": 1, \"LM (batch size 20)\": 1 },\n"
    "    \"duration\": { \"dist\": \"lognormal\", \"median_s\": 3600, \"sigma\": 1 } },\n"
    "  \"policies\": [\"fifo\"], \"sim\": { \"sample_s\": 0 } }\n";

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* bytes the process has written so far (all files, the spool of its rows included) */
static long long bytes_written(pid_t pid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
    FILE *f = fopen(path, "r");
    long long v = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "wchar: %lld", &v) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return v;
}

enum kill_phase { WHILE_SIMULATING, WHILE_COMMITTING };

/* Run the 400,000-job experiment into `dbp` (which holds one run already) and SIGKILL it in
 * the given phase: while it spools rows (it has written 8 MB, the file's WAL has not grown),
 * or while it inserts them into the file (the WAL has grown by 4 MB). */
static void kill_big_run(const char *exp, const char *dbp, enum kill_phase phase)
{
    char wal[520];
    snprintf(wal, sizeof wal, "%s-wal", dbp);
    long long wal0 = file_size(wal);
    pid_t pid = spawn_hetsim((const char *const[]){ "run", exp, "--db", dbp, "-q", NULL });
    int waited = 0, status;
    for (;; waited++) {
        long long grown = file_size(wal) - wal0;
        if (phase == WHILE_SIMULATING ? grown == 0 && bytes_written(pid) > 8 << 20
                                      : grown > 4 << 20)
            break;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the run ended before it was killed");
        cr_assert_lt(waited, 60000, "the run never reached the phase to kill it in");
        sleep_ms(1);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

Test(crash, sigkill_mid_run_leaves_a_valid_database_without_the_run, .timeout = 180)
{
    char *exp = th_write("big.json", big_exp);
    char dbp[512], wal[520];
    snprintf(dbp, sizeof dbp, "%s/killed.db", th_tmpdir());
    snprintf(wal, sizeof wal, "%s-wal", dbp);
    remove(dbp);
    remove(wal);
    /* one committed run first, so the kill must not harm earlier runs either */
    struct th_out o = th_hetsim((const char *const[]){ "run", "default", "--policy", "fifo",
                                                       "--db", dbp, "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    for (int phase = WHILE_SIMULATING; phase <= WHILE_COMMITTING; phase++) {
        kill_big_run(exp, dbp, phase);
        char *ok = text_value(dbp, "PRAGMA integrity_check");
        cr_assert_str_eq(ok, "ok");
        free(ok);
        cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 1, 0);
        cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs WHERE experiment = "
                                            "'big'"), 0, 0);
        cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM jobs"), 300, 0);
        cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM jobs WHERE run_id NOT IN "
                                            "(SELECT id FROM runs)"), 0, 0);
    }
    /* and the file takes the next run */
    o = th_hetsim((const char *const[]){ "run", "default", "--policy", "srtf", "--db", dbp, "-q",
                                         NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 2, 0);
    free(exp);
}

Test(crash, four_writers_at_once_lose_nothing, .timeout = 120)
{
    char dbp[512];
    snprintf(dbp, sizeof dbp, "%s/shared.db", th_tmpdir());
    remove(dbp);
    static const char *const pols[] = { "fifo", "srtf", "fifo_perf", "gavel_las_perf" };
    pid_t pid[4];
    for (int i = 0; i < 4; i++)
        pid[i] = spawn_hetsim((const char *const[]){ "run", "default", "--policy", pols[i],
                                                     "--db", dbp, "-q", NULL });
    for (int i = 0; i < 4; i++) {
        int status;
        waitpid(pid[i], &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %s failed", pols[i]);
    }
    char *ok = text_value(dbp, "PRAGMA integrity_check");
    cr_assert_str_eq(ok, "ok");
    free(ok);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 4, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(DISTINCT policy) FROM runs"), 4, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM jobs"), 1200, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT min(c) FROM (SELECT count(*) c FROM jobs "
                                       "GROUP BY run_id)"), 300, 0);
    /* and each run is the run it would have been alone: same rows as a run on its own */
    char alone[512], sql[256];
    snprintf(alone, sizeof alone, "%s/alone.db", th_tmpdir());
    for (int i = 0; i < 4; i++) {
        remove(alone);
        struct th_out o = th_hetsim((const char *const[]){ "run", "default", "--policy", pols[i],
                                                           "--db", alone, "-q", NULL });
        cr_assert_eq(o.status, 0, "%s", o.err);
        th_out_free(&o);
        snprintf(sql, sizeof sql,
                 "SELECT total(j.finish_s * (j.job_id + 1) + j.first_start_s) FROM jobs j "
                 "JOIN runs r ON r.id = j.run_id WHERE r.policy = '%s'", pols[i]);
        cr_assert_float_eq(th_db_value(dbp, sql), th_db_value(alone, sql), 0, "%s", pols[i]);
    }
}

Test(crash, a_full_disk_is_reported_and_rolled_back)
{
    char dbp[512];
    snprintf(dbp, sizeof dbp, "%s/full.db", th_tmpdir());
    remove(dbp);
    struct errbuf err;
    err_clear(&err);
    db *d;
    cr_assert_eq(db_open(&d, dbp, &err), 0, "%s", err.msg);
    /* cap the file near its current size: the run's rows cannot fit */
    char *pages = text_value(dbp, "PRAGMA page_count");
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA max_page_count = %d", atoi(pages) + 2);
    free(pages);
    cr_assert_eq(sqlite3_exec(db_handle(d), sql, NULL, NULL, NULL), SQLITE_OK);
    struct db_run r = { .experiment = "exp", .domain = "training", .policy = "fifo",
                        .cluster = "c", .config_json = "{}", .version = "test",
                        .seed = 1 };
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    /* spooled rows are not in the file yet: the insert at the commit is what overflows */
    for (int i = 0; i < 20000; i++) {
        struct th_job j = { .job_id = i, .job_type = "toy-with-a-long-name-to-fill-pages",
                            .work = 1, .first_start_s = -1, .finish_s = -1, .t_iso_s = -1,
                            .ftf_rho = -1 };
        cr_assert_eq(th_db_job(d, &j, &err), 0, "%s", err.msg);
    }
    struct db_run_end end = { 1, 0, "drained", 1, 1, 20000 };
    int64_t id = 0;
    cr_assert_lt(db_run_commit(d, &end, &id, &err), 0, "20,000 rows fit in a capped file");
    cr_assert_eq(err.code, ERR_RUN);
    cr_assert(strstr(err.msg, "full") != NULL, "%s", err.msg);
    /* the handle stays usable: a small run still fits once the cap is lifted */
    cr_assert_eq(sqlite3_exec(db_handle(d), "PRAGMA max_page_count = 1000000", NULL, NULL,
                              NULL), SQLITE_OK);
    cr_assert_eq(db_run_begin(d, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(db_run_commit(d, &end, &id, &err), 0, "%s", err.msg);
    db_close(d);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 1, 0);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM jobs"), 0, 0);
}

/* paths where no database can be written: a read-only file system (even for root), a
 * directory, a file that is not a database; each is named in a message, never crashed on */
Test(crash, unwritable_database_paths_are_reported)
{
    char *junk = th_write("junk.db", "this is not an SQLite file\n");
    const char *const paths[] = { "/proc/hetsim.db", th_tmpdir(), junk };
    const char *const want[] = { "unable to open", "unable to open", "not a database" };
    for (int i = 0; i < 3; i++) {
        struct th_out o = th_hetsim((const char *const[]){ "run", "default", "--db", paths[i],
                                                           "-q", NULL });
        cr_assert_eq(o.status, 1, "%s: exit %d: %s", paths[i], o.status, o.err);
        cr_assert(strstr(o.err, paths[i]) != NULL && strstr(o.err, want[i]) != NULL, "%s",
                  o.err);
        th_out_free(&o);
    }
    free(junk);
}

/* a database file the user may not write: reported, exit 1, the file unchanged.  As root,
 * file modes stop nothing, so the run is made as user nobody (setpriv, util-linux). */
Test(crash, a_read_only_database_is_reported)
{
    char dir[600], dbp[700], cmd[2048];
    snprintf(dir, sizeof dir, "%s/ro", th_tmpdir());
    snprintf(dbp, sizeof dbp, "%s/t.db", dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    cr_assert_eq(chmod(th_tmpdir(), 0755), 0);
    struct th_out o = th_hetsim((const char *const[]){ "run", "default", "--policy", "fifo",
                                                       "--db", dbp, "-q", NULL });
    cr_assert_eq(o.status, 0, "%s", o.err);
    th_out_free(&o);
    cr_assert_eq(chmod(dbp, 0444), 0);
    snprintf(cmd, sizeof cmd, "%s %s run default --policy srtf --db %s -q 2>%s/ro.err",
             geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "",
             HETSIM_BIN, dbp, th_tmpdir());
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s: status %d", cmd, st);
    char errp[700];
    snprintf(errp, sizeof errp, "%s/ro.err", th_tmpdir());
    FILE *f = fopen(errp, "r");
    char msg[1024] = "";
    cr_assert_not_null(f);
    size_t n = fread(msg, 1, sizeof msg - 1, f);
    msg[n] = '\0';
    fclose(f);
    cr_assert(strstr(msg, dbp) != NULL && strstr(msg, "readonly database") != NULL, "%s", msg);
    cr_assert_float_eq(th_db_value(dbp, "SELECT count(*) FROM runs"), 1, 0);
    /* and that user can still read it (a paper artifact's database in a read-only folder:
     * no -shm can be created beside it) */
    snprintf(cmd, sizeof cmd, "%s %s report --db %s --format csv >%s/ro.out 2>&1",
             geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "",
             HETSIM_BIN, dbp, th_tmpdir());
    st = system(cmd);
    snprintf(errp, sizeof errp, "%s/ro.out", th_tmpdir());
    f = fopen(errp, "r");
    cr_assert_not_null(f);
    n = fread(msg, 1, sizeof msg - 1, f);
    msg[n] = '\0';
    fclose(f);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d: %s", cmd, st, msg);
    cr_assert(strstr(msg, "\n1,default,fifo,300,") != NULL, "%s", msg);
}
