// The decode and encode pipelines on arbitrary bytes, in process, through the library's public
// API only: what `heic-to-jpg`, `convert --to png|webp|jxl`, `info`, `convert --to mkv`, `gif` and
// `convert animation.avif --to webp` run on a user's file. Two modes:
//
//   pipeline-fuzz TARGET FILE|DIR...          replays each file (every file of a DIR) through
//                                             TARGET and prints the outcomes; any build
//   pipeline-fuzz TARGET -fuzz [LIBFUZZER...] coverage-guided fuzzing, in a build linked with
//                                             libFuzzer's no-main runtime (Fuzz/pipelines)
//
// A crash, a sanitizer report or a hang is the finding; a ConvertError is an expected outcome.
import ConvertCore
import ConvertMedia
import Dispatch
import FoundationEssentials
import Glibc

/// One pipeline a fuzz input runs through.
enum Target: String, CaseIterable {
    case heicJPEG = "heic-jpg", photoPNG = "photo-png", photoWebP = "photo-webp", photoJXL = "photo-jxl"
    case mediaInfo = "media-info", videoRemux = "video-remux", videoFrames = "video-frames"
    case animatedWebP = "animated-webp"

    /// Runs `data` through the pipeline in `scratch`, and says how it ended.
    func run(_ data: UnsafeRawBufferPointer, in scratch: String) -> String {
        let input = scratch + "/input"
        let output = scratch + "/out"
        guard write(data, to: input), mkdir(output, 0o755) == 0 || errno == EEXIST else { return "scratch unwritable" }
        defer { empty(output) }
        // The callback libFuzzer calls is synchronous and runs on the main thread, off the
        // cooperative pool, so waiting here blocks none of the job's own threads.
        let outcome = Box()
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            outcome.value = await self.job(input: input, output: output)
            finished.signal()
        }
        finished.wait()
        return outcome.value
    }

    private func job(input: String, output: String) async -> String {
        do throws(ConvertError) {
            switch self {
            case .heicJPEG: return try await photo(input, .jpeg, output)
            case .photoPNG: return try await photo(input, .png, output)
            case .photoWebP: return try await photo(input, .webp, output)
            case .photoJXL: return try await photo(input, .jxl, output)
            case .mediaInfo:
                _ = try await MediaProbe.probe(path: input)
                return "described"
            case .videoRemux:
                let request = VideoRequest(input: input, container: .mkv, output: OutputLocation(directory: output))
                _ = try await VideoConverter.convert(request).result()
                return "converted"
            case .videoFrames:
                // A few frames through decode, scale and the GIF encoder: the frame pump.
                let request = GIFRequest(
                    input: input, duration: 0.3, framesPerSecond: 5, width: 32,
                    output: OutputLocation(directory: output))
                _ = try await VideoConverter.gif(request).result()
                return "converted"
            case .animatedWebP:
                // An animated AVIF's frames (any clip's, to FFmpeg) into libwebp's animation encoder.
                let request = AnimatedWebPRequest(input: input, output: OutputLocation(directory: output))
                _ = try await VideoConverter.animatedWebP(request).result()
                return "converted"
            }
        } catch {
            return error.key
        }
    }

    private func photo(_ input: String, _ format: PhotoFormat, _ output: String) async throws(ConvertError) -> String {
        // 40 MP: every phone photo (the 24 MP iOS 18 crasher among them), and a mutant's claimed
        // size cannot make one input take minutes.
        let request = PhotoRequest(inputPath: input, format: format, outputDirectory: output, maxPixels: 40_000_000)
        _ = try await PhotoConverter.convert(request).result()
        return "converted"
    }
}

/// One input's outcome. `@unchecked Sendable`: written by one task before the semaphore it
/// signals, read by the waiting thread after it.
final class Box: @unchecked Sendable { var value = "" }

func write(_ data: UnsafeRawBufferPointer, to path: String) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var offset = 0
    while offset < data.count {
        let written = Glibc.write(fd, data.baseAddress! + offset, data.count - offset)
        guard written > 0 else { return false }
        offset += written
    }
    return true
}

/// Removes every file in `directory` (outputs, and temporaries a failure might leave).
func empty(_ directory: String) {
    guard let handle = opendir(directory) else { return }
    defer { closedir(handle) }
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { unlink(directory + "/" + name) }
    }
}

/// The files to replay: each argument, or each regular file directly inside it (not hidden ones,
/// such as a folder's .gitkeep).
func inputs(_ arguments: ArraySlice<String>) -> [String] {
    arguments.flatMap { path -> [String] in
        guard let handle = opendir(path) else { return [path] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if entry.pointee.d_type == UInt8(DT_REG), !name.hasPrefix(".") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }
}

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return count == 0 ? bytes : nil }
        bytes += chunk[..<count]
    }
}

/// What the libFuzzer callback (a C function pointer, which captures nothing) runs each input
/// through. `nonisolated(unsafe)`: set once before the driver starts, read only by its thread.
nonisolated(unsafe) var fuzzTarget: Target?
nonisolated(unsafe) var fuzzScratch = ""

let arguments = CommandLine.arguments
guard arguments.count >= 3, let target = Target(rawValue: arguments[1]) else {
    print("usage: pipeline-fuzz TARGET FILE|DIR... | pipeline-fuzz TARGET -fuzz [LIBFUZZER-ARGS]")
    print("targets: " + Target.allCases.map(\.rawValue).joined(separator: " "))
    exit(64)
}
var template = Array("/tmp/pipeline-fuzz-XXXXXX".utf8CString)
guard let made = mkdtemp(&template) else { exit(70) }
let scratch = String(cString: made)

if arguments[2] == "-fuzz" {
    typealias Driver =
        @convention(c) (
            UnsafeMutablePointer<Int32>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
            @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
        ) -> Int32
    guard let symbol = dlsym(nil, "LLVMFuzzerRunDriver") else {  // RTLD_DEFAULT: this executable and its libraries
        print("pipeline-fuzz: this build has no libFuzzer; build it with Fuzz/pipelines")
        exit(69)
    }
    fuzzTarget = target
    fuzzScratch = scratch
    var argv: [UnsafeMutablePointer<CChar>?] = ([arguments[0]] + arguments.dropFirst(3)).map { strdup($0) } + [nil]
    var argc = Int32(argv.count - 1)
    let status = argv.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var base = buffer.baseAddress
        return unsafeBitCast(symbol, to: Driver.self)(&argc, &base) { data, size in
            _ = fuzzTarget?.run(UnsafeRawBufferPointer(start: data, count: size), in: fuzzScratch)
            return 0
        }
    }
    exit(status)
}

var counts: [String: Int] = [:]
for path in inputs(arguments.dropFirst(2)) {
    guard let bytes = readFile(path) else {
        print("pipeline-fuzz: cannot read \(path)")
        exit(66)
    }
    let outcome = bytes.withUnsafeBytes { target.run($0, in: scratch) }
    counts[outcome, default: 0] += 1
}
rmdir(scratch + "/out")
unlink(scratch + "/input")
rmdir(scratch)
print(
    "\(target.rawValue): " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
