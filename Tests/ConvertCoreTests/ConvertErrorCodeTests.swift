import Foundation
import Testing

@testable import ConvertCore

/// The error codes are one table in one file, in one naming style, each key once: they are the
/// stable keys scripts (`--json`) and translations (`error.KEY`) rely on.
@Suite("Error codes")
struct ConvertErrorCodeTests {
    private static let table: String = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ConvertCore/API/ConvertErrorCode.swift")
        // swift-format wraps a long declaration after `ConvertError.Code(`: read each as one line.
        return ((try? String(contentsOf: file, encoding: .utf8)) ?? "")
            .replacing(/ConvertError\.Code\(\n\s*/, with: "ConvertError.Code(")
    }()

    private static let readme: String = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }()

    /// One declared code: its key, its category and the one line saying when it is thrown.
    struct Documented: Equatable, CustomStringConvertible {
        var key: String
        var category: String
        var when: String
        var description: String { "\(key) (\(category)): \(when)" }
    }

    /// The codes as ConvertErrorCode.swift declares them, each with its doc comment's text.
    private static var declared: [Documented] {
        var rows: [Documented] = []
        var doc: [String] = []
        let declaration = /^\s*public static let \w+ = ConvertError\.Code\("([^"]+)", category: \.(\w+)\)\s*$/
        for line in table.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("///") {
                doc.append(String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces))
                continue
            }
            if let match = String(line).wholeMatch(of: declaration) {
                rows.append(
                    Documented(key: String(match.1), category: String(match.2), when: doc.joined(separator: " ")))
            }
            doc = []
        }
        return rows
    }

    /// The rows of the README's generated table (between the error-codes markers).
    private static var listed: [Documented]? {
        guard let begin = readme.range(of: "<!-- error-codes:begin -->"),
            let end = readme.range(of: "<!-- error-codes:end -->", range: begin.upperBound..<readme.endIndex)
        else { return nil }
        let row = /^\| `([^`]+)` \| (\w+) \| (.+) \|$/
        return readme[begin.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            guard let match = String(line).wholeMatch(of: row) else { return nil }
            return Documented(
                key: String(match.1), category: String(match.2),
                when: "`\(match.1)`: " + match.3.replacingOccurrences(of: "\\|", with: "|"))
        }
    }

    private static var keys: [String] {
        table.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "ConvertError.Code(\""),
                let end = line.range(of: "\"", range: start.upperBound..<line.endIndex)
            else { return nil }
            return String(line[start.upperBound..<end.lowerBound])
        }
    }

    @Test("every key is area.words-in-kebab-case and appears once")
    func style() {
        let keys = Self.keys
        #expect(keys.count > 50, "read \(keys.count) codes")
        #expect(Set(keys).count == keys.count)
        let style = /^[a-z]+(\.[a-z0-9]+(-[a-z0-9]+)*)?$/
        for key in keys { #expect(key.wholeMatch(of: style) != nil, "\(key)") }
        // The synonyms the issue named are gone.
        for old in [
            "input.notAFile", "input.not-file", "internal.alloc", "output.notFolder", "privacy.locationRemains",
        ] {
            #expect(!keys.contains(old))
        }
    }

    @Test("every code has one line saying when it is thrown, and its category is one of the seven")
    func documented() {
        let declared = Self.declared
        #expect(declared.count == Self.keys.count, "every declaration was read")
        let categories: Set<String> = [
            "input", "unsupported", "request", "device", "cancelled", "allowance", "internal",
        ]
        for code in declared {
            #expect(code.when.hasPrefix("`\(code.key)`: "), "\(code)")
            #expect(code.when.hasSuffix("."), "\(code)")
            #expect(code.when.count > "`\(code.key)`: ".count + 15, "\(code)")
            #expect(categories.contains(code.category), "\(code)")
        }
    }

    @Test(
        "the README's --json section lists every declared code, with its category and line (Scripts/error-codes --write)"
    )
    func readmeListsEveryCode() throws {
        let listed = try #require(Self.listed, "README.md has the error-codes markers")
        let declared = Self.declared
        let listedKeys = Set(listed.map(\.key))
        let declaredKeys = Set(declared.map(\.key))
        #expect(
            declaredKeys.subtracting(listedKeys).isEmpty,
            "declared, not in the README: \(declaredKeys.subtracting(listedKeys).sorted())")
        #expect(
            listedKeys.subtracting(declaredKeys).isEmpty,
            "in the README, not declared: \(listedKeys.subtracting(declaredKeys).sorted())")
        for code in declared {
            if let row = listed.first(where: { $0.key == code.key }) { #expect(row == code) }
        }
        #expect(listed.count == declared.count, "each code once")
    }

    @Test("a thrown error carries its typed code, and --json's key is the code's text")
    func typed() {
        let error = expectConvertError(.inputMissing) {
            try FileByteSource(path: "/nonexistent/offconvert-\(UUID().uuidString)")
        }
        #expect(error?.key == "input.missing")
        #expect(error?.category == .input)
        #expect(ConvertError.cancelled().code == .cancelled)
        #expect(ConvertError.wrapping(CocoaError(.fileNoSuchFile)).code == .internalError)
    }

    @Test("the category is the code's: one code is never two kinds of failure")
    func categoryFromCode() {
        #expect(ConvertError(code: .licenseExpired, message: "m").category == .allowance)
        #expect(ConvertError(code: .outputExists, message: "m").category == .request)
        #expect(ConvertError(code: .inputUnsupportedFeature, message: "m").category == .unsupported)
        #expect(ConvertError(code: .encodeFailed, message: "m").category == .internal)
        #expect(ConvertError.cancelled().category == .cancelled)
        #expect(ConvertError.wrapping(CocoaError(.fileNoSuchFile)).category == .internal)
    }
}
