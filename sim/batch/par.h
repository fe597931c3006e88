/*
 * par: what a sweep needs from MPI — this process's rank, the number of ranks, and a sum
 * over ranks (which is also the barrier) — with one-process stand-ins when hetsim is built
 * without MPI, the default.  `make MPI=1` builds with OpenMPI (mpicc) and HETSIM_MPI defined.
 *
 * Only `hetsim sweep` calls par_init; other commands never touch MPI.
 */
#ifndef HETSIM_PAR_H
#define HETSIM_PAR_H

/* 1 when built with MPI. */
int  par_built(void);

/* Start MPI (a no-op without it).  Returns 0, or -1 if MPI could not start. */
int  par_init(int *argc, char ***argv);
void par_finalize(void);

int  par_rank(void);
int  par_size(void);

/* The sum of v over all ranks, returned on every rank (every rank must call it). */
long par_sum(long v);

#endif
