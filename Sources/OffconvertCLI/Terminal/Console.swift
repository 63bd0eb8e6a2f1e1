import ConvertCore
import FoundationEssentials
import Glibc

/// Where the CLI writes: results to stdout, diagnostics and progress to stderr.
///
/// Knows whether each stream is a terminal (progress lines and colour only there, and never with
/// NO_COLOR set) and strips control characters from anything that came from a file (names,
/// metadata), so a hostile file name cannot move the cursor or change the terminal's title.
package struct Console: Sendable {
    /// Whether stdout is a terminal.
    var stdoutIsTTY: Bool
    /// Whether stderr is a terminal.
    var stderrIsTTY: Bool
    /// Whether ANSI colour may be used on stderr.
    package var color: Bool

    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> Console {
        let out = isatty(STDOUT_FILENO) == 1
        let err = isatty(STDERR_FILENO) == 1
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let dumb = environment["TERM"] == "dumb"
        return Console(stdoutIsTTY: out, stderrIsTTY: err, color: err && !noColor && !dumb)
    }

    /// Writes `text` and a newline to stdout.
    package func out(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }

    /// Writes `text` and a newline to stderr.
    package func err(_ text: String) { write(text + "\n", to: STDERR_FILENO) }

    /// Writes raw text to stderr (for progress redraws).
    func errRaw(_ text: String) { write(text, to: STDERR_FILENO) }

    /// `text` in bold red when colour is allowed.
    package func red(_ text: String) -> String { color ? "\u{1B}[1;31m\(text)\u{1B}[0m" : text }
    /// `text` in green when colour is allowed.
    package func green(_ text: String) -> String { color ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    /// `text` in yellow when colour is allowed.
    func yellow(_ text: String) -> String { color ? "\u{1B}[33m\(text)\u{1B}[0m" : text }

    private func write(_ text: String, to descriptor: Int32) {
        // A name's bytes that are not UTF-8 are shown as U+FFFD, never written raw to a terminal.
        _ = RawFile.write(Array(PathEncoding.displayed(text).utf8)[...], to: descriptor)
    }
}

extension String {
    /// This string with control characters (C0, DEL, C1, and so escape sequences) replaced by `?`,
    /// for printing text that came from a file or a file name.
    package var terminalSafe: String {
        String(
            String.UnicodeScalarView(
                unicodeScalars.map { scalar in
                    let value = scalar.value
                    let isControl =
                        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
                        || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
                    return isControl ? "?" : scalar
                }))
    }
}
