import Foundation
import Testing

@testable import ConvertAllowance
@testable import ConvertCore
@testable import ConvertMedia

/// The seed and size of a stress run: `OFFCONVERT_STRESS_SEED` replays a run's plan,
/// `OFFCONVERT_STRESS_COUNT` changes how many conversions run at once. Without a seed each run
/// picks a new one and prints it.
enum StressSettings {
    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["OFFCONVERT_STRESS_SEED"], let value = UInt64(text) {
            return value
        }
        return UInt64.random(in: 1...UInt64(UInt32.max))
    }()

    static let count: Int = {
        if let text = ProcessInfo.processInfo.environment["OFFCONVERT_STRESS_COUNT"], let value = Int(text), value > 0 {
            return value
        }
        return 150
    }()

    /// The line a failure message carries, so the run can be replayed.
    static var replay: String { "OFFCONVERT_STRESS_SEED=\(seed) OFFCONVERT_STRESS_COUNT=\(count)" }
}

/// One conversion of the simulation, everything about it drawn from the seed.
struct StressPlan: Sendable, CustomStringConvertible {
    enum Work: String, CaseIterable, Sendable {
        case heicToJPEG, jpegToPNG, pngToWebP, transcode, remux, compress, gif

        var source: String {
            switch self {
            case .heicToJPEG: Fixtures.path("photos/zPug_3.heic")
            case .jpegToPNG: Fixtures.generated("gps-xmp.jpg")
            case .pngToWebP: Fixtures.generated("stress-tiny.png")
            case .transcode, .remux, .compress, .gif: Fixtures.generated("stress-tiny.mp4")
            }
        }

        var isPhoto: Bool { [.heicToJPEG, .jpegToPNG, .pngToWebP].contains(self) }
    }

    /// What is wrong with the conversion, on purpose.
    enum Fault: String, Sendable {
        /// Nothing: the shared real input into the shared output folder (so concurrent jobs
        /// pick the same output name).
        case none
        /// A copy of the input cut short at a seeded length.
        case truncated
        /// A copy with seeded hostile edits (``Mutator``).
        case mutated
        /// The input does not exist.
        case missing
        /// The output folder is read-only.
        case readOnlyFolder
        /// The output folder is on a full file system.
        case fullDisk
    }

    /// When the job is cancelled.
    enum Cancel: Sendable, CustomStringConvertible {
        case none
        /// `job.cancel()` after a delay, the consumer still listening.
        case afterDelay(milliseconds: Int)
        /// `job.cancel()` from the consumer when the n-th progress event arrives (0: at once).
        case atProgress(Int)
        /// The task consuming ``ConversionJob/result(onProgress:)`` is cancelled after a delay.
        case consumerTask(milliseconds: Int)

        var description: String {
            switch self {
            case .none: "not cancelled"
            case .afterDelay(let ms): "job.cancel() after \(ms) ms"
            case .atProgress(let n): "job.cancel() at progress event \(n)"
            case .consumerTask(let ms): "consumer task cancelled after \(ms) ms"
            }
        }
    }

    var index: Int
    var work: Work
    var fault: Fault
    var cancel: Cancel
    var input: String
    var outputDirectory: String

    var description: String { "job \(index): \(work.rawValue), fault \(fault.rawValue), \(cancel)" }
}

/// What one job did, as its consumer saw it.
struct StressOutcome: Sendable {
    var plan: StressPlan
    var result: Result<JobResult, ConvertError>
    /// Terminal events seen on the stream (nil when the consumer used `result()`).
    var terminalEvents: Int?
    /// Whether a progress event came after the terminal one.
    var progressAfterTerminal = false
    /// Whether `cancel()` was actually called (or the consumer task cancelled) before the job ended.
    var cancelRequested: Bool
}

