#include <errno.h>
#include "CPNGShim.h"
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} reader_state;

typedef struct {
    char *error;
    size_t error_size;
} error_state;

static void on_error(png_structp png, png_const_charp message) {
    error_state *state = (error_state *)png_get_error_ptr(png);
    if (state && state->error && state->error_size > 0) {
        snprintf(state->error, state->error_size, "%s", message);
    }
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;  // warnings (e.g. a bad CRC in an ancillary chunk) are not failures
}

/// The keyword of the text chunk that holds an XMP packet (Adobe XMP specification, part 3).
static const char xmp_keyword[] = "XML:com.adobe.xmp";

/// The largest ancillary chunk (text, ICC profile, EXIF, unknown) accepted, stored or inflated.
/// Real ones are kilobytes (an ICC profile a few hundred, an XMP packet with history a few MB).
static const size_t max_ancillary_chunk = 16u << 20;

int offc_png_check_chunks(const uint8_t *data, size_t size, int *cut, char *error, size_t error_size) {
    if (error_size > 0) error[0] = 0;
    if (cut) *cut = 0;
    int image_data = 0;
    size_t offset = 8;
    while (size >= 12 && offset <= size - 12) {
        const uint8_t *at = data + offset;
        uint32_t length = (uint32_t)at[0] << 24 | (uint32_t)at[1] << 16 | (uint32_t)at[2] << 8 | at[3];
        char name[5] = {(char)at[4], (char)at[5], (char)at[6], (char)at[7], 0};
        for (int i = 0; i < 4; i++) {
            if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z'))) name[i] = '?';
        }
        if (memcmp(at + 4, "IDAT", 4) == 0) image_data = 1;
        if (length > size - offset - 12) {
            // Cut in (or after) the image data: what is there is read, and the rest is missing.
            if (cut && image_data) {
                *cut = 1;
                return 0;
            }
            snprintf(error, error_size, "its %s chunk declares %u bytes, more than the %zu left in the file",
                     name, length, size - offset - 12);
            return -1;
        }
        // Bit 5 of the first letter: lower case is ancillary (PNG specification, 5.4).
        if ((at[4] & 0x20) && length > max_ancillary_chunk) {
            snprintf(error, error_size, "its %s chunk declares %u bytes, over the limit of %zu for metadata",
                     name, length, max_ancillary_chunk);
            return -1;
        }
        if (memcmp(at + 4, "IEND", 4) == 0) return 0;
        offset += 12 + (size_t)length;
    }
    // No IEND: a file cut between chunks, or in a chunk header.
    if (cut && image_data) *cut = 1;
    return 0;
}

/// The first steps of every read of `data`: its signature, its chunk lengths
/// (offc_png_check_chunks, `cut` as there) and a read struct that reports into `errors`, which
/// must outlive it. NULL, with the reason in `errors`, when one of them fails.
static png_structp open_read(const uint8_t *data, size_t size, int *cut, error_state *errors) {
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        snprintf(errors->error, errors->error_size, "not a PNG file");
        return NULL;
    }
    if (offc_png_check_chunks(data, size, cut, errors->error, errors->error_size) != 0) return NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, errors, on_error, on_warning);
    if (!png) snprintf(errors->error, errors->error_size, "out of memory");
    return png;
}

/// Gives `out` the decoded buffers (its size and depth are stored before the rows are read).
static void hand_over(offc_png_image *out, uint8_t *pixels, uint8_t *icc, uint8_t *exif, uint8_t *xmp, uint8_t *texts) {
    out->pixels = pixels;
    out->icc = icc;
    out->exif = exif;
    out->xmp = xmp;
    out->texts = texts;
}

/// The length of a text chunk's text: libpng keeps a NUL after it, and a NUL inside would end it
/// for every reader anyway.
static size_t text_length(const png_text *text) {
    size_t length = text->compression > 0 ? text->itxt_length : text->text_length;
    return text->text ? strnlen(text->text, length) : 0;
}

