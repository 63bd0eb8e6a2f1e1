internal import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// The one place FFmpeg's logging is configured, once per process.
///
/// FFmpeg logs to stderr by default, and a library must not write there: errors reach the caller
/// as ``ConvertError``s instead. Setting `OFFCONVERT_FFMPEG_LOG` (to anything) leaves FFmpeg's own
/// log on, for debugging. x265 is quietened through its `log-level` option; SVT-AV1 reads
/// `SVT_LOG` from the environment, which only an executable may set, at its start (ConvertMedia's
/// `EncoderLogging`, which names no FFmpeg): the library never changes the environment.
package enum FFmpegLogging {
    private static let configured: Void = {
        if getenv("OFFCONVERT_FFMPEG_LOG") == nil { av_log_set_level(AV_LOG_QUIET) }
    }()

    /// Configures FFmpeg's logging; every entry point that opens FFmpeg calls it first.
    package static func configure() { configured }
}
