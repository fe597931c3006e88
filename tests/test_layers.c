/*
 * test_layers: scripts/check-layers.sh can fail.  Each test builds a tiny tree of the
 * library's folders in the scratch directory, compiles its .c files as the Makefile would
 * (objects under BUILD/), runs the check on it (HETSIM_LAYERS_ROOT) and reads what it says:
 * a clean tree passes; an include against the layer rule, two headers that include each
 * other, two files that call each other (through their headers, or through a declaration
 * written into the .c, which only the objects show) and a loop of three calls are refused,
 * each named.  The real tree is checked by `make test` itself (make check-layers).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"

struct tree {
    char root[512];
};

static void tree_init(struct tree *t, const char *name)
{
    snprintf(t->root, sizeof t->root, "%s/layers_%s", th_tmpdir(), name);
    static const char *const dirs[] = { "", "/sim", "/sim/base", "/models", "/results",
                                        "/sched", "/workloads", "/build", "/build/models",
                                        "/build/sim", "/build/sim/base", "/build/sched" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char d[600];
        snprintf(d, sizeof d, "%s%s", t->root, dirs[i]);
        mkdir(d, 0755);
    }
}

/* Write ROOT/path; a .c file is compiled to ROOT/build/<path>.o at once. */
static void put(const struct tree *t, const char *path, const char *text)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", t->root, path);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
    size_t n = strlen(path);
    if (n > 2 && strcmp(path + n - 2, ".c") == 0) {
        char cmd[2000];
        snprintf(cmd, sizeof cmd, "cc -std=c11 -c -o '%s/build/%.*s.o' '%s'", t->root,
                 (int)(n - 2), path, p);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
    }
}

/* Run the check on the tree; its exit code, and its output in out (caller frees). */
static int check(const struct tree *t, char **out)
{
    char log[600], cmd[2000];
    snprintf(log, sizeof log, "%s/check.log", t->root);
    snprintf(cmd, sizeof cmd, "HETSIM_LAYERS_ROOT='%s' sh '%s/scripts/check-layers.sh' '%s/build'"
             " > '%s' 2>&1", t->root, getenv("HETSIM_DATA"), t->root, log);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s", cmd);
    FILE *f = fopen(log, "r");
    cr_assert_not_null(f);
    char *buf = calloc(1, 65536);
    cr_assert_not_null(buf);
    size_t got = fread(buf, 1, 65535, f);
    buf[got] = '\0';
    fclose(f);
    *out = buf;
    return WEXITSTATUS(st);
}

/* models/a (lower) and models/b (upper, calls a): the clean start of every case */
static void two_modules(const struct tree *t)
{
    put(t, "sim/base/u.h", "#ifndef U_H\n#define U_H\nint u_one(void);\n#endif\n");
    put(t, "sim/base/u.c", "#include \"u.h\"\nint u_one(void) { return 1; }\n");
    put(t, "models/a.h", "#ifndef A_H\n#define A_H\nint a_one(void);\n#endif\n");
    put(t, "models/a.c", "#include \"a.h\"\n#include \"../sim/base/u.h\"\n"
                         "int a_one(void) { return u_one(); }\n");
    put(t, "models/b.h", "#ifndef B_H\n#define B_H\nint b_two(void);\n#endif\n");
    put(t, "models/b.c", "#include \"b.h\"\n#include \"a.h\"\n"
                         "int b_two(void) { return a_one(); }\n");
}

Test(layers, a_clean_tree_passes)
{
    struct tree t;
    tree_init(&t, "clean");
    two_modules(&t);
    char *out;
    cr_assert_eq(check(&t, &out), 0, "%s", out);
    cr_assert(strstr(out, "no circles") != NULL, "%s", out);
    free(out);
}

