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
#endif
