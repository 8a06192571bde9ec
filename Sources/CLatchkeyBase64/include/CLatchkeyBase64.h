#ifndef LATCHKEY_CLATCHKEYBASE64_H
#define LATCHKEY_CLATCHKEYBASE64_H
// The bulk of strict base64url decoding, 32 characters at a time with AVX2 where the
// CPU has it (Muła and Lemire, "Faster Base64 Encoding and Decoding Using AVX2
// Instructions", ACM TOMS 2018, with the tables worked out for the URL alphabet).
//
// Why this exists: every JWT decode and verification decodes its header and payload
// and checks its signature segment; at 32 characters a step this is several times
// faster than the scalar table loop in LatchkeyCrypto's Base64, which decodes
// whatever these functions leave (the tail, and everything on CPUs without AVX2).
#include <stddef.h>
#include <stdint.h>

/// Decodes whole 32-character blocks of `input` while the output has room for a
/// 32-byte store; the caller's loop decodes what is left (the end of the text, with its
/// trailing-bits check). Sets `*consumed` and `*produced` to the characters read and the
/// bytes written (both 0 without AVX2). Returns 0 if any character read is outside the
/// base64url alphabet, 1 otherwise.
int latchkey_base64url_decode_blocks(const uint8_t *input, size_t length, uint8_t *output, size_t capacity,
                                     size_t *consumed, size_t *produced);

/// Checks whole 32-character blocks of `input` against the alphabet. Sets `*consumed`
/// (0 without AVX2). Returns 0 if any character checked is outside the base64url
/// alphabet, 1 otherwise.
int latchkey_base64url_check_blocks(const uint8_t *input, size_t length, size_t *consumed);

#endif
