import Foundation
import Testing

@testable import ConvertAllowance
@testable import ConvertCore

/// The FoundationEssentials replacements on the photo side give what full Foundation gave:
/// trimming, backwards search, the ICU-syntax patterns over Swift `Regex`, and the dates.
@Suite("FoundationEssentials replacements match Foundation")
struct FoundationEquivalenceTests {
    static let untrimmed = [
        "", " ", "\t", "plain", "  both ends\t", "\n line \r\n", "\u{A0}nbsp\u{A0}", "\u{2003}em\u{3000}",
        "\u{2028}ls\u{2029}", "\u{85}nel\u{85}", "\u{B}vt\u{C}", "in side", " e\u{301} ", "\u{301}combining ",
    ]

    @Test("trimming spaces and white space with line breaks")
    func trimming() {
        for text in Self.untrimmed {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            #expect(
                text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(text.debugDescription)")
        }
    }

    @Test("the last occurrence of a string")
    func lastRange() {
        for (text, needle) in [
            ("a (2) (3)", " ("), ("photo (12)", " ("), ("none", " ("), ("aaaa", "aa"),
            (".x.offconvert-abc", ".offconvert-"),
        ] {
            let expected = text.range(of: needle, options: .backwards)
            #expect(text.lastRange(of: needle) == expected, "\(text) / \(needle)")
        }
    }

    static let packet = """
        <x:xmpmeta><rdf:RDF><rdf:Description rdf:about="" exif:GPSLatitude="47,36.37N" \
        exif:GPSLongitude='122,19.9W' GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1">
        <exif:GPSAltitude>12/1</exif:GPSAltitude><exif:GPSVersionID/><Container:Directory><rdf:Seq>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary"/></rdf:li>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="42"/></rdf:li>
        </rdf:Seq></Container:Directory><dc:title>Caf\u{E9} \u{1F600}</dc:title></rdf:Description></rdf:RDF></x:xmpmeta>
        """

    static let patterns = [
        "\\sexif:GPS[A-Za-z]*\\s*=\\s*(\"[^\"]*\"|'[^']*')", "<(exif:GPS[A-Za-z]*)(\\s[^>]*)?/>",
        "<(exif:GPS[A-Za-z]*)(\\s[^>]*)?>[\\s\\S]*?</\\1>", "<([A-Za-z0-9_]+:Directory)(\\s[^>]*)?>[\\s\\S]*?</\\1>",
        "<rdf:li(\\s[^>]*)?>(?:(?!</rdf:li>)[\\s\\S])*?:Semantic\\s*=\\s*[\"']MotionPhoto[\"'][\\s\\S]*?</rdf:li>",
        "[<\\s]exif:GPS[A-Za-z]*[\\s=/>]", "[\\s<][A-Za-z0-9_]+:MotionPhoto\\s*=\\s*[\"']([^\"']*)[\"']", "nowhere",
    ]

    @Test("patterns remove, count, find and capture as NSRegularExpression did")
    func patterns() throws {
        let text = Self.packet
        for pattern in Self.patterns {
            let expression = try NSRegularExpression(pattern: pattern)
            let whole = NSRange(text.startIndex..., in: text)
            #expect(
                text.removingMatches(of: pattern)
                    == text.replacingOccurrences(of: pattern, with: "", options: .regularExpression),
                "\(pattern)")
            #expect(text.matchCount(of: pattern) == expression.numberOfMatches(in: text, range: whole), "\(pattern)")
            #expect(
                text.containsMatch(of: pattern) == (text.range(of: pattern, options: .regularExpression) != nil),
                "\(pattern)")
            let starts = expression.matches(in: text, range: whole).compactMap { Range($0.range, in: text)?.lowerBound }
            #expect(text.matchStarts(of: pattern) == starts, "\(pattern)")
            let capture =
                expression.numberOfCaptureGroups < 1
                ? nil
                : expression.firstMatch(in: text, range: whole).flatMap { Range($0.range(at: 1), in: text) }.map {
                    text[$0]
                }
            #expect(text.firstCapture(of: pattern) == capture, "\(pattern)")
        }
    }

    @Test("ISO 8601 times: local with the zone's offset, and a licence's UTC times read and written")
    func iso8601() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let local = ISO8601DateFormatter()
        local.formatOptions = [.withInternetDateTime]
        local.timeZone = .current
        for seconds in stride(from: -86_400 * 400, through: 86_400 * 40_000, by: 86_400 * 97 + 3_671) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(LocalDay(zone: nil).iso8601(date) == local.string(from: date))
            #expect(date.formatted(Date.ISO8601FormatStyle()) == formatter.string(from: date))
        }
        for text in [
            "2026-12-01T00:00:00Z", "2030-01-02T03:04:05+01:00", "2030-01-02T03:04:05-0930", "2026-12-01", "never", "",
        ] {
            #expect((try? Date.ISO8601FormatStyle().parse(text)) == formatter.date(from: text), "\(text)")
        }
    }

    @Test("EXIF capture times in UTC as DateFormatter wrote them")
    func captureDates() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        for (local, offset) in [
            ("2020:07:10 06:16:29", "+02:00"), ("1999:12:31 23:59:59", nil), ("2024:02:29 00:00:00", "-05:30"),
            ("1905:01:01 00:00:00", nil),
        ] {
            let parsed = try #require(CaptureDate.parse(local, offset: offset))
            let numbers = local.split(whereSeparator: { ":- ".contains($0) }).compactMap { Int($0) }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
            let components = DateComponents(
                year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4],
                second: numbers[5])
            let utc = Int(try #require(calendar.date(from: components)).timeIntervalSince1970)
            let shift =
                offset.map {
                    ($0.first == "-" ? -1 : 1) * (Int($0.dropFirst().prefix(2))! * 3600 + Int($0.suffix(2))! * 60)
                } ?? 0
            #expect(parsed.secondsSince1970 == utc - shift, "\(local)")
            #expect(
                parsed.text
                    == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(parsed.secondsSince1970))),
                "\(local)")
        }
    }
}
