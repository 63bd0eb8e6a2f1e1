import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Independent checks of video outputs with the ffmpeg and ffprobe command-line tools.
enum MediaTool {
    /// Runs `tool` with `arguments`, returning stdout as bytes and stderr as text.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: Data, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so a chatty stderr cannot block the child.
        nonisolated(unsafe) var errors = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errors = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, output, String(decoding: errors, as: UTF8.self))
    }

    /// One stream as ffprobe reports it.
    struct Stream {
        var fields: [String: Any]
        var codecType: String { fields["codec_type"] as? String ?? "" }
        var codecName: String { fields["codec_name"] as? String ?? "" }
        var string: (String) -> String? { { fields[$0] as? String } }
        var int: (String) -> Int? { { (fields[$0] as? NSNumber)?.intValue } }
        var duration: Double? { (fields["duration"] as? String).flatMap(Double.init) }
        var sideDataTypes: [String] {
            (fields["side_data_list"] as? [[String: Any]] ?? []).compactMap { $0["side_data_type"] as? String }
        }
        var rotation: Int? {
            (fields["side_data_list"] as? [[String: Any]] ?? []).compactMap { ($0["rotation"] as? NSNumber)?.intValue }
                .first
        }
    }

    /// What ffprobe says about a file.
    struct Probe {
        var streams: [Stream]
        var tags: [String: String]
        var duration: Double?
        var video: Stream? { streams.first { $0.codecType == "video" } }
        var audio: Stream? { streams.first { $0.codecType == "audio" } }
    }

    static func probe(_ path: String) throws -> Probe {
        let result = try run("ffprobe", ["-v", "error", "-of", "json", "-show_streams", "-show_format", path])
        let object = try JSONSerialization.jsonObject(with: result.output) as? [String: Any] ?? [:]
        let streams = (object["streams"] as? [[String: Any]] ?? []).map(Stream.init)
        let format = object["format"] as? [String: Any] ?? [:]
        return Probe(
            streams: streams, tags: format["tags"] as? [String: String] ?? [:],
            duration: (format["duration"] as? String).flatMap(Double.init))
    }

    /// What ffmpeg prints when decoding the whole file at `-v error` (empty when it plays cleanly).
    static func decodeErrors(_ path: String) throws -> String {
        try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"]).errors
    }

    /// ffmpeg's SSIM (All) of `path`'s picture against `reference`'s, the output scaled (bicubic)
    /// to the reference's size first; nil when ffmpeg prints none.
    static func ssim(_ path: String, reference: String) throws -> Double? {
        let graph = "[0:v][1:v]scale2ref=flags=bicubic[o][r];[o]format=yuv420p[a];[r]format=yuv420p[b];[a][b]ssim"
        let result = try run(
            "ffmpeg",
            [
                "-nostdin", "-hide_banner", "-nostats", "-i", path, "-i", reference, "-lavfi", graph,
                "-f", "null", "-",
            ])
        guard let range = result.errors.range(of: "All:") else { return nil }
        return Double(result.errors[range.upperBound...].prefix { $0.isNumber || $0 == "." })
    }

    /// Presentation times (seconds) of every video frame.
    static func videoFrameTimes(_ path: String) throws -> [Double] {
        let result = try run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                "-of", "csv=p=0", path,
            ])
        // Frames with side data print an extra empty field ("0.000000,"): keep the first field.
        return String(decoding: result.output, as: UTF8.self).split(separator: "\n")
            .compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
    }

    /// Mean luma (0...255) and mean chroma distance from grey of one decoded frame, from raw
    /// 8-bit 4:4:4 pixels; `filter` is applied first (e.g. a reference tone map).
    static func frameStatistics(_ path: String, filter: String? = nil, frame: Int = 0) throws -> (
        luma: Double, saturation: Double
    ) {
        var chain = "select=gte(n\\,\(frame))"
        if let filter { chain += ",\(filter)" }
        chain += ",scale=320:-2,format=yuv444p"
        let result = try run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", path, "-vf", chain, "-frames:v", "1",
                "-f", "rawvideo", "-",
            ])
        let bytes = [UInt8](result.output)
        let plane = bytes.count / 3
        guard plane > 0 else { return (0, 0) }
        var luma = 0.0
        var saturation = 0.0
        for index in 0..<plane {
            luma += Double(bytes[index])
            let u = Double(bytes[plane + index]) - 128
            let v = Double(bytes[2 * plane + index]) - 128
            saturation += (u * u + v * v).squareRoot()
        }
        return (luma / Double(plane), saturation / Double(plane))
    }
}

/// Runs a job to completion, collecting its events.
func runJob(_ job: ConversionJob) async -> (events: [JobEvent], result: Result<JobResult, ConvertError>) {
    var events: [JobEvent] = []
    for await event in job.events { events.append(event) }
    await job.completion()
    switch events.last {
    case .finished(let result)?: return (events, .success(result))
    case .failed(let error)?: return (events, .failure(error))
    default: return (events, .failure(.cancelled()))
    }
}

/// The names of the files in `directory` (hidden ones included, so a leftover `.partial` shows).
func fileNames(in directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// The path of a job's (single) output.
func outputPath(_ result: JobResult) throws -> String {
    try #require(result.outputs.first).path
}
