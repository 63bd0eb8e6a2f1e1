// An app's own tasks keep running while it converts: each file given is converted through a
// ConversionLimits of the app's own while two 20 ms tickers run, one on Swift's global executor
// and one on the main actor, as an app's timers and UI would. One JSON line per file says how
// long it took and the longest a tick came late, and the process's peak thread count beside the
// threads the limits allow. `Benchmarks/run` runs it for its host-responsiveness row; with
// `--repeat N` every file is converted N times, N jobs in flight at once (the stress run).
//
//   HostTicker [--threads N] [--repeat N] [--to jpeg|png|heic|avif|jxl|webp] [--compress BYTES]
//              OUTPUT-FOLDER FILE...
//
// Photos become JPEG (or --to's format); videos become H.264 MP4 (send-to-windows), or with
// --compress are compressed to that many bytes.
import ConvertCore
import ConvertMedia
import Foundation
import Synchronization

/// A 20 ms sleep in a loop, measuring how late each wake-up came and sampling the process's
/// thread count.
final class Ticker: Sendable {
    private let longest = Mutex<Duration>(.zero)
    private let peakThreads = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)

    func run() async {
        let clock = ContinuousClock()
        var last = clock.now
        while running.load(ordering: .relaxed) {
            try? await Task.sleep(for: .milliseconds(20))
            let now = clock.now
            let late = now - last - .milliseconds(20)
            longest.withLock { $0 = max($0, late) }
            _ = peakThreads.max(Self.threadCount(), ordering: .relaxed)
            last = now
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// The longest a tick came late, in milliseconds.
    var longestGap: Double {
        let gap = longest.withLock { $0 }.components
        return Double(gap.seconds) * 1000 + Double(gap.attoseconds) / 1e15
    }

    var peak: Int { peakThreads.load(ordering: .relaxed) }

    /// The process's threads now, from /proc/self/status (0 where there is none).
    static func threadCount() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") })
        else { return 0 }
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }
}

/// The command line, read by hand: this program uses the library's public API and Foundation only.
struct Options {
    var threads = 2
    var repeats = 1
    var compressBytes: Int64?
    var format = PhotoFormat.jpeg
    var folder = ""
    var files: [String] = []

    init?(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let first = rest.first, first.hasPrefix("--") {
            rest = rest.dropFirst()
            guard let value = rest.first else { return nil }
            rest = rest.dropFirst()
            if first == "--to" {
                guard let format = PhotoFormat(rawValue: value) else { return nil }
                self.format = format
                continue
            }
            guard let number = Int64(value), number > 0 else { return nil }
            switch first {
            case "--threads": threads = Int(number)
            case "--repeat": repeats = Int(number)
            case "--compress": compressBytes = number
            default: return nil
            }
        }
        guard let folder = rest.first, rest.count > 1 else { return nil }
        self.folder = folder
        files = Array(rest.dropFirst())
    }
}

/// Starts the conversion of `file` into `folder` on `limits`: a photo to `options.format`, a
/// video to H.264, or compressed to `options.compressBytes`.
func start(_ file: String, into folder: String, limits: ConversionLimits, options: Options) -> ConversionJob {
    let output = OutputLocation(directory: folder)
    if let compressBytes = options.compressBytes {
        return VideoConverter.compress(
            VideoCompressRequest(input: file, targetBytes: compressBytes, output: output), limits: limits)
    }
    if (try? MediaProbe.kind(path: file)) == .video {
        return VideoConverter.convert(.sendToWindows(file, output: output), limits: limits)
    }
    return PhotoConverter.convert(
        PhotoRequest(inputPath: file, format: options.format, outputDirectory: folder), limits: limits)
}

guard let options = Options(CommandLine.arguments) else {
    print("usage: HostTicker [--threads N] [--repeat N] [--to FORMAT] [--compress BYTES] OUTPUT-FOLDER FILE...")
    exit(64)
}
let limits = ConversionLimits(codecThreads: options.threads)
var failed = false
for file in options.files {
    let global = Ticker()
    let main = Ticker()
    let globalTask = Task.detached { await global.run() }
    let mainTask = Task { @MainActor in await main.run() }
    let clock = ContinuousClock()
    let started = clock.now
    let jobs = (0..<options.repeats).map { round in
        let folder = options.folder + "/\(round)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return start(file, into: folder, limits: limits, options: options)
    }
    var errors: [String] = []
    for job in jobs {
        do throws(ConvertError) { _ = try await job.result() } catch { errors.append(error.publicMessage) }
    }
    let seconds = (clock.now - started) / .seconds(1)
    global.stop()
    main.stop()
    await globalTask.value
    await mainTask.value
    failed = failed || !errors.isEmpty
    let line: [String: Any] = [
        "file": (file as NSString).lastPathComponent, "jobs": options.repeats, "seconds": seconds,
        "globalGapMs": global.longestGap, "mainGapMs": main.longestGap,
        "peakThreads": max(global.peak, main.peak), "codecThreads": limits.codecThreads,
        "helperThreads": limits.helperThreads, "errors": errors,
    ]
    let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}
exit(failed ? 1 : 0)
