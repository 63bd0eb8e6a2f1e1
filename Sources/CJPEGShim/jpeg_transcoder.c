#include "jpeg_transcoder.h"
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jpeglib.h>
#include <jerror.h>

enum {
    input_bytes = 64 * 1024,
    output_bytes = 256 * 1024,
    luma_rows = 16,   // one 4:2:0 MCU row
    chroma_rows = 8,
};

typedef enum { mode_none, mode_raw_band, mode_raw_whole, mode_scanlines } transcode_mode;

// One component's samples: a band of MCU rows or the whole (padded) plane.
typedef struct {
    JSAMPLE *samples;
    size_t stride;      // bytes a row
    size_t rows;        // rows held
    JSAMPROW *row_pointers;
    size_t width;       // visible samples a row (the picture's, not the blocks')
    size_t height;      // visible rows of the whole plane
} plane;

struct offc_jpeg_transcoder {
    struct jpeg_decompress_struct in;
    struct jpeg_compress_struct out;
    struct jpeg_error_mgr errors;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int broken;

    struct jpeg_source_mgr source;
    int input_fd;
    unsigned char *input_buffer;
    struct jpeg_destination_mgr destination;
    int output_fd;
    unsigned char *output_buffer;
    int read_errno;
    int write_errno;

    int strict;
    offc_jpeg_damage damage;

    transcode_mode mode;
    int orientation;
    int in_created, out_created, started, finished;
    plane source_planes[3];   // the decoder's band, or its whole planes
    plane band[3];            // an output band gathered turned from whole planes
    uint32_t rows_written;    // output luma rows handed to the encoder
};

// MARK: errors

static void on_error(j_common_ptr cinfo) {
    offc_jpeg_transcoder *t = cinfo->client_data;
    (*cinfo->err->format_message)(cinfo, t->message);
    longjmp(t->jump, 1);
}

// Warnings (level -1) are damage the decoder repaired: counted, and fatal when strict. Trace
// messages (level >= 0) are ignored.
static void on_message(j_common_ptr cinfo, int level) {
    offc_jpeg_transcoder *t = cinfo->client_data;
    if (level >= 0 || !cinfo->is_decompressor) return;
    t->damage.warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF && !t->damage.ended_early) {
        t->damage.ended_early = 1;
        t->damage.rows_before_end = t->in.output_scanline;
    }
    if (t->strict) on_error(cinfo);
}

static void fail(offc_jpeg_transcoder *t, const char *message) {
    snprintf(t->message, sizeof t->message, "%s", message);
}

static void report(const offc_jpeg_transcoder *t, char *error, size_t error_size) {
    if (error_size > 0) snprintf(error, error_size, "%s", t->message);
}

// MARK: input, read sequentially from the descriptor

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    offc_jpeg_transcoder *t = cinfo->client_data;
    ssize_t got;
    do {
        got = read(t->input_fd, t->input_buffer, input_bytes);
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
        t->read_errno = errno;
        ERREXIT(cinfo, JERR_FILE_READ);
    }
    if (got == 0) {
        // As jpeg_stdio_src does: a file cut short ends with an EOI of our own, and a warning.
        WARNMS(cinfo, JWRN_JPEG_EOF);
        t->input_buffer[0] = 0xFF;
        t->input_buffer[1] = JPEG_EOI;
        got = 2;
    }
    t->source.next_input_byte = t->input_buffer;
    t->source.bytes_in_buffer = (size_t)got;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    offc_jpeg_transcoder *t = cinfo->client_data;
    if (count <= 0) return;
    while ((size_t)count > t->source.bytes_in_buffer) {
        count -= (long)t->source.bytes_in_buffer;
        source_fill(cinfo);
    }
    t->source.next_input_byte += count;
    t->source.bytes_in_buffer -= (size_t)count;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

// MARK: output, written to the descriptor

static int write_all(offc_jpeg_transcoder *t, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t wrote = write(t->output_fd, bytes, count);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            t->write_errno = errno;
            return -1;
        }
        bytes += wrote;
        count -= (size_t)wrote;
    }
    return 0;
}