Test(layers, an_include_against_the_rule_is_refused)
{
    struct tree t;
    tree_init(&t, "rule");
    two_modules(&t);
    put(&t, "sched/p.h", "#ifndef P_H\n#define P_H\nint p_x(void);\n#endif\n");
    put(&t, "models/c.c", "#include \"../sched/p.h\"\n"
                          "int c_x(void);\nint c_x(void) { return 0; }\n");
    char *out;
    cr_assert_eq(check(&t, &out), 1, "%s", out);
    cr_assert(strstr(out, "models/c.c:1: includes sched/p.h (layer models may not include "
                          "layer sched)") != NULL, "%s", out);
    free(out);
}

Test(layers, headers_that_include_each_other_are_refused)
{
    struct tree t;
    tree_init(&t, "inc");
    two_modules(&t);
    put(&t, "models/x.h", "#ifndef X_H\n#define X_H\n#include \"y.h\"\n#endif\n");
    put(&t, "models/y.h", "#ifndef Y_H\n#define Y_H\n#include \"x.h\"\n#endif\n");
    char *out;
    cr_assert_eq(check(&t, &out), 1, "%s", out);
    cr_assert(strstr(out, "circle: models/x.h <-> models/y.h (includes each other)") != NULL,
              "%s", out);
    free(out);
}

Test(layers, files_that_call_each_other_are_refused)
{
    struct tree t;
    tree_init(&t, "call");
    two_modules(&t);
    /* a calls b back through b's header */
    put(&t, "models/a.c", "#include \"a.h\"\n#include \"b.h\"\n"
                          "int a_one(void) { return 1; }\nint a_back(void) { return b_two(); }\n");
    char *out;
    cr_assert_eq(check(&t, &out), 1, "%s", out);
    cr_assert(strstr(out, "circle: models/a.c <-> models/b.c (calls each other)") != NULL,
              "%s", out);
    free(out);
}

Test(layers, a_call_declared_in_the_c_file_is_seen_in_the_objects)
{
    struct tree t;
    tree_init(&t, "decl");
    two_modules(&t);
    /* no include of b.h: the includes alone show no circle */
    put(&t, "models/a.c", "#include \"a.h\"\nint b_two(void);\nint a_back(void);\n"
                          "int a_one(void) { return 1; }\nint a_back(void) { return b_two(); }\n");
    char *out;
    cr_assert_eq(check(&t, &out), 1, "%s", out);
    cr_assert(strstr(out, "circle: models/a.c <-> models/b.c (calls each other)") != NULL,
              "%s", out);
    free(out);
}

Test(layers, a_loop_of_three_calls_is_refused)
{
    struct tree t;
    tree_init(&t, "loop");
    two_modules(&t);
    /* b -> a (two_modules), a -> c, c -> b */
    put(&t, "models/c.h", "#ifndef C_H\n#define C_H\nint c_three(void);\n#endif\n");
    put(&t, "models/c.c", "#include \"c.h\"\n#include \"b.h\"\n"
                          "int c_three(void) { return b_two(); }\n");
    put(&t, "models/a.c", "#include \"a.h\"\n#include \"c.h\"\n"
                          "int a_one(void) { return 1; }\n"
                          "int a_back(void) { return c_three(); }\n");
    char *out;
    cr_assert_eq(check(&t, &out), 1, "%s", out);
    cr_assert(strstr(out, "circle: a loop of calls through these files") != NULL, "%s", out);
    cr_assert(strstr(out, "models/a.c") != NULL && strstr(out, "models/c.c") != NULL, "%s", out);
    free(out);
}

Test(layers, a_missing_object_is_an_error_not_a_pass)
{
    struct tree t;
    tree_init(&t, "noobj");
    two_modules(&t);
    char p[700];
    snprintf(p, sizeof p, "%s/build/models/b.o", t.root);
    cr_assert_eq(remove(p), 0);
    char *out;
    cr_assert_eq(check(&t, &out), 1, "%s", out);
    cr_assert(strstr(out, "have no object") != NULL, "%s", out);
    free(out);
}
