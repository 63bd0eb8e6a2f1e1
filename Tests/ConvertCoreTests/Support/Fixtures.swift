import Foundation

/// Locates test media from this file's path, never from the working directory.
enum Fixtures {
    /// The package root (two levels above `Tests/ConvertCoreTests/Support`).
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `TestMedia/` in the package.
    static let media = root.appendingPathComponent("TestMedia")

    /// The path of a committed fixture, e.g. `Fixtures.path("photos/pug.heic")`.
    static func path(_ relative: String) -> String {
        media.appendingPathComponent(relative).path
    }

    /// The path of a generated fixture (made by `TestMedia/generate`), e.g. `generated/dvcc-p5.mp4`.
    static func generated(_ name: String) -> String {
        media.appendingPathComponent("generated").appendingPathComponent(name).path
    }

    /// A fresh empty directory under the system temp directory, removed by the caller.
    static func temporaryDirectory(_ label: String = #function) throws -> URL {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("offconvert-tests-\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
