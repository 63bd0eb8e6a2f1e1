#ifndef OFFCONVERT_CTIFFSHIM_H
#define OFFCONVERT_CTIFFSHIM_H
#include <stddef.h>
#include <stdint.h>

// libtiff reports errors and warnings through printf-style handlers that take a va_list, which
// Swift cannot implement, and by default prints them to stderr. Every libtiff call offconvert
// makes goes through these wrappers: the handlers collect the message into the reader instead,
// reads come from a bounded in-memory buffer, and every buffer libtiff fills is checked against
// the size the caller gives. Swift sees no libtiff type.

/// An open TIFF read from memory, with the error libtiff last reported. The bytes it reads
/// from must outlive it. Close with offc_tiff_close.
typedef struct offc_tiff offc_tiff;

/// Alpha of a page's first extra sample.
enum {
    OFFC_TIFF_ALPHA_NONE = 0,
    OFFC_TIFF_ALPHA_ASSOCIATED = 1,    // premultiplied
    OFFC_TIFF_ALPHA_UNASSOCIATED = 2,  // straight
};

/// What one page (image directory) says. `icc` and `xmp` point into libtiff's directory: copy
/// them before selecting another page or closing.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint16_t bits_per_sample;
    uint16_t samples_per_pixel;
    uint16_t photometric;      // PHOTOMETRIC_* (0 min-is-white, 1 min-is-black, 2 RGB, 3 palette, 5 separated, 6 YCbCr...)
    uint16_t planar_config;    // 1 contiguous, 2 separate planes
    uint16_t sample_format;    // 1 unsigned integer, 2 signed, 3 IEEE float
    uint16_t orientation;      // 1...8, 1 when absent
    uint16_t ink_set;          // 1 CMYK (the default), 2 not CMYK
    uint16_t alpha;            // OFFC_TIFF_ALPHA_*
    int tiled;
    const uint8_t *icc;
    uint32_t icc_size;
    const uint8_t *xmp;
    uint32_t xmp_size;
} offc_tiff_page;

/// Opens the TIFF (or BigTIFF) in `data`. `max_alloc` bounds any one allocation libtiff makes
/// (0: libtiff's default). Returns NULL with `error` filled when the header or the first
/// directory cannot be read.
offc_tiff *offc_tiff_open(const uint8_t *data, size_t size, uint64_t max_alloc, char *error, size_t error_size);

/// Closes `tiff` (NULL is ignored).
void offc_tiff_close(offc_tiff *tiff);

/// The number of pages: directories that are not reduced-resolution copies (thumbnails) of
/// another, at most 4096 (a longer chain is read as that many). 0 when none can be read.
int offc_tiff_page_count(offc_tiff *tiff);

/// Makes page `index` (0-based, as counted by offc_tiff_page_count) current and describes it.
/// Returns 0, or -1 with the error available from offc_tiff_error.
int offc_tiff_select_page(offc_tiff *tiff, int index, offc_tiff_page *out);

/// The last error libtiff reported ("" when none).
const char *offc_tiff_error(const offc_tiff *tiff);

/// How many errors libtiff has reported since the last offc_tiff_select_page.
int offc_tiff_error_count(const offc_tiff *tiff);

/// Decodes the current page through libtiff's RGBA interface (any photometric, depth, layout
/// and compression libtiff reads), rows in the order stored (the page's orientation is not
/// applied), as 8-bit RGBA bytes with alpha premultiplied, as libtiff delivers it.
/// `out_size` must be at least width * height * 4. Returns 0, 1 when parts could not be read
/// (damage; what could be read is there), or -1 with the error available.
int offc_tiff_read_rgba(offc_tiff *tiff, uint8_t *out, size_t out_size);

/// Reads the current page's samples as stored: contiguous planes only, 8 or 16 bits (16-bit
/// samples in native byte order), strips or tiles, rows in the order stored. `out_size` must be
/// at least width * height * samples_per_pixel * bits / 8; blocks (strips or tiles) that cannot
/// be read are left as they were in `out` and counted in `failed_blocks`. Returns 0, or -1 with
/// the error available (a layout this reader does not handle, or no block read at all).
int offc_tiff_read_samples(offc_tiff *tiff, uint8_t *out, size_t out_size, uint32_t *failed_blocks);

#endif
