import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

@Suite("Output naming and safety")
struct OutputNamingTests {
    private func touch(_ url: URL, _ text: String = "x") throws { try Data(text.utf8).write(to: url) }

    @Test("photo.heic becomes photo.jpg; collisions on disk and within the batch are numbered")
    func collisions() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("photo.heic")
        let b = folder.appendingPathComponent("photo.png")
        try touch(a)
        try touch(b)
        try touch(folder.appendingPathComponent("photo.jpg"))
        let resolved = try #require(realpath(folder.path, nil).map { String(cString: $0) })
        let namer = try OutputNamer(outputDirectory: nil, overwrite: false, inputs: [a.path, b.path])
        #expect(try namer.destination(for: a.path, pathExtension: "jpg") == resolved + "/photo (2).jpg")
        #expect(try namer.destination(for: b.path, pathExtension: "jpg") == resolved + "/photo (3).jpg")
        #expect(
            try namer.destination(for: a.path, pathExtension: "jpg", suffix: "-small") == resolved + "/photo-small.jpg")
    }

    @Test("--overwrite replaces a plain file but never an input, even through another path or a hard link")
    func overwrite() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let input = out.appendingPathComponent("photo.jpg")
        try touch(input)
        let other = folder.appendingPathComponent("other.heic")
        try touch(other)
        try touch(out.appendingPathComponent("other.jpg"))
        // The same input named through a symlinked folder and a relative-looking path.
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("alias"), withDestinationURL: out)
        let viaAlias = folder.appendingPathComponent("alias/../out/photo.jpg").path
        let namer = try OutputNamer(outputDirectory: out.path, overwrite: true, inputs: [viaAlias, other.path])
        let resolved = try #require(namer.outputDirectory)
        #expect(try namer.destination(for: viaAlias, pathExtension: "jpg") == resolved + "/photo (2).jpg")
        #expect(try namer.destination(for: other.path, pathExtension: "jpg") == resolved + "/other.jpg")

        // A hard link to an input is the input.
        let linked = out.appendingPathComponent("linked.jpg")
        try FileManager.default.linkItem(at: input, to: linked)
        let source = folder.appendingPathComponent("linked.png")
        try touch(source)
        let second = try OutputNamer(outputDirectory: out.path, overwrite: true, inputs: [input.path, source.path])
        #expect(try second.destination(for: source.path, pathExtension: "jpg") == resolved + "/linked (2).jpg")
    }

    @Test("a folder or a symlink at the name is never replaced")
    func specialFiles() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("a.jpg"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("b.jpg").path, withDestinationPath: "/etc/passwd")
        let namer = try OutputNamer(outputDirectory: folder.path, overwrite: true, inputs: [])
        let resolved = try #require(namer.outputDirectory)
        #expect(try namer.destination(for: "/x/a.heic", pathExtension: "jpg") == resolved + "/a (2).jpg")
        #expect(try namer.destination(for: "/x/b.heic", pathExtension: "jpg") == resolved + "/b (2).jpg")
    }

    @Test(
        "unsafe names are sanitised and stay inside --output-dir",
        arguments: [
            ("/in/..heic", "output.jpg"),
            ("/in/-rf.heic", "rf.jpg"),
            ("/in/.hidden.heic", "hidden.jpg"),
            ("/in/bell\u{07}\u{1B}[31mred.heic", "bell__[31mred.jpg"),
            ("/in/evil\u{202E}gpj.heic", "evil_gpj.jpg"),
            ("/in/back\\slash.heic", "back_slash.jpg"),
        ])
    func sanitising(input: String, expected: String) throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let namer = try OutputNamer(outputDirectory: folder.path, overwrite: false, inputs: [])
        let path = try namer.destination(for: input, pathExtension: "jpg")
        #expect(path == (namer.outputDirectory ?? "") + "/" + expected)
        #expect((path as NSString).deletingLastPathComponent == namer.outputDirectory)
    }

    @Test("extensions and suffixes are sanitised too, and long names are capped")
    func limits() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let namer = try OutputNamer(outputDirectory: folder.path, overwrite: false, inputs: [])
        let sneaky = try namer.destination(for: "/in/a.heic", pathExtension: "jpg", suffix: "/../../etc/x")
        #expect((sneaky as NSString).deletingLastPathComponent == namer.outputDirectory)
        let long = String(repeating: "é", count: 300)
        let name = (try namer.destination(for: "/in/\(long).heic", pathExtension: "jpg") as NSString).lastPathComponent
        #expect(name.utf8.count <= OutputNamer.maximumNameBytes)
        #expect(name.hasSuffix("é.jpg"))
    }

    @Test("concurrent items never get the same name")
    func concurrent() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let namer = try OutputNamer(outputDirectory: folder.path, overwrite: false, inputs: [])
        let names = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<50 { group.addTask { try? namer.destination(for: "/in/same.heic", pathExtension: "jpg") } }
            var names: [String] = []
            for await name in group { if let name { names.append(name) } }
            return names
        }
        #expect(names.count == 50 && Set(names).count == 50)
    }

    @Test("--output-dir is created when missing; a file there is refused")
    func outputDirectory() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let created = folder.appendingPathComponent("new")
        _ = try OutputNamer(outputDirectory: created.path, overwrite: false, inputs: [])
        #expect(FileManager.default.fileExists(atPath: created.path))
        let file = folder.appendingPathComponent("file")
        try touch(file)
        expectConvertError(.outputNotAFolder) {
            try OutputNamer(outputDirectory: file.path, overwrite: false, inputs: [])
        }
    }

    @Test("stale temporaries from a crash are removed; a live one is left alone")
    func staleTemporaries() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stale = folder.appendingPathComponent(".photo.jpg.offconvert-AbC123.partial")
        try touch(stale)
        let unrelated = folder.appendingPathComponent(".photo.jpg.keep")
        try touch(unrelated)
        let live = try StagedOutput(destination: folder.appendingPathComponent("live.jpg").path)
        let input = folder.appendingPathComponent("photo.heic")
        try touch(input)
        let namer = try OutputNamer(outputDirectory: nil, overwrite: false, inputs: [input.path])
        #expect(namer.removeStaleTemporaries(for: [input.path]) == 1)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
        #expect(FileManager.default.fileExists(atPath: live.temporaryPath))
        try Data("done".utf8).write(to: URL(fileURLWithPath: live.temporaryPath))
        let output = try live.commit(gate: nil)
        #expect(try String(contentsOfFile: output.path, encoding: .utf8) == "done")
    }

    @Test("free space: a need beyond what is free is a device error")
    func freeSpace() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let free = try FreeSpace.available(in: folder.path)
        #expect(free > 0)
        try FreeSpace.check(needed: 1, in: folder.path)
        let error = expectConvertError(.deviceFull) { try FreeSpace.check(needed: .max, in: folder.path) }
        #expect(error?.category == .device)
        #expect(UnitText.bytes(12_345_678) == "12.3 MB")
    }
}