/// Serialises the text chunks libpng has read but the XMP packet (kept apart) into a new buffer,
/// in the layout offc_png_encode_file takes; NULL with `*size` 0 when there are none. Calls
/// png_error (longjmp) when out of memory, after storing the buffer in `*out`.
static void copy_texts(png_structp png, png_infop info, uint8_t *volatile *out, size_t *size) {
    png_textp texts = NULL;
    int count = 0;
    png_get_text(png, info, &texts, &count);
    size_t total = 0;
    for (int i = 0; i < count; i++) {
        if (!texts[i].key || strcmp(texts[i].key, xmp_keyword) == 0) continue;
        total += 5 + strlen(texts[i].key) + text_length(&texts[i]) + (texts[i].lang ? strlen(texts[i].lang) : 0) +
                 (texts[i].lang_key ? strlen(texts[i].lang_key) : 0);
    }
    *size = 0;
    if (total == 0) return;
    uint8_t *buffer = malloc(total);
    *out = buffer;
    if (!buffer) png_error(png, "out of memory");
    size_t at = 0;
    for (int i = 0; i < count; i++) {
        if (!texts[i].key || strcmp(texts[i].key, xmp_keyword) == 0) continue;
        buffer[at++] = (uint8_t)(texts[i].compression + 1);
        const char *parts[4] = {texts[i].key, texts[i].lang ? texts[i].lang : "",
                                texts[i].lang_key ? texts[i].lang_key : "", texts[i].text ? texts[i].text : ""};
        for (int part = 0; part < 4; part++) {
            size_t length = part == 3 ? text_length(&texts[i]) : strlen(parts[part]);
            memcpy(buffer + at, parts[part], length);
            at += length;
            buffer[at++] = 0;
        }
    }
    *size = at;
}

/// Fills rows `from` to `height` (exclusive) of RGB or RGBA pixels with opaque mid grey, byte for
/// byte the same at 8 and 16 bits (0x80 per colour byte, 0xFF per alpha byte).
static void fill_missing_rows(uint8_t *pixels, size_t row_bytes, uint32_t from, uint32_t height, int depth, int channels) {
    size_t sample = (size_t)depth / 8, pixel = (size_t)channels * sample;
    for (uint32_t y = from; y < height; y++) {
        uint8_t *row = pixels + row_bytes * y;
        for (size_t at = 0; at + pixel <= row_bytes; at += pixel) {
            memset(row + at, 0x80, 3 * sample);
            if (channels == 4) memset(row + at + 3 * sample, 0xFF, sample);
        }
    }
}

/// Sets the limits every reader applies before libpng allocates anything: picture size, and the
/// largest ancillary chunk stored or inflated (Debian's libpng leaves that unlimited, so a
/// 0x7FFFFFFF-byte tEXt length allocated 2 GB).
static void set_read_limits(png_structp png) {
    // The sharp/libvips default: refuse absurd dimensions before allocating.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_chunk_malloc_max(png, max_ancillary_chunk);
}

static void read_from_memory(png_structp png, png_bytep out, png_size_t length) {
    reader_state *state = (reader_state *)png_get_io_ptr(png);
    if (state->size - state->offset < length) {
        png_error(png, "the file ends before the image data does (truncated PNG)");
    }
    memcpy(out, state->data + state->offset, length);
    state->offset += length;
}

// Both readers start alike: libpng reads `reader`'s memory past the signature, under the same limits.
static void start_reading(png_structp png, reader_state *reader) {
    png_set_read_fn(png, reader, read_from_memory);
    png_set_sig_bytes(png, 8);
    set_read_limits(png);
}

// Copies the colour profile and EXIF that `png_read_info` has seen into memory the caller owns
// (`*icc`, `*exif`; sizes in `out`), and the sRGB intent into `out`. Each copy is stored before
// the next allocation can fail and longjmp, so the caller's handler frees whatever was made.
static void copy_metadata(png_structp png, png_infop info, uint8_t *volatile *icc, uint8_t *volatile *exif, offc_png_image *out) {
    png_charp icc_name = NULL;
    int compression = 0;
    png_bytep icc_data = NULL;
    png_uint_32 icc_length = 0;
    if (png_get_iCCP(png, info, &icc_name, &compression, &icc_data, &icc_length) && icc_length > 0) {
        *icc = malloc(icc_length);
        if (!*icc) png_error(png, "out of memory");
        memcpy(*icc, icc_data, icc_length);
        out->icc_size = icc_length;
    }
#ifdef PNG_eXIf_SUPPORTED
    png_bytep exif_data = NULL;
    png_uint_32 exif_length = 0;
    if (png_get_eXIf_1(png, info, &exif_length, &exif_data) && exif_length > 0) {
        *exif = malloc(exif_length);
        if (!*exif) png_error(png, "out of memory");
        memcpy(*exif, exif_data, exif_length);
        out->exif_size = exif_length;
    }
#else
    (void)exif;
#endif
    int intent = 0;
    if (png_get_sRGB(png, info, &intent)) out->srgb_intent = intent;
}

