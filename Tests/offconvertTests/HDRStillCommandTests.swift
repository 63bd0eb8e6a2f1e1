import ConvertCore
import Foundation
import Testing

@testable import ConvertBatch
@testable import OffconvertCLI

/// PQ and HLG stills without a gain map (Sony/Canon 10-bit HEIF), run as a user would. Each output
/// is checked by Tests/Oracles/hdrstill-oracle.py, which decodes the source with pillow-heif and
/// renders the SDR reference itself (ST 2084 / HLG, BT.2390 EETF to 203 nits, sRGB curve), and
/// decodes an Ultra HDR output's HDR rendition with libultrahdr (imagecodecs); exiftool and djpeg
/// read the file's structure. No offconvert code takes part in a check.
@Suite("HDR stills: PQ/HLG tone mapped, Ultra HDR with a computed gain map")
struct HDRStillCommandTests {
    static func fixture(_ name: String) -> String { CLIRunner.media.appendingPathComponent("generated/" + name).path }
    static let pq = fixture("hdr-stills/pq.heic")
    static let hlg = fixture("hdr-stills/hlg.heic")
    static let canon = fixture("heif-cameras/canon-422-pq.heic")
    static let oracle = CLIRunner.root.appendingPathComponent("Tests/Oracles/hdrstill-oracle.py").path

