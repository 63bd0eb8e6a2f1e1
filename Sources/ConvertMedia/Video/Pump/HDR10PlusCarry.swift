import ConvertCore
internal import FFmpegLayer

/// HDR10+ (SMPTE ST 2094-40) metadata carried from an HEVC source into its x265 re-encode.
///
/// Debian's x265 is built without HDR10+ (its `dhdr10-info` is disabled) and FFmpeg 5.1's
/// libx265 wrapper passes no T.35 side data on, so the encoder cannot write it. The source's own
/// SEI messages are copied instead: each is taken from the source packet of a picture and put,
/// as a prefix SEI NAL unit of its own, before the first slice of the encoded picture shown at
/// the same time. The metadata describes each picture's content, which a re-encode keeps.
final class HDR10PlusCarry {
    /// The HDR10+ SEI NAL units still to place (escaped, without start code), by the source
    /// presentation time in seconds.
    private var pending: [(time: Double, nal: [UInt8])] = []
    /// Bytes of each NAL unit's length field in the source's packets; nil for Annex B start codes.
    private let lengthSize: Int?
    private let sourceTimeBase: Rational
    /// Source time of the output's time 0 (the start of a cut).
    private let offset: Double
    /// How far apart a source and an output picture may be and still be the same one.
    private let tolerance: Double
    /// Pictures the metadata was placed on.
    private(set) var carried = 0

    /// The ITU-T T.35 header of HDR10+: United States, Samsung, ST 2094-40, application 4.
    private static let header: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04]

    init(source stream: Demuxer.Stream, offset: Double) {
        sourceTimeBase = stream.timeBase
        self.offset = offset
        let extradata = stream.extradata
        // An hvcC record: lengthSizeMinusOne is the low two bits of byte 21.
        lengthSize = extradata.count > 22 && extradata[0] == 1 ? Int(extradata[21] & 3) + 1 : nil
        let rate = stream.averageFrameRate.doubleValue
        tolerance = rate.isFinite && rate > 0 ? 0.4 / rate : 0.004
    }

    /// Takes the HDR10+ message of a source packet (timestamps already zero-based).
    func take(_ packet: Packet) {
        guard packet.pts != Packet.noTimestamp else { return }
        let time = Double(packet.pts) * sourceTimeBase.doubleValue
        let message: [UInt8]? =
            packet.withPayload { bytes in
                for unit in Self.units(bytes, lengthSize: lengthSize)
                where unit.count > 2 && (unit[0] >> 1) & 0x3F == 39 {
                    if let message = Self.hdr10PlusMessage(inPrefixSEI: unit) { return message }
                }
                return nil
            } ?? nil
        if let message { pending.append((time, Self.seiUnit(message))) }
    }

    /// `packet` (Annex B, as libx265 writes it; output time base `timeBase`) with the source's
    /// HDR10+ SEI of the same picture before its first slice; nil when there is none to add.
    func packet(adding packet: Packet, timeBase: Rational) throws(ConvertError) -> Packet? {
        guard packet.pts != Packet.noTimestamp, let bytes = packet.withPayload({ Array($0) }) else { return nil }
        let time = Double(packet.pts) * timeBase.doubleValue + offset
        pending.removeAll { $0.time < time - 5 }
        guard let match = pending.indices.min(by: { abs(pending[$0].time - time) < abs(pending[$1].time - time) }),
            abs(pending[match].time - time) <= tolerance
        else { return nil }
        let nal = pending.remove(at: match).nal
        guard let slice = bytes.withUnsafeBufferPointer({ Self.firstSliceStart($0) }) else { return nil }
        let combined = try packet.replacingPayload(
            with: Array(bytes[..<slice]) + [0, 0, 0, 1] + nal + Array(bytes[slice...]))
        carried += 1
        return combined
    }

    /// The NAL units of `bytes`: length-prefixed (`lengthSize` bytes each), or Annex B.
    static func units(_ bytes: UnsafeBufferPointer<UInt8>, lengthSize: Int?) -> [ArraySlice<UInt8>] {
        let all = Array(bytes)
        var units: [ArraySlice<UInt8>] = []
        if let lengthSize {
            var at = 0
            while at + lengthSize <= all.count {
                let length = all[at..<at + lengthSize].reduce(0) { $0 << 8 | Int($1) }
                at += lengthSize
                guard length > 0, at + length <= all.count else { break }
                units.append(all[at..<at + length])
                at += length
            }
            return units.map { Array($0)[...] }
        }
        var starts: [Int] = []
        var index = 0
        while index + 3 <= all.count {
            if all[index] == 0 && all[index + 1] == 0 && all[index + 2] == 1 {
                starts.append(index + 3)
                index += 3
            } else {
                index += 1
            }
        }
        for (number, start) in starts.enumerated() {
            var end = number + 1 < starts.count ? starts[number + 1] - 3 : all.count
            while end > start && all[end - 1] == 0 { end -= 1 }
            if end > start { units.append(Array(all[start..<end])[...]) }
        }
        return units
    }

    /// Where the first slice NAL unit of an Annex B picture starts (at its start code).
    static func firstSliceStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index + 4 <= bytes.count {
            if bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 {
                if (bytes[index + 3] >> 1) & 0x3F < 32 { return index > 0 && bytes[index - 1] == 0 ? index - 1 : index }
                index += 3
            } else {
                index += 1
            }
        }
        return nil
    }

    /// The HDR10+ SEI message (type, size and payload bytes, unescaped) of a prefix SEI NAL unit.
    static func hdr10PlusMessage(inPrefixSEI unit: ArraySlice<UInt8>) -> [UInt8]? {
        let payload = unescaped(unit.dropFirst(2))
        var at = 0
        while at < payload.count && payload[at] != 0x80 {
            var type = 0
            while at < payload.count && payload[at] == 0xFF {
                type += 255
                at += 1
            }
            guard at < payload.count else { return nil }
            type += Int(payload[at])
            at += 1
            var size = 0
            while at < payload.count && payload[at] == 0xFF {
                size += 255
                at += 1
            }
            guard at < payload.count else { return nil }
            size += Int(payload[at])
            at += 1
            guard at + size <= payload.count else { return nil }
            let body = payload[at..<at + size]
            if type == 4 && body.starts(with: header) {
                return [4] + [UInt8](repeating: 0xFF, count: size / 255) + [UInt8(size % 255)] + Array(body)
            }
            at += size
        }
        return nil
    }

    /// A prefix SEI NAL unit holding `message` alone, emulation-prevented.
    static func seiUnit(_ message: [UInt8]) -> [UInt8] {
        [39 << 1, 1] + escaped(message + [0x80])
    }

    /// RBSP bytes without emulation-prevention bytes (the 3 of `00 00 03`).
    static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// RBSP bytes with emulation prevention: a 3 after two zeros before any byte up to 3.
    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }
}
