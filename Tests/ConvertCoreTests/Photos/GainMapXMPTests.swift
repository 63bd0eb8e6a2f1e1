import Foundation
import Testing

@testable import ConvertCore

/// A Samsung/Google-style XMP packet declares a gain-map container (`hdrgm:` parameters and a
/// `Container:Directory` listing the gain-map item). Photo outputs carry no gain map, so the
/// declaration goes from every output, whatever the metadata policy; the rest of the packet stays.
@Suite("Photos: gain-map declarations in XMP")
struct GainMapXMPTests {
    static let packet = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" \
        xmlns:Container="http://ns.google.com/photos/1.0/container/" \
        xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
        hdrgm:Version="1.0" xmp:CreatorTool="Galaxy S23"><Container:Directory><rdf:Seq>\
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>\
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="1000"/></rdf:li>\
        </rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
        """

    @Test(
        "every policy that writes XMP removes the declaration and keeps the rest",
        arguments: [
            MetadataPolicy.shareSafe, .keepLocation, .keep,
        ])
    func policies(policy: MetadataPolicy) throws {
        let metadata = OutputMetadata(exif: nil, xmp: Array(Self.packet.utf8), policy: policy)
        let text = String(decoding: try #require(metadata.xmp), as: UTF8.self)
        #expect(!text.contains("hdrgm:Version"))
        #expect(!text.contains("Container:Directory") && !text.contains("GainMap"))
        #expect(text.contains("xmp:CreatorTool=\"Galaxy S23\""))
    }

    @Test(
        "a JPEG carrying the declaration converts without it (read back with exiftool)",
        .enabled(if: PhotoReference.has("exiftool"), "needs exiftool"))
    func converted() async throws {
        let folder = try Fixtures.temporaryDirectory("gain-map-xmp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("s.jpg").path
        try FileManager.default.copyItem(atPath: Fixtures.path("photos/tokyo.jpg"), toPath: input)
        let packetFile = folder.appendingPathComponent("p.xmp")
        try Data(Self.packet.utf8).write(to: packetFile)
        #expect(
            try PhotoReference.run("exiftool", ["-q", "-overwrite_original", "-xmp<=" + packetFile.path, input]).status
                == 0)
        #expect(try PhotoReference.exiftool(input).contains("DirectoryItemSemantic"))
        for format in [PhotoFormat.jpeg, .png] {
            let result = try await PhotoRun.convert(
                PhotoRequest(
                    inputPath: input, format: format, outputDirectory: folder.appendingPathComponent("out").path,
                    metadata: .keep))
            let tags = try PhotoReference.exiftool(try #require(result.outputs.first).path)
            #expect(!tags.contains("DirectoryItem") && !tags.contains("[XMP-hdrgm]"), "\(format): \(tags)")
            #expect(tags.contains("Galaxy S23"))
        }
    }
}
