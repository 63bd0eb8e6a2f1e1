import Foundation

/// A small deterministic generator (SplitMix64) so every mutation run reproduces from its seed.
struct FuzzMixer: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when `bound` is not positive).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

    /// One of `values`.
    mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
}

/// The seed and size of a mutation run: `OFFCONVERT_FUZZ_SEED` replays a run,
/// `OFFCONVERT_FUZZ_COUNT` makes it longer. Without a seed each run picks a new one and prints it.
enum FuzzSettings {
    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["OFFCONVERT_FUZZ_SEED"], let value = UInt64(text) {
            return value
        }
        return UInt64.random(in: 1...UInt64(UInt32.max))
    }()

    /// The total number of mutations over every conversion path.
    static let count: Int = {
        if let text = ProcessInfo.processInfo.environment["OFFCONVERT_FUZZ_COUNT"], let value = Int(text), value > 0 {
            return value
        }
        return 300
    }()

    /// The line a failure message carries, so the run can be replayed.
    static var replay: String { "OFFCONVERT_FUZZ_SEED=\(seed) OFFCONVERT_FUZZ_COUNT=\(count)" }
}

/// Hostile edits of real files. Besides blind byte damage, the mutator knows enough about the
/// containers to hit the fields parsers trust: ISO-BMFF box sizes, JPEG segment lengths, PNG chunk
/// lengths, types and CRCs.
enum Mutator {
    /// Values that break size arithmetic: zero, tiny, just-too-big, sign-bit and all-ones.
    static let hostileWords: [UInt32] = [0, 1, 2, 7, 8, 9, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFF8, 0xFFFF_FFFF]

    /// One to three edits of `original`; returns the bytes and what was done, for failure messages.
    static func mutate(_ original: [UInt8], using mixer: inout FuzzMixer) -> (bytes: [UInt8], description: String) {
        var bytes = original
        var done: [String] = []
        for _ in 0..<(1 + mixer.below(3)) where bytes.count > 16 {
            switch mixer.below(8) {
            case 0: done.append(flipBits(&bytes, using: &mixer))
            case 1: done.append(truncate(&bytes, using: &mixer))
            case 2, 3: done.append(corruptBoxSize(&bytes, using: &mixer))
            case 4: done.append(corruptJPEGSegment(&bytes, using: &mixer))
            case 5: done.append(corruptPNGChunk(&bytes, using: &mixer))
            case 6: done.append(overwriteWord(&bytes, using: &mixer))
            default: done.append(zeroRun(&bytes, using: &mixer))
            }
        }
        return (bytes, done.joined(separator: ", "))
    }

    /// The older blind mutation of the probe tests: bytes and 32-bit words past `start` replaced
    /// with hostile values, or the file cut there.
    static func scatter(_ original: [UInt8], from start: Int, using mixer: inout FuzzMixer) -> [UInt8] {
        var bytes = original
        for _ in 0..<(1 + mixer.below(8)) where bytes.count > 16 {
            let low = min(start, bytes.count - 8)
            let position = low + mixer.below(bytes.count - low)
            switch mixer.below(10) {
            case 0..<5:
                bytes[position] = UInt8(truncatingIfNeeded: mixer.next())
            case 5..<9 where position + 4 <= bytes.count:
                let values: [UInt32] = [
                    0, 1, 2, 7, 8, 0xFFFF_FFFF, 0x7FFF_FFFF, UInt32(truncatingIfNeeded: mixer.next()),
                ]
                put(mixer.pick(values), at: position, in: &bytes)
            default:
                bytes.removeSubrange(position...)
            }
        }
        return bytes
    }

    static func put(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        guard offset >= 0, offset + 4 <= bytes.count else { return }
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
    }

    static func flipBits(_ bytes: inout [UInt8], using mixer: inout FuzzMixer) -> String {
        let flips = 1 + mixer.below(16)
        for _ in 0..<flips {
            bytes[mixer.below(bytes.count)] ^= UInt8(1) << UInt8(mixer.below(8))
        }
        return "\(flips) bit flips"
    }

    static func truncate(_ bytes: inout [UInt8], using mixer: inout FuzzMixer) -> String {
        // Half the cuts land in the first 4 KB, where the headers are.
        let length = mixer.below(2) == 0 ? mixer.below(min(bytes.count, 4096)) : mixer.below(bytes.count)
        bytes.removeSubrange(max(length, 1)...)
        return "cut to \(max(length, 1)) bytes"
    }

    static func overwriteWord(_ bytes: inout [UInt8], using mixer: inout FuzzMixer) -> String {
        let offset = mixer.below(bytes.count - 4)
        let value = mixer.pick(hostileWords)
        put(value, at: offset, in: &bytes)
        return "word \(value) at \(offset)"
    }

