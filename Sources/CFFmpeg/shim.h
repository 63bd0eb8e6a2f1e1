#ifndef OFFCONVERT_CFFMPEG_SHIM_H
#define OFFCONVERT_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/audio_fifo.h>
#include <dlfcn.h>

// Swift cannot import function-like macros; these wrappers give the few we need a callable name.

/// AVERROR(e): FFmpeg's negative error code for a POSIX errno value.
static inline int offc_averror(int e) { return AVERROR(e); }
/// AVERROR_EOF, built with MKTAG, which Swift cannot import.
static inline int offc_averror_eof(void) { return AVERROR_EOF; }
/// AV_NOPTS_VALUE is a cast expression macro that Swift imports poorly.
static inline int64_t offc_nopts_value(void) { return AV_NOPTS_VALUE; }
/// AV_TIME_BASE_Q is a compound literal.
static inline AVRational offc_time_base_q(void) { return (AVRational){1, AV_TIME_BASE}; }
/// AVERROR_INVALIDDATA and friends are FFERRTAG macros.
static inline int offc_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int offc_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int offc_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int offc_averror_exit(void) { return AVERROR_EXIT; }
static inline int offc_averror_patchwelcome(void) { return AVERROR_PATCHWELCOME; }

// libavfilter is not linked (the module map leaves it out) but opened with dlopen when the first
// filter graph is built: it alone brings about 40 of the video engine's libraries (libplacebo with
// Vulkan and libepoxy, pocketsphinx with LAPACK, flite with ALSA, rubberband, lilv, ...), whose
// loading and symbol lookups cost every video command about 30 ms of start-up, while only a
// re-encode, a GIF or an audio conversion filters anything (a stream copy never does). Its
// headers stay in this module, which owns every FFmpeg type; the functions come from the table
// below. The loader is a static inline function here rather than a C target of its own: a second
// module including FFmpeg's headers would own a second copy of their types and constants.

/// Every libavfilter function offconvert calls.
#define OFFC_AVFILTER_FUNCTIONS(F) \
    F(avfilter_get_by_name) F(avfilter_graph_alloc) F(avfilter_graph_free) F(avfilter_graph_create_filter) \
    F(avfilter_graph_parse_ptr) F(avfilter_graph_config) F(avfilter_inout_alloc) F(avfilter_inout_free) \
    F(av_buffersrc_add_frame_flags) F(av_buffersink_get_frame) F(av_buffersink_set_frame_size) \
    F(av_buffersink_get_time_base) F(av_buffersink_get_w) F(av_buffersink_get_h) F(av_buffersink_get_format) \
    F(av_buffersink_get_frame_rate) F(av_buffersink_get_sample_aspect_ratio)

#define OFFC_AVFILTER_FIELD(name) __typeof__(&name) _Nonnull name;

/// The functions of the loaded libavfilter, each with its own name and C type.
typedef struct {
    OFFC_AVFILTER_FUNCTIONS(OFFC_AVFILTER_FIELD)
} offc_avfilter_api;

#define OFFC_STRING(x) #x
#define OFFC_AVFILTER_SONAME(major) "libavfilter.so." OFFC_STRING(major)

/// The soname these headers describe, e.g. "libavfilter.so.8".
static inline const char *_Nonnull offc_avfilter_soname(void) {
    return OFFC_AVFILTER_SONAME(LIBAVFILTER_VERSION_MAJOR);
}

#define OFFC_AVFILTER_LOOKUP(name) \
    if ((loaded.name = (__typeof__(&name))dlsym(library, #name)) == NULL) { dlclose(library); return -1; }

/// Opens `libavfilter` (a soname or path) and fills `api`. Returns 0, or -1 when the library or
/// one of its functions is missing, with `api` untouched. The library stays loaded for the rest of
/// the process. RTLD_LAZY binds its calls on first use, as a linked library's are; RTLD_LOCAL
/// because nothing else resolves against it (the libavutil, libavcodec and libavformat it needs
/// are the ones already loaded).
static inline int offc_avfilter_open(const char *_Nonnull libavfilter, offc_avfilter_api *_Nonnull api) {
    void *library = dlopen(libavfilter, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) return -1;
    offc_avfilter_api loaded;
    OFFC_AVFILTER_FUNCTIONS(OFFC_AVFILTER_LOOKUP)
    *api = loaded;
    return 0;
}
#endif
