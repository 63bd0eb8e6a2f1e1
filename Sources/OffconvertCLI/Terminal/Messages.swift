import ConvertCore
import FoundationEssentials

/// The one localization hook for what the CLI tells people: every user-facing message has a
/// stable key with its English text built in, and a translation can replace any of them.
///
/// Translations come from the file named by `OFFCONVERT_MESSAGES`, in the `.strings` format:
/// one `"key" = "text";` per line (`//` comments and blank lines ignored). `{1}`, `{2}`, ... in a
/// text stand for the message's arguments in order. The library's errors are translated by
/// their ``ConvertError/key`` as `"error.KEY"` (e.g. `"error.allowance.exhausted"`), with `{path}`
/// standing for the file concerned; without a translation the library's English message is used.
package enum Messages {
    /// The stable keys of the CLI's own messages.
    package enum Key: String, CaseIterable, Sendable {
        case errorPrefix = "error.prefix"
        case warningPrefix = "warning.prefix"
        case itemFailed = "item.failed"
        case itemNotes = "item.notes"
        case itemSkippedResumed = "item.skipped.resumed"
        case itemSkippedEarlierOutput = "item.skipped.earlier-output"
        case itemPlanned = "item.planned"
        case itemSetAside = "item.set-aside"
        case foldersNotOpened = "batch.folders-not-opened"
        case emptyFolder = "batch.empty-folder"
        case summaryPlanned = "summary.planned"
        case summarySetAside = "summary.set-aside"
        case summaryIgnored = "summary.ignored"
        case journalFailed = "journal.failed"
        case journalDamaged = "journal.damaged"
        case summaryDone = "summary.done"
        case summaryWritten = "summary.written"
        case summaryUnchanged = "summary.unchanged"
        case summaryNoLocation = "summary.no-location"
        case summaryFailed = "summary.failed"
        case summarySkipped = "summary.skipped"
        case summaryUnfinished = "summary.unfinished"
        case summaryBytes = "summary.bytes"
        case summaryTime = "summary.time"
        case summaryInterrupted = "summary.interrupted"
        case summaryFailureLine = "summary.failure"
        case summaryFailureLineNamed = "summary.failure.named"
        case unknownCommand = "usage.unknown-command"
        case unknownOption = "usage.unknown-option"
        case didYouMean = "usage.did-you-mean"
        case seeHelp = "usage.see-help"
        case catalogueNoPair = "catalogue.no-pair"
        case catalogueOptionNotForTarget = "catalogue.option-not-for-target"
    }

    /// English, built in: every key has a text here (a test checks it).
    static let english: [Key: String] = [
        .errorPrefix: "Error:",
        .warningPrefix: "Warning:",
        .itemFailed: "{1}: {2}",
        .itemNotes: "{1}: {2}",
        .itemSkippedResumed: "{1}: already converted, skipped",
        .itemSkippedEarlierOutput: "{1}: made by an earlier run of this command, skipped",
        .itemPlanned: "{1} → {2} (about {3} of memory)",
        .itemSetAside: "{1}: skipped, {2}",
        .foldersNotOpened: "Note: {1} subfolder(s) not opened, such as {2}; add --recursive to convert them too.",
        .emptyFolder: "{1} is an empty folder: there is nothing in it to convert.",
        .summaryPlanned: "{1} would be converted",
        .summarySetAside: "{1} not for this command",
        .summaryIgnored: "{1} sidecar file(s) ignored",
        .journalFailed: "could not record progress for resuming ({1}).",
        .journalDamaged: "the record of the earlier run is damaged; outputs already there are kept.",
        .summaryDone: "{1} done",
        .summaryWritten: "{1} written",
        .summaryUnchanged: "{1} needed no change",
        .summaryNoLocation: "{1} had no location",
        .summaryFailed: "{1} failed",
        .summarySkipped: "{1} skipped",
        .summaryUnfinished: "{1} not converted",
        .summaryBytes: "{1} in, {2} out",
        .summaryTime: "in {1}",
        .summaryInterrupted: "Interrupted:",
        .summaryFailureLine: "  failed: {1}: {2}",
        .summaryFailureLineNamed: "  failed: {1}",
        .unknownCommand: "Unknown command '{1}'.",
        .unknownOption: "Unknown option '{1}'.",
        .didYouMean: "Did you mean '{1}'?",
        .seeHelp: "See '{1}' for more information.",
        .catalogueNoPair: "{1} is a {2} and cannot become '{3}'. A {2} can become: {4}.",
        .catalogueOptionNotForTarget: "'--{1}' does not apply to '--to {2}'. Options for {2}: {3}.",
    ]

    /// The environment variable naming a translation file.
    static let environmentVariable = "OFFCONVERT_MESSAGES"

    /// The translation in use, read once from `OFFCONVERT_MESSAGES`.
    static let overrides: [String: String] = {
        guard let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty,
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return [:] }
        return parse(strings: text)
    }()

    /// The text for `key` with `arguments` filled in.
    package static func text(_ key: Key, _ arguments: String..., overrides: [String: String] = Messages.overrides) -> String {
        let template = overrides[key.rawValue] ?? english[key] ?? key.rawValue
        return fill(template, arguments)
    }

    /// The text for a library error: a translation of `error.KEY` if there is one, else the
    /// library's English message; then the command-line way out of it, if the CLI has one
    /// (`hint.KEY`, translated too). The library's messages name no option or command: a host
    /// app words its own way out.
    package static func error(_ error: ConvertError, overrides: [String: String] = Messages.overrides) -> String {
        var message = overrides["error." + error.key].map { $0.replacing("{path}", with: error.path ?? "") } ?? error.message
        if let hint = overrides["hint." + error.key] ?? hints[error.code] { message += " " + hint }
        return message
    }

    /// What a user of the command line can do about an error, by its code.
    static let hints: [ConvertError.Code: String] = [
        .inputTooManyPixels: "Raise it with --max-pixels N.",
        .allowanceExhausted: "Unlock with 'offconvert unlock LICENSE-FILE'.",
        .allowanceDamaged: "Unlock with 'offconvert unlock LICENSE-FILE'.",
    ]

    /// Parses `.strings` text: `"key" = "text";` lines with `\"`, `\\` and `\n` escapes.
    package static func parse(strings text: String) -> [String: String] {
        var table: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace()
            guard line.hasPrefix("\"") else { continue }
            var scanner = Substring(line)
            guard let key = quoted(&scanner) else { continue }
            scanner = scanner.drop(while: { $0 == " " || $0 == "\t" })
            guard scanner.first == "=" else { continue }
            scanner = scanner.dropFirst().drop(while: { $0 == " " || $0 == "\t" })
            guard let value = quoted(&scanner) else { continue }
            table[key] = value
        }
        return table
    }

    /// Reads one `"..."` string from the start of `text`, advancing past it.
    private static func quoted(_ text: inout Substring) -> String? {
        guard text.first == "\"" else { return nil }
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" {
                text = text[text.index(after: index)...]
                return result
            }
            if character == "\\" {
                index = text.index(after: index)
                guard index < text.endIndex else { return nil }
                let escaped = text[index]
                result.append(escaped == "n" ? "\n" : escaped)
            } else {
                result.append(character)
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// `template` with `{1}`, `{2}`, ... replaced in one pass, so an argument that itself
    /// contains `{2}` (a file name can) is never substituted again.
    private static func fill(_ template: String, _ arguments: [String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let number = Int(rest[afterOpen..<close]),
                arguments.indices.contains(number - 1)
            {
                result += arguments[number - 1]
                rest = rest[rest.index(after: close)...]
            } else {
                result.append("{")
                rest = rest[afterOpen...]
            }
        }
        return result + rest
    }
}
