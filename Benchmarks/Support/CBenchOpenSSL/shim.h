// The OpenSSL headers the raw baselines call, exactly as a C program would.
// The SHA-2 block API is deprecated for applications in OpenSSL 3 but is still its
// cheapest HMAC (hash states that copy without an allocation); the HMAC baseline uses
// it, as Latchkey does, so the limit stays a limit.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
