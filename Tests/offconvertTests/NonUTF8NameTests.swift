import Foundation
import Testing

/// File names that are not UTF-8 (`caf\xE9.jpg`: Latin-1 from an old camera card, a zip or a
/// Windows share). Linux names are bytes: each such file is read, converted and its output named
/// with the same bytes; on screen the byte is U+FFFD. The commands get the raw bytes as a shell
/// or a file manager gives them (`RawSpawn`), never through a Swift string.
@Suite("File names that are not UTF-8")
struct NonUTF8NameTests {
    static let cafe: [UInt8] = Array("caf".utf8) + [0xE9]
    static func name(_ stem: [UInt8], _ ext: String) -> [UInt8] { stem + Array(".\(ext)".utf8) }

    @Test(
        "a Latin-1 name given directly is converted, its output has the same bytes and the same picture as under a UTF-8 name; the screen shows U+FFFD"
    )
    func directName() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/DSCN0010.jpg", asBytes: Self.name(Self.cafe, "jpg"))
        try folder.add("photos/DSCN0010.jpg", as: "plain.jpg")
        let converted = await folder.run(bytes: [
            Array("convert".utf8), Self.name(Self.cafe, "jpg"), Array("--to".utf8), Array("png".utf8),
        ])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdout.contains("caf\u{FFFD}.png"), "\(converted.stdout)")
        #expect(try await folder.run(["convert", "plain.jpg", "--to", "png"]).status == 0)
        let latin = try Data(contentsOf: folder.url.appendingPathComponent("plain.png"))
        #expect(folder.names().contains(Self.name(Self.cafe, "png")))
        #expect(
            folder.contents(of: Self.name(Self.cafe, "png")) == latin,
            "the same photo under the two names gives the same PNG")

        let info = await folder.run(bytes: [Array("info".utf8), Self.name(Self.cafe, "jpg"), Array("--json".utf8)])
        #expect(info.status == 0, "\(info.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any], "\(info.stdout)")
        #expect(
            (object["path"] as? String ?? object["input"] as? String ?? info.stdout).contains("caf\u{FFFD}.jpg"),
            "\(info.stdout)")
    }

    @Test(
        "every photo output format written from a Latin-1 name is the file a UTF-8 name gives, and nothing else is left in the folder"
    )
    func everyPhotoFormat() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/zPug_3.heic", asBytes: Self.name(Self.cafe, "heic"))
        try folder.add("photos/zPug_3.heic", as: "plain.heic")
        // More conversions than a day's free ones: each run starts from its own allowance.
        let fresh = { folder.url.appendingPathComponent(".state/\(UUID().uuidString)").path }
        for format in ["jpg", "png", "webp", "heic", "avif", "jxl"] {
            let outcome = await folder.run(
                bytes: [Array("convert".utf8), Self.name(Self.cafe, "heic"), Array("--to".utf8), Array(format.utf8)],
                state: fresh())
            #expect(outcome.status == 0, "\(format): \(outcome.stderr)")
            #expect(
                try await folder.run(
                    ["convert", "plain.heic", "--to", format], environment: ["XDG_STATE_HOME": fresh()]
                ).status == 0)
            let plain = try Data(contentsOf: folder.url.appendingPathComponent("plain.\(format)"))
            #expect(!plain.isEmpty)
            #expect(folder.contents(of: Self.name(Self.cafe, format)) == plain, "\(format)")
        }
        let pdf = await folder.run(
            bytes: [
                Array("images-to-pdf".utf8), Self.name(Self.cafe, "jpg"), Self.name(Self.cafe, "png"),
                Array("-o".utf8), Self.name(Self.cafe, "pdf"),
            ], state: fresh())
        #expect(pdf.status == 0, "\(pdf.stderr)")
        #expect(folder.contents(of: Self.name(Self.cafe, "pdf"))?.starts(with: Array("%PDF".utf8)) == true)
        // The two sources, six outputs of each, the PDF: no temporary or stray name left.
        let expected = 15
        #expect(folder.names().count == expected, "\(folder.names().map { String(decoding: $0, as: UTF8.self) })")
    }

    @Test("inside a folder argument and under `*` a Latin-1 name is converted and counted, not silently left out")
    func folderAndStar() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        folder.makeFolder(bytes: Array("card".utf8))
        try folder.add("photos/DSCN0010.jpg", asBytes: Array("card/".utf8) + Self.name(Self.cafe, "jpg"))
        try folder.add("photos/DSCN0010.jpg", as: "card/a b.jpg")
        let whole = await folder.run(bytes: [
            Array("convert".utf8), Array("card".utf8), Array("--to".utf8), Array("webp".utf8),
        ])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stderr.contains("2 done"), "\(whole.stderr)")
        #expect(folder.names(in: Array("card".utf8)).contains(Self.name(Self.cafe, "webp")))

        let star = await folder.shell("cd card && \"$OC\" convert *.jpg --to png")
        #expect(star.status == 0, "\(star.stderr)")
        #expect(star.stderr.contains("2 done"), "\(star.stderr)")
        #expect(folder.names(in: Array("card".utf8)).contains(Self.name(Self.cafe, "png")))

        let again = await folder.shell("cd card && \"$OC\" convert *.jpg --to png")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            folder.names(in: Array("card".utf8)).count == 6,
            "a rerun writes nothing new: \(folder.names(in: Array("card".utf8)))")
    }

    @Test("a --from-file list naming a Latin-1 file is read, not refused whole")
    func fromFileList() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        try folder.add("photos/DSCN0010.jpg", asBytes: Self.name(Self.cafe, "jpg"))
        let list = Array("# exported from an old card\n".utf8) + Self.name(Self.cafe, "jpg") + Array("\n".utf8)
        try Data(list).write(to: folder.url.appendingPathComponent("list.txt"))
        let outcome = await folder.run(bytes: [
            Array("compress-photos".utf8), Array("--from-file".utf8), Array("list.txt".utf8),
            Array("--max-size".utf8), Array("200".utf8), Array("-o".utf8), Array("small".utf8),
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let written = folder.names(in: Array("small".utf8))
        #expect(
            written.count == 1 && written[0].starts(with: Self.cafe),
            "\(written.map { String(decoding: $0, as: UTF8.self) })")
    }

    @Test(
        "a clip with a Latin-1 name goes to the video engine and back with its bytes: ffprobe reads the output by its name",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")))
    func videoName() async throws {
        let folder = try UserFolder()
        defer { folder.remove() }
        let clip = Array("v".utf8) + [0xED] + Array("deo".utf8)
        try folder.add("video/sample.mp4", asBytes: Self.name(clip, "mp4"))
        let outcome = await folder.run(bytes: [
            Array("compress".utf8), Self.name(clip, "mp4"), Array("--target".utf8), Array("60kB".utf8),
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let outputs = folder.names().filter { $0.starts(with: clip) && $0 != Self.name(clip, "mp4") }
        // One output and nothing else: the two-pass statistics files, named after it, are gone too.
        #expect(
            outputs.count == 1 && folder.names().count == 2,
            "\(folder.names().map { String(decoding: $0, as: UTF8.self) })")
        let output = try #require(outputs.first)
        let probe = await RawSpawn.run(
            [
                Array("/usr/bin/ffprobe".utf8), Array("-v".utf8), Array("error".utf8), Array("-show_entries".utf8),
                Array("format=size".utf8), Array("-of".utf8), Array("csv=p=0".utf8), output,
            ],
            environment: CLIRunner.childEnvironment, directory: folder.url.path)
        #expect(probe.status == 0, "\(probe.stderr)")
        let size = try #require(Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(probe.stdout)")
        #expect(size > 0 && size <= 60_000)
    }
}