int offc_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, int tolerate_cut, uint8_t *destination,
                    size_t destination_size, offc_png_image *out, char *error, size_t error_size) {
    memset(out, 0, sizeof(*out));
    out->srgb_intent = -1;
    if (error_size > 0) error[0] = 0;
    int cut = 0;
    error_state errors = {error, error_size};
    png_structp png = open_read(data, size, tolerate_cut ? &cut : NULL, &errors);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    // volatile: these are modified between setjmp and a possible longjmp.
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    uint8_t *volatile icc = NULL;
    uint8_t *volatile exif = NULL;
    uint8_t *volatile xmp = NULL;
    uint8_t *volatile texts_copy = NULL;
    // The rows read whole so far, and the layout they were read in, for a file cut short.
    volatile png_uint_32 rows_done = 0;
    volatile int interlaced = 0;
    volatile size_t layout_row_bytes = 0;
    if (!info || setjmp(png_jmpbuf(png))) {
        if (cut && pixels && rows_done > 0 && !interlaced && layout_row_bytes > 0) {
            // The file ends early: the rows it holds are the picture's top, the rest is grey.
            fill_missing_rows(pixels, layout_row_bytes, rows_done, out->height, out->bit_depth, out->has_alpha ? 4 : 3);
            free(rows);
            png_destroy_read_struct(&png, &info, NULL);
            hand_over(out, pixels == destination ? NULL : pixels, icc, exif, xmp, texts_copy);
            out->cut = 1;
            out->rows_missing = out->height - rows_done;
            if (error_size > 0) error[0] = 0;
            return 0;
        }
        // Nothing is handed over: `out` is left empty, as documented.
        memset(out, 0, sizeof(*out));
        out->srgb_intent = -1;
        if (pixels != destination) free(pixels);
        free(rows);
        free(icc);
        free(exif);
        free(xmp);
        free(texts_copy);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        if (error_size > 0 && error[0] == 0) snprintf(error, error_size, "out of memory");
        return -1;
    }
    reader_state reader = {data, size, 8};
    start_reading(png, &reader);
    // libpng asks for image data 8 KiB at a time and fails a request the file cannot fill, so
    // a cut file would lose the rows of its last 8 KiB: ask for less when the file is cut.
    if (cut) png_set_compression_buffer_size(png, 256);
    png_read_info(png, info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    if (max_pixels > 0 && (uint64_t)width * (uint64_t)height > max_pixels) {
        snprintf(error, error_size, "the image is %ux%u, more pixels than the limit of %llu",
                 width, height, (unsigned long long)max_pixels);
        png_destroy_read_struct(&png, &info, NULL);
        return -2;
    }
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);

    copy_metadata(png, info, &icc, &exif, out);

    // Normalise every colour type to RGB, or RGBA when it has alpha (a channel or tRNS), at 8 or 16 bits.
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bit_depth == 16) png_set_swap(png);
#endif
    interlaced = png_set_interlace_handling(png) > 1;
    png_read_update_info(png, info);

    int out_depth = bit_depth == 16 ? 16 : 8;
    size_t row_bytes = (size_t)width * (has_alpha ? 4 : 3) * (out_depth / 8);
    if (png_get_rowbytes(png, info) != row_bytes) png_error(png, "unexpected PNG row layout");
    if (destination && (height == 0 || row_bytes > destination_size / height)) png_error(png, "the picture does not fit its buffer");
    // Stored before any pixel is read, so a longjmp out of the rows still knows the layout.
    out->source_bit_depth = bit_depth;
    out->color_type = color_type;
    out->width = width;
    out->height = height;
    out->bit_depth = out_depth;
    out->has_alpha = has_alpha;
    pixels = destination ? destination : malloc(row_bytes * height);
    rows = malloc(sizeof(png_bytep) * height);
    if (!pixels || !rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + row_bytes * y;
    layout_row_bytes = row_bytes;
    if (interlaced) {
        png_read_image(png, rows);
    } else {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, rows[y], NULL);
            rows_done = y + 1;
        }
    }
    // With `info`, text chunks after the image data are read too (XMP may sit there).
    png_read_end(png, info);
    png_textp texts = NULL;
    int text_count = 0;
    png_get_text(png, info, &texts, &text_count);
    for (int i = 0; i < text_count && !xmp; i++) {
        if (!texts[i].key || strcmp(texts[i].key, xmp_keyword) != 0 || !texts[i].text) continue;
        size_t length = texts[i].compression > 0 ? texts[i].itxt_length : texts[i].text_length;
        if (length == 0) continue;
        xmp = malloc(length);
        if (!xmp) png_error(png, "out of memory");
        memcpy(xmp, texts[i].text, length);
        out->xmp_size = length;
    }
    copy_texts(png, info, &texts_copy, &out->texts_size);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    hand_over(out, pixels == destination ? NULL : pixels, icc, exif, xmp, texts_copy);
    return 0;
}

