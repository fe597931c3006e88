/* version: the release of hetsim, recorded with every run in the database. */
#ifndef HETSIM_VERSION_H
#define HETSIM_VERSION_H
#define HETSIM_VERSION "0.1.0"
#endif
