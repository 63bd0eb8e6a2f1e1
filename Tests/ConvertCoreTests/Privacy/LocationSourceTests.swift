import ConvertMedia
import Foundation
import Testing

@testable import ConvertCore

/// One vocabulary for where a location is recorded: stable ids in JSON, words in messages.
@Suite("Location sources")
struct LocationSourceTests {
    @Test("the JSON ids are stable")
    func ids() throws {
        let ids = LocationSource.allCases.map(\.rawValue)
        #expect(
            ids == [
                "exif", "xmp", "iptc", "exif-thumbnail", "thumbnail", "other-image", "motion-video", "container",
                "samsung-mcc", "xmp-cell", "darwin-core", "flir", "gpmf-telemetry",
                "dji-telemetry", "unread-telemetry",
            ])
        let json = try JSONEncoder().encode(LocationPresence(sources: [.exif, .motionVideo]))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["sources"] as? [String] == ["exif", "motion-video"])
        #expect(object["present"] as? Bool == true)
    }

    @Test("messages name each place in words, once each")
    func words() {
        #expect([LocationSource.exif, .xmp].words == "EXIF GPS, XMP")
        let words = LocationSource.allCases.map(\.words)
        #expect(Set(words).count == words.count)
        #expect(!words.contains { $0.contains("-") })
    }
}
