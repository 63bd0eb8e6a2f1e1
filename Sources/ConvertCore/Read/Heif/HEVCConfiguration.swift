/// The parts of an `hvcC` decoder configuration record the decoder needs: the NAL length field's
/// size and the parameter-set NAL units (VPS, SPS, PPS, SEI), in order.
struct HEVCConfiguration: Equatable, Sendable {
    var lengthSize: Int
    var parameterSets: [[UInt8]]
    /// Chroma format (1 = 4:2:0) and bit depths as the record declares them.
    var chromaFormat: Int
    var lumaBitDepth: Int
    var chromaBitDepth: Int

    /// Parses an `hvcC` payload; nil when it is damaged.
    init?(_ record: [UInt8]) {
        var cursor = ByteCursor(record, type: "hvcC")
        do {
            try cursor.skip(16)
            chromaFormat = Int(try cursor.u8() & 3)
            lumaBitDepth = Int(try cursor.u8() & 7) + 8
            chromaBitDepth = Int(try cursor.u8() & 7) + 8
            try cursor.skip(2)
            lengthSize = Int(try cursor.u8() & 3) + 1
            guard lengthSize != 3 else { return nil }
            var units: [[UInt8]] = []
            for _ in 0..<Int(try cursor.u8()) {
                try cursor.skip(1)
                for _ in 0..<Int(try cursor.u16()) {
                    units.append(try cursor.take(Int(try cursor.u16())))
                }
            }
            parameterSets = units
        } catch {
            return nil
        }
    }
}
