#ifndef OFFCONVERT_CJPEGSHIM_H
#define OFFCONVERT_CJPEGSHIM_H
#include <stddef.h>
#include <stdint.h>
#include "jpeg_transcoder.h"

// A JPEG encoder fed a YCbCr 4:2:0 picture a band of rows at a time, over libjpeg-turbo's libjpeg
// API (raw data in): TurboJPEG 2.1 only encodes a whole picture, so a HEIC grid converted through
// it needs the whole picture's planes at once; fed band by band, only one row of tiles is ever
// decoded. libjpeg reports errors by longjmp, which must not cross Swift frames, so each call that
// may fail sets its own setjmp here and returns a code.
//
// The stream is coded exactly as TurboJPEG's tjCompressFromYUVPlanes codes the same planes with
// TJFLAG_ACCURATEDCT: libjpeg's defaults (JFIF header, standard Huffman tables), accurate integer
// DCT, quality tables scaled as jpeg_set_quality does, and each MCU row's edge filled by repeating
// the last sample and row the planes hold.

#pragma clang assume_nonnull begin

typedef struct offc_jpeg_writer offc_jpeg_writer;

/// Starts a stream of a `width`×`height` picture at `quality` (1 to 100), written to memory.
/// Returns NULL with `error` filled (NUL-terminated, at most error_size bytes) when libjpeg refuses.
offc_jpeg_writer *_Nullable offc_jpeg_writer_start(uint32_t width, uint32_t height, int quality,
                                                   char *error, size_t error_size);

/// Adds the next `rows` rows of luma (each `(width + 1) / 2 * 2` samples long, an odd width's
/// last sample repeated) and their `rows / 2` chroma rows (each `(width + 1) / 2` samples).
/// `rows` is even; the picture's last band may end with a repeated row to make it so.
/// `luma_length` and `chroma_length` are the bytes readable from `luma` and from each of `cb` and
/// `cr`: rows, strides and lengths are checked against each other before a byte is read. Returns
/// 0, or -1 with `error` filled (also when more rows come than the picture has, and for every call
/// after libjpeg failed once).
int offc_jpeg_writer_add(offc_jpeg_writer *writer, const uint8_t *luma, size_t luma_stride, size_t luma_length,
                         const uint8_t *cb, const uint8_t *cr, size_t chroma_stride, size_t chroma_length,
                         uint32_t rows, char *error, size_t error_size);

/// Ends the stream once every row was added; `*data` and `*size` then give it, owned by the
/// writer until it is freed. Returns 0, or -1 with `error` filled.
int offc_jpeg_writer_finish(offc_jpeg_writer *writer, const uint8_t *_Nullable *_Nonnull data, size_t *size,
                            char *error, size_t error_size);

/// Frees the writer and its stream (finished or not).
void offc_jpeg_writer_free(offc_jpeg_writer *_Nullable writer);

#pragma clang assume_nonnull end

#endif
