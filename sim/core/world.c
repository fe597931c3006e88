/*
 * world: the one-world run of a world that can share an engine (world.h): an engine of its
 * own, the world attached as its only client, advanced under the experiment's limits, then
 * finished.
 */
#include "world.h"

#include "engine.h"

int world_run_alone(const struct world_ops *ops, void *world, const struct world_sim *sim,
                    struct world_totals *out, struct errbuf *err)
{
    engine *e = engine_create(1024);
    if (e == NULL)
        return err_run(err, "out of memory (event queue)");
    int rc = ops->attach(world, e, err);
    if (rc == 0) {
        struct engine_limits lim = { sim->until, sim->max_events };
        rc = ops->finish(world, engine_advance(e, &lim, err), out, err);
    }
    engine_destroy(e);
    return rc;
}