    static func zeroRun(_ bytes: inout [UInt8], using mixer: inout FuzzMixer) -> String {
        let start = mixer.below(bytes.count)
        let end = min(bytes.count, start + 1 + mixer.below(512))
        for index in start..<end { bytes[index] = mixer.below(2) == 0 ? 0 : 0xFF }
        return "run \(start)..<\(end) blanked"
    }

    /// Offsets of what look like ISO-BMFF box headers: a 32-bit size that fits the file followed by
    /// a four-letter type. Cheap and container-agnostic; false positives only widen the net.
    static func boxHeaders(_ bytes: [UInt8]) -> [Int] {
        guard bytes.count >= 8 else { return [] }
        var found: [Int] = []
        for offset in 0...(bytes.count - 8) {
            let type = bytes[(offset + 4)..<(offset + 8)]
            guard type.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }) else { continue }
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if size == 1 || (size >= 8 && size <= bytes.count - offset) { found.append(offset) }
        }
        return found
    }

    static func corruptBoxSize(_ bytes: inout [UInt8], using mixer: inout FuzzMixer) -> String {
        let headers = boxHeaders(bytes)
        guard !headers.isEmpty else { return flipBits(&bytes, using: &mixer) }
        let offset = mixer.pick(headers)
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        let old = bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let value: UInt32
        switch mixer.below(3) {
        case 0: value = mixer.pick(hostileWords)
        case 1: value = old &+ UInt32(1 + mixer.below(64))
        default: value = old &- UInt32(1 + mixer.below(64))
        }
        put(value, at: offset, in: &bytes)
        return "box '\(type)' at \(offset) size \(old)→\(value)"
    }

    /// Offsets of the 16-bit length fields of a JPEG's marker segments, up to the scan data.
    static func jpegSegmentLengths(_ bytes: [UInt8]) -> [Int] {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return [] }
        var found: [Int] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            found.append(offset + 2)
            if marker == 0xDA { break }
            offset += 2 + length
        }
        return found
    }

    static func corruptJPEGSegment(_ bytes: inout [UInt8], using mixer: inout FuzzMixer) -> String {
        let lengths = jpegSegmentLengths(bytes)
        guard !lengths.isEmpty else { return corruptBoxSize(&bytes, using: &mixer) }
        let offset = mixer.pick(lengths)
        let value = mixer.pick([
            0, 1, 2, 3, 0xFFFF, 0x8000, Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) ^ (1 << mixer.below(16)),
        ])
        bytes[offset] = UInt8(value >> 8 & 0xFF)
        bytes[offset + 1] = UInt8(value & 0xFF)
        // Sometimes the frame header's own size fields instead (SOF: precision, height, width).
        if mixer.below(3) == 0,
            let sof = bytes.indices.dropLast(9).first(where: {
                bytes[$0] == 0xFF && (0xC0...0xC2).contains(bytes[$0 + 1])
            })
        {
            let field = sof + 5 + 2 * mixer.below(2)
            bytes[field] = UInt8(truncatingIfNeeded: mixer.next())
            bytes[field + 1] = UInt8(truncatingIfNeeded: mixer.next())
            return "JPEG segment length at \(offset) → \(value), SOF size field at \(field)"
        }
        return "JPEG segment length at \(offset) → \(value)"
    }

    /// Offsets of a PNG's chunk starts (their length fields).
    static func pngChunks(_ bytes: [UInt8]) -> [Int] {
        guard bytes.count > 8, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return [] }
        var found: [Int] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            found.append(offset)
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            offset += 12 + length
        }
        return found
    }

    static func corruptPNGChunk(_ bytes: inout [UInt8], using mixer: inout FuzzMixer) -> String {
        let chunks = pngChunks(bytes)
        guard !chunks.isEmpty else { return corruptJPEGSegment(&bytes, using: &mixer) }
        let offset = mixer.pick(chunks)
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        switch mixer.below(4) {
        case 0:
            let value = mixer.pick(hostileWords)
            put(value, at: offset, in: &bytes)
            return "PNG chunk '\(type)' length → \(value)"
        case 1:
            bytes[offset + 4 + mixer.below(4)] ^= 0x20
            return "PNG chunk '\(type)' type case flipped"
        case 2 where type == "IHDR" && offset + 16 <= bytes.count:
            put(mixer.pick([0, 1, 0xFFFF, 100_000, 0x7FFF_FFFF]), at: offset + 8 + 4 * mixer.below(2), in: &bytes)
            return "PNG IHDR size field rewritten"
        default:
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let crc = offset + 8 + length
            guard crc + 4 <= bytes.count else { return flipBits(&bytes, using: &mixer) }
            bytes[crc] ^= 0xFF
            return "PNG chunk '\(type)' CRC broken"
        }
    }
}
