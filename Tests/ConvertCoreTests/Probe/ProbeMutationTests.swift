import Foundation
import Testing
@testable import ConvertCore

/// Seeded mutations of real files: bytes and 32-bit size fields overwritten with hostile values,
/// files cut short. Every result must be a description or an `.input` error; a crash or a hang
/// fails the run.
@Suite("Media probe: mutated files")
struct ProbeMutationTests {
    /// A small deterministic generator (SplitMix64) so failures reproduce.
    struct Mixer {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
    }

    static func mutate(_ original: [UInt8], from start: Int, using mixer: inout Mixer) -> [UInt8] {
        var bytes = original
        for _ in 0..<(1 + mixer.below(8)) where bytes.count > 16 {
            let low = min(start, bytes.count - 8)
            let position = low + mixer.below(bytes.count - low)
            switch mixer.below(10) {
            case 0..<5:
                bytes[position] = UInt8(truncatingIfNeeded: mixer.next())
            case 5..<9 where position + 4 <= bytes.count:
                let values: [UInt32] = [0, 1, 2, 7, 8, 0xFFFF_FFFF, 0x7FFF_FFFF, UInt32(truncatingIfNeeded: mixer.next())]
                let value = values[mixer.below(values.count)]
                bytes.replaceSubrange(position..<position + 4, with: BoxBytes.u32(value))
            default:
                bytes.removeSubrange(position...)
            }
        }
        return bytes
    }

    @Test("mutations of real files give a result or an input error", arguments: [
        "video/dolbyVision-hdr.MOV", "video/sample_with_colr_mdcv_and_clli.mp4", "generated/iphone-like.mov",
        "generated/dvwc-p8.mp4", "video/regular.mkv",
    ])
    func mutations(file: String) async throws {
        let original = [UInt8](try Data(contentsOf: Fixtures.media.appendingPathComponent(file)))
        // Most mutations land in the movie box (for MKV, anywhere past the EBML header).
        let moov = original.indices.dropLast(4).first { original[$0..<$0 + 4] == [0x6D, 0x6F, 0x6F, 0x76] } ?? 64
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var mixer = Mixer(state: UInt64(file.utf8.count) &* 7919)
        var described = 0
        for round in 0..<60 {
            let path = directory.appendingPathComponent("m\(round).mp4").path
            try Data(Self.mutate(original, from: max(0, moov - 4), using: &mixer)).write(to: URL(fileURLWithPath: path))
            do {
                let info = try await MediaProbe.probe(path: path)
                #expect(info.byteCount >= 0)
                described += 1
            } catch {
                #expect(error.category == .input, "\(round): \(error)")
            }
        }
        #expect(described > 0, "some mutations leave the file readable")
    }
}
