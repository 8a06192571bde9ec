#ifndef LATCHKEY_CLATCHKEYHMAC_H
#define LATCHKEY_CLATCHKEYHMAC_H
// HMAC-SHA-2 with the key's pads hashed once (RFC 2104 §4 "implementation note"), on
// OpenSSL's SHA-2 block functions.
//
// Why this exists: OpenSSL 3's EVP_MAC copies two provider contexts per message (one
// heap allocation each, through the provider layer), which costs about half as much
// again as hashing a token's signing input. The pads' hash states here are plain
// structs: a message is MACed by copying them onto the stack, with no allocation, no
// lock and no provider dispatch. The state is as secret as the key: it is wiped when
// freed, and the per-message copies are wiped before returning.
#include <stddef.h>
#include <stdint.h>

/// The hashed inner and outer pads of one key, for SHA-256, SHA-384 or SHA-512.
typedef struct latchkey_hmac_pads latchkey_hmac_pads;

/// Hashes the pads of `key` (any length; a key longer than the block is hashed first).
/// `bits` is 256, 384 or 512. NULL for another `bits` or when memory runs out.
latchkey_hmac_pads *latchkey_hmac_prepare(int bits, const uint8_t *key, size_t key_length);

/// The MAC of `message` into `out` (room for 64 bytes); returns its length (32, 48
/// or 64). Safe to call from several threads at once with the same pads.
size_t latchkey_hmac_compute(const latchkey_hmac_pads *pads, const uint8_t *message, size_t length, uint8_t *out);

/// Whether `code` is the MAC of `message`, compared in time that depends only on the
/// lengths (a word-wise OR of differences, no early exit). Returns 1 or 0.
int latchkey_hmac_verify(const latchkey_hmac_pads *pads, const uint8_t *message, size_t length,
                         const uint8_t *code, size_t code_length);

/// Wipes and frees the pads (NULL is ignored).
void latchkey_hmac_free(latchkey_hmac_pads *pads);

#endif
