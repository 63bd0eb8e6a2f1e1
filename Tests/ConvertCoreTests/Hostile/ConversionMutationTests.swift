import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// One way the library reads a file: the probe or one conversion.
enum HostilePath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case probe, jpeg, png, webp, remux, transcode, gif, audio

    var testDescription: String { rawValue }

    var readsPhotos: Bool { [.jpeg, .png, .webp].contains(self) }

    /// This path's share of `FuzzSettings.count`: the probe is cheap, so it gets more.
    var share: Int {
        let total = FuzzSettings.count
        return self == .probe ? max(4, total / 4) : max(4, total * 3 / 4 / (HostilePath.allCases.count - 1))
    }
}

/// How one mutated input ended.
enum HostileOutcome: Sendable {
    case produced([String])
    case failed(ConvertError)
    case timedOut
}

/// Seeded mutations of small real files run through the probe and every conversion path. Each
/// must end in a categorised error or a valid output within a time bound, and leave nothing in
/// the output folder but committed outputs. A crash inside a C library kills the test process;
/// the seed printed first replays the run (`OFFCONVERT_FUZZ_SEED=... swift test --filter ConversionMutationTests`).
/// The paths run one after another so the suite does not starve timing-sensitive suites running
/// beside it.
@Suite("Hostile: mutated inputs through every path", .serialized)
struct ConversionMutationTests {
    /// Small real files: the mutations stay cheap in a debug build.
    static let photoSources = [
        "photos/zPug_3.heic", "photos/sample_still_photo.heic", "photos/DSCN0010.jpg", "generated/jpeg-named.heic",
    ]
    static let videoSources = [
        "generated/iphone-like.mov", "generated/sdr-h264.mkv", "video/dolbyVision-hdr.MOV", "generated/sdr-vp9.webm",
    ]
    /// Extensions a renamed file might carry; the readers must go by content.
    static let wrongExtensions = ["jpg", "png", "heic", "mp4", "mov", "mkv", "webp", "gif", "txt"]
    /// The longest any one mutated input may take in a debug build before it counts as a hang.
    /// A hang detector, not a speed bound: the wait includes the queue for the shared blocking
    /// executor, which the suites running beside this one fill (a HEIC that converts in 0.3 s
    /// alone passed 30 s there once).
    static let timeLimit: Duration = .seconds(600)