/// A seeded fault simulation through the library's public API: `StressSettings.count` photo and
/// video conversions (150 by default) started at once on tiny inputs, some cancelled at seeded
/// moments, some with injected faults, each charged to a per-test allowance store exactly as the
/// CLI charges a conversion (reserve, `outputPlaced()` once an output is in place, release
/// otherwise). Then: every job ended exactly once with its terminal event last, the output
/// folders hold only complete, valid outputs that some job reported (no temporaries, no x264
/// statistics), and the allowance charged exactly the completed jobs.
///
/// Every job is started at once, as a library user may do, with no batch bound of the test's own:
/// the library admits ``ConversionLimits/concurrentConversions`` jobs (one a core) to its fixed
/// codec pool and the others wait, holding no thread, so cancellations reach jobs both at work and
/// still queued; the allowance transactions of all 150 run on the short lane meanwhile. This
/// test checks that every job still ends exactly once and is charged exactly.
@Suite("Hostile: stress simulation through the library")
struct StressSimulationTests {
    static let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)

    // The limit guards against a hang, not a speed: alone the run takes about 6 s, but inside the
    // whole suite its 150 conversions queue for the process's codec lane behind every other
    // suite's encodes, and on a loaded 2-core machine that queue alone passed 10 minutes.
    @Test(
        "150 conversions at once with random cancellations and faults: one terminal event each, whole outputs only, exact charging",
        .timeLimit(.minutes(25)))
    func stress() async throws {
        let count = StressSettings.count
        print("stress: \(count) conversions at once, replay with \(StressSettings.replay)")
        let work = try Fixtures.temporaryDirectory("stress")
        let shared = work.appendingPathComponent("out")
        let inputs = work.appendingPathComponent("in")
        for folder in [shared, inputs] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let faults = try FaultFolders(in: work)
        defer {
            faults.tearDown()
            try? FileManager.default.removeItem(at: work)
        }
        print("stress: injected faults available: \(faults.available.map(\.rawValue).joined(separator: ", "))")

        var mixer = FuzzMixer(state: StressSettings.seed)
        var plans: [StressPlan] = []
        for index in 0..<count {
            plans.append(try Self.plan(index, faults: faults, shared: shared.path, inputs: inputs, mixer: &mixer))
        }
        let store = AllowanceStore(
            directory: work.appendingPathComponent("state").path, clock: { Self.fixedNow }, dailyLimit: count)
        let sourceSizes = Dictionary(StressPlan.Work.allCases.map { ($0.source, Self.size($0.source)) }) { first, _ in
            first
        }

        let started = ContinuousClock.now
        let outcomes = await withTaskGroup(of: StressOutcome.self) { group in
            for plan in plans {
                group.addTask { await Self.run(plan, allowance: store) }
            }
            var all: [StressOutcome] = []
            for await outcome in group { all.append(outcome) }
            return all.sorted { $0.plan.index < $1.plan.index }
        }
        let elapsed = ContinuousClock.now - started

        var reported: [String: StressPlan] = [:]
        var tally: [String: Int] = [:]
        for outcome in outcomes {
            let context = "\(outcome.plan); replay with \(StressSettings.replay)"
            if let terminals = outcome.terminalEvents {
                #expect(terminals == 1, "\(terminals) terminal events: \(context)")
            }
            #expect(!outcome.progressAfterTerminal, "progress after the terminal event: \(context)")
            switch outcome.result {
            case .success(let result):
                tally["finished", default: 0] += 1
                #expect(!result.outputs.isEmpty, "finished without an output: \(context)")
                for output in result.outputs {
                    #expect(reported[output.path] == nil, "\(output.path) reported by two jobs: \(context)")
                    reported[output.path] = outcome.plan
                    let size = Self.size(output.path)
                    #expect(
                        size == output.byteCount,
                        "\(output.path) is \(size) bytes, reported \(output.byteCount): \(context)")
                    #expect(
                        await Self.isValid(output.path, work: outcome.plan.work),
                        "\(output.path) is not valid: \(context)")
                }
            case .failure(let error):
                tally["\(error.category.identifier)", default: 0] += 1
                #expect(
                    Self.expected(error, for: outcome),
                    "\(error.category.identifier) \(error.key): \(error.message): \(context)")
            }
        }

        // Nothing but reported outputs in any folder a job wrote to: no `.partial`, no x264 stats.
        for folder in [shared.path] + faults.outputFolders {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0 != "filler" }
            for name in names {
                #expect(
                    reported[folder + "/" + name] != nil,
                    "\(folder)/\(name) was left behind; replay with \(StressSettings.replay)")
            }
        }
        for path in reported.keys {
            #expect(FileManager.default.fileExists(atPath: path), "reported output \(path) is missing")
        }
        for (source, size) in sourceSizes {
            #expect(Self.size(source) == size, "input \(source) changed")
        }

        let completed = outcomes.filter { if case .success = $0.result { true } else { false } }.count
        let allowance = try store.status()
        #expect(
            allowance.used == completed,
            "charged \(allowance.used), completed \(completed); replay with \(StressSettings.replay)")
        #expect(
            allowance.reserved == 0, "\(allowance.reserved) reservations left; replay with \(StressSettings.replay)")
        let stateNames = (try? FileManager.default.contentsOfDirectory(atPath: store.directory)) ?? []
        #expect(stateNames.allSatisfy { !$0.hasPrefix(".") }, "allowance temporaries left: \(stateNames)")

        let cancelled = outcomes.filter { $0.cancelRequested }.count
        print(
            "stress: \(count) jobs in \(elapsed), \(cancelled) cancel requests, outcomes \(tally.sorted { $0.key < $1.key }), "
                + "allowance used \(allowance.used)")
    }

    // MARK: - Planning

    static func plan(_ index: Int, faults: FaultFolders, shared: String, inputs: URL, mixer: inout FuzzMixer) throws
        -> StressPlan
    {
        let work = mixer.pick(StressPlan.Work.allCases)
        // Half the jobs are clean, the rest spread over the faults this machine can inject.
        let fault: StressPlan.Fault =
            mixer.below(2) == 0 ? .none : mixer.pick([.truncated, .mutated, .missing] + faults.available)
        let cancel: StressPlan.Cancel
        switch mixer.below(8) {
        case 0, 1: cancel = .afterDelay(milliseconds: mixer.below(1500))
        case 2, 3: cancel = .atProgress(mixer.below(6))
        case 4: cancel = .consumerTask(milliseconds: mixer.below(1500))
        default: cancel = .none
        }
        let source = work.source
        let ext = (source as NSString).pathExtension
        var input = source
        var outputDirectory = shared
        switch fault {
        case .none:
            break
        case .truncated:
            let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            input = inputs.appendingPathComponent("t\(index).\(ext)").path
            try bytes.prefix(bytes.count / 10 + mixer.below(bytes.count * 8 / 10)).write(
                to: URL(fileURLWithPath: input))
        case .mutated:
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: source)))
            input = inputs.appendingPathComponent("m\(index).\(ext)").path
            try Data(Mutator.mutate(bytes, using: &mixer).bytes).write(to: URL(fileURLWithPath: input))
        case .missing:
            input = inputs.appendingPathComponent("gone\(index).\(ext)").path
        case .readOnlyFolder:
            outputDirectory = faults.readOnly?.path ?? shared
        case .fullDisk:
            outputDirectory = faults.full?.path ?? shared
        }
        return StressPlan(
            index: index, work: work, fault: fault, cancel: cancel, input: input, outputDirectory: outputDirectory)
    }

    static func job(_ plan: StressPlan) -> ConversionJob {
        let location = OutputLocation(directory: plan.outputDirectory)
        switch plan.work {
        case .heicToJPEG:
            return PhotoConverter.convert(
                PhotoRequest(
                    inputPath: plan.input, format: .jpeg, outputDirectory: plan.outputDirectory,
                    decodingThreads: 1))
        case .jpegToPNG:
            return PhotoConverter.convert(
                PhotoRequest(
                    inputPath: plan.input, format: .png, outputDirectory: plan.outputDirectory,
                    decodingThreads: 1))
        case .pngToWebP:
            return PhotoConverter.convert(
                PhotoRequest(
                    inputPath: plan.input, format: .webp, outputDirectory: plan.outputDirectory,
                    decodingThreads: 1))
        case .transcode:
            return VideoConverter.convert(
                VideoRequest(input: plan.input, container: .mp4, codec: .h264, crf: 30, output: location))
        case .remux:
            return VideoConverter.convert(VideoRequest(input: plan.input, container: .mkv, output: location))
        case .compress:
            return VideoConverter.compress(
                VideoCompressRequest(input: plan.input, targetBytes: 6_000, output: location))
        case .gif:
            return VideoConverter.gif(
                GIFRequest(input: plan.input, duration: 0.4, framesPerSecond: 5, width: 48, output: location))
        }
    }

    // MARK: - Running

    /// Runs one job under its own allowance reservation, as the CLI runs a command: reserved
    /// before the work, charged as soon as an output is in place, released otherwise.
    static func run(_ plan: StressPlan, allowance: AllowanceStore) async -> StressOutcome {
        do {
            return try await allowance.withAllowance { reservation in
                let outcome = await consume(plan)
                if case .success(let result) = outcome.result, !result.outputs.isEmpty {
                    await reservation.outputPlaced()
                }
                return outcome
            }
        } catch {
            return StressOutcome(
                plan: plan, result: .failure(ConvertError.wrapping(error, path: plan.input)), cancelRequested: false)
        }
    }

    static func consume(_ plan: StressPlan) async -> StressOutcome {
        let job = job(plan)
        // Set when the test asks for cancellation (a CancellationFlag is just a shared Atomic<Bool>).
        let requested = CancellationFlag()
        if case .consumerTask(let delay) = plan.cancel {
            let consumer = Task { () -> Result<JobResult, ConvertError> in
                do throws(ConvertError) { return .success(try await job.result()) } catch { return .failure(error) }
            }
            try? await Task.sleep(for: .milliseconds(delay))
            consumer.cancel()
            let result = await consumer.value
            return StressOutcome(plan: plan, result: result, terminalEvents: nil, cancelRequested: true)
        }
        var canceller: Task<Void, Never>?
        if case .afterDelay(let delay) = plan.cancel {
            canceller = Task {
                try? await Task.sleep(for: .milliseconds(delay))
                guard !Task.isCancelled else { return }
                requested.cancel()
                job.cancel()
            }
        }
        if case .atProgress(0) = plan.cancel {
            requested.cancel()
            job.cancel()
        }
        var progressEvents = 0
        var terminals = 0
        var progressAfterTerminal = false
        var result: Result<JobResult, ConvertError> = .failure(
            ConvertError(code: ConvertError.Code("test.no-terminal", category: .internal), message: "no terminal event")
        )
        for await event in job.events {
            switch event {
            case .progress:
                if terminals > 0 { progressAfterTerminal = true }
                progressEvents += 1
                if case .atProgress(let n) = plan.cancel, n == progressEvents {
                    requested.cancel()
                    job.cancel()
                }
            case .finished(let done):
                terminals += 1
                result = .success(done)
            case .failed(let error):
                terminals += 1
                result = .failure(error)
            }
        }
        await job.completion()
        canceller?.cancel()
        await canceller?.value
        return StressOutcome(
            plan: plan, result: result, terminalEvents: terminals, progressAfterTerminal: progressAfterTerminal,
            cancelRequested: requested.isCancelled)
    }

    // MARK: - Checking

    /// Whether a failure is one this job may end with: cancellation only when it was cancelled,
    /// otherwise the injected fault's category.
    static func expected(_ error: ConvertError, for outcome: StressOutcome) -> Bool {
        if error.category == .cancelled { return outcome.cancelRequested }
        switch outcome.plan.fault {
        case .none: return false
        case .truncated, .mutated: return error.category == .input || error.category == .unsupported
        case .missing: return error.category == .input && error.code == .inputMissing
        case .readOnlyFolder, .fullDisk: return error.category == .device
        }
    }

    /// Whether an output is a complete file of the kind asked for: photos and GIFs decode,
    /// videos probe with a picture track.
    static func isValid(_ path: String, work: StressPlan.Work) async -> Bool {
        // GIFs are read by the image decoder (every frame), like the photos.
        if work.isPhoto || work == .gif {
            let decoded = try? ImageDecoder.decode(
                path: path, options: DecodeOptions(decodingThreads: 1), cancellation: CancellationFlag())
            return (decoded?.frames.first?.bitmap.width ?? 0) > 0
        }
        guard let info = try? await MediaProbe.probe(path: path) else { return false }
        return info.container?.videoTracks.isEmpty == false
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : -1
    }
}

