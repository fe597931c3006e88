-- hetsim metrics database, schema version 5.  Older files are upgraded when opened: version 1
-- files gain runs.group_hash and the run_params table; version 2 files gain runs.cluster_name
-- (runs.cluster then holds the name the experiment gave, the cluster's own name moving to
-- cluster_name) and the requests table; version 3 files gain jobs.min_workers, max_workers
-- and batch (NULL in their old rows); version 4 files' run_params are keyed by (run_id, sweep,
-- key), so that one run can belong to several sweeps.
--
-- One file holds many runs.  Each run is written inside one transaction, so a run that fails
-- or is killed leaves nothing behind.  Times are seconds of simulated time (REAL) unless a
-- column says otherwise; ratios are fractions.  Columns marked "wall clock" are the only ones
-- that differ between two runs of the same experiment and seed.
--
-- This schema is a public interface: query it directly (sqlite3, pandas, R).

CREATE TABLE IF NOT EXISTS runs (
    id            INTEGER PRIMARY KEY,  -- the run's key, referenced by every other table
    experiment    TEXT    NOT NULL,     -- the experiment's "name"
    domain        TEXT    NOT NULL,     -- training, ...
    policy        TEXT    NOT NULL,
    seed          INTEGER NOT NULL,
    cluster       TEXT    NOT NULL,     -- the cluster as the experiment named it: a shipped
                                        -- cluster or a file (as given), or the "name" of an
                                        -- inline cluster object
    config_json   TEXT    NOT NULL,     -- the experiment as run: after --set, --seed, --policy
    config_hash   TEXT    NOT NULL,     -- FNV-1a 64 of config_json, hex (same config, same hash;
                                        -- a sweep skips a run whose hash is already here)
    version       TEXT    NOT NULL,     -- hetsim version that wrote the run
    sim_end_s     REAL    NOT NULL,     -- simulated clock when the run stopped
    stop_reason   TEXT    NOT NULL,     -- drained | time_limit | event_limit | stalled
    events        INTEGER NOT NULL,     -- events processed
    decisions     INTEGER NOT NULL,     -- policy invocations
    jobs_total    INTEGER NOT NULL,     -- entities that arrived
    wall_s        REAL    NOT NULL,     -- wall clock: seconds the run took
    started_at    TEXT    NOT NULL,     -- wall clock: UTC start, ISO 8601
    -- FNV-1a 64 of config_json without "seed": runs that differ only in their seed share it
    group_hash    TEXT    NOT NULL DEFAULT '',
    -- the cluster's own "name" field (runs.cluster is what the experiment called it)
    cluster_name  TEXT    NOT NULL DEFAULT ''
);

-- Training jobs, one row per job that arrived (finished or not).
CREATE TABLE IF NOT EXISTS jobs (
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    job_id          INTEGER NOT NULL,   -- the trace's job id
    user            INTEGER NOT NULL,   -- tenant
    job_type        TEXT    NOT NULL,
    workers         INTEGER NOT NULL,   -- GPUs requested
    work            REAL    NOT NULL,   -- iterations
    arrival_s       REAL    NOT NULL,
    first_start_s   REAL,               -- NULL if it never ran
    finish_s        REAL,               -- NULL if unfinished when the run stopped
    jct_s           REAL,               -- finish - arrival
    queue_delay_s   REAL,               -- first start - arrival
    n_avg           REAL    NOT NULL,   -- mean number of active jobs during its life
    t_iso_s         REAL,               -- completion time alone on an exclusive 1/n_avg share
    ftf_rho         REAL,               -- finish-time fairness: jct / t_iso (<= 1 is fair)
    attained_gpu_s  REAL    NOT NULL,   -- GPU-seconds received (shares count fractionally)
    preemptions     INTEGER NOT NULL,
    migrations      INTEGER NOT NULL,
    -- elastic jobs (a trace range of GPU counts, or an elastic application's job in Pollux
    -- mode): the GPU counts it could run on, and its global batch size where the trace set
    -- one; NULL for a rigid job
    min_workers     INTEGER,
    max_workers     INTEGER,
    batch           INTEGER
);
CREATE INDEX IF NOT EXISTS jobs_run ON jobs(run_id);

