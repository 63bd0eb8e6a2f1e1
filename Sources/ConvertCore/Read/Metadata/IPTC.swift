/// IPTC-IIM metadata (keywords, caption, copyright, by-line, city, ...): a list of datasets in
/// the Photoshop image resource 0x0404 of a JPEG's APP13 segment.
///
/// Each dataset is `0x1C`, record, dataset number, a 16-bit big-endian length (or, with its top
/// bit set, the count of the length bytes that follow), then the value. Every length is checked
/// against the data; a block that does not parse is treated as absent (and so dropped).
package enum IPTC {
    /// The APP13 payload prefix of Photoshop's image resource block.
    package static let photoshopHeader: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
    /// The image resource holding IPTC-IIM.
    static let iimResource: UInt16 = 0x0404

    /// One dataset, its value as stored.
    package struct Dataset: Equatable, Sendable {
        package var record: UInt8
        package var number: UInt8
        package var value: [UInt8]
    }

    /// Datasets of record 2 that say where: Sub-location (92), City (90), Province/State (95),
    /// Country code (100) and name (101), and the content location code and name (26, 27).
    package static let locationDatasets: Set<UInt8> = [26, 27, 90, 92, 95, 100, 101]

    /// The datasets of an IIM block; nil when it does not parse.
    package static func datasets(_ iim: [UInt8]) -> [Dataset]? {
        var result: [Dataset] = []
        var at = 0
        while at < iim.count {
            // Writers pad the resource with zeros after the last dataset.
            if iim[at...].allSatisfy({ $0 == 0 }) { break }
            guard iim[at] == 0x1C, at + 5 <= iim.count else { return nil }
            var length = Int(iim[at + 3]) << 8 | Int(iim[at + 4])
            var start = at + 5
            if length & 0x8000 != 0 {
                let bytes = length & 0x7FFF
                guard bytes <= 4, start + bytes <= iim.count else { return nil }
                length = iim[start..<(start + bytes)].reduce(0) { $0 << 8 | Int($1) }
                start += bytes
            }
            guard length <= iim.count - start else { return nil }
            result.append(
                Dataset(record: iim[at + 1], number: iim[at + 2], value: Array(iim[start..<(start + length)])))
            at = start + length
        }
        return result
    }

    /// `datasets` serialised (extended lengths for values over 32 KiB).
    package static func serialise(_ datasets: [Dataset]) -> [UInt8] {
        var out: [UInt8] = []
        for dataset in datasets {
            out += [0x1C, dataset.record, dataset.number]
            let count = dataset.value.count
            if count < 0x8000 {
                out += [UInt8(count >> 8), UInt8(count & 0xFF)]
            } else {
                out += [
                    0x80, 4, UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF),
                    UInt8(count & 0xFF),
                ]
            }
            out += dataset.value
        }
        return out
    }

    /// Whether `iim` names a place.
    package static func hasLocation(_ iim: [UInt8]) -> Bool {
        datasets(iim)?.contains { $0.record == 2 && locationDatasets.contains($0.number) } ?? false
    }

    /// `iim` without its location datasets; nil when it does not parse or nothing is left.
    static func removingLocation(_ iim: [UInt8]) -> [UInt8]? {
        guard let kept = datasets(iim)?.filter({ !($0.record == 2 && locationDatasets.contains($0.number)) }),
            kept.contains(where: { $0.record == 2 && $0.number != 0 })
        else { return nil }
        return serialise(kept)
    }

    /// Where the IIM block sits in a Photoshop image resource block (an APP13 payload after
    /// ``photoshopHeader``): the range of resource 0x0404's data, and the range of the whole
    /// resource (signature to padding).
    package static func iimRange(inResources resources: [UInt8]) -> (data: Range<Int>, resource: Range<Int>)? {
        var at = 0
        while at + 12 <= resources.count, resources[at..<(at + 4)].elementsEqual("8BIM".utf8) {
            let id = UInt16(resources[at + 4]) << 8 | UInt16(resources[at + 5])
            // A Pascal name padded to an even length (the length byte included).
            let nameLength = Int(resources[at + 6])
            let nameEnd = at + 6 + ((nameLength + 2) & ~1)
            guard nameEnd + 4 <= resources.count else { return nil }
            let size = resources[nameEnd..<(nameEnd + 4)].reduce(0) { $0 << 8 | Int($1) }
            let dataStart = nameEnd + 4
            guard size <= resources.count - dataStart else { return nil }
            let end = min(resources.count, dataStart + size + (size & 1))
            if id == iimResource { return (dataStart..<(dataStart + size), at..<end) }
            at = end
        }
        return nil
    }

    /// The IIM block of a JPEG (its first APP13 with an IPTC resource), if any.
    package static func block(inJPEG data: [UInt8]) -> [UInt8]? {
        for segment in JPEGMarkers.segments(data) where segment.marker == 0xED {
            let payload = Array(data[segment.payload])
            guard payload.starts(with: photoshopHeader) else { continue }
            let resources = Array(payload.dropFirst(photoshopHeader.count))
            if let range = iimRange(inResources: resources) { return Array(resources[range.data]) }
        }
        return nil
    }

    /// An APP13 payload holding `iim` as the only image resource.
    static func app13Payload(_ iim: [UInt8]) -> [UInt8] {
        let size = iim.count
        var out = photoshopHeader + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
        out += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        out += iim
        if size & 1 == 1 { out.append(0) }
        return out
    }
}

