import ConvertCore
internal import FFmpegLayer

/// The exact payload of one stream of a file: what a copy of it writes.
struct StreamPayload {
    var bytes: Int64
    var packets: Int

    /// Reads every packet of stream `index` from `demuxer`, to the end (the other streams are
    /// discarded, so the demuxer skips their data).
    static func measure(_ index: Int, in demuxer: Demuxer, cancellation: CancellationFlag) throws(ConvertError)
        -> StreamPayload
    {
        for other in 0..<demuxer.streamCount where other != index {
            demuxer.stream(other).discard()
        }
        let packet = try Packet()
        var payload = StreamPayload(bytes: 0, packets: 0)
        while true {
            try cancellation.check()
            if try demuxer.read(into: packet) == .endOfFile { break }
            if packet.streamIndex == index {
                payload.bytes += Int64(packet.size)
                payload.packets += 1
            }
            packet.unref()
        }
        return payload
    }
}
