import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Seeded mutations of real files: bytes and 32-bit size fields overwritten with hostile values,
/// files cut short. Every result must be a description or an `.input` error; a crash or a hang
/// fails the run. (The mutator is shared with the conversion mutation tests in `Hostile/`.)
@Suite("Media probe: mutated files")
struct ProbeMutationTests {
    @Test(
        "mutations of real files give a result or an input error",
        arguments: [
            "video/dolbyVision-hdr.MOV", "video/sample_with_colr_mdcv_and_clli.mp4", "generated/iphone-like.mov",
            "generated/dvwc-p8.mp4", "video/regular.mkv",
        ])
    func mutations(file: String) async throws {
        let original = [UInt8](try Data(contentsOf: Fixtures.media.appendingPathComponent(file)))
        // Most mutations land in the movie box (for MKV, anywhere past the EBML header).
        let moov = original.indices.dropLast(4).first { original[$0..<$0 + 4] == [0x6D, 0x6F, 0x6F, 0x76] } ?? 64
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var mixer = FuzzMixer(state: UInt64(file.utf8.count) &* 7919)
        var described = 0
        for round in 0..<60 {
            let path = directory.appendingPathComponent("m\(round).mp4").path
            try Data(Mutator.scatter(original, from: max(0, moov - 4), using: &mixer)).write(
                to: URL(fileURLWithPath: path))
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
