// openssl-paths: the ways OpenSSL 3 offers to verify one ES384 and one EdDSA JWS
// signature, each a `path` the driver (main.c) can run N times under valgrind or time.
#ifndef OPENSSL_PATHS_H
#define OPENSSL_PATHS_H

#include <stddef.h>

typedef struct {
    const char *name;
    const char *what;
    // Prepares keys and contexts outside the measured loop; returns 0 when the path is
    // not available in this OpenSSL (the reason printed to stderr).
    int (*setup)(void);
    // One verification; returns 1 when the signature verified.
    int (*op)(void);
} path;

extern const path es384_paths[];
extern const size_t es384_path_count;
extern const path eddsa_paths[];
extern const size_t eddsa_path_count;

// Facts about this OpenSSL build the paths depend on, printed by `openssl-paths facts`.
void es384_facts(void);
void eddsa_facts(void);

// Exits with OpenSSL's error queue when a fixture cannot be prepared.
void fail(const char *what);

#endif
