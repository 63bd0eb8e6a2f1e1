import ConvertCore
internal import FFmpegLayer

/// What this machine's FFmpeg can do for video, detected at run time.
public struct VideoCapabilities: Sendable, Equatable {
    /// One encoder offconvert can use.
    public struct Encoder: Sendable, Equatable {
        /// FFmpeg's encoder name (`libx264`, `h264_vaapi`).
        public var name: String
        /// The codec it makes (`h264`, `hevc`, `aac`).
        public var codec: String
        /// Whether it runs on a GPU or media engine.
        public var isHardware: Bool
        /// Whether it is built in and, for hardware, its device could be opened.
        public var isUsable: Bool
    }

    /// Software and hardware encoders, usable or not.
    public var encoders: [Encoder]
    /// Whether HDR can be tone mapped (libavfilter has zscale and tonemap).
    public var canToneMap: Bool
}

extension VideoConverter {
    /// Software encoders the engine uses, then the hardware ones it could.
    static let knownEncoders: [(name: String, codec: String, device: FFmpeg.HardwareDevice?)] = [
        ("libx264", "h264", nil), ("libx265", "hevc", nil), ("libvpx-vp9", "vp9", nil), ("libsvtav1", "av1", nil),
        ("aac", "aac", nil), ("libopus", "opus", nil), ("libmp3lame", "mp3", nil), ("flac", "flac", nil),
        ("gif", "gif", nil),
        ("h264_vaapi", "h264", .vaapi), ("hevc_vaapi", "hevc", .vaapi),
        ("av1_vaapi", "av1", .vaapi),
        ("h264_nvenc", "h264", .cuda), ("hevc_nvenc", "hevc", .cuda),
    ]

    /// Detects the encoders and filters available here. Hardware encoders count as usable only
    /// when their device (a VAAPI render node, a CUDA GPU) really opens; nothing is encoded.
    public static func capabilities() -> VideoCapabilities {
        FFmpegLogging.configure()
        var devices: [FFmpeg.HardwareDevice: Bool] = [:]
        func deviceOpens(_ device: FFmpeg.HardwareDevice) -> Bool {
            if let known = devices[device] { return known }
            let opened = device.opens
            devices[device] = opened
            return opened
        }
        let encoders = knownEncoders.map { known in
            let built = FFmpeg.hasEncoder(named: known.name)
            let usable = built && (known.device.map(deviceOpens) ?? true)
            return VideoCapabilities.Encoder(
                name: known.name, codec: known.codec, isHardware: known.device != nil,
                isUsable: usable)
        }
        let canToneMap = FFmpeg.hasFilter(named: "zscale") && FFmpeg.hasFilter(named: "tonemap")
        return VideoCapabilities(encoders: encoders, canToneMap: canToneMap)
    }
}
