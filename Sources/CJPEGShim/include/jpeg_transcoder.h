#ifndef OFFCONVERT_JPEG_TRANSCODER_H
#define OFFCONVERT_JPEG_TRANSCODER_H
#include <stddef.h>
#include <stdint.h>

// A JPEG re-encoded band by band from a file to a file, over libjpeg-turbo's libjpeg API: the
// decoder reads the input through a 64 KiB buffer, the encoder writes through a 256 KiB one, and
// between them passes one MCU row (16 lines) at a time, so a 200 MP photo needs a few hundred
// KiB beside libjpeg's own state instead of its whole bitmap.
//
// A 4:2:0 source goes as raw YCbCr planes (no colour conversion, no chroma resampling: the
// output's chroma is the source's, re-quantised). Another sampling (4:2:2, 4:4:4, 4:4:0) is
// decoded to full-resolution YCbCr scanlines and downsampled to 4:2:0 by the encoder. An EXIF
// orientation other than 1 needs whole columns: the 4:2:0 planes are kept whole (1.5 bytes a
// pixel) and each output band is gathered from them turned; other samplings are not taken then.
//
// The output is coded as offc_jpeg_writer codes: libjpeg's defaults (JFIF header, standard
// Huffman tables), accurate integer DCT, jpeg_set_quality's tables, 4:2:0. libjpeg reports errors
// by longjmp, which must not cross Swift frames: each call sets its own setjmp and returns a code.

#pragma clang assume_nonnull begin

typedef struct offc_jpeg_transcoder offc_jpeg_transcoder;

/// What the input's header says.
typedef struct {
    uint32_t width;
    uint32_t height;
    /// Components in the frame (1 grey, 3 colour, 4 CMYK/YCCK).
    int components;
    /// 1 when libjpeg reads the three components as YCbCr (JFIF, or no Adobe marker saying RGB).
    int ycbcr;
    /// 1 for a progressive (or multi-scan) stream: libjpeg then holds every coefficient, 2 bytes
    /// a sample, before the first row comes out.
    int progressive;
    /// Bits per sample (8; 12-bit streams are refused by this libjpeg).
    int precision;
    /// Each component's sampling factors.
    int h_samp[4];
    int v_samp[4];
} offc_jpeg_source_info;

/// What went wrong in the input that libjpeg repaired (warnings, not errors).
typedef struct {
    /// Warnings libjpeg gave while decoding (corrupt data, extraneous bytes, an early end).
    uint32_t warnings;
    /// 1 when the file ended before the picture did (libjpeg filled the rest).
    int ended_early;
    /// Source rows decoded when the file ended (when `ended_early`).
    uint32_t rows_before_end;
} offc_jpeg_damage;

/// Reads the header of the JPEG on `input_fd` (read sequentially from its current offset; the
/// caller keeps it open until the transcoder is freed). With `strict`, a warning (damaged data)
/// is an error. Returns NULL with `error` filled (NUL-terminated, at most error_size bytes).
offc_jpeg_transcoder *_Nullable offc_jpeg_transcoder_open(int input_fd, int strict, offc_jpeg_source_info *info,
                                                           char *error, size_t error_size);

/// Starts the output on `output_fd`: `quality` 1 to 100, `orientation` the EXIF value 1 to 8
/// (the output is the picture turned upright), and `segments`, whole marker segments (FF En,
/// length, payload; APP markers only) written after the JFIF header. Only a 3-component 8-bit
/// YCbCr source is taken, and only a 4:2:0 one with an orientation other than 1. Returns 0, or -1
/// with `error` filled.
int offc_jpeg_transcoder_start(offc_jpeg_transcoder *transcoder, int output_fd, int quality, int orientation,
                               const uint8_t *_Nullable segments, size_t segments_length, char *error, size_t error_size);

/// Does the next band: one MCU row decoded (and, while streaming, encoded). Sets `*progress` to
/// the share done (0 to 1). Returns 1 once the output is complete and flushed, 0 when there is
/// more, -1 with `error` filled (and for every call after one failed).
int offc_jpeg_transcoder_step(offc_jpeg_transcoder *transcoder, double *progress, char *error, size_t error_size);

/// What libjpeg repaired so far.
void offc_jpeg_transcoder_damage(const offc_jpeg_transcoder *transcoder, offc_jpeg_damage *damage);

/// The errno of a failed write of the output (`writing` 1) or read of the input (0), or 0 when
/// none failed.
int offc_jpeg_transcoder_errno(const offc_jpeg_transcoder *transcoder, int writing);

/// Frees the transcoder and its buffers (finished or not); closes no descriptor.
void offc_jpeg_transcoder_free(offc_jpeg_transcoder *_Nullable transcoder);

#pragma clang assume_nonnull end

#endif
