#include <lcms2.h>

// lcms2's pixel-format constants (TYPE_RGB_8, ...) are built from function-like macros
// (COLORSPACE_SH, CHANNELS_SH, ...), which Swift cannot import; these return them.

/// TYPE_RGB_8: interleaved 8-bit RGB.
static inline cmsUInt32Number offc_lcms_type_rgb_8(void) { return TYPE_RGB_8; }
/// TYPE_RGBA_8: interleaved 8-bit RGBA (alpha passed through with cmsFLAGS_COPY_ALPHA).
static inline cmsUInt32Number offc_lcms_type_rgba_8(void) { return TYPE_RGBA_8; }
/// TYPE_RGB_16: interleaved 16-bit RGB in native byte order.
static inline cmsUInt32Number offc_lcms_type_rgb_16(void) { return TYPE_RGB_16; }
/// TYPE_RGBA_16: interleaved 16-bit RGBA in native byte order.
static inline cmsUInt32Number offc_lcms_type_rgba_16(void) { return TYPE_RGBA_16; }
/// TYPE_CMYK_8: interleaved 8-bit C, M, Y, K, 0 = no ink (as TIFF stores it).
static inline cmsUInt32Number offc_lcms_type_cmyk_8(void) { return TYPE_CMYK_8; }
/// TYPE_CMYK_16: interleaved 16-bit CMYK in native byte order, 0 no ink.
static inline cmsUInt32Number offc_lcms_type_cmyk_16(void) { return TYPE_CMYK_16; }
/// TYPE_RGB_FLT: interleaved 32-bit float RGB (unbounded: linear light past 1 is kept).
static inline cmsUInt32Number offc_lcms_type_rgb_flt(void) { return TYPE_RGB_FLT; }
/// TYPE_RGBA_FLT: interleaved 32-bit float RGBA.
static inline cmsUInt32Number offc_lcms_type_rgba_flt(void) { return TYPE_RGBA_FLT; }
