import ConvertBatch
import ConvertCore
import Dispatch
import FoundationEssentials
import Glibc

/// The loop behind `offconvert watch`: finds the files already in the folder and those that
/// arrive, waits until each is complete (``SettleQueue``), and converts each once by running
/// `offconvert convert --to … --json FILE`, so a watched file gets exactly the conversion,
/// journal, naming and allowance of the command run by hand.
///
/// Exactly once: each file is its own batch of the same recipe, so the batch journal (in the
/// state folder) knows what earlier runs converted and what they wrote; a restart skips both
/// (costing nothing) and converts what arrived while it was stopped. The outputs this watcher
/// writes are remembered and never taken as new inputs, and an output folder inside the
/// watched folder is not watched, so there is no feedback loop.
final class FolderWatcher {
    /// What `offconvert watch` was asked to do.
    struct Settings {
        var folder: String
        var target: String
        var outputDirectory: String?
        var recursive: Bool
        var json: Bool
        var settleMilliseconds: Int
        var once: Bool
        var isPhotoTarget: Bool
    }

    /// How the watch ended.
    enum Ending {
        case interrupted
        case allowance
        case finished
    }

    private let settings: Settings
    private let console: Console
    private let inotify: Inotify
    private var queue: SettleQueue
    private var outputs: Set<String> = []
    private var noted: Set<String> = []
    /// Files that were in the folder when the watch started (the first scan).
    private var foundAtStart: Set<String> = []
    /// Whether the first scan is over.
    private var started = false
    private(set) var converted = 0
    private(set) var failed = 0

    init(_ settings: Settings, console: Console) throws(ConvertError) {
        self.settings = settings
        self.console = console
        inotify = try Inotify()
        queue = SettleQueue(settleMilliseconds: settings.settleMilliseconds)
    }

