import Foundation

/// Runs `offconvert` and reads its peak resident memory from the kernel's accounting of that one
/// process, so tests running in parallel cannot disturb it, and no clock is involved.
///
/// A small Python parent runs it and prints `getrusage(RUSAGE_CHILDREN).ru_maxrss`. Spawning it
/// from the test process directly would not do: posix_spawn's child shares the parent's memory
/// until it execs, and the kernel carries that (the whole test process, hundreds of MB) into
/// the child's peak.
enum PeakMemory {
    /// How one run ended and the most memory it held, in kilobytes.
    struct Outcome: Sendable {
        var status: Int32
        var maxResidentKilobytes: Int
    }

    static let script = """
        import resource, subprocess, sys
        code = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode
        print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        """

    /// Runs the built `offconvert` with `arguments` in `directory`, its output discarded.
    static func run(_ arguments: [String], in directory: URL) async throws -> Outcome {
        let run = try await CLIRunner.run(
            ["-c", script, CLIRunner.executable.path] + arguments, executable: URL(fileURLWithPath: "/usr/bin/python3"),
            directory: directory)
        let fields = run.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard fields.count == 2 else { throw POSIXError(.EIO) }
        return Outcome(status: Int32(fields[0]), maxResidentKilobytes: fields[1])
    }
}
