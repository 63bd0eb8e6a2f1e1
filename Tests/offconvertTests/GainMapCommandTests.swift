import Foundation
import Testing

/// iPhone HEICs with an Apple HDR gain map become Ultra HDR v1.1 JPEGs: checked with exiftool
/// (MPF index, `hdrgm:` and `Container:Directory` XMP), djpeg on each image, and Google's
/// libultrahdr (PyPI imagecodecs, in the venv Scripts/test makes), whose HDR decode is compared in
/// linear light with the HDR picture Tests/Oracles/gainmap-oracle.py rebuilds from the source
/// with Apple's published formula (no offconvert code in that script).
@Suite("HDR gain maps: HEIC to Ultra HDR JPEG")
struct GainMapCommandTests {
    static let pug = CLIRunner.media.appendingPathComponent("photos/pug.heic").path
    static let iOS18 = CLIRunner.media.appendingPathComponent("photos/IMG_3853.HEIC").path
    static let rotated90 = CLIRunner.root.appendingPathComponent("TestMedia/generated/gainmap/pug-irot1.heic").path
    static let rotated270 = CLIRunner.root.appendingPathComponent("TestMedia/generated/gainmap/pug-irot3.heic").path
    static let python = CLIRunner.root.appendingPathComponent(".build/oracle-venv/bin/python")
    static let oracle = CLIRunner.root.appendingPathComponent("Tests/Oracles/gainmap-oracle.py").path

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-gainmap-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// exiftool's values of `tags` (group-qualified names, e.g. `MPImage2:MPImageLength`).
    static func tags(_ path: String, _ tags: [String]) throws -> [String: String] {
        let text = try CLIRunner.toolOutput(
            "/usr/bin/exiftool", ["-j", "-n", "-G1", "-a"] + tags.map { "-\($0)" } + [path])
        let objects = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
        var result: [String: String] = [:]
        for (key, value) in objects?.first ?? [:] { result[key] = "\(value)" }
        return result
    }

    /// Width and height of a JPEG as djpeg decodes it at 1/8 scale (every coefficient is still
    /// decoded), or nil when djpeg fails.
    static func djpegSize(_ path: String) async throws -> (Int, Int)? {
        let pnm = path + ".pnm"
        defer { try? FileManager.default.removeItem(atPath: pnm) }
        let outcome = try await CLIRunner.run(
            ["-scale", "1/8", "-outfile", pnm, path], executable: URL(fileURLWithPath: "/usr/bin/djpeg"))
        guard outcome.status == 0, let handle = FileHandle(forReadingAtPath: pnm) else { return nil }
        defer { try? handle.close() }
        let header = String(decoding: handle.readData(ofLength: 32), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).prefix(3).map(String.init)
        guard header.count == 3, let width = Int(header[1]), let height = Int(header[2]) else { return nil }
        return (width, height)
    }

