import Foundation
import Testing

import ConvertMedia

/// The README's "Using ConvertCore from Swift" example, through the public API only, so the
/// documented calls keep compiling and doing what the README says.
@Suite("README example")
struct ReadmeExampleTests {
    @Test("convert a HEIC to JPEG and probe a Dolby Vision clip, as the README shows")
    func example() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let job = PhotoConverter.convert(PhotoRequest(inputPath: Fixtures.path("photos/IMG_5195.HEIC"), format: .jpeg,
                                                      quality: 90, outputDirectory: folder.path))
        var written: [String] = []
        var terminal = 0
        for await event in job.events {
            switch event {
            case .progress(let progress):
                #expect((0...1).contains(progress.fraction))
            case .finished(let result):
                written = result.outputs.map(\.path)
                terminal += 1
            case .failed(let error):
                Issue.record("\(error.category): \(error.message)")
                terminal += 1
            }
        }
        #expect(terminal == 1)
        #expect(written == [folder.appendingPathComponent("IMG_5195.jpg").path])

        let info = try await MediaProbe.probe(path: Fixtures.path("video/dolbyVision-hdr.MOV"))
        #expect(info.container?.tracks.first?.video?.dynamicRange.summary == "Dolby Vision 8.4, HLG-compatible base (level 2, RPU+BL)")
    }
}
