import Foundation
import Testing

/// The FFmpeg layer is sealed: only the owner and value types in `ConvertMedia/Video/FFmpeg`
/// import the C module; probe, plan, pump and sizing read Swift values (``StreamSnapshot``).
@Suite("FFmpeg layer sealed")
struct FFmpegLayerTests {
    static let sources = Fixtures.root.appendingPathComponent("Sources")

    /// Every Swift file under `folder`, relative to Sources/.
    static func swiftFiles(under folder: String) throws -> [String] {
        let base = sources.appendingPathComponent(folder)
        let walker = try #require(FileManager.default.enumerator(atPath: base.path))
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "\(folder)/\($0)" }
    }

    @Test("CFFmpeg is imported by Video/FFmpeg's files only")
    func onlyTheOwnersImportFFmpeg() throws {
        var importers: [String] = []
        for folder in ["ConvertCore", "ConvertMedia", "OffconvertCLI", "offconvert-media", "offconvert-photo"] {
            for file in try Self.swiftFiles(under: folder) {
                let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
                if text.contains("import CFFmpeg") { importers.append(file) }
            }
        }
        #expect(importers.count >= 8, "the layer itself was found: \(importers)")
        let outside = importers.filter { !$0.hasPrefix("ConvertMedia/Video/FFmpeg/") }
        #expect(outside.isEmpty, "files outside the FFmpeg layer import CFFmpeg: \(outside)")
    }
}
