import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// ``EditListEnd``: the muxer's edit of a track shortened in place, its track and movie durations
/// with it, on movie boxes built here byte by byte (32- and 64-bit fields, an empty edit first).
@Suite("Edit list end")
struct EditListEndTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    /// mvhd v0: timescale 1000, `duration`.
    static func mvhd(_ duration: UInt32) -> [UInt8] {
        box("mvhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(1000) + be32(duration) + [UInt8](repeating: 0, count: 80))
    }

    /// tkhd v0 with `duration`.
    static func tkhd(_ duration: UInt32, id: UInt32) -> [UInt8] {
        box(
            "tkhd",
            [0, 0, 0, 3] + be32(0) + be32(0) + be32(id) + be32(0) + be32(duration) + [UInt8](repeating: 0, count: 60))
    }

    /// elst v1: an empty edit of 20, then the media edit of `duration` from media time 1280.
    static func elst(_ duration: UInt64) -> [UInt8] {
        box(
            "elst",
            [1, 0, 0, 0] + be32(2) + be64(20) + be64(UInt64.max) + be32(0x10000)
                + be64(duration) + be64(1280) + be32(0x10000))
    }

    static func moov(video: UInt64, audio: UInt32) -> [UInt8] {
        let videoTrak = box("trak", tkhd(UInt32(video + 20), id: 1) + box("edts", elst(video)))
        let audioTrak = box(
            "trak",
            tkhd(audio, id: 2)
                + box("edts", box("elst", [0, 0, 0, 0] + be32(1) + be32(audio) + be32(0) + be32(0x10000))))
        return box("moov", mvhd(UInt32(video + 20)) + videoTrak + audioTrak)
    }

    @Test(
        "Shortening track 0 by 0.06 s: its media edit 167 → 107 ms, its track 187 → 127, the movie to its longest track"
    )
    func shortens() throws {
        let original = Self.moov(video: 167, audio: 105)
        let patched = try EditListEnd.shortened(original, by: [0: 0.06])
        #expect(patched.count == original.count)
        #expect(patched == Self.moov(video: 107, audio: 105))
    }

    @Test("A trim of part of a tick takes the whole tick: the kept edit rounds down, so a hidden frame stays hidden")
    func roundsKeptEditDown() throws {
        let original = Self.moov(video: 167, audio: 105)
        #expect(try EditListEnd.shortened(original, by: [0: 0.0592]) == Self.moov(video: 107, audio: 105))
    }

    @Test("A trim as long as the edit, or of a track not listed, changes nothing")
    func leavesAlone() throws {
        let original = Self.moov(video: 167, audio: 105)
        #expect(try EditListEnd.shortened(original, by: [0: 0.5]) == original)
        #expect(try EditListEnd.shortened(original, by: [5: 0.05]) == original)
        #expect(try EditListEnd.shortened(original, by: [:]) == original)
    }

    /// `moov` of a long clip: the tracks above, then `padding` bytes of sample tables (a `free`
    /// box here), as a half-hour phone clip's megabyte-sized index.
    static func longMoov(video: UInt64, audio: UInt32, padding: Int) -> [UInt8] {
        let short = moov(video: video, audio: audio)
        return box("moov", Array(short[8...]) + box("free", [UInt8](repeating: 0, count: padding)))
    }

    @Test("An index over the box reader's 1 MiB read is read back in pieces and shortened in the file")
    func longIndexInFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("long.mp4").path
        let head = Self.box("ftyp", Array("isom".utf8) + Self.be32(512)) + Self.box("mdat", [1, 2, 3, 4])
        let original = Self.longMoov(video: 167, audio: 105, padding: 3 << 20)
        try Data(head + original).write(to: URL(fileURLWithPath: path))
        try EditListEnd.shorten(path: path, by: [0: 0.06])
        let written = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written == head + Self.longMoov(video: 107, audio: 105, padding: 3 << 20))
    }
}
