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
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }()

    private static var keys: [String] {
        table.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "ConvertError.Code(\""), let end = line.range(of: "\"", range: start.upperBound..<line.endIndex)
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
        for old in ["input.notAFile", "input.not-file", "internal.alloc", "output.notFolder", "privacy.locationRemains"] {
            #expect(!keys.contains(old))
        }
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