/// Output folders that fail on purpose: read-only, and on a full file system. As root (the build
/// container) both are tmpfs mounts, when mounting is allowed; otherwise the read-only folder is
/// a 0555 folder (which root would ignore) and the full disk is not simulated.
struct FaultFolders: Sendable {
    var readOnly: URL?
    var full: URL?
    private var mounted: [URL] = []

    init(in work: URL) throws {
        if getuid() == 0 {
            guard TinyDisk.canMount else { return }
            full = try TinyDisk.mount(size: "256k", leavingFree: 0)
            let folder = try Fixtures.temporaryDirectory("stress-readonly")
            #expect(TinyDisk.sh(["/bin/mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", folder.path]) == 0)
            readOnly = folder
            mounted = [folder] + (full.map { [$0] } ?? [])
        } else {
            let folder = work.appendingPathComponent("readonly")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            chmod(folder.path, 0o555)
            readOnly = folder
        }
    }

    var available: [StressPlan.Fault] {
        (readOnly == nil ? [] : [.readOnlyFolder]) + (full == nil ? [] : [.fullDisk])
    }

    var outputFolders: [String] { [readOnly, full].compactMap { $0?.path } }

    func tearDown() {
        for folder in mounted { TinyDisk.unmount(folder) }
        if let readOnly, !mounted.contains(readOnly) { chmod(readOnly.path, 0o755) }
    }
}
