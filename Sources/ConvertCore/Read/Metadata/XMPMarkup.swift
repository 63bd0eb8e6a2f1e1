/// A strict, bounded scanner of the XML an XMP packet is written in: it reports each tag, text
/// run, comment and processing instruction with its byte range, and fails (returns false) on
/// anything that is not well-formed XML, so an editor working from its ranges never has to guess.
///
/// Strict where XMP writers never go: a DOCTYPE (entity definitions are a denial-of-service
/// vector for later readers), unknown entity references, a `<` in an attribute value, a second
/// colon in a name, an end tag that does not match. Work is one pass over the bytes; the open
/// elements are bounded by ``maximumDepth``, so hostile input costs time linear in its size.
enum XMPMarkup {
    /// One attribute of a start tag.
    struct Attribute {
        /// The qualified name (`exif:GPSLatitude`).
        var name: Range<Int>
        /// The value between the quotes, entity references unresolved.
        var value: Range<Int>
        /// The attribute with the whitespace before it: what removing it takes out.
        var span: Range<Int>
    }

    /// A start tag, or an empty-element tag (`<a/>`).
    struct StartTag {
        /// The qualified name.
        var name: Range<Int>
        /// The attributes in order, namespace declarations included.
        var attributes: [Attribute]
        /// Whether the tag closes itself (`/>`): no content and no end tag follow.
        var isEmpty: Bool
        /// The whole tag, `<` to `>`.
        var span: Range<Int>
    }

    /// One piece of markup, in document order.
    enum Token {
        /// A start or empty-element tag.
        case start(StartTag)
        /// An end tag; `span` is the whole tag. An empty-element tag is followed by an `end` whose
        /// span is empty at the tag's end, so the caller handles one shape of element.
        case end(span: Range<Int>)
        /// Character data, or a CDATA section.
        case text(Range<Int>)
        /// A comment, `<!--` to `-->`.
        case comment(Range<Int>)
        /// A processing instruction (`<?xpacket ...?>`).
        case instruction(Range<Int>)
    }

    /// The deepest nesting accepted. Real packets nest a dozen levels (a history list of
    /// structures); thousands of levels are only ever an attack on a recursive reader.
    static let maximumDepth = 256

    /// Scans `bytes`, calling `visit` with each token in order; false as soon as the markup is
    /// not well-formed, or when `visit` returns false.
    static func scan(_ bytes: [UInt8], visit: (Token) -> Bool) -> Bool {
        var scanner = Scanner(bytes: bytes)
        return scanner.run(visit)
    }
}

extension XMPMarkup {
    /// The scanning state: a position and the names of the open elements.
    fileprivate struct Scanner {
        let bytes: [UInt8]
        var at = 0
        var open: [Range<Int>] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func run(_ visit: (Token) -> Bool) -> Bool {
            while at < bytes.count {
                let token: Token?
                if bytes[at] != UInt8(ascii: "<") {
                    token = text()
                } else if starts(with: "<!--") {
                    token = delimited(opening: 4, closing: "-->").map { .comment($0) }
                } else if starts(with: "<![CDATA[") {
                    guard !open.isEmpty else { return false }
                    token = delimited(opening: 9, closing: "]]>").map { .text($0) }
                } else if starts(with: "<?") {
                    token = delimited(opening: 2, closing: "?>").map { .instruction($0) }
                } else if starts(with: "</") {
                    token = endTag()
                } else if starts(with: "<!") {
                    // A DOCTYPE or another declaration: never in XMP.
                    return false
                } else {
                    guard let tag = startTag() else { return false }
                    guard visit(.start(tag)) else { return false }
                    if tag.isEmpty {
                        token = .end(span: tag.span.upperBound..<tag.span.upperBound)
                    } else {
                        guard open.count < maximumDepth else { return false }
                        open.append(tag.name)
                        continue
                    }
                }
                guard let token, visit(token) else { return false }
            }
            return open.isEmpty
        }

        func starts(with literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard at + count <= bytes.count else { return false }
            return literal.withUTF8Buffer { buffer in
                (0..<count).allSatisfy { bytes[at + $0] == buffer[$0] }
            }
        }

        /// Character data up to the next `<`; its entity references must be XML's own five or
        /// character references (no DTD defines others).
        mutating func text() -> Token? {
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: "<") {
                if bytes[at] == UInt8(ascii: "&") {
                    guard reference() else { return nil }
                } else {
                    // Control characters are not XML; NUL padding after the packet (some
                    // writers leave it) is kept as it is, outside any element.
                    guard bytes[at] >= 0x20 || Self.isWhitespace(bytes[at]) || (bytes[at] == 0 && open.isEmpty) else {
                        return nil
                    }
                    at += 1
                }
            }
            return .text(start..<at)
        }

