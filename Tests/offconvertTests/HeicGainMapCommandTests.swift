import Foundation
import Testing

/// HEIC → HEIC keeps the gain map (Apple's, and Samsung's), and Samsung HEICs' gain maps become
/// Ultra HDR JPEGs. Every run is from a user-like folder with relative paths. Checked with tools
/// that share no code with offconvert: libheif 1.15's `heif-info -d` (the auxiliary image's
/// `auxC` URN and `auxl` reference), exiftool (Apple's MakerNote headroom, `hdrgm:` XMP),
/// pillow-heif's newer libheif (decodes the auxiliary image) in Tests/Oracles/heic-gainmap-oracle.py,
/// which rebuilds the HDR rendition of the source and of the output each from its own planes and
/// parameters, and libultrahdr for the JPEGs (Tests/Oracles/gainmap-oracle.py).
@Suite("HDR gain maps: HEIC to HEIC, Samsung HEIC")
struct HeicGainMapCommandTests {
    static let samsung = "generated/gainmap/samsung.heic"
    static let heicOracle = CLIRunner.root.appendingPathComponent("Tests/Oracles/heic-gainmap-oracle.py").path

    /// Runs `offconvert arguments` in `folder` with an allowance of its own (each run is one of
    /// today's free conversions); the run must succeed. Its stdout and stderr. The time limit is
    /// generous: two x265 encodes of a camera-sized photo on a machine shared with other builds.
    static func run(_ folder: UserFolder, _ arguments: [String]) async throws -> String {
        let state = folder.url.appendingPathComponent(".state-\(UUID().uuidString.prefix(8))").path
        let outcome = try await CLIRunner.run(
            arguments, environment: ["XDG_STATE_HOME": state], directory: folder.url, timeout: 1200)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout + outcome.stderr
    }

    /// libheif 1.15's box dump of `path`.
    static func boxes(_ path: String) throws -> String {
        try CLIRunner.toolOutput("/usr/bin/heif-info", ["-d", path])
    }