static void destination_init(j_compress_ptr cinfo) {
    offc_jpeg_transcoder *t = cinfo->client_data;
    t->destination.next_output_byte = t->output_buffer;
    t->destination.free_in_buffer = output_bytes;
}

static boolean destination_empty(j_compress_ptr cinfo) {
    offc_jpeg_transcoder *t = cinfo->client_data;
    if (write_all(t, t->output_buffer, output_bytes) != 0) ERREXIT(cinfo, JERR_FILE_WRITE);
    destination_init(cinfo);
    return TRUE;
}

static void destination_term(j_compress_ptr cinfo) {
    offc_jpeg_transcoder *t = cinfo->client_data;
    if (write_all(t, t->output_buffer, output_bytes - t->destination.free_in_buffer) != 0) ERREXIT(cinfo, JERR_FILE_WRITE);
}

// MARK: open

offc_jpeg_transcoder *offc_jpeg_transcoder_open(int input_fd, int strict, offc_jpeg_source_info *info, char *error,
                                                size_t error_size) {
    offc_jpeg_transcoder *t = calloc(1, sizeof *t);
    if (t == NULL) {
        if (error_size > 0) snprintf(error, error_size, "out of memory");
        return NULL;
    }
    t->input_fd = input_fd;
    t->output_fd = -1;
    t->strict = strict;
    t->in.err = jpeg_std_error(&t->errors);
    t->errors.error_exit = on_error;
    t->errors.emit_message = on_message;
    t->in.client_data = t;
    t->input_buffer = malloc(input_bytes);
    if (t->input_buffer == NULL) {
        if (error_size > 0) snprintf(error, error_size, "out of memory");
        offc_jpeg_transcoder_free(t);
        return NULL;
    }
    if (setjmp(t->jump)) {
        report(t, error, error_size);
        offc_jpeg_transcoder_free(t);
        return NULL;
    }
    jpeg_create_decompress(&t->in);
    t->in_created = 1;
    t->source.init_source = source_init;
    t->source.fill_input_buffer = source_fill;
    t->source.skip_input_data = source_skip;
    t->source.resync_to_restart = jpeg_resync_to_restart;
    t->source.term_source = source_term;
    t->in.src = &t->source;
    jpeg_read_header(&t->in, TRUE);
    memset(info, 0, sizeof *info);
    info->width = t->in.image_width;
    info->height = t->in.image_height;
    info->components = t->in.num_components;
    info->ycbcr = t->in.jpeg_color_space == JCS_YCbCr;
    info->progressive = t->in.progressive_mode;
    info->precision = t->in.data_precision;
    for (int c = 0; c < t->in.num_components && c < 4; c++) {
        info->h_samp[c] = t->in.comp_info[c].h_samp_factor;
        info->v_samp[c] = t->in.comp_info[c].v_samp_factor;
    }
    return t;
}

// MARK: buffers

// Allocates `rows` rows of `stride` samples and their row pointers; 0, or -1 on overflow or no memory.
static int plane_allocate(plane *p, size_t stride, size_t rows) {
    if (stride == 0 || rows == 0 || rows > SIZE_MAX / stride) return -1;
    p->samples = malloc(stride * rows);
    p->row_pointers = malloc(rows * sizeof(JSAMPROW));
    if (p->samples == NULL || p->row_pointers == NULL) return -1;
    p->stride = stride;
    p->rows = rows;
    for (size_t row = 0; row < rows; row++) p->row_pointers[row] = p->samples + row * stride;
    return 0;
}

static void plane_free(plane *p) {
    free(p->samples);
    free(p->row_pointers);
    memset(p, 0, sizeof *p);
}

static int is_420(const struct jpeg_decompress_struct *in) {
    return in->comp_info[0].h_samp_factor == 2 && in->comp_info[0].v_samp_factor == 2
        && in->comp_info[1].h_samp_factor == 1 && in->comp_info[1].v_samp_factor == 1
        && in->comp_info[2].h_samp_factor == 1 && in->comp_info[2].v_samp_factor == 1;
}

