import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Images to PDF")
struct PDFAlbumTests {
    static func tool(_ name: String) -> Bool { PhotoReference.has(name) }

    @Test(
        "a mixed album is valid, in input order, with JPEGs embedded byte for byte and no location",
        .enabled(if: tool("qpdf") && tool("pdfinfo") && tool("pdfimages"), "needs qpdf and poppler-utils"))
    func album() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pdf = directory.appendingPathComponent("album.pdf").path
        let inputs = ["photos/tokyo.jpg", "photos/zPug_3.heic", "photos/orientation/Landscape_6.jpg"].map(Fixtures.path)
        let result = try await PDFAlbum.make(PDFRequest(inputPaths: inputs, outputPath: pdf, page: .a4)).result()
        #expect(result.outputs.first?.path == pdf)
        #expect(try PhotoReference.run("qpdf", ["--check", pdf]).status == 0)
        let info = String(decoding: try PhotoReference.run("pdfinfo", [pdf]).output, as: UTF8.self)
        #expect(info.contains("Pages:           3"))
        let list = String(decoding: try PhotoReference.run("pdfimages", ["-list", pdf]).output, as: UTF8.self)
        let sizes = list.split(separator: "\n").dropFirst(2).map { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2).map(String.init)
        }
        // Page order follows the inputs; the rotated JPEG is upright (landscape 1800×1200).
        #expect(sizes == [["600", "800"], ["64", "64"], ["1800", "1200"]])
        let extracted = directory.appendingPathComponent("img").path
        try PhotoReference.run("pdfimages", ["-j", pdf, extracted])
        let embedded = try #require(FileManager.default.contents(atPath: extracted + "-000.jpg"))
        let source = try #require(FileManager.default.contents(atPath: inputs[0]))
        // The compressed data (from the first SOS marker on) is the source's own.
        func scan(_ data: Data) -> Data? {
            let bytes = [UInt8](data)
            guard let start = (0..<(bytes.count - 1)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
            else { return nil }
            return Data(bytes[start...])
        }
        #expect(scan(embedded) != nil && scan(embedded) == scan(source))
        if Self.tool("exiftool") {
            let tags = String(
                decoding: try PhotoReference.run("exiftool", ["-gps:all", extracted + "-000.jpg"]).output, as: UTF8.self
            )
            #expect(!tags.contains("GPS"))
        }
    }

    @Test(
        "--max-size shrinks only the images over it; a JPEG within it is still embedded as it is",
        .enabled(if: tool("qpdf") && tool("pdfimages"), "needs qpdf and poppler-utils"))
    func maxSize() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pdf = directory.appendingPathComponent("album.pdf").path
        let inputs = ["photos/pug.heic", "photos/tokyo.jpg", "photos/orientation/Landscape_1.jpg"].map(Fixtures.path)
        let result = try await PDFAlbum.make(
            PDFRequest(inputPaths: inputs, outputPath: pdf, page: .a4, maxLongEdge: 800)
        ).result()
        #expect(result.notes.messages.contains("1 JPEG embedded without re-encoding"), "\(result.notes.messages)")
        #expect(result.notes.messages.contains("2 images encoded as JPEG"), "\(result.notes.messages)")
        #expect(try PhotoReference.run("qpdf", ["--check", pdf]).status == 0)
        let list = String(decoding: try PhotoReference.run("pdfimages", ["-list", pdf]).output, as: UTF8.self)
        let sizes = list.split(separator: "\n").dropFirst(2).map { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2).map(String.init)
        }
        // pug.heic is 4032×3024, tokyo.jpg 600×800 (kept), Landscape_1.jpg 1800×1200.
        #expect(sizes == [["800", "600"], ["600", "800"], ["800", "533"]])
    }

    @Test("page layout: fit uses the image size, fixed pages centre and never enlarge")
    func layout() {
        let fit = PDFAlbum.layout(width: 640, height: 480, page: .fit, margin: 10)
        #expect(fit.pageWidth == 660 && fit.pageHeight == 500)
        let small = PDFAlbum.layout(width: 100, height: 50, page: .a4, margin: 0)
        #expect(small.pageWidth > small.pageHeight)  // landscape page for a landscape image
        #expect(small.box.2 == 100 && small.box.3 == 50)
        let big = PDFAlbum.layout(width: 4000, height: 3000, page: .letter, margin: 36)
        #expect(big.pageWidth == 792 && big.pageHeight == 612)
        #expect(big.box.2 <= 792 - 72 + 0.001 && big.box.3 <= 612 - 72 + 0.001)
        #expect(abs(big.box.2 / big.box.3 - 4.0 / 3.0) < 0.001)
    }

    @Test("a broken image fails the album and leaves no file")
    func broken() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pdf = directory.appendingPathComponent("album.pdf").path
        do {
            _ = try await PDFAlbum.make(
                PDFRequest(
                    inputPaths: [Fixtures.path("photos/tokyo.jpg"), Fixtures.path("video/sample.mp4")], outputPath: pdf)
            ).result()
            Issue.record("an album with a video in it was written")
        } catch {
            #expect(error.code == .unsupportedNotAPhoto, "\(error.key): \(error.message)")
        }
        #expect(PhotoRun.files(directory).isEmpty)
    }
}
