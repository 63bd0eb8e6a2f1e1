internal import CFFmpeg

/// An audio sample format (FFmpeg's `AVSampleFormat`) by its number: an open set.
package struct SampleFormat: Hashable, Sendable, CustomStringConvertible {
    /// FFmpeg's `AVSampleFormat` value (`AV_SAMPLE_FMT_NONE`, −1, for none).
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    package static let none = SampleFormat(rawValue: AV_SAMPLE_FMT_NONE.rawValue)

    var avValue: AVSampleFormat { AVSampleFormat(rawValue: rawValue) }

    /// FFmpeg's name (`fltp`, `s16`), nil for none or an unknown number.
    package var name: String? { av_get_sample_fmt_name(avValue).map { String(cString: $0) } }

    /// Bytes one sample takes (2 for `s16`, 4 for `s32` and `flt`), 0 for none.
    package var bytesPerSample: Int { Int(av_get_bytes_per_sample(avValue)) }

    package var description: String { name ?? "sample format \(rawValue)" }
}
