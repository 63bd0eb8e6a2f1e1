#include "CToneMap.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// The arithmetic below (fractions `& 15`, weights summing to 16, `>> 12` = 8 bits of value and 4
// of weight) is written for cells of 16 codes.
_Static_assert(OFFC_TM_CELL_SHIFT == 4, "the kernels' weights are in sixteenths");
_Static_assert((OFFC_TM_NODES - 1) << OFFC_TM_CELL_SHIFT == OFFC_TM_CODES, "one node every 16 codes, then 1023");

// Table geometry, in entries. The chroma table's offsets count Cb, Cr pairs.
enum {
    NODES = OFFC_TM_NODES,
    CODES = OFFC_TM_CODES,
    // Chroma table: one step along Y', Cb, Cr, and the far corner of a cell.
    DY = NODES * NODES,
    DB = NODES,
    DR = 1,
    FAR = DY + DB + DR,
    // Luma table: one step along Cb and Cr, and the far corner of a square.
    CB_STEP = NODES * CODES,
    CR_STEP = CODES,
    LUMA_FAR = CB_STEP + CR_STEP,
};

/// A chroma row's pointers, shared by both kernels.
typedef struct row {
    const uint16_t *u, *v, *upper, *lower;
    uint8_t *out_upper, *out_lower, *out_u, *out_v;
    int32_t chroma_width, width, top_left;
} row;

static row row_at(const offc_tm_planes *p, int32_t j) {
    int32_t top = 2 * j, bottom = 2 * j + 1 < p->height ? 2 * j + 1 : p->height - 1;
    row r = {
        .u = (const uint16_t *)(p->cb + j * p->c_stride),
        .v = (const uint16_t *)(p->cr + j * p->c_stride),
        .upper = (const uint16_t *)(p->y + top * p->y_stride),
        .lower = (const uint16_t *)(p->y + bottom * p->y_stride),
        .out_upper = p->out_y + top * p->out_y_stride,
        .out_lower = p->out_y + bottom * p->out_y_stride,
        .out_u = p->out_cb + j * p->out_c_stride,
        .out_v = p->out_cr + j * p->out_c_stride,
        .chroma_width = (p->width + 1) / 2,
        .width = p->width,
        .top_left = p->top_left,
    };
    return r;
}

/// 16-bit table values to 8 bits: weights sum to 16 and values are at most 255 × 256, so the
/// result needs no clamp.
static inline uint8_t eight(int32_t sum) { return (uint8_t)((sum + 2048) >> 12); }

// MARK: Scalar

/// A chroma sample's cell: where it starts along Cb and Cr, and its two fractions sorted
/// (high ≥ low) with the offsets of their axes.
typedef struct cell {
    int32_t base, high, low, high_offset, low_offset;
} cell;

static inline cell cell_of(int32_t cb, int32_t cr) {
    int32_t fb = cb & 15, fr = cr & 15, b_high = fb >= fr;
    cell c = {
        .base = (cb >> 4) * NODES + (cr >> 4),
        .high = b_high ? fb : fr,
        .low = b_high ? fr : fb,
        .high_offset = b_high ? DB : DR,
        .low_offset = b_high ? DR : DB,
    };
    return c;
}

/// Luma `y` through the triangle of `c`'s Cb, Cr square that holds the chroma (three loads).
static inline uint8_t luma_of(const uint16_t *lines, int32_t y, cell c) {
    const uint16_t *p = lines + c.base * CODES + y;
    int32_t middle = c.high_offset == DB ? CB_STEP : CR_STEP;
    return eight(p[0] * (16 - c.high) + p[middle] * (c.high - c.low) + p[LUMA_FAR] * c.low);
}

/// Cb, Cr for luma `y` and cell `c`, by tetrahedral interpolation: `y`'s fraction slots in above,
/// between or below the sorted chroma pair, which picks the tetrahedron and its weights.
static inline void chroma_of(const uint16_t *table, int32_t y, cell c, uint8_t *u, uint8_t *v) {
    int32_t fy = y & 15, base = (y >> 4) * DY + c.base;
    int32_t above_high = fy >= c.high, above_low = fy >= c.low;
    int32_t f1 = above_high ? fy : c.high;
    int32_t f2 = above_high ? c.high : (above_low ? fy : c.low);
    int32_t f3 = above_low ? c.low : fy;
    int32_t a = above_high ? DY : c.high_offset;
    int32_t b = a + (above_high ? c.high_offset : (above_low ? DY : c.low_offset));
    const uint16_t *p = table + 2 * base;
    int32_t u0 = p[0], u1 = p[2 * a], u2 = p[2 * b], u3 = p[2 * FAR];
    int32_t v0 = p[1], v1 = p[2 * a + 1], v2 = p[2 * b + 1], v3 = p[2 * FAR + 1];
    *u = eight((u0 << 4) + (u1 - u0) * f1 + (u2 - u1) * f2 + (u3 - u2) * f3);
    *v = eight((v0 << 4) + (v1 - v0) * f1 + (v2 - v1) * f2 + (v3 - v2) * f3);
}

