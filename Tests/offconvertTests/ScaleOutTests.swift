import Foundation
import OffconvertCLI
import Testing

/// `--shard I/N` on the engines people run archives with: GNU parallel starting N shards (local
/// stand-ins for N hosts, each with its own state folder as a host has), a shard killed and run
/// again, and `Scripts/merge-shard-logs` summing the shards' --json logs.
@Suite("Scale-out with GNU parallel")
struct ScaleOutTests {
    static let shards = 3

    /// Photo names spread so that every shard gets at least two (the split is a hash of the path).
    static let names: [String] = {
        var names: [String] = []
        var counts = [Int](repeating: 0, count: shards + 1)
        var number = 1
        while counts.dropFirst().contains(where: { $0 < 2 }) || names.count < 7 {
            let name = String(format: "IMG_%04d.HEIC", number)
            number += 1
            let shard = BatchOptions.shard(of: "photos/" + name, count: shards)
            guard counts[shard] < 3 else { continue }
            counts[shard] += 1
            names.append(name)
        }
        return names
    }()

    static func jsonLines(_ path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func inputs(_ lines: [[String: Any]], event: String, reason: String? = nil) -> [String] {
        lines.filter { $0["event"] as? String == event && (reason == nil || $0["reason"] as? String == reason) }
            .compactMap { $0["input"] as? String }
    }

    @Test(
        "N shards under GNU parallel convert every photo exactly once; a killed shard run again finishes only its part; the logs merge"
    )
    func parallelShards() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-shards-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["photos", "logs", "state"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for name in Self.names {
            try FileManager.default.copyItem(
                atPath: CLIRunner.media.appendingPathComponent("photos/IMG_5195.HEIC").path,
                toPath: root + "/photos/" + name)
        }
        let path =
            CLIRunner.executable.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")

        // Shard 2 first, alone and one photo at a time, killed (SIGKILL, as a lost host) once
        // its first photo is done.
        let killedLog = root + "/logs/shard-2.killed.jsonl"
        _ = FileManager.default.createFile(atPath: killedLog, contents: nil)
        let killed = Process()
        killed.executableURL = CLIRunner.executable
        killed.arguments = [
            "heic-to-jpg", "--shard", "2/\(Self.shards)", "--json", "--jobs", "1", "-o", "out", "photos",
        ]
        killed.environment = ["PATH": path, "XDG_STATE_HOME": root + "/state/2", "HOME": root]
        killed.currentDirectoryURL = URL(fileURLWithPath: root)
        killed.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: killedLog))
        killed.standardError = FileHandle.nullDevice
        try killed.run()
        let wasRunning = await CLIRunner.signal(
            killed, SIGKILL, when: { !Self.inputs(Self.jsonLines(killedLog), event: "finished").isEmpty })
        killed.waitUntilExit()
        #expect(wasRunning)
        let doneBeforeKill = Set(Self.inputs(Self.jsonLines(killedLog), event: "finished"))
        let shard2 = Self.names.map { "photos/" + $0 }.filter { BatchOptions.shard(of: $0, count: Self.shards) == 2 }
        #expect(
            !doneBeforeKill.isEmpty && doneBeforeKill.count < shard2.count,
            "killed after \(doneBeforeKill) of \(shard2)")

        // Then every shard under GNU parallel, shard 2 being the rerun.
        let script =
            "parallel --will-cite --halt never -j\(Self.shards) "
            + "'XDG_STATE_HOME=\"$PWD/state/{}\" offconvert heic-to-jpg --shard {}/\(Self.shards) --json -o out photos > logs/shard-{}.jsonl' "
            + "::: $(seq \(Self.shards))"
        let run = try await CLIRunner.run(
            ["-c", script], environment: ["PATH": path, "HOME": root], executable: URL(fileURLWithPath: "/bin/bash"),
            directory: URL(fileURLWithPath: root))
        #expect(run.status == 0, "\(run.stderr)")

        let outputs = try FileManager.default.contentsOfDirectory(atPath: root + "/out").sorted()
        #expect(outputs == Self.names.map { $0.replacingOccurrences(of: ".HEIC", with: ".jpg") }.sorted(), "\(outputs)")
        var seen: [String: Int] = [:]
        for shard in 1...Self.shards {
            let lines = Self.jsonLines(root + "/logs/shard-\(shard).jsonl")
            let finished = Self.inputs(lines, event: "finished")
            let expected = Self.names.map { "photos/" + $0 }.filter {
                BatchOptions.shard(of: $0, count: Self.shards) == shard
            }
            if shard == 2 {
                // The rerun converts only what the killed run had not finished.
                #expect(Set(finished) == Set(expected).subtracting(doneBeforeKill))
                #expect(Set(Self.inputs(lines, event: "skipped", reason: "already converted")) == doneBeforeKill)
            } else {
                #expect(Set(finished) == Set(expected))
            }
            for input in finished { seen[input, default: 0] += 1 }
        }
        for input in doneBeforeKill { seen[input, default: 0] += 1 }
        #expect(seen.count == Self.names.count && seen.values.allSatisfy { $0 == 1 }, "\(seen)")
        // IMG_5195.HEIC is 2566×3313 upright (exiftool's ImageSize); every JPEG is whole at that width.
        for output in outputs {
            let probe = try CLIRunner.toolOutput(
                "/usr/bin/ffprobe",
                ["-v", "error", "-show_entries", "stream=width", "-of", "csv=p=0", root + "/out/" + output])
            #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "2566", "\(output): \(probe)")
        }

        let merged = try await CLIRunner.run(
            ["--json"] + (1...Self.shards).map { root + "/logs/shard-\($0).jsonl" } + [killedLog],
            executable: CLIRunner.root.appendingPathComponent("Scripts/merge-shard-logs"))
        #expect(merged.status == 0, "\(merged.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(merged.stdout.utf8)) as? [String: Any])
        #expect(summary["converted"] as? Int == Self.names.count, "\(merged.stdout)")
        #expect(summary["failed"] as? Int == 0)
        #expect((summary["duplicates"] as? [Any])?.isEmpty == true)
        #expect(summary["logs"] as? Int == Self.shards + 1)
    }

    @Test(
        "merge-shard-logs: a failure retried and converted counts as converted; a lone failure and a duplicate fail the merge"
    )
    func mergeVerdicts() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "offconvert-merge-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func line(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        let first = try [
            line([
                "event": "finished", "input": "a.heic", "bytes": 10, "outputs": [["path": "out/a.jpg", "bytes": 10]],
            ]),
            line(["event": "failed", "input": "b.heic", "error": ["message": "b.heic is damaged"]]),
            line(["event": "failed", "input": "c.heic", "error": ["message": "c.heic is damaged"]]),
            "{\"event\":\"finis",  // torn by a kill
        ].joined(separator: "\n")
        let second = try [
            line(["event": "skipped", "input": "a.heic", "reason": "already converted"]),
            line(["event": "finished", "input": "b.heic", "bytes": 5, "outputs": [["path": "out/b.jpg", "bytes": 5]]]),
        ].joined(separator: "\n")
        try first.write(toFile: root + "/one.jsonl", atomically: true, encoding: .utf8)
        try second.write(toFile: root + "/two.jsonl", atomically: true, encoding: .utf8)
        let script = CLIRunner.root.appendingPathComponent("Scripts/merge-shard-logs")
        let text = try await CLIRunner.run([root + "/one.jsonl", root + "/two.jsonl"], executable: script)
        #expect(text.status == 1)
        #expect(
            text.stdout.hasPrefix(
                "2 converted, 1 failed, 0 skipped (already converted) across 2 log(s); 15 bytes written."),
            "\(text.stdout)")
        #expect(text.stdout.contains("failed: c.heic: c.heic is damaged"))

        let duplicate = try line(["event": "finished", "input": "a.heic", "bytes": 10, "outputs": [] as [Any]])
        try duplicate.write(toFile: root + "/three.jsonl", atomically: true, encoding: .utf8)
        let json = try await CLIRunner.run(["--json", root + "/one.jsonl", root + "/three.jsonl"], executable: script)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(summary["duplicates"] as? [String] == ["a.heic"])
        #expect(json.status == 1)
    }
}
