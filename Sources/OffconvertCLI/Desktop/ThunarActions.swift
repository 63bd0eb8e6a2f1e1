/// Thunar's custom actions file (`uca.xml`), which holds the user's own actions too: ours are
/// merged in and taken out by their `<unique-id>` prefix, and every other byte of the file is
/// kept as it was (the user's actions, comments, formatting).
///
/// The file is one `<actions>` element whose children are `<action>` elements that do not nest,
/// so a small reader that splits the root's content into action blocks and the text between
/// them is enough; a file it cannot read that way is refused, never rewritten.
package enum ThunarActions {
    /// Starts the `<unique-id>` of every action offconvert installs.
    static let idPrefix = "offconvert-"

    /// A `uca.xml` that could not be read as Thunar's: left alone, and the install says so.
    package struct Unreadable: Error, Sendable {
        package var reason: String
    }

    /// The parts of a `uca.xml`: everything up to the root's content, the content's pieces
    /// (action blocks and the text between them, in order), and the closing tag onwards.
    struct Parts {
        var head: String
        var pieces: [Piece]
        var tail: String
    }

    enum Piece {
        case text(String)
        case action(String)

        var isOurs: Bool {
            guard case .action(let block) = self else { return false }
            return block.contains("<unique-id>" + ThunarActions.idPrefix)
        }
    }

    /// A new file's text.
    static let empty = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<actions>\n</actions>\n"

    /// `existing` (nil when there is no file) with offconvert's actions replaced by `actions`.
    package static func merged(_ existing: String?, actions: [DesktopAction], executable: String) throws(Unreadable)
        -> String
    {
        var parts = try split(existing ?? empty)
        parts.pieces = withoutOurs(parts.pieces)
        for action in actions {
            parts.pieces.append(.text("\n"))
            parts.pieces.append(.action(block(action, executable: executable)))
        }
        parts.pieces.append(.text("\n"))
        return join(parts)
    }

    /// `existing` without offconvert's actions; nil when it has none (nothing to rewrite).
    package static func removed(_ existing: String) throws(Unreadable) -> String? {
        var parts = try split(existing)
        guard parts.pieces.contains(where: \.isOurs) else { return nil }
        parts.pieces = withoutOurs(parts.pieces)
        return join(parts)
    }

    /// The `unique-id`s of the actions in `text`, in order (for tests and `--dry-run`).
    static func uniqueIDs(_ text: String) throws(Unreadable) -> [String] {
        try split(text).pieces.compactMap { piece in
            guard case .action(let block) = piece, let start = block.firstRange(of: "<unique-id>"),
                let end = block[start.upperBound..<block.endIndex].firstRange(of: "</unique-id>")
            else { return nil }
            return String(block[start.upperBound..<end.lowerBound])
        }
    }

    /// Drops our action blocks and the whitespace line each one stood on.
    private static func withoutOurs(_ pieces: [Piece]) -> [Piece] {
        var kept: [Piece] = []
        for piece in pieces {
            if piece.isOurs {
                if case .text(let text)? = kept.last, text.allSatisfy(\.isWhitespace) { kept.removeLast() }
                continue
            }
            kept.append(piece)
        }
        return kept
    }

    private static func join(_ parts: Parts) -> String {
        var text = parts.head
        for piece in parts.pieces {
            switch piece {
            case .text(let chunk), .action(let chunk): text += chunk
            }
        }
        // Whitespace runs left by removals are folded so repeated installs do not grow the file.
        while text.contains("\n\n\n") { text = text.replacing("\n\n\n", with: "\n\n") }
        return text + parts.tail
    }

    /// Splits `text` into the root's head, its content's pieces and its tail.
    static func split(_ text: String) throws(Unreadable) -> Parts {
        guard let open = rootStart(text) else { throw Unreadable(reason: "it has no <actions> element") }
        guard let close = text.lastRange(of: "</actions>"), close.lowerBound >= open else {
            throw Unreadable(reason: "its <actions> element is not closed")
        }
        var pieces: [Piece] = []
        var index = open
        var pending = ""
        while index < close.lowerBound {
            let rest = text[index..<close.lowerBound]
            if rest.hasPrefix("<!--") {
                guard let end = rest.firstRange(of: "-->") else { throw Unreadable(reason: "a comment is not closed") }
                pending += rest[..<end.upperBound]
                index = end.upperBound
            } else if rest.hasPrefix("<action>") || rest.hasPrefix("<action ") {
                guard let end = rest.firstRange(of: "</action>") else {
                    throw Unreadable(reason: "an <action> is not closed")
                }
                if !pending.isEmpty { pieces.append(.text(pending)) }
                pending = ""
                pieces.append(.action(String(rest[..<end.upperBound])))
                index = end.upperBound
            } else {
                pending.append(text[index])
                index = text.index(after: index)
            }
        }
        if !pending.isEmpty { pieces.append(.text(pending)) }
        return Parts(head: String(text[..<open]), pieces: pieces, tail: String(text[close.lowerBound...]))
    }

    /// Where the content of the root `<actions>` element starts (after its start tag).
    private static func rootStart(_ text: String) -> String.Index? {
        var search = text.startIndex
        while let found = text[search..<text.endIndex].firstRange(of: "<actions") {
            let after = text[found.upperBound...]
            if let next = after.first, next == ">" || next.isWhitespace, let end = after.firstIndex(of: ">") {
                return text.index(after: end)
            }
            search = found.upperBound
        }
        return nil
    }

    /// One action's block. Thunar puts each selected path, shell-quoted, in place of `%F`.
    static func block(_ action: DesktopAction, executable: String) -> String {
        let patterns = action.extensions.flatMap { ["*.\($0)", "*.\($0.uppercased())"] }.joined(separator: ";")
        var lines = [
            "<action>",
            "\t<icon>\(escaped(action.icon))</icon>",
            "\t<name>\(escaped(action.label))</name>",
            "\t<submenu></submenu>",
            "\t<unique-id>\(idPrefix)\(action.id)</unique-id>",
            "\t<command>\(escaped(DesktopMenus.tokenSafe(DesktopMenus.shellQuoted(executable)) + " " + DesktopMenus.arguments(action) + " %F"))</command>",
            "\t<description>\(escaped(action.comment))</description>",
            "\t<range>*</range>",
            "\t<patterns>\(escaped(patterns))</patterns>",
        ]
        if action.forPhotos { lines.append("\t<image-files/>") }
        if action.forVideos { lines.append("\t<video-files/>") }
        lines.append("</action>")
        return lines.joined(separator: "\n")
    }

    /// `text` as XML character data.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
