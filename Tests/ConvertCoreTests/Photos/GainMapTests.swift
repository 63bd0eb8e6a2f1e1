import Foundation
import Testing

@testable import ConvertCore

/// The pieces of the Ultra HDR writer that need no decoder: Apple's headroom formula and its
/// MakerNote reading (checked against exiftool's reading of the same tags), the linear → log
/// table, and the gain map's transforms.
@Suite("HDR gain maps: headroom, table, transforms")
struct GainMapTests {
    @Test(
        "Apple's formula, each branch",
        arguments: [
            (0.5, 0.005, 1.7), (0.5, 2.0, 1.399), (1.01, 0.003, 2.79), (1.2, 0.5, 2.1515), (1.0, 9.0, 0.0),
        ])
    func formula(maker33: Double, maker48: Double, stops: Double) {
        #expect(abs(AppleHeadroom.stops(maker33: maker33, maker48: maker48) - stops) < 1e-9)
    }

    @Test(
        "the MakerNote's 0x0021 and 0x0030 are read as exiftool reads them",
        arguments: ["photos/pug.heic", "photos/IMG_3853.HEIC"])
    func makerNote(path: String) throws {
        let file = try #require(try HeifFile.open(path: Fixtures.path(path)))
        let exif = try #require(file.exif(file.primaryID))
        let ours = try #require(AppleHeadroom.stops(exif: exif))
        let run = try PhotoReference.run(
            "exiftool", ["-s3", "-n", "-MakerNotes:HDRHeadroom", "-MakerNotes:HDRGain", Fixtures.path(path)])
        let text = String(decoding: run.output, as: UTF8.self)
        let values = text.split(whereSeparator: \.isNewline).compactMap { Double($0) }
        // pug.heic (iOS 16) has 0x0021 only: Apple reads a missing 0x0030 as 0.
        try #require(!values.isEmpty, "\(text)")
        #expect(abs(ours - AppleHeadroom.stops(maker33: values[0], maker48: values.count > 1 ? values[1] : 0)) < 1e-6)
    }

    /// Each Apple code maps to the log code whose boost is nearest Apple's boost for it.
    @Test("the table gives the nearest logarithmic code for every Apple value", arguments: [0.5, 1.8, 2.8, 3.0])
    func table(stops: Double) {
        let table = GainMapTable(appleStops: stops).values
        #expect(table[0] == 0 && table[255] == 255)
        #expect(zip(table, table.dropFirst()).allSatisfy { $0 <= $1 })
        let headroom = pow(2, stops)
        for code in 0...255 {
            let apple = log2(1 + (headroom - 1) * GainMapTable.rec709ToLinear(Double(code) / 255))
            let error = abs(stops * Double(table[code]) / 255 - apple)
            #expect(error <= stops / 255 / 2 + 1e-9, "code \(code)")
        }
    }