    /// Converts `input` with `arguments` into a fresh folder; the output's path and stdout.
    static func convert(_ input: String, _ arguments: [String], in directory: URL) async throws -> (
        path: String, stdout: String
    ) {
        let outcome = try await CLIRunner.run(arguments + [input, "--output-dir", directory.path, "--overwrite"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        let format =
            arguments.first == "convert" ? arguments[2] : String(arguments[0].split(separator: "-").last ?? "jpg")
        return (directory.appendingPathComponent("\(name).\(format)").path, outcome.stdout + outcome.stderr)
    }

    /// The Ultra HDR structure: two MPF images, the second at the end of the first, `hdrgm:` on
    /// both, the directory naming the gain map's length, and both decodable by djpeg.
    /// An iOS 18 file's ISO 21496-1 `tmap` parameters are preferred over Apple's MakerNote: its
    /// gamma (0.896973) and offsets (0.00001) come through as they are.
    @Test(
        "heic-to-jpg writes the Apple gain map as an Ultra HDR v1.1 JPEG",
        arguments: [
            (pug, "Apple", 1.8, 1.0, 4032, 3024), (iOS18, "ISO 21496-1", 2.8, 0.896973, 5712, 4284),
        ])
    func structure(input: String, origin: String, stops: Double, gamma: Double, width: Int, height: Int) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (output, stdout) = try await Self.convert(input, ["heic-to-jpg"], in: directory)
        #expect(stdout.contains("HDR gain map kept (\(origin), headroom \(stops) stops)"), "\(stdout)")
        let primary = try Self.tags(
            output,
            [
                "MPF0:NumberOfImages", "MPImage1:MPImageLength", "MPImage2:MPImageStart", "MPImage2:MPImageLength",
                "XMP-hdrgm:Version", "XMP-Container:DirectoryItemSemantic", "XMP-Container:DirectoryItemLength",
                "ICC_Profile:ProfileDescription",
            ])
        #expect(primary["MPF0:NumberOfImages"] == "2")
        #expect(primary["XMP-hdrgm:Version"] == "1.0")
        #expect(primary["ICC_Profile:ProfileDescription"] == "Display P3")
        let listing = try CLIRunner.toolOutput(
            "/usr/bin/exiftool", ["-a", "-s", "-s", "-DirectoryItemSemantic", output])
        #expect(
            listing.components(separatedBy: "\n").filter { $0.hasPrefix("DirectoryItemSemantic") }.map {
                $0.hasSuffix("GainMap")
            } == [false, true], "\(listing)")
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        let start = try #require(primary["MPImage2:MPImageStart"].flatMap(Int.init))
        let length = try #require(primary["MPImage2:MPImageLength"].flatMap(Int.init))
        #expect(primary["MPImage1:MPImageLength"] == "\(start)")
        #expect(start + length == fileSize)
        #expect(primary["XMP-Container:DirectoryItemLength"] == "\(length)")

        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        let gainMapPath = directory.appendingPathComponent("gainmap.jpg").path
        try data.subdata(in: start..<fileSize).write(to: URL(fileURLWithPath: gainMapPath))
        let primaryPath = directory.appendingPathComponent("primary.jpg").path
        try data.subdata(in: 0..<start).write(to: URL(fileURLWithPath: primaryPath))
        let gainMap = try Self.tags(
            gainMapPath,
            [
                "XMP-hdrgm:Version", "XMP-hdrgm:GainMapMin", "XMP-hdrgm:GainMapMax", "XMP-hdrgm:HDRCapacityMax",
                "XMP-hdrgm:Gamma",
                "XMP-hdrgm:BaseRenditionIsHDR",
            ])
        #expect(gainMap["XMP-hdrgm:Version"] == "1.0")
        #expect(gainMap["XMP-hdrgm:GainMapMin"].flatMap(Double.init) == 0)
        let maximum = try #require(gainMap["XMP-hdrgm:GainMapMax"].flatMap(Double.init))
        #expect(abs(maximum - stops) < 0.05)
        let writtenGamma = try #require(gainMap["XMP-hdrgm:Gamma"].flatMap(Double.init))
        #expect(abs(writtenGamma - gamma) < 1e-6)
        #expect(gainMap["XMP-hdrgm:HDRCapacityMax"] == gainMap["XMP-hdrgm:GainMapMax"])
        #expect(["0", "false", "False"].contains(gainMap["XMP-hdrgm:BaseRenditionIsHDR"] ?? "-"), "\(gainMap)")
        // The ISO 21496-1 record on both images.
        let namespace = Data("urn:iso:std:iso:ts:21496:-1".utf8)
        #expect(data.subdata(in: 0..<start).range(of: namespace) != nil)
        #expect(data.subdata(in: start..<fileSize).range(of: namespace) != nil)

        let primarySize = try #require(try await Self.djpegSize(primaryPath))
        #expect(primarySize == ((width + 7) / 8, (height + 7) / 8))
        let mapSize = try #require(try await Self.djpegSize(gainMapPath))
        #expect(mapSize == ((width / 2 + 7) / 8, (height / 2 + 7) / 8))
    }

