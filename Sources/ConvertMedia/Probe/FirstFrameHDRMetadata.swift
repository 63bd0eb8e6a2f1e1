internal import CFFmpeg
import ConvertCore

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
        guard let decoder = ProbeDecoder(stream: demuxer.stream(index)) else { return (nil, nil) }
        let packet = try Packet()
        let frame = try Frame()
        for _ in 0..<packetLimit {
            try cancellation.check()
            let step: Demuxer.ReadStep
            do { step = try demuxer.read(into: packet) } catch {
                if error.category == .cancelled { throw error }
                return (nil, nil)
            }
            if step == .endOfFile {
                _ = avcodec_send_packet(decoder.context, nil)
            } else {
                defer { packet.unref() }
                guard Int(packet.pointer.pointee.stream_index) == index else { continue }
                let sent = avcodec_send_packet(decoder.context, packet.pointer)
                if sent < 0 && sent != FFmpeg.again { return (nil, nil) }
            }
            if avcodec_receive_frame(decoder.context, frame.pointer) >= 0 {
                defer { frame.unref() }
                return (metadata(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, MemoryLayout<AVMasteringDisplayMetadata>.size)
                            .flatMap(ContainerProber.masteringDisplay(from:)),
                        metadata(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL, MemoryLayout<AVContentLightMetadata>.size)
                            .map(ContainerProber.contentLight(from:)))
            }
            if step == .endOfFile { return (nil, nil) }
        }
        return (nil, nil)
    }

    private static func metadata(_ frame: Frame, _ type: AVFrameSideDataType, _ minimumSize: Int) -> UnsafeRawPointer? {
        guard let side = av_frame_get_side_data(frame.pointer, type), side.pointee.size >= minimumSize,
            let data = side.pointee.data
        else { return nil }
        return UnsafeRawPointer(data)
    }
}

/// Owns a decoder context (`avcodec_alloc_context3`) opened on one stream's parameters, freed
/// with `avcodec_free_context`. Single-threaded: the probe wants the first frame, not throughput.
private final class ProbeDecoder {
    let context: UnsafeMutablePointer<AVCodecContext>

    init?(stream: UnsafeMutablePointer<AVStream>) {
        guard let codec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id),
            let context = avcodec_alloc_context3(codec)
        else { return nil }
        self.context = context
        guard avcodec_parameters_to_context(context, stream.pointee.codecpar) >= 0 else { return nil }
        context.pointee.thread_count = 1
        guard avcodec_open2(context, codec, nil) >= 0 else { return nil }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }
}
