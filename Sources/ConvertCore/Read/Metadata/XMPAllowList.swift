/// What a shared copy keeps of an XMP packet: the properties of the namespaces in
/// ``namespaces`` (description, rights, dates, camera settings, gain-map and motion-photo
/// declarations), and nothing else. A deny-list lets through whatever it does not know (Sony
/// Ericsson's `cell:` tower codes, Darwin Core's `dwc:` coordinates, the next vendor's
/// namespace); an allow-list cannot.
///
/// Namespaces are matched by URI, never by prefix: a prefix is whatever the writer chose. The
/// packet is read with ``XMPMarkup`` (strict, bounded) and edited by byte ranges: a property
/// element goes whole with everything nested in it, an attribute-form property goes with the
/// whitespace before it, a declaration of a removed namespace goes once nothing uses it, and a
/// description left with no property goes too. Everything else, the packet's padding included,
/// keeps its bytes. A packet that is not well-formed XML, or not the RDF XMP is written in, is
/// ``Filtered/packet`` nil: what cannot be read cannot be vouched for.
///
/// The values of kept properties are kept whole (structure fields such as `stEvt:` or `Item:`
/// included); the deny-lists in ``XMP`` then remove what an allowed namespace must not carry
/// (GPS, serial numbers, gain-map declarations).
package enum XMPAllowList {
    /// What filtering made of a packet.
    package struct Filtered: Sendable, Equatable {
        /// The packet without what is not allowed (the source's bytes when nothing was removed),
        /// or nil when it could not be read and so is dropped whole.
        package var packet: [UInt8]?
        /// The prefixes of the namespaces removed, as the packet wrote them, sorted.
        package var removedNamespaces: [String] = []
        /// Whether `xmp:Thumbnails` went: a copy of the picture, possibly before a crop.
        package var thumbnailRemoved = false

        /// What to tell the user: "XMP: 2 namespaces removed (cell, dwc)", "XMP thumbnail
        /// removed", "unreadable XMP dropped".
        package var notes: [String] {
            guard packet != nil else { return ["unreadable XMP dropped"] }
            var notes: [String] = []
            if !removedNamespaces.isEmpty {
                let count = removedNamespaces.count
                // A packet can name hundreds; the first few say what kind of thing went.
                var names = removedNamespaces.prefix(XMPAllowList.namesInNote).joined(separator: ", ")
                if count > XMPAllowList.namesInNote { names += ", …" }
                notes.append("XMP: \(count) namespace\(count == 1 ? "" : "s") removed (\(names))")
            }
            if thumbnailRemoved { notes.append("XMP thumbnail removed") }
            return notes
        }
    }

    /// How many namespace prefixes a note lists.
    static let namesInNote = 6
    /// The longest prefix a note shows; a longer one is cut (a hostile packet may write any).
    static let longestNameInNote = 24

    /// The namespaces a shared copy keeps, by URI.
    package static let namespaces: Set<String> = [
        // RDF itself, the packet wrapper and XML's own `xml:lang`.
        rdf, meta, "http://www.w3.org/XML/1998/namespace",
        // Dublin Core (title, description, creator, rights, keywords), XMP basic (rating, dates,
        // creator tool, label), rights, Photoshop's (headline, credit, ...), IPTC Core and
        // Extension, PLUS licensing.
        "http://purl.org/dc/elements/1.1/", xmpBasic, "http://ns.adobe.com/xap/1.0/rights/",
        "http://ns.adobe.com/photoshop/1.0/", "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/",
        "http://iptc.org/std/Iptc4xmpExt/2008-02-29/", "http://ns.useplus.org/ldf/xmp/1.0/",
        // Camera settings: TIFF, EXIF, EXIF 2.3 (CIPA), Adobe's auxiliary (lens), Camera Raw.
        "http://ns.adobe.com/tiff/1.0/", "http://ns.adobe.com/exif/1.0/", "http://cipa.jp/exif/1.0/",
        "http://ns.adobe.com/exif/1.0/aux/", "http://ns.adobe.com/camera-raw-settings/1.0/",
        // Media management (history, derived-from) and the structures XMP values are built of.
        "http://ns.adobe.com/xap/1.0/mm/", "http://ns.adobe.com/xap/1.0/sType/ResourceEvent#",
        "http://ns.adobe.com/xap/1.0/sType/ResourceRef#", "http://ns.adobe.com/xap/1.0/sType/Dimensions#",
        "http://ns.adobe.com/xap/1.0/g/", "http://ns.adobe.com/xmp/note/",
        // Audio and video descriptions.
        "http://ns.adobe.com/xmp/1.0/DynamicMedia/",
        // Gain maps and motion photos: Adobe/Google's, Google's container and camera, Apple's.
        "http://ns.adobe.com/hdr-gain-map/1.0/", "http://ns.google.com/photos/1.0/container/",
        "http://ns.google.com/photos/1.0/container/item/", "http://ns.google.com/photos/1.0/camera/",
        "http://ns.apple.com/HDRGainMap/1.0/", "http://ns.apple.com/pixeldatainfo/1.0/",
        // How to show the picture: Google's photo sphere (GPano: a 360° photo's projection,
        // without which viewers show a flat strip) and spherical video (GSpherical).
        "http://ns.google.com/photos/1.0/panorama/", "http://ns.google.com/videos/1.0/spherical/",
    ]

    /// RDF's namespace.
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    /// The `x:xmpmeta` wrapper's namespace.
    static let meta = "adobe:ns:meta/"
    /// XMP basic, whose `Thumbnails` is a picture of its own.
    static let xmpBasic = "http://ns.adobe.com/xap/1.0/"

    /// `packet` with only what a shared copy keeps. With `keepLocation`, properties of other
    /// namespaces that ``XMP/locationProperties`` names (`cell:`, `dwc:` location terms, DJI's
    /// position) are kept too: the location was asked for.
    package static func filtered(_ packet: [UInt8], keepLocation: Bool) -> Filtered {
        guard packet.count <= XMP.maximumSize, String(validating: packet, as: UTF8.self) != nil else {
            return Filtered(packet: nil)
        }
        var walk = Walk(bytes: packet, keepLocation: keepLocation)
        guard XMPMarkup.scan(packet, visit: { walk.visit($0) }), let edited = walk.edited() else {
            return Filtered(packet: nil)
        }
        let names = walk.removedPrefixes.map { prefix in
            let shown = String(prefix.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
            return shown.count > longestNameInNote ? String(shown.prefix(longestNameInNote)) + "…" : shown
        }
        return Filtered(
            packet: edited, removedNamespaces: Set(names).sorted(), thumbnailRemoved: walk.thumbnailRemoved)
    }
}

extension XMPAllowList {
    /// What the walk does with a property or node of some namespace.
    fileprivate enum Decision {
        case keep, dropNamespace, dropThumbnail
    }

    /// Where an element stands in the packet, which says what its children are.
    fileprivate enum Context {
        /// Outside the RDF: `x:xmpmeta` and what surrounds it.
        case outer
        /// Inside `rdf:RDF`: its children are descriptions (node elements).
        case nodes
        /// Inside a description: its children and attributes are properties.
        case node
        /// Inside a kept property: its value, kept as it is.
        case value
        /// Inside a removed element: skipped.
        case removed
    }

    /// An `xmlns` declaration on an element that is kept (so far).
    fileprivate struct Declaration {
        var uri: String
        var span: Range<Int>
    }

    /// One open element.
    fileprivate struct Frame {
        var context: Context
        /// The prefixes this element declared, to take out of scope at its end.
        var declared: [String] = []
        /// Where the element starts, when it is the outermost removed one.
        var removalStart: Int?
        /// Where the element starts.
        var start: Int
        /// The removals, declarations and uses recorded before it: a description that ends up
        /// empty is removed whole, and what was recorded inside it is forgotten.
        var marks: (removals: Int, declarations: Int, uses: Int)
        /// Its properties kept and removed (for a description).
        var kept = 0
        var dropped = 0
    }

    /// One pass over a packet's tokens, recording the byte ranges to remove.
    fileprivate struct Walk {
        let bytes: [UInt8]
        let keepLocation: Bool
        var removals: [Range<Int>] = []
        var declarations: [Declaration] = []
        /// The declaration each kept name resolved to, once per use.
        var uses: [Int] = []
        /// Each prefix's declarations in scope, innermost last ("" is the default namespace).
        var scope: [String: [Int]] = [:]
        var frames: [Frame] = []
        var removedPrefixes: Set<String> = []
        var thumbnailRemoved = false
        /// ``XMP/locationProperties`` compiled, once a name needs them.
        var locationPatterns: [(literal: String, pattern: Regex<AnyRegexOutput>)]?

        init(bytes: [UInt8], keepLocation: Bool) {
            self.bytes = bytes
            self.keepLocation = keepLocation
        }

        /// Handles one token; false when the packet is not XMP that can be edited safely.
        mutating func visit(_ token: XMPMarkup.Token) -> Bool {
            let context = frames.last?.context ?? .outer
            switch token {
            case .start(let tag):
                return start(tag, in: context)
            case .end(let span):
                return end(at: span.upperBound)
            case .text(let range):
                // Descriptions and the wrapper hold elements only; text there is not RDF.
                guard context == .outer || context == .nodes || context == .node else { return true }
                return bytes[range].allSatisfy { XMPAllowList.whitespace.contains($0) }
            case .comment(let range):
                // Comments are read by nobody but could say anything.
                if context != .removed { removals.append(range) }
                return true
            case .instruction(let range):
                // The `<?xpacket?>` wrapper stays; instructions inside the packet go.
                if !frames.isEmpty && context != .removed { removals.append(range) }
                return true
            }
        }

        mutating func start(_ tag: XMPMarkup.StartTag, in parent: Context) -> Bool {
            let marks = (removals.count, declarations.count, uses.count)
            guard parent != .removed else {
                frames.append(Frame(context: .removed, start: tag.span.lowerBound, marks: marks))
                return true
            }
            var frame = Frame(context: .value, start: tag.span.lowerBound, marks: marks)
            for attribute in tag.attributes {
                guard let prefix = declaredPrefix(attribute.name) else { continue }
                let uri = String(decoding: bytes[attribute.value], as: UTF8.self)
                // `xml` and `xmlns` cannot be declared, and a prefix cannot be undeclared (XML 1.0).
                guard prefix != "xml", prefix != "xmlns", !(uri.isEmpty && !prefix.isEmpty) else { return false }
                scope[prefix, default: []].append(declarations.count)
                declarations.append(Declaration(uri: uri, span: attribute.span))
                frame.declared.append(prefix)
            }
            // The element's declarations are in scope for its own name, so they go in first.
            frames.append(frame)
            let name = split(tag.name)
            guard let resolved = resolve(name.prefix) else { return false }
            let uri = resolved.uri
            let context: Context
            var decision = Decision.keep
            switch parent {
            case .outer:
                if uri == XMPAllowList.meta {
                    context = .outer
                } else if uri == XMPAllowList.rdf && name.local == "RDF" {
                    context = .nodes
                } else {
                    context = .removed
                    decision = .dropNamespace
                }
            case .nodes:
                if uri != XMPAllowList.rdf || name.local != "Description" { decision = decide(uri: uri, name: name) }
                context = decision == .keep ? .node : .removed
            case .node:
                decision = decide(uri: uri, name: name)
                context = decision == .keep ? .value : .removed
            case .value, .removed:
                context = .value
            }
            frames[frames.count - 1].context = context
            if context == .removed {
                frames[frames.count - 1].removalStart = tag.span.lowerBound
                note(decision, prefix: name.prefix)
                if frames.count > 1 { frames[frames.count - 2].dropped += 1 }
                return true
            }
            if parent == .node, frames.count > 1 { frames[frames.count - 2].kept += 1 }
            if let declaration = resolved.declaration { uses.append(declaration) }
            for attribute in tag.attributes where declaredPrefix(attribute.name) == nil {
                guard filter(attribute, in: context) else { return false }
            }
            return true
        }

        /// Keeps or removes one attribute of a kept element.
        mutating func filter(_ attribute: XMPMarkup.Attribute, in context: Context) -> Bool {
            let name = split(attribute.name)
            // An unprefixed attribute has no namespace; RDF's old unprefixed `about` stays.
            let found: (uri: String?, declaration: Int?)? = name.prefix.isEmpty ? (nil, nil) : resolve(name.prefix)
            guard let found else { return false }
            let (uri, declaration) = found
            let keep: Bool
            if context == .value {
                keep = true
            } else if uri == nil {
                keep = name.local == "about"
            } else {
                let decision = decide(uri: uri, name: name)
                keep = decision == .keep
                if !keep { note(decision, prefix: name.prefix) }
            }
            if keep {
                if let declaration { uses.append(declaration) }
                if context == .node, uri != XMPAllowList.rdf, uri != "http://www.w3.org/XML/1998/namespace",
                    uri != nil
                {
                    frames[frames.count - 1].kept += 1
                }
            } else {
                removals.append(attribute.span)
                frames[frames.count - 1].dropped += 1
            }
            return true
        }

        mutating func end(at upper: Int) -> Bool {
            guard let frame = frames.popLast() else { return false }
            for prefix in frame.declared { scope[prefix]?.removeLast() }
            let emptied = frame.context == .node && frame.dropped > 0 && frame.kept == 0
            if let start = emptied ? frame.start : frame.removalStart {
                // Whatever was recorded inside is inside this removal.
                removals.removeSubrange(frame.marks.removals...)
                declarations.removeSubrange(frame.marks.declarations...)
                uses.removeSubrange(frame.marks.uses...)
                removals.append(start..<upper)
            }
            return true
        }

        mutating func note(_ decision: Decision, prefix: String) {
            switch decision {
            case .keep: break
            case .dropThumbnail: thumbnailRemoved = true
            case .dropNamespace: removedPrefixes.insert(shownName(prefix))
            }
        }

        /// The name a note gives the namespace of `prefix`: the prefix, or for the default
        /// namespace (no prefix) its URI.
        func shownName(_ prefix: String) -> String {
            guard prefix.isEmpty else { return prefix }
            return scope[""]?.last.map { declarations[$0].uri } ?? "(no namespace)"
        }

        /// What happens to a property or node `name` of namespace `uri`.
        mutating func decide(uri: String?, name: (prefix: String, local: String)) -> Decision {
            guard let uri else { return .dropNamespace }
            if uri == XMPAllowList.xmpBasic && name.local == "Thumbnails" { return .dropThumbnail }
            if XMPAllowList.namespaces.contains(uri) { return .keep }
            if keepLocation && isLocation(name.prefix + ":" + name.local) { return .keep }
            return .dropNamespace
        }

        /// Whether `qualified` is one of ``XMP/locationProperties`` (which name by prefix: the
        /// deny-list's own rule, so `--keep-location` keeps what it kept before).
        mutating func isLocation(_ qualified: String) -> Bool {
            let patterns =
                locationPatterns
                ?? XMP.locationProperties.compactMap { name in
                    (try? Regex("(?:" + name + ")")).map { (XMP.literalStart(of: name), $0) }
                }
            locationPatterns = patterns
            return patterns.contains { literal, pattern in
                qualified.hasPrefix(literal) && (try? pattern.wholeMatch(in: qualified)) != nil
            }
        }

        /// The prefix an `xmlns` attribute declares ("" for the default namespace), or nil when
        /// the attribute is not a declaration.
        func declaredPrefix(_ name: Range<Int>) -> String? {
            let text = bytes[name]
            if text.elementsEqual("xmlns".utf8) { return "" }
            guard text.starts(with: "xmlns:".utf8) else { return nil }
            return String(decoding: text.dropFirst(6), as: UTF8.self)
        }

        func split(_ name: Range<Int>) -> (prefix: String, local: String) {
            let text = bytes[name]
            guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else {
                return ("", String(decoding: text, as: UTF8.self))
            }
            return (
                String(decoding: text[..<colon], as: UTF8.self),
                String(decoding: text[(colon + 1)...], as: UTF8.self)
            )
        }

        /// The namespace `prefix` stands for and the declaration that bound it; nil when it is
        /// unbound (not namespace-well-formed). An unprefixed element takes the default
        /// namespace, if any.
        func resolve(_ prefix: String) -> (uri: String?, declaration: Int?)? {
            if prefix == "xml" { return ("http://www.w3.org/XML/1998/namespace", nil) }
            guard let declaration = scope[prefix]?.last else { return prefix.isEmpty ? (nil, nil) : nil }
            let uri = declarations[declaration].uri
            return (uri.isEmpty ? nil : uri, declaration)
        }

        /// The packet without the recorded ranges and without the declarations of removed
        /// namespaces nothing uses any more; nil if the ranges overlap (never expected: the walk
        /// forgets what it recorded inside a range it removes whole).
        func edited() -> [UInt8]? {
            var used = [Bool](repeating: false, count: declarations.count)
            for use in uses { used[use] = true }
            var ranges = removals
            for (index, declaration) in declarations.enumerated()
            where !used[index] && !XMPAllowList.namespaces.contains(declaration.uri) {
                ranges.append(declaration.span)
            }
            guard !ranges.isEmpty else { return bytes }
            ranges.sort { $0.lowerBound < $1.lowerBound }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var at = 0
            for range in ranges {
                guard range.lowerBound >= at else { return nil }
                output += bytes[at..<range.lowerBound]
                at = range.upperBound
            }
            output += bytes[at...]
            return output
        }
    }

    /// XML's whitespace, and the NUL padding some writers leave after the packet.
    fileprivate static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x00]
}
