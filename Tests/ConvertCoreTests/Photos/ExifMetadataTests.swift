import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("EXIF and XMP metadata")
struct ExifMetadataTests {
    static func jpegExif(_ relative: String) throws -> Exif {
        let data = try #require(FileManager.default.contents(atPath: Fixtures.path(relative)))
        let block = try #require(JPEGMarkers.metadata(Array(data)).exif)
        return try #require(Exif(block: block))
    }

    @Test("reads orientation, date, camera and GPS from real JPEGs")
    func reads() throws {
        let tokyo = try Self.jpegExif("photos/DSCN0010.jpg")
        #expect(tokyo.make == "NIKON")
        #expect(tokyo.model == "COOLPIX P6000")
        #expect(tokyo.dateTimeOriginal == "2008:10:22 16:28:39")
        #expect(tokyo.hasGPS)
        for index in 1...8 {
            #expect(try Self.jpegExif("photos/orientation/Landscape_\(index).jpg").orientation == index)
        }
    }

    @Test("a rebuilt block drops GPS, identifiers and IFD1 and keeps the rest")
    func rebuild() throws {
        let source = try Self.jpegExif("photos/DSCN0010.jpg")
        let rebuilt = try #require(Exif(tiff: source.rebuilt(keepLocation: false, keepIdentifiers: false)))
        #expect(!rebuilt.hasGPS)
        #expect(!rebuilt.hasThumbnail)
        #expect(!rebuilt.hasIdentifyingTags)
        #expect(rebuilt.make == source.make && rebuilt.model == source.model)
        #expect(rebuilt.dateTimeOriginal == source.dateTimeOriginal)
        let kept = try #require(Exif(tiff: source.rebuilt(keepLocation: true, keepIdentifiers: false)))
        #expect(kept.hasGPS)
        #expect(
            kept.ifd0.entry(Exif.Tag.gpsIFD)?.child?.entries.count
                == source.ifd0.entry(Exif.Tag.gpsIFD)?.child?.entries.count)
    }

    @Test("Orientation is reset to 1 both in place and when rebuilt")
    func orientationReset() throws {
        let source = try Self.jpegExif("photos/orientation/Landscape_6.jpg")
        #expect(Exif(tiff: source.withOrientationResetInPlace())?.orientation == 1)
        #expect(Exif(tiff: source.rebuilt(keepLocation: true, keepIdentifiers: true))?.orientation == 1)
        #expect(source.withOrientationResetInPlace().count == source.bytes.count)
    }

    @Test("hostile blocks never crash: truncations, byte flips, loops")
    func hostile() throws {
        let source = try Self.jpegExif("photos/DSCN0010.jpg").bytes
        var generator = DamageNoise(seed: 42)
        for length in stride(from: 0, to: min(source.count, 2000), by: 7) {
            if let exif = Exif(tiff: Array(source.prefix(length))) {
                _ = exif.rebuilt(keepLocation: false, keepIdentifiers: false)
            }
        }
        for _ in 0..<500 {
            var damaged = source
            for _ in 0..<8 {
                let position = Int(generator.next() % UInt64(min(damaged.count, 1024)))
                damaged[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            if let exif = Exif(tiff: damaged) {
                _ = (exif.orientation, exif.make, exif.hasGPS, exif.dateTimeOriginal)
                let rebuilt = exif.rebuilt(keepLocation: false, keepIdentifiers: false)
                #expect(Exif(tiff: rebuilt)?.hasGPS != true)
            }
        }
        // IFD0 whose next-IFD pointer and Exif pointer both point back at IFD0.
        let loop: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x69, 0x87, 4, 0, 1, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0]
        let parsed = Exif(tiff: loop)
        #expect(parsed?.hasThumbnail == false)
        #expect(Exif(tiff: [0x4D, 0x4D, 0, 42, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
    }

    @Test("XMP location fields are removed in both serialisations, other fields stay")
    func xmpLocation() throws {
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description rdf:about="" \
            exif:GPSLatitude="35,40.5N" photoshop:City='Tokyo' xmp:CreatorTool="Camera">
            <exif:GPSLongitude>139,45E</exif:GPSLongitude>
            <Iptc4xmpExt:LocationShown><rdf:Bag><rdf:li>Shibuya</rdf:li></rdf:Bag></Iptc4xmpExt:LocationShown>
            <tiff:Orientation>6</tiff:Orientation>
            <aux:SerialNumber>1234</aux:SerialNumber>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        #expect(XMP.hasLocation(Array(packet.utf8)))
        let cleaned = try #require(
            XMP.removing(
                XMP.locationProperties + XMP.orientationProperties + XMP.identifyingProperties, from: Array(packet.utf8)
            ))
        let text = String(decoding: cleaned, as: UTF8.self)
        #expect(!XMP.hasLocation(cleaned))
        for gone in ["GPS", "Tokyo", "Shibuya", "Orientation", "1234"] { #expect(!text.contains(gone), "\(gone) left") }
        #expect(text.contains("xmp:CreatorTool=\"Camera\""))
        #expect(text.contains("</rdf:Description>"))
    }

    @Test("JPEG APP segments round-trip EXIF, XMP and a multi-chunk ICC profile")
    func markers() throws {
        let icc = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let exif: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let xmp = Array("<x:xmpmeta/>".utf8)
        let segments = JPEGMarkers.appSegments(exif: exif, xmp: xmp, icc: icc)
        #expect(segments.dropped.isEmpty)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
        let combined = JPEGMarkers.inserting(segments.bytes, into: jpeg)
        let read = JPEGMarkers.metadata(combined)
        #expect(read.exif == exif)
        #expect(read.xmp == xmp)
        #expect(read.icc == icc)
        #expect(Array(combined.prefix(8)) == Array(jpeg.prefix(8)))
    }
}

/// A tiny deterministic generator for the damage tests.
struct DamageNoise {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
