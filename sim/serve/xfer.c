/*
 * xfer: the ports of xfer.h and their holds.  A port appears once per transfer (a Hetis
 * remote node's network link once for all its workers), so that a reservation never holds
 * one port twice.
 */
#include "xfer.h"

simtime xfer_dur(const llm_catalog *llm, int link, double bytes)
{
    return bytes > 0 ? sim_from_sec_ceil(llm_send_s(llm, link, bytes)) : 0;
}

static int intra_of(const cluster *cl, int gpu)
{
    return cluster_node(cl, cluster_gpu_node(cl, gpu))->intra;
}

static int net_of(const cluster *cl, int node) { return cluster_node(cl, node)->net; }

static struct linkbook_port port(const cluster *cl, const llm_catalog *llm, int dir,
                                 int32_t id, double bytes)
{
    int link = dir == LINKBOOK_GPU_OUT || dir == LINKBOOK_GPU_IN ? intra_of(cl, id)
                                                                 : net_of(cl, id);
    return (struct linkbook_port){ dir, id, xfer_dur(llm, link, bytes) };
}

void xfer_group_route(const cluster *cl, const int32_t *src, int n, const int32_t *dst, int m,
                      struct xfer_route *r)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        r->p[k++] = (struct xfer_hop){ LINKBOOK_GPU_OUT, src[i], intra_of(cl, src[i]), n, 0 };
    for (int i = 0; i < m; i++)
        r->p[k++] = (struct xfer_hop){ LINKBOOK_GPU_IN, dst[i], intra_of(cl, dst[i]), m, 0 };
    int a = cluster_gpu_node(cl, src[0]), b = cluster_gpu_node(cl, dst[0]);
    if (a != b) {
        r->p[k++] = (struct xfer_hop){ LINKBOOK_NET_OUT, a, net_of(cl, a), 1, 0 };
        r->p[k++] = (struct xfer_hop){ LINKBOOK_NET_IN, b, net_of(cl, b), 1, 0 };
    }
    r->n = k;
}

/* xfer_dur(link, bytes), from the memo when it has them */
static simtime memo_dur(const llm_catalog *llm, struct xfer_memo *m, int link, double bytes)
{
    if (m == NULL)
        return xfer_dur(llm, link, bytes);
    for (int i = 0; i < m->n; i++)
        if (m->link[i] == link && m->bytes[i] == bytes)
            return m->dur[i];
    simtime d = xfer_dur(llm, link, bytes);
    if (m->n < 8) {
        m->link[m->n] = link;
        m->bytes[m->n] = bytes;
        m->dur[m->n++] = d;
    }
    return d;
}

int xfer_route_ports(const llm_catalog *llm, const struct xfer_route *r, double bytes,
                     struct xfer_memo *memo, struct linkbook_port *p)
{
    for (int k = 0; k < r->n; k++)
        p[k] = (struct linkbook_port){ r->p[k].dir, r->p[k].id,
                                       memo_dur(llm, memo, r->p[k].link,
                                                bytes / r->p[k].div) };
    return r->n;
}

int xfer_group_ports(const cluster *cl, const llm_catalog *llm, const int32_t *src, int n,
                     const int32_t *dst, int m, double bytes, struct linkbook_port *p)
{
    struct xfer_route r;
    xfer_group_route(cl, src, n, dst, m, &r);
    return xfer_route_ports(llm, &r, bytes, NULL, p);
}

int xfer_hetis_ports(const cluster *cl, const llm_catalog *llm, const int32_t *prim, int np,
                     const struct serve_attn_dev *dev, int ndev, const double *out,
                     const double *in, struct linkbook_port *p)
{
    int pnode = cluster_gpu_node(cl, prim[0]), k = 0;
    double all_out = 0, all_in = 0, net_out = 0, net_in = 0;
    for (int d = 1; d < ndev; d++) {
        int g = dev[d].gpu, nd = cluster_gpu_node(cl, g);
        p[k++] = port(cl, llm, LINKBOOK_GPU_IN, g, in[d]);
        p[k++] = port(cl, llm, LINKBOOK_GPU_OUT, g, out[d]);
        all_out += out[d];
        all_in += in[d];
        if (nd == pnode)
            continue;
        net_out += in[d];
        net_in += out[d];
        int first = 1;      /* a remote node's network link: its workers together */
        for (int e = 1; e < d && first; e++)
            first = cluster_gpu_node(cl, dev[e].gpu) != nd;
        if (!first)
            continue;
        double node_in = 0, node_out = 0;
        for (int e = d; e < ndev; e++)
            if (cluster_gpu_node(cl, dev[e].gpu) == nd) {
                node_in += in[e];
                node_out += out[e];
            }
        p[k++] = port(cl, llm, LINKBOOK_NET_IN, nd, node_in);
        p[k++] = port(cl, llm, LINKBOOK_NET_OUT, nd, node_out);
    }
    for (int q = 0; q < np; q++) {
        p[k++] = port(cl, llm, LINKBOOK_GPU_OUT, prim[q], all_in / np);
        p[k++] = port(cl, llm, LINKBOOK_GPU_IN, prim[q], all_out / np);
    }
    p[k++] = port(cl, llm, LINKBOOK_NET_OUT, pnode, net_out);
    p[k++] = port(cl, llm, LINKBOOK_NET_IN, pnode, net_in);
    return k;
}
