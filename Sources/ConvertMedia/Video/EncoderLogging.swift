#if canImport(Glibc)
    import Glibc
#endif

/// What an executable with the video engine sets in its own environment at start, so encoders
/// that log by themselves stay quiet.
///
/// SVT-AV1 writes to stderr unless `SVT_LOG` says otherwise, and reads it from the environment,
/// which only an executable may change, before it starts a thread: the library never does.
/// FFmpeg's own log is set by the FFmpeg layer (`FFmpegLogging`); `OFFCONVERT_FFMPEG_LOG` (set to
/// anything) leaves both on, for debugging.
package enum EncoderLogging {
    /// Quietens encoders that log by themselves (SVT-AV1), unless the user chose otherwise.
    /// Changes the process environment: call it from an executable's start, before any thread.
    package static func quietThroughEnvironment() {
        if getenv("OFFCONVERT_FFMPEG_LOG") == nil { setenv("SVT_LOG", "1", 0) }
    }
}
