internal import CFFmpeg
import ConvertCore

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
    static let knownEncoders: [(name: String, codec: String, device: AVHWDeviceType?)] = [
        ("libx264", "h264", nil), ("libx265", "hevc", nil), ("libvpx-vp9", "vp9", nil), ("libsvtav1", "av1", nil),
        ("aac", "aac", nil), ("libopus", "opus", nil), ("libmp3lame", "mp3", nil), ("flac", "flac", nil),
        ("gif", "gif", nil),
        ("h264_vaapi", "h264", AV_HWDEVICE_TYPE_VAAPI), ("hevc_vaapi", "hevc", AV_HWDEVICE_TYPE_VAAPI),
        ("av1_vaapi", "av1", AV_HWDEVICE_TYPE_VAAPI),
        ("h264_nvenc", "h264", AV_HWDEVICE_TYPE_CUDA), ("hevc_nvenc", "hevc", AV_HWDEVICE_TYPE_CUDA),
    ]

    /// Detects the encoders and filters available here. Hardware encoders count as usable only
    /// when their device (a VAAPI render node, a CUDA GPU) really opens; nothing is encoded.
    public static func capabilities() -> VideoCapabilities {
        FFmpegLogging.configure()
        var devices: [AVHWDeviceType: Bool] = [:]
        func deviceOpens(_ type: AVHWDeviceType) -> Bool {
            if let known = devices[type] { return known }
            var reference: UnsafeMutablePointer<AVBufferRef>? = nil
            let opened = av_hwdevice_ctx_create(&reference, type, nil, nil, 0) >= 0
            av_buffer_unref(&reference)
            devices[type] = opened
            return opened
        }
        let encoders = knownEncoders.map { known in
            let built = avcodec_find_encoder_by_name(known.name) != nil
            let usable = built && (known.device.map(deviceOpens) ?? true)
            return VideoCapabilities.Encoder(name: known.name, codec: known.codec, isHardware: known.device != nil,
                                             isUsable: usable)
        }
        let canToneMap = avfilter_get_by_name("zscale") != nil && avfilter_get_by_name("tonemap") != nil
        return VideoCapabilities(encoders: encoders, canToneMap: canToneMap)
    }
}
