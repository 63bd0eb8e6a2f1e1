import Foundation
import Testing

@testable import ConvertCore

/// The pieces of the Ultra HDR writer that need no decoder: Apple's headroom formula and its
/// MakerNote reading (checked against exiftool's reading of the same tags), the linear → log
/// table, and the gain map's transforms.
@Suite("HDR gain maps: headroom, table, transforms")
struct GainMapTests {
    @Test("Apple's formula, each branch", arguments: [
        (0.5, 0.005, 1.7), (0.5, 2.0, 1.399), (1.01, 0.003, 2.79), (1.2, 0.5, 2.1515), (1.0, 9.0, 0.0),
    ])
    func formula(maker33: Double, maker48: Double, stops: Double) {
        #expect(abs(AppleHeadroom.stops(maker33: maker33, maker48: maker48) - stops) < 1e-9)
    }

    @Test("the MakerNote's 0x0021 and 0x0030 are read as exiftool reads them", arguments: ["photos/pug.heic", "photos/IMG_3853.HEIC"])
    func makerNote(path: String) throws {
        let file = try #require(try HeifFile.open(path: Fixtures.path(path)))
        let exif = try #require(file.exif(file.primaryID))
        let ours = try #require(AppleHeadroom.stops(exif: exif))
        let run = try PhotoReference.run("exiftool", ["-s3", "-n", "-MakerNotes:HDRHeadroom", "-MakerNotes:HDRGain", Fixtures.path(path)])
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
        #expect(plane.applying(.mirror(topToBottom: false)) == GrayPlane(width: 3, height: 2, pixels: [3, 2, 1, 6, 5, 4]))
        #expect(plane.applying(.mirror(topToBottom: true)) == GrayPlane(width: 3, height: 2, pixels: [4, 5, 6, 1, 2, 3]))
        #expect(plane.resized(width: 1, height: 1).pixels == [4])  // (1+…+6)/6 = 3.5, rounded
    }
}
