import FoundationEssentials

/// The motion-photo properties of an XMP packet, read by local name whatever the prefix:
/// Google's own files bind the camera namespace to `Camera:` (Pixel 3) or `GCamera:` (later),
/// and writers use both the attribute and the element form of RDF.
enum MotionXMP {
    /// One `Container:Item` of a Google container directory.
    package struct Item: Sendable, Equatable {
        var mime: String?
        fileprivate var semantic: String?
        package var length: Int?
        package var padding: Int?

        /// Whether this item is the motion part.
        package var isVideo: Bool { semantic == "MotionPhoto" || (mime?.hasPrefix("video/") ?? false) }
    }

    /// The value of the first property with local name `name` (`GCamera:MotionPhoto="1"` or
    /// `<GCamera:MotionPhoto>1</GCamera:MotionPhoto>`), or nil.
    package static func flag(_ text: String, _ name: String) -> String? {
        let attribute = "[\\s<][A-Za-z0-9_]+:" + name + "\\s*=\\s*[\"']([^\"']*)[\"']"
        let element = "<[A-Za-z0-9_]+:" + name + ">([^<]*)<"
        for pattern in [attribute, element] {
            guard let value = text.firstCapture(of: pattern) else { continue }
            return value.trimmingWhitespaceAndNewlines()
        }
        return nil
    }

    /// The items of the container directory, in order; nil when there is none.
    package static func items(_ text: String) -> [Item]? {
        let starts = text.matchStarts(of: "<[A-Za-z0-9_]+:Item[\\s>/]")
        guard !starts.isEmpty else { return nil }
        return starts.enumerated().map { index, lower in
            let upper = index + 1 < starts.count ? starts[index + 1] : text.endIndex
            let chunk = String(text[lower..<upper])
            return Item(
                mime: flag(chunk, "Mime"), semantic: flag(chunk, "Semantic"),
                length: flag(chunk, "Length").flatMap { Int($0) }, padding: flag(chunk, "Padding").flatMap { Int($0) })
        }
    }

    /// The properties that point at the video, removed by `strip-motion` (regular expressions
    /// over qualified names, for ``XMP/removing(_:from:)``).
    fileprivate static let pointerProperties: [String] = [
        "[A-Za-z0-9_]+:MotionPhoto[A-Za-z]*", "[A-Za-z0-9_]+:MicroVideo[A-Za-z]*",
    ]

    /// `packet` as it is when it names no motion part, else without the pointers (a converted
    /// still has no video, and a pointer to one would send readers looking); nil when it names
    /// one but cannot be edited, so the caller drops it.
    static func withoutPointers(_ packet: [UInt8]) -> [UInt8]? {
        guard let text = String(validating: packet, as: UTF8.self) else { return packet }
        guard text.contains(":MotionPhoto") || text.contains(":MicroVideo") else { return packet }
        return removingPointers(from: packet)
    }

    /// `packet` without the motion pointers: the flags, and the container directory when it
    /// lists nothing but the primary image and the video (otherwise only the video's entry goes,
    /// so a gain map it also lists is still found). Nil when the packet is not editable text.
    static func removingPointers(from packet: [UInt8]) -> [UInt8]? {
        guard let stripped = XMP.removing(pointerProperties, from: packet),
            var text = String(validating: stripped, as: UTF8.self)
        else { return nil }
        let items = Self.items(text) ?? []
        if items.filter({ !$0.isVideo }).count <= 1 {
            text = text.removingMatches(of: "<([A-Za-z0-9_]+:Directory)(\\s[^>]*)?>[\\s\\S]*?</\\1>")
        } else {
            // The entry of the video item: an rdf:li holding an Item whose Semantic is MotionPhoto.
            text = text.removingMatches(
                of:
                    "<rdf:li(\\s[^>]*)?>(?:(?!</rdf:li>)[\\s\\S])*?:Semantic\\s*=\\s*[\"']MotionPhoto[\"'][\\s\\S]*?</rdf:li>"
            )
        }
        return Array(text.utf8)
    }
}
