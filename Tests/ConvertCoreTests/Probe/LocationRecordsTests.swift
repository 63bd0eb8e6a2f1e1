import Foundation
import Testing

@testable import ConvertCore

/// The readers of FLIR's FFF GPS record and GoPro's GPMF telemetry: built from the real files,
/// and never trapping on damaged ones.
@Suite("Probe: FLIR and GPMF location records")
struct LocationRecordsTests {
    static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(relative))))
    }

    /// A GPMF entry: key, type, structure size, repeat count and the payload padded to four bytes.
    static func entry(_ key: String, type: Character, size: Int, repeats: Int, payload: [UInt8]? = nil) -> [UInt8] {
        let body = payload ?? [UInt8](repeating: 7, count: size * repeats)
        let padding = [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        return Array(key.utf8) + [type.asciiValue ?? 0, UInt8(size), UInt8(repeats >> 8), UInt8(repeats & 0xFF)]
            + body + padding
    }

    @Test("the FLIR photo's GPS record is found, and its patches free it")
    func flirRecord() throws {
        let data = try Self.bytes("photos/location/flir-iphone-gps.jpg")
        let flir = try #require(FLIRRecords(jpeg: data))
        #expect(flir.hasGPS)
        var edited = data
        // The record (184 bytes) and its directory entry (32), one chunk each here.
        let patches = flir.gpsRemovalPatches
        #expect(patches.map(\.bytes.count).reduce(0, +) == 184 + 32)
        for patch in patches {
            edited.replaceSubrange(patch.offset..<(patch.offset + patch.bytes.count), with: patch.bytes)
        }
        #expect(edited.count == data.count)
        #expect(FLIRRecords(jpeg: edited)?.hasGPS == false)
    }

    @Test("a FLIR photo cut anywhere, or with its bytes flipped, never traps")
    func flirDamaged() throws {
        let data = try Self.bytes("photos/location/flir-iphone-gps.jpg")
        for length in stride(from: 0, to: data.count, by: 997) {
            _ = FLIRRecords(jpeg: Array(data.prefix(length)))?.gpsRemovalPatches
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var damaged = data
            for _ in 0..<8 {
                damaged[Int.random(in: 2258..<2400, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let flir = FLIRRecords(jpeg: damaged) {
                for patch in flir.gpsRemovalPatches { #expect(patch.offset + patch.bytes.count <= damaged.count) }
            }
        }
    }

    @Test("GPMF: GPS entries in nested streams are found and counted, the rest kept")
    func gpmfScan() {
        let gps = Self.entry("GPS5", type: "l", size: 20, repeats: 18)
        let stream =
            Self.entry("STNM", type: "c", size: 3, repeats: 1, payload: Array("GPS".utf8))
            + Self.entry("GPSU", type: "U", size: 16, repeats: 1) + gps
        let accel = Self.entry("ACCL", type: "s", size: 6, repeats: 200)
        let streams =
            Self.entry("STRM", type: "\0", size: 1, repeats: stream.count, payload: stream)
            + Self.entry("STRM", type: "\0", size: 1, repeats: accel.count, payload: accel)
        let sample = Self.entry("DEVC", type: "\0", size: 1, repeats: streams.count, payload: streams)
        let scan = GPMF.scan(sample)
        #expect(scan.fixes == 18)
        #expect(scan.entries.count == 2)
        #expect(!scan.damaged)
        let cleaned = GPMF.removingLocation(sample, scan: scan)
        #expect(cleaned.count == sample.count)
        #expect(GPMF.scan(cleaned).entries.isEmpty)
        // The accelerometer's stream is untouched.
        let accelStart = sample.count - accel.count
        #expect(Array(cleaned[accelStart...]) == accel)
    }

    @Test("GPMF: cut, hostile or deep data is marked damaged, never trapped on")
    func gpmfDamaged() {
        let gps = Self.entry("GPS5", type: "l", size: 20, repeats: 4)
        for length in 0...gps.count { _ = GPMF.scan(Array(gps.prefix(length))) }
        #expect(GPMF.scan(Array(gps.prefix(20))).damaged)
        var nested = gps
        for _ in 0..<20 { nested = Self.entry("DEVC", type: "\0", size: 1, repeats: nested.count, payload: nested) }
        #expect(GPMF.scan(nested).damaged)
        let huge: [UInt8] = Array("GPS5".utf8) + [0x6C, 0xFF, 0xFF, 0xFF]
        #expect(GPMF.scan(huge).damaged)
    }
}
