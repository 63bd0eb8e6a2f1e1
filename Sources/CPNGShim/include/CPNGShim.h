#ifndef OFFCONVERT_CPNGSHIM_H
#define OFFCONVERT_CPNGSHIM_H
#include <stddef.h>
#include <stdint.h>

// libpng reports every error by longjmp back to a setjmp in the caller. Swift cannot call setjmp,
// and a longjmp across Swift frames is undefined behaviour, so each libpng entry point we use is
// wrapped here: the setjmp, the calls that may longjmp and the cleanup all stay in C, and Swift
// sees a plain return code plus a message.

/// A decoded PNG. Pixels are RGBA, 8 or 16 bits per channel (16-bit samples in native byte order),
/// rows packed without padding. Every pointer is owned by the struct: free with offc_png_free.
typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;        // 8 or 16
    int has_alpha;        // the source had an alpha channel or tRNS
    uint8_t *pixels;      // width * height * (has_alpha ? 4 : 3) * (bit_depth / 8) bytes; NULL when decoded into the caller's buffer
    uint8_t *icc;         // the iCCP profile, decompressed, or NULL
    size_t icc_size;
    uint8_t *exif;        // the eXIf chunk, or NULL
    size_t exif_size;
    int srgb_intent;      // the sRGB chunk's rendering intent, or -1 when there is none
    uint8_t *xmp;         // the XMP packet (text chunk "XML:com.adobe.xmp", before or after the image data), or NULL
    size_t xmp_size;
    int cut;              // the file ends before IEND (decoded with tolerate_cut): an interrupted copy
    uint32_t rows_missing; // with `cut`, the rows at the bottom the file no longer holds, filled mid grey
    int source_bit_depth; // the IHDR's bit depth (1, 2, 4, 8 or 16: an index's for a palette)
    int color_type;       // the IHDR's colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA)
    uint8_t *texts;       // the text chunks but XMP, serialised as offc_png_encode_file takes them, or NULL
    size_t texts_size;
} offc_png_image;

/// Decodes a whole PNG held in memory to RGB, or RGBA when it has alpha (a channel or tRNS), at
/// 8 or 16 bits. Returns 0 on success; on failure returns -1, fills `error` (NUL-terminated, at
/// most error_size bytes) and leaves `out` empty. With a `destination` of `destination_size`
/// bytes the rows are decoded into it (refused when they do not fit) and `out->pixels` stays
/// NULL; without one they are allocated and handed over in `out->pixels`.
/// `max_pixels` refuses images with more pixels before anything is allocated (0: no limit).
/// With `tolerate_cut`, a non-interlaced PNG whose file ends inside or after its image data (an
/// interrupted copy) is decoded as far as it goes: `out->cut` is set and the rows it lacks are
/// filled mid grey and counted in `out->rows_missing`; at least one row must have decoded.
int offc_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int tolerate_cut, uint8_t *destination,
                    size_t destination_size, offc_png_image *out, char *error, size_t error_size);

/// Checks every chunk's declared length before libpng sees the file: each must fit in what is
/// left of `data`, and an ancillary chunk (text, ICC, EXIF, unknown) must be at most 16 MiB.
/// Returns 0, or -1 with `error` filled. Every reader below runs it first, so a length of
/// 0x7FFFFFFF in a small file is refused before anything is allocated for it.
/// When `cut` is not NULL, a file that ends inside or after an IDAT chunk (before IEND) is not
/// an error: `*cut` is set to 1 and the caller reads what is there. Otherwise `*cut` is 0.
int offc_png_check_chunks(const uint8_t *data, size_t size, int *cut, char *error, size_t error_size);

/// Reads the whole PNG held in memory as offc_png_decode does by default (a tRNS chunk libpng
/// ignores is no failure), without keeping a pixel: the rows are inflated one at a time into a
/// single row's buffer, so the damage a conversion would refuse (a CRC error in the image data,
/// a broken zlib stream) is found at the cost of one row's memory. Returns 0, or -1 with `error`
/// filled. A file cut short is judged as offc_png_decode judges it with `tolerate_cut`: when its
/// rows are read one by one (not interlaced) and at least one is whole, it returns 1 with
/// `*rows_missing` set (0 when only what followed the picture is missing); otherwise it is refused.
int offc_png_verify(const uint8_t *data, size_t size, uint32_t *rows_missing, char *error, size_t error_size);

/// Reads only what precedes the image data (IHDR, iCCP, eXIf, sRGB): `out` gets the size, the
/// source's bit depth (8 or 16, as offc_png_decode would deliver), alpha, ICC and EXIF, and no
/// pixels. A file cut in or after its image data is read (its header is whole). Returns 0, or -1
/// with `error` filled and `out` empty. Free with offc_png_free.
int offc_png_read_header(const uint8_t *data, size_t size, offc_png_image *out, char *error, size_t error_size);

/// Frees what offc_png_decode allocated and zeroes the struct.
void offc_png_free(offc_png_image *image);

/// Encodes RGB or RGBA pixels (channels 3 or 4, bit_depth 8 or 16, 16-bit samples in native order)
/// to a PNG file at `path`. `icc`/`exif`/`xmp`/`texts` may be NULL. `texts` holds text chunks, each
/// serialised as: one byte of libpng's compression + 1 (0 tEXt, 1 zTXt, 2 iTXt, 3 compressed
/// iTXt), then keyword, language tag, translated keyword and text, each ended by a NUL; they are
/// written after the image data, where they cannot delay a viewer's first rows. The XMP packet is written as an
/// uncompressed iTXt chunk with keyword "XML:com.adobe.xmp" before the image data (where Adobe's
/// XMP specification and exiftool look for it); a NUL byte ends the packet. Returns 0; a positive errno when creating or
/// writing the file failed (ENOSPC for a full disk), so the caller can categorise it; or -1 with
/// `error` filled for anything else.
int offc_png_encode_file(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                         int channels, int bit_depth, const uint8_t *icc, size_t icc_size,
                         const uint8_t *exif, size_t exif_size, const uint8_t *xmp, size_t xmp_size,
                         const uint8_t *texts, size_t texts_size, int compression_level,
                         char *error, size_t error_size);
#endif
