#include "CJPEGShim.h"
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// 4:2:0: one MCU row is 16 luma rows and 8 chroma rows.
enum { luma_rows = 16, chroma_rows = 8 };

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} error_state;

struct offc_jpeg_writer {
    struct jpeg_compress_struct cinfo;  // first: the destination callbacks cast cinfo back to the writer
    error_state errors;
    // The stream, owned here and grown by the destination below. Not jpeg_mem_dest: it frees its
    // first buffer when it grows one but hands the new pointer back only in jpeg_finish_compress,
    // so a writer abandoned after a failed band freed the first buffer a second time.
    struct jpeg_destination_mgr destination;
    unsigned char *stream;
    size_t stream_capacity;
    size_t stream_size;       // bytes written, set by term_destination
    int broken;               // a libjpeg error left the compressor unusable
    // One MCU row staged, each component padded to whole blocks (width_in_blocks * 8).
    JSAMPLE *staging[3];
    JSAMPROW rows[3][luma_rows];
    size_t padded_width[3];   // width_in_blocks * 8 of each component
    size_t plane_width[3];    // samples the caller's rows hold: the even luma width, its half
    uint32_t staged;          // luma rows staged in the current MCU row
    uint32_t added;           // luma rows added so far, padding row included
    uint32_t expected;        // the even luma height: all rows the caller adds
    int started;
};

