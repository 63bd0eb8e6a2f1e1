import Foundation
import Testing

/// `offconvert desktop install|uninstall|run`: the files each file manager reads, checked with
/// the freedesktop tools, and each menu's command line run the way its file manager runs it.
@Suite("File-manager actions")
struct DesktopActionsTests {
    /// A user's home for one test: XDG folders of its own, a `notify-send` stand-in that records
    /// what it was asked to show, and a folder of files.
    struct Home {
        let root: String
        var data: String { root + "/data" }
        var config: String { root + "/config" }
        var files: String { root + "/files" }
        var notified: String { root + "/notified" }
        var uca: String { config + "/Thunar/uca.xml" }

        init() throws {
            root =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "offconvert-desktop-\(UUID().uuidString.prefix(8))"
                ).path
            for folder in [root + "/bin", files, config + "/Thunar"] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            // Records each call's arguments, NUL-terminated, each call ended by an RS byte.
            let stub =
                "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> '\(notified)'\nprintf '\\036' >> '\(notified)'\n"
            try stub.write(toFile: root + "/bin/notify-send", atomically: true, encoding: .utf8)
            chmod(root + "/bin/notify-send", 0o755)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }

        /// The environment of the user's session; without `notify` there is no notify-send.
        /// Each run gets a fresh allowance unless `state` is given: the actions are five
        /// conversions and more, above the free three a day.
        func environment(notify: Bool = true, state: String = UUID().uuidString) -> [String: String] {
            var path = "/usr/local/bin:/usr/bin:/bin"
            if notify { path = root + "/bin:" + path }
            return [
                "HOME": root + "/home", "XDG_DATA_HOME": data, "XDG_CONFIG_HOME": config,
                "XDG_STATE_HOME": root + "/state/" + state,
                "PATH": path, "NO_COLOR": "1", "LANG": "C.UTF-8",
                // notify-send is only run where a session bus is; the stand-in needs none.
                "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(root)/bus",
            ]
        }

        func offconvert(_ arguments: [String]) async throws -> CLIRunner.Outcome {
            try await CLIRunner.run(arguments, environment: environment())
        }

