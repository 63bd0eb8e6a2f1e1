import Foundation
import Testing

/// ConvertCore is laid out in the order a photo travels (the README's architecture section):
/// Read/ → Decode/ → Transform/ → Encode/ → Write/. A phase uses what comes before it, never
/// what comes after: a decoder that reached into the encoder or the output staging would make
/// the phases one knot again. The scan reads every Swift file of those folders, collects the
/// types each phase declares, and finds any earlier phase's code that names a later phase's type.
@Suite("ConvertCore's phase folders only look back")
struct PhaseDirectionTests {
    static let phases = ["Read", "Decode", "Transform", "Encode", "Write"]

    /// A Swift file: its phase's position and its text.
    struct SourceFile {
        var path: String
        var phase: Int
        var text: String
    }

    /// The types `text` declares at any depth (`struct Name`, `enum Name`, ...).
    static func declaredTypes(in text: String) -> Set<String> {
        let words = identifiers(in: text)
        var names: Set<String> = []
        for (word, next) in zip(words, words.dropFirst())
        where ["struct", "enum", "class", "protocol", "actor", "typealias"].contains(word) {
            names.insert(next)
        }
        return names
    }

    /// The identifiers of `text`'s code, in order: comments and string literals left out (a
    /// doc comment may name what comes next; code may not).
    static func identifiers(in text: String) -> [String] {
        var words: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            // String literals on one line ("...") are text, not references.
            var unquoted = ""
            var inString = false
            for character in code {
                if character == "\"" { inString.toggle() } else if !inString { unquoted.append(character) }
            }
            code = Substring(unquoted)
            var word = ""
            for character in code {
                if character.isLetter || character.isNumber || character == "_" {
                    word.append(character)
                } else if !word.isEmpty {
                    words.append(word)
                    word = ""
                }
            }
            if !word.isEmpty { words.append(word) }
        }
        return words
    }

    /// `file:line`-free violations: each file of an earlier phase naming a type a later phase
    /// declares, as `path: Type (Phase/)`.
    static func violations(in files: [SourceFile]) -> [String] {
        var declaredBy: [String: Int] = [:]
        for file in files {
            for name in declaredTypes(in: file.text) { declaredBy[name] = max(declaredBy[name] ?? 0, file.phase) }
        }
        // A name some earlier phase declares too (a nested `Options`) is not a reference to later.
        for file in files {
            for name in declaredTypes(in: file.text) where declaredBy[name] != file.phase {
                declaredBy[name] = min(declaredBy[name] ?? file.phase, file.phase)
            }
        }
        var found: [String] = []
        for file in files {
            for name in Set(identifiers(in: file.text)) {
                if let phase = declaredBy[name], phase > file.phase {
                    found.append("\(file.path): \(name) (\(phases[phase])/)")
                }
            }
        }
        return found.sorted()
    }

    static func sources() throws -> [SourceFile] {
        let root = Fixtures.root.appendingPathComponent("Sources/ConvertCore")
        var files: [SourceFile] = []
        for (position, phase) in phases.enumerated() {
            let folder = root.appendingPathComponent(phase)
            guard let walker = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
                files.append(SourceFile(path: "\(phase)/\(relative)", phase: position, text: text))
            }
        }
        return files
    }

    /// The back-references the layout still has, each with why; a ratchet: a new one fails the
    /// test, and so does one that is gone but still listed (remove it here when it is fixed).
    static let known: [String: String] = [
        // The general decode delivers upright bitmaps at the size asked for: decoder-side scaling
        // (libjpeg's DCT scaling, a HEIF grid's tiles) and the colour and HDR handling of what a
        // decoder gives happen while the decode still holds the decoder's buffers.
        "Decode/Bitmap.swift: OrientationTurn (Transform/)": "the bitmap turns itself upright",
        "Decode/ImageDecoder.swift: CMYKConversion (Transform/)": "CMYK JPEG/TIFF to RGB at decode",
        "Decode/ImageDecoder.swift: ColorProfiles (Transform/)": "nclx-only HEIF gets its profile at decode",
        "Decode/TIFFDecoder.swift: ColorProfiles (Transform/)": "the same for TIFF",
        "Decode/PSDDecoder.swift: CMYKConversion (Transform/)": "a CMYK PSD composite to RGB at decode",
        "Decode/PSDDecoder.swift: ColorProfiles (Transform/)": "its embedded profile, for that",
        "Decode/ImageDecoder.swift: HDRStill (Transform/)": "a PQ/HLG still is tone mapped from its planes",
        "Decode/ImageDecoder.swift: HDRStillPolicy (Transform/)": "the same",
        "Decode/ImageDecoder.swift: HDRTransfer (Transform/)": "the same",
        "Decode/ImageDecoder.swift: Padding (Transform/)": "decoder-side scaling to a resize box",
        "Decode/ImageDecoder.swift: Resampler (Transform/)": "the same",
        "Decode/ImageDecoder.swift: ResizePlan (Transform/)": "the same",
        "Decode/HeifGainMap.swift: GainMapTable (Transform/)": "a gain map is read into its table",
        "Decode/HeifGainMap.swift: GrayPlane (Transform/)": "the same",
        // HEIC → JPEG band by band: the bands are encoded as they are decoded, so at most two
        // bands' planes exist (the whole picture's would be 18 MB for 12 MP).
        "Decode/HeifYCbCrDecoder+Bands.swift: JPEGStreamWriter (Encode/)": "decode and encode interleaved",
        // The HEIF reader hands out the picture's transforms and plane layout in the decoder's
        // own types rather than copies of them.
        "Read/Heif/HeifFile.swift: Transform (Decode/)": "irot/imir as the planes' transform",
        "Read/Heif/HeifFile.swift: YCbCr420Image (Decode/)": "the same",
        "Read/MediaSniffer.swift: BMPDecoder (Decode/)": "a BMP is told by its decoder's header check",
        "Read/StillSignature.swift: TGADecoder (Decode/)": "a footerless TGA is told by its header check",
        // A tone-mapped still's gain map is built band by band beside the tone map.
        "Transform/HDR/HDRStill.swift: GainMapBuilder (Encode/)": "the map built while tone mapping",
        "Transform/HDR/HDRToneMapper.swift: GainMapBuilder (Encode/)": "the same",
    ]

    @Test("no file of a phase names a type of a later phase, but the known few")
    func phasesLookBack() throws {
        let files = try Self.sources()
        #expect(files.count > 50, "the scan found \(files.count) files")
        let found = Self.violations(in: files)
        #expect(found.filter { Self.known[$0] == nil } == [], "new back-references")
        #expect(Self.known.keys.filter { !found.contains($0) }.sorted() == [], "fixed: remove them from `known`")
    }

    @Test("a planted back-reference is found: a reader naming the output staging")
    func plantedBackReference() throws {
        var files = try Self.sources()
        files.append(
            SourceFile(
                path: "Read/Planted.swift", phase: 0,
                text: "/// Mentions StagedOutput in a comment: fine.\nfunc planted() { _ = StagedOutput.self }\n"))
        #expect(
            Self.violations(in: files).filter { Self.known[$0] == nil } == ["Read/Planted.swift: StagedOutput (Write/)"]
        )
    }
}
