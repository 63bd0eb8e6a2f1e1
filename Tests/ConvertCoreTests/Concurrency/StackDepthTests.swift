import Foundation
import Glibc
import Synchronization
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// How deep the codecs reach into the stack of the thread that calls them, measured on a thread
/// whose stack is painted with a pattern first: the lowest overwritten byte is the high-water
/// mark. It shows what ``BlockingExecutor/codecStackSize`` must hold (the measurements are written
/// there) and fails when a codec comes within a quarter of it. The codecs' own helper threads
/// (x265's, libheif's, FFmpeg's) have stacks of their own and are not measured here.
@Suite("Blocking executor: stack depth of codec work")
struct StackDepthTests {
    enum Work: String, CaseIterable, Sendable {
        case heicDecodeToJPEG, heicDecodeToPNG, jpegToHEIC, jpegToJXL, h264, hevc, vp9, av1
    }

    @Test(
        "the deepest calling-thread stack of each codec stays under a quarter of the codec lane's stack",
        arguments: Work.allCases)
    func depth(_ work: Work) throws {
        if work == .jpegToHEIC, !PhotoConverter.canEncode(.heic) { return }
        let folder = try Fixtures.temporaryDirectory("stack-\(work.rawValue)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = Mutex<Result<JobResult, ConvertError>?>(nil)
        let depth = PaintedStack.highWater {
            let outcome = Self.run(work, into: folder.path)
            result.withLock { $0 = outcome }
        }
        let outcome = result.withLock { $0 }
        print("stack: \(work.rawValue) reached \(depth / 1024) KiB of the calling thread's stack")
        switch outcome {
        case .success: break
        case .failure(let error): Issue.record("\(work.rawValue) failed: \(error)")
        case nil: Issue.record("\(work.rawValue) did not run")
        }
        #expect(depth > 0)
        #expect(depth * 4 <= BlockingExecutor.codecStackSize, "\(work.rawValue) used \(depth / 1024) KiB")
    }

    static func run(_ work: Work, into folder: String) -> Result<JobResult, ConvertError> {
        let reporter = ProgressReporter { _ in }
        let flag = CancellationFlag()
        let photo: (String, PhotoFormat) -> Result<JobResult, ConvertError> = { input, format in
            Result { () throws(ConvertError) -> JobResult in
                try PhotoConverter.convertBlocking(
                    PhotoRequest(inputPath: input, format: format, outputDirectory: folder, decodingThreads: 1),
                    reporter: reporter, cancellation: flag)
            }
        }
        let video: (VideoContainer, VideoCodec) -> Result<JobResult, ConvertError> = { container, codec in
            let request = VideoRequest(
                input: Fixtures.generated("iphone-like.mov"), container: container, codec: codec, crf: 30,
                output: OutputLocation(directory: folder))
            return Result { () throws(ConvertError) -> JobResult in
                try VideoJob.run(
                    input: request.input, output: request.output, maxPixels: request.maxPixels,
                    plan: { media throws(ConvertError) in try VideoPlanner.plan(request, media: media) },
                    cancellation: flag, reporter: reporter)
            }
        }
        switch work {
        case .heicDecodeToJPEG: return photo(Fixtures.path("photos/IMG_3853.HEIC"), .jpeg)
        case .heicDecodeToPNG: return photo(Fixtures.path("photos/IMG_5195.HEIC"), .png)
        case .jpegToHEIC: return photo(Fixtures.path("photos/DSCN0010.jpg"), .heic)
        case .jpegToJXL: return photo(Fixtures.path("photos/DSCN0010.jpg"), .jxl)
        case .h264: return video(.mp4, .h264)
        case .hevc: return video(.mp4, .hevc)
        case .vp9: return video(.webm, .vp9)
        case .av1: return video(.mkv, .av1)
        }
    }
}

/// Runs work on a thread with a 64 MiB stack painted with a pattern, and reports how many bytes
/// from its top the work overwrote (the thread's own TLS at the top is counted too, a few KiB).
enum PaintedStack {
    private static let pattern: UInt64 = 0xA5A5_A5A5_A5A5_A5A5

    static func highWater(size: Int = 64 << 20, _ body: @escaping @Sendable () -> Void) -> Int {
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, 1 << 16, size) == 0, let memory else {
            preconditionFailure("no memory for the stack")
        }
        defer { free(memory) }
        let words = memory.bindMemory(to: UInt64.self, capacity: size / 8)
        words.initialize(repeating: pattern, count: size / 8)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstack(&attributes, memory, size)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let started = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, context)
        precondition(started == 0, "pthread_create failed: \(started)")
        pthread_join(thread, nil)
        var lowest = 0
        while lowest < size / 8 && words[lowest] == pattern { lowest += 1 }
        return size - lowest * 8
    }

    /// The work, handed to the thread through `pthread_create`'s context pointer.
    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
