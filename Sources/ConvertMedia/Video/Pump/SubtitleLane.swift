import ConvertCore
internal import FFmpegLayer

/// A text subtitle track (SRT, ASS, WebVTT) written again as `mov_text`, the one subtitle
/// format MP4 and MOV players show as a selectable track, or as WebVTT, the one WebM holds: each
/// cue decoded to text and encoded again at the same time and for as long. Styling beyond what
/// the codec holds (ASS positions, fonts) is not kept.
final class SubtitleLane: PumpLane {
    private let decoder: CodecDecoder
    private let encoder: CodecEncoder
    private let output: Muxer.Stream
    private let muxer: Muxer
    private let inputTimeBase: Rational
    /// Cues that did not decode or encode (skipped).
    private(set) var damagedPackets = 0

    init(input: Demuxer.Stream, codec: TextSubtitleCodec, muxer: Muxer) throws(ConvertError) {
        self.muxer = muxer
        inputTimeBase = input.timeBase
        decoder = try CodecDecoder(stream: input, path: muxer.path, threaded: false)
        encoder = try CodecEncoder(name: codec.rawValue, path: muxer.path)
        try encoder.configure(subtitleTimeBase: input.timeBase, header: decoder.subtitleHeader)
        try encoder.open(options: [])
        output = try muxer.addStream(encoder: encoder, input: input, sideData: [])
    }

    func consume(_ packet: Packet) throws(ConvertError) {
        guard let cue = decoder.decodeSubtitle(packet), let payload = encoder.encode(cue) else {
            damagedPackets += 1
            return
        }
        let written = try packet.replacingPayload(with: payload)
        written.rescaleTimestamps(from: inputTimeBase, to: output.timeBase)
        written.streamIndex = output.index
        try muxer.write(written)
    }

    /// Cues are written as they come: nothing is buffered.
    func finish() throws(ConvertError) {}
}
