/*
 * world_registry: the list of worlds and the lookup by domain.
 */
#include "world_registry.h"

#include <string.h>

extern const struct world_ops train_world, place_world, serve_world, micro_world,
    colocate_world;

const struct world_ops *const world_registry[] = {
    &train_world,
    &place_world,
    &serve_world,
    &micro_world,
    &colocate_world,
    NULL,
};

const struct world_ops *world_find(const char *domain)
{
    for (int i = 0; world_registry[i] != NULL; i++)
        if (strcmp(world_registry[i]->domain, domain) == 0)
            return world_registry[i];
    return NULL;
}