static void on_error(j_common_ptr cinfo) {
    error_state *state = (error_state *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, state->message);
    longjmp(state->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level;  // warnings and trace messages are not failures
}

enum { initial_stream_bytes = 64 * 1024 };

static void init_destination(j_compress_ptr cinfo) {
    offc_jpeg_writer *writer = (offc_jpeg_writer *)cinfo;
    if (writer->stream == NULL) {
        writer->stream = malloc(initial_stream_bytes);
        if (writer->stream == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
        writer->stream_capacity = initial_stream_bytes;
    }
    writer->destination.next_output_byte = writer->stream;
    writer->destination.free_in_buffer = writer->stream_capacity;
}

// libjpeg calls it with the whole buffer full: the stream doubles, realloc keeping what is there.
static boolean empty_output_buffer(j_compress_ptr cinfo) {
    offc_jpeg_writer *writer = (offc_jpeg_writer *)cinfo;
    size_t used = writer->stream_capacity;
    if (used > SIZE_MAX / 2) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
    unsigned char *grown = realloc(writer->stream, used * 2);
    if (grown == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
    writer->stream = grown;
    writer->stream_capacity = used * 2;
    writer->destination.next_output_byte = grown + used;
    writer->destination.free_in_buffer = used;
    return TRUE;
}

static void term_destination(j_compress_ptr cinfo) {
    offc_jpeg_writer *writer = (offc_jpeg_writer *)cinfo;
    writer->stream_size = writer->stream_capacity - writer->destination.free_in_buffer;
}

static void report(const offc_jpeg_writer *writer, char *error, size_t error_size) {
    if (error_size > 0) snprintf(error, error_size, "%s", writer->errors.message);
}

static void fail(offc_jpeg_writer *writer, const char *message) {
    snprintf(writer->errors.message, sizeof writer->errors.message, "%s", message);
}

// Writes the staged MCU row, its missing rows (after the last row the planes hold) repeated
// from the last one staged, as tjCompressFromYUVPlanes fills them.
static void write_staged(offc_jpeg_writer *writer) {
    uint32_t chroma_staged = (writer->staged + 1) / 2;
    for (int c = 0; c < 3; c++) {
        uint32_t have = c == 0 ? writer->staged : chroma_staged;
        uint32_t want = c == 0 ? luma_rows : chroma_rows;
        for (uint32_t row = have; row < want; row++) memcpy(writer->rows[c][row], writer->rows[c][have - 1], writer->padded_width[c]);
    }
    JSAMPARRAY planes[3] = {writer->rows[0], writer->rows[1], writer->rows[2]};
    jpeg_write_raw_data(&writer->cinfo, planes, luma_rows);
    writer->staged = 0;
}

// Copies one row of component `c` into staging row `row`, its end repeated to the block edge.
static void stage(offc_jpeg_writer *writer, int c, uint32_t row, const uint8_t *source) {
    JSAMPROW target = writer->rows[c][row];
    size_t have = writer->plane_width[c];
    memcpy(target, source, have);
    for (size_t x = have; x < writer->padded_width[c]; x++) target[x] = target[have - 1];
}

static int setup(offc_jpeg_writer *writer, uint32_t width, uint32_t height, int quality) {
    struct jpeg_compress_struct *cinfo = &writer->cinfo;
    writer->destination.init_destination = init_destination;
    writer->destination.empty_output_buffer = empty_output_buffer;
    writer->destination.term_destination = term_destination;
    cinfo->dest = &writer->destination;
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = 3;
    cinfo->in_color_space = JCS_YCbCr;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    cinfo->dct_method = JDCT_ISLOW;
    jpeg_set_colorspace(cinfo, JCS_YCbCr);
    cinfo->comp_info[0].h_samp_factor = 2;
    cinfo->comp_info[0].v_samp_factor = 2;
    for (int c = 1; c < 3; c++) {
        cinfo->comp_info[c].h_samp_factor = 1;
        cinfo->comp_info[c].v_samp_factor = 1;
    }
    cinfo->raw_data_in = TRUE;
    jpeg_start_compress(cinfo, TRUE);
    writer->started = 1;
    size_t even = ((size_t)width + 1) / 2 * 2;
    for (int c = 0; c < 3; c++) {
        writer->padded_width[c] = (size_t)cinfo->comp_info[c].width_in_blocks * DCTSIZE;
        writer->plane_width[c] = c == 0 ? even : even / 2;
        uint32_t count = c == 0 ? luma_rows : chroma_rows;
        writer->staging[c] = malloc(writer->padded_width[c] * count);
        if (writer->staging[c] == NULL) return -1;
        for (uint32_t row = 0; row < count; row++) writer->rows[c][row] = writer->staging[c] + row * writer->padded_width[c];
    }
    writer->expected = (height + 1) / 2 * 2;
    return 0;
}

offc_jpeg_writer *offc_jpeg_writer_start(uint32_t width, uint32_t height, int quality, char *error, size_t error_size) {
    offc_jpeg_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        if (error_size > 0) snprintf(error, error_size, "out of memory");
        return NULL;
    }
    writer->cinfo.err = jpeg_std_error(&writer->errors.manager);
    writer->errors.manager.error_exit = on_error;
    writer->errors.manager.emit_message = on_message;
    if (setjmp(writer->errors.jump)) {
        report(writer, error, error_size);
        offc_jpeg_writer_free(writer);
        return NULL;
    }
    jpeg_create_compress(&writer->cinfo);
    if (width == 0 || height == 0 || setup(writer, width, height, quality) != 0) {
        fail(writer, width == 0 || height == 0 ? "empty picture" : "out of memory");
        report(writer, error, error_size);
        offc_jpeg_writer_free(writer);
        return NULL;
    }
    return writer;
}

// Whether `rows` rows of `width` samples, `stride` apart, lie inside a plane of `length` bytes.
static int fits(size_t rows, size_t width, size_t stride, size_t length) {
    if (rows == 0) return 1;
    if (stride < width || (rows - 1) > (SIZE_MAX - width) / stride) return 0;
    return (rows - 1) * stride + width <= length;
}

// Why a band cannot be added, or NULL when it can.
static const char *refusal(const offc_jpeg_writer *writer, size_t luma_stride, size_t luma_length, size_t chroma_stride,
                           size_t chroma_length, uint32_t rows) {
    if (writer->broken) return "the stream failed before";
    if (rows % 2 != 0) return "an odd number of rows";
    if (rows > writer->expected - writer->added) return "more rows than the picture has";
    if (!fits(rows, writer->plane_width[0], luma_stride, luma_length)) return "a luma plane smaller than its rows";
    if (!fits(rows / 2, writer->plane_width[1], chroma_stride, chroma_length)) return "a chroma plane smaller than its rows";
    return NULL;
}

int offc_jpeg_writer_add(offc_jpeg_writer *writer, const uint8_t *luma, size_t luma_stride, size_t luma_length,
                         const uint8_t *cb, const uint8_t *cr, size_t chroma_stride, size_t chroma_length, uint32_t rows,
                         char *error, size_t error_size) {
    const char *refused = refusal(writer, luma_stride, luma_length, chroma_stride, chroma_length, rows);
    if (refused != NULL) {
        fail(writer, refused);
        report(writer, error, error_size);
        return -1;
    }
    if (setjmp(writer->errors.jump)) {
        writer->broken = 1;
        report(writer, error, error_size);
        return -1;
    }
    for (uint32_t row = 0; row < rows; row += 2) {
        stage(writer, 0, writer->staged, luma + row * luma_stride);
        stage(writer, 0, writer->staged + 1, luma + (row + 1) * luma_stride);
        stage(writer, 1, writer->staged / 2, cb + row / 2 * chroma_stride);
        stage(writer, 2, writer->staged / 2, cr + row / 2 * chroma_stride);
        writer->staged += 2;
        writer->added += 2;
        if (writer->staged == luma_rows) write_staged(writer);
    }
    return 0;
}

int offc_jpeg_writer_finish(offc_jpeg_writer *writer, const uint8_t **data, size_t *size, char *error, size_t error_size) {
    if (writer->broken || writer->added != writer->expected) {
        fail(writer, writer->broken ? "the stream failed before" : "the picture's rows were not all added");
        report(writer, error, error_size);
        return -1;
    }
    if (setjmp(writer->errors.jump)) {
        writer->broken = 1;
        report(writer, error, error_size);
        return -1;
    }
    if (writer->staged > 0) write_staged(writer);
    jpeg_finish_compress(&writer->cinfo);
    *data = writer->stream;
    *size = writer->stream_size;
    return 0;
}

void offc_jpeg_writer_free(offc_jpeg_writer *writer) {
    if (writer == NULL) return;
    jpeg_destroy_compress(&writer->cinfo);
    for (int c = 0; c < 3; c++) free(writer->staging[c]);
    free(writer->stream);
    free(writer);
}
