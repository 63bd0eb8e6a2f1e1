#include "CTIFFShim.h"
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

/// The most pages counted; a longer (or looping) directory chain is read as this many.
#define MAX_PAGES 4096

struct offc_tiff {
    TIFF *tif;
    const uint8_t *data;
    size_t size;
    uint64_t offset;
    int page_count;          // -1 until counted
    tdir_t pages[MAX_PAGES]; // the directory of each page
    int errors;
    char error[256];
};

/// libtiff's own handlers print to stderr; a library must not. Errors reach the per-file
/// handlers below (set through TIFFOpenOptions); these global ones stay silent for the few
/// messages libtiff raises before a file is open.
static void silence_global_handlers(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

static int on_error(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    offc_tiff *state = (offc_tiff *)user_data;
    if (state) {
        char text[192];
        vsnprintf(text, sizeof text, format, args);
        if (module && *module) {
            snprintf(state->error, sizeof state->error, "%s: %s", module, text);
        } else {
            snprintf(state->error, sizeof state->error, "%s", text);
        }
        state->errors += 1;
    }
    return 1;  // handled: no global handler runs
}

static int on_warning(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    (void)user_data;
    (void)module;
    (void)format;
    (void)args;  // unknown tags and the like: not failures, and nothing to show
    return 1;
}

// Client I/O over the caller's buffer: every read and seek is bounded by its size.
static tmsize_t read_proc(thandle_t handle, void *buffer, tmsize_t count) {
    offc_tiff *state = (offc_tiff *)handle;
    if (count <= 0 || state->offset >= state->size) return 0;
    uint64_t left = state->size - state->offset;
    uint64_t n = (uint64_t)count < left ? (uint64_t)count : left;
    memcpy(buffer, state->data + state->offset, (size_t)n);
    state->offset += n;
    return (tmsize_t)n;
}

static tmsize_t write_proc(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle;
    (void)buffer;
    (void)count;
    return -1;  // read only
}

static toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
    offc_tiff *state = (offc_tiff *)handle;
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = state->offset; break;
    case SEEK_END: base = state->size; break;
    default: return (toff_t)-1;
    }
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    // Seeking past the end is allowed (as for a file); reads there return nothing.
    state->offset = base + offset;
    return state->offset;
}

static int close_proc(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t size_proc(thandle_t handle) { return ((offc_tiff *)handle)->size; }

static int map_proc(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;  // no mapping: libtiff reads through read_proc, which bounds every read
}

static void unmap_proc(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

static void copy_error(const char *message, char *error, size_t error_size) {
    if (error && error_size > 0) snprintf(error, error_size, "%s", message);
}

offc_tiff *offc_tiff_open(const uint8_t *data, size_t size, uint64_t max_alloc, char *error, size_t error_size) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, silence_global_handlers);
    if (!data || size < 8) {
        copy_error("too short to be a TIFF", error, error_size);
        return NULL;
    }
    offc_tiff *state = calloc(1, sizeof *state);
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!state || !options) {
        free(state);
        TIFFOpenOptionsFree(options);
        copy_error("out of memory", error, error_size);
        return NULL;
    }
    state->data = data;
    state->size = size;
    state->page_count = -1;
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, state);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, state);
    if (max_alloc > 0) {
        tmsize_t limit = max_alloc > (uint64_t)INT64_MAX ? INT64_MAX : (tmsize_t)max_alloc;
        TIFFOpenOptionsSetMaxSingleMemAlloc(options, limit);
    }
    // "m": no memory mapping; "r": read only.
    state->tif = TIFFClientOpenExt(
        "TIFF", "rm", (thandle_t)state, read_proc, write_proc, seek_proc, close_proc, size_proc, map_proc,
        unmap_proc, options);
    TIFFOpenOptionsFree(options);
    if (!state->tif) {
        copy_error(state->error[0] ? state->error : "not a readable TIFF", error, error_size);
        free(state);
        return NULL;
    }
    return state;
}

void offc_tiff_close(offc_tiff *tiff) {
    if (!tiff) return;
    if (tiff->tif) TIFFClose(tiff->tif);
    free(tiff);
}

int offc_tiff_page_count(offc_tiff *tiff) {
    if (!tiff) return 0;
    if (tiff->page_count >= 0) return tiff->page_count;
    int count = 0;
    // Walk the chain with TIFFReadDirectory (libtiff 4.5 detects loops); a directory that
    // fails to read ends it.
    if (TIFFSetDirectory(tiff->tif, 0)) {
        tdir_t directory = 0;
        do {
            uint32_t subfile = 0;
            if (!TIFFGetField(tiff->tif, TIFFTAG_SUBFILETYPE, &subfile)) subfile = 0;
            if (!(subfile & FILETYPE_REDUCEDIMAGE)) tiff->pages[count++] = directory;
            directory += 1;
        } while (count < MAX_PAGES && directory < (tdir_t)-1 && TIFFReadDirectory(tiff->tif));
    }
    tiff->page_count = count;
    return count;
}

