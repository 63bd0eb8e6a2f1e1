import Foundation
import Testing

@testable import ConvertAllowance
@testable import ConvertCore
@testable import ConvertMedia

/// What the stress simulation found, each reduced to a deterministic reproducer.
@Suite("Hostile: stress regressions")
struct StressRegressionTests {
    @Test("an automatically chosen name taken before the commit is numbered around, not a failure")
    func concurrentSameName() throws {
        // Stress seed 713618957: jobs converting files of the same name into one folder at once
        // all chose `zPug_3.jpg`; all but the first failed with output.exists.
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("photo.jpg").path
        let stages = try (0..<3).map { _ throws(ConvertError) in try StagedOutput(destination: destination) }
        for (index, stage) in stages.enumerated() {
            try Data([UInt8(index)]).write(to: URL(fileURLWithPath: stage.temporaryPath))
        }
        let placed = try stages.map { stage throws(ConvertError) in try stage.commit(renumber: true, gate: nil) }
        #expect(
            placed.map { ($0.path as NSString).lastPathComponent } == ["photo.jpg", "photo (2).jpg", "photo (3).jpg"])
        for (index, file) in placed.enumerated() {
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data([UInt8(index)]),
                "each output is its own job's")
        }
        #expect(fileNames(in: folder) == ["photo (2).jpg", "photo (3).jpg", "photo.jpg"], "no temporaries left")

        // A name the caller chose explicitly is never renumbered: that is still output.exists.
        let explicit = try StagedOutput(destination: destination)
        expectConvertError(.outputExists) { try explicit.commit(gate: nil) }
        do throws(ConvertError) { try StagedOutput(destination: destination).commit(gate: nil) } catch {
            #expect(error.code == .outputExists)
        }
    }

    @Test(
        "numbering continues from a numbered name",
        arguments: [
            ("/a/photo.jpg", "/a/photo (2).jpg"), ("/a/photo (2).jpg", "/a/photo (3).jpg"),
            ("/a/photo (9).tar", "/a/photo (10).tar"), ("/a/noext", "/a/noext (2)"),
            ("/a/x (0).jpg", "/a/x (0) (2).jpg"),
            ("/a/clip (a).mp4", "/a/clip (a) (2).mp4"),
        ])
    func nextNumbered(path: String, next: String) {
        #expect(OutputNamer.nextNumbered(path) == next)
    }

    @Test("two library jobs on same-named inputs into one folder both finish, under different names")
    func sameNamedJobs() async throws {
        let work = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        var inputs: [String] = []
        for camera in ["a", "b", "c", "d"] {
            let folder = work.appendingPathComponent(camera)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let input = folder.appendingPathComponent("IMG_0001.png").path
            try FileManager.default.copyItem(atPath: Fixtures.generated("stress-tiny.png"), toPath: input)
            inputs.append(input)
        }
        let jobs = inputs.map {
            PhotoConverter.convert(PhotoRequest(inputPath: $0, format: .jpeg, outputDirectory: output.path))
        }
        var placed: [String] = []
        for job in jobs {
            placed += try await job.result().outputs.map { ($0.path as NSString).lastPathComponent }
        }
        #expect(Set(placed).count == 4)
        #expect(fileNames(in: output) == placed.sorted())
    }

    @Test("result() in a cancelled task still reports a job that finished: its output exists")
    func resultAfterConsumerCancelled() async throws {
        // Stress simulation, consumer-task cancellation: a job that put its output in place just
        // as its consumer was cancelled yielded .finished into a stream the cancellation had
        // already ended, so result() threw .cancelled for a file that exists (and the allowance
        // was not charged for it).
        let placed = OutputFile(path: "/nonexistent/out.jpg", byteCount: 1)
        // An admission of its own: the job must be at work when the cancellation comes (one
        // still waiting behind other suites' jobs would rightly end cancelled without running).
        let job = ConversionJob.start(path: "in.heic", admission: JobAdmission(limit: 1, maximum: 1)) { _ in
            // The commit is done; the cancellation only cuts this wait short.
            try? await Task.sleep(for: .seconds(5))
            return JobResult(inputPath: "in.heic", outputs: [placed])
        }
        let consumer = Task { () -> Result<JobResult, ConvertError> in
            do throws(ConvertError) { return .success(try await job.result()) } catch { return .failure(error) }
        }
        consumer.cancel()
        let result = await consumer.value
        #expect(try result.get().outputs == [placed])
    }

    @Test("a movie header claiming millennia does not make compress demand petabytes")
    func absurdMovieDuration() async throws {
        // Stress seed 552256378, job 74: a mutation set the mvhd version byte to 1, so the
        // following fields read as a 64-bit duration of 2^40 s; compress planned from it and
        // refused a 6 kB target as request.target-too-small ("the smallest it can reach is
        // 4893672521.8 MB"). The tracks' own durations are what gets encoded.
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try HostileRegressionTests.edited("generated/stress-tiny.mp4", in: directory, name: "mvhd-v1.mp4") {
            bytes in
            let at = try #require(Mutator.boxHeaders(bytes).first { bytes[$0 + 4..<$0 + 8] == ArraySlice("mvhd".utf8) })
            bytes[at + 8] = 1
        }
        let output = directory.appendingPathComponent("out")
        let result = try await VideoConverter.compress(
            VideoCompressRequest(input: input, targetBytes: 6_000, output: OutputLocation(directory: output.path))
        ).result()
        let file = try #require(result.outputs.first)
        #expect(file.byteCount <= 6_000)
        #expect(try await MediaProbe.probe(path: file.path).container?.videoTracks.isEmpty == false)
    }

    @Test("jobs waiting for the allowance's lock do not hold the cooperative pool")
    func allowanceOffThePool() async throws {
        // Stress simulation: 150 jobs reserving and charging at once blocked every cooperative
        // thread on the store's flock and fsyncs; every other task of the process (progress
        // events, an unrelated test's cancellation) stalled for seconds. Checked in a child
        // process (this test binary, filtered): other suites here keep the pool busy with
        // synchronous tool runs, which would make the measurement meaningless.
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await ChildTestRun.run(
            filter: "AllowancePoolChild", environment: [AllowancePoolChild.folderKey: folder.path])
        let verdict = try String(contentsOf: folder.appendingPathComponent("verdict"), encoding: .utf8)
        #expect(verdict == "ran while the lock was held; used \(AllowancePoolChild.waiters), reserved 0", "\(verdict)")
    }
}