/// Columns `from..<chroma_width` of one chroma row: each chroma sample's cell serves the two
/// luma pixels on its column and its own output; odd luma columns use the mean of the two
/// chroma samples beside them.
static void map_scalar(const row *r, const offc_tm_table *t, int32_t from) {
    int32_t last = r->chroma_width - 1;
    int32_t u0 = r->u[from] & 0x3FF, v0 = r->v[from] & 0x3FF;
    for (int32_t i = from; i < r->chroma_width; i++) {
        int32_t even = 2 * i, odd = even + 1, k = i + 1 < last ? i + 1 : last;
        int32_t u1 = r->u[k] & 0x3FF, v1 = r->v[k] & 0x3FF;
        int32_t y0 = r->upper[even] & 0x3FF, y1 = r->lower[even] & 0x3FF;
        cell own = cell_of(u0, v0);
        r->out_upper[even] = luma_of(t->luma, y0, own);
        r->out_lower[even] = luma_of(t->luma, y1, own);
        chroma_of(t->chroma, r->top_left ? y0 : (y0 + y1 + 1) >> 1, own, r->out_u + i, r->out_v + i);
        if (odd < r->width) {
            cell between = cell_of((u0 + u1 + 1) >> 1, (v0 + v1 + 1) >> 1);
            r->out_upper[odd] = luma_of(t->luma, r->upper[odd] & 0x3FF, between);
            r->out_lower[odd] = luma_of(t->luma, r->lower[odd] & 0x3FF, between);
        }
        u0 = u1;
        v0 = v1;
    }
}

// MARK: AVX2

#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2")))

/// Eight cells (see `cell`); `cr_high` marks the lanes whose Cr fraction is the larger.
typedef struct vcell {
    __m256i base, high, low, cr_high;
} vcell;

AVX2 static inline vcell vcell_of(__m256i cb, __m256i cr) {
    __m256i fifteen = _mm256_set1_epi32(15);
    __m256i fb = _mm256_and_si256(cb, fifteen), fr = _mm256_and_si256(cr, fifteen);
    vcell c = {
        .base = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srli_epi32(cb, 4), _mm256_set1_epi32(NODES)),
                                 _mm256_srli_epi32(cr, 4)),
        .high = _mm256_max_epi32(fb, fr),
        .low = _mm256_min_epi32(fb, fr),
        .cr_high = _mm256_cmpgt_epi32(fr, fb),
    };
    return c;
}

/// Selects `b` where `mask` is set, else `a`.
AVX2 static inline __m256i pick(__m256i a, __m256i b, __m256i mask) { return _mm256_blendv_epi8(a, b, mask); }

AVX2 static inline __m256i veight(__m256i sum) {
    return _mm256_srai_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(2048)), 12);
}

/// 16-bit luma entries at `index`: 32-bit gathers (hence OFFC_TM_LUMA_PADDING), low halves kept.
AVX2 static inline __m256i gather16(const uint16_t *table, __m256i index) {
    return _mm256_and_si256(_mm256_i32gather_epi32((const int *)table, index, 2), _mm256_set1_epi32(0xFFFF));
}

AVX2 static inline __m256i vluma(const uint16_t *lines, __m256i y, vcell c) {
    __m256i index = _mm256_add_epi32(_mm256_slli_epi32(c.base, 10), y);
    __m256i middle = pick(_mm256_set1_epi32(CB_STEP), _mm256_set1_epi32(CR_STEP), c.cr_high);
    __m256i p0 = gather16(lines, index);
    __m256i p1 = gather16(lines, _mm256_add_epi32(index, middle));
    __m256i p2 = gather16(lines, _mm256_add_epi32(index, _mm256_set1_epi32(LUMA_FAR)));
    __m256i sum = _mm256_mullo_epi32(p0, _mm256_sub_epi32(_mm256_set1_epi32(16), c.high));
    sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(p1, _mm256_sub_epi32(c.high, c.low)));
    sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(p2, c.low));
    return veight(sum);
}

/// One component of the tetrahedral sum, from the four nodes' values.
AVX2 static inline __m256i tetra(__m256i n0, __m256i n1, __m256i n2, __m256i n3, __m256i f1, __m256i f2, __m256i f3) {
    __m256i sum = _mm256_slli_epi32(n0, 4);
    sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(_mm256_sub_epi32(n1, n0), f1));
    sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(_mm256_sub_epi32(n2, n1), f2));
    sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(_mm256_sub_epi32(n3, n2), f3));
    return veight(sum);
}

