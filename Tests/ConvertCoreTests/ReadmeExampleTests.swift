import ConvertMedia
import Foundation
import Testing

/// The README's "Using ConvertCore from Swift" example is `Examples/Sources/ReadmeExample/main.swift`,
/// a package of its own that sees only the public API (`Scripts/test` builds and runs it); here
/// the two texts are compared, and the same calls are checked against the fixtures.
@Suite("README example")
struct ReadmeExampleTests {
    @Test("the README's library example is Examples/Sources/ReadmeExample/main.swift, character for character")
    func sameText() throws {
        let readme = try String(contentsOf: Fixtures.root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(
            contentsOf: Fixtures.root.appendingPathComponent("Examples/Sources/ReadmeExample/main.swift"),
            encoding: .utf8)
        let section = try #require(readme.range(of: "\n## Using ConvertCore from Swift\n"))
        let open = try #require(readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```\n", range: open.upperBound..<readme.endIndex))
        #expect(String(readme[open.upperBound..<close.lowerBound]) + "\n" == example)
    }

    @Test("convert a HEIC to JPEG and probe a Dolby Vision clip, as the README shows")
    func example() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let job = PhotoConverter.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/IMG_5195.HEIC"), format: .jpeg,
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

        let model = ConversionModel()
        await model.convert(
            PhotoRequest(inputPath: Fixtures.path("photos/IMG_5195.HEIC"), format: .png, outputDirectory: folder.path))
        #expect(await model.fraction == 1)
        #expect(await model.outputs == [folder.appendingPathComponent("IMG_5195.png").path])
        #expect(await model.problem == nil)

        let info = try await MediaProbe.probe(path: Fixtures.path("video/dolbyVision-hdr.MOV"))
        #expect(
            info.container?.videoTracks.first?.video?.dynamicRange.summary
                == "Dolby Vision 8.4, HLG-compatible base (level 2, RPU+BL)")
    }

    /// The example's model, as the README writes it.
    @MainActor final class ConversionModel {
        var fraction = 0.0
        var outputs: [String] = []
        var problem: String?

        func convert(_ request: PhotoRequest) async {
            do {
                let result = try await PhotoConverter.convert(request).result { progress in
                    self.fraction = progress.fraction
                }
                outputs = result.outputs.map(\.path)
            } catch {
                problem = error.message
            }
        }
    }
}
