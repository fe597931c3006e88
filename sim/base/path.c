/*
 * path: data-root lookup and path resolution (stat-based; no globbing).
 */
#define _POSIX_C_SOURCE 200809L
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef HETSIM_DATADIR
#define HETSIM_DATADIR "."
#endif

const char *path_data_root(void)
{
    const char *e = getenv("HETSIM_DATA");
    return e != NULL && *e != '\0' ? e : HETSIM_DATADIR;
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int try_join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap && is_file(out);
}

int path_resolve_dir(char *out, size_t cap, const char *base_dir, const char *name)
{
    int n;
    if (name[0] != '/' && base_dir != NULL &&
        (n = snprintf(out, cap, "%s/%s", base_dir, name)) > 0 && (size_t)n < cap && is_dir(out))
        return 0;
    snprintf(out, cap, "%s", name);
    if (is_dir(out))
        return 0;
    if (name[0] != '/' && (n = snprintf(out, cap, "%s/%s", path_data_root(), name)) > 0 &&
        (size_t)n < cap && is_dir(out))
        return 0;
    snprintf(out, cap, "%s", name);
    return -1;
}

int path_resolve(char *out, size_t cap, const char *base_dir, const char *name)
{
    if (name[0] == '/') {
        snprintf(out, cap, "%s", name);
        return is_file(out) ? 0 : -1;
    }
    if (base_dir != NULL && try_join(out, cap, base_dir, name))
        return 0;
    if (is_file(name)) {
        snprintf(out, cap, "%s", name);
        return 0;
    }
    if (try_join(out, cap, path_data_root(), name))
        return 0;
    snprintf(out, cap, "%s", name);
    return -1;
}

int path_named(char *out, size_t cap, const char *kind, const char *name)
{
    char rel[PATH_MAX_LEN];
    if (strchr(name, '/') != NULL || strstr(name, ".json") != NULL)
        return path_resolve(out, cap, NULL, name);
    snprintf(rel, sizeof rel, "workloads/%s/%s.json", kind, name);
    if (try_join(out, cap, path_data_root(), rel))
        return 0;
    return path_resolve(out, cap, NULL, name);
}

void path_dirname(char *out, size_t cap, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(out, cap, ".");
    else if (slash == path)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

int path_make_parent(const char *file)
{
    char buf[PATH_MAX_LEN];
    path_dirname(buf, sizeof buf, file);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) < 0 && errno != EEXIST)
        return -1;
    return 0;
}
