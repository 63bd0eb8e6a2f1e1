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
    package static func text(_ key: Key, _ arguments: String..., overrides: [String: String] = Messages.overrides)
        -> String
    {
        let template = overrides[key.rawValue] ?? english[key] ?? key.rawValue
        return fill(template, arguments)
    }

    /// The text for a library error: a translation of `error.KEY` if there is one, else the
    /// library's English message; then the command-line way out of it, if the CLI has one
    /// (`hint.KEY`, translated too). The library's messages name no option or command: a host
    /// app words its own way out.
    package static func error(_ error: ConvertError, overrides: [String: String] = Messages.overrides) -> String {
        var message =
            overrides["error." + error.key].map { $0.replacing("{path}", with: error.path ?? "") } ?? error.message
        if let hint = overrides["hint." + error.key] ?? hints[error.code] { message += " " + hint }
        return message
    }

    /// What a user of the command line can do about an error, by its code.
    static let hints: [ConvertError.Code: String] = [
        .inputTooManyPixels: "Raise it with --max-pixels N.",
        .allowanceExhausted: "Unlock with 'offconvert unlock LICENSE-FILE'.",
        .allowanceDamaged: "Unlock with 'offconvert unlock LICENSE-FILE'.",
        .requestPreset: "Leave out --preset, or add --codec h264 or --codec hevc.",
    ]

    /// The text for a library note: a translation of `note.KEY` if there is one (not for
    /// `fact`, the key every other note shares; `{1}`, ... stand for ``noteValues(_:)``), else the
    /// library's English message; with the command-line way to get what the note says was left
    /// out, if the CLI has one (`hint.note.KEY`, or a variant's key, translated too; `{1}`, ...
    /// stand for the values each variant names in ``noteAdvice(_:)``). The library's notes name
    /// no option: a host app words its own advice.
    package static func note(_ note: JobNote, overrides: [String: String] = Messages.overrides) -> String {
        let translated = note.code == .fact ? nil : overrides["note." + note.code.rawValue]
        let message = translated.map { fill($0, noteValues(note)) } ?? note.message
        guard let advice = noteAdvice(note) else { return message }
        let hint = fill(overrides["hint.note." + advice.key] ?? advice.english, advice.arguments)
        guard let words = advice.replacing, let range = message.firstRange(of: words) else { return message + hint }
        return String(message[..<range.lowerBound]) + hint + String(message[range.upperBound...])
    }

    /// The command-line advice a note takes: its translation key (the note's code, or a variant of
    /// it), its English text, the values that fill it, and the library's words it takes the place
    /// of (nil: it follows the message). Nil for a note the CLI adds nothing to.
    static func noteAdvice(_ note: JobNote) -> (key: String, english: String, arguments: [String], replacing: String?)?
    {
        let key = note.code.rawValue
        switch note.detail {
        case .pagesLeftOut: return (key, " (--all-images writes each)", [], nil)
        case .picturesLeftOut(_, let stereo):
            return stereo
                ? (key + ".stereo", "; --all-images writes both", [], nil)
                : (key, "; --all-images writes each", [], nil)
        case .animationStill(let still) where !still.frameWasChosen:
            switch still.format {
            case .gif:
                return (key + ".gif", " (--frame N picks another; --to webp or --to mp4 keeps the animation)", [], nil)
            case .webp: return (key + ".webp", " (--frame N picks another; --to webp keeps the animation)", [], nil)
            case .avif: return (key + ".avif", " (--to webp or --to mp4 keeps the animation)", [], nil)
            default: return (key, " (--to mp4 keeps the animation)", [], nil)
            }
        case .subtitlesDropped: return (key, " (--subtitles drop)", [], nil)
        case .audioTrackLeftOut(let track) where track.canChoose:
            let position = String(track.position)
            return track.canKeepAll
                ? (key + ".all", "; --audio-track {1} or --all-audio keeps it", [position], nil)
                : (key, "; --audio-track {1} keeps it", [position], nil)
        // The timing may be said inside another note (a re-encode's reason), so the advice goes
        // in place of the library's words rather than at the end.
        case .rawStreamTiming(let rate, .request):
            let fps = Self.rate(rate)
            return (key + ".request", "timed at {1} fps, as --fps says", [fps], "timed at \(fps) fps, as asked")
        case .rawStreamTiming(let rate, .assumed):
            let fps = Self.rate(rate)
            return (key + ".assumed", "timed at {1} fps; --fps sets another", [fps], "timed at \(fps) fps")
        case .largeGIF: return (key, "; --duration, --fps or --width make it smaller", [], nil)
        default:
            if note.code == .gainMapRemoved { return (key, " (--hdr sdr)", [], nil) }
            // Here the option is the reason itself: the whole sentence is the CLI's.
            if note.code == .gainMapMetadataRemoved {
                return (
                    key, "HDR not kept: --strip-metadata removes the metadata that describes the gain map", [],
                    note.message
                )
            }
            return nil
        }
    }

    /// The values a translation of `note.KEY` can use, in order: pages; pictures; frames, seconds,
    /// the frame kept; tracks; the track's position and description; frames per second; seconds.
    static func noteValues(_ note: JobNote) -> [String] {
        switch note.detail {
        case .pagesLeftOut(let pages): [String(pages)]
        case .picturesLeftOut(let pictures, _): [String(pictures)]
        case .animationStill(let still):
            [String(still.frames), String(Double(still.milliseconds) / 1000), String(still.keptFrame)]
        case .subtitlesDropped(let tracks): [String(tracks)]
        case .audioTrackLeftOut(let track): [String(track.position), track.description]
        case .rawStreamTiming(let rate, _): [Self.rate(rate)]
        case .largeGIF(let seconds): [UnitText.duration(seconds)]
        default: []
        }
    }

    /// A frame rate as the library's notes write it: "25", "29.97".
    private static func rate(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }

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
