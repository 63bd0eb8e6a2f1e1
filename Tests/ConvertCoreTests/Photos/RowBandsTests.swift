import Foundation
import Synchronization
import Testing

@testable import ConvertCore

/// ``RowBands`` and the band-parallel HDR tone map built on it: the bands cover every row once,
/// start where a block starts, and splitting the rows among workers changes no pixel of the
/// picture or its computed gain map.
@Suite("Row bands: parallel per-pixel passes")
struct RowBandsTests {
    @Test(
        "bands cover every row once, in order, aligned to blocks",
        arguments: [
            (rows: 1600, workers: 2, alignment: 2), (rows: 1601, workers: 2, alignment: 2),
            (rows: 7, workers: 3, alignment: 2),
            (rows: 1, workers: 4, alignment: 2), (rows: 5, workers: 8, alignment: 1),
            (rows: 100, workers: 1, alignment: 4),
        ])
    func coverage(rows: Int, workers: Int, alignment: Int) {
        let bands = RowBands(rows: rows, workers: workers, alignment: alignment)
        #expect(!bands.ranges.isEmpty && bands.ranges.count <= workers)
        #expect(bands.ranges.first?.lowerBound == 0 && bands.ranges.last?.upperBound == rows)
        for (above, below) in zip(bands.ranges, bands.ranges.dropFirst()) {
            #expect(above.upperBound == below.lowerBound)
        }
        #expect(bands.ranges.allSatisfy { $0.lowerBound % alignment == 0 && !$0.isEmpty })
        let seen = Mutex<[Int]>([])
        bands.forEachBand { _, range in seen.withLock { $0.append(contentsOf: range) } }
        #expect(seen.withLock { $0.sorted() } == Array(0..<rows))
    }

    @Test("a picture of no rows has no bands")
    func empty() {
        #expect(RowBands(rows: 0, workers: 2).ranges.isEmpty)
    }

    /// The PQ and HLG fixtures and the Canon 4:2:2 PQ one (an odd number of block rows per band
    /// for three workers), decoded by the tile decoder with one, two and three workers: the SDR
    /// picture and the gain map are the same bytes.
    @Test(
        "the tone map and its gain map do not depend on the number of workers",
        arguments: [
            "hdr-stills/pq.heic", "hdr-stills/hlg.heic", "heif-cameras/canon-422-pq.heic",
        ])
    func workersAgree(name: String) throws {
        func decode(threads: Int) throws -> (pixels: [UInt8], map: GrayPlane?, metadata: GainMapMetadata?) {
            var options = DecodeOptions()
            options.hdrStill = .toneMapWithGainMap
            options.decodingThreads = threads
            let photo = try ImageDecoder.decode(
                path: Fixtures.generated(name), options: options, cancellation: CancellationFlag())
            #expect(photo.toneMapped != nil)
            return (
                try #require(photo.frames.first?.bitmap.eightBitSamples), photo.hdrGainMap?.map.plane,
                photo.hdrGainMap?.map.metadata
            )
        }
        let one = try decode(threads: 1)
        #expect(one.map != nil, "\(name) is bright enough for a gain map")
        for threads in [2, 3] {
            let many = try decode(threads: threads)
            #expect(many.pixels == one.pixels, "\(name), \(threads) workers: SDR pixels")
            #expect(many.map == one.map && many.metadata == one.metadata, "\(name), \(threads) workers: gain map")
        }
    }
}
