/*
 * cmd: the `hetsim sweep` and `hetsim merge` commands, and `hetsim model` (the latency
 * model's what-ifs and fit), kept out of main.c, which holds the single-run commands.  Each parses its own options and returns the process's exit
 * status: 0 ok, 1 some run or the merge failed, 2 bad usage or input, 130 interrupted.
 */
#ifndef HETSIM_CMD_H
#define HETSIM_CMD_H

int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_model(int argc, char **argv);

#endif