    /// The oracle's verdict on `output` made from `source` (`--naive`: on the rendition written
    /// before tone mapping instead).
    static func verdict(_ source: String, _ output: String, naive: Bool = false) async throws -> [String: Any] {
        let python = GainMapCommandTests.python
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "the oracle venv is missing: pillow-heif and imagecodecs in .build/oracle-venv; Scripts/test installs them")
        let outcome = try await CLIRunner.run(
            [oracle, source, output] + (naive ? ["--naive"] : []), executable: python)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
    }

    static func number(_ verdict: [String: Any], _ key: String) -> Double {
        (verdict[key] as? NSNumber)?.doubleValue ?? -1
    }

    /// `--hdr keep` (the default): the SDR primary matches the reference tone mapping (≥ 35 dB),
    /// is neither flat nor clipped, and libultrahdr's HDR rendition matches the source's linear
    /// light (÷ 203 nits) to at least 30 dB. Measured (SDR / HDR): hdr-stills/pq 46.1 / 42.6 dB,
    /// hdr-stills/hlg 47.6 / 42.2 dB, canon-422-pq (4:2:2 grid, limited range, a 10000-nit peak) 38.5 / 30.3 dB.
    @Test(
        "heic-to-jpg writes Ultra HDR: a tone-mapped primary and a gain map computed from the HDR picture",
        arguments: [(pq, "PQ"), (hlg, "HLG"), (canon, "PQ")])
    func ultraHDR(input: String, transfer: String) async throws {
        let directory = try GainMapCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (output, stdout) = try await GainMapCommandTests.convert(input, ["heic-to-jpg"], in: directory)
        #expect(stdout.contains("HDR tone mapped to SDR (\(transfer), BT.2390)"), "\(stdout)")
        #expect(stdout.contains("HDR kept as a gain map computed from the \(transfer) picture (headroom "), "\(stdout)")
        let verdict = try await Self.verdict(input, output)
        // canon-422-pq is tokyo.jpg's sRGB codes read as PQ: its darkest pixels are at 60 nits, so
        // its SDR rendition cannot reach black; it must span the reference's range instead.
        if input == Self.canon {
            #expect(Self.number(verdict, "span_of_reference") >= 0.95, "\(verdict)")
        } else {
            #expect(verdict["accepted"] as? Bool == true, "\(verdict)")
        }
        #expect(Self.number(verdict, "sdr_psnr") >= 35, "\(verdict)")
        #expect(Self.number(verdict, "clipped_fraction") < 0.01, "\(verdict)")
        #expect(Self.number(verdict, "hdr_psnr") >= 30, "\(verdict)")

        let tags = try GainMapCommandTests.tags(
            output,
            [
                "MPF0:NumberOfImages", "MPImage2:MPImageStart", "MPImage2:MPImageLength", "XMP-hdrgm:Version",
                "ICC_Profile:ProfileDescription",
            ])
        #expect(tags["MPF0:NumberOfImages"] == "2")
        #expect(tags["XMP-hdrgm:Version"] == "1.0")
        #expect(tags["ICC_Profile:ProfileDescription"] == "BT.2020")
        let start = try #require(tags["MPImage2:MPImageStart"].flatMap(Int.init))
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        let mapPath = directory.appendingPathComponent("gainmap.jpg").path
        try data.subdata(in: start..<data.count).write(to: URL(fileURLWithPath: mapPath))
        let primaryPath = directory.appendingPathComponent("primary.jpg").path
        try data.subdata(in: 0..<start).write(to: URL(fileURLWithPath: primaryPath))
        let map = try GainMapCommandTests.tags(
            mapPath,
            [
                "XMP-hdrgm:GainMapMin", "XMP-hdrgm:GainMapMax", "XMP-hdrgm:HDRCapacityMax", "XMP-hdrgm:OffsetSDR",
                "XMP-hdrgm:OffsetHDR",
            ])
        // Highlights above SDR white: more than a stop of boost, up to log2(peak / 203).
        let maximum = try #require(map["XMP-hdrgm:GainMapMax"].flatMap(Double.init))
        #expect(maximum > 1 && maximum < log2(10000 / 203.0) + 0.1, "\(map)")
        #expect(map["XMP-hdrgm:HDRCapacityMax"] == map["XMP-hdrgm:GainMapMax"])
        #expect(map["XMP-hdrgm:OffsetSDR"].flatMap(Double.init).map { abs($0 - 1.0 / 64) < 1e-5 } == true, "\(map)")
        let size = try #require(try await GainMapCommandTests.djpegSize(primaryPath))
        let mapSize = try #require(try await GainMapCommandTests.djpegSize(mapPath))
        // The map is half the picture's size on each side (djpeg at 1/8 scale).
        let pictureWidth = input == Self.canon ? 368 : 384
        #expect(size.0 == (pictureWidth + 7) / 8)
        #expect(mapSize.0 == ((pictureWidth + 1) / 2 + 7) / 8)
    }

    /// What offconvert wrote before (the PQ/HLG code values scaled to 8 bits under a BT.709
    /// profile) fails the same oracle: so the checks above can fail. Measured SDR PSNR: PQ 14.5 dB
    /// (highlights stop at 188: flat), HLG 22.4 dB.
    @Test("the rendition without tone mapping fails the oracle", arguments: [pq, hlg, canon])
    func naiveFails(input: String) async throws {
        let verdict = try await Self.verdict(input, input, naive: true)
        #expect(verdict["accepted"] as? Bool == false, "\(verdict)")
        #expect(Self.number(verdict, "sdr_psnr") < 35, "\(verdict)")
    }

    /// `--hdr sdr`: one JPEG, tone mapped, no MPF; PNG and WebP outputs are tone mapped too and
    /// say that the HDR was not kept.
    @Test(
        "--hdr sdr, PNG and WebP outputs are tone-mapped SDR",
        arguments: [
            (["heic-to-jpg", "--hdr", "sdr"], "jpg", nil),
            (["heic-to-png"], "png", "HDR not kept: PNG has no gain map"),
            (["convert", "--to", "webp", "--quality", "95"], "webp", "HDR not kept: WebP has no gain map"),
        ] as [([String], String, String?)])
    func sdrOutputs(arguments: [String], format: String, notKept: String?) async throws {
        let directory = try GainMapCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(arguments + [Self.pq, "--output-dir", directory.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let printed = outcome.stdout + outcome.stderr
        #expect(printed.contains("HDR tone mapped to SDR (PQ, BT.2390)"), "\(printed)")
        if let notKept { #expect(printed.contains(notKept), "\(printed)") }
        #expect(!printed.contains("not tone-mapped"))
        var output = directory.appendingPathComponent("pq.\(format)").path
        if format == "webp" {
            // libwebp's own decoder; the oracle takes any format PIL decodes.
            let png = directory.appendingPathComponent("pq-webp.png").path
            let decoded = try await CLIRunner.run(
                [output, "-o", png], executable: URL(fileURLWithPath: "/usr/bin/dwebp"))
            try #require(decoded.status == 0, "\(decoded.stderr)")
            output = png
        }
        let verdict = try await Self.verdict(Self.pq, output)
        #expect(verdict["accepted"] as? Bool == true, "\(verdict)")
        #expect(verdict["hdr_psnr"] == nil)
        if format == "jpg" {
            let tags = try GainMapCommandTests.tags(output, ["MPF0:NumberOfImages", "XMP-hdrgm:Version"])
            #expect(tags["MPF0:NumberOfImages"] == nil && tags["XMP-hdrgm:Version"] == nil, "\(tags)")
        }
    }

    /// `--json` carries the notes of the tone mapping and of the gain map.
    @Test("--json carries the HDR notes")
    func json() async throws {
        let directory = try GainMapCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try await CLIRunner.run(["heic-to-jpg", Self.pq, "--output-dir", directory.path, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let notes = lines.compactMap { $0["notes"] as? [String] }.flatMap { $0 }
        #expect(notes.contains("HDR tone mapped to SDR (PQ, BT.2390)"), "\(outcome.stdout)")
        #expect(
            notes.contains { $0.hasPrefix("HDR kept as a gain map computed from the PQ picture (headroom ") },
            "\(outcome.stdout)")
    }

    /// `info` says in words that the photo is HDR without a gain map.
    @Test("info names the HDR transfer", arguments: [(pq, "PQ"), (hlg, "HLG")])
    func info(input: String, transfer: String) async throws {
        let outcome = try await CLIRunner.run(["info", input])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(
            outcome.stdout.contains("  HDR: \(transfer) transfer, 10-bit, no gain map: tone mapped for SDR outputs"),
            "\(outcome.stdout)")
    }

    /// The batch's memory estimate counts the tone mapping's SDR bitmap (and the gain map's
    /// samples for a JPEG that keeps HDR) on top of what the same photo costs without it.
    @Test("the batch cost counts the tone-mapping buffers")
    func cost() throws {
        let keep = PhotoWork.cost(of: Self.pq, request: PhotoRequest(inputPath: Self.pq, format: .jpeg))
        var sdrRequest = PhotoRequest(inputPath: Self.pq, format: .jpeg)
        sdrRequest.hdr = .sdr
        let sdr = PhotoWork.cost(of: Self.pq, request: sdrRequest)
        let heic = PhotoWork.cost(of: Self.pq, request: PhotoRequest(inputPath: Self.pq, format: .heic))
        // The SDR bitmap is counted where the still is tone mapped, and not for a HEIC that keeps PQ.
        let info = try ImageProbe.probeBlocking(path: Self.pq)
        #expect(
            PhotoMemoryEstimate.toneMappingBytes(of: info, request: sdrRequest)
                == BatchScheduler.bitmapBytes(width: 384, height: 256, bytesPerPixel: 4))
        #expect(
            PhotoMemoryEstimate.toneMappingBytes(of: info, request: PhotoRequest(inputPath: Self.pq, format: .heic))
                == 0)
        #expect(heic > 0)
        #expect(keep - sdr == GainMapBuilder.workingBytes(width: 384, height: 256))
        #expect(keep - sdr > 0)
    }

    /// A tone-mapped still is tagged with a profile lcms2 makes on the spot, whose header lcms2
    /// dates with the current time: the same photo converted twice must still give the same bytes.
    /// exiftool reads the profile's date, which is the fixed one whenever the conversion runs.
    @Test(
        "the same HDR still converted twice gives the same bytes: the generated profile has a fixed date",
        arguments: [(canon, "jpg"), (hlg, "png")])
    func deterministicProfile(input: String, format: String) async throws {
        let directory = try GainMapCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var outputs: [Data] = []
        for run in ["first", "second"] {
            let folder = directory.appendingPathComponent(run)
            let outcome = try await CLIRunner.run(["convert", input, "--to", format, "--output-dir", folder.path])
            try #require(outcome.status == 0, "\(outcome.stderr)")
            let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            let output = folder.appendingPathComponent("\(name).\(format)").path
            let tags = try GainMapCommandTests.tags(
                output, ["ICC-header:ProfileDateTime", "ICC_Profile:ProfileDescription"])
            #expect(tags["ICC-header:ProfileDateTime"] == "2024:01:01 00:00:00", "\(tags)")
            #expect(tags["ICC_Profile:ProfileDescription"] == "BT.2020", "\(tags)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(outputs[0] == outputs[1])
    }
}
