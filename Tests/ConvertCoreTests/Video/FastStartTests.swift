import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// ``FastStart``: the index of an MP4/MOV the muxer wrote last moved in front of the media data
/// without copying the data (or by copying, where the file system cannot insert a range), every
/// chunk offset moved with it; checked on movie boxes built here byte by byte and on real files
/// against ffmpeg's own `+faststart`.
@Suite("Fast start: the index moved to the front")
struct FastStartTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    static func stco(_ offsets: [UInt32]) -> [UInt8] {
        box("stco", [0, 0, 0, 0] + be32(UInt32(offsets.count)) + offsets.flatMap(be32))
    }

    static func co64(_ offsets: [UInt64]) -> [UInt8] {
        box("co64", [0, 0, 0, 0] + be32(UInt32(offsets.count)) + offsets.flatMap(be64))
    }

    /// A movie of two tracks whose sample tables end in the given chunk offset boxes, with an
    /// `stsz` and an `udta` beside them that must come through unchanged.
    static func moov(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
        func trak(_ offsets: [UInt8]) -> [UInt8] {
            box(
                "trak",
                box("tkhd", [UInt8](repeating: 7, count: 84))
                    + box(
                        "mdia",
                        box(
                            "minf",
                            box("stbl", box("stsz", [0, 0, 0, 0] + be32(4) + be32(0)) + offsets))))
        }
        return box(
            "moov", box("mvhd", [UInt8](repeating: 1, count: 100)) + trak(first) + trak(second) + box("udta", [9, 9]))
    }

    @Test("Every stco and co64 entry moves by the inserted room; nothing else changes, not even a box size")
    func movesOffsets() throws {
        let original = Self.moov(Self.stco([48, 1000, 70_000]), Self.co64([60, 5_000_000_000]))
        let moved = try FastStart.shifted(original, by: 8192)
        #expect(moved.count == original.count)
        #expect(moved == Self.moov(Self.stco([8240, 9192, 78_192]), Self.co64([8252, 5_000_008_192])))
    }

    @Test("An stco whose offsets pass 4 GiB once moved becomes a co64, and the trak, mdia, minf, stbl and moov grow")
    func widensOffsets() throws {
        let original = Self.moov(Self.stco([48, 4_294_000_000]), Self.stco([100]))
        let moved = try FastStart.shifted(original, by: 4_194_304)
        #expect(moved == Self.moov(Self.co64([4_194_352, 4_298_194_304]), Self.stco([4_194_404])))
        #expect(moved.count == original.count + 8)
    }

    @Test("A table claiming more entries than it holds is refused, not read past its end")
    func refusesShortTable() throws {
        let lying = Self.box("stco", [0, 0, 0, 0] + Self.be32(1_000_000) + Self.be32(48))
        #expect(throws: BoxError.self) { try FastStart.shifted(Self.moov(lying, Self.stco([1])), by: 4096) }
    }

    /// The top-level boxes of the file at `path`: type, offset and size.
    static func layout(_ path: String) throws -> [(type: String, offset: UInt64, size: UInt64)] {
        try BoxReader(source: FileByteSource(path: path)).children(of: nil, depth: 0).map {
            ($0.type.description, $0.offset, $0.size)
        }
    }

    /// ffmpeg's hash of every packet of every stream, the file's layout aside.
    static func packets(_ path: String) throws -> String {
        let result = try MediaTool.run(
            "ffmpeg", ["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"])
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .joined(separator: "\n")
    }

    @Test(
        "A file ffmpeg wrote index last: copied up, it is byte for byte ffmpeg's +faststart; with room inserted, the same packets",
        arguments: [
            "video/bikes.mp4", "video/motion.mov", "generated/subtitles.mp4", "generated/fidelity-editlist.mp4",
        ])
    func realFile(_ fixture: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input =
            fixture.hasPrefix("generated/") ? Fixtures.generated(String(fixture.dropFirst(10))) : Fixtures.path(fixture)
        let extensionName = (fixture as NSString).pathExtension
        let plain = directory.appendingPathComponent("plain.\(extensionName)").path
        let reference = directory.appendingPathComponent("reference.\(extensionName)").path
        #expect(
            try MediaTool.run("ffmpeg", ["-v", "error", "-i", input, "-map", "0", "-c", "copy", plain]).status == 0)
        #expect(
            try MediaTool.run(
                "ffmpeg", ["-v", "error", "-i", input, "-map", "0", "-c", "copy", "-movflags", "+faststart", reference]
            ).status == 0)
        let before = try Self.layout(plain)
        #expect(before.last?.type == "moov")
        let copied = directory.appendingPathComponent("copied.\(extensionName)").path
        let inserted = directory.appendingPathComponent("inserted.\(extensionName)").path
        try FileManager.default.copyItem(atPath: plain, toPath: copied)
        try FileManager.default.copyItem(atPath: plain, toPath: inserted)
        try FastStart.apply(path: copied, insertFrom: .max)
        try FastStart.apply(path: inserted, insertFrom: 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copied)) == Data(contentsOf: URL(fileURLWithPath: reference)))
        let after = try Self.layout(inserted)
        #expect(after.map(\.type).prefix(3) == ["ftyp", "moov", "free"])
        // The old boxes after ftyp (ffmpeg's free or wide, the mdat) follow, each whole.
        #expect(Array(after.map(\.type).dropFirst(3)) == Array(before.map(\.type).dropFirst().dropLast()))
        let moov = before.last!.size
        let room = after[2].offset + after[2].size - after[1].offset
        #expect(room % 512 == 0 && room >= moov + 8 && room < moov + 8 + 65_536)
        let size = try FileManager.default.attributesOfItem(atPath: inserted)[.size] as! UInt64
        #expect(size == before.last!.offset + room)
        #expect(try Self.packets(inserted) == Self.packets(reference))
        #expect(try MediaTool.decodeErrors(inserted) == "")
        // Nothing to move a second time.
        let moved = try Data(contentsOf: URL(fileURLWithPath: inserted))
        try FastStart.apply(path: inserted, insertFrom: 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: inserted)) == moved)
    }

    @Test("send-to-windows writes its copy index first, with the packets ffmpeg -c copy -movflags +faststart writes")
    func passthroughOutput() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Fixtures.path("video/bikes.mp4")
        let result = try await VideoConverter.convert(
            .sendToWindows(input, output: OutputLocation(directory: directory.path))
        ).result()
        #expect(result.notes.messages.contains("video copied without re-encoding"))
        let output = try outputPath(result)
        #expect(try Self.layout(output).map(\.type) == ["ftyp", "moov", "free", "mdat"])
        let reference = directory.appendingPathComponent("reference.mp4").path
        #expect(
            try MediaTool.run(
                "ffmpeg",
                [
                    "-v", "error", "-i", input, "-map", "0:v:0", "-map", "0:a:0?", "-c", "copy", "-movflags",
                    "+faststart", reference,
                ]
            ).status == 0)
        #expect(try Self.packets(output) == Self.packets(reference))
    }
}
