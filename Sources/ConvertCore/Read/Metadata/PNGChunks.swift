/// The chunks of a PNG, in order: the one walk every reader of PNG chunks here uses (the colour
/// chunks, the XMP packet, APNG frame delays, the location stripper's edits).
///
/// Starts after the 8-byte signature and ends after `IEND`, at the end of the data, or at the
/// first chunk whose length runs past the data (a cut file: what came before still counts, as
/// libpng reads it). Checking the signature is the caller's: the walk is over bytes already known
/// to be a PNG. Self-contained (no box reader) because the EXIF/XMP fuzzer builds it with
/// ``PNGText`` alone.
package struct PNGChunks: Sequence, IteratorProtocol {
    /// One chunk: where it is in the data and what it holds.
    package struct Chunk: Sendable {
        /// The four-letter type (`IHDR`, `iTXt`, ...).
        package let type: String
        /// Where the chunk starts (its length field).
        package let offset: Int
        /// Where its data lies: after the type, before the CRC.
        package let body: Range<Int>

        /// Whether the CRC after the data matches the type and the data, as libpng checks it.
        package func crcMatches(in data: [UInt8]) -> Bool {
            let stored = data[body.upperBound..<(body.upperBound + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return CRC32.checksum(data[(offset + 4)..<body.upperBound]) == stored
        }
    }

    private let data: [UInt8]
    private var offset = 8
    private var ended = false

    /// The chunks of the PNG file in `data`.
    package init(_ data: [UInt8]) {
        self.data = data
    }

    /// The next chunk, or nil after `IEND` or where the data ends or is cut.
    package mutating func next() -> Chunk? {
        guard !ended, offset + 12 <= data.count else { return nil }
        let length = data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
        let start = offset + 8
        guard length <= data.count - start - 4 else {
            ended = true
            return nil
        }
        let chunk = Chunk(
            type: String(decoding: data[(offset + 4)..<start], as: UTF8.self), offset: offset,
            body: start..<(start + length))
        offset = start + length + 4
        if chunk.type == "IEND" { ended = true }
        return chunk
    }
}
