/// What a photo conversion does with the source's metadata (EXIF, XMP, IPTC-IIM).
///
/// Orientation is always reset to 1, because the pixels are written upright. EXIF thumbnails
/// (IFD1) are dropped except under ``keep``, so no hidden copy of the picture or its tags leaves.
public enum MetadataPolicy: String, Sendable, Codable, CaseIterable {
    /// For sharing: location (EXIF GPS, XMP location fields) and device/owner identifiers
    /// (serial numbers, owner name, maker note) removed; date, camera and settings kept. XMP
    /// keeps only the namespaces a shared copy needs (description, rights, dates, camera
    /// settings, gain-map and motion-photo declarations): an unknown vendor's goes, whatever it holds.
    case shareSafe
    /// Like ``shareSafe`` but the location is kept on purpose (`--keep-location`).
    case keepLocation
    /// Everything kept as it was (`--keep-metadata`), except Orientation, set to 1, and the XMP
    /// that declares a gain map (the gain map itself is never written).
    case keep
    /// No EXIF or XMP at all (`--strip-metadata`). The colour profile is not metadata and stays.
    case strip
}

/// The metadata a conversion writes, and what it removed on the way.
struct OutputMetadata: Sendable {
    /// The EXIF TIFF stream to embed, or nil.
    package var exif: [UInt8]?
    /// The XMP packet to embed, or nil.
    package var xmp: [UInt8]?
    /// The IPTC-IIM block to embed (JPEG outputs carry it in APP13), or nil. Filtered like
    /// XMP: its location datasets go unless the location is kept.
    package var iptc: [UInt8]?
    /// A PNG source's text chunks that go on: all under ``MetadataPolicy/keep``, the standard
    /// Title, Author, Description and Copyright in a shared copy (as XMP keeps `dc:`), none
    /// stripped. A PNG output writes them as they came; other formats get them as XMP (``carried(by:)``).
    package var pngText: [PNGText.Entry] = []
    /// Human-readable notes ("location removed", ...), for the job result's privacy line.
    package var notes: [String]
    /// Whether the source had a location, and whether this metadata still carries it.
    package var location: LocationOutcome = .noneFound

    /// This metadata as `format` can carry it: JPEG keeps IIM in APP13; the other formats get
    /// the IIM fields as IPTC Core XMP instead (in the packet, or a new one), so keywords,
    /// caption, copyright and by-line are not lost.
    /// A PNG's text chunks likewise become Dublin Core XMP in every format but PNG.
    package func carried(by format: PhotoFormat) -> OutputMetadata {
        var carried = self
        if format != .png, !pngText.isEmpty {
            carried.xmp = PNGText.xmp(adding: pngText, to: carried.xmp)
            carried.pngText = []
        }
        guard format != .jpeg, let block = iptc else { return carried }
        carried.xmp = IPTC.xmp(adding: block, to: carried.xmp)
        carried.iptc = nil
        return carried
    }

    /// This metadata for a picture of `width`×`height`: EXIF PixelXDimension/PixelYDimension
    /// describe the source's picture, stale once it is rotated, resized or cropped.
    func withPixelSize(width: Int, height: Int) -> OutputMetadata {
        var sized = self
        if let block = exif, let parsed = Exif(tiff: block) {
            sized.exif = parsed.settingPixelDimensions(width: width, height: height)
        }
        return sized
    }

    /// Applies `policy` to the source's EXIF, XMP, IPTC-IIM and PNG text chunks.
    package init(
        exif sourceExif: [UInt8]?, xmp sourceXMP: [UInt8]?, iptc sourceIPTC: [UInt8]? = nil,
        pngText sourceText: [PNGText.Entry] = [], policy: MetadataPolicy
    ) {
        notes = []
        switch policy {
        case .keep: pngText = sourceText
        case .strip: pngText = []
        case .shareSafe, .keepLocation:
            pngText = sourceText.filter(PNGText.isShareSafe)
            let dropped = sourceText.filter { !PNGText.isShareSafe($0) }.map(\.keyword)
            if !dropped.isEmpty {
                var names: [String] = []
                for name in dropped where !names.contains(name) { names.append(name) }
                notes.append("PNG text removed (\(names.joined(separator: ", ")))")
            }
        }
        let parsed = sourceExif.flatMap { Exif(block: $0) }
        // A block that does not parse is dropped: it cannot be checked for a location.
        let iimLocation = sourceIPTC.map(IPTC.hasLocation) == true
        switch policy {
        case .strip:
            exif = nil
            xmp = nil
            iptc = nil
            if sourceExif != nil || sourceXMP != nil || sourceIPTC != nil || !sourceText.isEmpty {
                notes.append("metadata removed")
            }
            let hadLocation =
                parsed?.hasGPS == true || parsed?.thumbnailHasGPS == true
                || sourceXMP.map(XMP.hasLocation) == true || iimLocation
            location = .of(hadLocation: hadLocation, kept: false)
            return
        case .keep:
            exif = parsed?.withOrientationResetInPlace()
            if sourceExif != nil && parsed == nil { notes.append("unreadable EXIF dropped") }
            xmp = sourceXMP.flatMap { XMP.removing(XMP.orientationProperties + XMP.gainMapProperties, from: $0) }
                .flatMap(MotionXMP.withoutPointers)
            iptc = sourceIPTC.flatMap { IPTC.datasets($0) == nil ? nil : $0 }
            if parsed?.hasGPS == true || sourceXMP.map(XMP.hasLocation) == true || iimLocation {
                notes.append("location kept")
                location = .kept
            }
            return
        case .shareSafe, .keepLocation:
            let keepLocation = policy == .keepLocation
            exif = parsed?.rebuilt(keepLocation: keepLocation, keepIdentifiers: false)
            if sourceExif != nil && parsed == nil { notes.append("unreadable EXIF dropped") }
            var removals = XMP.orientationProperties + XMP.identifyingProperties + XMP.gainMapProperties
            if !keepLocation { removals += XMP.locationProperties }
            // The allow-list first, so its note names the namespaces as the source had them
            // (the deny-list would otherwise have emptied `cell:` and `dwc:` already); then the
            // deny-list, for what allowed namespaces must not carry.
            let allowed = sourceXMP.map { XMPAllowList.filtered($0, keepLocation: keepLocation) }
            xmp = allowed?.packet.flatMap { XMP.removing(removals, from: $0) }.flatMap(MotionXMP.withoutPointers)
            iptc = sourceIPTC.flatMap { block in
                guard IPTC.datasets(block) != nil else { return nil }
                return keepLocation ? block : IPTC.removingLocation(block)
            }
            let hadLocation =
                parsed?.hasGPS == true || parsed?.thumbnailHasGPS == true
                || sourceXMP.map(XMP.hasLocation) == true || iimLocation
            if hadLocation { notes.append(keepLocation ? "location kept" : "location removed") }
            location = .of(hadLocation: hadLocation, kept: keepLocation)
            let identifying = parsed?.identifyingTagsPresent ?? []
            if identifying.contains(Exif.Tag.makerNote) { notes.append("maker note removed") }
            if !identifying.subtracting([Exif.Tag.makerNote]).isEmpty {
                notes.append("serial numbers and owner name removed")
            }
            if parsed?.hasThumbnail == true { notes.append("EXIF thumbnail removed") }
            notes += allowed?.notes ?? []
        }
    }
}
