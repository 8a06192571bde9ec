// `latchkey`: the command users and scripts run. It becomes (execv: the same process,
// arguments, environment and standard streams) `latchkey-jwt` for `inspect` and `verify`,
// which a script calls once per token and which start in a few milliseconds,
// `latchkey-token` for `session token` (which becomes `latchkey-full` in turn when the
// stored token will not do), and `latchkey-full` for every other command line, `--help`
// and `--version` included.
// Both are looked for beside this executable (a build directory), then in
// ../libexec/latchkey/ (`make install`). Benchmarks/README.md, "The CLI's start-up".
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { unavailable = 70 };

// Writes `text` to standard error with control bytes escaped (a path is shown as is otherwise).
static void put_escaped(const char *text) {
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c < 0x20 || *c == 0x7f) fprintf(stderr, "\\x%02x", *c);
        else fputc(*c, stderr);
    }
}

static int fail(const char *what, const char *first, const char *second) {
    fputs("error: latchkey: ", stderr);
    fputs(what, stderr);
    if (first) put_escaped(first);
    if (second) {
        fputs(" and ", stderr);
        put_escaped(second);
    }
    fputc('\n', stderr);
    return unavailable;
}

// The tool a command line is for: the JWT commands', the token's, or the full CLI.
static const char *tool_for(int argc, char *argv[]) {
    if (argc > 1 && (strcmp(argv[1], "inspect") == 0 || strcmp(argv[1], "verify") == 0)) return "latchkey-jwt";
    if (argc > 2 && strcmp(argv[1], "session") == 0 && strcmp(argv[2], "token") == 0) return "latchkey-token";
    return "latchkey-full";
}

int main(int argc, char *argv[]) {
    const char *tool = tool_for(argc, argv);
    char directory[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", directory, sizeof directory - 1);
    if (length <= 0) return fail("cannot find its own executable (/proc/self/exe): ", strerror(errno), NULL);
    directory[length] = '\0';
    *strrchr(directory, '/') = '\0';  // readlink gives an absolute path: there is a slash

    char beside[PATH_MAX], installed[PATH_MAX];
    const char *parent_end = strrchr(directory, '/');
    int parent_length = parent_end ? (int)(parent_end - directory) : 0;
    if (snprintf(beside, sizeof beside, "%s/%s", directory, tool) >= (int)sizeof beside ||
        snprintf(installed, sizeof installed, "%.*s/libexec/latchkey/%s", parent_length, directory, tool) >= (int)sizeof installed) {
        return fail("the path of its directory is too long: ", directory, NULL);
    }
    if (access(beside, X_OK) == 0) {
        execv(beside, argv);
        return fail("cannot run ", beside, NULL);
    }
    if (access(installed, X_OK) == 0) {
        execv(installed, argv);
        return fail("cannot run ", installed, NULL);
    }
    fprintf(stderr, "error: latchkey: %s is not installed; looked for ", tool);
    put_escaped(beside);
    fputs(" and ", stderr);
    put_escaped(installed);
    fputc('\n', stderr);
    return unavailable;
}