int offc_png_read_header(const uint8_t *data, size_t size, offc_png_image *out, char *error, size_t error_size) {
    memset(out, 0, sizeof(*out));
    out->srgb_intent = -1;
    if (error_size > 0) error[0] = 0;
    // A file cut in or after its image data has its header whole: read as the conversion reads
    // it (tolerate_cut), and `info`, which reads the rows too (offc_png_verify), says what is missing.
    int cut = 0;
    error_state errors = {error, error_size};
    png_structp png = open_read(data, size, &cut, &errors);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    // `out` is memory, not a local, so what was stored in it before a longjmp is still there.
    if (!info || setjmp(png_jmpbuf(png))) {
        offc_png_free(out);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        if (error_size > 0 && error[0] == 0) snprintf(error, error_size, "out of memory");
        return -1;
    }
    reader_state reader = {data, size, 8};
    start_reading(png, &reader);
    png_read_info(png, info);  // stops at the first IDAT: no pixel is inflated
    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    copy_metadata(png, info, &out->icc, &out->exif, out);
    out->width = width;
    out->height = height;
    out->bit_depth = bit_depth == 16 ? 16 : 8;
    out->source_bit_depth = bit_depth;
    out->color_type = color_type;
    out->has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

int offc_png_verify(const uint8_t *data, size_t size, uint32_t *rows_missing, char *error, size_t error_size) {
    if (error_size > 0) error[0] = 0;
    if (rows_missing) *rows_missing = 0;
    int cut = 0;
    error_state errors = {error, error_size};
    png_structp png = open_read(data, size, &cut, &errors);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile row = NULL;
    // The rows read whole so far and the height, for a file cut short (as offc_png_decode keeps them).
    volatile png_uint_32 rows_done = 0;
    volatile png_uint_32 height = 0;
    volatile int interlaced = 0;
    if (!info || setjmp(png_jmpbuf(png))) {
        free(row);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        if (cut && rows_done > 0 && !interlaced) {
            if (rows_missing) *rows_missing = height - rows_done;
            if (error_size > 0) error[0] = 0;
            return 1;
        }
        if (error_size > 0 && error[0] == 0) snprintf(error, error_size, "out of memory");
        return -1;
    }
    reader_state reader = {data, size, 8};
    start_reading(png, &reader);
    if (cut) png_set_compression_buffer_size(png, 256);
    png_read_info(png, info);
    height = png_get_image_height(png, info);
    // Each pass of an interlaced picture goes through the same row: only the inflating counts.
    int passes = png_set_interlace_handling(png);
    interlaced = passes > 1;
    png_read_update_info(png, info);
    row = malloc(png_get_rowbytes(png, info));
    if (!row) png_error(png, "out of memory");
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
            if (!interlaced) rows_done = y + 1;
        }
    }
    png_read_end(png, info);
    free(row);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

void offc_png_free(offc_png_image *image) {
    free(image->pixels);
    free(image->icc);
    free(image->exif);
    free(image->xmp);
    free(image->texts);
    memset(image, 0, sizeof(*image));
    image->srgb_intent = -1;
}