/// The measuring side of ``StressRegressionTests/allowanceOffThePool()``; skipped in a normal run.
@Suite("Allowance pool child")
struct AllowancePoolChild {
    static let folderKey = "OFFCONVERT_TEST_POOL_CHILD"
    /// More waiters than the pool has threads (one per core).
    static let waiters = max(8, 4 * ProcessInfo.processInfo.activeProcessorCount)

    @Test(.enabled(if: ProcessInfo.processInfo.environment[folderKey] != nil))
    func entry() async throws {
        let folder = URL(fileURLWithPath: try #require(ProcessInfo.processInfo.environment[Self.folderKey]))
        let store = AllowanceStore(
            directory: folder.appendingPathComponent("state").path, clock: { StressSimulationTests.fixedNow },
            dailyLimit: Self.waiters)
        // A reservation released installs the state (its lock file); a status read creates nothing.
        try store.reserve().release()
        // Another process's long update, as far as this one can tell: the lock is held until a
        // trivial task has run, or for 30 s, which is the failure.
        let lock = open(store.directory + "/lock", O_RDWR | O_CLOEXEC)
        try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let ran = CancellationFlag()
        let released = CancellationFlag()
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(30)
            while !ran.isCancelled && Date() < deadline { usleep(10_000) }
            released.cancel()
            flock(lock, LOCK_UN)
            close(lock)
        }
        let waiting = (0..<Self.waiters).map { _ in
            Task { try await store.withAllowance { reservation in await reservation.outputPlaced() } }
        }
        await Task { await Task.yield() }.value
        let verdict = released.isCancelled ? "ran only after the lock was released" : "ran while the lock was held"
        ran.cancel()
        for task in waiting { try await task.value }
        let status = try store.status()
        try Data("\(verdict); used \(status.used), reserved \(status.reserved)".utf8).write(
            to: folder.appendingPathComponent("verdict"))
    }
}
