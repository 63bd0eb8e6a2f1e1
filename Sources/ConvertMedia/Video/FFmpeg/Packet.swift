internal import CFFmpeg
import ConvertCore

/// Owns an `AVPacket` (`av_packet_alloc`), freed with `av_packet_free`.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() throws(ConvertError) {
        guard let pointer = av_packet_alloc() else {
            throw ConvertError(.internal, key: "internal.memory", message: "Out of memory.")
        }
        self.pointer = pointer
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&owned)
    }

    /// Drops the packet's payload so it can be reused.
    func unref() { av_packet_unref(pointer) }
}
