import ConvertCore

/// Everything decided before any work starts: the output format, which streams are kept and
/// whether each is copied or re-encoded. Planning fails early for known reasons (no decoder,
/// Dolby Vision without a base layer, no video) before a file is created.
struct VideoPlan: Sendable, Equatable {
    var format: OutputFormat
    /// Kept streams, video first.
    var lanes: [LanePlan]
    /// Keep container location tags.
    var keepLocation: Bool
    /// Keep container tags that identify the device or its owner.
    var keepIdentifiers = false
    /// Only packets from this time (seconds) on matter; the pump seeks there.
    var start: Double = 0
    /// Packets after this time (seconds) are not read.
    var end: Double?
    /// Facts for the job result.
    var notes: [JobNote]
    /// Packets carry no timestamps (a raw elementary stream): the pump gives each video packet
    /// a decoding time from the stream's frame rate (its VUI timing, else FFmpeg's 25 fps).
    var timesByFrameRate = false
    /// The frame rate a raw stream's reader is opened with (`--fps`), nil for its own.
    var rawFrameRate: Double?
    /// The most pixels a decoded video frame may have (see ``PixelLimit``).
    var maxPixels = PixelLimit.defaultMaxPixels
    /// Bytes appended after the muxed file, as they are: a Samsung `sefd` trailer kept with
    /// `--slow-motion keep` (see ``VideoPlanner/keptSlowMotionMarkers(_:media:format:cut:)``).
    var trailer: [UInt8]?

    /// Whether no stream is re-encoded.
    var isPassthrough: Bool { lanes.allSatisfy(\.isCopy) }

    /// Refuses a plan that would decode frames larger than ``maxPixels``, judged from the stream
    /// parameters before any decoder is opened or file created. Copied streams are never decoded,
    /// so their size does not matter.
    func checkPixels(path: String) throws(ConvertError) {
        for case .video(let stream, _) in lanes {
            try PixelLimit.check(width: Int(stream.width), height: Int(stream.height), limit: maxPixels, path: path)
        }
    }
}
