#ifndef OFFCONVERT_CTONEMAP_H
#define OFFCONVERT_CTONEMAP_H
#include <stddef.h>
#include <stdint.h>

// The per-pixel walk of the HDR → SDR tone-map table (ConvertMedia's LUTToneMapper, which
// documents the table, the interpolation and the chroma siting). It is in C for one instruction:
// each pixel looks up table entries at data-dependent places, and only a gather (AVX2's
// vpgatherdd) lets eight pixels do that at once; Swift's SIMD types have no gather, and the
// scalar walk cost as much CPU as the rest of the stage. A scalar kernel gives the same bytes on
// CPUs without AVX2, and serves each row's last columns.

#pragma clang assume_nonnull begin

/// Nodes per axis of both tables (every 16th 10-bit code, then 1023).
#define OFFC_TM_NODES 65
/// 10-bit codes: the length of one luma line.
#define OFFC_TM_CODES 1024
/// log2 of the codes per cell (1024 / 64): interpolation weights are in sixteenths.
#define OFFC_TM_CELL_SHIFT 4
/// Readable entries the luma table must hold past its last line: the vector kernel reads table
/// entries 32 bits at a time and keeps the low 16.
#define OFFC_TM_LUMA_PADDING 1

/// One frame's planes: `yuv420p10le` in, `yuv420p` out; strides in bytes.
typedef struct offc_tm_planes {
    const uint8_t *y, *cb, *cr;
    ptrdiff_t y_stride, c_stride;
    uint8_t *out_y, *out_cb, *out_cr;
    ptrdiff_t out_y_stride, out_c_stride;
    int32_t width, height;
    /// Nonzero for top-left chroma siting (H.273 type 2), zero for left (type 0).
    int32_t top_left;
} offc_tm_planes;

/// The tables, 16-bit (an 8-bit value × 256, at most 255 × 256).
typedef struct offc_tm_table {
    /// Output Y' at `(cb * NODES + cr) * CODES + y`, then OFFC_TM_LUMA_PADDING more entries.
    const uint16_t *luma;
    /// Output Cb, Cr interleaved at `2 * ((y * NODES + cb) * NODES + cr)`.
    const uint16_t *chroma;
} offc_tm_table;

/// Whether this CPU runs the vector kernel (x86-64 with AVX2).
int offc_tm_vector_supported(void);

/// Maps chroma rows `first..<end` and the luma rows they cover. With `vector` nonzero (only
/// where offc_tm_vector_supported()), eight chroma samples at a time; the bytes are the same.
void offc_tm_map_rows(const offc_tm_planes *planes, const offc_tm_table *table, int32_t first, int32_t end,
                      int vector);

#pragma clang assume_nonnull end

#endif
