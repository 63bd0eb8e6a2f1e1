import Foundation
import Testing

/// Issue #53: every error code is asserted by some test, or is listed here with the reason no
/// test can provoke it. A test uses a code when a test file names its member (`.requestMargin`)
/// or its key as a string literal (`"request.margin"`, as the `--json` tests read it).
@Suite("Error codes: each one tested or explained")
struct ErrorCodeCoverageTests {
    /// Codes no test provokes, each with why. Keep it short: a code that a test can reach gets a
    /// test instead, and a listed code that some test uses fails the check below.
    static let unreachableByTests: [String: String] = [
        "decode.failed":
            "libjxl's JxlDecoderCreate returned NULL, which only a failed allocation inside libjxl does.",
        "device.ffmpeg":
            "FFmpeg could not open or close the staged output for a reason other than space or I/O (those have "
            + "their own codes), right after our own staging created that very file in the same folder; no test "
            + "can arrange that without injecting a fault into FFmpeg.",
        "input.changed":
            "The photo must change between the two decodes of one size-target search; nothing can replace it at "
            + "that moment but a race, which would make a flaky test.",
        "internal.color":
            "Little CMS could not build its own sRGB profile, which only a failed allocation does.",
        "internal.edit-list":
            "The MP4 FFmpeg has just written cannot be read back, or holds another edit list than was written: "
            + "a bug in FFmpeg's muxer or ours, not something an input causes.",
        "internal.encoder":
            "An FFmpeg audio encoder that offers no sample format; none of FFmpeg 5.1's does.",
        "internal.ffmpeg":
            "FFmpeg failed where it should not (a muxer, a filter graph or an encoder would not open on settings "
            + "already checked); no file in TestMedia or the mutation suites triggers it, and the C path is fuzzed "
            + "under ASan.",
        "internal.memory":
            "An allocation failed (a codec library's handle, an FFmpeg context); not reachable without making "
            + "malloc fail.",
        "internal.resize":
            "libswscale refused a context for sizes already checked, which only a failed allocation does.",
        "internal.target-overshoot":
            "Every re-encode of a size-targeted video must come out over the target; no clip in TestMedia does, "
            + "and making one would take the encoder's rate control breaking.",
        "internal.tone-map":
            "FFmpeg's filter graph returned fewer table entries than were pushed through it: a bug or a failed "
            + "allocation in FFmpeg, not something an input causes.",
        "output.encoder-missing":
            "Needs a libheif without an HEVC or AV1 encoder; Debian 12's libheif 1.15 has them built in.",
        "unsupported.encoder":
            "Needs a build of FFmpeg without one of the encoders offconvert uses; Debian 12's has them all.",
    ]

    /// The folder `Tests/`.
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every declared code as (member name, key), read from ConvertErrorCode.swift.
    static func declaredCodes() throws -> [(name: String, key: String)] {
        let file = tests.deletingLastPathComponent().appendingPathComponent(
            "Sources/ConvertCore/API/ConvertErrorCode.swift")
        let table = try String(contentsOf: file, encoding: .utf8)
        let declaration = /public static let (\w+) = ConvertError\.Code\(\s*"([^"]+)"/
        return table.matches(of: declaration).map { (String($0.output.1), String($0.output.2)) }
    }

    /// The text of every Swift file under `Tests/` but this one.
    static func testSources() throws -> [String] {
        let own = URL(fileURLWithPath: #filePath).standardizedFileURL.path
        let files = try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
        return try files.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && $0.standardizedFileURL.path != own }
            .map { try String(contentsOf: $0, encoding: .utf8) }
    }

    /// Whether `sources` name the code's member (not as part of a longer name) or quote its key.
    static func isUsed(_ code: (name: String, key: String), in sources: [String]) -> Bool {
        sources.contains { text in
            text.contains("\"\(code.key)\"")
                || text.ranges(of: ".\(code.name)").contains { range in
                    range.upperBound == text.endIndex
                        || !(text[range.upperBound].isLetter || text[range.upperBound].isNumber
                            || text[range.upperBound] == "_")
                }
        }
    }

    @Test("every error code is asserted by a test or listed as unreachable with a reason, and no listed one is tested")
    func everyCodeTestedOrExplained() throws {
        let codes = try Self.declaredCodes()
        // The table has over 90 codes; far fewer means the pattern above stopped matching it.
        #expect(codes.count > 90, "\(codes.count) codes read")
        let sources = try Self.testSources()
        #expect(sources.count > 100, "\(sources.count) test files read")
        let keys = Set(codes.map(\.key))
        for key in Self.unreachableByTests.keys.sorted() where !keys.contains(key) {
            Issue.record("\(key) is listed as unreachable but is not a declared code")
        }
        for code in codes {
            let used = Self.isUsed(code, in: sources)
            let listed = Self.unreachableByTests[code.key] != nil
            #expect(
                used || listed, "\(code.key) (.\(code.name)) is neither asserted by a test nor listed as unreachable")
            #expect(
                !(used && listed), "\(code.key) is listed as unreachable, but a test uses it: remove it from the list")
        }
        for (key, reason) in Self.unreachableByTests {
            #expect(reason.count > 40, "\(key) needs a reason that explains why no test can provoke it")
        }
    }
}
