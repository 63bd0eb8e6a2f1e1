internal import CFFmpeg

extension FFmpeg {
    /// A kind of hardware device FFmpeg can open for encoding (`AVHWDeviceType`).
    package enum HardwareDevice: Sendable, Hashable {
        /// A VAAPI render node (Intel and AMD GPUs).
        case vaapi
        /// An NVIDIA GPU through CUDA (NVENC).
        case cuda

        private var type: AVHWDeviceType {
            switch self {
            case .vaapi: AV_HWDEVICE_TYPE_VAAPI
            case .cuda: AV_HWDEVICE_TYPE_CUDA
            }
        }

        /// Whether a device of this kind opens on this machine (it is closed again at once).
        package var opens: Bool {
            var reference: UnsafeMutablePointer<AVBufferRef>? = nil
            let opened = av_hwdevice_ctx_create(&reference, type, nil, nil, 0) >= 0
            av_buffer_unref(&reference)
            return opened
        }
    }

    /// Whether this FFmpeg is built with the encoder FFmpeg calls `name` (`libx264`).
    package static func hasEncoder(named name: String) -> Bool { avcodec_find_encoder_by_name(name) != nil }

    /// Whether this FFmpeg's libavfilter has the filter `name` (`zscale`); false when libavfilter
    /// cannot be loaded.
    package static func hasFilter(named name: String) -> Bool {
        (try? AVFilterLibrary.functions().avfilter_get_by_name(name)) != nil
    }
}
