import ConvertCore
internal import FFmpegLayer

/// One kept input stream on its way to the output.
protocol PumpLane: AnyObject {
    /// Takes one packet of the lane's input stream (timestamps already zero-based). A lane may
    /// move the packet's payload out (a copy does); the pump unreferences the packet afterwards.
    func consume(_ packet: Packet) throws(ConvertError)
    /// Drains everything still buffered, strictly in order: decoder, then filters, then encoder.
    func finish() throws(ConvertError)
    /// Packets the decoder rejected as damaged (and skipped).
    var damagedPackets: Int { get }
}
