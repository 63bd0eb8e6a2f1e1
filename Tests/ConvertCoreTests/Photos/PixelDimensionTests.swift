import Foundation
import Testing

@testable import ConvertCore

/// EXIF PixelXDimension/PixelYDimension describe the written picture, not the source's, after
/// rotation and resizing, under every metadata policy that keeps EXIF. Read back with exiftool.
@Suite(
    "Photos: EXIF pixel dimensions follow the output", .enabled(if: PhotoReference.has("exiftool"), "needs exiftool"))
struct PixelDimensionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var format: PhotoFormat
        var policy: MetadataPolicy
        var maxLongEdge: Int?
        var target: Int64?
        var testDescription: String { "\(format) \(policy) max=\(maxLongEdge ?? 0) target=\(target ?? 0)" }
    }

    @Test(
        "a 640x480 photo with Orientation 6, rotated (and resized), records its output size",
        arguments: [
            Case(format: .jpeg, policy: .shareSafe), Case(format: .png, policy: .keep),
            Case(format: .webp, policy: .keepLocation, maxLongEdge: 100),
            Case(format: .jpeg, policy: .shareSafe, target: 20_000),
        ])
    func dimensions(_ item: Case) async throws {
        let folder = try Fixtures.temporaryDirectory("pixel-dimensions")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("d.jpg").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/DSCN0010.jpg"), toPath: input)
        #expect(
            try PhotoReference.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", input]).status == 0)
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: input, format: item.format, outputDirectory: folder.appendingPathComponent("out").path,
                metadata: item.policy, maxLongEdge: item.maxLongEdge, targetByteCount: item.target))
        let output = try #require(result.outputs.first).path
        let read = String(
            decoding: try PhotoReference.run(
                "exiftool",
                [
                    "-s", "-s", "-s", "-ExifIFD:ExifImageWidth", "-ExifIFD:ExifImageHeight", "-ImageSize", output,
                ]
            ).output, as: UTF8.self
        ).split(separator: "\n").map(String.init)
        #expect(read.count == 3, "\(read)")
        guard read.count == 3 else { return }
        #expect("\(read[0])x\(read[1])" == read[2], "EXIF says \(read[0])x\(read[1]), the picture is \(read[2])")
        // Portrait: the rotation was applied.
        #expect((Int(read[1]) ?? 0) > (Int(read[0]) ?? 0))
    }

    @Test("a SHORT too small for the new width becomes a LONG in place")
    func shortToLong() throws {
        let data = try ImageDecoder.readAll(path: Fixtures.path("photos/DSCN0010.jpg"))
        let tiff = try #require(JPEGMarkers.metadata(data).exif)
        let exif = try #require(Exif(tiff: tiff))
        let patched = try #require(Exif(tiff: exif.settingPixelDimensions(width: 70_000, height: 5)))
        #expect(patched.bytes.count == tiff.count)
        let directory = try #require(patched.ifd0.entry(Exif.Tag.exifIFD)?.child)
        let width = try #require(directory.entry(Exif.Tag.pixelXDimension))
        #expect(width.type == 4)
        #expect(width.value == (patched.bigEndian ? [0, 1, 0x11, 0x70] : [0x70, 0x11, 1, 0]))
    }
}

/// The README says the MakerNote goes from shared copies and stays with --keep-metadata; the
/// standard EXIF shot settings stay either way. Checked with exiftool on a Nikon JPEG.
@Suite("Photos: the MakerNote as the README says", .enabled(if: PhotoReference.has("exiftool"), "needs exiftool"))
struct MakerNotePolicyTests {
    @Test(
        "shared copies drop the MakerNote and keep the exposure; --keep-metadata keeps it",
        arguments: [
            MetadataPolicy.shareSafe, .keepLocation, .keep,
        ])
    func makerNote(policy: MetadataPolicy) async throws {
        let folder = try Fixtures.temporaryDirectory("maker-note")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await PhotoRun.convert(
            PhotoRequest(
                inputPath: Fixtures.path("photos/DSCN0010.jpg"), format: .jpeg, outputDirectory: folder.path,
                metadata: policy))
        let tags = try PhotoReference.exiftool(try #require(result.outputs.first).path)
        #expect(tags.contains("[Nikon]") == (policy == .keep), "\(policy)")
        #expect(tags.contains("ExposureTime") && tags.contains("FNumber") && tags.contains("ISO"))
        #expect(result.notes.messages.contains("maker note removed") == (policy != .keep))
    }
}