    /// Watches until cancelled (Ctrl-C), until the allowance is used up, or with `once` until
    /// the files already there are converted.
    func run() async -> Ending {
        do {
            try addFolder(settings.folder, now: Self.now())
        } catch {
            report(failure: error)
            return .finished
        }
        started = true
        announce()
        while !Task.isCancelled {
            let now = Self.now()
            for event in inotify.read() { take(event, now: now) }
            for path in queue.ready(now: now) {
                if Task.isCancelled { return .interrupted }
                if let ending = await convert(path) { return ending }
            }
            if settings.once && queue.isEmpty { return .finished }
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                return .interrupted
            }
        }
        return .interrupted
    }

    /// Watches `folder` (and with --recursive its subfolders) and queues the files in it.
    private func addFolder(_ folder: String, now: UInt64) throws(ConvertError) {
        guard !isExcluded(folder) else { return }
        try inotify.watch(folder)
        let names = FolderListing.names(in: folder)?.sorted() ?? []
        for name in names where !name.hasPrefix(".") {
            let path = PathText.join(folder, name)
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                if settings.recursive { try? addFolder(path, now: now) }
            } else if info.st_mode & S_IFMT == S_IFREG {
                if !started { foundAtStart.insert(path) }
                queue.add(path, now: now)
            }
        }
    }

    private func take(_ event: Inotify.Event, now: UInt64) {
        guard !event.folderGone else { return }
        let name = PathText.lastComponent(event.path)
        guard !name.hasPrefix("."), !isExcluded(event.path), !outputs.contains(event.path) else { return }
        if event.isFolder {
            if settings.recursive { try? addFolder(event.path, now: now) }
        } else {
            queue.add(event.path, now: now)
        }
    }

    /// Whether `path` is the output folder or inside it.
    private func isExcluded(_ path: String) -> Bool {
        guard let output = settings.outputDirectory else { return false }
        return path == output || path.hasPrefix(output + "/")
    }

    /// Converts `path` unless it is not of the target's kind; nil to go on watching.
    private func convert(_ path: String) async -> Ending? {
        let content = InputTriage.content(of: path)
        let wanted: InputTriage.Content = settings.isPhotoTarget ? .photo : .video
        // A file of the kind's name that does not read as it is converted, to fail as damaged.
        let named = (settings.isPhotoTarget ? InputTriage.photoExtensions : Set(Catalogue.videoInputs))
            .contains(PathText.fileExtension(path).lowercased())
        guard content == wanted || (content == .unknown && named) else {
            if content == .photo || content == .video {
                note(path, "\(content == .photo ? "a photo" : "a video"), not converted to \(settings.target)")
            }
            return nil
        }
        // A JPEG dropped into a folder watched for JPEGs is what the user wanted already (and
        // is what the watcher writes next to its inputs): re-encoding it would only lose quality.
        let ext = PathText.fileExtension(path).lowercased()
        if ext == settings.target || Catalogue.photoFormat(ext)?.fileExtension == settings.target {
            // Said for a file that arrives; the ones already there at the start (often what an
            // earlier run wrote beside its inputs) only in --json, so a restart is not a wall of notes.
            note(path, "already \(settings.target), left alone", quiet: foundAtStart.contains(path))
            return nil
        }
        var arguments = ["convert", "--to", settings.target, "--json", "--jobs", "1"]
        if let output = outputFolder(for: path) { arguments += ["--output-dir", output] }
        arguments += ["--", path]
        let outcome: DesktopRunner.Outcome
        do {
            outcome = try await ChildCommand.run(DesktopInstaller.launcherPath(), arguments)
        } catch {
            // A file that could not be converted is a failed file, in the summary and the exit code.
            failed += 1
            let reason = (error as? ConvertError)?.message ?? "\(error)"
            report(failure: ConvertError(code: .watchSpawn, message: "offconvert could not start: \(reason)"))
            return nil
        }
        relay(outcome)
        switch outcome.status {
        case ExitCode.allowanceExhausted: return .allowance
        case ExitCode.interrupted: return .interrupted
        default: return nil
        }
    }

    /// The folder the output of `path` goes to: the output folder, keeping the subfolders of
    /// the watched folder; nil for next to the file.
    private func outputFolder(for path: String) -> String? {
        guard let output = settings.outputDirectory else { return nil }
        let parent = PathText.parent(path)
        guard parent.hasPrefix(settings.folder + "/") else { return output }
        return output + parent.dropFirst(settings.folder.count)
    }

    /// Passes on what the conversion printed: its JSON lines with --json, else a line per
    /// output and per failure; remembers the outputs so they are never converted themselves.
    private func relay(_ outcome: DesktopRunner.Outcome) {
        for line in outcome.stdout.split(separator: "\n") {
            guard let object = try? JSONDecoder().decode(RelayedLine.self, from: Data(line.utf8)) else { continue }
            let event = object.event ?? ""
            if event == "finished", let files = object.outputs {
                converted += 1
                for file in files { if let path = file.path { outputs.insert(path) } }
            }
            let category = object.error?.category
            // Refused by the allowance is not a failed file: the watch stops and says why.
            if event == "failed" && category != "allowance" { failed += 1 }
            if settings.json {
                // Progress lines would flood a log kept of a long watch; the rest pass as they are.
                guard event != "progress" else { continue }
                console.out(String(line))
            } else if event == "finished", let input = object.input, let files = object.outputs {
                let written = files.compactMap(\.path).map(\.terminalSafe).joined(separator: ", ")
                console.err("\(input.terminalSafe) → \(written)")
                // The same notes a batch prints under each file (damage repaired, HDR kept, ...).
                if let notes = object.notes, !notes.isEmpty {
                    console.err(
                        Messages.text(
                            .itemNotes, PathText.lastComponent(input).terminalSafe,
                            notes.joined(separator: ", ").terminalSafe))
                }
            } else if event == "skipped", let input = object.input, let reason = object.reason {
                console.err("\(input.terminalSafe): \(reason.terminalSafe).")
            } else if event == "failed", let message = object.error?.message {
                console.err("\(Messages.text(.errorPrefix)) \(message.terminalSafe)")
            }
        }
        let stderr = outcome.stderr.trimmingWhitespaceAndNewlines()
        if !stderr.isEmpty { console.err(stderr) }
    }

    /// Says once per file why it is left alone; a `quiet` reason only in --json.
    private func note(_ path: String, _ reason: String, quiet: Bool = false) {
        guard noted.insert(path).inserted else { return }
        if settings.json {
            console.out(Self.line(["event": "skipped", "input": .text(path), "reason": .text(reason)]))
        } else if !quiet {
            console.err("\(path.terminalSafe): \(reason).")
        }
    }

    private func announce() {
        if settings.json {
            var object: [String: LineValue] = [
                "event": "watching", "folder": .text(settings.folder), "to": .text(settings.target),
                "recursive": .flag(settings.recursive),
            ]
            if let output = settings.outputDirectory { object["output"] = .text(output) }
            console.out(Self.line(object))
        } else if !settings.once {
            console.err(
                "Watching \(settings.folder.terminalSafe) for new \(settings.isPhotoTarget ? "photos" : "videos"); "
                    + "each is converted to \(settings.target) once it is complete. Press Ctrl-C to stop.")
        }
    }

    private func report(failure error: ConvertError) {
        if settings.json {
            console.out(BatchReportLine.failed(error).jsonLine())
        } else {
            console.err("\(Messages.text(.errorPrefix)) \(Messages.error(error).terminalSafe)")
        }
    }

    /// The last line: how many files were converted and failed, and why the watch ended.
    func finish(_ ending: Ending) {
        let reason =
            switch ending {
            case .interrupted: "interrupted"
            case .allowance: "allowance"
            case .finished: "done"
            }
        if settings.json {
            console.out(
                Self.line([
                    "event": "stopped", "converted": .number(converted), "failed": .number(failed),
                    "reason": .text(reason),
                ]))
            return
        }
        if ending == .allowance {
            console.err(
                "Stopped watching: today's free conversions are used up (each file the watcher converts is one). "
                    + "Files that arrive from now on are converted when you start 'offconvert watch' again.")
        }
        console.err("\(converted) converted, \(failed) failed.")
    }

    /// One JSON line with sorted keys.
    static func line(_ object: [String: LineValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A value in one of the watcher's own JSON lines.
    enum LineValue: Encodable, ExpressibleByStringLiteral {
        case text(String)
        case number(Int)
        case flag(Bool)

        init(stringLiteral value: String) { self = .text(value) }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .flag(let value): try container.encode(value)
            }
        }
    }

    /// What the watcher reads of a conversion's JSON line; anything else in it is passed on as is.
    private struct RelayedLine: Decodable {
        struct Output: Decodable { var path: String? }
        struct Failure: Decodable {
            var category: String?
            var message: String?
        }
        var event: String?
        var input: String?
        var outputs: [Output]?
        var notes: [String]?
        var reason: String?
        var error: Failure?
    }

    /// A monotonic clock in nanoseconds (the wall clock may jump).
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
