internal import CFFmpeg
import ConvertCore

/// Asks FFmpeg's format probes whether a file's first bytes are media it reads, without opening
/// a demuxer: the answer ``MediaProbe/kind(path:)`` gives for content our own sniffer does not
/// know (MPEG-TS, MP3, FLAC, WAV, AVI, raw H.264...).
package enum ContentProbe {
    /// FFmpeg's own "sure enough" line (`AVPROBE_SCORE_RETRY`, `AVPROBE_SCORE_MAX / 4`): below
    /// it, `avformat_open_input` reads more before it decides. A match only at a lower score is a
    /// guess (random bytes score 1 as MP3), not a recognition.
    static let confidentScore: Int32 = 25

    /// The most bytes read, as FFmpeg's own probing reads at most (`PROBE_BUF_MAX`, 1 MiB).
    static let maximumBytes = 1 << 20

    /// Whether FFmpeg recognises the content of `path` with confidence as a format the
    /// ``Demuxer`` opens (its ``Demuxer/referencingDemuxers`` are refused). Reads 2 KiB first and
    /// four times more each time FFmpeg is unsure, up to ``maximumBytes`` or the end of the file.
    /// The file's name plays no part.
    package static func recognises(path: String) -> Bool {
        var count = 2048
        while true {
            guard let head = RawFile.head(of: path, count: count), !head.isEmpty else { return false }
            if let name = confidentFormat(head) {
                return !name.split(separator: ",").contains { Demuxer.referencingDemuxers.contains(String($0)) }
            }
            guard head.count == count, count < maximumBytes else { return false }
            count = min(count * 4, maximumBytes)
        }
    }

    /// The name of the demuxer FFmpeg picks for `bytes` with at least ``confidentScore``, if any.
    private static func confidentFormat(_ bytes: [UInt8]) -> String? {
        // FFmpeg's probes may read past the end: the buffer is padded with AVPROBE_PADDING_SIZE zeros.
        var buffer = bytes + [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        var score: Int32 = 0
        let format = buffer.withUnsafeMutableBufferPointer { raw -> UnsafePointer<AVInputFormat>? in
            "".withCString { name in
                var data = AVProbeData(
                    filename: name, buf: raw.baseAddress, buf_size: Int32(bytes.count), mime_type: nil)
                // is_opened 1: only demuxers that read from a file, as a Demuxer opens one.
                return av_probe_input_format3(&data, 1, &score)
            }
        }
        guard let format, score >= confidentScore else { return nil }
        return String(cString: format.pointee.name)
    }
}
