import Foundation
import Testing

/// Issue #54: a location wherever a camera wrote it (FLIR's APP1 GPS record, GoPro GPMF
/// telemetry, XMP `cell:` and Darwin Core `dwc:`) is named by `info`, removed by
/// `strip-location` with nothing else changed, and kept out of shared copies; exiftool is the
/// oracle throughout.
@Suite("privacy: location in vendor records, telemetry and rarer XMP")
struct LocationElsewhereTests {
    static let exiftool = URL(fileURLWithPath: "/usr/bin/exiftool")
    static let haveExiftool = FileManager.default.isExecutableFile(atPath: exiftool.path)
    static let flir = "photos/location/flir-iphone-gps.jpg"
    static let gopro = "video/gopro-karma-gpmf-cut.mp4"

    /// The location lines exiftool prints for `path`: every group, embedded documents
    /// (`-ee`: telemetry samples) included; tag names with GPS or location in them, and
    /// anything of the `cell` and Darwin Core namespaces.
    static func locationLines(_ path: String) async throws -> [String] {
        let outcome = try await CLIRunner.run(["-a", "-ee", "-G1", "-s", path], executable: exiftool)
        return outcome.stdout.split(separator: "\n").map(String.init).filter { line in
            let lower = line.lowercased()
            let name = lower.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            return name.contains("gps") || name.contains("location") || lower.hasPrefix("[xmp-cell]")
                || lower.hasPrefix("[xmp-dwc]")
        }
    }

    /// exiftool's view of `path` (`-a -ee -G1 -s`) without the location lines (those of
    /// ``locationLines(_:)``) and the lines about the file itself (name, folder, dates, permissions).
    static func otherTags(_ path: String) async throws -> [String] {
        let outcome = try await CLIRunner.run(["-a", "-ee", "-G1", "-s", path], executable: exiftool)
        return outcome.stdout.split(separator: "\n").map(String.init).filter { line in
            let lower = line.lowercased()
            let name = lower.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            return !name.contains("gps") && !name.contains("location") && !name.contains("file")
                && !name.contains("directory") && !lower.hasPrefix("[xmp-cell]") && !lower.hasPrefix("[xmp-dwc]")
        }
    }