    /// The output oracle's reading of `output` made from `input` (paths in `folder`).
    static func heicOracle(_ folder: UserFolder, _ input: String, _ output: String) async throws -> [String: Any] {
        let python = GainMapCommandTests.python
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "pillow-heif is missing: Scripts/test installs .build/oracle-venv")
        let outcome = try await CLIRunner.run([heicOracle, input, output], executable: python, directory: folder.url)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        return try #require(object)
    }

    /// exiftool's `hdrgm:` values of `path` (numbers), by tag name.
    static func hdrgm(_ path: String) throws -> [String: String] {
        try GainMapCommandTests.tags(path, ["XMP-hdrgm:all"]).filter { $0.key.hasPrefix("XMP-hdrgm:") }
    }

    /// An iOS 18 file's `tmap` item (ISO 21496-1) comes along too: `info` then reads it first, as
    /// it does for the source.
    @Test(
        "HEIC to HEIC keeps Apple's gain map as an auxiliary image with the headroom",
        arguments: [
            ("photos/pug.heic", ["--max-size", "2016"], 1.8, 2016, 1512, "Apple"),
            ("photos/IMG_3853.HEIC", ["--max-size", "1600"], 2.8, 1600, 1200, "ISO 21496-1"),
            ("generated/gainmap/pug-irot1.heic", ["--max-size", "1200", "--keep-metadata"], 1.8, 900, 1200, "Apple"),
        ])
    func apple(source: String, options: [String], stops: Double, width: Int, height: Int, infoOrigin: String)
        async throws
    {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(source, as: "in.heic")
        let text = try await Self.run(folder, ["convert", "--to", "heic"] + options + ["in.heic", "-o", "out.heic"])
        #expect(text.contains("HDR gain map kept (Apple, headroom \(stops) stops)"), "\(text)")
        let output = folder.url.appendingPathComponent("out.heic").path
        let dump = try Self.boxes(output)
        #expect(dump.contains("aux type: urn:com:apple:photo:2020:aux:hdrgainmap"), "\(dump)")
        #expect(dump.contains("reference with type 'auxl'"), "\(dump)")
        // The headroom Apple's readers take from the MakerNote is the source's, under every policy.
        let input = folder.url.appendingPathComponent("in.heic").path
        let headroom = try GainMapCommandTests.tags(output, ["MakerNotes:HDRHeadroom"])["Apple:HDRHeadroom"]
        let sourceHeadroom = try GainMapCommandTests.tags(input, ["MakerNotes:HDRHeadroom"])["Apple:HDRHeadroom"]
        #expect(
            headroom != nil && headroom == sourceHeadroom,
            "\(String(describing: headroom)) vs \(String(describing: sourceHeadroom))")
        let result = try await Self.heicOracle(folder, "in.heic", "out.heic")
        #expect(result["aux"] as? [String] == ["urn:com:apple:photo:2020:aux:hdrgainmap"])
        #expect(result["width"] as? Int == width && result["height"] as? Int == height, "\(result)")
        let psnr = try #require(result["hdr_psnr"] as? Double)
        #expect(psnr >= 35, "HDR PSNR \(psnr) dB")
        let headrooms = (result["headroom"] as? Double, result["source_headroom"] as? Double)
        #expect(headrooms.0 != nil && headrooms.0 == headrooms.1)
        let info = try await Self.run(folder, ["info", "out.heic"])
        #expect(info.contains("HDR: gain map (\(infoOrigin)), headroom \(stops) stops"), "\(info)")
        // The tmap (only where the source has one): its values are the source's, and it is in
        // an altr group with the primary.
        #expect(result["tmap"] as? Bool == (infoOrigin == "ISO 21496-1" ? true : nil), "\(result)")
        #expect(dump.contains("item_type: tmap") == (infoOrigin == "ISO 21496-1"))
    }

    @Test("a Samsung HEIC's gain map: info, Ultra HDR JPEG with its hdrgm: values, HEIC with its URN")
    func samsung() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(Self.samsung, as: "s.heic")
        let info = try await Self.run(folder, ["info", "s.heic"])
        #expect(info.contains("HDR: gain map (Samsung), headroom 2.3 stops"), "\(info)")
        let source = try Self.hdrgm(folder.url.appendingPathComponent("s.heic").path)
        #expect(source["XMP-hdrgm:GainMapMax"] == "2.3", "\(source)")

        let jpeg = try await Self.run(folder, ["convert", "--to", "jpg", "s.heic", "-o", "s.jpg"])
        #expect(jpeg.contains("HDR gain map kept (Samsung, headroom 2.3 stops)"), "\(jpeg)")
        let jpegPath = folder.url.appendingPathComponent("s.jpg").path
        try GainMapJPEGCommandTests.expectUltraHDR(jpegPath)
        let mapPath = folder.url.appendingPathComponent("map.jpg").path
        // The gain-map image, cut out where the MPF index says it is.
        let index = try GainMapCommandTests.tags(jpegPath, ["MPImage2:MPImageStart", "MPImage2:MPImageLength"])
        let start = try #require(index["MPImage2:MPImageStart"].flatMap(Int.init))
        let length = try #require(index["MPImage2:MPImageLength"].flatMap(Int.init))
        try Data(contentsOf: URL(fileURLWithPath: jpegPath)).subdata(in: start..<(start + length)).write(
            to: URL(fileURLWithPath: mapPath))
        let written = try Self.hdrgm(mapPath)
        for name in ["GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR", "HDRCapacityMin", "HDRCapacityMax"]
        {
            let ours = written["XMP-hdrgm:\(name)"].flatMap(Double.init)
            let theirs = source["XMP-hdrgm:\(name)"].flatMap(Double.init)
            #expect(ours != nil && theirs != nil && abs(ours! - theirs!) < 1e-6, "\(name): \(written) vs \(source)")
        }
        let ultraHDR = try await GainMapCommandTests.oracle(folder.url.appendingPathComponent("s.heic").path, jpegPath)
        let jpegPSNR = try #require(ultraHDR["hdr_psnr"])
        #expect(jpegPSNR >= 35, "libultrahdr HDR PSNR \(jpegPSNR) dB")

        let heic = try await Self.run(folder, ["convert", "--to", "heic", "s.heic", "-o", "out.heic"])
        #expect(heic.contains("HDR gain map kept (Samsung, headroom 2.3 stops)"), "\(heic)")
        let output = folder.url.appendingPathComponent("out.heic").path
        #expect(try Self.boxes(output).contains("aux type: urn:com:samsung:photo:2024:aux:hdrgainmap"))
        let kept = try Self.hdrgm(output)
        #expect(kept.count == source.count, "\(kept) vs \(source)")
        for (name, value) in source {
            if let ours = kept[name].flatMap(Double.init), let theirs = Double(value) {
                #expect(abs(ours - theirs) < 1e-6, "\(name)")
            } else {
                #expect(kept[name]?.lowercased() == value.lowercased(), "\(name): \(kept) vs \(source)")
            }
        }
        let result = try await Self.heicOracle(folder, "s.heic", "out.heic")
        #expect(result["aux"] as? [String] == ["urn:com:samsung:photo:2024:aux:hdrgainmap"])
        let psnr = try #require(result["hdr_psnr"] as? Double)
        #expect(psnr >= 38, "HDR PSNR \(psnr) dB")
        let outputInfo = try await Self.run(folder, ["info", "out.heic"])
        #expect(outputInfo.contains("HDR: gain map (Samsung), headroom 2.3 stops"), "\(outputInfo)")
    }

    /// Galaxy S25 layouts (TestMedia/generators/64-gainmap-samsung-s25.sh, after the real file):
    /// the map a hidden grid, the primary's XMP only naming it, its parameters on the map's own
    /// XMP and in a `tmap` item, or in only one of them. Each is read (`info`), kept in a HEIC
    /// (with the `tmap` where the source has one, its values the source's) and made Ultra HDR.
    /// Measured (HEIC / JPEG HDR PSNR): 44.6 / 37.9 dB for each.
    @Test(
        "a Galaxy S25 HEIC's gain map, its parameters on the map's XMP or in a tmap item: info, HEIC, Ultra HDR",
        arguments: [
            ("generated/gainmap/samsung-s25.heic", true),
            ("generated/gainmap/samsung-map-xmp.heic", false),
            ("generated/gainmap/samsung-tmap.heic", true),
        ])
    func samsungS25(source: String, hasToneMap: Bool) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(source, as: "s.heic")
        let info = try await Self.run(folder, ["info", "s.heic"])
        #expect(info.contains("HDR: gain map (Samsung), headroom 2.3 stops"), "\(info)")

        let heic = try await Self.run(folder, ["convert", "--to", "heic", "s.heic", "-o", "out.heic"])
        #expect(heic.contains("HDR gain map kept (Samsung, headroom 2.3 stops)"), "\(heic)")
        let output = folder.url.appendingPathComponent("out.heic").path
        let dump = try Self.boxes(output)
        #expect(dump.contains("aux type: urn:com:samsung:photo:2024:aux:hdrgainmap"), "\(dump)")
        #expect(dump.contains("item_type: tmap") == hasToneMap, "\(dump)")
        #expect(try Self.hdrgm(output)["XMP-hdrgm:GainMapMax"] == "2.3")
        let result = try await Self.heicOracle(folder, "s.heic", "out.heic")
        #expect(result["aux"] as? [String] == ["urn:com:samsung:photo:2024:aux:hdrgainmap"], "\(result)")
        #expect(result["tmap"] as? Bool == (hasToneMap ? true : nil), "\(result)")
        let psnr = try #require(result["hdr_psnr"] as? Double)
        #expect(psnr >= 38, "HDR PSNR \(psnr) dB")

        let jpeg = try await Self.run(folder, ["convert", "--to", "jpg", "s.heic", "-o", "s.jpg"])
        #expect(jpeg.contains("HDR gain map kept (Samsung, headroom 2.3 stops)"), "\(jpeg)")
        let jpegPath = folder.url.appendingPathComponent("s.jpg").path
        try GainMapJPEGCommandTests.expectUltraHDR(jpegPath)
        let ultraHDR = try await GainMapCommandTests.oracle(folder.url.appendingPathComponent("s.heic").path, jpegPath)
        let jpegPSNR = try #require(ultraHDR["hdr_psnr"])
        #expect(jpegPSNR >= 35, "libultrahdr HDR PSNR \(jpegPSNR) dB")
    }

    /// A map of the ISO URN with no `tmap` item (libavif's colors_hdr files have one;
    /// TestMedia/generators/64-gainmap-iso-aux.sh): `info` lists the auxiliary image and says in
    /// one HDR line that it is ignored and why, never "no gain map" beside it; a conversion says
    /// the same.
    @Test(
        "an ISO gain-map image without a tmap item: info says once that it is ignored, and why",
        arguments: [
            ("generated/gainmap/iso-aux-no-tmap.heic", "HDR: gain map ignored: no tmap item states"),
            (
                "generated/gainmap/iso-aux-no-tmap-pq.heic",
                "HDR: PQ transfer, 8-bit, its gain map ignored (no tmap item states"
            ),
        ])
    func isoAuxiliaryWithoutToneMap(source: String, line: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(source, as: "g.heic")
        let info = try await Self.run(folder, ["info", "g.heic"])
        #expect(info.contains("auxiliary: HDR gain map (ISO 21496-1)"), "\(info)")
        #expect(info.contains(line), "\(info)")
        #expect(info.components(separatedBy: "  HDR:").count == 2 && !info.contains("no gain map"), "\(info)")
        let dump = try Self.boxes(folder.url.appendingPathComponent("g.heic").path)
        #expect(dump.contains("aux type: urn:com:photo:aux:hdrgainmap") && !dump.contains("tmap"), "\(dump)")
        guard !source.hasSuffix("-pq.heic") else { return }
        let text = try await Self.run(folder, ["convert", "--to", "heic", "g.heic", "-o", "out.heic"])
        try Self.expectDropped(
            text: text, note: "HDR not kept: no tmap item states the ISO 21496-1 gain map's parameters",
            output: folder.url.appendingPathComponent("out.heic").path)
    }

    /// Outputs without the gain map keep no `hdrgm:`/`Container:Directory` XMP and no auxiliary
    /// image, and say why.
    @Test(
        "when a Samsung HEIC's HDR is dropped nothing of it remains",
        arguments: [
            (["--to", "png"], "out.png", "HDR not kept: PNG has no gain map"),
            (["--to", "jpg", "--hdr", "sdr"], "out.jpg", ""),
            (["--to", "heic", "--hdr", "sdr"], "out.heic", "gain map removed (--hdr sdr)"),
            (
                ["--to", "heic", "--strip-metadata"], "out.heic",
                "HDR not kept: --strip-metadata removes the metadata that describes the gain map"
            ),
        ])
    func dropped(options: [String], name: String, note: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(Self.samsung, as: "s.heic")
        let text = try await Self.run(folder, ["convert"] + options + ["s.heic", "-o", name])
        try Self.expectDropped(text: text, note: note, output: folder.url.appendingPathComponent(name).path)
    }

    /// A conversion that drops the gain map: its output says `note` (nothing of HDR or a gain
    /// map when empty), and `output` carries no map (no MPF or `hdrgm:`, no `auxC` in a HEIC).
    static func expectDropped(
        text: String, note: String, output: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        if note.isEmpty {
            #expect(!text.contains("HDR") && !text.contains("gain map"), "\(text)", sourceLocation: sourceLocation)
        } else {
            #expect(text.contains(note), "\(text)", sourceLocation: sourceLocation)
        }
        try GainMapJPEGCommandTests.expectNoGainMap(output)
        if output.hasSuffix(".heic") {
            let dump = try boxes(output)
            #expect(!dump.contains("auxC"), "auxC left in \(output)", sourceLocation: sourceLocation)
        }
    }
}
