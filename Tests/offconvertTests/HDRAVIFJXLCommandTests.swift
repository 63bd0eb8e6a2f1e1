import Foundation
import Testing

/// HDR stays HDR in AVIF and JPEG XL (issue #38), run as a user would, from a folder of their
/// own with relative paths. Each output is read by tools that share no code with offconvert:
/// Tests/Oracles/hdr-output-oracle.py (pillow-heif's libheif 1.23 lists an AVIF's auxiliary
/// images, a box walker of its own reads the tmap item, its altr group and references, libavif
/// decodes the primary and the gain map, and the HDR rendition is rebuilt with ISO 21496-1's
/// formula; djxl and jxlinfo read a JPEG XL) against the source's HDR rendition, rebuilt from the
/// source's own planes by gainmap-oracle.py; hdrstill-oracle.py judges the Ultra HDR JPEG made
/// from a PQ JPEG XL.
@Suite("HDR in AVIF and JPEG XL: gain maps kept, PQ renditions, PQ JPEG XL inputs")
struct HDRAVIFJXLCommandTests {
    static let oraclePath = CLIRunner.root.appendingPathComponent("Tests/Oracles/hdr-output-oracle.py").path

    /// Runs `offconvert arguments` in `folder`; the run must succeed. Its stdout and stderr.
    static func run(_ folder: UserFolder, _ arguments: [String]) async throws -> String {
        let outcome = try await CLIRunner.run(arguments, directory: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout + outcome.stderr
    }

    /// The oracle's reading of `output` made from `source` (names in `folder`).
    static func oracle(_ folder: UserFolder, _ source: String, _ output: String) async throws -> [String: Any] {
        let python = GainMapCommandTests.python
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "the oracle venv is missing: pillow-heif and imagecodecs in .build/oracle-venv; Scripts/test installs them")
        let outcome = try await CLIRunner.run([oraclePath, source, output], executable: python, directory: folder.url)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
    }

    static func number(_ result: [String: Any], _ key: String) -> Double {
        (result[key] as? NSNumber)?.doubleValue ?? -1
    }

    /// The HDR rendition matches the source's: at least 35 dB (peak = the headroom), 10 dB more
    /// than the source's SDR picture scores (what a lost, flat or misplaced map would come near),
    /// and the same brightest values within 10%.
    static func expectSameHDR(_ result: [String: Any]) {
        let psnr = number(result, "hdr_psnr")
        let flat = number(result, "no_boost_psnr")
        #expect(psnr >= 35 && psnr >= flat + 10, "HDR PSNR \(psnr) dB, without the boost \(flat) dB: \(result)")
        #expect(abs(number(result, "peak_ratio") - 1) < 0.1, "\(result)")
    }

