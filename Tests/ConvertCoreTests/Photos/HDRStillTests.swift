import Foundation
import Testing

@testable import ConvertCore

/// The formulas and tables of the HDR still tone mapping (``HDRTransfer``, ``HDRToneMapper``,
/// ``GainMapBuilder``), checked against the standards' own numbers; and the two decoders
/// (offconvert's tile decoder and libheif) giving the same SDR picture. The end-to-end checks
/// against an independent oracle are in offconvertTests' HDRStillCommandTests.
@Suite("HDR stills: tone mapping and computed gain maps")
struct HDRStillTests {
    /// ST 2084's anchors, BT.2408's reference white (203 nits is 58% PQ, 75% HLG) and BT.2100's
    /// HLG inverse OETF at its joins.
    @Test("PQ and HLG formulas match the standards' values")
    func transfers() {
        #expect(abs(HDRTransfer.pqToNits(1) - 10000) < 1e-6)
        #expect(HDRTransfer.pqToNits(0) == 0)
        #expect(abs(HDRTransfer.nitsToPQ(203) - 0.5806) < 0.0005)
        #expect(abs(HDRTransfer.nitsToPQ(1000) - 0.7518) < 0.0005)
        for nits in [0.01, 1, 100, 203, 1000, 4000] {
            #expect(abs(HDRTransfer.pqToNits(HDRTransfer.nitsToPQ(nits)) - nits) < nits * 1e-9 + 1e-9)
        }
        #expect(abs(HDRTransfer.hlgToScene(0.5) - 1.0 / 12) < 1e-9)
        #expect(abs(HDRTransfer.hlgToScene(1) - 1) < 1e-6)
        // BT.2408: 75% HLG on a 1000-nit display (OOTF gamma 1.2) is 203 nits.
        let scene = HDRTransfer.hlgToScene(0.75)
        #expect(abs(1000 * pow(scene, 1.2) - 203) < 2)
    }

    /// BT.2390's EETF: the identity below the knee, the source peak onto SDR white, monotonic and
    /// continuous; a source no brighter than SDR white is left alone.
    @Test("the EETF keeps shadows, rolls highlights off to 203 nits")
    func eetf() {
        for peak in [1000.0, 4000, 10000] {
            #expect(abs(HDRToneMapper.eetf(nits: peak, peak: peak) - 203) < 0.01)
            #expect(abs(HDRToneMapper.eetf(nits: 10, peak: peak) - 10) < 1e-9)
            var previous = 0.0
            for step in 1...400 {
                let nits = peak * Double(step) / 400
                let mapped = HDRToneMapper.eetf(nits: nits, peak: peak)
                #expect(mapped >= previous && mapped <= 203.0001)
                // The slope is at most 1: nothing is brightened, no step jumps.
                #expect(mapped - previous <= peak / 400 + 1e-9, "no jump at \(nits) nits")
                previous = mapped
            }
        }
        #expect(HDRToneMapper.eetf(nits: 150, peak: 203) == 150)
    }

