/// The XMP packet of a PNG: an uncompressed `iTXt` chunk with the keyword `XML:com.adobe.xmp`.
/// Read by the image probe; the location stripper edits the same chunk.
package enum PNGText {
    /// The uncompressed XMP packet of a PNG's `iTXt` chunk, if it has one (for the probe).
    package static func xmp(_ data: [UInt8]) -> [UInt8]? {
        var offset = 8
        while offset + 12 <= data.count {
            let length = Int(ByteBox.u32(data, offset))
            let dataStart = offset + 8
            guard length <= data.count - dataStart - 4 else { return nil }
            if data[(offset + 4)..<dataStart].elementsEqual("iTXt".utf8) {
                let chunk = Array(data[dataStart..<(dataStart + length)])
                if let start = textStart(chunk), chunk[18] == 0 { return Array(chunk[start...]) }
            }
            offset = dataStart + length + 4
        }
        return nil
    }

    /// Where the text of an XMP `iTXt` chunk starts: after the keyword, compression flag and
    /// method, language tag and translated keyword. Nil for other chunks or a damaged one.
    package static func textStart(_ chunk: [UInt8]) -> Int? {
        guard chunk.starts(with: Array("XML:com.adobe.xmp".utf8) + [0]), chunk.count > 19 else { return nil }
        var start = 20
        for _ in 0..<2 {
            while start < chunk.count && chunk[start] != 0 { start += 1 }
            start += 1
        }
        return start <= chunk.count ? start : nil
    }
}