    /// Measured (HDR PSNR / the SDR picture's): pug 53.5 / 32.3 dB, samsung 42.2 / 7.2 dB,
    /// pixel8-crop 43.4 / 16.8 dB, apple-gainmap-jpeg 57.9 / 31.0 dB.
    @Test(
        "an AVIF keeps the gain map: AV1 auxiliary image, ISO 21496-1 tmap, altr group",
        arguments: [
            ("photos/pug.heic", "in.heic", ["--max-size", "1200"], "Apple, headroom 1.8 stops", 1.8, 1200),
            ("generated/gainmap/samsung.heic", "s.heic", [String](), "Samsung, headroom 2.3 stops", 2.3, 512),
            ("photos/hdr/pixel8-crop.jpg", "p.jpg", [], "Ultra HDR, headroom 1.1 stops", 1.1, 640),
            ("photos/hdr/apple-gainmap-jpeg.jpg", "a.jpg", [], "Apple, headroom 3.0 stops", 3.0, 384),
        ])
    func avif(source: String, name: String, options: [String], kept: String, stops: Double, width: Int) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(source, as: name)
        let text = try await Self.run(folder, ["convert", "--to", "avif"] + options + [name, "-o", "out.avif"])
        #expect(text.contains("HDR gain map kept (\(kept))"), "\(text)")
        let result = try await Self.oracle(folder, name, "out.avif")
        #expect(result["aux"] as? [String] == ["urn:com:photo:aux:hdrgainmap"], "\(result)")
        #expect(result["auxC"] as? [String] == ["urn:com:photo:aux:hdrgainmap"], "\(result)")
        for fact in ["tmap_brand", "tmap_inputs", "altr", "auxl", "gain_map_hidden"] {
            #expect(result[fact] as? Bool == true, "\(fact): \(result)")
        }
        #expect(result["gain_map_type"] as? String == "av01")
        #expect(Self.number(result, "width") == Double(width), "\(result)")
        let record = try #require(result["tmap"] as? [String: Double])
        #expect(abs((record["alternate_headroom"] ?? 0) - stops) < 0.05, "\(record)")
        Self.expectSameHDR(result)
        let info = try await Self.run(folder, ["info", "out.avif"])
        #expect(info.contains("HDR: gain map (ISO 21496-1), headroom \(stops) stops"), "\(info)")
    }

    /// libavif's ISO 21496-1 AVIF (`tmap` item, hidden AV1 map, three-channel record), which
    /// libheif 1.15 shows as a plain picture: `info` names the map, a JPEG is Ultra HDR and an
    /// AVIF keeps it (the channels made one; the oracle rebuilds the source's HDR from all
    /// three), a HEIC output and `--hdr sdr` drop it and say so. Measured HDR PSNR: JPEG 40.6 dB,
    /// AVIF 42.6 dB (the SDR picture alone 13.7 dB).
    @Test("an ISO 21496-1 AVIF's gain map is read: info, Ultra HDR JPEG, AVIF; HEIC and --hdr sdr say it is dropped")
    func isoAVIF() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/hdr/iso21496-gainmap.avif", as: "g.avif")
        let info = try await Self.run(folder, ["info", "g.avif"])
        #expect(info.contains("HDR: gain map (ISO 21496-1), headroom 1.3 stops"), "\(info)")
        let kept = "HDR gain map kept (ISO 21496-1, headroom 1.3 stops; its three colour channels made one)"

        let jpeg = try await Self.run(folder, ["convert", "--to", "jpg", "g.avif", "-o", "out.jpg"])
        #expect(jpeg.contains(kept), "\(jpeg)")
        let jpegPath = folder.url.appendingPathComponent("out.jpg").path
        try GainMapJPEGCommandTests.expectUltraHDR(jpegPath)
        let ultraHDR = try await GainMapCommandTests.oracle(folder.url.appendingPathComponent("g.avif").path, jpegPath)
        #expect((ultraHDR["hdr_psnr"] ?? 0) >= 35, "\(ultraHDR)")
        #expect(abs((ultraHDR["median_ratio"] ?? 0) - 1) < 0.05, "\(ultraHDR)")

        let avif = try await Self.run(folder, ["convert", "--to", "avif", "g.avif", "-o", "out.avif"])
        #expect(avif.contains(kept), "\(avif)")
        let result = try await Self.oracle(folder, "g.avif", "out.avif")
        for fact in ["tmap_brand", "tmap_inputs", "altr", "auxl", "gain_map_hidden"] {
            #expect(result[fact] as? Bool == true, "\(fact): \(result)")
        }
        Self.expectSameHDR(result)

        let heic = try await Self.run(folder, ["convert", "--to", "heic", "g.avif", "-o", "out.heic"])
        try HeicGainMapCommandTests.expectDropped(
            text: heic, note: "HDR not kept: HEIC output is written without the gain map",
            output: folder.url.appendingPathComponent("out.heic").path)
        let sdr = try await Self.run(folder, ["convert", "--to", "avif", "--hdr", "sdr", "g.avif", "-o", "sdr.avif"])
        #expect(sdr.contains("gain map removed (--hdr sdr)"), "\(sdr)")
        let dump = try CLIRunner.toolOutput(
            "/usr/bin/heif-info", ["-d", folder.url.appendingPathComponent("sdr.avif").path])
        #expect(!dump.contains("tmap") && !dump.contains("auxC"), "\(dump)")
    }

    /// libjxl 0.7 has no gain-map box: the JPEG XL is the HDR picture itself. Measured (HDR PSNR
    /// / the SDR picture's): pug 53.9 / 32.3 dB, iphone16-crop 42.2 / 8.3 dB, apple-gainmap-jpeg
    /// 57.6 / 31.1 dB.
    @Test(
        "a JPEG XL of a gain-map photo is its HDR rendition in 16-bit PQ over BT.2100",
        arguments: [
            ("photos/pug.heic", "in.heic", ["--max-size", "1200"], "Apple", 1.8),
            ("photos/hdr/iphone16-crop.jpg", "i.jpg", [String](), "ISO 21496-1", 1.7),
            ("photos/hdr/apple-gainmap-jpeg.jpg", "a.jpg", [String](), "Apple", 3.0),
        ])
    func jxl(source: String, name: String, options: [String], origin: String, stops: Double) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add(source, as: name)
        let text = try await Self.run(folder, ["convert", "--to", "jxl"] + options + [name, "-o", "out.jxl"])
        #expect(
            text.contains(
                "HDR rendition written as 16-bit PQ (BT.2100): the \(origin) gain map applied, headroom \(stops) stops"),
            "\(text)")
        let result = try await Self.oracle(folder, name, "out.jxl")
        #expect(result["pq_2100"] as? Bool == true && result["bits_16"] as? Bool == true, "\(result)")
        Self.expectSameHDR(result)
    }

    /// `--hdr sdr` writes what these outputs were before: no gain map, no PQ, no HDR note.
    @Test("--hdr sdr: an AVIF without the gain map, a JPEG XL of the SDR picture (Display P3, sRGB curve)")
    func sdr() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/pug.heic", as: "in.heic")
        for format in ["avif", "jxl"] {
            let text = try await Self.run(
                folder,
                ["convert", "--to", format, "--hdr", "sdr", "--max-size", "600", "in.heic", "-o", "sdr.\(format)"])
            #expect(!text.contains("HDR") && !text.contains("gain map"), "\(text)")
        }
        let dump = try CLIRunner.toolOutput(
            "/usr/bin/heif-info", ["-d", folder.url.appendingPathComponent("sdr.avif").path])
        #expect(!dump.contains("tmap") && !dump.contains("auxC"), "\(dump)")
        let header = try CLIRunner.toolOutput("/usr/bin/jxlinfo", [folder.url.appendingPathComponent("sdr.jxl").path])
        #expect(!header.contains("PQ") && header.contains("P3 primaries, sRGB transfer function"), "\(header)")
    }

    /// A PQ or HLG still keeps its code values in JPEG XL, with its transfer in the colour
    /// encoding; djxl gives them back within the lossy coding's error. Measured signal PSNR:
    /// PQ 55.3 dB, HLG 53.3 dB.
    @Test(
        "a PQ or HLG still to JPEG XL keeps its code values and names its transfer",
        arguments: [("pq", "PQ"), ("hlg", "HLG")])
    func hdrStill(name: String, transfer: String) async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/hdr-stills/\(name).heic", as: "\(name).heic")
        let text = try await Self.run(folder, ["convert", "--to", "jxl", "\(name).heic", "-o", "out.jxl"])
        #expect(text.contains("HDR kept: written as 16-bit \(transfer) (BT.2100)"), "\(text)")
        #expect(!text.contains("tone mapped") && !text.contains("not tone-mapped"), "\(text)")
        let result = try await Self.oracle(folder, "\(name).heic", "out.jxl")
        #expect(
            result["transfer"] as? String == transfer && result["source_transfer"] as? String == transfer, "\(result)")
        #expect(result["rec2100"] as? Bool == true && result["bits_16"] as? Bool == true, "\(result)")
        #expect(Self.number(result, "signal_psnr") >= 45, "\(result)")
        #expect(Self.number(result, "signal_max_error") < 0.1, "\(result)")
    }

    /// A 16-bit PQ JPEG XL (cjxl, TestMedia/generators/64-hdr-stills.sh) becomes Ultra HDR as a
    /// PQ HEIF does: a tone-mapped primary and a gain map computed from the PQ picture, judged by
    /// hdrstill-oracle.py against the picture djxl decodes. Measured: SDR 46.3 dB, HDR 42.5 dB.
    @Test("a PQ JPEG XL becomes an Ultra HDR JPEG")
    func pqJXLInput() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("generated/hdr-stills/pq.jxl", as: "pq.jxl")
        let info = try await Self.run(folder, ["info", "pq.jxl"])
        #expect(info.contains("HDR: PQ transfer, 16-bit, no gain map"), "\(info)")
        let text = try await Self.run(folder, ["convert", "--to", "jpg", "pq.jxl", "-o", "out.jpg"])
        #expect(text.contains("HDR tone mapped to SDR (PQ, BT.2390)"), "\(text)")
        #expect(text.contains("HDR kept as a gain map computed from the PQ picture (headroom "), "\(text)")
        let output = folder.url.appendingPathComponent("out.jpg").path
        let verdict = try await HDRStillCommandTests.verdict(folder.url.appendingPathComponent("pq.jxl").path, output)
        #expect(verdict["accepted"] as? Bool == true, "\(verdict)")
        #expect(HDRStillCommandTests.number(verdict, "sdr_psnr") >= 35, "\(verdict)")
        #expect(HDRStillCommandTests.number(verdict, "hdr_psnr") >= 30, "\(verdict)")
        let tags = try GainMapCommandTests.tags(output, ["MPF0:NumberOfImages", "XMP-hdrgm:Version"])
        #expect(tags["MPF0:NumberOfImages"] == "2" && tags["XMP-hdrgm:Version"] == "1.0", "\(tags)")
    }
}
