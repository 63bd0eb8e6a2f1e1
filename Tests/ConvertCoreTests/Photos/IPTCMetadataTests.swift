import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// IPTC-IIM (keywords, caption, copyright, by-line, and the place) in JPEGs: kept in outputs,
/// filtered like XMP, counted as a location by `info` and removed by `strip-location`. Every
/// check reads the files with exiftool; the fixture is a TestMedia JPEG tagged by exiftool itself.
@Suite("Photos: IPTC-IIM metadata", .enabled(if: PhotoReference.has("exiftool"), "needs exiftool"))
struct IPTCMetadataTests {
    static let people = [
        "Keywords : cat, night", "By-line : Me", "CopyrightNotice : (c) Me", "Caption-Abstract : A cat",
    ]
    static let places = [
        "City : Tokyo", "Sub-location : Shibuya", "Province-State : Kanto", "Country-PrimaryLocationName : Japan",
    ]

    /// tokyo.jpg with IPTC people and place fields, in a fresh folder.
    static func tagged() throws -> (folder: URL, path: String) {
        let folder = try Fixtures.temporaryDirectory("iptc")
        let path = folder.appendingPathComponent("tagged.jpg").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/tokyo.jpg"), toPath: path)
        let status = try PhotoReference.run(
            "exiftool",
            [
                "-q", "-overwrite_original", "-IPTC:City=Tokyo", "-IPTC:Sub-location=Shibuya",
                "-IPTC:Province-State=Kanto",
                "-IPTC:Country-PrimaryLocationName=Japan", "-IPTC:Keywords=cat", "-IPTC:Keywords=night",
                "-IPTC:Caption-Abstract=A cat", "-IPTC:CopyrightNotice=(c) Me", "-IPTC:By-line=Me", path,
            ]
        ).status
        #expect(status == 0)
        return (folder, path)
    }

    /// exiftool's IPTC tags of `path` as "Name : value" lines.
    static func iptc(_ path: String) throws -> [String] {
        try PhotoReference.exiftool(path, ["-IPTC:all"]).split(separator: "\n").map { line in
            line.replacingOccurrences(of: "[IPTC]", with: "").split(separator: " ", omittingEmptySubsequences: true)
                .joined(separator: " ")
        }
    }

    @Test(
        "converting to JPEG keeps the IPTC people fields and drops the place, unless the location is kept",
        arguments: [
            MetadataPolicy.shareSafe, .keepLocation, .keep, .strip,
        ])
    func convert(policy: MetadataPolicy) async throws {
        let (folder, input) = try Self.tagged()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: input, format: .jpeg, outputDirectory: output.path, metadata: policy))
        let tags = try Self.iptc(try #require(result.outputs.first).path)
        for field in Self.people {
            #expect(tags.contains(field) == (policy != .strip), "\(policy): \(field) in \(tags)")
        }
        let placeKept = policy == .keep || policy == .keepLocation
        for field in Self.places { #expect(tags.contains(field) == placeKept, "\(policy): \(field) in \(tags)") }
        #expect(
            result.notes.messages.contains(
                policy == .strip ? "metadata removed" : placeKept ? "location kept" : "location removed"))
    }

    @Test(
        "PNG and WebP outputs carry the IPTC fields as IPTC Core XMP, the place only when kept",
        arguments: [
            PhotoFormat.png, .webp,
        ])
    func otherFormats(format: PhotoFormat) async throws {
        let (folder, input) = try Self.tagged()
        defer { try? FileManager.default.removeItem(at: folder) }
        for policy in [MetadataPolicy.shareSafe, .keepLocation] {
            let result = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: input, format: format, outputDirectory: folder.appendingPathComponent("\(policy)").path,
                    metadata: policy))
            let tags = try PhotoReference.exiftool(try #require(result.outputs.first).path, ["-XMP:all"])
            for expected in [
                "Subject                         : cat, night", "Creator                         : Me",
                "Rights                          : (c) Me", "Description                     : A cat",
            ] {
                #expect(tags.contains(expected), "\(format) \(policy): \(expected) in \(tags)")
            }
            #expect(tags.contains("City                            : Tokyo") == (policy == .keepLocation), "\(tags)")
        }
    }

    @Test("info counts IPTC City/Sub-location/Province/Country as a location")
    func probe() throws {
        let (folder, input) = try Self.tagged()
        defer { try? FileManager.default.removeItem(at: folder) }
        let info = try ImageProbe.probeBlocking(path: input)
        #expect(info.locationSources.contains(.iptc), "\(info.locationSources)")
        // Only the place in IPTC (the EXIF GPS removed by exiftool): still a location.
        #expect(try PhotoReference.run("exiftool", ["-q", "-overwrite_original", "-gps:all=", input]).status == 0)
        let onlyIPTC = try ImageProbe.probeBlocking(path: input)
        #expect(onlyIPTC.hasLocation && onlyIPTC.locationSources == [.iptc], "\(onlyIPTC.locationSources)")
    }

    @Test("strip-location removes the IPTC place in place of the same length and keeps the rest")
    func strip() async throws {
        let (folder, input) = try Self.tagged()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("clean.jpg").path
        let result = try await LocationStripper.strip(StripLocationRequest(input: input, destination: destination))
            .result()
        #expect(result.notes.messages.first?.contains("IPTC") == true, "\(result.notes.messages)")
        let tags = try Self.iptc(destination)
        for field in Self.people { #expect(tags.contains(field), "\(field) in \(tags)") }
        for field in Self.places { #expect(!tags.contains(field), "\(field) in \(tags)") }
        let warnings = try PhotoReference.exiftool(destination, ["-warning"])
        #expect(!warnings.contains("IPTC") || warnings.contains("IPTCDigest"), "\(warnings)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: destination)).count
                == (try Data(contentsOf: URL(fileURLWithPath: input))).count)
        #expect(try !ImageProbe.probeBlocking(path: destination).hasLocation)
    }

    @Test("an IIM block is parsed with its lengths checked; a damaged one is not")
    func parsing() {
        let block = IPTC.serialise([
            .init(record: 2, number: 25, value: Array("cat".utf8)),
            .init(record: 2, number: 90, value: Array("Tokyo".utf8)),
        ])
        #expect(IPTC.datasets(block)?.count == 2)
        #expect(IPTC.hasLocation(block))
        #expect(
            IPTC.removingLocation(block).flatMap(IPTC.datasets) == [
                .init(record: 2, number: 25, value: Array("cat".utf8))
            ])
        var damaged = block
        damaged[4] = 0xFF
        #expect(IPTC.datasets(damaged) == nil)
        #expect(IPTC.datasets(block + [0, 0, 0])?.count == 2)
    }
}