// Whether a turned picture can be gathered from the source's planes: luma at the highest
// sampling, each chroma component at the same or half of it in each direction (4:2:0, 4:2:2,
// 4:4:0, 4:4:4).
static int is_turnable(const struct jpeg_decompress_struct *in) {
    int h = in->comp_info[0].h_samp_factor, v = in->comp_info[0].v_samp_factor;
    if (h != in->max_h_samp_factor || v != in->max_v_samp_factor || h > 2 || v > 2) return 0;
    for (int c = 1; c < 3; c++) {
        int ch = in->comp_info[c].h_samp_factor, cv = in->comp_info[c].v_samp_factor;
        if (ch != 1 && ch != h) return 0;
        if (cv != 1 && cv != v) return 0;
    }
    return 1;
}

// The buffers of the chosen mode, once both sides have started (their block widths are known).
static int allocate_buffers(offc_jpeg_transcoder *t) {
    for (int c = 0; c < 3; c++) {
        size_t in_stride = (size_t)t->in.comp_info[c].width_in_blocks * DCTSIZE;
        size_t out_stride = (size_t)t->out.comp_info[c].width_in_blocks * DCTSIZE;
        size_t band_rows = c == 0 ? luma_rows : chroma_rows;
        plane *source = &t->source_planes[c];
        source->width = c == 0 ? t->in.image_width : (t->in.image_width + 1) / 2;
        source->height = c == 0 ? t->in.image_height : (t->in.image_height + 1) / 2;
        switch (t->mode) {
        case mode_raw_band:
            // The same sampling and size on both sides: the decoder's band is the encoder's.
            if (in_stride != out_stride || plane_allocate(source, in_stride, band_rows) != 0) return -1;
            break;
        case mode_raw_whole:
            // Each component's rows at its own sampling: v_samp_factor block rows an MCU row.
            source->width = ((size_t)t->in.image_width * t->in.comp_info[c].h_samp_factor + t->in.max_h_samp_factor - 1)
                / t->in.max_h_samp_factor;
            source->height = ((size_t)t->in.image_height * t->in.comp_info[c].v_samp_factor + t->in.max_v_samp_factor - 1)
                / t->in.max_v_samp_factor;
            if (plane_allocate(source, in_stride, (size_t)t->in.total_iMCU_rows * t->in.comp_info[c].v_samp_factor * DCTSIZE) != 0)
                return -1;
            if (plane_allocate(&t->band[c], out_stride, band_rows) != 0) return -1;
            t->band[c].width = c == 0 ? t->out.image_width : (t->out.image_width + 1) / 2;
            t->band[c].height = c == 0 ? t->out.image_height : (t->out.image_height + 1) / 2;
            break;
        case mode_scanlines:
            if (c == 0) {
                size_t width = (size_t)t->in.output_width;
                if (width > SIZE_MAX / 3 || plane_allocate(source, width * 3, luma_rows) != 0) return -1;
            }
            break;
        case mode_none:
            return -1;
        }
    }
    return 0;
}

// Writes the APP segments in `segments` (FF En, big-endian length, payload) with jpeg_write_marker,
// each checked against the bytes there are; -1 when they do not parse.
static int write_segments(offc_jpeg_transcoder *t, const uint8_t *segments, size_t length) {
    size_t at = 0;
    while (at < length) {
        if (length - at < 4 || segments[at] != 0xFF || segments[at + 1] < 0xE0 || segments[at + 1] > 0xEF) return -1;
        size_t size = (size_t)segments[at + 2] << 8 | segments[at + 3];
        if (size < 2 || size - 2 > length - at - 4) return -1;
        jpeg_write_marker(&t->out, segments[at + 1], segments + at + 4, (unsigned int)(size - 2));
        at += 2 + size;
    }
    return 0;
}

// MARK: start

static int start_decoder(offc_jpeg_transcoder *t) {
    t->in.dct_method = JDCT_ISLOW;
    if (t->mode == mode_scanlines) {
        t->in.out_color_space = JCS_YCbCr;
        t->in.do_fancy_upsampling = TRUE;
    } else {
        t->in.raw_data_out = TRUE;
    }
    jpeg_start_decompress(&t->in);
    return 0;
}

