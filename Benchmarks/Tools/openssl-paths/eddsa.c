// EdDSA (Ed25519) verification paths. OpenSSL 3.0 verifies Ed25519 only through the
// one-shot EVP_DigestVerify (the provider has no streaming and no EVP_PKEY_verify), so
// the candidates differ only in how the context is obtained and how the key was built.
#include <stdio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "fixtures.h"
#include "paths.h"

static EVP_PKEY *pkey;
static EVP_MD_CTX *template_ctx;
static EVP_MD_CTX *work_ctx;

static void prepare(EVP_PKEY *key) {
    pkey = key;
    template_ctx = EVP_MD_CTX_new();
    work_ctx = EVP_MD_CTX_new();
    if (template_ctx == NULL || work_ctx == NULL
        || EVP_DigestVerifyInit_ex(template_ctx, NULL, NULL, NULL, NULL, pkey, NULL) != 1)
        fail("EVP_DigestVerifyInit_ex");
}

static int setup_d2i(void) {
    const unsigned char *p = ed_spki_der;
    EVP_PKEY *key = d2i_PUBKEY(NULL, &p, ed_spki_der_len);
    if (key == NULL) fail("d2i_PUBKEY");
    prepare(key);
    return 1;
}

static int setup_raw(void) {
    // The 32-byte public key is the SPKI's tail (12-byte header for Ed25519).
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key_ex(NULL, "ED25519", NULL, ed_spki_der + 12, 32);
    if (key == NULL) fail("EVP_PKEY_new_raw_public_key_ex");
    prepare(key);
    return 1;
}

static int op_fresh(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit_ex(ctx, NULL, NULL, NULL, NULL, pkey, NULL) == 1
        && EVP_DigestVerify(ctx, ed_sig, ed_sig_len, msg_bin, msg_bin_len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static int op_reset(void) {
    EVP_MD_CTX_reset(work_ctx);
    return EVP_DigestVerifyInit_ex(work_ctx, NULL, NULL, NULL, NULL, pkey, NULL) == 1
        && EVP_DigestVerify(work_ctx, ed_sig, ed_sig_len, msg_bin, msg_bin_len) == 1;
}

// Re-initialising a used context without a reset keeps its EVP_PKEY_CTX allocation.
static int op_reinit(void) {
    return EVP_DigestVerifyInit_ex(work_ctx, NULL, NULL, NULL, NULL, pkey, NULL) == 1
        && EVP_DigestVerify(work_ctx, ed_sig, ed_sig_len, msg_bin, msg_bin_len) == 1;
}

static int op_copy_new(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = EVP_MD_CTX_copy_ex(ctx, template_ctx) == 1
        && EVP_DigestVerify(ctx, ed_sig, ed_sig_len, msg_bin, msg_bin_len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static int op_copy_reused(void) {
    return EVP_MD_CTX_copy_ex(work_ctx, template_ctx) == 1
        && EVP_DigestVerify(work_ctx, ed_sig, ed_sig_len, msg_bin, msg_bin_len) == 1;
}

const path eddsa_paths[] = {
    {"EdDSA/fresh-mdctx", "EVP_MD_CTX_new + DigestVerifyInit_ex + DigestVerify per op", setup_d2i, op_fresh},
    {"EdDSA/reset-mdctx", "one EVP_MD_CTX: reset + DigestVerifyInit_ex + DigestVerify", setup_d2i, op_reset},
    {"EdDSA/reinit-mdctx", "one EVP_MD_CTX: DigestVerifyInit_ex again + DigestVerify", setup_d2i, op_reinit},
    {"EdDSA/copy-new-mdctx", "prepared ctx copied into a new EVP_MD_CTX (Latchkey today)", setup_d2i, op_copy_new},
    {"EdDSA/copy-reused-mdctx", "prepared ctx copied into one reused EVP_MD_CTX (raw limit)", setup_d2i, op_copy_reused},
    {"EdDSA/key-raw-public", "copy-reused-mdctx, key from EVP_PKEY_new_raw_public_key_ex", setup_raw, op_copy_reused},
};
const size_t eddsa_path_count = sizeof eddsa_paths / sizeof eddsa_paths[0];

void eddsa_facts(void) {
    setup_d2i();
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    printf("Ed25519 EVP_MD_CTX_copy_ex of a prepared verify context: %s\n",
           EVP_MD_CTX_copy_ex(copy, template_ctx) == 1 ? "works" : "fails");
    ERR_clear_error();
    EVP_MD_CTX_free(copy);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    int init = ctx != NULL ? EVP_PKEY_verify_init(ctx) : 0;
    printf("Ed25519 EVP_PKEY_verify_init (verify without EVP_DigestVerify): %s (%d)\n",
           init == 1 ? "works" : "not supported", init);
    ERR_clear_error();
    EVP_PKEY_CTX_free(ctx);
    EVP_MD_CTX *stream = EVP_MD_CTX_new();
    int update = EVP_DigestVerifyInit_ex(stream, NULL, NULL, NULL, NULL, pkey, NULL) == 1
        && EVP_DigestVerifyUpdate(stream, msg_bin, 16) == 1;
    printf("Ed25519 EVP_DigestVerifyUpdate (streaming): %s\n", update ? "works" : "not supported");
    ERR_clear_error();
    EVP_MD_CTX_free(stream);
}
