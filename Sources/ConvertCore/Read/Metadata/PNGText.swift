/// The XMP packet of a PNG: an uncompressed `iTXt` chunk with the keyword `XML:com.adobe.xmp`.
/// Read by the image probe; the location stripper edits the same chunk.
package enum PNGText {
    /// The uncompressed XMP packet of a PNG's `iTXt` chunk, if it has one (for the probe).
    package static func xmp(_ data: [UInt8]) -> [UInt8]? {
        for found in PNGChunks(data) where found.type == "iTXt" {
            let chunk = Array(data[found.body])
            if let start = textStart(chunk), chunk[18] == 0 { return Array(chunk[start...]) }
        }
        return nil
    }

    /// Where the text of an XMP `iTXt` chunk starts: after the keyword, compression flag and
    /// method, language tag and translated keyword. Nil for other chunks or a damaged one.
    package static func textStart(_ chunk: [UInt8]) -> Int? {
        guard chunk.starts(with: Array("XML:com.adobe.xmp".utf8) + [0]), chunk.count > 19 else { return nil }
        var start = 20
        for _ in 0..<2 {
            while start < chunk.count && chunk[start] != 0 { start += 1 }
            start += 1
        }
        return start <= chunk.count ? start : nil
    }
}

extension PNGText {
    /// One text chunk of a PNG (tEXt, zTXt or iTXt) but the XMP packet.
    package struct Entry: Sendable, Equatable {
        /// The chunk it came in, which a PNG output writes again.
        package enum Kind: UInt8, Sendable {
            case text = 0, compressedText, internationalText, compressedInternationalText
        }
        package var kind: Kind
        /// "Title", "Author", "Description", "Copyright", "Comment", ... (PNG 3rd edition,
        /// 11.3.3.2): Latin-1 in every kind of text chunk, one character a byte.
        package var keyword: String
        /// An iTXt's language tag and translated keyword ("" for tEXt and zTXt).
        package var language = ""
        package var translatedKeyword = ""
        /// The text, decompressed: Latin-1 for tEXt and zTXt, UTF-8 for iTXt (kept as bytes, so a
        /// PNG output writes it back unchanged).
        package var text: [UInt8]

        /// The text as a string, read in the encoding of its chunk.
        package var string: String {
            switch kind {
            case .internationalText, .compressedInternationalText: String(decoding: text, as: UTF8.self)
            case .text, .compressedText: String(text.map { Character(Unicode.Scalar($0)) })
            }
        }
    }

    /// The entries of the list the PNG shim serialises (see `offc_png_encode_file`): a kind byte,
    /// then keyword, language, translated keyword and text, each ended by a NUL. A malformed tail
    /// is left out.
    static func entries(_ bytes: [UInt8]) -> [Entry] {
        var entries: [Entry] = []
        var at = 0
        while at < bytes.count, let kind = Entry.Kind(rawValue: bytes[at]) {
            var parts: [[UInt8]] = []
            at += 1
            while parts.count < 4, let end = bytes[at...].firstIndex(of: 0) {
                parts.append(Array(bytes[at..<end]))
                at = end + 1
            }
            guard parts.count == 4 else { break }
            entries.append(
                Entry(
                    kind: kind, keyword: String(parts[0].map { Character(Unicode.Scalar($0)) }),
                    language: String(decoding: parts[1], as: UTF8.self),
                    translatedKeyword: String(decoding: parts[2], as: UTF8.self), text: parts[3]))
        }
        return entries
    }

    /// `entries` serialised for `offc_png_encode_file`.
    static func serialised(_ entries: [Entry]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries {
            bytes.append(entry.kind.rawValue)
            // The keyword back to its Latin-1 bytes (a character past U+00FF cannot be in one).
            let keyword = entry.keyword.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
            for part in [keyword, Array(entry.language.utf8), Array(entry.translatedKeyword.utf8)] {
                bytes += part.filter { $0 != 0 }
                bytes.append(0)
            }
            bytes += entry.text.filter { $0 != 0 }
            bytes.append(0)
        }
        return bytes
    }

    /// The standard keywords (PNG 3rd edition, 11.3.3.2) that say what the picture is and whose
    /// it is, and the Dublin Core properties that say the same in XMP: what a shared copy keeps,
    /// as it keeps `dc:` in XMP (``XMPAllowList``). The other keywords (Comment, Software, Source,
    /// Disclaimer, Warning, a program's own) may hold anything and go.
    static let dublinCore: [(keyword: String, property: String, container: String)] = [
        ("Title", "dc:title", "rdf:Alt"), ("Author", "dc:creator", "rdf:Seq"),
        ("Description", "dc:description", "rdf:Alt"), ("Copyright", "dc:rights", "rdf:Alt"),
    ]

    /// Whether a shared copy keeps `entry` (its keyword is one of ``dublinCore``'s).
    static func isShareSafe(_ entry: Entry) -> Bool {
        dublinCore.contains { $0.keyword == entry.keyword }
    }

    /// `packet` (or a new packet) with the standard keywords of `entries` it lacks added as Dublin
    /// Core properties, for an output that has no text chunks: the picture's title, author,
    /// description and copyright are not lost. Nil when there is nothing to add and no packet.
    static func xmp(adding entries: [Entry], to packet: [UInt8]?) -> [UInt8]? {
        let existing = packet.flatMap { String(validating: $0, as: UTF8.self) } ?? ""
        if packet != nil && existing.isEmpty { return packet }
        var properties: [String] = []
        for (keyword, property, container) in dublinCore where !existing.contains(property) {
            guard let entry = entries.first(where: { $0.keyword == keyword && !$0.text.isEmpty }) else { continue }
            let value = XMP.escaped(entry.string)
            let item =
                container == "rdf:Alt"
                ? "<rdf:li xml:lang=\"x-default\">\(value)</rdf:li>" : "<rdf:li>\(value)</rdf:li>"
            properties.append("<\(property)><\(container)>\(item)</\(container)></\(property)>")
        }
        return XMP.adding(properties, namespaces: [("dc", "http://purl.org/dc/elements/1.1/")], to: packet)
    }
}