    /// A PNG made at test time (TestMedia has none): 64x48 with an alpha channel.
    static func pngSource(in directory: URL) throws -> [UInt8] {
        let path = directory.appendingPathComponent("source.png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=64x48:r=1", "-frames:v", "1",
            "-pix_fmt", "rgba", path,
        ]
        try process.run()
        process.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Runs `job` with a time bound: a job still running after it is cancelled and reported.
    static func outcome(of job: ConversionJob, within limit: Duration) async -> HostileOutcome {
        await withTaskGroup(of: HostileOutcome?.self) { group in
            group.addTask {
                do throws(ConvertError) {
                    return .produced(try await job.result().outputs.map(\.path))
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return Task.isCancelled ? nil : .timedOut
            }
            var first: HostileOutcome?
            while first == nil, let next = await group.next() { first = next }
            if case .timedOut = first { job.cancel() }
            group.cancelAll()
            return first ?? .timedOut
        }
    }

    static func run(_ path: HostilePath, input: String, output: URL) async -> HostileOutcome {
        let location = OutputLocation(directory: output.path)
        switch path {
        case .probe:
            do {
                _ = try await MediaProbe.probe(path: input)
                return .produced([])
            } catch {
                return .failed(error)
            }
        case .jpeg, .png, .webp:
            let format: PhotoFormat = path == .jpeg ? .jpeg : path == .png ? .png : .webp
            return await outcome(
                of: PhotoConverter.convert(
                    PhotoRequest(inputPath: input, format: format, outputDirectory: output.path, decodingThreads: 1)),
                within: timeLimit)
        case .remux:
            return await outcome(
                of: VideoConverter.convert(VideoRequest(input: input, container: .mkv, output: location)),
                within: timeLimit)
        case .transcode:
            return await outcome(
                of: VideoConverter.convert(
                    VideoRequest(input: input, container: .mp4, codec: .h264, maxHeight: 36, output: location)),
                within: timeLimit)
        case .gif:
            return await outcome(
                of: VideoConverter.gif(
                    GIFRequest(input: input, duration: 0.3, framesPerSecond: 5, width: 32, output: location)),
                within: timeLimit)
        case .audio:
            return await outcome(
                of: VideoConverter.extractAudio(AudioExtractionRequest(input: input, format: .wav, output: location)),
                within: timeLimit)
        }
    }

    /// Whether an output a mutated input produced is a real file of the kind asked for.
    static func validOutput(_ file: String, path: HostilePath) async -> Bool {
        guard let head = FileHandle(forReadingAtPath: file).flatMap({ try? $0.read(upToCount: 64) }), head.count >= 12
        else { return false }
        let bytes = [UInt8](head)
        switch path {
        case .probe: return true
        case .jpeg: return MediaSniffer.kind(of: bytes).photoFormat == .jpeg
        case .png: return MediaSniffer.kind(of: bytes).photoFormat == .png
        case .webp: return MediaSniffer.kind(of: bytes).photoFormat == .webp
        case .gif: return bytes.starts(with: Array("GIF8".utf8))
        case .audio: return bytes.starts(with: Array("RIFF".utf8))
        case .remux, .transcode: return (try? await MediaProbe.probe(path: file))?.byteCount ?? 0 > 0
        }
    }

    @Test(
        "a mutated file ends in a categorised error or a valid output, in time, leaving no partial file",
        arguments: HostilePath.allCases)
    func mutations(path: HostilePath) async throws {
        let seed = FuzzSettings.seed ^ UInt64(HostilePath.allCases.firstIndex(of: path) ?? 0) &* 0x9E37_79B9
        print("hostile mutations [\(path.rawValue)]: \(path.share) inputs, replay with \(FuzzSettings.replay)")
        let work = try Fixtures.temporaryDirectory("hostile-\(path.rawValue)")
        let inputs = work.appendingPathComponent("in")
        let outputs = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        var sources: [(name: String, bytes: [UInt8], ext: String)] = []
        let names =
            path == .probe
            ? Self.photoSources + Self.videoSources : path.readsPhotos ? Self.photoSources : Self.videoSources
        for name in names {
            let url = Fixtures.media.appendingPathComponent(name)
            sources.append((name, Array(try Data(contentsOf: url)), url.pathExtension))
        }
        if path.readsPhotos || path == .probe { sources.append(("source.png", try Self.pngSource(in: work), "png")) }

        var mixer = FuzzMixer(state: seed)
        var succeeded = 0
        var failures = 0
        var categories: [String: Int] = [:]
        let started = ContinuousClock.now
        for round in 0..<path.share {
            let source = sources[mixer.below(sources.count)]
            let (bytes, description) = Mutator.mutate(source.bytes, using: &mixer)
            let ext = mixer.below(6) == 0 ? mixer.pick(Self.wrongExtensions) : source.ext
            let input = inputs.appendingPathComponent("r\(round).\(ext)")
            try Data(bytes).write(to: input)
            let context =
                "\(path.rawValue) round \(round): \(source.name) as .\(ext), \(description); replay with \(FuzzSettings.replay)"
            let outcome = await Self.run(path, input: input.path, output: outputs)
            var expected: Set<String> = []
            let failuresBefore = failures
            switch outcome {
            case .produced(let files):
                succeeded += 1
                for file in files {
                    #expect(await Self.validOutput(file, path: path), "invalid output \(file): \(context)")
                    expected.insert((file as NSString).lastPathComponent)
                }
            case .failed(let error):
                categories[error.category.identifier, default: 0] += 1
                // A mutated size field can make a picture larger than the output format holds
                // (a JPEG's SOF raised past WebP's 16383 pixels): refused as too large for that
                // format, as a real panorama would be, which is a category of its own.
                let categorised =
                    error.category == .input || error.category == .unsupported || error.code == .requestTooLarge
                #expect(categorised, "\(error.category.identifier) \(error.key): \(error.message): \(context)")
                if !categorised { failures += 1 }
            case .timedOut:
                Issue.record("no result within \(Self.timeLimit): \(context)")
                failures += 1
            }
            let left = Set((try? FileManager.default.contentsOfDirectory(atPath: outputs.path)) ?? [])
            #expect(left == expected, "output folder holds \(left.sorted()), expected \(expected.sorted()): \(context)")
            for name in left { try? FileManager.default.removeItem(at: outputs.appendingPathComponent(name)) }
            if failures == failuresBefore { try? FileManager.default.removeItem(at: input) }
        }
        let elapsed = ContinuousClock.now - started
        print(
            "hostile mutations [\(path.rawValue)]: \(path.share) in \(elapsed), \(succeeded) converted, errors \(categories.sorted { $0.key < $1.key })"
        )
        if failures == 0 {
            try? FileManager.default.removeItem(at: work)
        } else {
            print("hostile inputs kept in \(inputs.path)")
        }
    }
}
