/// The picture size an AV1 sequence header states (`max_frame_width_minus_1` + 1 and its
/// height, AV1 specification §5.5.1), read from an AV1 image item's coded bytes: what libavif
/// takes for an item that has no `ispe` property.
enum AV1SequenceHeader {
    /// The size of the first sequence header OBU in `data` (a series of OBUs with size fields, as
    /// AVIF items hold them); nil when there is none or it cannot be read.
    static func frameSize(in data: [UInt8]) -> (width: Int, height: Int)? {
        var offset = 0
        while offset < data.count {
            let header = data[offset]
            let type = header >> 3 & 15
            var position = offset + (header & 4 != 0 ? 2 : 1)
            guard position <= data.count else { return nil }
            guard header & 2 != 0 else {
                // Without a size field the OBU runs to the end of the data.
                return type == 1 ? frameSize(payload: Array(data[position...])) : nil
            }
            guard let size = leb128(data, at: &position), size <= data.count - position else { return nil }
            if type == 1 { return frameSize(payload: Array(data[position..<(position + size)])) }
            offset = position + size
        }
        return nil
    }

    /// An unsigned LEB128 value (at most 8 bytes) at `position`, which moves past it.
    private static func leb128(_ data: [UInt8], at position: inout Int) -> Int? {
        var value = 0
        for index in 0..<8 {
            guard position < data.count else { return nil }
            let byte = data[position]
            position += 1
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    /// The size in a `sequence_header_obu` payload.
    private static func frameSize(payload: [UInt8]) -> (width: Int, height: Int)? {
        var bits = BitReader(payload)
        // seq_profile and still_picture, then reduced_still_picture_header.
        guard bits.read(4) != nil, let reduced = bits.read(1) else { return nil }
        if reduced == 1 {
            guard bits.read(5) != nil else { return nil }
        } else {
            guard skipOperatingPoints(&bits) else { return nil }
        }
        guard let widthBits = bits.read(4), let heightBits = bits.read(4),
            let width = bits.read(Int(widthBits) + 1), let height = bits.read(Int(heightBits) + 1)
        else { return nil }
        return (Int(width) + 1, Int(height) + 1)
    }

    /// Reads past the timing, decoder model and operating point fields of a full sequence header.
    private static func skipOperatingPoints(_ bits: inout BitReader) -> Bool {
        guard let timing = bits.read(1) else { return false }
        var decoderModel = false
        var bufferDelayBits = 0
        if timing == 1 {
            guard bits.read(32) != nil, bits.read(32) != nil, let equalInterval = bits.read(1) else { return false }
            if equalInterval == 1, !bits.skipUVLC() { return false }
            guard let model = bits.read(1) else { return false }
            decoderModel = model == 1
            if decoderModel {
                guard let delay = bits.read(5), bits.read(32) != nil, bits.read(10) != nil else { return false }
                bufferDelayBits = Int(delay) + 1
            }
        }
        guard let displayDelay = bits.read(1), let points = bits.read(5) else { return false }
        for _ in 0...points {
            guard bits.read(12) != nil, let level = bits.read(5) else { return false }
            if level > 7, bits.read(1) == nil { return false }
            if decoderModel {
                guard let present = bits.read(1) else { return false }
                if present == 1,
                    bits.read(bufferDelayBits) == nil || bits.read(bufferDelayBits) == nil || bits.read(1) == nil
                {
                    return false
                }
            }
            if displayDelay == 1 {
                guard let present = bits.read(1) else { return false }
                if present == 1, bits.read(4) == nil { return false }
            }
        }
        return true
    }

    /// Reads big-endian bit fields of up to 32 bits.
    private struct BitReader {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next `count` bits (0...32) as a number; nil past the end.
        mutating func read(_ count: Int) -> UInt32? {
            guard (0...32).contains(count), position + count <= bytes.count * 8 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<count {
                let bit = bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1
                value = value << 1 | UInt32(bit)
                position += 1
            }
            return value
        }

        /// Reads past a `uvlc()` value; false past the end.
        mutating func skipUVLC() -> Bool {
            var zeros = 0
            while true {
                guard let bit = read(1) else { return false }
                if bit == 1 { break }
                zeros += 1
                if zeros >= 32 { return true }
            }
            return read(zeros) != nil
        }
    }
}
