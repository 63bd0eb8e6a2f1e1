/// Reads and writes the metadata segments of a JPEG stream (APP1 Exif/XMP, APP2 ICC_PROFILE).
///
/// TurboJPEG 2.1 has no metadata API, so offconvert walks the markers itself. The walk is bounded
/// by the data and stops at the first SOS: nothing after it is metadata.
package enum JPEGMarkers {
    package static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
    package static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    fileprivate static let iccHeader: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    /// The largest EXIF TIFF stream one APP1 segment can carry.
    static let maxEXIFBytes = 65533 - 6

    /// One marker segment before the scan data.
    package struct Segment {
        /// The marker byte (0xE1 for APP1, ...).
        package var marker: UInt8
        /// Range of the payload (after the 2-byte length) in the file.
        package var payload: Range<Int>
        /// Range of the whole segment, 0xFF marker byte included.
        package var whole: Range<Int>
    }

    /// Segments from after SOI up to (not including) SOS. Returns [] when `data` is not a JPEG.
    package static func segments(_ data: [UInt8]) -> [Segment] { walk(data).segments }

    /// Where the first scan's SOS marker starts, or nil when `data` ends (or stops being a marker
    /// walk) before it: a file's head holds all of its metadata once this is known.
    static func scanStart(_ data: [UInt8]) -> Int? { walk(data).scanStart }

    /// The first run of stray bytes before a header segment's marker (bytes that are neither a
    /// marker nor fill: some cameras write two before DQT), as libjpeg counts them in its
    /// "N extraneous bytes before marker 0xXX" warning; nil when the headers have none.
    static func strayHeaderBytes(_ data: [UInt8]) -> (count: Int, marker: UInt8)? { walk(data).stray }

    /// The segments up to SOS. Bytes where a marker should start are skipped up to the next
    /// 0xFF, as libjpeg's `next_marker` skips them (with a warning), so the segments after them
    /// are found as libjpeg finds them; an 0xFF 0x00 pair is skipped the same way.
    private static func walk(_ data: [UInt8]) -> (segments: [Segment], scanStart: Int?, stray: (Int, UInt8)?) {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return ([], nil, nil) }
        var result: [Segment] = []
        var stray: (Int, UInt8)?
        var skipped = 0
        var index = 2
        while index + 4 <= data.count {
            guard data[index] == 0xFF, data[index + 1] != 0 else {
                skipped += data[index] == 0xFF ? 2 : 1
                index += data[index] == 0xFF ? 2 : 1
                continue
            }
            let marker = data[index + 1]
            if marker != 0xFF, skipped > 0 {
                if stray == nil { stray = (skipped, marker) }
                skipped = 0
            }
            if marker == 0xFF {  // fill byte
                index += 1
                continue
            }
            if marker == 0xDA { return (result, index, stray) }
            if marker == 0xD9 { break }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                index += 2
                continue
            }
            let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
            guard length >= 2, index + 2 + length <= data.count else { break }
            result.append(
                Segment(
                    marker: marker, payload: (index + 4)..<(index + 2 + length), whole: index..<(index + 2 + length)))
            index += 2 + length
        }
        return (result, nil, stray)
    }

    /// The metadata of a JPEG: EXIF as a TIFF stream, XMP packet, ICC profile (chunks joined).
    package static func metadata(_ data: [UInt8]) -> (exif: [UInt8]?, xmp: [UInt8]?, icc: [UInt8]?) {
        var exif: [UInt8]?
        var xmp: [UInt8]?
        var iccChunks: [Int: [UInt8]] = [:]
        for segment in segments(data) {
            let payload = data[segment.payload]
            if segment.marker == 0xE1, exif == nil, payload.starts(with: exifHeader) {
                exif = Array(payload.dropFirst(exifHeader.count))
            } else if segment.marker == 0xE1, xmp == nil, payload.starts(with: xmpHeader) {
                xmp = Array(payload.dropFirst(xmpHeader.count))
            } else if segment.marker == 0xE2, payload.starts(with: iccHeader), payload.count > iccHeader.count + 2 {
                let sequence = Int(payload[payload.startIndex + iccHeader.count])
                iccChunks[sequence] = Array(payload.dropFirst(iccHeader.count + 2))
            }
        }
        var icc: [UInt8]?
        if !iccChunks.isEmpty {
            let ordered = iccChunks.keys.sorted()
            // Chunks are numbered 1...n; a gap means a damaged profile, which is better dropped.
            if ordered == Array(1...ordered.count) { icc = ordered.flatMap { iccChunks[$0] ?? [] } }
        }
        return (exif, xmp, icc)
    }

    /// Whether the stream has Adobe's APP14 segment. A four-component JPEG with it stores its
    /// inks inverted (255 = no ink), as Photoshop writes them; libjpeg, Pillow, ImageMagick and
    /// libvips all read the marker this way.
    static func hasAdobeSegment(_ data: [UInt8]) -> Bool {
        segments(data).contains { $0.marker == 0xEE && data[$0.payload].starts(with: Array("Adobe".utf8)) }
    }

    /// APP segments carrying `exif` (TIFF stream), `xmp` and `icc`, ready to insert after SOI/APP0.
    /// Segments have a 64 KiB limit: the ICC profile is split into chunks; EXIF or XMP larger than
    /// one segment is dropped (returned in `dropped`) rather than written as an invalid file.
    static func appSegments(exif: [UInt8]?, xmp: [UInt8]?, icc: [UInt8]?) -> (bytes: [UInt8], dropped: [String]) {
        var out: [UInt8] = []
        var dropped: [String] = []
        let maxPayload = 65533
        func append(marker: UInt8, _ payload: [UInt8]) {
            let length = payload.count + 2
            out += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += payload
        }
        if let exif, !exif.isEmpty {
            if exif.count <= maxEXIFBytes { append(marker: 0xE1, exifHeader + exif) } else { dropped.append("EXIF") }
        }
        if let xmp, !xmp.isEmpty {
            if xmp.count + xmpHeader.count <= maxPayload {
                append(marker: 0xE1, xmpHeader + xmp)
            } else {
                dropped.append("XMP")
            }
        }
        if let icc, !icc.isEmpty {
            let chunkSize = maxPayload - iccHeader.count - 2
            let count = (icc.count + chunkSize - 1) / chunkSize
            if count <= 255 {
                for index in 0..<count {
                    let chunk = icc[(index * chunkSize)..<min(icc.count, (index + 1) * chunkSize)]
                    append(marker: 0xE2, iccHeader + [UInt8(index + 1), UInt8(count)] + chunk)
                }
            } else {
                dropped.append("ICC profile")
            }
        }
        return (out, dropped)
    }

    /// `jpeg` without the segments whose marker is in `markers` (e.g. APP1 EXIF/XMP, APP13
    /// Photoshop/IPTC); everything else, the compressed data included, is byte-identical.
    package static func removing(markers: Set<UInt8>, from jpeg: [UInt8]) -> [UInt8] {
        let list = segments(jpeg)
        guard list.contains(where: { markers.contains($0.marker) }) else { return jpeg }
        var out: [UInt8] = [0xFF, 0xD8]
        var position = 2
        for segment in list {
            // Bytes between segments (fill bytes) are kept as they were.
            out += jpeg[position..<segment.whole.lowerBound]
            if !markers.contains(segment.marker) { out += jpeg[segment.whole] }
            position = segment.whole.upperBound
        }
        out += jpeg[position...]
        return out
    }

    /// `jpeg` with `segments` inserted after SOI and any APP0 (JFIF) segment that follows it.
    static func inserting(_ segmentBytes: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        guard !segmentBytes.isEmpty, jpeg.count >= 2 else { return jpeg }
        let insertAt = insertionPoint(in: jpeg)
        // One copy of the stream (a chain of `+` on slices made three of a photo-sized stream).
        var result: [UInt8] = []
        result.reserveCapacity(jpeg.count + segmentBytes.count)
        result.append(contentsOf: jpeg[..<insertAt])
        result.append(contentsOf: segmentBytes)
        result.append(contentsOf: jpeg[insertAt...])
        return result
    }

    /// Where ``inserting(_:into:)`` puts segments in `jpeg`: after SOI and any APP0 (JFIF)
    /// segment that follows it.
    static func insertionPoint(in jpeg: [UInt8]) -> Int {
        if let first = segments(jpeg).first, first.marker == 0xE0, first.whole.lowerBound == 2 {
            return first.whole.upperBound
        }
        return min(2, jpeg.count)
    }
}
