import Foundation
import Testing

/// Issue #53: the error codes only the command line gives, each provoked as a user would and read
/// from the `--json` line that carries it.
@Suite("Error codes: command-line failures")
struct ErrorCodeCommandTests {
    /// The `error` object of each `failed` line in `stdout`.
    static func failures(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["event"] as? String == "failed"
            else { return nil }
            return object["error"] as? [String: Any]
        }
    }

    /// The visible names in `folder`.
    static func names(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }
    }

    @Test("-o naming another format than the output's: exit 64 and a usage line in --json that names the fix")
    func usage() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = CLIRunner.media.appendingPathComponent("photos/tokyo.jpg").path
        let wrong = folder.appendingPathComponent("small.png").path
        let outcome = try await CLIRunner.run(["convert", photo, "--to", "jpg", "-o", wrong, "--json"])
        #expect(outcome.status == 64, "\(outcome.stderr)")
        let error = try #require(Self.failures(outcome.stdout).first, "\(outcome.stdout)")
        #expect(error["key"] as? String == "usage")
        #expect(error["category"] as? String == "request")
        let message = error["message"] as? String ?? ""
        #expect(message.contains("The output is a .jpg file") && message.contains("small.jpg"), "\(message)")
        #expect(Self.names(folder).isEmpty)
    }

    /// Whether `nobody` may run the built CLI: root's run drops to it, so every folder above the
    /// binaries (followed through the `.build/debug` link) must let others through. A checkout in
    /// root's own home does not.
    static var nobodyCanRunTheCLI: Bool {
        var path = CLIRunner.executable.resolvingSymlinksInPath().path
        while !path.isEmpty && path != "/" {
            guard let mode = try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int,
                mode & 0o001 != 0
            else { return false }
            path = (path as NSString).deletingLastPathComponent
        }
        return true
    }

    @Test(
        "a photo and a video the user may not read: input.denied, nothing written",
        .enabled(
            if: getuid() != 0
                || (FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && Self.nobodyCanRunTheCLI),
            "root reads any file; dropping to nobody needs setpriv and a checkout others may enter"))
    func denied() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputs = folder.appendingPathComponent("out")
        let state = folder.appendingPathComponent("state")
        for made in [outputs, state] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        }
        // Nobody must reach the folders, write the outputs and the allowance, and not read the inputs.
        for open in [folder, outputs, state] {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
        }
        var inputs: [String] = []
        for (source, name) in [("photos/tokyo.jpg", "private.jpg"), ("video/bikes.mp4", "private.mp4")] {
            let input = folder.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: CLIRunner.media.appendingPathComponent(source).path, toPath: input)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: input)
            inputs.append(input)
        }
        for (input, target) in zip(inputs, ["png", "webm"]) {
            let command = ["convert", input, "--to", target, "-o", outputs.path, "--json"]
            let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", CLIRunner.executable.path]
            let outcome =
                getuid() == 0
                ? try await CLIRunner.run(
                    asNobody + command, environment: ["XDG_STATE_HOME": state.path, "HOME": folder.path],
                    executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
                : try await CLIRunner.run(command)
            #expect(outcome.status == 1, "\(outcome.stderr)")
            let error = try #require(Self.failures(outcome.stdout).first, "\(outcome.stdout)")
            #expect(error["key"] as? String == "input.denied", "\(error)")
            #expect((error["message"] as? String)?.hasSuffix("cannot be read (permission denied).") == true, "\(error)")
        }
        #expect(Self.names(outputs).isEmpty)
    }

    @Test("watch cannot start the converter for a new file: watch.spawn, counted as a failed file (exit 1)")
    func watchSpawn() async throws {
        let folder = try NoNetworkTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The photo engine alone, without the `offconvert` launcher the watcher starts beside it.
        let engine = CLIRunner.executable.deletingLastPathComponent().appendingPathComponent("offconvert-photo")
        let lone = folder.appendingPathComponent("lone/offconvert-photo")
        try FileManager.default.createDirectory(at: lone.deletingLastPathComponent(), withIntermediateDirectories: true)
        do { try FileManager.default.linkItem(at: engine, to: lone) } catch {
            try FileManager.default.copyItem(at: engine, to: lone)
        }
        let inbox = folder.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: CLIRunner.media.appendingPathComponent("generated/stress-tiny.png"),
            to: inbox.appendingPathComponent("new.png"))
        let outcome = try await CLIRunner.run(
            ["watch", inbox.path, "--once", "--json"], executable: lone, timeout: 120)
        #expect(outcome.status == 1, "\(outcome.stdout)\(outcome.stderr)")
        let error = try #require(Self.failures(outcome.stdout).first, "\(outcome.stdout)")
        #expect(error["key"] as? String == "watch.spawn")
        #expect(error["category"] as? String == "internal")
        let message = error["message"] as? String ?? ""
        #expect(message.hasPrefix("offconvert could not start: Cannot start "), "\(message)")
        let stopped = outcome.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.last
        #expect(stopped?["event"] as? String == "stopped" && stopped?["failed"] as? Int == 1, "\(outcome.stdout)")
        #expect(Self.names(inbox) == ["new.png"])
    }
}
