import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Photo direct decode and thread split")
struct PhotoDirectDecodeTests {
    /// iPhone grid photos and a single-image HEIC: libheif 1.15 gives the first in planar RGB and
    /// the second in YCbCr 4:2:0; the direct JPEG path's libheif fallback must take either without
    /// a conversion.
    @Test(
        "the direct path decodes HEICs to planes the JPEG encoder takes as they are",
        arguments: [
            "photos/IMG_5195.HEIC", "photos/pug.heic", "photos/xiaomi.heic", "photos/sample_still_photo.heic",
        ])
    func encoderReadyPlanes(fixture: String) throws {
        let path = Fixtures.path(fixture)
        let context = try HeifContext(reading: path, decodingThreads: 0)
        let handle = try #require(try PhotoConverter.libheifSource(context, maxPixels: PixelLimit.defaultMaxPixels))
        let image = try PhotoConverter.directPlanes(handle, cancellation: CancellationFlag())
        #expect(image.hasEightBitPlanes)
        let ycbcr = try image.withYCbCr420Planes { _, _, width, height in (width, height) }
        let rgb = try image.withRGBPlanes { _, _, width, height in (width, height) }
        let size = try #require(ycbcr ?? rgb)
        #expect(size.0 == handle.width && size.1 == handle.height)
        // Exactly one of the two layouts.
        #expect((ycbcr == nil) != (rgb == nil))
    }

    @Test("the RGB-plane encode matches encoding the same pixels interleaved")
    func rgbPlanesMatchInterleaved() throws {
        let width = 37
        let height = 21
        var mixer = FuzzMixer(state: 7)
        let planes = (0..<3).map { _ in (0..<(width * height)).map { _ in UInt8(truncatingIfNeeded: mixer.next()) } }
        var interleaved = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            for c in 0..<3 { interleaved[i * 3 + c] = planes[c][i] }
        }
        let encoder = try TurboJPEGHandle.compressor()
        let expected = try encoder.encodeRGB(interleaved, width: width, height: height, quality: 90, subsampling: .s420)
        let viaPlanes = try planes[0].withUnsafeBufferPointer { r in
            try planes[1].withUnsafeBufferPointer { g in
                try planes[2].withUnsafeBufferPointer { b in
                    try encoder.encodeRGBPlanes(
                        planes: [r.baseAddress!, g.baseAddress!, b.baseAddress!],
                        strides: [Int32(width), Int32(width), Int32(width)],
                        width: width, height: height, quality: 90)
                }
            }
        }
        #expect(viaPlanes == expected)
    }

    @Test("the decode-only floor decodes what heic-to-jpg converts, and refuses what it refuses")
    func decodeFloor() throws {
        try DecodeFloor.decodePrimary(path: Fixtures.path("photos/pug.heic"), decodingThreads: 0)
        try DecodeFloor.decodePrimary(path: Fixtures.path("photos/cat.hif"), decodingThreads: 1)
        expectConvertError(.inputCorrupt) {
            try DecodeFloor.decodePrimary(path: Fixtures.generated("broken-no-picture.jpg"), decodingThreads: 0)
        }
    }

    @Test("XMP edits skip the expressions only when no name can match")
    func xmpLiteralShortcut() throws {
        #expect(XMP.literalStart(of: "exif:GPS[A-Za-z]*") == "exif:GPS")
        #expect(XMP.literalStart(of: "photoshop:City") == "photoshop:City")
        let plain = Array(
            #"<x:xmpmeta><rdf:Description xmp:CreateDate="2024-01-01" photoshop:DateCreated="2024"/></x:xmpmeta>"#.utf8)
        #expect(XMP.removing(XMP.locationProperties, from: plain) == plain)
        #expect(!XMP.hasLocation(plain))
        let located = Array(
            #"<x:xmpmeta><rdf:Description exif:GPSLatitude="48,51.5N" photoshop:City="Paris"/></x:xmpmeta>"#.utf8)
        #expect(XMP.hasLocation(located))
        let cleaned = try #require(XMP.removing(XMP.locationProperties, from: located))
        let text = String(decoding: cleaned, as: UTF8.self)
        #expect(!text.contains("GPS") && !text.contains("City"))
        // A property matched beyond its literal start (the pattern part) is still found.
        let lookalike = Array(#"<x:xmpmeta><rdf:Description exif:GPSVersionIDX="1"/></x:xmpmeta>"#.utf8)
        #expect(XMP.hasLocation(lookalike))
    }

    /// (jobs, items, cores) → libheif decoding threads per photo.
    static let splits: [(jobs: Int, items: Int, cores: Int, threads: Int)] = [
        (2, 1, 2, 2),  // one photo: every core decodes its tiles
        (1, 50, 2, 2),  // --jobs 1: one photo at a time, all cores on it
        (2, 50, 2, 0),  // a batch with a job per core: tiles on the job's own thread
        (3, 50, 2, 0),  // more jobs than cores
        (8, 3, 8, 2),  // fewer photos than jobs: the cores are shared among the photos there are
        (2, 50, 8, 4),
        (0, 0, 0, 0),  // nonsense counts still give a usable value
    ]

    @Test("DecodingThreads splits the cores between jobs and tile threads", arguments: 0..<splits.count)
    func split(index: Int) {
        let row = Self.splits[index]
        #expect(DecodingThreads.perPhoto(jobs: row.jobs, items: row.items, cores: row.cores) == row.threads)
    }
}
