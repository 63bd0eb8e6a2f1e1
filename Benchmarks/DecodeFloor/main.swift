// heic-decode-floor [--jobs N] [--threads T] [--libheif] [--convert-to DIR [--quality Q]] FILES...
//
// The decode-only floor of `offconvert heic-to-jpg FILES...`: decodes every file's primary image
// with the product's own code and settings (DecodeFloor), `--jobs` files at once on their own
// threads like the batch scheduler, and writes nothing. Without options it uses the product's
// defaults: one job per core, and DecodingThreads' split of the cores. `--libheif` decodes with
// libheif instead (the decode libheif-based tools pay for), with the same jobs and threads.
//
// With `--convert-to DIR` it converts the files to JPEG in DIR instead, through the public
// PhotoConverter API and the BatchScheduler, with exactly `--threads` decoding threads per photo:
// Benchmarks/thread-split.py uses it to measure every jobs × threads split end to end, which
// the CLI deliberately does not expose as an option.
import ConvertBatch
import ConvertCore
import Foundation
import Synchronization

/// The command line.
struct Options {
    var jobs = ProcessInfo.processInfo.activeProcessorCount
    var threads: Int?
    var outputDirectory: String?
    var quality = 85
    var decoder = DecodeFloor.Decoder.product
    var files: [String] = []

    init?(_ arguments: [String]) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch argument {
            case "--jobs", "--threads", "--quality":
                guard let number = value.flatMap({ Int($0) }), number >= 0 else { return nil }
                if argument == "--jobs" {
                    jobs = max(1, number)
                } else if argument == "--threads" {
                    threads = number
                } else {
                    quality = number
                }
                index += 2
            case "--libheif":
                decoder = .libheif
                index += 1
            case "--convert-to":
                guard let value else { return nil }
                outputDirectory = value
                index += 2
            default:
                if argument.hasPrefix("--") { return nil }
                files.append(argument)
                index += 1
            }
        }
    }
}

/// Decodes every file, `jobs` at once; returns how many failed.
func decodeAll(_ paths: [String], jobs: Int, threads: Int?, decoder: DecodeFloor.Decoder) -> Int {
    let next = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)
    let workers = max(1, min(jobs, paths.count))
    for _ in 0..<workers {
        // Like the product's runBlocking: a thread of its own with a deep stack for the codec.
        let thread = Thread {
            while true {
                let item = next.add(1, ordering: .relaxed).oldValue
                guard item < paths.count else { break }
                do throws(ConvertError) {
                    // The product's split when not forced: heic-to-jpg gives the batch's last
                    // photos the cores the finished jobs leave idle.
                    let perPhoto = threads ?? DecodingThreads.perPhoto(jobs: jobs, items: paths.count - item)
                    try DecodeFloor.decodePrimary(path: paths[item], decodingThreads: perPhoto, decoder: decoder)
                } catch {
                    failures.add(1, ordering: .relaxed)
                    FileHandle.standardError.write(Data("\(paths[item]): \(error.message)\n".utf8))
                }
            }
            done.signal()
        }
        thread.stackSize = 16 << 20
        thread.start()
    }
    for _ in 0..<workers { done.wait() }
    return failures.load(ordering: .relaxed)
}

/// Converts every file to JPEG in `directory`, `jobs` at once; returns how many failed.
func convertAll(_ paths: [String], jobs: Int, threads: Int, quality: Int, directory: String) async -> Int {
    let scheduler = BatchScheduler(maxConcurrent: jobs)
    let outcomes = await scheduler.results(paths, cost: { _ in 0 }) { path in
        let request = PhotoRequest(
            inputPath: path, format: .jpeg, quality: quality, outputDirectory: directory, overwrite: true,
            decodingThreads: threads)
        do throws(ConvertError) {
            _ = try await PhotoConverter.convert(request).result()
            return true
        } catch {
            FileHandle.standardError.write(Data("\(path): \(error.message)\n".utf8))
            return false
        }
    }
    return outcomes.filter { !$0 }.count
}

/// Runs the command line and returns the exit status (0, 1 when a file failed, 64 on bad usage).
func main(_ arguments: [String]) async -> Int32 {
    guard let options = Options(arguments), !options.files.isEmpty else {
        FileHandle.standardError.write(
            Data(
                "usage: heic-decode-floor [--jobs N] [--threads T] [--libheif] [--convert-to DIR [--quality Q]] FILES...\n"
                    .utf8))
        return 64
    }
    let failures =
        if let directory = options.outputDirectory {
            await convertAll(
                options.files, jobs: options.jobs,
                threads: options.threads ?? DecodingThreads.perPhoto(jobs: options.jobs, items: options.files.count),
                quality: options.quality, directory: directory)
        } else {
            decodeAll(options.files, jobs: options.jobs, threads: options.threads, decoder: options.decoder)
        }
    return failures == 0 ? 0 : 1
}

exit(await main(Array(CommandLine.arguments.dropFirst())))
