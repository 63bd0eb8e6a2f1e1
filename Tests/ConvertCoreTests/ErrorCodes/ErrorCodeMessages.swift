import Foundation
import Testing

@testable import ConvertCore

/// What the error-code suites check of every message besides its code.
enum ErrorCodeMessages {
    /// The libraries offconvert is built on, which a message an app shows must not name.
    static let libraries = ["FFmpeg", "libheif", "Little CMS", "lcms", "libjpeg", "TurboJPEG", "libde265", "x265"]

    /// Expects `error`'s public message to be a sentence that names no library and no folder of the tests.
    static func expectShowable(_ error: ConvertError?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else { return }
        let shown = error.publicMessage
        #expect(shown.first?.isUppercase == true, "\(error.key): \(shown)", sourceLocation: sourceLocation)
        // The tests' inputs and outputs all live under the temporary folder, or under TestMedia.
        for folder in [FileManager.default.temporaryDirectory.path, "TestMedia"] {
            #expect(!shown.contains(folder), "\(error.key): \(shown)", sourceLocation: sourceLocation)
        }
        for name in libraries {
            #expect(!shown.contains(name), "\(error.key): \(shown)", sourceLocation: sourceLocation)
        }
    }

    /// Runs `job`, expects `code` with `words` in its message, a message an app may show, and
    /// nothing left in `folder`.
    static func expectFailure(
        _ job: ConversionJob, _ code: ConvertError.Code, saying words: String, folder: URL,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await expectConvertError(code, sourceLocation: sourceLocation) { try await job.result() }
        #expect(error?.message.contains(words) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        expectShowable(error, sourceLocation: sourceLocation)
        #expect(fileNames(in: folder).isEmpty, "\(code) wrote \(fileNames(in: folder))", sourceLocation: sourceLocation)
    }
}
