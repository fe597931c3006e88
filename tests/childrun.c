/* childrun: see childrun.h. */
#define _DEFAULT_SOURCE
#include "childrun.h"

#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

int childrun(char *const *argv, int cap_s, const char *who, struct childrun *out)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror(who);
        return -1;
    }
    if (pid == 0) {
        if (cap_s > 0) {
            struct rlimit lim = { (rlim_t)cap_s, (rlim_t)cap_s + 5 };
            setrlimit(RLIMIT_CPU, &lim);
        }
        execv(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror(who);
        return -1;
    }
    out->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    out->rss_mb = (double)ru.ru_maxrss / 1024.0;      /* Linux: kilobytes */
    out->capped = cap_s > 0 && WIFSIGNALED(status) &&
                  (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL);
    if (!out->capped && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        fprintf(stderr, "%s failed (status %d)\n", who, status);
        return -1;
    }
    return 0;
}
