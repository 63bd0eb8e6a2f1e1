import Foundation
import Testing

/// `info`, `extract-motion`, `strip-motion` and the photo commands on motion photos, checked with
/// independent tools: ffprobe/ffmpeg on every extracted video, exiftool for what the files say,
/// byte comparison where the promise is identity.
@Suite("motion photo commands")
struct MotionCommandsTests {
    static let exiftool = "/usr/bin/exiftool"
    static let haveTools = ["/usr/bin/exiftool", "/usr/bin/ffprobe", "/usr/bin/ffmpeg"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static func generated(_ name: String) -> String { CLIRunner.media.appendingPathComponent("generated/\(name)").path }

    static func tool(_ name: String, _ arguments: [String]) async throws -> CLIRunner.Outcome {
        try await CLIRunner.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/\(name)"))
    }

    /// ffmpeg's hash of every packet of every stream: equal when the video was copied, not re-encoded.
    static func streamHash(_ path: String) async throws -> String {
        let outcome = try await tool(
            "ffmpeg", ["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "streamhash", "-"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout
    }

    @Test(
        "extract-motion: each layout's MP4, stream-copied, dated with the photo's capture time",
        .enabled(if: haveTools))
    func extract() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = ["motion-google.MP.jpg", "motion-samsung.jpg", "motion.heic"].map(Self.generated)
        let outcome = try await CLIRunner.run(["extract-motion", "-o", folder.path] + inputs)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let clip = try await Self.streamHash(Self.generated("motion-clip.mp4"))
        #expect(clip.contains("H264") || clip.contains("0,v,"), "\(clip)")
        let expected = [
            "motion-google.MP.mp4": "2021-03-04T03:06:07.000000Z",  // 05:06:07 at +02:00
            "motion-samsung.mp4": "2021-03-04T05:06:07.000000Z",  // no offset recorded: read as UTC
            "motion.mp4": "2021-03-04T03:06:07.000000Z",
        ]
        for (name, date) in expected {
            let path = folder.appendingPathComponent(name).path
            let probe = try await Self.tool(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=codec_name,width,height:format_tags=creation_time", "-of",
                    "compact", path,
                ])
            #expect(probe.status == 0, "\(name): \(probe.stderr)")
            #expect(probe.stdout.contains("codec_name=h264|width=160|height=120"), "\(name): \(probe.stdout)")
            #expect(probe.stdout.contains("codec_name=aac"), "\(name): \(probe.stdout)")
            #expect(probe.stdout.contains("creation_time=\(date)"), "\(name): \(probe.stdout)")
            #expect(try await Self.streamHash(path) == clip, "\(name) was not stream-copied")
        }
        #expect(outcome.stderr.contains("the photo's capture time"))
    }

    @Test("extract-motion: a cut-out video and a pointer to nothing fail honestly, an ordinary photo is skipped")
    func extractMissing() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = [
            CLIRunner.media.appendingPathComponent("photos/motion/pixel-motion-photo-shortened.jpg").path,
            Self.generated("motion-pointer-only.MP.jpg"), Self.generated("motion-still.jpg"),
        ]
        let outcome = try await CLIRunner.run(["extract-motion", "-o", folder.path] + inputs)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("pixel-motion-photo-shortened.jpg has no usable video"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("50000 bytes"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("motion-still.jpg: not a motion photo"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("Fatal") && !outcome.stderr.contains("crash"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test("strip-motion: the still byte for byte, without the video or its XMP pointers", .enabled(if: haveTools))
    func strip() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = ["motion-google.MP.jpg", "motion-samsung.jpg", "motion-microvideo.jpg"].map(Self.generated)
        let outcome = try await CLIRunner.run(["strip-motion", "-o", folder.path] + inputs)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let clipBytes = try #require(FileManager.default.contents(atPath: Self.generated("motion-clip.mp4"))).count
        for input in inputs {
            let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
            let output = folder.appendingPathComponent("\(stem) (still).jpg").path
            let tags = try await Self.tool("exiftool", ["-ee", "-a", "-s", "-G1", output])
            #expect(tags.status == 0)
            for tag in ["EmbeddedVideo", "MotionPhoto", "MicroVideo", "Warning"] {
                #expect(!tags.stdout.contains(tag), "\(output) still has \(tag): \(tags.stdout)")
            }
            #expect(tags.stdout.contains("DateTimeOriginal"), "EXIF lost: \(tags.stdout)")
            // The JPEG part is the original's bytes: without the XMP segment on both sides, the
            // output equals the input's first bytes (checked with cmp over the whole output).
            let bare = folder.appendingPathComponent("\(stem).bare.jpg").path
            let original = folder.appendingPathComponent("\(stem).original.jpg").path
            _ = try await Self.tool("exiftool", ["-q", "-XMP:all=", "-o", bare, output])
            _ = try await Self.tool("exiftool", ["-q", "-XMP:all=", "-trailer:all=", "-o", original, input])
            let inputSize = try #require(FileManager.default.attributesOfItem(atPath: input)[.size] as? Int)
            let outputSize = try #require(FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
            #expect(outputSize < inputSize - clipBytes + 200, "\(output) is \(outputSize) bytes")
            let compare = try await CLIRunner.run([bare, original], executable: URL(fileURLWithPath: "/usr/bin/cmp"))
            #expect(compare.status == 0, "\(stem): \(compare.stdout)\(compare.stderr)")
            let decode = try await Self.tool("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        }
    }

    /// A Samsung HEIC motion photo as Galaxy phones write one: a HEIC, then the same SEF
    /// trailer as their JPEGs (`Image_UTC_Data`, `MotionPhoto_Data` + the MP4, `SEFH`…`SEFT`).
    /// Made from two generated fixtures: motion.heic without its `mpvd` box (the last one), and
    /// the trailer of motion-samsung.jpg, whose offsets count back from `SEFH` and so still hold.
    static func samsungHEIC(in folder: URL) throws -> (path: String, still: Data) {
        let heic = try #require(FileManager.default.contents(atPath: generated("motion.heic")))
        let clip = try #require(FileManager.default.contents(atPath: generated("motion-clip.mp4")))
        let still = heic.prefix(heic.count - clip.count - 8)
        let jpeg = try #require(FileManager.default.contents(atPath: generated("motion-samsung.jpg")))
        let name = try #require(jpeg.range(of: Data("Image_UTC_Data".utf8)))
        let path = folder.appendingPathComponent("20230401_120000.heic").path
        try (still + jpeg[(name.lowerBound - 8)...]).write(to: URL(fileURLWithPath: path))
        return (path, Data(still))
    }

    @Test(
        "a Samsung HEIC motion photo: info shows its video, extract-motion copies it, strip-motion leaves the HEIC's bytes",
        .enabled(if: haveTools))
    func samsungHEIC() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, still) = try Self.samsungHEIC(in: folder)
        let info = try await CLIRunner.run(["info", input])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("motion: Samsung motion photo, MP4 of"), "\(info.stdout)")
        let extracted = try await CLIRunner.run(["extract-motion", "-o", folder.path, input])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        let video = folder.appendingPathComponent("20230401_120000.mp4").path
        #expect(try await Self.streamHash(video) == Self.streamHash(Self.generated("motion-clip.mp4")))
        let stripped = try await CLIRunner.run(["strip-motion", "-o", folder.path, input])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        let output = folder.appendingPathComponent("20230401_120000 (still).heic").path
        #expect(FileManager.default.contents(atPath: output) == still)
        let tags = try await Self.tool("exiftool", ["-ee", "-a", "-s", "-G1", output])
        #expect(!tags.stdout.contains("EmbeddedVideo") && !tags.stdout.contains("Warning"), "\(tags.stdout)")
        let again = try await CLIRunner.run(["info", output])
        #expect(again.status == 0 && !again.stdout.contains("motion:"), "\(again.stdout)")
    }

    /// A Google-style HEIC motion photo whose XMP is an item (`mime`, `application/rdf+xml`)
    /// declaring the motion: exiftool writes the packet into motion.heic's still, then the clip
    /// goes after it in an `mpvd` box. Returns the file and the still as exiftool wrote it.
    static func heicWithXMPItem(in folder: URL) async throws -> (path: String, still: String) {
        let heic = try #require(FileManager.default.contents(atPath: generated("motion.heic")))
        let clip = try #require(FileManager.default.contents(atPath: generated("motion-clip.mp4")))
        let still = folder.appendingPathComponent("still.heic").path
        try heic.prefix(heic.count - clip.count - 8).write(to: URL(fileURLWithPath: still))
        let packet = folder.appendingPathComponent("motion.xmp")
        try Data(motionXMP.utf8).write(to: packet)
        let written = try await tool("exiftool", ["-q", "-overwrite_original", "-xmp<=\(packet.path)", still])
        #expect(written.status == 0, "\(written.stderr)")
        var box = Data()
        let size = UInt32(clip.count + 8)
        box.append(contentsOf: [
            UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF),
        ])
        box.append(contentsOf: Array("mpvd".utf8))
        let path = folder.appendingPathComponent("PXL_motion.heic").path
        try (try #require(FileManager.default.contents(atPath: still)) + box + clip).write(
            to: URL(fileURLWithPath: path))
        return (path, still)
    }

    static let motionXMP = """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:dc="http://purl.org/dc/elements/1.1/" GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="0">
           <dc:title><rdf:Alt><rdf:li xml:lang="x-default">kept</rdf:li></rdf:Alt></dc:title>
           <Container:Directory><rdf:Seq>
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/heic" Item:Semantic="Primary"/></rdf:li>
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto"/></rdf:li>
           </rdf:Seq></Container:Directory>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """

    @Test(
        "strip-motion on a HEIC whose XMP is an item: the pointers go, every byte outside the packet stays (exiftool)",
        .enabled(if: haveTools))
    func heicXMPItem() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, still) = try await Self.heicWithXMPItem(in: folder)
        let before = try await Self.tool("exiftool", ["-a", "-s", "-G1", input])
        #expect(
            before.stdout.contains("MotionPhoto") && before.stdout.contains("DirectoryItemSemantic"), "\(before.stdout)"
        )
        let outcome = try await CLIRunner.run(["strip-motion", "-o", folder.path, input])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("motion pointers removed from the XMP"), "\(outcome.stderr)")
        let output = folder.appendingPathComponent("PXL_motion (still).heic").path
        let tags = try await Self.tool("exiftool", ["-ee", "-a", "-s", "-G1", output])
        for tag in ["GCamera", "MotionPhoto", "Container", "Warning"] {
            #expect(!tags.stdout.contains(tag), "\(output) still has \(tag): \(tags.stdout)")
        }
        #expect(tags.stdout.contains("Title") && tags.stdout.contains("kept"), "other XMP lost: \(tags.stdout)")
        // Same length as the still exiftool wrote, and different only inside the XMP packet.
        let original = try #require(FileManager.default.contents(atPath: still))
        let stripped = try #require(FileManager.default.contents(atPath: output))
        #expect(stripped.count == original.count)
        let start = try #require(original.range(of: Data("<?xpacket begin".utf8))).lowerBound
        let end = try #require(original.range(of: Data("<?xpacket end=\"w\"?>".utf8))).upperBound
        let differing = zip(original, stripped).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(
            !differing.isEmpty && differing.allSatisfy { (start..<end).contains($0) }, "bytes changed outside the XMP")
        let decode = try await Self.tool("heif-convert", [output, folder.appendingPathComponent("decoded.png").path])
        #expect(decode.status == 0, "libheif cannot read the still: \(decode.stderr)")
    }

    @Test("info shows the embedded video in text and JSON, and a missing one honestly")
    func info() async throws {
        let located = Self.generated("motion-located.MP.jpg")
        let shortened = CLIRunner.media.appendingPathComponent("photos/motion/ss-motion-photo-shortened.jpg").path
        let text = try await CLIRunner.run(["info", located, shortened])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("motion: Google motion photo, MP4 of 25.8 kB"), "\(text.stdout)")
        #expect(text.stdout.contains("h264"))
        #expect(text.stdout.contains("location: 48.8584° N, 2.2945° E (the embedded motion video)"), "\(text.stdout)")
        #expect(text.stdout.contains("motion: Samsung motion photo, but the video is not there"), "\(text.stdout)")
        let json = try await CLIRunner.run(["info", "--json", located, shortened])
        let lines = json.stdout.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 2)
        let first = try #require(lines.first ?? nil)
        let motion = try #require(first["motionPhoto"] as? [String: Any])
        #expect(motion["layout"] as? String == "google")
        #expect(motion["videoBytes"] as? Int == 25799)
        let video = try #require(motion["video"] as? [String: Any])
        #expect((video["tracks"] as? [[String: Any]])?.first?["codec"] as? String == "h264")
        #expect((first["location"] as? [String: Any])?["sources"] as? [String] == ["motion-video"])
        let second = try #require(lines.last ?? nil)
        let missing = try #require(second["motionPhoto"] as? [String: Any])
        #expect(missing["video"] == nil)
        #expect(missing["problem"] as? String != nil)
    }

    @Test(
        "strip-location removes the location inside the embedded video, every other byte kept", .enabled(if: haveTools))
    func stripLocation() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = Self.generated("motion-located.MP.jpg")
        let outcome = try await CLIRunner.run(["strip-location", "-o", folder.path, input])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("the embedded motion video"), "\(outcome.stderr)")
        let output = folder.appendingPathComponent("motion-located.MP (no location).jpg").path
        // exiftool extracts the embedded MP4 on its own; ffprobe reads it.
        let video = folder.appendingPathComponent("embedded.dat").path
        let pattern = folder.appendingPathComponent("embedded.%s").path
        let extracted = try await Self.tool("exiftool", ["-q", "-ee", "-b", "-EmbeddedVideo", "-W", pattern, output])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        let tags = try await Self.tool(
            "ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "compact", video])
        #expect(tags.status == 0, "\(tags.stderr)")
        #expect(!tags.stdout.contains("location"), "\(tags.stdout)")
        #expect(
            try await Self.streamHash(video) == (try await Self.streamHash(Self.generated("motion-located-clip.mp4"))))
        let sizes = try [input, output].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
        #expect(sizes[0] == sizes[1])
    }

    @Test(
        "photo conversions of a motion photo say the motion part was not kept, and drop its pointers",
        .enabled(if: haveTools),
        arguments: [["heic-to-jpg", "--include-jpeg"], ["convert", "--to", "png"], ["compress-photos"]])
    func conversions(_ command: [String]) async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try await CLIRunner.run(
            command + [
                "-o", folder.path, Self.generated("motion-microvideo.jpg"),
                Self.generated("motion.heic"), Self.generated("motion-still.jpg"),
            ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("motion-microvideo.jpg: motion part not kept"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("motion.heic: motion part not kept"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("motion-still.jpg: motion part not kept"), "\(outcome.stderr)")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            let tags = try await Self.tool("exiftool", ["-a", "-s", folder.appendingPathComponent(name).path])
            #expect(
                !tags.stdout.contains("MicroVideo") && !tags.stdout.contains("MotionPhoto"), "\(name): \(tags.stdout)")
        }
    }
}
