// libFuzzer target: the command-line parser. The input is split on NUL bytes into arguments and
// parsed against a spec shaped like the real converting commands; every typed accessor is then
// read. Built by Fuzz/run with Sources/OffconvertCLI/Parsing/*.swift and the terminal-safe string
// filter compiled in.

let quality = Option<Int>.integer("quality", short: "q", in: 1...100, help: "Quality.", default: "85")
let format = Option<String>.choice(
    "to", short: "t", names: [("jpg", "jpg"), ("png", "png"), ("webp", "webp")], help: "Format.")
let target = Option<Int64>.byteCount("target", help: "Size.")
let maxPixels = Option<Int>.integer("max-pixels", in: 1...Int(Int32.max), help: "Limit.")
let outputDirectory = Option<String>.text("output-dir", short: "o", value: "dir", help: "Folder.")
let json = Flag("json", help: "JSON.")
let overwrite = Flag("overwrite", short: "f", help: "Overwrite.")

let spec = CommandSpec(
    name: "fuzz", abstract: "Fuzzing spec.",
    arguments: [ArgumentSpec(name: "FILES", help: "Inputs.", repeating: true, required: false)],
    options: [quality.spec, format.spec, target.spec, maxPixels.spec, outputDirectory.spec, json.spec, overwrite.spec])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
    }
    _ = ByteCountParser.parse(arguments.first ?? "")
    _ = Suggestion.closest(
        to: arguments.first ?? "", in: ["quality", "to", "target", "max-pixels", "output-dir", "json"])
    _ = (arguments.first ?? "").terminalSafe
    guard let parsed = try? ArgumentParser.parse(arguments, for: spec) else { return 0 }
    _ = try? parsed.value(quality, default: 85)
    _ = try? parsed.value(maxPixels, default: 1)
    _ = try? parsed.value(target)
    _ = try? parsed.value(format, default: "jpg")
    _ = parsed.has(json)
    _ = parsed.has(overwrite)
    _ = try? parsed.value(outputDirectory)
    _ = parsed.positionals.count
    return 0
}
