import Foundation
import Testing

@testable import ConvertCore

/// The pieces under the AVIF input fixes (issue #55), on libavif's own test files
/// (TestMedia/photos/formats/): the size an AV1 sequence header states, an animated AVIF's movie
/// track read for its frames and time (ffprobe: 5 frames at 30 fps), and the `meta` edit that gives
/// an alpha item without `ispe` its size, after which libheif attaches the alpha and every
/// item's bytes are where they were.
@Suite("AVIF structure: sequence headers, image sequences, alpha without ispe")
struct AVIFStructureTests {
    static let alpha = Fixtures.path("photos/formats/alpha.avif")
    static let animated = Fixtures.path("photos/formats/animated.avif")

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func meta(_ bytes: [UInt8]) throws -> HeifMeta { try HeifMeta(source: MemoryByteSource(bytes: bytes)) }

    @Test("an AV1 item's sequence header gives its size; bytes cut inside it give none")
    func sequenceHeader() throws {
        let model = try Self.meta(try Self.bytes(Self.alpha))
        for id in [UInt32(1), 2] {
            let coded = try #require(try model.data(of: id, limit: 1 << 20))
            let size = try #require(AV1SequenceHeader.frameSize(in: coded))
            #expect(size.width == 80 && size.height == 80)
            #expect(AV1SequenceHeader.frameSize(in: Array(coded.prefix(4))) == nil)
        }
        #expect(AV1SequenceHeader.frameSize(in: []) == nil)
        // A last OBU header whose extension byte is missing, with and without a size field.
        #expect(AV1SequenceHeader.frameSize(in: [0x12, 0x00, 0x0C]) == nil)
        #expect(AV1SequenceHeader.frameSize(in: [0x12, 0x00, 0x0E]) == nil)
        #expect(AV1SequenceHeader.frameSize(in: [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
    }

    @Test("an animated AVIF's track has 5 frames in 0.167 s; a still AVIF and a cut copy have no track")
    func imageSequence() throws {
        let data = try Self.bytes(Self.animated)
        let track = try #require(ImageSequenceTrack.read(MemoryByteSource(bytes: data)))
        #expect(track == ImageSequenceTrack(frames: 5, milliseconds: 166))
        #expect(ImageSequenceTrack.read(MemoryByteSource(bytes: try Self.bytes(Self.alpha))) == nil)
        // The moov box runs from byte 286 to 1015: cut inside it, no track is read.
        #expect(ImageSequenceTrack.read(MemoryByteSource(bytes: Array(data.prefix(600)))) == nil)
    }

    /// A box of `type` around `payload`.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(8 + payload.count).bigEndian, Array.init) + Array(type.utf8) + payload
    }

    /// A movie of one picture track whose `stts` has `entries` (sample count, delta) at `timescale`.
    static func movie(timescale: UInt32, entries: [(UInt32, UInt32)]) -> [UInt8] {
        func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        let handler = box("hdlr", [0, 0, 0, 0] + u32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let header = box("mdhd", [0, 0, 0, 0] + u32(0) + u32(0) + u32(timescale) + u32(0) + [0, 0, 0, 0])
        let times = box("stts", [0, 0, 0, 0] + u32(UInt32(entries.count)) + entries.flatMap { u32($0.0) + u32($0.1) })
        let media = box("mdia", handler + header + box("minf", box("stbl", times)))
        return box("ftyp", Array("avis".utf8) + [0, 0, 0, 0]) + box("moov", box("trak", media))
    }

    @Test("a track's timing from its stts: summed, and none where it would overflow or claims too many frames")
    func hostileTiming() {
        let track = ImageSequenceTrack.read(
            MemoryByteSource(bytes: Self.movie(timescale: 10, entries: [(3, 1), (2, 4)])))
        #expect(track == ImageSequenceTrack(frames: 5, milliseconds: 1100))
        for entries in [[(UInt32(1 << 24), UInt32.max)], [(UInt32.max, UInt32(1))], [(UInt32(0), UInt32(1))]] {
            #expect(ImageSequenceTrack.read(MemoryByteSource(bytes: Self.movie(timescale: 1, entries: entries))) == nil)
        }
        #expect(ImageSequenceTrack.read(MemoryByteSource(bytes: Self.movie(timescale: 0, entries: [(5, 1)]))) == nil)
    }

    @Test("the alpha item gets an ispe: libheif attaches the alpha, and every item's bytes stay where they were")
    func alphaGivenSize() throws {
        let original = try Self.bytes(Self.alpha)
        let edited = try #require(HeifAuxiliaryEditor.givingSize(original, toAlpha: 2, width: 80, height: 80))
        #expect(edited.count == original.count + 20 + 1, "a 20-byte ispe and a one-byte association")
        let before = try Self.meta(original)
        let after = try Self.meta(edited)
        for id in before.itemIDs {
            #expect(try after.data(of: id, limit: 1 << 20) == (try before.data(of: id, limit: 1 << 20)))
        }
        let file = try #require(try HeifFile(meta: after, path: Self.alpha))
        let size = try #require(file.codedSize(2))
        #expect(size.width == 80 && size.height == 80)
        #expect(after.properties[2]?.contains { $0.property == .ispe(width: 80, height: 80) && !$0.essential } == true)

        let plain = try HeifContext(reading: Self.alpha, decodingThreads: 0)
        #expect(try plain.primaryImage().hasAlpha == false, "libheif 1.15 drops it unedited")
        let context = try HeifContext.reading(path: Self.alpha, decodingThreads: 0, meta: nil)
        #expect(try context.primaryImage().hasAlpha)
        let bitmap = try context.primaryImage().decode(cancellation: CancellationFlag())
        #expect(bitmap.channels == 4)
    }
}