int offc_png_encode_file(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                         int channels, int bit_depth, const uint8_t *icc, size_t icc_size,
                         const uint8_t *exif, size_t exif_size, const uint8_t *xmp, size_t xmp_size,
                         const uint8_t *texts, size_t texts_size, int compression_level, char *error,
                         size_t error_size) {
    if (error_size > 0) error[0] = 0;
    if ((channels != 3 && channels != 4) || (bit_depth != 8 && bit_depth != 16)) {
        snprintf(error, error_size, "unsupported PNG layout");
        return -1;
    }
    FILE *volatile file = fopen(path, "wb");
    if (!file) {
        int saved = errno;
        snprintf(error, error_size, "cannot create the output file");
        return saved > 0 ? saved : -1;
    }
    error_state errors = {error, error_size};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *volatile rows = NULL;
    char *volatile xmp_text = NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        /* libpng's fwrite-based writer reports a short write as "Write Error"; errno says why. */
        int saved = ferror(file) ? errno : 0;
        free(rows);
        free(xmp_text);
        if (png) png_destroy_write_struct(&png, info ? &info : NULL);
        fclose(file);
        if (error_size > 0 && error[0] == 0) snprintf(error, error_size, "out of memory");
        return saved > 0 ? saved : -1;
    }
    png_init_io(png, file);
    png_set_compression_level(png, compression_level);
    png_set_IHDR(png, info, width, height, bit_depth,
                 channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc && icc_size > 0) {
        /* libpng refuses a handful of widespread sRGB profiles as "known incorrect" (the 3,144-byte
         * HP "sRGB IEC61966-2.1" among them), and makes other profile complaints errors on write:
         * the profile is written as it came, and a complaint stays a warning. */
#ifdef PNG_SKIP_sRGB_CHECK_PROFILE
        png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
        png_set_benign_errors(png, 1);
        png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    }
#ifdef PNG_eXIf_SUPPORTED
    if (exif && exif_size > 0) png_set_eXIf_1(png, info, (png_uint_32)exif_size, (png_bytep)exif);
#endif
    if (xmp && xmp_size > 0) {
        // png_text wants NUL-terminated text: copy the packet with a terminator.
        xmp_text = malloc(xmp_size + 1);
        if (!xmp_text) png_error(png, "out of memory");
        memcpy(xmp_text, xmp, xmp_size);
        xmp_text[xmp_size] = 0;
        png_text text;
        memset(&text, 0, sizeof(text));
        text.compression = PNG_ITXT_COMPRESSION_NONE;
        text.key = (png_charp)xmp_keyword;
        text.text = xmp_text;
        text.lang = (png_charp)"";
        text.lang_key = (png_charp)"";
        png_set_text(png, info, &text, 1);  // copies the text
        free(xmp_text);
        xmp_text = NULL;
    }
    png_write_info(png, info);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bit_depth == 16) png_set_swap(png);
#endif
    size_t row_bytes = (size_t)width * channels * (bit_depth / 8);
    rows = malloc(sizeof(png_bytep) * height);
    if (!rows) png_error(png, "out of memory");
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + row_bytes * y);
    png_write_image(png, rows);
    // The source's text chunks go after the image data; png_set_text copies each. One libpng will
    // not write (a keyword it calls invalid) is left out with a warning, not a failed output.
    if (texts && texts_size > 0) png_set_benign_errors(png, 1);
    for (size_t at = 0; texts && at < texts_size;) {
        const char *parts[4] = {NULL, NULL, NULL, NULL};
        int compression = (int)texts[at++] - 1;
        for (int part = 0; part < 4; part++) {
            const uint8_t *end = at < texts_size ? memchr(texts + at, 0, texts_size - at) : NULL;
            if (!end) png_error(png, "malformed text list");
            parts[part] = (const char *)texts + at;
            at = (size_t)(end - texts) + 1;
        }
        png_text text;
        memset(&text, 0, sizeof(text));
        text.compression = compression;
        text.key = (png_charp)parts[0];
        text.lang = (png_charp)parts[1];
        text.lang_key = (png_charp)parts[2];
        text.text = (png_charp)parts[3];
        png_set_text(png, info, &text, 1);
    }
    png_write_end(png, info);
    free(rows);
    png_destroy_write_struct(&png, &info);
    if (fflush(file) != 0 || ferror(file)) {
        int saved = errno;
        fclose(file);
        snprintf(error, error_size, "writing the PNG failed");
        return saved > 0 ? saved : -1;
    }
    if (fclose(file) != 0) {
        int saved = errno;
        snprintf(error, error_size, "closing the PNG failed");
        return saved > 0 ? saved : -1;
    }
    return 0;
}
