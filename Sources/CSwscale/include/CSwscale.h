#ifndef OFFCONVERT_CSWSCALE_H
#define OFFCONVERT_CSWSCALE_H
#include <libswscale/swscale.h>
#include <libavutil/pixfmt.h>

// libswscale (and the libavutil it needs, with libva, libvdpau, X11 and OpenCL behind it) is
// loaded with dlopen on first use instead of being linked: linked, they cost every photo command
// about 3 ms and 1.5 MB at start-up, and only a resize needs them. The headers give the types and
// constants; the functions come from offc_swscale_open, from the library these headers describe.

#pragma clang assume_nonnull begin

#define OFFC_SWSCALE_FUNCTIONS(F) F(sws_getContext) F(sws_scale) F(sws_freeContext)

#define OFFC_SWSCALE_FIELD(name) __typeof__(&name) name;

/// The functions of one loaded libswscale.
typedef struct {
    OFFC_SWSCALE_FUNCTIONS(OFFC_SWSCALE_FIELD)
} offc_swscale_api;

/// The soname these headers describe, e.g. "libswscale.so.6".
extern const char *const offc_swscale_soname;

/// Opens `libswscale` (a soname or path) and fills `api`. Returns 0, or -1 when the library or one
/// of its functions is missing, with `api` untouched. The library stays loaded for the rest of the
/// process.
int offc_swscale_open(const char *libswscale, offc_swscale_api *api);

#pragma clang assume_nonnull end

#endif