extension IPTC {
    /// IIM datasets and the IPTC Core XMP properties that carry the same thing, for outputs
    /// without an APP13 segment (PNG, WebP, HEIC, AVIF). Bags and sequences hold the repeatable
    /// ones (keywords, creators) and language alternatives the texts.
    private static let xmpMapping: [(number: UInt8, property: String, container: String?)] = [
        (25, "dc:subject", "rdf:Bag"), (80, "dc:creator", "rdf:Seq"), (116, "dc:rights", "rdf:Alt"),
        (120, "dc:description", "rdf:Alt"), (105, "photoshop:Headline", nil), (90, "photoshop:City", nil),
        (92, "Iptc4xmpCore:Location", nil), (95, "photoshop:State", nil), (101, "photoshop:Country", nil),
    ]

    /// `packet` (or a new packet) with the IIM fields it lacks added as IPTC Core XMP, so a
    /// format that cannot hold IIM still keeps the keywords, caption, copyright and by-line
    /// (and the place, when `iim` still has it: location datasets are filtered before). Nil when
    /// there is nothing to add and no packet; `packet` unchanged when it already names them all,
    /// as IPTC-aware writers (exiftool, Lightroom) keep both in step.
    package static func xmp(adding iim: [UInt8], to packet: [UInt8]?) -> [UInt8]? {
        guard let datasets = datasets(iim) else { return packet }
        let existing = packet.flatMap { String(validating: $0, as: UTF8.self) } ?? ""
        if packet != nil && existing.isEmpty { return packet }
        var properties: [String] = []
        for (number, property, container) in xmpMapping where !existing.contains(property) {
            let values = datasets.filter { $0.record == 2 && $0.number == number }.map { text($0.value) }.filter {
                !$0.isEmpty
            }
            guard let first = values.first else { continue }
            if let container {
                let items = (container == "rdf:Bag" || container == "rdf:Seq" ? values : [first]).map { value in
                    container == "rdf:Alt"
                        ? "<rdf:li xml:lang=\"x-default\">\(escaped(value))</rdf:li>"
                        : "<rdf:li>\(escaped(value))</rdf:li>"
                }
                properties.append("<\(property)><\(container)>\(items.joined())</\(container)></\(property)>")
            } else {
                properties.append("<\(property)>\(escaped(first))</\(property)>")
            }
        }
        return XMP.adding(
            properties,
            namespaces: [
                ("dc", "http://purl.org/dc/elements/1.1/"), ("photoshop", "http://ns.adobe.com/photoshop/1.0/"),
                ("Iptc4xmpCore", "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"),
            ], to: packet)
    }

    /// An IIM value as text: UTF-8 when it is valid UTF-8 (what a 1:90 `ESC % G` declares and
    /// modern writers use), ISO 8859-1 otherwise; control characters dropped.
    private static func text(_ value: [UInt8]) -> String {
        let decoded = String(validating: value, as: UTF8.self) ?? String(value.map { Character(Unicode.Scalar($0)) })
        return String(decoded.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" }.map(Character.init))
            .trimmingWhitespace()
    }

    private static func escaped(_ text: String) -> String { XMP.escaped(text) }
}