int offc_tiff_select_page(offc_tiff *tiff, int index, offc_tiff_page *out) {
    if (!tiff || !out) return -1;
    memset(out, 0, sizeof *out);
    if (index < 0 || index >= offc_tiff_page_count(tiff)) {
        snprintf(tiff->error, sizeof tiff->error, "no page %d", index + 1);
        return -1;
    }
    tiff->errors = 0;
    tiff->error[0] = 0;
    TIFF *tif = tiff->tif;
    if (!TIFFSetDirectory(tif, tiff->pages[index])) {
        if (!tiff->error[0]) snprintf(tiff->error, sizeof tiff->error, "page %d cannot be read", index + 1);
        return -1;
    }
    uint32_t width = 0, height = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)) {
        snprintf(tiff->error, sizeof tiff->error, "page %d has no size", index + 1);
        return -1;
    }
    out->width = width;
    out->height = height;
    uint16_t value = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &value);
    out->bits_per_sample = value;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &value);
    out->samples_per_pixel = value;
    out->photometric = TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &value) ? value : UINT16_MAX;
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &value);
    out->planar_config = value;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &value);
    out->sample_format = value;
    out->orientation = TIFFGetField(tif, TIFFTAG_ORIENTATION, &value) && value >= 1 && value <= 8 ? value : 1;
    out->ink_set = TIFFGetField(tif, TIFFTAG_INKSET, &value) ? value : INKSET_CMYK;
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0 && extra) {
        if (extra[0] == EXTRASAMPLE_ASSOCALPHA) out->alpha = OFFC_TIFF_ALPHA_ASSOCIATED;
        else if (extra[0] == EXTRASAMPLE_UNASSALPHA) out->alpha = OFFC_TIFF_ALPHA_UNASSOCIATED;
    }
    out->tiled = TIFFIsTiled(tif);
    uint32_t size = 0;
    void *bytes = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &size, &bytes) && bytes && size > 0) {
        out->icc = bytes;
        out->icc_size = size;
    }
    size = 0;
    bytes = NULL;
    if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &size, &bytes) && bytes && size > 0) {
        out->xmp = bytes;
        out->xmp_size = size;
    }
    return 0;
}

const char *offc_tiff_error(const offc_tiff *tiff) { return tiff ? tiff->error : ""; }

int offc_tiff_error_count(const offc_tiff *tiff) { return tiff ? tiff->errors : 0; }

int offc_tiff_read_rgba(offc_tiff *tiff, uint8_t *out, size_t out_size) {
    if (!tiff || !out) return -1;
    TIFF *tif = tiff->tif;
    uint32_t width = 0, height = 0;
    uint16_t orientation = 1;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    if (!TIFFGetField(tif, TIFFTAG_ORIENTATION, &orientation) || orientation < 1 || orientation > 8) orientation = 1;
    if (width == 0 || height == 0 || (uint64_t)width * height > out_size / 4) {
        snprintf(tiff->error, sizeof tiff->error, "the picture does not fit the buffer given");
        return -1;
    }
    char reason[1024] = {0};
    if (!TIFFRGBAImageOK(tif, reason)) {
        snprintf(tiff->error, sizeof tiff->error, "%s", reason[0] ? reason : "a layout libtiff cannot read");
        return -1;
    }
    int errors_before = tiff->errors;
    // Asking for the page's own orientation makes libtiff flip nothing: rows come in the order
    // stored, and the caller applies the orientation (all eight, where libtiff does only flips).
    // The buffer is the uint32 raster libtiff asks for (checked above: width * height words).
    if (!TIFFReadRGBAImageOriented(tif, width, height, (uint32_t *)(void *)out, orientation, 0)) {
        if (!tiff->error[0]) snprintf(tiff->error, sizeof tiff->error, "the picture cannot be decoded");
        return -1;
    }
    // ABGR packed words (R in the low byte) to RGBA bytes, in place.
    size_t count = (size_t)width * height;
    for (size_t i = 0; i < count; i++) {
        uint32_t word;
        memcpy(&word, out + i * 4, 4);
        out[i * 4] = (uint8_t)TIFFGetR(word);
        out[i * 4 + 1] = (uint8_t)TIFFGetG(word);
        out[i * 4 + 2] = (uint8_t)TIFFGetB(word);
        out[i * 4 + 3] = (uint8_t)TIFFGetA(word);
    }
    return tiff->errors > errors_before ? 1 : 0;
}

