import ConvertCore
import Foundation
import Testing

@testable import ConvertAllowance
@testable import OffconvertCLI

/// A photo batch probes each input once for its memory cost and hands that probe to the
/// conversion: a HEIC's item structure is parsed once per item, estimate and conversion together
/// (counted by ``FileReadCounter`` on the batch's own copies; outputs checked with ffprobe).
/// In the serialized batch suite: a signal another test sends this process would cancel it.
extension BatchRunnerTests {
    @Test("heic-to-jpg over two HEICs with --jobs 2: each parsed once, the costs from the same probe")
    func oneParsePerItem() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-probe-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var inputs: [String] = []
        for (index, name) in ["photos/IMG_3853.HEIC", "photos/pug.heic"].enumerated() {
            let path = folder.appendingPathComponent("p\(index).heic").path
            try FileManager.default.copyItem(atPath: CLIRunner.media.appendingPathComponent(name).path, toPath: path)
            HeifMeta.parses.watch(path)
            inputs.append(path)
        }
        defer { for input in inputs { HeifMeta.parses.stopWatching(input) } }
        let out = folder.appendingPathComponent("out")
        let options = BatchOptions(
            inputs: inputs, outputDirectory: out.path, jobs: 2, memoryBudget: 1 << 32, json: true)
        let template = PhotoRequest(inputPath: "", format: .jpeg)
        let work = PhotoWork.batchWork(command: "heic-to-jpg", template: template, options: options)
        // Run as one PhotoBatch, the library's batch API, the probes handed to it with the requests.
        guard case .photos = work.conversion else {
            Issue.record("a photo command's work does not run through PhotoBatch")
            return
        }
        let state = folder.appendingPathComponent("state").path
        let status = await BatchRunner.run(
            work, options: options, printer: BatchPrinter(json: true, out: { _ in }, err: { _ in }),
            allowance: AllowanceStore(directory: state), stateDirectory: state)
        #expect(status == 0)
        for input in inputs { #expect(HeifMeta.parses.parses(of: input) == 1, "\(input)") }
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".jpg") }
            .sorted()
        #expect(written == ["p0.jpg", "p1.jpg"])
        for name in written {
            let size = try CLIRunner.toolOutput(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                    out.appendingPathComponent(name).path,
                ])
            #expect(!size.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        }
        // The cost came from that probe: the same number the standalone estimate gives.
        #expect(PhotoWork.cost(of: inputs[1], request: template) > 4032 * 3024 * 4)
    }
}
