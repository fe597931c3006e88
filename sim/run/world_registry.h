/*
 * world_registry: every world, found by the experiment's "domain" (sim/core/world.h says what
 * a world is).  Adding a world is one folder under sim/ with one `const struct world_ops`,
 * and one line in world_registry.c.
 */
#ifndef HETSIM_WORLD_REGISTRY_H
#define HETSIM_WORLD_REGISTRY_H

#include "../core/world.h"

/* NULL-terminated, in the order `hetsim list domains` prints. */
extern const struct world_ops *const world_registry[];

/* The world of a domain, or NULL. */
const struct world_ops *world_find(const char *domain);

#endif
