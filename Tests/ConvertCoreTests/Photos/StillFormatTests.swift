import Foundation
import Testing

@testable import ConvertCore

/// TGA, Netpbm, ICO/CUR, PSD and JPEG 2000 inputs (issue #55): converted to PNG in process and
/// compared with decoders that share no code with ours: Pillow (in the oracle venv) for TGA,
/// Netpbm, icons and 8-bit PSDs, `opj_decompress` for JPEG 2000. Fixtures:
/// TestMedia/generators/86-stills.sh and the real files in TestMedia/photos/formats/.
@Suite(
    "TGA, PNM, ICO, PSD and JPEG 2000 inputs",
    .enabled(if: FileManager.default.fileExists(atPath: Fixtures.generated("stills/rgb.jp2")))
)
struct StillFormatTests {
    /// (input, what Pillow reads as the reference: the input itself, a file beside it, or an
    /// `opj_decompress` output made first, and the largest sample difference allowed).
    static let cases: [(input: String, reference: String, tolerance: Int)] = [
        ("generated/formats/pool.tga", "self", 0), ("photos/formats/rle.tga", "self", 0),
        ("stills/rle24.tga", "self", 0), ("stills/raw24.tga", "self", 0), ("stills/rgba.tga", "self", 0),
        ("stills/gray.tga", "self", 0), ("stills/pal8.tga", "self", 0),
        ("stills/rgb.ppm", "self", 0), ("stills/gray16.pgm", "self", 0), ("stills/mono.pbm", "self", 0),
        // maxval 1000 goes back to 8 bits by rounding; Pillow's scaling rounds otherwise by one.
        ("stills/plain.ppm", "self", 1),
        // Pillow 11 does not read a PAM with alpha: the TGA made from the same samples stands in.
        ("stills/rgba.pam", "stills/rgba.tga", 0),
        ("stills/icons.ico", "self", 0), ("stills/mask.ico", "self", 0), ("stills/cursor.cur", "self", 0),
        ("stills/rgba-rle.psd", "self", 0), ("stills/gray-raw.psd", "self", 0), ("stills/cmyk-rle.psd", "self", 1),
        ("stills/rgb.jp2", "opj", 0), ("stills/rgb.j2k", "opj", 0),
    ]

    /// A fixture's path: a generated one under `stills/`, a committed one otherwise.
    static func fixture(_ name: String) -> String {
        name.hasPrefix("stills/") ? Fixtures.generated(name) : Fixtures.path(name)
    }

