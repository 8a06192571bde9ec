// ES384 (ECDSA P-384 with SHA-384) verification paths. Every path hashes the whole
// message and checks the same DER signature under the same key, so the differences
// are the call sequence, the key's construction and the EC implementation behind it.
#include <stdio.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>

#include "fixtures.h"
#include "paths.h"

static EVP_PKEY *pkey;          // d2i_PUBKEY of the named-curve SPKI (what Latchkey does)
static EVP_MD *sha384;          // fetched once
static EVP_MD_CTX *template_ctx; // DigestVerifyInit_ex done once
static EVP_MD_CTX *work_ctx;     // reused per op
static EVP_PKEY_CTX *template_pctx; // EVP_PKEY_verify_init + signature md, done once
static EC_KEY *legacy;          // deprecated EC_KEY for ECDSA_verify

static EVP_PKEY *decode_spki(const unsigned char *der, long length) {
    const unsigned char *p = der;
    EVP_PKEY *key = d2i_PUBKEY(NULL, &p, length);
    if (key == NULL) fail("d2i_PUBKEY");
    return key;
}

// The same public key through EVP_PKEY_fromdata: group name and encoded point.
static EVP_PKEY *fromdata_key(void) {
    unsigned char point[97];
    size_t point_length = 0;
    EVP_PKEY *named = decode_spki(p384_spki_der, p384_spki_der_len);
    if (!EVP_PKEY_get_octet_string_param(named, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point, &point_length))
        fail("get public point");
    EVP_PKEY_free(named);
    OSSL_PARAM_BLD *build = OSSL_PARAM_BLD_new();
    if (build == NULL || !OSSL_PARAM_BLD_push_utf8_string(build, OSSL_PKEY_PARAM_GROUP_NAME, "P-384", 0)
        || !OSSL_PARAM_BLD_push_octet_string(build, OSSL_PKEY_PARAM_PUB_KEY, point, point_length))
        fail("OSSL_PARAM_BLD");
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(build);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1
        || EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1)
        fail("EVP_PKEY_fromdata");
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(build);
    return key;
}

static void prepare_template(EVP_PKEY *key) {
    EVP_MD_CTX_free(template_ctx);
    EVP_MD_CTX_free(work_ctx);
    template_ctx = EVP_MD_CTX_new();
    work_ctx = EVP_MD_CTX_new();
    if (template_ctx == NULL || work_ctx == NULL
        || EVP_DigestVerifyInit_ex(template_ctx, NULL, "SHA384", NULL, NULL, key, NULL) != 1)
        fail("EVP_DigestVerifyInit_ex");
}

static int setup_evp(void) {
    pkey = decode_spki(p384_spki_der, p384_spki_der_len);
    if ((sha384 = EVP_MD_fetch(NULL, "SHA384", NULL)) == NULL) fail("EVP_MD_fetch");
    prepare_template(pkey);
    template_pctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    if (template_pctx == NULL || EVP_PKEY_verify_init(template_pctx) != 1
        || EVP_PKEY_CTX_set_signature_md(template_pctx, sha384) != 1)
        fail("EVP_PKEY_verify_init");
    return 1;
}

static int setup_fromdata(void) {
    setup_evp();
    prepare_template(fromdata_key());
    return 1;
}

static int setup_explicit(void) {
    setup_evp();
    prepare_template(decode_spki(p384_explicit_der, p384_explicit_der_len));
    return 1;
}

// ---- EVP_DigestVerify sequences --------------------------------------------------

