/// What a photo conversion does with the source's metadata (EXIF, XMP).
///
/// Orientation is always reset to 1, because the pixels are written upright. EXIF thumbnails
/// (IFD1) are dropped except under ``keep``, so no hidden copy of the picture or its tags leaves.
public enum MetadataPolicy: String, Sendable, Codable, CaseIterable {
    /// For sharing: location (EXIF GPS, XMP location fields) and device/owner identifiers
    /// (serial numbers, owner name, maker note) removed; date, camera and settings kept.
    case shareSafe
    /// Like ``shareSafe`` but the location is kept on purpose (`--keep-location`).
    case keepLocation
    /// Everything kept as it was (`--keep-metadata`), except Orientation, set to 1.
    case keep
    /// No EXIF or XMP at all (`--strip-metadata`). The colour profile is not metadata and stays.
    case strip
}

/// The metadata a conversion writes, and what it removed on the way.
package struct OutputMetadata: Sendable {
    /// The EXIF TIFF stream to embed, or nil.
    package var exif: [UInt8]?
    /// The XMP packet to embed, or nil.
    package var xmp: [UInt8]?
    /// Human-readable notes ("location removed", ...), for the job result's privacy line.
    package var notes: [String]

    /// Applies `policy` to the source's EXIF and XMP.
    package init(exif sourceExif: [UInt8]?, xmp sourceXMP: [UInt8]?, policy: MetadataPolicy) {
        notes = []
        let parsed = sourceExif.flatMap { Exif(block: $0) }
        switch policy {
        case .strip:
            exif = nil
            xmp = nil
            if sourceExif != nil || sourceXMP != nil { notes.append("metadata removed") }
            return
        case .keep:
            exif = parsed?.withOrientationResetInPlace()
            if sourceExif != nil && parsed == nil { notes.append("unreadable EXIF dropped") }
            xmp = sourceXMP.flatMap { XMP.removing(XMP.orientationProperties, from: $0) }.flatMap(MotionXMP.withoutPointers)
            if parsed?.hasGPS == true || sourceXMP.map(XMP.hasLocation) == true { notes.append("location kept") }
            return
        case .shareSafe, .keepLocation:
            let keepLocation = policy == .keepLocation
            exif = parsed?.rebuilt(keepLocation: keepLocation, keepIdentifiers: false)
            if sourceExif != nil && parsed == nil { notes.append("unreadable EXIF dropped") }
            var removals = XMP.orientationProperties + XMP.identifyingProperties
            if !keepLocation { removals += XMP.locationProperties }
            xmp = sourceXMP.flatMap { XMP.removing(removals, from: $0) }.flatMap(MotionXMP.withoutPointers)
            let hadLocation = parsed?.hasGPS == true || parsed?.thumbnailHasGPS == true
                || sourceXMP.map(XMP.hasLocation) == true
            if hadLocation { notes.append(keepLocation ? "location kept" : "location removed") }
            let identifying = parsed?.identifyingTagsPresent ?? []
            if identifying.contains(Exif.Tag.makerNote) { notes.append("maker note removed") }
            if !identifying.subtracting([Exif.Tag.makerNote]).isEmpty { notes.append("serial numbers and owner name removed") }
            if parsed?.hasThumbnail == true { notes.append("EXIF thumbnail removed") }
        }
    }
}
