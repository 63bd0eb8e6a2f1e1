import FoundationEssentials

/// Edits an XMP packet as text: removes properties by qualified name, both as attributes
/// (`exif:GPSLatitude="..."`) and as elements (`<exif:GPSLatitude>...</exif:GPSLatitude>`,
/// nested structures included).
///
/// A full RDF parser is not needed: XMP writers use these two serialisations, the names removed
/// are fixed, and a packet that is not valid UTF-8 is dropped whole rather than edited.
package enum XMP {
    /// Properties that say where a photo was taken: the general ones (``generalLocationProperties``),
    /// Sony Ericsson's cell-tower namespace and Darwin Core's location terms.
    package static let locationProperties: [String] =
        generalLocationProperties + cellProperties + darwinCoreProperties

    /// Sony Ericsson's `cell:` namespace: the mobile network's country and area codes and the
    /// cell tower the phone was on (MobileCountryCode, LocationAreaCode, CellTowerID, CellGlobalID).
    package static let cellProperties: [String] = ["cell:[A-Za-z]*"]

    /// Darwin Core's location terms (`dwc:`, as biodiversity software writes them): the
    /// `dwc:dctermsLocation` structure exiftool writes (and `dwc:Location`), and the same terms
    /// written at the top level.
    package static let darwinCoreProperties: [String] = [
        "dwc:Location", "dwc:locationID", "dwc:verbatimCoordinates", "dwc:verbatimLatitude", "dwc:verbatimLongitude",
        "dwc:verbatimCoordinateSystem", "dwc:verbatimSRS", "dwc:verbatimElevation", "dwc:verbatimDepth",
        "dwc:verbatimLocality", "dwc:decimalLatitude", "dwc:decimalLongitude", "dwc:geodeticDatum",
        "dwc:coordinateUncertaintyInMeters", "dwc:coordinatePrecision", "dwc:pointRadiusSpatialFit",
        "dwc:footprintWKT", "dwc:footprintSRS", "dwc:footprintSpatialFit", "dwc:georeference[A-Za-z]*",
        "dwc:higherGeography[A-Za-z]*", "dwc:continent", "dwc:waterBody", "dwc:islandGroup", "dwc:island",
        "dwc:country", "dwc:countryCode", "dwc:stateProvince", "dwc:county", "dwc:municipality", "dwc:locality",
        "dwc:minimumElevationInMeters", "dwc:maximumElevationInMeters", "dwc:minimumDepthInMeters",
        "dwc:maximumDepthInMeters", "dwc:minimumDistanceAboveSurfaceInMeters",
        "dwc:maximumDistanceAboveSurfaceInMeters", "dwc:locationAccordingTo", "dwc:locationRemarks",
        "dwc:verticalDatum",
        "dwc:dctermsLocation",
    ]

    /// The location properties of EXIF, IPTC and Photoshop in XMP, and DJI's drone position.
    package static let generalLocationProperties: [String] = [
        "exif:GPS[A-Za-z]*", "exifEX:GPS[A-Za-z]*", "photoshop:City", "photoshop:State", "photoshop:Country",
        "Iptc4xmpCore:Location", "Iptc4xmpCore:CountryCode", "Iptc4xmpExt:LocationCreated",
        "Iptc4xmpExt:LocationShown", "Iptc4xmpExt:City", "Iptc4xmpExt:CountryName", "Iptc4xmpExt:ProvinceState",
        "Iptc4xmpExt:Sublocation", "drone-dji:GpsLatitude", "drone-dji:GpsLongitude", "drone-dji:AbsoluteAltitude",
    ]

    /// Properties that identify the camera body or its owner.
    static let identifyingProperties: [String] = [
        "aux:SerialNumber", "aux:OwnerName", "aux:LensSerialNumber", "exifEX:BodySerialNumber",
        "exifEX:CameraOwnerName", "exifEX:LensSerialNumber", "exif:ImageUniqueID", "exifEX:ImageUniqueID",
    ]

    /// What declares a gain map (Ultra HDR / Adobe gain map, Samsung and Google HEICs and JPEGs):
    /// the `hdrgm:` parameters and the container directory listing the gain-map item. Photo
    /// outputs carry the primary picture only, so a declaration left behind would point HDR
    /// viewers at an image that is not there; always removed.
    static let gainMapProperties: [String] = ["hdrgm:[A-Za-z]*", "Container:Directory", "GContainer:Directory"]

    /// Orientation properties: stale once the pixels are rotated, so always removed.
    static let orientationProperties: [String] = ["tiff:Orientation", "exif:Orientation"]

    /// Whether `packet` mentions any location property.
    package static func hasLocation(_ packet: [UInt8]) -> Bool {
        guard let text = String(validating: packet, as: UTF8.self) else { return false }
        return mentions(locationProperties, in: text)
    }

    /// The kinds of location `packet` records, in a fixed order: general XMP location
    /// properties (`.xmp`), cell-tower codes (`.xmpCell`), Darwin Core terms (`.darwinCore`).
    package static func locationKinds(_ packet: [UInt8]) -> [LocationSource] {
        guard let text = String(validating: packet, as: UTF8.self) else { return [] }
        let kinds: [(LocationSource, [String])] = [
            (.xmp, generalLocationProperties), (.xmpCell, cellProperties), (.darwinCore, darwinCoreProperties),
        ]
        return kinds.filter { mentions($0.1, in: text) }.map(\.0)
    }

    /// Whether `text` mentions any of the properties `names` (as an element or an attribute).
    private static func mentions(_ names: [String], in text: String) -> Bool {
        names.contains { name in
            let literal = literalStart(of: name)
            return (literal.isEmpty || text.contains(literal))
                && text.containsMatch(of: "[<\\s]" + name + "[\\s=>/]")
        }
    }

    /// The start of a name pattern up to its first pattern syntax (`exif:GPS` of
    /// `exif:GPS[A-Za-z]*`): text matching the pattern contains it, so where it does not occur
    /// the (far dearer) regular expression need not run.
    static func literalStart(of name: String) -> String {
        String(name.prefix { !"[(*+?.\\".contains($0) })
    }

    /// The most mentions of the removed properties a packet may have before it is dropped whole.
    fileprivate static let maximumMentions = 64
    /// The largest packet edited (real ones are a few KB, Lightroom's with history a few hundred);
    /// a larger one is dropped whole.
    static let maximumSize = 4 << 20

    /// `packet` without the properties matching `names` (regular expressions over qualified
    /// names); nil when the packet is not UTF-8 text or names them suspiciously often.
    package static func removing(_ names: [String], from packet: [UInt8]) -> [UInt8]? {
        guard packet.count <= maximumSize, var text = String(validating: packet, as: UTF8.self) else { return nil }
        // Most packets (an iPhone's among them) mention none of the names. Each name's literal
        // start (before any pattern syntax) must occur for its expressions to match, so when none
        // does, compiling and running some hundred expressions per photo is skipped.
        let literals = names.map(literalStart(of:))
        if !literals.contains(where: \.isEmpty), !literals.contains(where: { text.contains($0) }) {
            return packet
        }
        // The element patterns below retry from every opening tag that has no end, each retry
        // scanning to the end of the packet: thousands of such tags cost seconds to minutes (found
        // profiling the EXIF fuzz target). Real packets name these properties a handful of times; one naming them
        // dozens of times is dropped whole, which errs on the side of privacy.
        var mentions = 0
        for name in names {
            guard let count = text.matchCount(of: "[<\\s]" + name + "[\\s=/>]") else { return nil }
            mentions += count
            if mentions > maximumMentions { return nil }
        }
        for name in names {
            // Attribute form, with either quote style.
            text = text.removingMatches(of: "\\s" + name + "\\s*=\\s*(\"[^\"]*\"|'[^']*')")
            // Empty element form.
            text = text.removingMatches(of: "<(" + name + ")(\\s[^>]*)?/>")
            // Element with content, possibly nested structures; the closing tag repeats the name.
            text = text.removingMatches(of: "<(" + name + ")(\\s[^>]*)?>[\\s\\S]*?</\\1>")
        }
        return Array(text.utf8)
    }

    /// `text` escaped for XML character data and attribute values.
    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }

    /// `packet` with `properties` (XML elements) added in an `rdf:Description` that declares
    /// `namespaces` (prefix, URI), before its `</rdf:RDF>`; a new packet holding them when there
    /// is none. `packet` unchanged when there is nothing to add, or no `</rdf:RDF>` to add it before.
    static func adding(_ properties: [String], namespaces: [(String, String)], to packet: [UInt8]?) -> [UInt8]? {
        guard !properties.isEmpty else { return packet }
        let declarations = namespaces.map { "xmlns:\($0.0)=\"\($0.1)\"" }.joined(separator: " ")
        let description = "<rdf:Description rdf:about=\"\" \(declarations)>\(properties.joined())</rdf:Description>"
        guard let packet else {
            return Array(
                ("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
                    + description + "</rdf:RDF></x:xmpmeta>").utf8)
        }
        guard var text = String(validating: packet, as: UTF8.self), let end = text.firstRange(of: "</rdf:RDF>") else {
            return packet
        }
        text.insert(contentsOf: description, at: end.lowerBound)
        return Array(text.utf8)
    }
}