static int op_fresh(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = EVP_DigestVerifyInit_ex(ctx, NULL, "SHA384", NULL, NULL, pkey, NULL) == 1
        && EVP_DigestVerify(ctx, p384_sig, p384_sig_len, msg_bin, msg_bin_len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static int op_reset(void) {
    EVP_MD_CTX_reset(work_ctx);
    return EVP_DigestVerifyInit_ex(work_ctx, NULL, "SHA384", NULL, NULL, pkey, NULL) == 1
        && EVP_DigestVerify(work_ctx, p384_sig, p384_sig_len, msg_bin, msg_bin_len) == 1;
}

static int op_copy_new(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = EVP_MD_CTX_copy_ex(ctx, template_ctx) == 1
        && EVP_DigestVerify(ctx, p384_sig, p384_sig_len, msg_bin, msg_bin_len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static int op_copy_reused(void) {
    return EVP_MD_CTX_copy_ex(work_ctx, template_ctx) == 1
        && EVP_DigestVerify(work_ctx, p384_sig, p384_sig_len, msg_bin, msg_bin_len) == 1;
}

// ---- hash, then EVP_PKEY_verify on the digest ------------------------------------

static int digest(unsigned char out[48]) {
    unsigned int length = 0;
    return EVP_Digest(msg_bin, msg_bin_len, out, &length, sha384, NULL) == 1 && length == 48;
}

static int op_pkey_dup(void) {
    unsigned char hash[48];
    if (!digest(hash)) return 0;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_dup(template_pctx);
    int ok = ctx != NULL && EVP_PKEY_verify(ctx, p384_sig, p384_sig_len, hash, sizeof hash) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

static int op_pkey_reused(void) {
    unsigned char hash[48];
    return digest(hash) && EVP_PKEY_verify(template_pctx, p384_sig, p384_sig_len, hash, sizeof hash) == 1;
}

// ---- the deprecated EC_KEY API: ECDSA_verify straight into the EC code -------------

static int setup_legacy(void) {
    setup_evp();
    const unsigned char *p = p384_spki_der;
    if ((legacy = d2i_EC_PUBKEY(NULL, &p, p384_spki_der_len)) == NULL) fail("d2i_EC_PUBKEY");
    return 1;
}

static int setup_legacy_precomputed(void) {
    setup_legacy();
    if (EC_KEY_precompute_mult(legacy, NULL) != 1) fail("EC_KEY_precompute_mult");
    return 1;
}

// The precomputed EC_KEY wrapped for EVP: does the table survive the provider import?
static int setup_evp_on_precomputed(void) {
    setup_legacy_precomputed();
    EVP_PKEY *key = EVP_PKEY_new();
    if (key == NULL || EVP_PKEY_set1_EC_KEY(key, legacy) != 1) fail("EVP_PKEY_set1_EC_KEY");
    prepare_template(key);
    return 1;
}

// The same curve on EC_GFp_nist_method (BN_nist_mod_384 reduction) instead of the
// Montgomery method EC_GROUP_new_by_curve_name picks for P-384.
static int setup_legacy_nist(void) {
    setup_legacy();
    const EC_GROUP *named = EC_KEY_get0_group(legacy);
    BIGNUM *p = BN_new(), *a = BN_new(), *b = BN_new();
    EC_GROUP *group = EC_GROUP_new(EC_GFp_nist_method());
    if (group == NULL || !EC_GROUP_get_curve(named, p, a, b, NULL) || !EC_GROUP_set_curve(group, p, a, b, NULL))
        fail("EC_GROUP on EC_GFp_nist_method");
    // Points cannot be copied between methods: move them by affine coordinates.
    EC_POINT *g = EC_POINT_new(group), *q = EC_POINT_new(group);
    BIGNUM *x = BN_new(), *y = BN_new();
    EC_KEY *key = EC_KEY_new();
    if (g == NULL || q == NULL || key == NULL
        || !EC_POINT_get_affine_coordinates(named, EC_GROUP_get0_generator(named), x, y, NULL)
        || !EC_POINT_set_affine_coordinates(group, g, x, y, NULL)
        || !EC_POINT_get_affine_coordinates(named, EC_KEY_get0_public_key(legacy), x, y, NULL)
        || !EC_POINT_set_affine_coordinates(group, q, x, y, NULL)
        || !EC_GROUP_set_generator(group, g, EC_GROUP_get0_order(named), EC_GROUP_get0_cofactor(named))
        || !EC_KEY_set_group(key, group) || !EC_KEY_set_public_key(key, q))
        fail("EC_KEY on EC_GFp_nist_method");
    EC_POINT_free(g);
    EC_POINT_free(q);
    EC_GROUP_free(group);
    BN_free(p); BN_free(a); BN_free(b); BN_free(x); BN_free(y);
    EC_KEY_free(legacy);
    legacy = key;
    return 1;
}

static int op_legacy(void) {
    unsigned char hash[48];
    return digest(hash) && ECDSA_verify(0, hash, sizeof hash, p384_sig, (int)p384_sig_len, legacy) == 1;
}

// ---- parts, to show where the cost is --------------------------------------------

static int op_hash_only(void) {
    unsigned char hash[48];
    return digest(hash);
}

const path es384_paths[] = {
    {"ES384/fresh-mdctx", "EVP_MD_CTX_new + DigestVerifyInit_ex + DigestVerify per op", setup_evp, op_fresh},
    {"ES384/reset-mdctx", "one EVP_MD_CTX: reset + DigestVerifyInit_ex + DigestVerify", setup_evp, op_reset},
    {"ES384/copy-new-mdctx", "prepared ctx copied into a new EVP_MD_CTX (Latchkey today)", setup_evp, op_copy_new},
    {"ES384/copy-reused-mdctx", "prepared ctx copied into one reused EVP_MD_CTX (raw limit)", setup_evp, op_copy_reused},
    {"ES384/digest+pkey-dup", "EVP_Digest + EVP_PKEY_CTX_dup(prepared) + EVP_PKEY_verify", setup_evp, op_pkey_dup},
    {"ES384/digest+pkey-reused", "EVP_Digest + EVP_PKEY_verify on one prepared EVP_PKEY_CTX", setup_evp, op_pkey_reused},
    {"ES384/key-fromdata", "copy-reused-mdctx, key from EVP_PKEY_fromdata", setup_fromdata, op_copy_reused},
    {"ES384/key-explicit-params", "copy-reused-mdctx, key from an explicit-parameter SPKI", setup_explicit, op_copy_reused},
    {"ES384/legacy-ECDSA_verify", "EVP_Digest + ECDSA_verify on an EC_KEY (deprecated)", setup_legacy, op_legacy},
    {"ES384/legacy-precomputed", "the same after EC_KEY_precompute_mult", setup_legacy_precomputed, op_legacy},
    {"ES384/evp-on-precomputed", "copy-reused-mdctx, key EVP_PKEY_set1_EC_KEY of the precomputed EC_KEY", setup_evp_on_precomputed, op_copy_reused},
    {"ES384/legacy-nist-method", "the same on an EC_GFp_nist_method group", setup_legacy_nist, op_legacy},
    {"ES384/part:sha384", "EVP_Digest of the message alone", setup_evp, op_hash_only},
};
const size_t es384_path_count = sizeof es384_paths / sizeof es384_paths[0];

static const char *method_name(const EC_METHOD *method) {
    if (method == EC_GFp_mont_method()) return "EC_GFp_mont_method (generic BN Montgomery)";
    if (method == EC_GFp_nist_method()) return "EC_GFp_nist_method";
    if (method == EC_GFp_simple_method()) return "EC_GFp_simple_method";
    if (method == EC_GFp_nistp224_method()) return "EC_GFp_nistp224_method";
    if (method == EC_GFp_nistp256_method()) return "EC_GFp_nistp256_method";
    if (method == EC_GFp_nistp521_method()) return "EC_GFp_nistp521_method";
    return "another method (e.g. EC_GFp_nistz256_method)";
}

void es384_facts(void) {
    static const int curves[] = {NID_X9_62_prime256v1, NID_secp384r1, NID_secp521r1};
    for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++) {
        EC_GROUP *group = EC_GROUP_new_by_curve_name(curves[i]);
        const EC_METHOD *method = EC_GROUP_method_of(group);
        printf("%-10s method: %s; field type %s; generator precomputation: %s\n", OBJ_nid2sn(curves[i]),
               method_name(method), EC_METHOD_get_field_type(method) == NID_X9_62_prime_field ? "prime" : "other",
               EC_GROUP_have_precompute_mult(group) ? "yes" : "no");
        EC_GROUP_free(group);
    }
    EVP_PKEY *key = decode_spki(p384_explicit_der, p384_explicit_der_len);
    char name[64] = "";
    size_t length = 0;
    int named = EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &length);
    printf("explicit-parameter P-384 key: group name %s\n", named ? name : "(none: stays explicit)");
    EVP_PKEY_free(key);
}
