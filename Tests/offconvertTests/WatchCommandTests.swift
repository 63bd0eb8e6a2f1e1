import Foundation
import Testing

/// `offconvert watch`: files dropped, written in pieces, renamed in, arriving while stopped, and
/// an output folder inside the watched one. Waits poll for what must appear (with a generous
/// deadline), never for how fast it appears.
@Suite("Watch folders")
struct WatchCommandTests {
    /// A running `offconvert watch` whose stdout (--json) is collected in a file.
    final class Session: @unchecked Sendable {
        let process = Process()
        let log: String
        /// Where stderr goes: the lines a person watching the terminal reads.
        let errorLog: String

        init(_ arguments: [String], state: String, directory: String) throws {
            let name = UUID().uuidString.prefix(6)
            log = directory + "/../watch-\(name).log"
            errorLog = directory + "/../watch-\(name).err"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
            process.executableURL = CLIRunner.executable
            process.arguments = ["watch"] + arguments
            var environment = CLIRunner.childEnvironment
            environment["XDG_STATE_HOME"] = state
            environment["NO_COLOR"] = "1"
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorLog))
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// The JSON lines printed so far.
        func lines() -> [[String: Any]] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// What was printed on stderr so far.
        func errors() -> String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }

        /// The inputs of the `finished` lines so far.
        func finished() -> [String] {
            lines().filter { $0["event"] as? String == "finished" }.compactMap { $0["input"] as? String }
        }

        /// Polls until `condition` holds or the process ends (at most `limit` seconds, a
        /// deadline against hanging, not a speed bound); returns whether it held.
        func wait(limit: Double = 120, until condition: () -> Bool) async -> Bool {
            let deadline = Date().addingTimeInterval(limit)
            while Date() < deadline {
                if condition() { return true }
                if !process.isRunning { return condition() }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return condition()
        }

        /// Ctrl-C, then the exit status.
        func interrupt() async -> Int32 {
            kill(process.processIdentifier, SIGINT)
            _ = await wait { !process.isRunning }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// A watched folder, a state folder for the journal and the allowance, and the photo used.
    struct Place {
        let root: String
        var inbox: String { root + "/Inbox" }
        var state: String { root + "/state" }
        let photo: Data

        init() throws {
            root =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "offconvert-watch-\(UUID().uuidString.prefix(8))"
                ).path
            try FileManager.default.createDirectory(atPath: root + "/Inbox", withIntermediateDirectories: true)
            photo = try Data(contentsOf: CLIRunner.media.appendingPathComponent("photos/zPug_3.heic"))
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }

        func drop(_ name: String, in folder: String? = nil) throws {
            try photo.write(to: URL(fileURLWithPath: (folder ?? inbox) + "/" + name))
        }

        func files(_ folder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        }

        /// Free conversions used today in this state.
        func used() throws -> Int {
            let text = try CLIRunner.toolOutput(
                CLIRunner.executable.path, ["allowance", "--json"], environment: ["XDG_STATE_HOME": state])
            return (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["used"] as? Int ?? -1
        }
    }

    /// The picture of `path` decodes whole with djpeg, at the photo's size (as ffprobe reads it).
    static func expectWholeJPEG(_ path: String) throws {
        let probe = try CLIRunner.toolOutput(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
        #expect(!probe.isEmpty, "\(path) is not a picture ffprobe reads")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/djpeg")
        process.arguments = ["-outfile", "/dev/null", path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && warnings.isEmpty, "\(path): \(warnings)")
    }

    @Test(
        "files dropped while running, one written slowly in pieces and one renamed in: each converted once; Ctrl-C stops cleanly"
    )
    func whileRunning() async throws {
        let place = try Place()
        defer { place.remove() }
        let session = try Session(["Inbox", "--json", "--settle", "400"], state: place.state, directory: place.root)
        #expect(await session.wait { session.lines().contains { $0["event"] as? String == "watching" } })

        try place.drop("dropped.heic")
        #expect(await session.wait { place.files(place.inbox).contains("dropped.jpg") })

        // Written in four pieces, the file closed and opened again between them.
        let slow = place.inbox + "/slow.heic"
        let quarter = place.photo.count / 4
        for piece in 0..<4 {
            let chunk = place.photo.subdata(
                in: (piece * quarter)..<(piece == 3 ? place.photo.count : (piece + 1) * quarter))
            if piece == 0 {
                try chunk.write(to: URL(fileURLWithPath: slow))
            } else {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: slow))
                try handle.seekToEnd()
                try handle.write(contentsOf: chunk)
                try handle.close()
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Made outside the folder, then renamed into it (IN_MOVED_TO, no close inside it).
        try place.drop("renamed.heic", in: place.root)
        #expect(rename(place.root + "/renamed.heic", place.inbox + "/renamed.heic") == 0)
        #expect(
            await session.wait {
                Set(session.finished()).isSuperset(of: [place.inbox + "/slow.heic", place.inbox + "/renamed.heic"])
            })

        #expect(await session.interrupt() == 130)
        let stopped = session.lines().last
        #expect(
            stopped?["event"] as? String == "stopped" && stopped?["reason"] as? String == "interrupted",
            "\(String(describing: stopped))")
        #expect(
            place.files(place.inbox) == [
                "dropped.heic", "dropped.jpg", "renamed.heic", "renamed.jpg", "slow.heic", "slow.jpg",
            ])
        // Each once: no input finished twice, and the JPEGs it wrote were never taken as new photos.
        let finished = session.finished()
        #expect(finished.count == Set(finished).count, "\(finished)")
        #expect(Set(finished) == Set(["dropped", "slow", "renamed"].map { place.inbox + "/\($0).heic" }))
        for name in ["dropped", "slow", "renamed"] { try Self.expectWholeJPEG(place.inbox + "/\(name).jpg") }
        #expect(try place.used() == 3, "each converted file is one free conversion")
    }

    @Test("without --json the watcher says why an arriving JPEG is left alone, and prints each conversion's notes")
    func plainLines() async throws {
        let place = try Place()
        defer { place.remove() }
        let session = try Session(["Inbox", "--settle", "300"], state: place.state, directory: place.root)
        #expect(await session.wait { session.errors().contains("Watching") })
        let located = try Data(contentsOf: CLIRunner.media.appendingPathComponent("generated/gps-exif-xmp.heic"))
        try located.write(to: URL(fileURLWithPath: place.inbox + "/located.heic"))
        #expect(await session.wait { place.files(place.inbox).contains("located.jpg") })
        let jpeg = try Data(contentsOf: CLIRunner.media.appendingPathComponent("photos/tokyo.jpg"))
        try jpeg.write(to: URL(fileURLWithPath: place.inbox + "/arrived.jpg"))
        #expect(
            await session.wait { session.errors().contains("arrived.jpg: already jpg, left alone.") },
            "\(session.errors())")
        #expect(await session.interrupt() == 130)
        let errors = session.errors()
        #expect(errors.contains("located.heic: location removed"), "\(errors)")
        #expect(place.files(place.inbox) == ["arrived.jpg", "located.heic", "located.jpg"])
        // Its own output was not called an arriving JPEG.
        #expect(!errors.contains("located.jpg: already jpg"), "\(errors)")
    }

    @Test("a restart converts what arrived while stopped, and nothing twice (skips cost nothing)")
    func restart() async throws {
        let place = try Place()
        defer { place.remove() }
        try place.drop("first.heic")
        let one = try await CLIRunner.run(
            ["watch", "Inbox", "--once", "--settle", "100"], environment: ["XDG_STATE_HOME": place.state],
            directory: URL(fileURLWithPath: place.root))
        #expect(one.status == 0, "\(one.stderr)")
        #expect(place.files(place.inbox) == ["first.heic", "first.jpg"])

        try place.drop("second.heic")
        let two = try await CLIRunner.run(
            ["watch", "Inbox", "--once", "--settle", "100", "--json"], environment: ["XDG_STATE_HOME": place.state],
            directory: URL(fileURLWithPath: place.root))
        #expect(two.status == 0, "\(two.stderr)")
        #expect(place.files(place.inbox) == ["first.heic", "first.jpg", "second.heic", "second.jpg"])
        let lines = two.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let finished = lines.filter { $0["event"] as? String == "finished" }.compactMap { $0["input"] as? String }
        #expect(finished == [place.inbox + "/second.heic"], "\(two.stdout)")
        let skipped = lines.filter { $0["event"] as? String == "skipped" }.compactMap { $0["input"] as? String }
        #expect(Set(skipped) == Set([place.inbox + "/first.heic", place.inbox + "/first.jpg"]), "\(two.stdout)")
        #expect(try place.used() == 2)
    }

    @Test(
        "an output folder inside the watched folder (recursive): outputs keep the layout and are never converted again")
    func nestedOutput() async throws {
        let place = try Place()
        defer { place.remove() }
        let output = place.inbox + "/converted"
        let session = try Session(
            ["Inbox", "--recursive", "-o", "Inbox/converted", "--json", "--settle", "300"], state: place.state,
            directory: place.root)
        #expect(await session.wait { session.lines().contains { $0["event"] as? String == "watching" } })
        try place.drop("top.heic")
        try FileManager.default.createDirectory(atPath: place.inbox + "/trip", withIntermediateDirectories: true)
        try place.drop("inner.heic", in: place.inbox + "/trip")
        #expect(await session.wait { session.finished().count >= 2 })
        // A last file, after the outputs were written: once it is done, any event the outputs
        // caused has been seen.
        try place.drop("last.heic")
        #expect(await session.wait { session.finished().contains(place.inbox + "/last.heic") })
        #expect(await session.interrupt() == 130)
        #expect(place.files(output) == ["last.jpg", "top.jpg", "trip"])
        #expect(place.files(output + "/trip") == ["inner.jpg"])
        #expect(session.finished().count == 3, "\(session.finished())")
        #expect(!session.finished().contains { $0.hasPrefix(output) })
    }

    @Test("when the free conversions run out the watcher says so and stops with 77")
    func allowance() async throws {
        let place = try Place()
        defer { place.remove() }
        for name in ["a", "b", "c", "d"] { try place.drop("\(name).heic") }
        let outcome = try await CLIRunner.run(
            ["watch", "Inbox", "--once", "--settle", "100"], environment: ["XDG_STATE_HOME": place.state],
            directory: URL(fileURLWithPath: place.root))
        #expect(outcome.status == 77, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("Stopped watching: today's free conversions are used up"), "\(outcome.stderr)")
        #expect(place.files(place.inbox).filter { $0.hasSuffix(".jpg") } == ["a.jpg", "b.jpg", "c.jpg"])
        #expect(try place.used() == 3)
    }
}