    @Test("a gain map turns and mirrors as HEIF's irot and imir say")
    func transforms() {
        let plane = GrayPlane(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])
        #expect(plane.applying(.rotate(quarterTurns: 1)) == GrayPlane(width: 2, height: 3, pixels: [3, 6, 2, 5, 1, 4]))
        #expect(plane.applying(.rotate(quarterTurns: 2)) == GrayPlane(width: 3, height: 2, pixels: [6, 5, 4, 3, 2, 1]))
        #expect(plane.applying(.rotate(quarterTurns: 3)) == GrayPlane(width: 2, height: 3, pixels: [4, 1, 5, 2, 6, 3]))
        #expect(
            plane.applying(.mirror(topToBottom: false)) == GrayPlane(width: 3, height: 2, pixels: [3, 2, 1, 6, 5, 4]))
        #expect(
            plane.applying(.mirror(topToBottom: true)) == GrayPlane(width: 3, height: 2, pixels: [4, 5, 6, 1, 2, 3]))
        #expect(plane.resized(width: 1, height: 1).pixels == [4])  // (1+…+6)/6 = 3.5, rounded
    }

    /// The ISO 21496-1 record reads back what the writer wrote, and a record with separate
    /// denominators (as iOS 18's `tmap` has) reads as the fractions say.
    @Test("ISO 21496-1 records: our own round trip, separate denominators, refusals")
    func isoRecord() throws {
        let written = GainMapMetadata(
            minStops: -0.5, maxStops: 2.25, gamma: 0.9, baseOffset: 0.015625, alternateOffset: 0.0078125,
            baseHeadroomStops: 0.5,
            alternateHeadroomStops: 2.25)
        let payload = Array(written.isoGainMapPayload.dropFirst(GainMapMetadata.isoNamespace.count))
        let read = try #require(GainMapMetadata(isoRecord: payload))
        for (a, b) in [
            (read.minStops, -0.5), (read.maxStops, 2.25), (read.gamma, 0.9), (read.baseOffset, 0.015625),
            (read.alternateOffset, 0.0078125), (read.baseHeadroomStops, 0.5), (read.alternateHeadroomStops, 2.25),
        ] {
            #expect(abs(a - b) < 1e-6)
        }
        func u32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) } }
        // iOS 18's record (IMG_3853.HEIC), each value over its own denominator of 1,000,000.
        var separate: [UInt8] = [0, 0, 0, 0, 0x40]
        for numerator: UInt32 in [0, 2_787_109, 0, 2_787_109, 896_973, 10, 10] {
            separate += u32(numerator) + u32(1_000_000)
        }
        let iOS18 = try #require(GainMapMetadata(isoRecord: separate))
        #expect(
            abs(iOS18.gamma - 0.896973) < 1e-9 && abs(iOS18.maxStops - 2.787109) < 1e-9
                && abs(iOS18.baseOffset - 1e-5) < 1e-12)
        #expect(GainMapMetadata(isoRecord: Array(separate.dropLast())) == nil)
        var backward = separate
        backward[4] |= 0x04
        #expect(GainMapMetadata(isoRecord: backward) == nil)
        var newer = separate
        newer[1] = 1
        #expect(GainMapMetadata(isoRecord: newer) == nil)
        // A tmap item's record is written in iOS 18's (and libavif's) form, byte for byte.
        #expect(iOS18.toneMapItemRecord == separate)
    }

    /// libavif's three-channel record (photos/hdr/iso21496-gainmap.avif's `tmap` item after its
    /// version byte, each channel's minimum, maximum and gamma over denominators of their own):
    /// each channel as written, one channel spanning them, and the map made one channel.
    @Test("a three-channel ISO 21496-1 record: each channel, the spanning channel, the combined map")
    func multichannelRecord() throws {
        let hex = [
            "00000000c000000000000000010000000d0000000afffc1475000f424000137cf9000f42400001d1b70001e848000000",
            "01000000400000000100000040ffff33cf00030d4000137d13000f42400002df3b00030d400000000100000040000000",
            "0100000040fffeee490003d09000138011000f4240000703bf0007a12000000001000000400000000100000040",
        ].joined()
        let record = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
        let read = try #require(GainMapMetadata.isoChannels(record: record))
        #expect(read.count == 3 && abs(read[2].minStops + 0.280284) < 1e-9 && abs(read[1].gamma - 0.941095) < 1e-9)
        #expect(read.allSatisfy { abs($0.alternateHeadroomStops - 1.3) < 1e-9 && $0.baseOffset == 1.0 / 64 })
        // Channels that differ are not one channel's parameters.
        #expect(GainMapMetadata(isoRecord: record) == nil)
        let span = try #require(GainMapMetadata.spanning(read))
        #expect(abs(span.minStops + 0.280284) < 1e-9 && abs(span.maxStops - 1.277969) < 1e-9 && span.gamma == 1)
        // One channel's values for all three: the grey map comes back code for code.
        let grey: [UInt8] = [0, 64, 128, 255]
        let bitmap = Bitmap(
            width: 4, height: 1, channels: 3, samples: .eight(grey.flatMap { [$0, $0, $0] }), sourceBitDepth: 8)
        let same = AVIFGainMapImage.combined(bitmap, channels: [read[0]], target: read[0])
        #expect(same?.pixels == grey)
        // Three channels coded with the span: each pixel's boost is the channels' weighted mean.
        let combined = try #require(AVIFGainMapImage.combined(bitmap, channels: read, target: span))
        for (index, code) in grey.enumerated() {
            let weights = [0.2126, 0.7152, 0.0722]
            let boost = zip(read, weights).reduce(0.0) { sum, pair in
                let value = pow(Double(code) / 255, 1 / pair.0.gamma)
                return sum + pair.1 * (pair.0.minStops + (pair.0.maxStops - pair.0.minStops) * value)
            }
            let expected = ((boost - span.minStops) / (span.maxStops - span.minStops) * 255).rounded()
            #expect(abs(Double(combined.pixels[index]) - expected) <= 1, "\(index): \(combined.pixels)")
        }
    }

    /// iOS 18 writes a `tmap` item over the primary and the Apple map: its parameters win.
    @Test("an iOS 18 HEIC's tmap item is preferred; an iOS 16 one has Apple's only")
    func tmapPreferred() throws {
        let iOS18 = try #require(try HeifFile.open(path: Fixtures.path("photos/IMG_3853.HEIC")))
        guard case .iso(let item, let metadata) = HeifGainMap.presence(in: iOS18) else {
            Issue.record("no ISO gain map found")
            return
        }
        #expect(iOS18.auxiliaryImages(of: iOS18.primaryID).first { $0.id == item }?.type == HeifGainMapType.apple)
        #expect(abs(metadata.alternateHeadroomStops - 2.787109) < 1e-9 && abs(metadata.gamma - 0.896973) < 1e-9)
        let pug = try #require(try HeifFile.open(path: Fixtures.path("photos/pug.heic")))
        guard case .apple(_, let stops) = HeifGainMap.presence(in: pug) else {
            Issue.record("no Apple gain map found")
            return
        }
        #expect(abs(stops - 1.8) < 0.05)
    }
}
