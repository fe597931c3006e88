/*
 * par: MPI_Init / MPI_Allreduce when built with HETSIM_MPI, else rank 0 of 1.
 */
#include "par.h"

#ifdef HETSIM_MPI
#include <mpi.h>

static int started;

int par_built(void) { return 1; }

int par_init(int *argc, char ***argv)
{
    if (started)
        return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return -1;
    started = 1;
    return 0;
}

void par_finalize(void)
{
    if (started)
        MPI_Finalize();
    started = 0;
}

int par_rank(void)
{
    int r = 0;
    if (started)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int par_size(void)
{
    int n = 1;
    if (started)
        MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

long par_sum(long v)
{
    long sum = v;
    if (started)
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

#else

int par_built(void) { return 0; }
int par_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}
void par_finalize(void) {}
int par_rank(void) { return 0; }
int par_size(void) { return 1; }
long par_sum(long v) { return v; }

#endif