    /// SDR outputs are tone mapped; a JPEG XL keeps the code values with their transfer unless
    /// asked for SDR or its primaries cannot be named; HEIC and AVIF keep the code values.
    @Test("the policy of each output format")
    func policy() {
        #expect(HDRStillPolicy(format: .jpeg, hdr: .keep) == .toneMapWithGainMap)
        #expect(HDRStillPolicy(format: .jpeg, hdr: .sdr) == .toneMap)
        #expect([PhotoFormat.png, .webp].allSatisfy { HDRStillPolicy(format: $0, hdr: .keep) == .toneMap })
        #expect(
            HDRStillPolicy(format: .jxl, hdr: .keep) == .keepTransfer
                && HDRStillPolicy(format: .jxl, hdr: .sdr) == .toneMap)
        let pq2020 = NCLX(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
        let pqPAL = NCLX(primaries: 5, transfer: 16, matrix: 9, fullRange: true)
        #expect(!HDRStillPolicy.keepTransfer.toneMaps(pq2020) && HDRStillPolicy.keepTransfer.toneMaps(pqPAL))
        #expect(
            HDRStillPolicy.toneMap.toneMaps(pq2020)
                && !HDRStillPolicy.toneMap.toneMaps(NCLX(primaries: 1, transfer: 13, matrix: 1, fullRange: true)))
        #expect(HDRStillPolicy(format: .heic, hdr: .keep) == nil && HDRStillPolicy(format: .avif, hdr: .sdr) == nil)
        #expect(HDRTransfer(NCLX(primaries: 9, transfer: 16, matrix: 9, fullRange: false)) == .pq)
        #expect(HDRTransfer(NCLX(primaries: 9, transfer: 18, matrix: 9, fullRange: true)) == .hlg)
        #expect(HDRTransfer(NCLX(primaries: 1, transfer: 13, matrix: 5, fullRange: true)) == nil)
    }

    /// An HDR picture 4× its SDR one everywhere is a flat 2-stop map (with the 1/64 offsets:
    /// log2((4s + 1/64) / (s + 1/64)) where s = 0.5); the map is half the picture's size.
    @Test("the gain map of a uniform boost")
    func uniformBoost() {
        var builder = GainMapBuilder(width: 7, height: 5)
        for row in 0..<5 {
            builder.add(row: row, hdr: Array(repeating: 2, count: 7), sdr: Array(repeating: 0.5, count: 7))
        }
        let (plane, metadata) = builder.finish()
        #expect((plane.width, plane.height) == (4, 3))
        let expected = log2((2 + 1.0 / 64) / (0.5 + 1.0 / 64))
        #expect(abs(metadata.maxStops - expected) < 1e-5)
        #expect(metadata.minStops == 0)
        #expect(plane.pixels.allSatisfy { $0 == 255 })
        #expect(metadata.baseOffset == 1.0 / 64 && metadata.alternateOffset == 1.0 / 64)
    }

    /// A PQ picture no brighter than SDR white (Canon.HIF from exiv2's test data is one: its
    /// codes stop at 47 of 1023) is its own SDR rendition: no gain map, and a note saying why;
    /// with highlights the map's headroom is log2(peak / 203).
    @Test("a picture without highlights gets no gain map")
    func noHighlights() throws {
        let nclx = NCLX(primaries: 9, transfer: 16, matrix: 9, fullRange: true)
        func bitmap(signal: Double) -> Bitmap {
            let value = UInt16(signal * 65535)
            return Bitmap(
                width: 8, height: 8, channels: 3, samples: .sixteen(Array(repeating: value, count: 192)),
                sourceBitDepth: 10)
        }
        let dim = try #require(
            HDRStill.apply(bitmap(signal: 0.3), nclx: nclx, policy: .toneMapWithGainMap, measuring: true))
        #expect(dim.gainMap == nil)
        #expect(dim.notKeptNote == "HDR not kept: the picture has no highlights above SDR white")
        // Below the knee the picture is unchanged: 0.3 PQ is 10.0 nits, 10 / 203 in sRGB is 63.
        #expect(dim.bitmap.eightBitSamples.allSatisfy { $0 == 63 })
        let bright = try #require(
            HDRStill.apply(
                bitmap(signal: HDRTransfer.nitsToPQ(1000)), nclx: nclx, policy: .toneMapWithGainMap, measuring: true))
        let map = try #require(bright.gainMap)
        #expect(bright.bitmap.eightBitSamples.allSatisfy { $0 == 255 })
        let expected = log2((1000.0 / 203 + 1.0 / 64) / (1 + 1.0 / 64))
        #expect(abs(map.metadata.maxStops - expected) < 0.01, "\(map.metadata)")
        #expect(map.keptNote == "HDR kept as a gain map computed from the PQ picture (headroom 2.3 stops)")
    }

    /// offconvert's tile decoder and libheif's RGB decode give the same SDR picture: the tone
    /// mapping is the same code after either. (Not canon-422-pq: libheif 1.15's RGB of that
    /// 4:2:2 limited-range layout is about 10 levels off pillow-heif's newer libheif, which the
    /// tile decoder matches; HDRStillCommandTests checks it against that oracle.)
    @Test(
        "offconvert's tile decoder and libheif give the same tone-mapped picture",
        arguments: [
            "hdr-stills/pq.heic", "hdr-stills/hlg.heic",
        ])
    func decodersAgree(name: String) throws {
        let path = Fixtures.generated(name)
        var options = DecodeOptions()
        options.hdrStill = .toneMap
        let ours = try ImageDecoder.decode(path: path, options: options, cancellation: CancellationFlag())
        #expect(ours.toneMapped != nil)
        let handle = try HeifContext(reading: path, decodingThreads: 1).primaryImage()
        let decoded = try handle.decode(cancellation: CancellationFlag())
        let theirs = try #require(HDRStill.apply(decoded, nclx: handle.nclx, policy: .toneMap, measuring: false))
        let a = try #require(ours.frames.first?.bitmap.eightBitSamples)
        let b = theirs.bitmap.eightBitSamples
        try #require(a.count == b.count)
        var squared = 0.0
        for index in a.indices { squared += pow(Double(a[index]) - Double(b[index]), 2) }
        let psnr = 10 * log10(255 * 255 / max(squared / Double(a.count), 1e-9))
        #expect(psnr > 40, "\(name): \(psnr) dB")
        #expect(ours.frames.first?.bitmap.icc.flatMap(ColorProfiles.describe) == "BT.2020")
    }

    /// A gain map's HDR rendition in PQ: SDR white (1.0, 203 nits) and the boost of a full map
    /// value land on ST 2084's codes for those luminances.
    @Test("the HDR rendition of a gain map is coded as ST 2084 says")
    func rendition() throws {
        #expect(HDRRendition.pqCode(0) == 0)
        #expect(HDRRendition.pqCode(1000) == 65535)
        func code(_ nits: Double) -> UInt16 { UInt16((HDRTransfer.nitsToPQ(nits) * 65535).rounded()) }
        #expect(abs(Int(HDRRendition.pqCode(1)) - Int(code(203))) <= 1)
        // A white picture, a map at its largest value: 2 stops more, 812 nits; at 0, SDR white.
        let white = Bitmap(
            width: 4, height: 2, channels: 3, samples: .eight([UInt8](repeating: 255, count: 24)), sourceBitDepth: 8)
        let map = GrayPlane(width: 2, height: 1, pixels: [0, 255])
        let metadata = GainMapMetadata(maxStops: 2, alternateHeadroomStops: 2)
        let hdr = try HDRRendition.pq(white, plane: map, metadata: metadata, threads: 2, path: "white")
        guard case .sixteen(let samples) = hdr.samples else {
            Issue.record("16-bit samples")
            return
        }
        #expect(abs(Int(samples[0]) - Int(code(203))) <= 2, "\(samples[0]) vs \(code(203))")
        #expect(abs(Int(samples[3 * 3]) - Int(code(812))) <= 2, "\(samples[9]) vs \(code(812))")
        #expect(samples[0] == samples[1] && samples[1] == samples[2] && hdr.icc == nil)
    }
}