/// Cb, Cr of eight samples (`chroma_of` lane by lane); each gather fetches a node's Cb, Cr pair.
AVX2 static inline void vchroma(const uint16_t *table, __m256i y, vcell c, __m256i *u, __m256i *v) {
    __m256i dy = _mm256_set1_epi32(DY);
    __m256i fy = _mm256_and_si256(y, _mm256_set1_epi32(15));
    __m256i base = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srli_epi32(y, 4), dy), c.base);
    __m256i below_high = _mm256_cmpgt_epi32(c.high, fy), below_low = _mm256_cmpgt_epi32(c.low, fy);
    __m256i high_offset = pick(_mm256_set1_epi32(DB), _mm256_set1_epi32(DR), c.cr_high);
    __m256i low_offset = pick(_mm256_set1_epi32(DR), _mm256_set1_epi32(DB), c.cr_high);
    __m256i f1 = pick(fy, c.high, below_high);
    __m256i f2 = pick(c.high, pick(fy, c.low, below_low), below_high);
    __m256i f3 = pick(c.low, fy, below_low);
    __m256i a = pick(dy, high_offset, below_high);
    __m256i b = _mm256_add_epi32(a, pick(high_offset, pick(dy, low_offset, below_low), below_high));
    const int *pairs = (const int *)table;
    __m256i q0 = _mm256_i32gather_epi32(pairs, base, 4);
    __m256i q1 = _mm256_i32gather_epi32(pairs, _mm256_add_epi32(base, a), 4);
    __m256i q2 = _mm256_i32gather_epi32(pairs, _mm256_add_epi32(base, b), 4);
    __m256i q3 = _mm256_i32gather_epi32(pairs, _mm256_add_epi32(base, _mm256_set1_epi32(FAR)), 4);
    __m256i low16 = _mm256_set1_epi32(0xFFFF);
    *u = tetra(_mm256_and_si256(q0, low16), _mm256_and_si256(q1, low16), _mm256_and_si256(q2, low16),
               _mm256_and_si256(q3, low16), f1, f2, f3);
    *v = tetra(_mm256_srli_epi32(q0, 16), _mm256_srli_epi32(q1, 16), _mm256_srli_epi32(q2, 16),
               _mm256_srli_epi32(q3, 16), f1, f2, f3);
}

AVX2 static inline __m256i load8(const uint16_t *samples) {
    return _mm256_and_si256(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)samples)), _mm256_set1_epi32(0x3FF));
}

/// Stores eight even and eight odd luma outputs (each 0...255) as sixteen interleaved bytes.
AVX2 static inline void store_pairs(uint8_t *out, __m256i even, __m256i odd) {
    __m256i words = _mm256_or_si256(even, _mm256_slli_epi32(odd, 8));
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(words, words), 0x08);
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(packed));
}

/// Columns from 0 in steps of eight while the step's last sample has a right neighbour (so
/// every odd column exists and no load passes the row's end); returns where it stopped.
AVX2 static int32_t map_avx2(const row *r, const offc_tm_table *t) {
    __m256i ten = _mm256_set1_epi32(0x3FF), one = _mm256_set1_epi32(1);
    int32_t i = 0;
    for (; i + 8 < r->chroma_width; i += 8) {
        __m256i u0 = load8(r->u + i), u1 = load8(r->u + i + 1);
        __m256i v0 = load8(r->v + i), v1 = load8(r->v + i + 1);
        __m256i upper = _mm256_loadu_si256((const __m256i *)(r->upper + 2 * i));
        __m256i lower = _mm256_loadu_si256((const __m256i *)(r->lower + 2 * i));
        __m256i y0 = _mm256_and_si256(upper, ten), y1 = _mm256_and_si256(lower, ten);
        __m256i y0odd = _mm256_and_si256(_mm256_srli_epi32(upper, 16), ten);
        __m256i y1odd = _mm256_and_si256(_mm256_srli_epi32(lower, 16), ten);
        vcell own = vcell_of(u0, v0);
        vcell between = vcell_of(_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u0, u1), one), 1),
                                 _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(v0, v1), one), 1));
        store_pairs(r->out_upper + 2 * i, vluma(t->luma, y0, own), vluma(t->luma, y0odd, between));
        store_pairs(r->out_lower + 2 * i, vluma(t->luma, y1, own), vluma(t->luma, y1odd, between));
        __m256i sited = r->top_left ? y0 : _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(y0, y1), one), 1);
        __m256i u, v;
        vchroma(t->chroma, sited, own, &u, &v);
        // Cb in the low 128 bits, Cr in the high, as bytes.
        __m256i words = _mm256_permute4x64_epi64(_mm256_packus_epi32(u, v), 0xD8);
        __m256i bytes = _mm256_packus_epi16(words, words);
        _mm_storel_epi64((__m128i *)(r->out_u + i), _mm256_castsi256_si128(bytes));
        _mm_storel_epi64((__m128i *)(r->out_v + i), _mm256_extracti128_si256(bytes, 1));
    }
    return i;
}

int offc_tm_vector_supported(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }
#else
int offc_tm_vector_supported(void) { return 0; }
#endif

void offc_tm_map_rows(const offc_tm_planes *planes, const offc_tm_table *table, int32_t first, int32_t end,
                      int vector) {
#if !defined(__x86_64__)
    (void)vector; // offc_tm_vector_supported() is 0 here, so callers pass 0
#endif
    for (int32_t j = first; j < end; j++) {
        row r = row_at(planes, j);
        int32_t from = 0;
#if defined(__x86_64__)
        if (vector) from = map_avx2(&r, table);
#endif
        map_scalar(&r, table, from);
    }
}
