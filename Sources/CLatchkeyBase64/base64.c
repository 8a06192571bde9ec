#include "CLatchkeyBase64.h"

#if defined(__x86_64__)
#include <immintrin.h>

// Validation: a character is in the alphabet when the bit sets of its low and high
// nibble do not meet. One bit per class of high nibble:
//   bit 0: 0x0_, 0x1_, 0x8_–0xF_  nothing valid
//   bit 1: 0x2_                   only '-' (0x2D)
//   bit 2: 0x3_                   '0'–'9'
//   bit 3: 0x4_, 0x6_             all but 0x_0 ('A'–'O', 'a'–'o')
//   bit 4: 0x5_                   0x50–0x5A ('P'–'Z') and '_' (0x5F)
//   bit 5: 0x7_                   0x70–0x7A ('p'–'z')
// lo[n] holds the classes for which low nibble n is invalid.
#define LO_ROW 0x0B, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, \
               0x03, 0x03, 0x07, 0x37, 0x37, 0x35, 0x37, 0x27
#define HI_ROW 0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x08, 0x20, \
               0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01
// Translation: value = character + offset[high nibble], except '_' (+(-32)).
//   0x2_ '-' +17, 0x3_ digits +4, 0x4_/0x5_ letters -65, 0x6_/0x7_ letters -71.
#define OFFSET_ROW 0, 0, 17, 4, (char)-65, (char)-65, (char)-71, (char)-71, 0, 0, 0, 0, 0, 0, 0, 0

__attribute__((target("avx2")))
static inline __m256i invalid_mask(__m256i chars, __m256i *hi_out) {
    const __m256i lo_table = _mm256_setr_epi8(LO_ROW, LO_ROW);
    const __m256i hi_table = _mm256_setr_epi8(HI_ROW, HI_ROW);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi32(chars, 4), nibble);
    __m256i lo = _mm256_and_si256(chars, nibble);
    *hi_out = hi;
    return _mm256_and_si256(_mm256_shuffle_epi8(lo_table, lo), _mm256_shuffle_epi8(hi_table, hi));
}

__attribute__((target("avx2")))
static int decode_avx2(const uint8_t *input, size_t length, uint8_t *output, size_t capacity,
                       size_t *consumed, size_t *produced) {
    const __m256i offset_table = _mm256_setr_epi8(OFFSET_ROW, OFFSET_ROW);
    const __m256i underscore = _mm256_set1_epi8('_');
    const __m256i underscore_offset = _mm256_set1_epi8(-32);
    const __m256i merge_pairs = _mm256_set1_epi32(0x01400140);  // a*64 + b in each 16-bit lane
    const __m256i merge_quads = _mm256_set1_epi32(0x00011000);  // ab*4096 + cd in each 32-bit lane
    // The three bytes of each 24-bit lane, big-endian, packed to the front of each 128-bit half.
    const __m256i pack = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                          2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    __m256i errors = _mm256_setzero_si256();
    size_t i = 0, o = 0;
    while (i + 32 <= length && o + 32 <= capacity) {
        __m256i chars = _mm256_loadu_si256((const __m256i *)(input + i));
        __m256i hi;
        errors = _mm256_or_si256(errors, invalid_mask(chars, &hi));
        __m256i offsets = _mm256_shuffle_epi8(offset_table, hi);
        offsets = _mm256_blendv_epi8(offsets, underscore_offset, _mm256_cmpeq_epi8(chars, underscore));
        __m256i values = _mm256_add_epi8(chars, offsets);
        __m256i pairs = _mm256_maddubs_epi16(values, merge_pairs);
        __m256i quads = _mm256_madd_epi16(pairs, merge_quads);
        __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(quads, pack), join);
        _mm256_storeu_si256((__m256i *)(output + o), bytes);
        i += 32;
        o += 24;
    }
    *consumed = i;
    *produced = o;
    return _mm256_testz_si256(errors, errors);
}

__attribute__((target("avx2")))
static int check_avx2(const uint8_t *input, size_t length, size_t *consumed) {
    __m256i errors = _mm256_setzero_si256();
    size_t i = 0;
    while (i + 32 <= length) {
        __m256i hi;
        errors = _mm256_or_si256(errors, invalid_mask(_mm256_loadu_si256((const __m256i *)(input + i)), &hi));
        i += 32;
    }
    *consumed = i;
    return _mm256_testz_si256(errors, errors);
}

static int has_avx2(void) {
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
}
#endif

int latchkey_base64url_decode_blocks(const uint8_t *input, size_t length, uint8_t *output,
                                     size_t capacity, size_t *consumed, size_t *produced) {
    *consumed = 0;
    *produced = 0;
#if defined(__x86_64__)
    if (has_avx2()) return decode_avx2(input, length, output, capacity, consumed, produced);
#else
    (void)input; (void)length; (void)output; (void)capacity;
#endif
    return 1;
}

int latchkey_base64url_check_blocks(const uint8_t *input, size_t length, size_t *consumed) {
    *consumed = 0;
#if defined(__x86_64__)
    if (has_avx2()) return check_avx2(input, length, consumed);
#else
    (void)input; (void)length;
#endif
    return 1;
}
