import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia
@testable import FFmpegLayer

/// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as in the build container):
/// tried once on a scratch folder, so the disk-full tests are skipped with a reason, not passed.
enum TinyDisk {
    static func sh(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    static let canMount: Bool = {
        guard getuid() == 0, let folder = try? Fixtures.temporaryDirectory("tmpfs-probe") else { return false }
        defer { try? FileManager.default.removeItem(at: folder) }
        guard sh(["/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder.path]) == 0 else { return false }
        _ = sh(["/bin/umount", folder.path])
        return true
    }()

    /// Mounts a tmpfs of `size` on a fresh folder and leaves `free` bytes of it unused by
    /// writing a filler file; returns the folder.
    static func mount(size: String, leavingFree free: Int) throws -> URL {
        let folder = try Fixtures.temporaryDirectory("tmpfs")
        #expect(sh(["/bin/mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", folder.path]) == 0)
        let available = try FreeSpace.available(in: folder.path)
        let filler = Int(available) - free
        if filler > 0 {
            try Data(count: filler).write(to: folder.appendingPathComponent("filler"))
        }
        return folder
    }

    static func unmount(_ folder: URL) {
        _ = sh(["/bin/umount", folder.path])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Every name in `folder` that is not `filler` (hidden temporaries included).
    static func contents(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0 != "filler" }.sorted()
    }
}

@Suite("Hostile: out of disk space mid-write")
struct DiskFullTests {
    @Test(
        "a photo batch on a full disk: the big item fails as a device error, the rest convert, nothing partial is left",
        .enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN"))
    func photoBatch() async throws {
        // 600 KB free: the 64x64 photos fit, the 1080x1920 PNG (several MB) does not.
        let folder = try TinyDisk.mount(size: "2m", leavingFree: 600_000)
        defer { TinyDisk.unmount(folder) }
        let small = Fixtures.path("photos/zPug_3.heic")
        let big = Fixtures.path("photos/sample_still_photo.heic")
        var finished: [OutputFile] = []
        for (index, input) in [small, big, small].enumerated() {
            let request = PhotoRequest(inputPath: input, format: .png, outputDirectory: folder.path)
            let (events, result) = await runJob(PhotoConverter.convert(request))
            #expect(events.filter { if case .progress = $0 { false } else { true } }.count == 1, "one terminal event")
            switch (index, result) {
            case (1, .failure(let error)):
                #expect(error.category == .device, "\(error.key): \(error.message)")
                #expect(error.code == .deviceFull)
            case (1, .success):
                Issue.record("a multi-megabyte PNG fitted in 600 KB")
            case (_, .success(let done)):
                finished += done.outputs
            case (_, .failure(let error)):
                Issue.record("item \(index) failed: \(error)")
            }
            #expect(!TinyDisk.contents(folder).contains { $0.hasSuffix(".partial") }, "\(TinyDisk.contents(folder))")
        }
        // Both small outputs are there, whole: their size is what the job reported and they decode.
        #expect(finished.count == 2)
        #expect(TinyDisk.contents(folder) == finished.map { ($0.path as NSString).lastPathComponent }.sorted())
        for output in finished {
            let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
            #expect((attributes[.size] as? NSNumber)?.int64Value == output.byteCount)
            let decoded = try ImageDecoder.decode(
                path: output.path, options: DecodeOptions(), cancellation: CancellationFlag())
            #expect(decoded.frames.first?.bitmap.width == 64)
        }
    }

    @Test(
        "a video transcode that runs out of space fails as a device error and leaves nothing",
        .enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN"))
    func videoTranscode() async throws {
        let folder = try TinyDisk.mount(size: "2m", leavingFree: 24_000)
        defer { TinyDisk.unmount(folder) }
        let request = VideoRequest(
            input: Fixtures.path("video/sample.mp4"), container: .mp4, codec: .h264, crf: 10,
            output: OutputLocation(directory: folder.path))
        let (events, result) = await runJob(VideoConverter.convert(request))
        #expect(events.filter { if case .progress = $0 { false } else { true } }.count == 1, "one terminal event")
        guard case .failure(let error) = result else {
            Issue.record("a crf 10 720p second fitted in 24 KB")
            return
        }
        #expect(error.category == .device, "\(error.key): \(error.message)")
        #expect(TinyDisk.contents(folder).isEmpty, "\(TinyDisk.contents(folder))")
    }
}

/// Cancellation at seeded random moments of every pipeline: each job ends exactly once, either
/// finished with its output whole or cancelled with nothing left behind.
@Suite("Hostile: cancellation at random points", .serialized)
struct RandomCancellationTests {
    enum Pipeline: String, CaseIterable, Sendable {
        case photo, remux, transcode, gif
    }

    static func job(_ pipeline: Pipeline, output: URL) -> ConversionJob {
        let location = OutputLocation(directory: output.path)
        switch pipeline {
        case .photo:
            return PhotoConverter.convert(
                PhotoRequest(
                    inputPath: Fixtures.path("photos/sample_still_photo.heic"), format: .png,
                    outputDirectory: output.path))
        case .remux:
            return VideoConverter.convert(
                VideoRequest(input: Fixtures.generated("video-long.mp4"), container: .mkv, output: location))
        case .transcode:
            return VideoConverter.convert(
                VideoRequest(
                    input: Fixtures.path("video/sample.mp4"), container: .mp4, codec: .h264,
                    maxHeight: 360, output: location))
        case .gif:
            return VideoConverter.gif(
                GIFRequest(input: Fixtures.path("video/sample.mp4"), duration: 1, width: 160, output: location))
        }
    }

    @Test("cancelled at a random moment, a job leaves nothing or a whole output", arguments: Pipeline.allCases)
    func cancel(pipeline: Pipeline) async throws {
        let output = try Fixtures.temporaryDirectory("cancel-\(pipeline.rawValue)")
        defer { try? FileManager.default.removeItem(at: output) }
        var mixer = FuzzMixer(state: FuzzSettings.seed &+ UInt64(pipeline.rawValue.utf8.count))
        var cancelled = 0
        var finished = 0
        for round in 0..<10 {
            let job = Self.job(pipeline, output: output)
            // Spread over the job's likely run time (a remux is over in a tenth of a second):
            // from before the input is opened to well into encoding. Round 0 cancels at once.
            let delay = round == 0 ? 0 : mixer.below(pipeline == .remux ? 120 : 600)
            let collector = Task { await runJob(job) }
            try await Task.sleep(for: .milliseconds(delay))
            job.cancel()
            let (events, result) = await collector.value
            let context =
                "\(pipeline.rawValue) round \(round), cancelled after \(delay) ms; replay with \(FuzzSettings.replay)"
            #expect(
                events.filter { if case .progress = $0 { false } else { true } }.count == 1,
                "one terminal event: \(context)")
            let left = fileNames(in: output)
            switch result {
            case .success(let done):
                finished += 1
                #expect(left == done.outputs.map { ($0.path as NSString).lastPathComponent }.sorted(), "\(context)")
            case .failure(let error):
                cancelled += 1
                #expect(error.category == .cancelled, "\(error.key): \(context)")
                #expect(left.isEmpty, "\(left): \(context)")
            }
            for name in left { try? FileManager.default.removeItem(at: output.appendingPathComponent(name)) }
        }
        print("cancellation [\(pipeline.rawValue)]: \(cancelled) cancelled, \(finished) finished before the cancel")
        #expect(cancelled > 0, "some cancellations land mid-job")
    }
}

@Suite("Hostile: a read-only output folder")
struct ReadOnlyFolderTests {
    @Test(
        "a read-only tmpfs with little free space is refused as not writable, not as full",
        .enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN"))
    func readOnlySmallDisk() throws {
        let folder = try Fixtures.temporaryDirectory("tmpfs-ro")
        #expect(TinyDisk.sh(["/bin/mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", folder.path]) == 0)
        defer { TinyDisk.unmount(folder) }
        do {
            try FreeSpace.check(needed: 1_000_000, in: folder.path)
            Issue.record("passed the check")
        } catch {
            #expect(error.code == .deviceDenied, "\(error.key): \(error.message)")
            #expect(error.message.contains("Read-only file system"), "\(error.message)")
        }
    }

    @Test("a writable folder short of space is still reported full")
    func fullStaysFull() throws {
        let folder = try Fixtures.temporaryDirectory("full-check")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FreeSpace.check(needed: .max, in: folder.path)
            Issue.record("passed the check")
        } catch {
            #expect(error.code == .deviceFull)
        }
    }
}

@Suite("Hostile: an encoder failing on a full disk")
struct EncoderDiskFullTests {
    @Test(
        "an encoder error while the output's folder is full is reported as device.full, otherwise as the encoder's",
        .enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN"))
    func encoderOnFullDisk() throws {
        // x264 writes its pass statistics itself; a failed write comes back as AVERROR_EXTERNAL.
        let external = -Int32(bitPattern: UInt32(0x20_54_58_45))  // FFERRTAG('E','X','T',' ')
        let full = try TinyDisk.mount(size: "1m", leavingFree: 0)
        defer { TinyDisk.unmount(full) }
        let onFull = FFmpeg.encoderError(external, path: full.appendingPathComponent("clip.mp4").path)
        #expect(onFull.code == .deviceFull, "\(onFull.key): \(onFull.message)")
        let roomy = try Fixtures.temporaryDirectory("encoder-error")
        defer { try? FileManager.default.removeItem(at: roomy) }
        let elsewhere = FFmpeg.encoderError(external, path: roomy.appendingPathComponent("clip.mp4").path)
        #expect(elsewhere.category == .internal)
        #expect(elsewhere.message.contains("encode"))
    }
}
