/// GoPro's GPMF telemetry (the samples of an MP4 `gpmd` track): where its GPS records are.
///
/// GPMF is a list of KLV entries: a four-character key, a type byte, a structure size byte and
/// a big-endian 16-bit repeat count, then size × repeat bytes of payload padded to a multiple of
/// four. Type 0 is a container (`DEVC` devices, `STRM` streams) whose payload is more entries.
/// GPS lives in its own stream: `GPS5`/`GPS9` fixes with `GPSU` (time), `GPSF` (fix kind),
/// `GPSP` (precision) and `GPSA` (altitude system) beside them; the Karma drone writes `GPRI`
/// (raw fixes) and `GLPI` (its fused position) instead.
package enum GPMF {
    /// The keys whose payload says where the camera was, or when it had a fix.
    package static let locationKeys: Set<String> = ["GPS5", "GPS9", "GPSU", "GPSF", "GPSP", "GPSA", "GPRI", "GLPI"]
    /// The keys whose every repeat is one fix (a position at one time).
    static let fixKeys: [String] = ["GPS5", "GPS9", "GPRI", "GLPI"]
    /// What a removed location entry's key becomes: a key no GPMF reader gives a meaning to, so
    /// the entry (zeroed) is skipped while every other entry stays where it was.
    package static let removedKey: [UInt8] = Array("FREE".utf8)
    /// Containers nest a few levels (device, stream); deeper is damage.
    private static let maximumDepth = 8

    /// The GPS entries of one sample.
    package struct Scan: Equatable, Sendable {
        /// Fixes recorded: for each fix key, the sum of its repeat counts; the largest of these
        /// (a Karma drone records each fix twice, raw and fused).
        package var fixes: Int = 0
        /// Each location entry: its whole range (header and unpadded payload) in the sample.
        package var entries: [Range<Int>] = []
        /// Whether the sample ended inside an entry, or nested too deep: what was found is
        /// listed, and more may be in the damaged part.
        package var damaged = false
    }

    /// The GPS entries of the GPMF sample `bytes`.
    package static func scan(_ bytes: [UInt8]) -> Scan {
        var scan = Scan()
        var fixCounts: [String: Int] = [:]
        walk(bytes, range: 0..<bytes.count, depth: 0, scan: &scan, fixCounts: &fixCounts)
        scan.fixes = fixCounts.values.max() ?? 0
        return scan
    }

    private static func walk(
        _ bytes: [UInt8], range: Range<Int>, depth: Int, scan: inout Scan, fixCounts: inout [String: Int]
    ) {
        guard depth < maximumDepth else {
            scan.damaged = true
            return
        }
        var offset = range.lowerBound
        while range.upperBound - offset >= 8 {
            let keyBytes = bytes[offset..<(offset + 4)]
            // A zero key ends the list (GPMF's terminator); trailing zero padding is not damage.
            if keyBytes.allSatisfy({ $0 == 0 }) { return }
            let type = bytes[offset + 4]
            let length = Int(bytes[offset + 5]) * (Int(bytes[offset + 6]) << 8 | Int(bytes[offset + 7]))
            let payload = offset + 8
            guard length <= range.upperBound - payload else {
                scan.damaged = true
                return
            }
            let key = String(decoding: keyBytes, as: UTF8.self)
            if type == 0 {
                walk(bytes, range: payload..<(payload + length), depth: depth + 1, scan: &scan, fixCounts: &fixCounts)
            } else if locationKeys.contains(key) {
                scan.entries.append(offset..<(payload + length))
                if fixKeys.contains(key) {
                    fixCounts[key, default: 0] += Int(bytes[offset + 6]) << 8 | Int(bytes[offset + 7])
                }
            }
            // The payload is padded to four bytes; the padding may be missing at the very end.
            offset = min(range.upperBound, payload + (length + 3) & ~3)
        }
    }

    /// `bytes` with every location entry of `scan` made a removed one: its key ``removedKey``
    /// and its payload zeros, at the same length (every other entry stays where it was).
    package static func removingLocation(_ bytes: [UInt8], scan: Scan) -> [UInt8] {
        var result = bytes
        for entry in scan.entries where entry.count >= 8 && entry.upperBound <= result.count {
            result.replaceSubrange(entry.lowerBound..<(entry.lowerBound + 4), with: removedKey)
            for index in (entry.lowerBound + 8)..<entry.upperBound { result[index] = 0 }
        }
        return result
    }
}