    /// `path`'s bytes with every metadata exiftool knows removed (`-all=`): the picture's own data.
    static func withoutMetadata(_ path: String, in folder: URL) async throws -> Data {
        let target = folder.appendingPathComponent("bare-\(UUID().uuidString).jpg").path
        let outcome = try await CLIRunner.run(["-q", "-all=", "-o", target, path], executable: exiftool)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: target))
    }

    /// A real TestMedia JPEG without a location, with the XMP `assignments` exiftool writes.
    static func fixture(_ name: String, _ assignments: [String], in folder: URL) async throws -> String {
        let target = folder.appendingPathComponent(name).path
        let source = CLIRunner.media.appendingPathComponent("photos/orientation/Landscape_1.jpg").path
        let outcome = try await CLIRunner.run(
            ["-q"] + assignments + ["-XMP-dc:Title=Harbour", "-o", target, source], executable: exiftool)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return target
    }

    static let cell = [
        "-XMP-cell:MobileCountryCode=240", "-XMP-cell:LocationAreaCode=1234", "-XMP-cell:CellTowerID=5678",
        "-XMP-cell:CellGlobalID=240-01-1234-5678",
    ]
    static let darwinCore = [
        "-XMP-dwc:DCVerbatimCoordinates=34 4 31N 118 15 15W", "-XMP-dwc:DCDecimalLatitude=34.0754",
        "-XMP-dwc:DCDecimalLongitude=-118.2543", "-XMP-dwc:DCLocality=Echo Park", "-XMP-dwc:DCCountry=United States",
        "-XMP-dwc:DCStateProvince=California", "-XMP-dwc:DCCounty=Los Angeles",
    ]

    /// The inputs: their paths (made in `folder` where generated), the kind `info --json` names
    /// and the words of `info`'s line.
    static func cases(in folder: URL) async throws -> [(path: String, kind: String, words: String)] {
        [
            (CLIRunner.media.appendingPathComponent(flir).path, "flir", "location: yes, in FLIR thermal GPS record"),
            (
                CLIRunner.media.appendingPathComponent(gopro).path, "gpmf-telemetry",
                "location: yes, in GoPro telemetry (4 fixes)"
            ),
            (try await fixture("cell.jpg", cell, in: folder), "xmp-cell", "location: yes, in XMP cell tower codes"),
            (
                try await fixture("dwc.jpg", darwinCore, in: folder), "darwin-core",
                "location: yes, in XMP Darwin Core location"
            ),
        ]
    }

    @Test("info names each place and its kind; exiftool agrees there is a location", .enabled(if: haveExiftool))
    func infoNamesThem() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (path, kind, words) in try await Self.cases(in: folder) {
            #expect(!(try await Self.locationLines(path)).isEmpty, "\(path): exiftool sees no location")
            let text = try await CLIRunner.run(["info", path])
            #expect(text.stdout.contains(words), "\(text.stdout)")
            let json = try await CLIRunner.run(["info", "--json", path])
            #expect(json.stdout.contains("\"location\":{\"present\":true,\"sources\":[\"\(kind)\"]}"), "\(json.stdout)")
        }
        let telemetry = try await CLIRunner.run([
            "info", "--json", CLIRunner.media.appendingPathComponent(Self.gopro).path,
        ])
        #expect(telemetry.stdout.contains("\"telemetryGPSFixes\":4"), "\(telemetry.stdout)")
    }

    @Test("a GPS block without coordinates is not a location, and info says what it is", .enabled(if: haveExiftool))
    func emptyGPSBlock() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try await Self.fixture("no-fix.jpg", ["-GPSStatus#=V", "-GPSVersionID=2.3.0.0"], in: folder)
        let text = try await CLIRunner.run(["info", path])
        #expect(text.stdout.contains("location: none (GPS block without coordinates)"), "\(text.stdout)")
        let json = try await CLIRunner.run(["info", "--json", path])
        #expect(json.stdout.contains("\"location\":{\"present\":false,\"sources\":[]}"), "\(json.stdout)")
        #expect(json.stdout.contains("\"gpsWithoutPosition\":true"), "\(json.stdout)")
    }

    @Test("strip-location removes each, keeps the size and everything else", .enabled(if: haveExiftool))
    func stripRemovesThem() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        for (path, kind, _) in try await Self.cases(in: folder) {
            let outcome = try await CLIRunner.run(["strip-location", "--json", "-o", out.path, path])
            #expect(outcome.status == 0, "\(path): \(outcome.stderr)")
            #expect(outcome.stdout.contains("\"privacy\":{\"location\":\"removed\"}"), "\(outcome.stdout)")
            let name = (path as NSString).lastPathComponent
            let stem = (name as NSString).deletingPathExtension
            let output = out.appendingPathComponent("\(stem) (no location).\((name as NSString).pathExtension)").path
            let left = try await Self.locationLines(output)
            #expect(left.isEmpty, "\(kind): \(left)")
            let size = { (file: String) in
                (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? -1
            }
            #expect(size(output) == size(path), "\(kind)")
            let (kept, before) = (try await Self.otherTags(output), try await Self.otherTags(path))
            #expect(kept == before, "\(kind)")
            let reread = try await CLIRunner.run(["info", "--json", output])
            #expect(reread.stdout.contains("\"location\":{\"present\":false,\"sources\":[]}"), "\(reread.stdout)")
            if path.hasSuffix(".jpg") {
                // The picture and every other segment: identical once all metadata is gone.
                let before = try await Self.withoutMetadata(path, in: folder)
                #expect(try await Self.withoutMetadata(output, in: folder) == before, "\(kind)")
            } else {
                // Every video frame and the telemetry's other streams: the same bytes.
                func frames(_ file: String) async throws -> String {
                    try await CLIRunner.run(
                        ["-v", "error", "-i", file, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"],
                        executable: URL(fileURLWithPath: "/usr/bin/ffmpeg")
                    ).stdout
                }
                #expect(try await frames(output) == (try await frames(path)))
            }
        }
    }

    @Test("shared copies carry none of them", .enabled(if: haveExiftool))
    func conversionsDropThem() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = try await Self.cases(in: folder).map(\.path).filter { $0.hasSuffix(".jpg") }
        let out = folder.appendingPathComponent("out")
        let outcome = try await CLIRunner.run(["convert", "--to", "jpg", "-o", out.path] + photos)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") }
        #expect(outputs.count == photos.count)
        for output in outputs {
            let path = out.appendingPathComponent(output).path
            #expect(try await Self.locationLines(path).isEmpty, "\(output)")
            // The title is not a location: it stays.
            if output.hasPrefix("cell") || output.hasPrefix("dwc") {
                let title = try await CLIRunner.run(["-s3", "-XMP-dc:Title", path], executable: Self.exiftool)
                #expect(title.stdout.contains("Harbour"), "\(output)")
            }
        }
    }

    @Test("strip-location --from-file LIST reads the list; --in-place through a symbolic link edits what it points to")
    func fromFileAndLinks() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let located = CLIRunner.media.appendingPathComponent("photos/tokyo.jpg")
        let first = folder.appendingPathComponent("first.jpg")
        let second = folder.appendingPathComponent("second.jpg")
        try FileManager.default.copyItem(at: located, to: first)
        try FileManager.default.copyItem(at: located, to: second)
        let list = folder.appendingPathComponent("list.txt")
        try Data((first.path + "\n" + second.path + "\n").utf8).write(to: list)
        let out = folder.appendingPathComponent("out")
        let listed = try await CLIRunner.run(["strip-location", "--from-file", list.path, "-o", out.path])
        #expect(listed.status == 0, "\(listed.stderr)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(outputs == ["first (no location).jpg", "second (no location).jpg"])
        for output in outputs {
            #expect(try await Self.locationLines(out.appendingPathComponent(output).path).isEmpty)
        }

        let link = folder.appendingPathComponent("link.jpg")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "first.jpg")
        let edited = try await CLIRunner.run(["strip-location", "--in-place", link.path])
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "first.jpg")
        #expect(try await Self.locationLines(first.path).isEmpty, "the linked file still has its location")
        #expect(!(try await Self.locationLines(second.path)).isEmpty)
    }
}