    /// libultrahdr decodes the file as Ultra HDR; its HDR rendition matches Apple's formula over
    /// the source to at least 35 dB (peak = the headroom; a resized output against the reference
    /// area-averaged to its size, so the map must have followed the picture), and the primary is
    /// today's SDR JPEG.
    @Test(
        "libultrahdr's HDR decode matches Apple's formula over the source",
        arguments: [
            (pug, [String]()), (iOS18, []), (pug, ["--max-size", "1000"]), (pug, ["--resize", "800x800"]),
        ])
    func hdrRendition(input: String, options: [String]) async throws {
        var ready = FileManager.default.isExecutableFile(atPath: Self.python.path)
        if ready {
            let probe = try? await CLIRunner.run(
                ["-c", "import imagecodecs, numpy; imagecodecs.ultrahdr_decode"], executable: Self.python)
            ready = probe?.status == 0
        }
        try #require(
            ready,
            "the Ultra HDR oracle is missing: imagecodecs (libultrahdr) in .build/oracle-venv; Scripts/test installs it"
        )
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (output, stdout) = try await Self.convert(input, ["heic-to-jpg"] + options, in: directory)
        #expect(
            stdout.contains(input == Self.iOS18 ? "HDR gain map kept (ISO 21496-1" : "HDR gain map kept (Apple"),
            "\(stdout)")
        let picture = directory.appendingPathComponent("side-by-side.png").path
        let outcome = try await CLIRunner.run([Self.oracle, input, output, picture], executable: Self.python)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Double])
        // The oracle rebuilds an iOS 18 file with the tmap's ISO formula, the others with Apple's.
        #expect(result["iso"] == (input == Self.iOS18 ? 1 : 0))
        let psnr = try #require(result["hdr_psnr"])
        #expect(psnr >= 35, "HDR PSNR \(psnr) dB")
        #expect(FileManager.default.fileExists(atPath: picture))
        guard options.isEmpty else { return }

        // The SDR rendition is the JPEG `--hdr sdr` writes, sample for sample.
        let sdrDirectory = directory.appendingPathComponent("sdr")
        try FileManager.default.createDirectory(at: sdrDirectory, withIntermediateDirectories: true)
        let (sdr, sdrStdout) = try await Self.convert(input, ["heic-to-jpg", "--hdr", "sdr"], in: sdrDirectory)
        #expect(!sdrStdout.contains("HDR"), "\(sdrStdout)")
        let djpeg = URL(fileURLWithPath: "/usr/bin/djpeg")
        let ours = try await CLIRunner.run([output], executable: djpeg)
        let today = try await CLIRunner.run([sdr], executable: djpeg)
        #expect(ours.status == 0 && today.status == 0)
        #expect(ours.stdout == today.stdout)
        #expect(
            try Self.tags(sdr, ["MPF0:NumberOfImages", "XMP-hdrgm:Version"]).keys.filter { $0 != "SourceFile" }.isEmpty)
    }

    /// The gain map adds at most 15% to the SDR JPEG at the default quality.
    @Test("the gain map adds at most 15% to the JPEG")
    func sizeCost() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (hdr, _) = try await Self.convert(Self.pug, ["heic-to-jpg"], in: directory)
        let sdrDirectory = directory.appendingPathComponent("sdr")
        try FileManager.default.createDirectory(at: sdrDirectory, withIntermediateDirectories: true)
        let (sdr, _) = try await Self.convert(Self.pug, ["heic-to-jpg", "--hdr", "sdr"], in: sdrDirectory)
        let hdrBytes = try #require(try FileManager.default.attributesOfItem(atPath: hdr)[.size] as? Int)
        let sdrBytes = try #require(try FileManager.default.attributesOfItem(atPath: sdr)[.size] as? Int)
        #expect(Double(hdrBytes) <= Double(sdrBytes) * 1.15, "\(hdrBytes) vs \(sdrBytes)")
        #expect(hdrBytes > sdrBytes)
    }

    /// Outputs that cannot carry the gain map say so.
    @Test(
        "PNG and WebP outputs say the HDR was not kept",
        arguments: [
            (["heic-to-png"], "HDR not kept: PNG has no gain map"),
            (["convert", "--to", "webp"], "HDR not kept: WebP has no gain map"),
        ])
    func notKept(arguments: [String], note: String) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, stdout) = try await Self.convert(Self.pug, arguments, in: directory)
        #expect(stdout.contains(note), "\(stdout)")
    }

    /// The oracle's reading of `output` made from `input` (`extra`: the geometry it was given,
    /// see Tests/Oracles/gainmap-oracle.py); fails with a message when imagecodecs is missing.
    static func oracle(_ input: String, _ output: String, _ extra: [String] = []) async throws -> [String: Double] {
        var ready = FileManager.default.isExecutableFile(atPath: python.path)
        if ready {
            let probe = try? await CLIRunner.run(
                ["-c", "import imagecodecs, numpy; imagecodecs.ultrahdr_decode"], executable: python)
            ready = probe?.status == 0
        }
        try #require(
            ready,
            "the Ultra HDR oracle is missing: imagecodecs (libultrahdr) in .build/oracle-venv; Scripts/test installs it"
        )
        let outcome = try await CLIRunner.run([oracle, input, output] + extra, executable: python)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Double])
    }

    /// Every geometry option moves the gain map with the picture: a turned iPhone photo (irot on
    /// the primary and its map, generated from pug.heic), `--max-size`, each `--fit` of
    /// `--resize`, `--color srgb` (the map stays valid in linear light: the oracle converts its
    /// reference's primaries), `--all-images`. The oracle gives its reference the same geometry,
    /// computed on its own; a map that did not follow would be far below 35 dB.
    @Test(
        "the gain map follows orientation, resize modes, colour conversion and all-images",
        arguments: [
            (rotated90, [String](), [String](), (3024, 4032)), (rotated270, ["--max-size", "900"], [], (675, 900)),
            (pug, ["--resize", "800x600", "--fit", "fill"], ["--fit", "fill", "800x600"], (800, 600)),
            (pug, ["--resize", "600x600", "--fit", "crop"], ["--fit", "crop", "600x600"], (600, 600)),
            (pug, ["--resize", "800x800", "--fit", "pad"], ["--fit", "pad", "800x800"], (800, 800)),
            (pug, ["--color", "srgb"], ["--srgb"], (4032, 3024)), (pug, ["--all-images"], [], (4032, 3024)),
        ])
    func geometry(input: String, options: [String], oracleArguments: [String], size: (Int, Int)) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (output, stdout) = try await Self.convert(input, ["heic-to-jpg"] + options, in: directory)
        #expect(stdout.contains("HDR gain map kept (Apple, headroom 1.8 stops)"), "\(stdout)")
        let primary = try Self.tags(output, ["MPF0:NumberOfImages", "File:ImageWidth", "File:ImageHeight"])
        #expect(primary["MPF0:NumberOfImages"] == "2")
        #expect(primary["File:ImageWidth"] == "\(size.0)" && primary["File:ImageHeight"] == "\(size.1)", "\(primary)")
        let result = try await Self.oracle(input, output, oracleArguments)
        let psnr = try #require(result["hdr_psnr"])
        #expect(psnr >= 35, "HDR PSNR \(psnr) dB")
    }

    /// `--target-size` counts both images: the whole Ultra HDR file fits, at a lower quality and
    /// then a lower resolution, and the map still lines up.
    @Test("compress-photos --target-size counts the gain map and keeps it lined up", arguments: [400_000, 60_000])
    func targetSize(target: Int) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(
            ["compress-photos", Self.pug, "--target-size", "\(target)", "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect((outcome.stdout + outcome.stderr).contains("HDR gain map kept (Apple"), "\(outcome.stdout)")
        let output = directory.appendingPathComponent("pug (small).jpg").path
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
        #expect(bytes <= target && bytes > target / 2, "\(bytes) bytes for a target of \(target)")
        let tags = try Self.tags(output, ["MPF0:NumberOfImages", "MPImage2:MPImageStart", "MPImage2:MPImageLength"])
        #expect(tags["MPF0:NumberOfImages"] == "2")
        let start = try #require(tags["MPImage2:MPImageStart"].flatMap(Int.init))
        let length = try #require(tags["MPImage2:MPImageLength"].flatMap(Int.init))
        #expect(start + length == bytes)
        let psnr = try #require(try await Self.oracle(Self.pug, output)["hdr_psnr"])
        #expect(psnr >= 35, "HDR PSNR \(psnr) dB")
    }
}
