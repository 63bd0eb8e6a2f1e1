import ConvertCore
internal import FFmpegLayer

/// The output file format: which FFmpeg muxer writes it and with which options.
struct OutputFormat: Sendable, Equatable {
    /// The container, by FFmpeg's muxer; always explicit, since the staged temporary file's
    /// `.partial` name says nothing about the format.
    var muxer: ContainerFormat
    /// The file name extension.
    var fileExtension: String
    /// Muxer options.
    var options: [Option]

    /// One `key=value` option.
    struct Option: Sendable, Equatable {
        var key: String
        var value: String
    }

    /// Whether the container is MPEG-4/QuickTime (codec tags such as `hvc1` matter there).
    var isISOBMFF: Bool { muxer.isISOBMFF }

    static func video(_ container: VideoContainer) -> OutputFormat {
        switch container {
        case .mp4: return OutputFormat(muxer: .mp4, fileExtension: "mp4", options: [.faststart])
        case .mov: return OutputFormat(muxer: .mov, fileExtension: "mov", options: [.faststart])
        case .mkv: return OutputFormat(muxer: .matroska, fileExtension: "mkv", options: [])
        case .webm: return OutputFormat(muxer: .webm, fileExtension: "webm", options: [])
        }
    }

    static func audio(_ format: AudioFormat) -> OutputFormat {
        switch format {
        case .m4a: return OutputFormat(muxer: .ipod, fileExtension: "m4a", options: [.faststart])
        case .mp3: return OutputFormat(muxer: .mp3, fileExtension: "mp3", options: [])
        case .opus: return OutputFormat(muxer: .opus, fileExtension: "opus", options: [])
        case .wav: return OutputFormat(muxer: .wav, fileExtension: "wav", options: [])
        case .flac: return OutputFormat(muxer: .flac, fileExtension: "flac", options: [])
        }
    }

    static let gif = OutputFormat(muxer: .gif, fileExtension: "gif", options: [])
    /// An animated WebP that loops forever (the muxer's default plays it once).
    static let animatedWebP = OutputFormat(
        muxer: .webp, fileExtension: "webp", options: [.init(key: "loop", value: "0")])
}

extension OutputFormat.Option {
    /// MP4/MOV: move the index (moov) to the front so the file starts playing before it is fully read.
    /// ``FramePump`` does not hand it to the muxer, whose faststart reads and writes the whole file
    /// a second time: it moves the index itself once the trailer is written (``FastStart``).
    static let faststart = OutputFormat.Option(key: "movflags", value: "+faststart")
}