static void start_encoder(offc_jpeg_transcoder *t, int quality) {
    int transposed = t->orientation >= 5;
    jpeg_create_compress(&t->out);
    t->out_created = 1;
    t->destination.init_destination = destination_init;
    t->destination.empty_output_buffer = destination_empty;
    t->destination.term_destination = destination_term;
    t->out.dest = &t->destination;
    t->out.image_width = transposed ? t->in.image_height : t->in.image_width;
    t->out.image_height = transposed ? t->in.image_width : t->in.image_height;
    t->out.input_components = 3;
    t->out.in_color_space = JCS_YCbCr;
    jpeg_set_defaults(&t->out);
    jpeg_set_quality(&t->out, quality, TRUE);
    t->out.dct_method = JDCT_ISLOW;
    jpeg_set_colorspace(&t->out, JCS_YCbCr);
    t->out.comp_info[0].h_samp_factor = 2;
    t->out.comp_info[0].v_samp_factor = 2;
    for (int c = 1; c < 3; c++) {
        t->out.comp_info[c].h_samp_factor = 1;
        t->out.comp_info[c].v_samp_factor = 1;
    }
    t->out.raw_data_in = t->mode != mode_scanlines;
    jpeg_start_compress(&t->out, TRUE);
}

// Why the source cannot be started, or NULL.
static const char *start_refusal(const offc_jpeg_transcoder *t, int quality, int orientation) {
    if (t->broken || t->started) return "the transcoder was started or failed before";
    if (quality < 1 || quality > 100) return "quality out of range";
    if (orientation < 1 || orientation > 8) return "orientation out of range";
    if (t->in.num_components != 3 || t->in.jpeg_color_space != JCS_YCbCr) return "not a YCbCr JPEG";
    if (t->in.data_precision != 8) return "not an 8-bit JPEG";
    if (orientation != 1 && !is_turnable(&t->in)) return "a sampling this transcoder does not turn";
    return NULL;
}

int offc_jpeg_transcoder_start(offc_jpeg_transcoder *t, int output_fd, int quality, int orientation,
                               const uint8_t *segments, size_t segments_length, char *error, size_t error_size) {
    const char *refused = start_refusal(t, quality, orientation);
    if (refused != NULL) {
        fail(t, refused);
        report(t, error, error_size);
        return -1;
    }
    t->started = 1;
    if (setjmp(t->jump)) {
        t->broken = 1;
        report(t, error, error_size);
        return -1;
    }
    t->output_fd = output_fd;
    t->orientation = orientation;
    t->mode = orientation != 1 ? mode_raw_whole : is_420(&t->in) ? mode_raw_band : mode_scanlines;
    t->out.err = &t->errors;
    t->out.client_data = t;
    t->output_buffer = malloc(output_bytes);
    if (t->output_buffer == NULL) {
        fail(t, "out of memory");
        t->broken = 1;
        report(t, error, error_size);
        return -1;
    }
    start_decoder(t);
    start_encoder(t, quality);
    if (segments != NULL && write_segments(t, segments, segments_length) != 0) {
        fail(t, "malformed metadata segments");
        t->broken = 1;
        report(t, error, error_size);
        return -1;
    }
    if (allocate_buffers(t) != 0) {
        fail(t, "out of memory for the picture's bands");
        t->broken = 1;
        report(t, error, error_size);
        return -1;
    }
    return 0;
}

// MARK: turning

