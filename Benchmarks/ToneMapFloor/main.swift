// tonemap-floor decode|table|table-scalar|zscale FILE [RAW-OUTPUT]
//
// The tone-map stage of `offconvert send-to-windows` alone: decodes FILE's HDR video with the
// product's decoder settings and, per frame, does nothing (decode), runs the table tone mapper
// the product uses (table; table-scalar: through its scalar kernel), or FFmpeg's zscale+tonemap
// float chain (zscale). Encodes nothing; with RAW-OUTPUT, writes the tone-mapped frames there as
// raw yuv420p. Prints the frame count.
import ConvertMedia
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let mode = ToneMapFloor.Mode(rawValue: arguments[0]) else {
    FileHandle.standardError.write(
        Data("usage: tonemap-floor decode|table|table-scalar|zscale FILE [RAW-OUTPUT]\n".utf8))
    exit(64)
}
do {
    let frames = try ToneMapFloor.run(
        path: arguments[1], mode: mode, rawOutput: arguments.count > 2 ? arguments[2] : nil)
    print(frames)
} catch {
    FileHandle.standardError.write(Data("tonemap-floor: \(error.message)\n".utf8))
    exit(1)
}
