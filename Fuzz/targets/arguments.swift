// libFuzzer target: the command-line parser. The input is split on NUL bytes into arguments and
// parsed against a spec shaped like the real converting commands; every typed accessor is then
// read. Built by Fuzz/run with Sources/OffconvertCLI/Parsing/*.swift and the terminal-safe string
// filter compiled in.

let spec = CommandSpec(
    name: "fuzz", abstract: "Fuzzing spec.",
    arguments: [ArgumentSpec(name: "FILES", help: "Inputs.", repeating: true, required: false)],
    options: [
        .option("quality", short: "q", value: "n", help: "Quality.", default: "85"),
        .option("to", short: "t", value: "format", help: "Format."),
        .option("target", value: "size", help: "Size."),
        .option("max-pixels", value: "n", help: "Limit."),
        .option("output-dir", short: "o", value: "dir", help: "Folder."),
        .flag("json", help: "JSON."),
        .flag("overwrite", short: "f", help: "Overwrite."),
    ])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    _ = ByteCountParser.parse(arguments.first ?? "")
    _ = Suggestion.closest(to: arguments.first ?? "", in: ["quality", "to", "target", "max-pixels", "output-dir", "json"])
    _ = (arguments.first ?? "").terminalSafe
    guard let parsed = try? ArgumentParser.parse(arguments, for: spec) else { return 0 }
    _ = try? parsed.integer("quality", in: 1...100, default: 85)
    _ = try? parsed.integer("max-pixels", in: 1...Int(Int32.max), default: 1)
    _ = try? parsed.byteCount("target")
    _ = try? parsed.choice("to", ["jpg", "png", "webp"], default: "jpg")
    _ = parsed.flag("json")
    _ = parsed.value("output-dir")
    _ = parsed.positionals.count
    return 0
}
