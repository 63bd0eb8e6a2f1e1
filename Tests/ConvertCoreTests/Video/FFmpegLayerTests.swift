import Foundation
import Testing

/// The FFmpeg layer is its own target, `FFmpegLayer`, the only one whose dependencies name
/// `CFFmpeg`; ConvertMedia reads its owners and Swift values (``StreamSnapshot``), never C.
///
/// The compiler enforces most of that: ConvertMedia's `internal import FFmpegLayer` keeps the
/// layer's types out of its package and public API, and the layer's `internal import CFFmpeg`
/// keeps C types out of the layer's own `package` API. What it does not check is tested here:
/// SwiftPM hands every target the module maps of its dependencies' dependencies, so a file
/// in ConvertMedia, the CLI or an executable could still write `import CFFmpeg` (or
/// `import FFmpegLayer`) and build; and a `public` declaration or a plain `import CFFmpeg` in the
/// layer would compile, and open the way for C types into the API.
@Suite("FFmpeg layer sealed")
struct FFmpegLayerTests {
    static let root = Fixtures.root
    static let layer = "Sources/FFmpegLayer/"

    /// Every Swift file of the package's targets, relative to the package root.
    static func swiftFiles() throws -> [String] {
        var files: [String] = []
        for folder in ["Sources", "Benchmarks", "Fuzz"] {
            let walker = try #require(FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path))
            files += walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { "\(folder)/\($0)" }
        }
        return files
    }

    /// The file's import lines, each as written (attributes and access level included).
    static func imports(of file: String, naming module: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.hasPrefix("//") && $0.split(separator: " ").suffix(2).elementsEqual(["import", module[...]])
        }
    }

    @Test("CFFmpeg is imported by FFmpegLayer's files only, and there as `internal import`")
    func onlyTheLayerImportsFFmpeg() throws {
        var importers: [String] = []
        for file in try Self.swiftFiles() {
            for line in try Self.imports(of: file, naming: "CFFmpeg") {
                importers.append(file)
                if file.hasPrefix(Self.layer) {
                    #expect(line == "internal import CFFmpeg", "\(file): \(line)")
                }
            }
        }
        #expect(importers.filter { $0.hasPrefix(Self.layer) }.count >= 8, "the layer itself was found: \(importers)")
        let outside = importers.filter { !$0.hasPrefix(Self.layer) }
        #expect(outside.isEmpty, "files outside FFmpegLayer import CFFmpeg: \(outside)")
    }

    @Test("FFmpegLayer is imported by ConvertMedia alone, as `internal import`")
    func onlyConvertMediaImportsTheLayer() throws {
        var importers: [String] = []
        for file in try Self.swiftFiles() {
            for line in try Self.imports(of: file, naming: "FFmpegLayer") {
                importers.append(file)
                #expect(line == "internal import FFmpegLayer", "\(file): \(line)")
            }
        }
        #expect(importers.count >= 8, "ConvertMedia's importers were found: \(importers)")
        let outside = importers.filter { !$0.hasPrefix("Sources/ConvertMedia/") }
        #expect(outside.isEmpty, "files outside ConvertMedia import FFmpegLayer: \(outside)")
    }

    /// The modifiers a declaration starts with (its attributes skipped), e.g. `package static`.
    static func modifiers(of line: Substring) -> [Substring] {
        let words = line.split(separator: " ").drop { $0.hasPrefix("@") }
        return Array(words.prefix { modifierWords.contains(String($0.prefix { $0 != "(" })) })
    }

    static let modifierWords: Set<String> = [
        "public", "open", "package", "internal", "fileprivate", "private", "static", "class", "final", "override",
        "convenience", "required", "mutating", "nonmutating", "nonisolated", "lazy", "weak", "unowned", "indirect",
    ]

    @Test("FFmpegLayer declares nothing public or open, and re-exports nothing: what ConvertMedia uses is `package`")
    func nothingPublic() throws {
        #expect(Self.modifiers(of: "@discardableResult public(set) static var x") == ["public(set)", "static"])
        #expect(Self.modifiers(of: "package func open(options: [String])") == ["package"])
        var found: [String] = []
        for file in try Self.swiftFiles() where file.hasPrefix(Self.layer) {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)[...]
                let modifiers = Self.modifiers(of: code).map { String($0.prefix { $0 != "(" }) }
                if modifiers.contains("public") || modifiers.contains("open") || code.hasPrefix("@_exported") {
                    found.append("\(file):\(number + 1): \(code)")
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
