import Testing

@testable import ConvertMedia
@testable import FFmpegLayer

/// `info` names a track's language only when the tag names one (issue 39: "???" was shown).
@Suite("Stream language tags")
struct StreamLanguageTests {
    @Test("ISO 639-2 codes and BCP 47 tags are kept", arguments: ["eng", "fra", "de", "en-US", "zh-Hant", "pt-BR"])
    func kept(_ tag: String) {
        #expect(StreamSnapshot.knownLanguage(tag) == tag)
    }

    @Test(
        "undetermined, placeholder and malformed tags are dropped",
        arguments: ["und", "???", "   ", "", "e", "engl", "en-", "12", "e?g"])
    func dropped(_ tag: String) {
        #expect(StreamSnapshot.knownLanguage(tag) == nil)
    }
}
