import FoundationEssentials

/// A file `offconvert desktop install` writes.
package struct DesktopFile: Sendable, Equatable {
    /// Where it goes (absolute).
    package var path: String
    /// Its text.
    package var contents: String
    /// Whether it gets the executable bit (Nautilus scripts; Dolphin trusts only executable
    /// service menus in the user's folder).
    package var executable: Bool
}

/// The folders the file managers read their user actions from, following the XDG base
/// directories: `$XDG_DATA_HOME` (default `~/.local/share`) and `$XDG_CONFIG_HOME` (default
/// `~/.config`). A relative XDG value is ignored, as the spec requires.
package struct DesktopPlaces: Sendable {
    var dataHome: String
    var configHome: String

    package init(environment: [String: String]) {
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        func base(_ key: String, _ fallback: String) -> String {
            guard let value = environment[key], value.hasPrefix("/") else { return home + "/" + fallback }
            return value
        }
        dataHome = base("XDG_DATA_HOME", ".local/share")
        configHome = base("XDG_CONFIG_HOME", ".config")
    }

    /// GNOME Files' scripts, in a submenu "offconvert".
    var nautilusScripts: String { dataHome + "/nautilus/scripts/offconvert" }
    /// Nemo's actions.
    var nemoActions: String { dataHome + "/nemo/actions" }
    /// Dolphin's (KIO's) service menus, KDE Frameworks 5.85 and later.
    var serviceMenus: String { dataHome + "/kio/servicemenus" }
    /// Thunar's custom actions.
    var thunarActions: String { configHome + "/Thunar/uca.xml" }
}

/// The menu files of every file manager but Thunar (whose actions share one file with the
/// user's own, see ``ThunarActions``). Each runs `offconvert desktop run ACTION -- FILES...`
/// with the selection as separate arguments (`%F`, or the arguments Nautilus passes a script),
/// never as a word-split string, so any byte of a name survives.
package enum DesktopMenus {
    /// The key (in .desktop and .nemo_action files) or comment (in scripts) that marks a file
    /// as ours: uninstall removes only files carrying it.
    package static let marker = "X-Offconvert-Action"

    /// The files for `actions`, running `executable` (the `offconvert` launcher's absolute path).
    package static func files(_ actions: [DesktopAction], places: DesktopPlaces, executable: String) -> [DesktopFile] {
        var files: [DesktopFile] = []
        for action in actions {
            files.append(
                DesktopFile(
                    path: places.nautilusScripts + "/" + action.label,
                    contents: nautilusScript(action, executable: executable),
                    executable: true))
            files.append(
                DesktopFile(
                    path: places.nemoActions + "/offconvert-\(action.id).nemo_action",
                    contents: nemoAction(action, executable: executable),
                    executable: false))
            files.append(
                DesktopFile(
                    path: places.serviceMenus + "/offconvert-\(action.id).desktop",
                    contents: serviceMenu(action, executable: executable),
                    executable: true))
        }
        return files
    }

    /// The words after the executable in every menu's command line.
    static func arguments(_ action: DesktopAction) -> String { "desktop run \(action.id) --" }

    /// A Nautilus script. Nautilus runs it in the folder shown with the selected files as its
    /// arguments (names relative to that folder), so `"$@"` passes them on untouched; its
    /// newline-separated NAUTILUS_SCRIPT_SELECTED_FILE_PATHS cannot carry a name with a newline.
    static func nautilusScript(_ action: DesktopAction, executable: String) -> String {
        """
        #!/bin/sh
        # \(marker): \(action.id)
        # \(action.label): \(action.comment)
        # Installed by 'offconvert desktop install'; 'offconvert desktop uninstall' removes it.
        exec \(shellQuoted(executable)) \(arguments(action)) "$@"

        """
    }

    /// A Nemo action: Nemo puts each selected path, quoted, in place of `%F`.
    static func nemoAction(_ action: DesktopAction, executable: String) -> String {
        """
        [Nemo Action]
        Name=\(action.label)
        Comment=\(action.comment)
        Exec=\(tokenSafe(shellQuoted(executable))) \(arguments(action)) %F
        Icon-Name=\(action.icon)
        Selection=notnone
        Mimetypes=\(action.mimeTypes.joined(separator: ";"));
        \(marker)=\(action.id)

        """
    }

    /// A KDE service menu (Dolphin): `%F` is the selected files, one argument each.
    static func serviceMenu(_ action: DesktopAction, executable: String) -> String {
        """
        [Desktop Entry]
        Type=Service
        Name=\(action.label)
        MimeType=\(action.mimeTypes.joined(separator: ";"));
        Actions=run;
        X-KDE-ServiceTypes=KonqPopupMenu/Plugin
        X-KDE-Priority=TopLevel
        \(marker)=\(action.id)

        [Desktop Action run]
        Name=\(action.label)
        Icon=\(action.icon)
        Exec=\(desktopQuoted(executable)) \(arguments(action)) %F

        """
    }

    /// `word` for a POSIX shell (and GLib's g_shell_parse_argv): bare when safe, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@")
        if !word.isEmpty && word.allSatisfy({ safe.contains($0) }) { return word }
        return "'" + word.replacing("'", with: "'\\''") + "'"
    }

    /// `word` as one argument of a Desktop Entry `Exec` value: bare when it has no reserved
    /// character, else in double quotes with `"`, `` ` ``, `$` and `\` escaped; then every `\`
    /// doubled, because the value itself is a string in which `\\` stands for `\`.
    static func desktopQuoted(_ word: String) -> String {
        let reserved = Set(" \t\n\"'\\><~|&;$*?#()`=%")
        guard word.contains(where: { reserved.contains($0) }) else { return word }
        var quoted = "\""
        for character in word {
            if "\"`$\\".contains(character) { quoted.append("\\") }
            quoted.append(character)
        }
        quoted.append("\"")
        return tokenSafe(quoted.replacing("\\", with: "\\\\"))
    }

    /// `text` with `%` doubled, where the file manager expands `%F`-style field codes.
    static func tokenSafe(_ text: String) -> String { text.replacing("%", with: "%%") }
}
