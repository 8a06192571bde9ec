// openssl-paths: which OpenSSL 3 call sequence verifies ES384 and EdDSA cheapest.
//
//   openssl-paths list                 the paths, one a line
//   openssl-paths run NAME N           set NAME up, verify N times (for valgrind)
//   openssl-paths wall [ROUNDS]        per path, best of ROUNDS timed batches, µs per op
//   openssl-paths facts                the OpenSSL build facts the paths depend on
//
// run.sh beside this file counts each path's instructions per op (valgrind at two
// iteration counts, differenced) and prints the wall table.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include "paths.h"

void fail(const char *what) {
    fprintf(stderr, "openssl-paths: %s failed\n", what);
    ERR_print_errors_fp(stderr);
    exit(2);
}

static const path *find(const char *name) {
    for (size_t i = 0; i < es384_path_count; i++)
        if (strcmp(es384_paths[i].name, name) == 0) return &es384_paths[i];
    for (size_t i = 0; i < eddsa_path_count; i++)
        if (strcmp(eddsa_paths[i].name, name) == 0) return &eddsa_paths[i];
    return NULL;
}

static void run(const path *p, long iterations) {
    for (long i = 0; i < iterations; i++)
        if (!p->op()) fail(p->name);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// Best of `rounds` batches of about 50 ms each: the least disturbed run on a shared machine.
static double best_microseconds(const path *p, int rounds) {
    long batch = 1;
    for (double took = 0; took < 0.05; batch *= 2) {
        double start = now();
        run(p, batch);
        took = now() - start;
    }
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double start = now();
        run(p, batch);
        double per = (now() - start) / (double)batch * 1e6;
        if (per < best) best = per;
    }
    return best;
}

static long parse_count(const char *text) {
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 0 || value > 100000000) {
        fprintf(stderr, "openssl-paths: not a count: %s\n", text);
        exit(64);
    }
    return value;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (size_t i = 0; i < es384_path_count; i++) printf("%s\n", es384_paths[i].name);
        for (size_t i = 0; i < eddsa_path_count; i++) printf("%s\n", eddsa_paths[i].name);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "run") == 0) {
        const path *p = find(argv[2]);
        if (p == NULL) { fprintf(stderr, "openssl-paths: no path %s\n", argv[2]); return 64; }
        p->setup();
        run(p, parse_count(argv[3]));
        return 0;
    }
    if ((argc == 2 || argc == 3) && strcmp(argv[1], "wall") == 0) {
        int rounds = argc == 3 ? (int)parse_count(argv[2]) : 7;
        const path *all[64];
        size_t count = 0;
        for (size_t i = 0; i < es384_path_count; i++) all[count++] = &es384_paths[i];
        for (size_t i = 0; i < eddsa_path_count; i++) all[count++] = &eddsa_paths[i];
        for (size_t i = 0; i < count; i++) {
            all[i]->setup();
            printf("%-28s %9.2f µs  %s\n", all[i]->name, best_microseconds(all[i], rounds), all[i]->what);
            fflush(stdout);
        }
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "facts") == 0) {
        printf("%s\n", OpenSSL_version(OPENSSL_VERSION));
        printf("%s\n", OpenSSL_version(OPENSSL_CFLAGS));
        es384_facts();
        eddsa_facts();
        return 0;
    }
    fprintf(stderr, "usage: openssl-paths list | run NAME N | wall [ROUNDS] | facts\n");
    return 64;
}