-- Requests of the serving and microservice worlds, one row per request that arrived
-- (finished or not).  Times in seconds of simulated time; NULL where a part does not apply or
-- did not happen (an unfinished request has no finish).
CREATE TABLE IF NOT EXISTS requests (
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    request_id  INTEGER NOT NULL,   -- the trace's request id
    class       TEXT    NOT NULL,   -- serving: the model or tenant; microservices: graph type
    arrival_s   REAL    NOT NULL,
    start_s     REAL,               -- service began (scheduled into a batch; first call)
    first_s     REAL,               -- serving: first output token; else NULL
    finish_s    REAL,               -- last token / last response; NULL if unfinished
    e2e_s       REAL,               -- finish - arrival
    queue_s     REAL,               -- start - arrival
    ttft_s      REAL,               -- serving: first - arrival (time to first token)
    tpot_s      REAL,               -- serving: (finish - first) / (out_tokens - 1)
    in_tokens   INTEGER,            -- serving: prompt tokens
    out_tokens  INTEGER,            -- serving: output tokens
    sla_met     INTEGER             -- 1 met, 0 missed the experiment's SLO/SLA; NULL if none
);
CREATE INDEX IF NOT EXISTS requests_run ON requests(run_id);

-- GPU-seconds each job received, by GPU type (rows only for types it used).
CREATE TABLE IF NOT EXISTS job_gpu_seconds (
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    job_id    INTEGER NOT NULL,
    gpu_type  TEXT    NOT NULL,
    gpu_s     REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS job_gpu_seconds_run ON job_gpu_seconds(run_id);

-- Pods of the placement world, one row per pod that arrived, in arrival order: what it asked
-- for, and where it went (or that no node could take it).  Counts are integers: CPU in 1/1000
-- of a core, memory in MiB, GPU in 1/1000 of one GPU (1000 = a whole GPU).
CREATE TABLE IF NOT EXISTS pods (
    run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    pod_seq          INTEGER NOT NULL,  -- position in the arrival sequence, from 0
    name             TEXT    NOT NULL,  -- the list's name; "<name>-tuned-<i>" when drawn again
    trace_row        INTEGER NOT NULL,  -- its row in the pod list, from 0
    drawn            INTEGER NOT NULL,  -- 1: drawn again from the list to inflate the load
    cpu_milli        INTEGER NOT NULL,
    memory_mib       INTEGER NOT NULL,
    num_gpu          INTEGER NOT NULL,  -- 0 for a CPU-only pod
    gpu_milli        INTEGER NOT NULL,  -- per GPU: below 1000 the pod shares its one GPU
    gpu_spec         TEXT,              -- GPU models it may use, '|'-separated; NULL: any
    node             TEXT,              -- the node's name (sn); NULL when not placed
    gpus             TEXT,              -- its GPUs on the node, '-'-separated indices from 0;
                                        -- NULL for a CPU-only or unplaced pod
    placed           INTEGER NOT NULL,  -- 1 placed, 0 left unallocated
    arrived_gpu_frac REAL    NOT NULL,  -- GPU request arrived so far (this pod's included)
                                        -- over the cluster's GPUs
    failed_at_load   REAL               -- arrived_gpu_frac when it was left unallocated;
                                        -- NULL when placed
);
CREATE INDEX IF NOT EXISTS pods_run ON pods(run_id);

-- Time series.  Names: util_<GPU type> and util_total (mean fraction of GPUs granted over the
-- sample period ending at t_s), queue_len and running_jobs (at t_s); for round-based policies
-- round_gpus_<GPU type> (GPUs granted by a round's decision) and round_jobs_running, written
-- only when they change (a step function: each value holds until the next row).  A sample equal
-- to both its neighbours in its series is not stored (unless the experiment sets
-- sim.sample_repeats): a flat stretch is stored as its first and last points, so a line or a
-- step plot through the rows is unchanged.  Summary figures (metrics) come from the full run.
-- Placement runs: arrived_gpu_frac, gpu_alloc_frac, milli_alloc_frac, frag_frac,
-- frag_cluster_frac and pods_unallocated, each time the arrived GPU request crosses a multiple
-- of sim.sample_load of the cluster's GPUs; their t_s is the pod's position in the arrival
-- sequence (a placement world's clock counts pods), so join series on t_s.
CREATE TABLE IF NOT EXISTS samples (
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    t_s     REAL    NOT NULL,
    name    TEXT    NOT NULL,
    value   REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS samples_run ON samples(run_id, name);

-- Summary figures, one row per (run, name).  Names are a stable interface; see doc/database.md,
-- "Metrics".  solver_time_mean and solver_time_max are wall clock.
CREATE TABLE IF NOT EXISTS metrics (
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name    TEXT    NOT NULL,
    value   REAL    NOT NULL,
    PRIMARY KEY (run_id, name)
);

-- The swept fields of the runs of each `hetsim sweep`: one row per run, sweep and axis.  A
-- run the sweep found already in the file (made by `hetsim run`, another sweep or a merge, with
-- the same configuration) is given its rows for this sweep too, so it counts in the sweep.
CREATE TABLE IF NOT EXISTS run_params (
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    sweep   TEXT    NOT NULL,   -- the sweep's "name"
    key     TEXT    NOT NULL,   -- "policy", "seed", or an experiment field path
    value   TEXT    NOT NULL,   -- its value in this run, as JSON text
    num     REAL,               -- the value when it is a number, else NULL
    PRIMARY KEY (run_id, sweep, key)
);
CREATE INDEX IF NOT EXISTS run_params_sweep ON run_params(sweep, key);
CREATE INDEX IF NOT EXISTS runs_config_hash ON runs(config_hash);

-- Who held which resource when (opt-in: only runs made with "sim": {"timeline": true} have
-- rows, so sweeps stay small).  One row per interval of one entity on one resource, or on none
-- while it waits; an entity on n resources at once has n rows for the interval.  Between its
-- arrival and its end every moment of an entity is in some row (intervals of zero length are
-- not stored).  Every world writes them (doc/figures.md, "Inside a run"; sim/core/world.h):
--   training      entity = jobs.job_id, resource = a GPU id (GPUs are numbered node by node in
--                 the cluster file's order; in Gavel mode, which does not place jobs, a
--                 position among the GPUs of the type; in Pollux mode, which counts GPUs per
--                 node, the lowest free GPUs of the nodes of the job's list); queued rows, then
--                 each grant as restoring while its checkpoint restore (Pollux: restart_s)
--                 lasts and running (a whole GPU) or shared (a share < 1) after;
--   placement     entity = pods.pod_seq, resource = a GPU id (node by node in the node list),
--                 node = the node's index in the list, resource_type = its GPU model; time is
--                 the arrival sequence: pod k at k s, the run over [0, N) s; a placed pod
--                 running or shared (share = gpu_milli / 1000) from its arrival to the end
--                 (start -> stop), an unplaced GPU pod queued; CPU-only pods have no row;
--   serving       entity = requests.request_id, resource = the instance (its index in the
--                 deployment), node = the node of its first GPU, resource_type = its GPU types
--                 joined by '+'; queued, then running at share 1 (an instance's requests share
--                 it); restoring on a decode instance while its KV moves there (migrate);
--   microservices entity = the service's index in the application, resource = one of its
--                 containers (numbered as they first appear), node NULL, resource_type = the
--                 service's name; running while ready, restoring while starting: a service's
--                 containers at a moment are its rows alive then.
-- `hetsim trace` turns them into a Perfetto / Chrome trace.
CREATE TABLE IF NOT EXISTS timeline (
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    entity         INTEGER NOT NULL,    -- training: jobs.job_id; placement: pods.pod_seq;
                                        -- serving: requests.request_id; micro: service index
    resource       INTEGER,             -- GPU id, serving instance or container; NULL when queued
    node           INTEGER,             -- the resource's node (server) index; NULL when queued
                                        -- and for containers (not placed on nodes)
    resource_type  TEXT,                -- its type: the GPU type ("V100-16GB"), an instance's
                                        -- GPU types ("A100-80GB+H100"), a container's service;
                                        -- NULL when queued
    start_s        REAL    NOT NULL,
    end_s          REAL    NOT NULL,    -- > start_s
    state          TEXT    NOT NULL,    -- queued | running | shared | restoring
    share          REAL,                -- fraction of the resource held, (0, 1]; NULL when queued
    cause          TEXT    NOT NULL,    -- what began it: arrival | start | resume | migrate |
                                        -- resize | reshare | preempt (queued after preemption)
    ends           TEXT    NOT NULL     -- what ended it: the cause of the entity's next interval
                                        -- (start | resume when granted, migrate, resize,
                                        -- reshare, preempt), restored (its restore finished),
                                        -- or finish | drop (Gavel mode: 5 failed micro-tasks) |
                                        -- stop (sim.until_s, sim.max_events)
);
CREATE INDEX IF NOT EXISTS timeline_run ON timeline(run_id, resource, start_s);