// Fills output band rows [first, first + band->rows) of one component from its whole source
// plane turned by `orientation` (EXIF 1 to 8): output sample (x, y) comes from the source sample
// EXIF's transform maps it from. Rows and columns past the picture repeat its last, as libjpeg
// pads an edge MCU.
static void gather(const plane *source, plane *band, size_t first, int orientation) {
    size_t out_width = band->width, out_height = band->height;
    size_t last_x = source->width - 1, last_y = source->height - 1;
    if (orientation < 5) {
        for (size_t row = 0; row < band->rows; row++) {
            size_t y = first + row < out_height ? first + row : out_height - 1;
            size_t source_y = orientation == 3 || orientation == 4 ? last_y - y : y;
            const JSAMPLE *from = source->row_pointers[source_y];
            JSAMPLE *to = band->row_pointers[row];
            if (orientation == 1 || orientation == 4) {
                memcpy(to, from, out_width);
            } else {
                for (size_t x = 0; x < out_width; x++) to[x] = from[last_x - x];
            }
            memset(to + out_width, to[out_width - 1], band->stride - out_width);
        }
        return;
    }
    // Turned a quarter: output column x is source row y (or its mirror), read along its length.
    for (size_t x = 0; x < band->stride; x++) {
        size_t column = x < out_width ? x : out_width - 1;
        size_t source_y = orientation == 5 || orientation == 8 ? column : last_y - column;
        const JSAMPLE *from = source->row_pointers[source_y];
        for (size_t row = 0; row < band->rows; row++) {
            size_t y = first + row < out_height ? first + row : out_height - 1;
            size_t source_x = orientation == 5 || orientation == 6 ? y : last_x - y;
            band->row_pointers[row][x] = from[source_x];
        }
    }
}

// The source sample (*x, *y) of a plane `width`×`height` that output sample (x, y) of the
// picture turned by `orientation` comes from.
static void source_of(int orientation, size_t x, size_t y, size_t width, size_t height, size_t *sx, size_t *sy) {
    switch (orientation) {
    case 2: *sx = width - 1 - x; *sy = y; break;
    case 3: *sx = width - 1 - x; *sy = height - 1 - y; break;
    case 4: *sx = x; *sy = height - 1 - y; break;
    case 5: *sx = y; *sy = x; break;
    case 6: *sx = y; *sy = height - 1 - x; break;
    case 7: *sx = width - 1 - y; *sy = height - 1 - x; break;
    case 8: *sx = width - 1 - y; *sy = x; break;
    default: *sx = x; *sy = y; break;
    }
}

// Fills output chroma band rows [first, first + band->rows) (4:2:0: each sample covers 2x2 output
// pixels) from a chroma plane sampled at `h_ratio`×`v_ratio` luma pixels a sample: the mean of
// the source samples under the four output pixels, each found through the turn on the luma grid
// (`luma_width`×`luma_height`, the source's).
static void gather_resampled(const plane *source, int h_ratio, int v_ratio, size_t luma_width, size_t luma_height,
                             plane *band, size_t first, int orientation) {
    int turned = orientation >= 5;
    size_t out_width = turned ? luma_height : luma_width, out_height = turned ? luma_width : luma_height;
    for (size_t row = 0; row < band->rows; row++) {
        size_t y0 = 2 * (first + row), y1 = y0 + 1;
        if (y0 >= out_height) y0 = out_height - 1;
        if (y1 >= out_height) y1 = out_height - 1;
        JSAMPLE *to = band->row_pointers[row];
        for (size_t x = 0; x < band->stride; x++) {
            size_t x0 = 2 * x, x1 = x0 + 1;
            if (x0 >= out_width) x0 = out_width - 1;
            if (x1 >= out_width) x1 = out_width - 1;
            const size_t xs[4] = {x0, x1, x0, x1}, ys[4] = {y0, y0, y1, y1};
            unsigned sum = 0;
            for (int k = 0; k < 4; k++) {
                size_t sx, sy;
                source_of(orientation, xs[k], ys[k], luma_width, luma_height, &sx, &sy);
                sum += source->row_pointers[sy / (size_t)v_ratio][sx / (size_t)h_ratio];
            }
            to[x] = (JSAMPLE)((sum + 2) / 4);
        }
    }
}

// MARK: steps

static double share(uint32_t done, uint32_t total) { return total == 0 ? 1 : (double)done / total; }

static void step_raw_band(offc_jpeg_transcoder *t, double *progress) {
    JSAMPARRAY planes[3] = {t->source_planes[0].row_pointers, t->source_planes[1].row_pointers,
                            t->source_planes[2].row_pointers};
    jpeg_read_raw_data(&t->in, planes, luma_rows);
    jpeg_write_raw_data(&t->out, planes, luma_rows);
    t->rows_written += luma_rows;
    *progress = share(t->out.next_scanline, t->out.image_height);
}