        /// The notifications shown so far, each as its arguments.
        func notifications() -> [[String]] {
            let text = (try? String(contentsOfFile: notified, encoding: .utf8)) ?? ""
            return text.split(separator: "\u{1E}").map { $0.split(separator: "\0").map(String.init) }
        }
    }

    /// The user's own Thunar action, which must survive install and uninstall.
    static let userAction = """
        <?xml version="1.0" encoding="UTF-8"?>
        <actions>
        <!-- mine -->
        <action>
        \t<icon>utilities-terminal</icon>
        \t<name>Open Terminal Here</name>
        \t<unique-id>1612104464586264-1</unique-id>
        \t<command>exo-open --working-directory %f --launch TerminalEmulator</command>
        \t<description>Example for a custom action</description>
        \t<patterns>*</patterns>
        \t<directories/>
        </action>
        </actions>

        """

    static let actionIDs = ["convert-to-jpeg", "send-to-windows", "email", "remove-location", "show-info"]

    static func tool(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return (-1, "\(path) did not start") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func listing(_ folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        return walker.compactMap { $0 as? String }.sorted()
    }

    @Test(
        "install --dry-run writes nothing; install validates and keeps the user's Thunar action; uninstall removes only ours"
    )
    func installAndUninstall() async throws {
        let home = try Home()
        defer { home.remove() }
        try Self.userAction.write(toFile: home.uca, atomically: true, encoding: .utf8)

        let dry = try await home.offconvert(["desktop", "install", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would write \(home.data)/kio/servicemenus/offconvert-convert-to-jpeg.desktop"))
        #expect(dry.stdout.contains("would write \(home.uca)"))
        #expect(!FileManager.default.fileExists(atPath: home.data))
        #expect(try String(contentsOfFile: home.uca, encoding: .utf8) == Self.userAction)

        // A Nemo action of the user's own, in the folder install also writes to.
        try FileManager.default.createDirectory(atPath: home.data + "/nemo/actions", withIntermediateDirectories: true)
        try "[Nemo Action]\nName=Mine\n".write(
            toFile: home.data + "/nemo/actions/mine.nemo_action", atomically: true, encoding: .utf8)
        let install = try await home.offconvert(["desktop", "install"])
        #expect(install.status == 0, "\(install.stderr)")
        let serviceMenus = Self.listing(home.data + "/kio/servicemenus")
        #expect(serviceMenus == Self.actionIDs.map { "offconvert-\($0).desktop" }.sorted())
        #expect(
            Self.listing(home.data + "/nemo/actions")
                == (Self.actionIDs.map { "offconvert-\($0).nemo_action" } + ["mine.nemo_action"]).sorted())
        // JPEG XL photos get "Convert to JPEG" too.
        let toJPEG = try String(
            contentsOfFile: home.data + "/kio/servicemenus/offconvert-convert-to-jpeg.desktop", encoding: .utf8)
        #expect(toJPEG.contains("image/jxl"), "\(toJPEG)")
        #expect(Self.listing(home.data + "/nautilus/scripts/offconvert").count == 5)
        for name in serviceMenus {
            let path = home.data + "/kio/servicemenus/" + name
            let (status, output) = Self.tool("/usr/bin/desktop-file-validate", [path])
            // desktop-file-validate knows only the freedesktop types: for KDE's Type=Service it
            // flags MimeType and Actions, which are exactly what a service menu consists of.
            let other = output.split(separator: "\n").filter { !$0.contains("but the type is \"Service\"") }
            #expect(other.isEmpty, "\(name): \(output)")
            #expect(status == 0 || !output.isEmpty)
            #expect(access(path, X_OK) == 0, "Dolphin runs only executable service menus")
        }
        let xml = Self.tool("/usr/bin/xmllint", ["--noout", home.uca])
        #expect(xml.status == 0, "\(xml.output)")
        let merged = try String(contentsOfFile: home.uca, encoding: .utf8)
        #expect(merged.contains("<unique-id>1612104464586264-1</unique-id>"))
        #expect(merged.contains("<!-- mine -->"))
        for id in Self.actionIDs { #expect(merged.contains("<unique-id>offconvert-\(id)</unique-id>")) }
        // The merged file lists the user's action and ours, each once, as libxml2 reads it.
        let ids = Self.tool("/usr/bin/xmllint", ["--xpath", "//unique-id/text()", home.uca]).output
        #expect(ids.split(separator: "\n").count == 6, "\(ids)")

        let again = try await home.offconvert(["desktop", "install"])
        #expect(again.status == 0)
        #expect(try String(contentsOfFile: home.uca, encoding: .utf8) == merged, "a second install changes nothing")

        let uninstall = try await home.offconvert(["desktop", "uninstall"])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        // The folders install made are gone with our files; the one holding the user's action stays.
        for made in ["kio", "nautilus"] {
            #expect(!FileManager.default.fileExists(atPath: home.data + "/" + made), "\(made) left behind")
        }
        #expect(Self.listing(home.data + "/nemo/actions") == ["mine.nemo_action"])
        #expect(FileManager.default.fileExists(atPath: home.data), "the data folder itself is never removed")
        let left = try String(contentsOfFile: home.uca, encoding: .utf8)
        #expect(Self.tool("/usr/bin/xmllint", ["--noout", home.uca]).status == 0)
        #expect(left.contains("<unique-id>1612104464586264-1</unique-id>"))
        #expect(!left.contains("offconvert"))
        #expect(left == Self.userAction, "uninstall gives back the user's file as it was")
    }

    @Test("an unreadable uca.xml is left alone")
    func unreadableThunarFile() async throws {
        let home = try Home()
        defer { home.remove() }
        try "<config>not Thunar's</config>\n".write(toFile: home.uca, atomically: true, encoding: .utf8)
        let install = try await home.offconvert(["desktop", "install"])
        #expect(install.status == 1)
        #expect(install.stderr.contains("was left alone"), "\(install.stderr)")
        #expect(try String(contentsOfFile: home.uca, encoding: .utf8) == "<config>not Thunar's</config>\n")
    }

    /// Names a file manager must pass whole: a space, quotes, a newline, a byte that is not UTF-8.
    static let hostileNames: [[UInt8]] = [
        Array("with space.heic".utf8), Array("it's \"quoted\".heic".utf8), Array("new\nline.heic".utf8),
        Array("bad".utf8) + [0xFF] + Array("byte.heic".utf8),
    ]

    /// `text` quoted as GLib's g_shell_quote does (what Thunar and Nemo put in place of %F).
    static func shellQuote(_ bytes: [UInt8]) -> [UInt8] {
        var quoted: [UInt8] = [UInt8(ascii: "'")]
        for byte in bytes {
            if byte == UInt8(ascii: "'") { quoted += Array("'\\''".utf8) } else { quoted.append(byte) }
        }
        return quoted + [UInt8(ascii: "'")]
    }

    /// A Desktop Entry `Exec` value split into arguments as the spec says (string escapes,
    /// then double-quoted words with `\` escapes), with `%F` replaced by `files`, one each.
    static func desktopExec(_ value: String, files: [[UInt8]]) -> [[UInt8]] {
        var unescaped = ""
        var iterator = value.makeIterator()
        while let character = iterator.next() {
            guard character == "\\", let next = iterator.next() else {
                unescaped.append(character)
                continue
            }
            switch next {
            case "s": unescaped.append(" ")
            case "n": unescaped.append("\n")
            case "t": unescaped.append("\t")
            default: unescaped.append(next)
            }
        }
        var words: [String] = []
        var word = ""
        var quoted = false
        var escaping = false
        var started = false
        for character in unescaped {
            if escaping {
                word.append(character)
                escaping = false
                continue
            }
            if quoted && character == "\\" {
                escaping = true
                continue
            }
            if character == "\"" {
                quoted.toggle()
                started = true
                continue
            }
            if character == " " && !quoted {
                if started || !word.isEmpty { words.append(word) }
                word = ""
                started = false
                continue
            }
            word.append(character)
        }
        if started || !word.isEmpty { words.append(word) }
        return words.flatMap { $0 == "%F" ? files : [Array($0.replacingOccurrences(of: "%%", with: "%").utf8)] }
    }

    /// The value of `key=` in `text`'s group `group`.
    static func keyValue(_ text: String, group: String, key: String) -> String? {
        var inGroup = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("[") {
                inGroup = line == "[\(group)]"
                continue
            }
            if inGroup, line.hasPrefix(key + "=") { return String(line.dropFirst(key.count + 1)) }
        }
        return nil
    }

    /// The `<command>` of our Thunar action `id`, XML entities decoded.
    static func thunarCommand(_ xml: String, id: String) -> String? {
        guard let idRange = xml.range(of: "<unique-id>offconvert-\(id)</unique-id>"),
            let start = xml.range(of: "<command>", range: idRange.upperBound..<xml.endIndex),
            let end = xml.range(of: "</command>", range: start.upperBound..<xml.endIndex)
        else { return nil }
        return String(xml[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The argv each file manager starts for action `id` on `names` (relative to `folder`).
    static func commandLine(_ manager: String, id: String, home: Home, folder: String, names: [[UInt8]]) throws
        -> [[UInt8]]
    {
        let absolute = names.map { Array((folder + "/").utf8) + $0 }
        switch manager {
        case "nautilus":
            // Nautilus runs the script itself, in the folder shown, with the names as arguments.
            let label = ["convert-to-jpeg": "Convert to JPEG", "show-info": "Show what is in this file"][id] ?? id
            return [Array((home.data + "/nautilus/scripts/offconvert/" + label).utf8)] + names
        case "nemo":
            let text = try String(
                contentsOfFile: home.data + "/nemo/actions/offconvert-\(id).nemo_action", encoding: .utf8)
            let exec = try #require(keyValue(text, group: "Nemo Action", key: "Exec"))
            return shell(exec, absolute)
        case "dolphin":
            let text = try String(
                contentsOfFile: home.data + "/kio/servicemenus/offconvert-\(id).desktop", encoding: .utf8)
            let exec = try #require(keyValue(text, group: "Desktop Action run", key: "Exec"))
            return desktopExec(exec, files: absolute)
        default:
            let command = try #require(thunarCommand(try String(contentsOfFile: home.uca, encoding: .utf8), id: id))
            return shell(command, absolute)
        }
    }

    /// Thunar and Nemo put the quoted paths in place of %F and split the line like a shell
    /// (g_shell_parse_argv); /bin/sh does the same split here.
    static func shell(_ command: String, _ files: [[UInt8]]) -> [[UInt8]] {
        let parts = command.components(separatedBy: "%F")
        let quoted = files.map(shellQuote).joined(separator: [UInt8(ascii: " ")])
        let line =
            Array(parts[0].replacingOccurrences(of: "%%", with: "%").utf8) + quoted
            + Array(parts.dropFirst().joined(separator: "%F").replacingOccurrences(of: "%%", with: "%").utf8)
        return [Array("/bin/sh".utf8), Array("-c".utf8), line]
    }

    @Test(
        "each file manager's command line, run as it runs it, converts names that need quoting next to them",
        arguments: ["nautilus", "nemo", "dolphin", "thunar"])
    func hostileNames(_ manager: String) async throws {
        let home = try Home()
        defer { home.remove() }
        #expect(try await home.offconvert(["desktop", "install"]).status == 0)
        let photo = try Data(contentsOf: CLIRunner.media.appendingPathComponent("photos/zPug_3.heic"))
        for name in Self.hostileNames {
            let path = Array((home.files + "/").utf8) + name + [0]
            let fd = path.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
            }
            #expect(fd >= 0)
            _ = photo.withUnsafeBytes { write(fd, $0.baseAddress, photo.count) }
            close(fd)
        }
        let argv = try Self.commandLine(
            manager, id: "convert-to-jpeg", home: home, folder: home.files, names: Self.hostileNames)
        var environment = home.environment()
        if manager == "nautilus" {
            environment["NAUTILUS_SCRIPT_SELECTED_FILE_PATHS"] = Self.hostileNames.map {
                home.files + "/" + String(decoding: $0, as: UTF8.self)
            }
            .joined(separator: "\n")
            environment["NAUTILUS_SCRIPT_CURRENT_URI"] = "file://" + home.files
        }
        let outcome = await RawSpawn.run(argv, environment: environment, directory: home.files)
        #expect(outcome.status == 0, "\(manager): \(outcome.stderr)")
        let entries = UserFolder.rawNames(Array(home.files.utf8))
        let jpegs = entries.filter { $0.reversed().starts(with: Array("gpj.".utf8)) }
        let jpegNames = jpegs.map { String(decoding: $0, as: UTF8.self) }
        #expect(jpegs.count == 4, "\(manager): \(jpegNames)")
        #expect(jpegNames.contains("with space.jpg") && jpegNames.contains("it's \"quoted\".jpg"), "\(jpegNames)")
        // The output keeps the name's own bytes: 0xFF, not U+FFFD's three.
        #expect(jpegs.contains(Array("bad".utf8) + [0xFF] + Array("byte.jpg".utf8)), "\(jpegNames)")
        for jpeg in jpegs {
            let decoded = await RawSpawn.run(
                [Array("/usr/bin/djpeg".utf8), Array("-outfile".utf8), Array("/dev/null".utf8), jpeg],
                environment: CLIRunner.childEnvironment, directory: home.files)
            #expect(decoded.status == 0, "\(String(decoding: jpeg, as: UTF8.self)): \(decoded.stderr)")
        }
        // Four photos and four JPEGs, nothing else.
        #expect(entries.count == 8, "\(entries.map { String(decoding: $0, as: UTF8.self) })")
        let shown = home.notifications()
        #expect(shown.count == 1)
        #expect(shown.first?.contains("offconvert: Convert to JPEG") == true)
        #expect(shown.first?.last?.hasPrefix("4 done") == true, "\(shown)")
    }

    @Test(
        "every action runs from its Dolphin entry on a file it fits; the notification has the summary, and the first error on failure"
    )
    func everyAction() async throws {
        let home = try Home()
        defer { home.remove() }
        #expect(try await home.offconvert(["desktop", "install"]).status == 0)
        let inputs = [
            ("convert-to-jpeg", "photos/zPug_3.heic", "pug.heic"),
            ("send-to-windows", "video/sample.mp4", "clip one.mp4"),
            ("email", "video/bikes.mp4", "bikes.mp4"), ("remove-location", "photos/DSCN0010.jpg", "camera.jpg"),
            ("show-info", "photos/DSCN0010.jpg", "camera.jpg"),
        ]
        for (id, media, name) in inputs {
            let target = home.files + "/" + name
            if !FileManager.default.fileExists(atPath: target) {
                try FileManager.default.copyItem(
                    atPath: CLIRunner.media.appendingPathComponent(media).path, toPath: target)
            }
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: home.files))
            let argv = try Self.commandLine(
                "dolphin", id: id, home: home, folder: home.files, names: [Array(name.utf8)])
            let outcome = await RawSpawn.run(argv, environment: home.environment(), directory: home.root)
            #expect(outcome.status == 0, "\(id): \(outcome.stderr)")
            let made = Set(try FileManager.default.contentsOfDirectory(atPath: home.files)).subtracting(before)
            let shown = try #require(home.notifications().last)
            #expect(
                shown.contains(
                    "offconvert: \(["convert-to-jpeg": "Convert to JPEG", "send-to-windows": "Send to a Windows PC", "email": "Make small enough to e-mail", "remove-location": "Remove location", "show-info": "Show what is in this file"][id] ?? "")"
                ), "\(shown)")
            if id == "show-info" {
                #expect(made.isEmpty)
                #expect(shown.last?.contains("location") == true, "\(shown)")
            } else {
                #expect(made.count == 1, "\(id): \(made)")
                #expect(shown.last?.hasPrefix("1 done") == true, "\(id): \(shown)")
                for file in made {
                    let probe = Self.tool("/usr/bin/ffprobe", ["-v", "error", home.files + "/" + file])
                    #expect(probe.status == 0, "\(file): \(probe.output)")
                }
            }
        }
        #expect(home.notifications().count == inputs.count)

        // A damaged photo (a HEIC cut short): the notification is urgent and names the first error.
        let whole = try Data(contentsOf: URL(fileURLWithPath: home.files + "/pug.heic"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: home.files + "/broken.heic"))
        try FileManager.default.copyItem(atPath: home.files + "/pug.heic", toPath: home.files + "/second.heic")
        let argv = try Self.commandLine(
            "dolphin", id: "convert-to-jpeg", home: home, folder: home.files,
            names: [Array("broken.heic".utf8), Array("second.heic".utf8)])
        let failed = await RawSpawn.run(argv, environment: home.environment(), directory: home.root)
        #expect(failed.status == 1)
        let shown = try #require(home.notifications().last)
        #expect(shown.contains("--urgency=critical"))
        let body = shown.last ?? ""
        #expect(body.hasPrefix("1 done, 1 failed"), "\(body)")
        #expect(body.contains("\nError: ") && body.contains("broken.heic"), "\(body)")
        #expect(FileManager.default.fileExists(atPath: home.files + "/second.jpg"))

        // Without notify-send the action still works.
        let count = home.notifications().count
        try FileManager.default.copyItem(atPath: home.files + "/pug.heic", toPath: home.files + "/third.heic")
        let quiet = try Self.commandLine(
            "dolphin", id: "convert-to-jpeg", home: home, folder: home.files, names: [Array("third.heic".utf8)])
        let plain = await RawSpawn.run(quiet, environment: home.environment(notify: false), directory: home.root)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.files + "/third.jpg"))
        #expect(home.notifications().count == count)
    }
}
