import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Inputs the mutation suite and the fuzzers found mishandled, kept as reproducers. Each is built
/// from a fixture by the one edit that mattered, so it stays meaningful if the mutator changes.
@Suite("Hostile: regressions")
struct HostileRegressionTests {
    static func edited(_ fixture: String, in directory: URL, name: String, _ edit: (inout [UInt8]) throws -> Void)
        throws -> String
    {
        var bytes = Array(try Data(contentsOf: Fixtures.media.appendingPathComponent(fixture)))
        try edit(&bytes)
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `job` and returns its error, checking that `output` holds nothing afterwards.
    static func failure(of job: ConversionJob, output: URL) async throws -> ConvertError {
        let result = await runJob(job).result
        #expect(fileNames(in: output).isEmpty, "left behind: \(fileNames(in: output))")
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return .cancelled()
        }
        return error
    }

    @Test("a sample description claiming 2 GB is a damaged input, not an out-of-memory error")
    func hugeSampleEntry() async throws {
        // Mutation suite, remux round 272 of seed 1336548987: FFmpeg's av_malloc refuses the
        // 2 GB extradata and returns ENOMEM, which was reported as internal.memory.
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.edited("generated/iphone-like.mov", in: directory, name: "hvc1.mov") { bytes in
            let at = try #require(Mutator.boxHeaders(bytes).first { bytes[$0 + 4..<$0 + 8] == ArraySlice("hvc1".utf8) })
            Mutator.put(0x8000_0000, at: at, in: &bytes)
        }
        let output = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let error = try await Self.failure(
            of: VideoConverter.convert(
                VideoRequest(input: input, container: .mkv, output: OutputLocation(directory: output.path))),
            output: output)
        #expect(error.category == .input)
        #expect(error.code == .inputCorrupt)
    }

    @Test(
        "a Matroska file cut inside its first cluster fails as an input error on every path",
        arguments: [710, 2322, 2617])
    func cutMatroska(length: Int) async throws {
        // Mutation suite: cut this short, the video stream has no pixel format (the filter graph
        // failed with an internal error) or no packets (the remux wrote an unreadable header-only file).
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.edited("generated/sdr-h264.mkv", in: directory, name: "cut.mkv") { bytes in
            bytes.removeSubrange(length...)
        }
        let output = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let location = OutputLocation(directory: output.path)
        let jobs: [@Sendable () -> ConversionJob] = [
            { VideoConverter.convert(VideoRequest(input: input, container: .mkv, output: location)) },
            {
                VideoConverter.convert(
                    VideoRequest(input: input, container: .mp4, codec: .h264, maxHeight: 36, output: location))
            },
            {
                VideoConverter.gif(
                    GIFRequest(input: input, duration: 0.3, framesPerSecond: 5, width: 32, output: location))
            },
        ]
        for job in jobs {
            let error = try await Self.failure(of: job(), output: output)
            #expect(error.category == .input, "\(error.key): \(error.message)")
        }
    }

    @Test("an AAC packet the MP4 muxer's ADTS filter cannot take is an unsupported input, not an internal error")
    func aacPatchWelcome() async throws {
        // Found by the mutation suite (OFFCONVERT_FUZZ_SEED=484624586, transcode round 28): the
        // run of 0x00/0xFF bytes it wrote over the first AAC packet reads as an ADTS header with
        // a PCE channel layout, which FFmpeg 5.1's aac_adtstoasc answers with PATCHWELCOME.
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = Array(
            "ffffff00ffffff0000000000ff00ffffff00ff00ffffff00ff00000000ff00ff0000ffff0000ff00ffff00ff0000ff0000ffffff00ffff00ff0000ffffffffffff00ff0000ffffffff00ffffffffffff00000000ff00ffff00000000ffffffffffffff00ffff00ff00ff00ffff00ff000000ff000000"
                .utf8)
        let bytes = stride(from: 0, to: run.count, by: 2).map {
            UInt8(String(decoding: run[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0
        }
        let input = try Self.edited("generated/iphone-like.mov", in: directory, name: "aac.mov") { file in
            // The generated fixture is stable; if it ever changes, this reproducer must be rebuilt.
            #expect(
                Array(file[6319..<6325]) == [0x28, 0x92, 0x89, 0x28, 0x92, 0x89], "generated/iphone-like.mov changed")
            file.replaceSubrange(6319..<6319 + bytes.count, with: bytes)
        }
        let output = directory.appendingPathComponent("out")
        let error = try await Self.failure(
            of: VideoConverter.convert(
                VideoRequest(
                    input: input, container: .mp4, codec: .h264, maxHeight: 36,
                    output: OutputLocation(directory: output.path))),
            output: output)
        #expect(error.code == .unsupportedFfmpeg, "\(error.code): \(error.message)")
        #expect(error.category == .unsupported)
    }

    @Test("an XMP packet with thousands of unclosed location tags is dropped in linear time")
    func xmpBacktracking() {
        // Found chasing the libFuzzer exif target's slow 53 runs/s (libFuzzer itself reported no
        // timeout): each unclosed '<exif:GPSLatitude>' made the element pattern rescan to the end
        // of the packet; 54 KB took seconds, 216 KB minutes.
        func packet(_ count: Int) -> [UInt8] {
            Array(("<x:xmpmeta>" + String(repeating: "<exif:GPSLatitude>", count: count) + "</x:xmpmeta>").utf8)
        }
        #expect(XMP.removing(XMP.locationProperties, from: packet(12000)) == nil)
        #expect(OutputMetadata(exif: nil, xmp: packet(12000), policy: .shareSafe).xmp == nil)
        // The scaling, not a wall-clock bound: the best of three runs at 4N against N, in this
        // thread's CPU time (a loaded machine's preemption is not counted; wall time on a busy
        // machine had taken 2.2 s for what a fresh one does in 0.2). Linear work gives about 4,
        // the quadratic backtracking this guards against about 16.
        func best(_ count: Int) -> Duration {
            let input = packet(count)
            return (0..<3).map { _ in
                let started = threadCPUTime()
                _ = OutputMetadata(exif: nil, xmp: input, policy: .shareSafe)
                return threadCPUTime() - started
            }.min() ?? .zero
        }
        let small = best(3000)
        let large = best(12000)
        #expect(large < small * 9, "4N took \(large), N took \(small)")
        // An ordinary packet is still edited, not dropped.
        let ordinary = Array("<x:xmpmeta><rdf:Description exif:GPSLatitude=\"1,2N\" tiff:Make=\"X\"/></x:xmpmeta>".utf8)
        let edited = String(decoding: XMP.removing(XMP.locationProperties, from: ordinary) ?? [], as: UTF8.self)
        #expect(edited.contains("tiff:Make") && !edited.contains("GPSLatitude"))
    }
}

/// The CPU time the calling thread has used.
private func threadCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}