int offc_tiff_read_samples(offc_tiff *tiff, uint8_t *out, size_t out_size, uint32_t *failed_blocks) {
    if (!tiff || !out || !failed_blocks) return -1;
    *failed_blocks = 0;
    TIFF *tif = tiff->tif;
    uint32_t width = 0, height = 0;
    uint16_t bits = 0, samples = 0, planar = 0, photometric = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    if ((bits != 8 && bits != 16) || samples == 0 || planar != PLANARCONFIG_CONTIG || photometric == PHOTOMETRIC_YCBCR
        || width == 0 || height == 0) {
        snprintf(tiff->error, sizeof tiff->error, "a sample layout this reader does not handle");
        return -1;
    }
    uint64_t pixel_bytes = (uint64_t)samples * (bits / 8);
    uint64_t row_bytes = (uint64_t)width * pixel_bytes;
    if (row_bytes / pixel_bytes != width || row_bytes > (uint64_t)SIZE_MAX / height || row_bytes * height > out_size) {
        snprintf(tiff->error, sizeof tiff->error, "the picture does not fit the buffer given");
        return -1;
    }
    uint32_t blocks = 0;
    if (TIFFIsTiled(tif)) {
        uint32_t tile_width = 0, tile_height = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tile_width);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &tile_height);
        tmsize_t tile_size = TIFFTileSize(tif);
        uint64_t tile_row = (uint64_t)tile_width * pixel_bytes;
        // A tile must hold exactly its rows of samples: anything else is a layout (subsampling)
        // or damage this copy loop must not read past.
        if (tile_width == 0 || tile_height == 0 || tile_size <= 0 || tile_row / pixel_bytes != tile_width
            || tile_row > (uint64_t)INT64_MAX / tile_height || (uint64_t)tile_size != tile_row * tile_height) {
            snprintf(tiff->error, sizeof tiff->error, "tiles of an unexpected size");
            return -1;
        }
        uint8_t *buffer = _TIFFmalloc(tile_size);
        if (!buffer) {
            snprintf(tiff->error, sizeof tiff->error, "out of memory for a tile");
            return -1;
        }
        for (uint32_t y = 0; y < height; y += tile_height) {
            for (uint32_t x = 0; x < width; x += tile_width) {
                blocks += 1;
                uint32_t tile = TIFFComputeTile(tif, x, y, 0, 0);
                if (TIFFReadEncodedTile(tif, tile, buffer, tile_size) != tile_size) {
                    *failed_blocks += 1;
                    continue;
                }
                uint32_t rows = height - y < tile_height ? height - y : tile_height;
                uint32_t columns = width - x < tile_width ? width - x : tile_width;
                for (uint32_t r = 0; r < rows; r++) {
                    memcpy(out + (uint64_t)(y + r) * row_bytes + (uint64_t)x * pixel_bytes, buffer + (uint64_t)r * tile_row,
                           (size_t)((uint64_t)columns * pixel_bytes));
                }
            }
        }
        _TIFFfree(buffer);
    } else {
        uint32_t rows_per_strip = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
        if (rows_per_strip == 0 || rows_per_strip > height) rows_per_strip = height;
        tmsize_t strip_size = TIFFStripSize(tif);
        if (strip_size <= 0 || (uint64_t)strip_size < row_bytes * rows_per_strip) {
            snprintf(tiff->error, sizeof tiff->error, "strips of an unexpected size");
            return -1;
        }
        uint32_t strips = TIFFNumberOfStrips(tif);
        for (uint32_t strip = 0; strip < strips; strip++) {
            uint64_t first = (uint64_t)strip * rows_per_strip;
            if (first >= height) break;
            blocks += 1;
            uint64_t rows = height - first < rows_per_strip ? height - first : rows_per_strip;
            tmsize_t want = (tmsize_t)(rows * row_bytes);
            // Decoded straight into place: `want` bytes from row `first` are inside `out`.
            if (TIFFReadEncodedStrip(tif, strip, out + first * row_bytes, want) != want) *failed_blocks += 1;
        }
        // Rows no strip covers (a damaged strip count) are missing blocks too.
        uint64_t covered = (uint64_t)strips * rows_per_strip;
        if (covered < height) {
            uint64_t missing = (height - covered + rows_per_strip - 1) / rows_per_strip;
            blocks += (uint32_t)missing;
            *failed_blocks += (uint32_t)missing;
        }
    }
    if (blocks == 0 || *failed_blocks == blocks) {
        if (!tiff->error[0]) snprintf(tiff->error, sizeof tiff->error, "no part of the picture can be read");
        return -1;
    }
    return 0;
}