    /// The largest sample difference of each (reference, ours) pair as Pillow reads both (8-bit
    /// RGBA), one Python process for them all; -1 where the sizes differ.
    static func pillowDifferences(_ pairs: [(String, String)]) throws -> [Int] {
        let python = Fixtures.root.appendingPathComponent(".build/oracle-venv/bin/python").path
        let script = Fixtures.root.appendingPathComponent("Tests/Oracles/pillow-compare.py").path
        try #require(
            FileManager.default.isExecutableFile(atPath: python),
            "Pillow is missing: .build/oracle-venv (Scripts/test makes it)")
        let outcome = try PhotoReference.run(python, [script] + pairs.flatMap { [$0.0, $0.1] })
        try #require(outcome.status == 0, "pillow-compare.py failed")
        return String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
    }

    @Test("each converts to a PNG whose pixels match Pillow's or opj_decompress's decode of the input")
    func pixels() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var pairs: [(String, String)] = []
        for (index, item) in Self.cases.enumerated() {
            let output = directory.appendingPathComponent("\(index)")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            let result = try await PhotoRun.convert(
                PhotoRequest(inputPath: Self.fixture(item.input), format: .png, outputDirectory: output.path))
            let png = try #require(result.outputs.first?.path)
            var reference = item.reference == "self" ? Self.fixture(item.input) : Self.fixture(item.reference)
            if item.reference == "opj" {
                reference = directory.appendingPathComponent("opj-\(index).png").path
                let decoded = try PhotoReference.run(
                    "opj_decompress", ["-quiet", "-i", Self.fixture(item.input), "-o", reference])
                try #require(decoded.status == 0, "opj_decompress cannot read \(item.input)")
            }
            pairs.append((reference, png))
        }
        let differences = try Self.pillowDifferences(pairs)
        try #require(differences.count == Self.cases.count, "\(differences)")
        for (item, difference) in zip(Self.cases, differences) {
            #expect(difference >= 0 && difference <= item.tolerance, "\(item.input): largest difference \(difference)")
        }
    }

    @Test("a 16-bit CMYK Photoshop document goes to sRGB through its embedded SWOP profile, 16 bits kept")
    func cmykDocument() throws {
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("generated/formats/cmyk-16bit.psd"))))
        let decoded = try PSDDecoder.decode(data, maxPixels: 1 << 20, path: "cmyk.psd")
        #expect(decoded.bitmap.width == 10 && decoded.bitmap.height == 12 && decoded.bitmap.isSixteenBit)
        #expect(decoded.bitmap.icc.flatMap(ColorProfiles.describe)?.contains("sRGB") == true)
        #expect(
            decoded.notes == ["CMYK converted to sRGB through its colour profile (\"U.S. Web Coated (SWOP) v2\")"],
            "\(decoded.notes)")
    }

    @Test("info reads headers only: size, depth, colour model, alpha and the format's name")
    func info() throws {
        let expected: [(String, PhotoFormat, Int, Int, Int, Bool, String?)] = [
            ("photos/formats/rle.tga", .tga, 128, 128, 8, true, nil),
            ("stills/gray.tga", .tga, 61, 43, 8, false, "grey"),
            ("stills/gray16.pgm", .pnm, 61, 43, 16, false, "grey"), ("stills/rgba.pam", .pnm, 61, 43, 8, true, nil),
            ("stills/icons.ico", .ico, 61, 43, 8, true, nil),
            ("generated/formats/cmyk-16bit.psd", .psd, 10, 12, 16, false, "CMYK"),
            ("stills/rgb.j2k", .jp2, 61, 43, 8, false, nil),
        ]
        for (name, format, width, height, depth, alpha, model) in expected {
            let info = try ImageProbe.probeBlocking(path: Self.fixture(name))
            #expect(
                info.format == format && info.width == width && info.height == height && info.bitDepth == depth
                    && info.hasAlpha == alpha && info.color.model == model, "\(name): \(info)")
        }
    }

    /// Decodes `bytes` with the reader for `name`'s format.
    static func decode(_ bytes: [UInt8], as name: String) throws(ConvertError) {
        let limit = 1 << 22
        switch PathText.fileExtension(name) {
        case "tga": _ = try TGADecoder.decode(bytes, maxPixels: limit, path: name)
        case "ppm", "pgm", "pbm", "pam": _ = try PNMDecoder.decode(bytes, maxPixels: limit, path: name)
        case "ico", "cur": _ = try ICODecoder.decode(bytes, maxPixels: limit, path: name)
        case "psd": _ = try PSDDecoder.decode(bytes, maxPixels: limit, path: name)
        default: _ = try JPEG2000Decoder.decode(bytes, maxPixels: limit, path: name)
        }
    }

    @Test("damaged files of each format decode or throw .input/.unsupported, never crash")
    func damaged() throws {
        for name in [
            "stills/rle24.tga", "stills/pal8.tga", "stills/plain.ppm", "stills/rgba.pam", "stills/mono.pbm",
            "stills/icons.ico", "stills/mask.ico", "stills/rgba-rle.psd", "stills/rgb.jp2", "stills/rgb.j2k",
        ] {
            let source = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture(name))))
            for bytes in HostileImageTests.damaged(source, seed: 55, count: 25) {
                do {
                    try Self.decode(bytes, as: name)
                } catch {
                    #expect(error.category == .input || error.category == .unsupported, "\(name): \(error.message)")
                }
            }
        }
    }

    @Test("a cut file is input.truncated, a lying size is refused before allocation, a wrecked codestream named")
    func lyingAndCut() throws {
        func bytes(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture(name))))
        }
        for name in [
            "stills/raw24.tga", "stills/rle24.tga", "stills/rgb.ppm", "stills/rgba-rle.psd", "stills/gray-raw.psd",
        ] {
            let whole = try bytes(name)
            expectConvertError(.inputTruncated) { try Self.decode(Array(whole.prefix(whole.count * 2 / 3)), as: name) }
        }
        // A TGA header claiming 65535x65535 over 100 bytes, a PPM claiming 30000x30000, a PSD
        // claiming 300000x300000: refused by their size, nothing that large allocated.
        var tga = try bytes("stills/raw24.tga").prefix(100).map { $0 }
        tga.replaceSubrange(12..<16, with: [0xFF, 0xFF, 0xFF, 0xFF])
        expectConvertError(.inputTooManyPixels) { try Self.decode(tga, as: "x.tga") }
        expectConvertError(.inputTruncated) {
            _ = try PNMDecoder.decode(
                Array("P6\n30000 30000\n255\n".utf8) + [1, 2, 3], maxPixels: 1 << 30, path: "x.ppm")
        }
        var psd = try bytes("stills/gray-raw.psd")
        psd.replaceSubrange(14..<22, with: [0, 4, 0x93, 0xE0, 0, 4, 0x93, 0xE0])
        expectConvertError(.inputTooManyPixels) { try Self.decode(psd, as: "x.psd") }
        // An icon whose only entry points past the file's end.
        var icon = try bytes("stills/mask.ico")
        icon.replaceSubrange(18..<22, with: [0xFF, 0xFF, 0xFF, 0x7F])
        expectConvertError(.inputCorrupt) { try Self.decode(icon, as: "x.ico") }
        // A JPEG 2000 codestream cut in its tile data: OpenJPEG's error, as a value.
        let jp2 = try bytes("stills/rgb.jp2")
        let error = expectConvertError(.inputCorrupt) { try Self.decode(Array(jp2.prefix(jp2.count / 2)), as: "x.jp2") }
        #expect(error?.message.contains("JPEG 2000") == true, "\(error?.message ?? "")")
    }
}
