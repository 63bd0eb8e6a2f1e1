import Foundation
import Testing

@testable import ConvertCore
@testable import ConvertMedia

/// Independent readers for photo tests: ffmpeg, heif-convert and exiftool run as processes, so a
/// check never goes through the code it is checking.
enum PhotoReference {
    /// Runs a tool; returns its exit status and stdout.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// Whether `tool` is on PATH.
    static func has(_ tool: String) -> Bool {
        (try? run("which", [tool]).status) == 0
    }

    /// Decoded RGB pixels, 8 bits per sample.
    struct Pixels {
        var width: Int
        var height: Int
        var rgb: [UInt8]
    }

    /// Decodes any image ffmpeg reads (JPEG, PNG, WebP) to 8-bit RGB, ignoring EXIF orientation.
    static func ffmpegRGB(_ path: String) throws -> Pixels {
        let probe = try run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
        let parts = String(decoding: probe.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ",")
        let width = try #require(parts.first.flatMap { Int($0) })
        let height = try #require(parts.dropFirst().first.flatMap { Int($0) })
        let decoded = try run(
            "ffmpeg", ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        try #require(decoded.status == 0)
        try #require(decoded.output.count == width * height * 3)
        return Pixels(width: width, height: height, rgb: Array(decoded.output))
    }

    /// Decodes a HEIF/AVIF with `heif-convert` (libheif's own tool) to PNG, then to RGB with ffmpeg.
    static func heifRGB(_ path: String, in directory: URL) throws -> Pixels {
        let png = directory.appendingPathComponent("reference-\(UUID().uuidString.prefix(6)).png").path
        let converted = try run("heif-convert", [path, png])
        try #require(converted.status == 0)
        return try ffmpegRGB(png)
    }

    /// PSNR of two same-sized 8-bit RGB images, in dB (infinity when identical).
    static func psnr(_ a: Pixels, _ b: Pixels) -> Double {
        precondition(a.width == b.width && a.height == b.height, "PSNR needs equal sizes")
        var sum = 0.0
        for i in 0..<a.rgb.count {
            let d = Double(a.rgb[i]) - Double(b.rgb[i])
            sum += d * d
        }
        let mse = sum / Double(a.rgb.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// exiftool's `-s -G1` listing of a file's tags, one "[Group] Name : value" per line.
    static func exiftool(_ path: String, _ extra: [String] = []) throws -> String {
        String(decoding: try run("exiftool", ["-a", "-G1", "-s"] + extra + [path]).output, as: UTF8.self)
    }
}

/// Runs photo conversions for tests.
enum PhotoRun {
    static func convert(_ request: PhotoRequest) async throws(ConvertError) -> JobResult {
        try await PhotoConverter.convert(request).result()
    }

    /// Names of the files in `directory`, hidden ones included.
    static func files(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }
}
