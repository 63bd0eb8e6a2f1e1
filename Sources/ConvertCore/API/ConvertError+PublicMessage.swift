extension ConvertError {
    /// ``message`` for anyone to read, such as the person who uploaded a file to a server that
    /// converts it: the file concerned (``path``) is "the file", any other path the message names
    /// is "a file", and the libraries offconvert is built on are not named ("which offconvert
    /// cannot decode", not "which this build of FFmpeg cannot decode"). ``path`` still says which
    /// file it was, for the app's own use; ``message`` is the same text with the paths, for a
    /// person at their own computer (the CLI shows it).
    public var publicMessage: String {
        var text = message
        if let path, !path.isEmpty { text = text.replacing(path, with: "the file") }
        text = PublicText.withoutPaths(text)
        for (name, replacement) in PublicText.libraryPhrases {
            text = text.replacing(name, with: replacement)
        }
        return PublicText.capitalizingFirst(text)
    }
}

/// The rewriting behind ``ConvertError/publicMessage``.
private enum PublicText {
    /// Phrases naming a library, most specific first, and what an outsider reads instead.
    static let libraryPhrases: [(String, String)] =
        [
            ("this build of FFmpeg", "offconvert"),
            ("a movie box FFmpeg wrote badly", "a movie box that came out damaged"),
            ("libheif's x265 (HEVC) encoder plugin", "an HEVC encoder"),
            ("an AV1 encoder plugin for libheif (aom, rav1e or SVT-AV1)", "an AV1 encoder"),
            (" (libheif's AV1 encoder fails on 10-bit input)", ""),
            (" (libwebp version mismatch)", ""),
            ("libjxl error", "error"),
            ("unknown libheif error", "unknown error"),
        ]
        + ["FFmpeg", "libheif", "libde265", "libjxl", "libwebp", "libjpeg", "libpng", "libtiff", "TurboJPEG", "lcms2"]
        .map {
            ($0, "offconvert")
        }

    /// `text` with every absolute path replaced by "a file": a word that starts with `/` (at the
    /// start, after a space, a quote or a bracket) up to the next space, quote, bracket, comma or
    /// semicolon, with a sentence's closing `.` or `:` kept; words after it that hold a `/` or end
    /// in a file extension are the same path (a name with a space in it).
    static func withoutPaths(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let slash = firstPathStart(in: rest) {
            result += rest[..<slash]
            var end = pathWordEnd(in: rest, from: slash)
            while end < rest.endIndex, rest[end] == " " {
                let next = rest.index(after: end)
                let wordEnd = pathWordEnd(in: rest, from: next)
                guard next < wordEnd, continuesPath(rest[next..<wordEnd]) else { break }
                end = wordEnd
            }
            var trimmed = end
            while trimmed > slash, ".:".contains(rest[rest.index(before: trimmed)]) {
                trimmed = rest.index(before: trimmed)
            }
            result += "a file"
            rest = rest[trimmed...]
        }
        return result + rest
    }

    /// Whether `word`, after a path and a space, is more of it: it holds a `/` (a folder name
    /// with a space) or ends in a file extension ("my clip.mp4").
    private static func continuesPath(_ word: Substring) -> Bool {
        if word.contains("/") { return true }
        let bare = word.reversed().drop(while: { ".:".contains($0) }).reversed()
        guard let dot = bare.lastIndex(of: "."), dot > bare.startIndex else { return false }
        let suffix = bare[bare.index(after: dot)...]
        return (1...5).contains(suffix.count) && suffix.allSatisfy { $0.isLetter || $0.isNumber }
    }

    private static let pathStops: Set<Character> = [" ", "\"", "'", "(", ")", ",", ";", "“", "”", "‘", "’", "\n"]

    /// Where the first path of `text` starts: a `/` at the start or after a stop character.
    private static func firstPathStart(in text: Substring) -> Substring.Index? {
        var previous: Character?
        for index in text.indices {
            if text[index] == "/", previous == nil || pathStops.contains(previous!) { return index }
            previous = text[index]
        }
        return nil
    }

    /// The end of the word starting at `start`: the next stop character or the end.
    private static func pathWordEnd(in text: Substring, from start: Substring.Index) -> Substring.Index {
        text[start...].firstIndex(where: { pathStops.contains($0) }) ?? text.endIndex
    }

    /// `text` with its first letter upper-case ("the file is damaged" starts a sentence).
    static func capitalizingFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }
}
