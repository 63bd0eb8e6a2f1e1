import ConvertCore
internal import FFmpegLayer

/// A lane that decodes, filters and re-encodes: the packet-in and packet-out ends are the same
/// for video and audio, only what happens between the decoder and the encoder differs.
protocol TranscodingLane: PumpLane {
    var decoder: CodecDecoder { get }
    var encoder: CodecEncoder { get }
    var muxer: Muxer { get }
    var output: Muxer.Stream { get }
    var encoded: Packet { get }
    /// Pulls every frame the decoder has ready through the filters into the encoder.
    func drainDecoder() throws(ConvertError)
}

extension TranscodingLane {
    func consume(_ packet: Packet) throws(ConvertError) {
        // A full decoder takes the packet only after its frames are drained (EAGAIN is a value).
        while true {
            let accepted = try decoder.send(packet)
            try drainDecoder()
            if accepted { return }
        }
    }

    var damagedPackets: Int { decoder.rejectedPackets }

    /// Writes every packet the encoder has ready, rescaled to the output stream's time base.
    func drainEncoder() throws(ConvertError) {
        while try encoder.receive(into: encoded) == .packet {
            encoded.rescaleTimestamps(from: encoder.timeBase, to: output.timeBase)
            encoded.streamIndex = output.index
            try muxer.write(encoded)
        }
    }
}
