import ConvertCore
internal import FFmpegLayer

/// Reads HDR10 static metadata from the first decoded frame of a track, for files whose container
/// does not carry it: an HEVC stream in MP4 written by FFmpeg 5.1 keeps its mastering display and
/// content light level only in SEI messages, which FFmpeg exposes on decoded frames.
///
/// Best effort and bounded: at most ``packetLimit`` packets are read and nothing here fails the
/// probe (a decoder that cannot open or decode just yields no metadata); only cancellation throws.
enum FirstFrameHDRMetadata {
    /// Packets read (of any stream) before giving up.
    static let packetLimit = 256

    /// Mastering display and content light level found on the first frame of stream `index`.
    static func read(
        demuxer: Demuxer, index: Int, cancellation: CancellationFlag
    ) throws(ConvertError) -> (MasteringDisplay?, ContentLightLevel?) {
        // Single-threaded: the probe wants the first frame, not throughput. A decoder that cannot
        // open yields no metadata.
        guard let decoder = try? CodecDecoder(stream: demuxer.stream(index), path: demuxer.path, threaded: false)
        else { return (nil, nil) }
        let packet = try Packet()
        let frame = try Frame()
        for _ in 0..<packetLimit {
            try cancellation.check()
            let step: Demuxer.ReadStep
            do { step = try demuxer.read(into: packet) } catch {
                if error.category == .cancelled { throw error }
                return (nil, nil)
            }
            do {
                if step == .endOfFile {
                    _ = try decoder.send(nil)
                } else {
                    defer { packet.unref() }
                    guard packet.streamIndex == index else { continue }
                    _ = try decoder.send(packet)
                }
                if try decoder.receive(into: frame) == .frame {
                    defer { frame.unref() }
                    return (frame.masteringDisplay, frame.contentLight)
                }
            } catch {
                if error.category == .cancelled { throw error }
                return (nil, nil)
            }
            if step == .endOfFile { return (nil, nil) }
        }
        return (nil, nil)
    }
}
