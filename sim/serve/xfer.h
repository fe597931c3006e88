/*
 * xfer: which ports (linkbook.h) a transfer between GPUs of a cluster crosses, and for how
 * long it holds each: the bytes that port carries over its link at the latency model's rate
 * (llm_send_s: never faster than the link's bandwidth).  A GPU's port is its link into its
 * node; a node's is its network link.  The serving world reserves what these return.
 *
 * Pure functions of their arguments; the caller owns every array.
 */
#ifndef HETSIM_XFER_H
#define HETSIM_XFER_H

#include "linkbook.h"
#include "serve_view.h"

/* room enough for any transfer below */
enum { XFER_MAX_PORTS = 4 * SERVE_MAX_DEV + 2 * SERVE_MAX_TP + 4 };

/* How long `bytes` hold a port of `link` (0: no bytes, no hold). */
simtime xfer_dur(const llm_catalog *llm, int link, double bytes);

/* `bytes` spread evenly from the n GPUs src[] to the m GPUs dst[]: each GPU's link into its
 * node carries its share, and when the groups' first GPUs sit on different nodes, both nodes'
 * network links carry all of it.  Returns how many ports, into p. */
int xfer_group_ports(const cluster *cl, const llm_catalog *llm, const int32_t *src, int n,
                     const int32_t *dst, int m, double bytes, struct linkbook_port *p);

/* The route of xfer_group_ports without its holds: each port, its link and what divides
 * the bytes it carries (its group's size, or 1), so that a caller sending over one route
 * again and again (a pipeline's stage boundary) looks the cluster up once.
 * xfer_route_ports(xfer_group_route(...), bytes) is exactly xfer_group_ports(..., bytes);
 * `memo` (NULL: none; else zeroed before the first call) keeps the holds of the links and
 * byte counts seen, so a batch's boundaries over links alike compute each once. */
struct xfer_hop {
    int     dir;            /* enum linkbook_dir */
    int32_t id;
    int     link, div;
    int     alone;          /* the caller's finding: no other transfer ever crosses this port
                               (0 from xfer_group_route) */
};
struct xfer_route {
    int             n;
    struct xfer_hop p[2 * SERVE_MAX_TP + 2];
};
struct xfer_memo {
    int     n;
    int     link[8];
    double  bytes[8];
    simtime dur[8];
};
void xfer_group_route(const cluster *cl, const int32_t *src, int n, const int32_t *dst, int m,
                      struct xfer_route *r);
int  xfer_route_ports(const llm_catalog *llm, const struct xfer_route *r, double bytes,
                      struct xfer_memo *memo, struct linkbook_port *p);

/* A Hetis instance's traffic between its primaries (prim[0..np), one node) and its workers
 * dev[1..ndev) (dev[0], the primaries, is skipped): out[d] bytes from worker d to the
 * primaries, in[d] to it.  Every byte crosses the worker's link into its node and the
 * primaries' (shared evenly by the TP group); a worker on another node also its node's
 * network link (shared with the other workers there) and the primaries' node's (shared by
 * every remote worker).  Returns how many ports, into p. */
int xfer_hetis_ports(const cluster *cl, const llm_catalog *llm, const int32_t *prim, int np,
                     const struct serve_attn_dev *dev, int ndev, const double *out,
                     const double *in, struct linkbook_port *p);

#endif
