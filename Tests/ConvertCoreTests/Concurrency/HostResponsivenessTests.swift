import Foundation
import Synchronization
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Issue #53: a conversion must not hold the threads the host process's tasks need. While each
/// workload converts through the public API with a ``ConversionLimits`` of its own, a 20 ms
/// ticker runs on the global executor and another on the main actor.
///
/// The assertion is structural (the project keeps wall-clock bounds out of unit tests): every
/// fan-out iteration and helper body ran on a thread of the limits' own pools, none elsewhere
/// (so none on the cooperative pool, whose threads have no ``EngineThread/pool``), and the
/// workloads that fan out did. The tickers' longest gaps are printed as the measurement.
@Suite("Host responsiveness: conversions keep off the host's threads", .serialized)
struct HostResponsivenessTests {
    /// One conversion: a name, whether it fans out, and how to start it on `limits`.
    struct Workload: Sendable, CustomTestStringConvertible {
        var name: String
        var fansOut: Bool
        var start: Start
        var testDescription: String { name }
    }

    typealias Start = @Sendable (_ directory: String, _ limits: ConversionLimits) -> ConversionJob

    static func photo(_ fixture: String, _ format: PhotoFormat, generated: Bool = false) -> Start {
        { directory, limits in
            var request = PhotoRequest(
                inputPath: generated ? Fixtures.generated(fixture) : Fixtures.path(fixture), format: format,
                outputDirectory: directory)
            request.decodingThreads = 2
            return PhotoConverter.convert(request, limits: limits)
        }
    }

    static let workloads: [Workload] = [
        Workload(
            name: "12 MP grid HEIC with gain map → JPEG", fansOut: true,
            start: photo("photos/IMG_3853.HEIC", .jpeg)),
        Workload(name: "10-bit HEIF → JPEG", fansOut: true, start: photo("photos/cat.hif", .jpeg)),
        Workload(
            name: "PQ HEIC → JPEG (HDR tone map, gain map)", fansOut: true,
            start: photo("hdr-stills/pq.heic", .jpeg, generated: true)),
        // The encoders' own threads are what these two check, not the picture: a 2 MP photo
        // starts the same threads as a 12 MP one at a sixth of the suite's time.
        Workload(name: "HEIC → JPEG XL", fansOut: false, start: photo("photos/sample_still_photo.heic", .jxl)),
        Workload(name: "HEIC → AVIF", fansOut: false, start: photo("photos/sample_still_photo.heic", .avif)),
        Workload(
            name: "HLG video → H.264 SDR (video tone map)", fansOut: true,
            start: { directory, limits in
                VideoConverter.convert(
                    .sendToWindows(
                        Fixtures.path("video/hlg10-color-test.mp4"), output: OutputLocation(directory: directory)),
                    limits: limits)
            }),
    ]

    /// The longest time a 20 ms sleep overran by, and how many sleeps there were.
    final class Ticker: Sendable {
        let longest = Mutex<Duration>(.zero)
        let ticks = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)

        func run() async {
            let clock = ContinuousClock()
            var last = clock.now
            while !stopped.load(ordering: .relaxed) {
                try? await Task.sleep(for: .milliseconds(20))
                let now = clock.now
                let late = now - last - .milliseconds(20)
                longest.withLock { $0 = max($0, late) }
                ticks.add(1, ordering: .relaxed)
                last = now
            }
        }

        var milliseconds: Int {
            let gap = longest.withLock { $0 }.components
            return Int(gap.seconds * 1000 + gap.attoseconds / 1_000_000_000_000_000)
        }
    }

    @Test("every fan-out runs on the limits' own threads while tickers keep running", arguments: workloads)
    func conversionStaysOnItsPools(_ workload: Workload) async throws {
        if workload.name.contains("AVIF") && !PhotoConverter.canEncode(.avif) { return }
        if workload.name.contains("JPEG XL") && !PhotoConverter.canEncode(.jxl) { return }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let limits = ConversionLimits(codecThreads: 2)
        let global = Ticker()
        let main = Ticker()
        let globalTask = Task.detached { await global.run() }
        let mainTask = Task { @MainActor in await main.run() }
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await workload.start(directory.path, limits).result()
        let elapsed = clock.now - started
        global.stopped.store(true, ordering: .relaxed)
        main.stopped.store(true, ordering: .relaxed)
        await globalTask.value
        await mainTask.value

        #expect(!result.outputs.isEmpty)
        #expect(limits.helpers.runsOnOtherThreads == 0, "fan-out ran on a thread the limits do not own")
        if workload.fansOut {
            #expect(limits.helpers.runsOnOwnedThreads > 0, "\(workload.name) fans out")
        }
        #expect(limits.helpers.startedThreads <= limits.helperThreads)
        print(
            "host responsiveness: \(workload.name): \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000) ms; "
                + "longest gap: global executor \(global.milliseconds) ms (\(global.ticks.load(ordering: .relaxed)) ticks), "
                + "main actor \(main.milliseconds) ms (\(main.ticks.load(ordering: .relaxed)) ticks); "
                + "fan-out runs \(limits.helpers.runsOnOwnedThreads) on own threads, \(limits.helpers.runsOnOtherThreads) elsewhere"
        )
    }
}
