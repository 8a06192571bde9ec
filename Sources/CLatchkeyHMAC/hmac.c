// OpenSSL 3 deprecates the SHA-2 block API for applications in favour of EVP; it remains
// part of the 3.x ABI, and it is the only OpenSSL path to a hash state that can be
// copied without an allocation. This file alone sees it (COpenSSL hides deprecated APIs).
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "CLatchkeyHMAC.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>

struct latchkey_hmac_pads {
    int bits;
    union {
        SHA256_CTX sha256;
        SHA512_CTX sha512;
    } inner, outer;
};

latchkey_hmac_pads *latchkey_hmac_prepare(int bits, const uint8_t *key, size_t key_length) {
    size_t block;
    switch (bits) {
    case 256: block = SHA256_CBLOCK; break;
    case 384: case 512: block = SHA512_CBLOCK; break;
    default: return NULL;
    }
    latchkey_hmac_pads *pads = OPENSSL_zalloc(sizeof *pads);
    if (pads == NULL) return NULL;
    pads->bits = bits;

    uint8_t k[SHA512_CBLOCK] = {0};
    if (key_length > block) {
        switch (bits) {
        case 256: SHA256(key, key_length, k); break;
        case 384: SHA384(key, key_length, k); break;
        default: SHA512(key, key_length, k); break;
        }
    } else if (key_length > 0) {
        memcpy(k, key, key_length);
    }
    uint8_t ipad[SHA512_CBLOCK], opad[SHA512_CBLOCK];
    for (size_t i = 0; i < block; i++) {
        ipad[i] = k[i] ^ 0x36;
        opad[i] = k[i] ^ 0x5c;
    }
    switch (bits) {
    case 256:
        SHA256_Init(&pads->inner.sha256); SHA256_Update(&pads->inner.sha256, ipad, block);
        SHA256_Init(&pads->outer.sha256); SHA256_Update(&pads->outer.sha256, opad, block);
        break;
    case 384:
        SHA384_Init(&pads->inner.sha512); SHA384_Update(&pads->inner.sha512, ipad, block);
        SHA384_Init(&pads->outer.sha512); SHA384_Update(&pads->outer.sha512, opad, block);
        break;
    default:
        SHA512_Init(&pads->inner.sha512); SHA512_Update(&pads->inner.sha512, ipad, block);
        SHA512_Init(&pads->outer.sha512); SHA512_Update(&pads->outer.sha512, opad, block);
        break;
    }
    OPENSSL_cleanse(k, sizeof k);
    OPENSSL_cleanse(ipad, sizeof ipad);
    OPENSSL_cleanse(opad, sizeof opad);
    return pads;
}

// One message: the inner hash from a copy of the inner pad's state, then the outer.
#define LATCHKEY_HMAC_WITH(CTX, FIELD, UPDATE, FINAL, SIZE)   \
    {                                                          \
        CTX ctx = pads->inner.FIELD;                           \
        UPDATE(&ctx, message, length);                         \
        FINAL(inner, &ctx);                                    \
        ctx = pads->outer.FIELD;                               \
        UPDATE(&ctx, inner, SIZE);                             \
        FINAL(out, &ctx);                                      \
        explicit_bzero(&ctx, sizeof ctx);                      \
        size = SIZE;                                           \
    }

size_t latchkey_hmac_compute(const latchkey_hmac_pads *pads, const uint8_t *message, size_t length, uint8_t *out) {
    uint8_t inner[SHA512_DIGEST_LENGTH];
    size_t size;
    switch (pads->bits) {
    case 256: LATCHKEY_HMAC_WITH(SHA256_CTX, sha256, SHA256_Update, SHA256_Final, SHA256_DIGEST_LENGTH) break;
    case 384: LATCHKEY_HMAC_WITH(SHA512_CTX, sha512, SHA384_Update, SHA384_Final, SHA384_DIGEST_LENGTH) break;
    default: LATCHKEY_HMAC_WITH(SHA512_CTX, sha512, SHA512_Update, SHA512_Final, SHA512_DIGEST_LENGTH) break;
    }
    explicit_bzero(inner, sizeof inner);
    return size;
}

int latchkey_hmac_verify(const latchkey_hmac_pads *pads, const uint8_t *message, size_t length,
                         const uint8_t *code, size_t code_length) {
    uint8_t mac[SHA512_DIGEST_LENGTH];
    size_t size = latchkey_hmac_compute(pads, message, length, mac);
    uint64_t difference = code_length != size;
    if (code_length == size) {
        // Every size is a multiple of 8; each word of both is read, whatever they hold.
        for (size_t i = 0; i < size; i += 8) {
            uint64_t ours, theirs;
            memcpy(&ours, mac + i, 8);
            memcpy(&theirs, code + i, 8);
            difference |= ours ^ theirs;
        }
    }
    explicit_bzero(mac, sizeof mac);
    return difference == 0;
}

void latchkey_hmac_free(latchkey_hmac_pads *pads) {
    OPENSSL_clear_free(pads, sizeof *pads);
}