static void step_raw_whole(offc_jpeg_transcoder *t, double *progress) {
    uint32_t total = t->in.output_height + t->out.image_height;
    if (t->in.output_scanline < t->in.output_height) {
        // Decoding: the next MCU row goes to its place in the whole planes, each component's
        // rows at its own vertical sampling.
        size_t row = t->in.output_scanline, max_v = (size_t)t->in.max_v_samp_factor;
        JSAMPARRAY planes[3];
        for (int c = 0; c < 3; c++) {
            planes[c] = t->source_planes[c].row_pointers + row * (size_t)t->in.comp_info[c].v_samp_factor / max_v;
        }
        jpeg_read_raw_data(&t->in, planes, (JDIMENSION)(max_v * DCTSIZE));
        *progress = share(t->in.output_scanline, total);
        return;
    }
    gather(&t->source_planes[0], &t->band[0], t->rows_written, t->orientation);
    for (int c = 1; c < 3; c++) {
        if (is_420(&t->in)) {
            gather(&t->source_planes[c], &t->band[c], t->rows_written / 2, t->orientation);
        } else {
            int h_ratio = t->in.max_h_samp_factor / t->in.comp_info[c].h_samp_factor;
            int v_ratio = t->in.max_v_samp_factor / t->in.comp_info[c].v_samp_factor;
            gather_resampled(&t->source_planes[c], h_ratio, v_ratio, t->in.image_width, t->in.image_height, &t->band[c],
                             t->rows_written / 2, t->orientation);
        }
    }
    JSAMPARRAY planes[3] = {t->band[0].row_pointers, t->band[1].row_pointers, t->band[2].row_pointers};
    jpeg_write_raw_data(&t->out, planes, luma_rows);
    t->rows_written += luma_rows;
    *progress = share(t->in.output_height + t->out.next_scanline, total);
}

static void step_scanlines(offc_jpeg_transcoder *t, double *progress) {
    JSAMPARRAY rows = t->source_planes[0].row_pointers;
    JDIMENSION have = 0;
    while (have < luma_rows && t->in.output_scanline < t->in.output_height) {
        have += jpeg_read_scanlines(&t->in, rows + have, luma_rows - have);
    }
    jpeg_write_scanlines(&t->out, rows, have);
    t->rows_written += have;
    *progress = share(t->out.next_scanline, t->out.image_height);
}

int offc_jpeg_transcoder_step(offc_jpeg_transcoder *t, double *progress, char *error, size_t error_size) {
    *progress = t->finished ? 1 : 0;
    if (t->finished) return 1;
    if (t->broken || !t->started) {
        fail(t, t->broken ? "the transcoder failed before" : "the transcoder was not started");
        report(t, error, error_size);
        return -1;
    }
    if (setjmp(t->jump)) {
        t->broken = 1;
        report(t, error, error_size);
        return -1;
    }
    switch (t->mode) {
    case mode_raw_band: step_raw_band(t, progress); break;
    case mode_raw_whole: step_raw_whole(t, progress); break;
    case mode_scanlines: step_scanlines(t, progress); break;
    case mode_none: break;
    }
    if (t->out.next_scanline < t->out.image_height) return 0;
    // Reads to the EOI (a warning there counts too), then flushes the output.
    jpeg_finish_decompress(&t->in);
    jpeg_finish_compress(&t->out);
    t->finished = 1;
    *progress = 1;
    return 1;
}

void offc_jpeg_transcoder_damage(const offc_jpeg_transcoder *t, offc_jpeg_damage *damage) { *damage = t->damage; }

int offc_jpeg_transcoder_errno(const offc_jpeg_transcoder *t, int writing) { return writing ? t->write_errno : t->read_errno; }

void offc_jpeg_transcoder_free(offc_jpeg_transcoder *t) {
    if (t == NULL) return;
    if (t->out_created) jpeg_destroy_compress(&t->out);
    if (t->in_created) jpeg_destroy_decompress(&t->in);
    for (int c = 0; c < 3; c++) {
        plane_free(&t->source_planes[c]);
        plane_free(&t->band[c]);
    }
    free(t->input_buffer);
    free(t->output_buffer);
    free(t);
}