        /// An entity or character reference at `at`; moves past it. False if it is not one.
        mutating func reference() -> Bool {
            let start = at + 1
            var end = start
            while end < bytes.count, end - start < 12, bytes[end] != UInt8(ascii: ";") { end += 1 }
            guard end < bytes.count, bytes[end] == UInt8(ascii: ";"), end > start else { return false }
            let body = bytes[start..<end]
            let named: [[UInt8]] = [
                Array("amp".utf8), Array("lt".utf8), Array("gt".utf8), Array("quot".utf8), Array("apos".utf8),
            ]
            let valid: Bool
            if body.first == UInt8(ascii: "#") {
                let digits = body.dropFirst()
                if digits.first == UInt8(ascii: "x") {
                    valid = digits.count > 1 && digits.dropFirst().allSatisfy(Self.isHexDigit)
                } else {
                    valid = !digits.isEmpty && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                }
            } else {
                valid = named.contains { $0.elementsEqual(body) }
            }
            at = end + 1
            return valid
        }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
        }

        /// A construct from `at` to the end of `closing`, `opening` bytes long at its start.
        mutating func delimited(opening: Int, closing: StaticString) -> Range<Int>? {
            let start = at
            at += opening
            while at < bytes.count {
                if starts(with: closing) {
                    at += closing.utf8CodeUnitCount
                    return start..<at
                }
                at += 1
            }
            return nil
        }

        mutating func endTag() -> Token? {
            let start = at
            at += 2
            guard let name = name(), let expected = open.popLast(),
                bytes[name].elementsEqual(bytes[expected])
            else { return nil }
            skipWhitespace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ">") else { return nil }
            at += 1
            return .end(span: start..<at)
        }

        mutating func startTag() -> StartTag? {
            let start = at
            at += 1
            guard let name = name() else { return nil }
            var attributes: [Attribute] = []
            var names: Set<ArraySlice<UInt8>> = []
            while true {
                let spaceStart = at
                skipWhitespace()
                guard at < bytes.count else { return nil }
                if bytes[at] == UInt8(ascii: ">") {
                    at += 1
                    return StartTag(name: name, attributes: attributes, isEmpty: false, span: start..<at)
                }
                if starts(with: "/>") {
                    at += 2
                    return StartTag(name: name, attributes: attributes, isEmpty: true, span: start..<at)
                }
                // XML requires whitespace between the name and each attribute.
                guard at > spaceStart, let attributeName = self.name(),
                    names.insert(bytes[attributeName]).inserted
                else { return nil }
                skipWhitespace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { return nil }
                at += 1
                skipWhitespace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else {
                    return nil
                }
                let quote = bytes[at]
                at += 1
                let valueStart = at
                while at < bytes.count, bytes[at] != quote {
                    if bytes[at] == UInt8(ascii: "<") || (bytes[at] < 0x20 && !Self.isWhitespace(bytes[at])) {
                        return nil
                    }
                    if bytes[at] == UInt8(ascii: "&") {
                        guard reference() else { return nil }
                    } else {
                        at += 1
                    }
                }
                guard at < bytes.count else { return nil }
                let value = valueStart..<at
                at += 1
                attributes.append(Attribute(name: attributeName, value: value, span: spaceStart..<at))
            }
        }

        /// An XML name with at most one colon, neither first nor last (namespace-well-formed).
        mutating func name() -> Range<Int>? {
            let start = at
            var colons = 0
            while at < bytes.count, Self.isNameByte(bytes[at], first: at == start) {
                if bytes[at] == UInt8(ascii: ":") { colons += 1 }
                at += 1
            }
            guard at > start, colons <= 1, bytes[at - 1] != UInt8(ascii: ":"),
                bytes[start] != UInt8(ascii: ":")
            else { return nil }
            return start..<at
        }

        /// Whether `byte` may be part of a name. Bytes of a multi-byte UTF-8 character are all
        /// accepted (the packet was checked to be UTF-8): XML allows most letters of any script.
        static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
                UInt8(ascii: ":"), 0x80...:
                return true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                return !first
            default:
                return false
            }
        }

        mutating func skipWhitespace() {
            while at < bytes.count, Self.isWhitespace(bytes[at]) { at += 1 }
        }

        static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }
}
