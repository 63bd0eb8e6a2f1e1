import Foundation
import Testing

/// Issue #54: a shared copy's XMP keeps an allow-list of namespaces. Real structures (a Sony
/// Ericsson phone's `cell:` codes, a museum's Darwin Core, an unknown vendor's namespace next to
/// Dublin Core and XMP basic) are written into a JPEG by exiftool, converted by `offconvert`, and
/// read back by exiftool (`-a -G1 -s -XMP:all`), the oracle.
@Suite("privacy: XMP allow-list in shared copies (exiftool oracle)")
struct XMPAllowListCommandTests {
    static let exiftool = URL(fileURLWithPath: "/usr/bin/exiftool")
    static let haveExiftool = FileManager.default.isExecutableFile(atPath: exiftool.path)

    /// The packet written into the fixture: exiftool's serialisation of cell:, dwc:, dc: and xmp:
    /// (as `-XMP-cell:...` writes them), with an unknown vendor's description added.
    static let packet = """
        <?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x='adobe:ns:meta/'>
        <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
         <rdf:Description rdf:about=''
          xmlns:cell='http://developer.sonyericsson.com/cell/1.0/'>
          <cell:cellid>50280</cell:cellid>
          <cell:cgi>460-0-4236-50280</cell:cgi>
          <cell:lac>4236</cell:lac>
          <cell:mcc>460</cell:mcc>
         </rdf:Description>
         <rdf:Description rdf:about=''
          xmlns:dc='http://purl.org/dc/elements/1.1/'>
          <dc:creator><rdf:Seq><rdf:li>Ann Curator</rdf:li></rdf:Seq></dc:creator>
          <dc:title><rdf:Alt><rdf:li xml:lang='x-default'>Harbour</rdf:li></rdf:Alt></dc:title>
         </rdf:Description>
         <rdf:Description rdf:about=''
          xmlns:dwc='http://rs.tdwg.org/dwc/index.htm'>
          <dwc:dctermsLocation rdf:parseType='Resource'>
           <dwc:country>Australia</dwc:country>
           <dwc:county>Lake Grace</dwc:county>
           <dwc:locality>Dunn Rock Nature Reserve</dwc:locality>
           <dwc:stateProvince>Western Australia</dwc:stateProvince>
           <dwc:verbatimCoordinates>41 05 54S 121 05 34W</dwc:verbatimCoordinates>
          </dwc:dctermsLocation>
         </rdf:Description>
         <rdf:Description rdf:about='' xmlns:acme='http://example.com/acme/1.0/' acme:SiteCode='X'/>
         <rdf:Description rdf:about=''
          xmlns:xmp='http://ns.adobe.com/xap/1.0/'>
          <xmp:Rating>4</xmp:Rating>
         </rdf:Description>
        </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end='w'?>
        """

    /// A real TestMedia JPEG carrying ``packet``, written by exiftool.
    static func fixture(in folder: URL) async throws -> String {
        let packetFile = folder.appendingPathComponent("p.xmp")
        try Data(packet.utf8).write(to: packetFile)
        let target = folder.appendingPathComponent("museum.jpg").path
        let source = CLIRunner.media.appendingPathComponent("photos/orientation/Landscape_1.jpg").path
        let outcome = try await CLIRunner.run(
            ["-q", "-xmp<=" + packetFile.path, "-o", target, source], executable: exiftool)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return target
    }

    /// exiftool's XMP lines of `path` (`[XMP-dc]         Title : Harbour`).
    static func xmp(_ path: String) async throws -> String {
        try await CLIRunner.run(["-a", "-G1", "-s", "-XMP:all", path], executable: exiftool).stdout
    }

    /// The output `offconvert` wrote into `folder` (the only file there).
    static func output(in folder: URL) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        #expect(names.count == 1, "\(names)")
        return folder.appendingPathComponent(names.first ?? "").path
    }

    @Test(
        "a default conversion keeps dc: and xmp:, drops cell:, dwc: and the unknown vendor, and says so",
        .enabled(if: haveExiftool), arguments: ["jpg", "png", "webp"])
    func shared(format: String) async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try await Self.fixture(in: folder)
        let before = try await Self.xmp(input)
        for group in ["[XMP-cell]", "[XMP-dwc]", "[XMP-acme]", "[XMP-dc]", "[XMP-xmp]"] {
            #expect(before.contains(group), "the fixture lacks \(group): \(before)")
        }
        let out = folder.appendingPathComponent("out")
        let outcome = try await CLIRunner.run(["convert", "--to", format, "-o", out.path, input])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("XMP: 3 namespaces removed (acme, cell, dwc)"), "\(outcome.stderr)")
        let after = try await Self.xmp(try Self.output(in: out))
        for group in ["[XMP-cell]", "[XMP-dwc]", "[XMP-acme]", "41 05 54S", "Dunn Rock", "SiteCode"] {
            #expect(!after.contains(group), "\(format): \(group) left: \(after)")
        }
        for line in ["Title", "Harbour", "Creator", "Ann Curator", "Rating", ": 4"] {
            #expect(after.contains(line), "\(format): \(line) missing: \(after)")
        }
        // exiftool's own check of the XMP it reads.
        let validate = try await CLIRunner.run(
            ["-validate", "-warning", "-a", "-XMP:all", try Self.output(in: out)], executable: Self.exiftool)
        #expect(!validate.stdout.contains("XMP format error"), "\(validate.stdout)")
    }

    @Test(
        "--keep-location keeps cell: and dwc: but not the vendor; --keep-metadata keeps all", .enabled(if: haveExiftool)
    )
    func kept() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try await Self.fixture(in: folder)
        let located = folder.appendingPathComponent("located")
        let first = try await CLIRunner.run(["convert", "--to", "jpg", "--keep-location", "-o", located.path, input])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("XMP: 1 namespace removed (acme)"), "\(first.stderr)")
        let withLocation = try await Self.xmp(try Self.output(in: located))
        #expect(withLocation.contains("460-0-4236-50280") && withLocation.contains("41 05 54S 121 05 34W"))
        #expect(!withLocation.contains("[XMP-acme]") && withLocation.contains("Harbour"))

        let all = folder.appendingPathComponent("all")
        let second = try await CLIRunner.run(["convert", "--to", "jpg", "--keep-metadata", "-o", all.path, input])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stderr.contains("namespace"), "\(second.stderr)")
        let everything = try await Self.xmp(try Self.output(in: all))
        for group in ["[XMP-cell]", "[XMP-dwc]", "[XMP-acme]", "SiteCode", "Harbour"] {
            #expect(everything.contains(group), "\(group) missing: \(everything)")
        }
    }
}
