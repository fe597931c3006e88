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

int xfer_group_ports(const cluster *cl, const llm_catalog *llm, const int32_t *src, int n,
                     const int32_t *dst, int m, double bytes, struct linkbook_port *p)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        p[k++] = port(cl, llm, LINKBOOK_GPU_OUT, src[i], bytes / n);
    for (int i = 0; i < m; i++)
        p[k++] = port(cl, llm, LINKBOOK_GPU_IN, dst[i], bytes / m);
    int a = cluster_gpu_node(cl, src[0]), b = cluster_gpu_node(cl, dst[0]);
    if (a != b) {
        p[k++] = port(cl, llm, LINKBOOK_NET_OUT, a, bytes);
        p[k++] = port(cl, llm, LINKBOOK_NET_IN, b, bytes);
    }
    return k;
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
