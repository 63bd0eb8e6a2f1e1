/// What a photo conversion does with an HDR gain map (`--hdr`).
public enum HDRPolicy: String, Sendable, Codable, CaseIterable {
    /// Keep HDR where the output can carry it, and say so: a gain map as Ultra HDR in a JPEG,
    /// as an auxiliary image in a HEIC or AVIF; in a JPEG XL, the HDR picture (a gain map
    /// applied, 16-bit PQ) or a PQ/HLG still's own code values.
    case keep
    /// Write the SDR picture only.
    case sdr
}

/// Auxiliary-image types of HDR gain maps, as ``ImageInfo/auxiliaryImages`` lists them.
public enum HeifGainMapType {
    /// Apple's (iPhone 12 and later).
    public static let apple = "urn:com:apple:photo:2020:aux:hdrgainmap"
    /// Samsung's (Galaxy S24 and later), described by `hdrgm:` XMP on the primary image.
    public static let samsung = "urn:com:samsung:photo:2024:aux:hdrgainmap"
    /// A gain map in ISO 21496-1's logarithmic coding, whose parameters the file's `tmap` item
    /// states: what offconvert writes in AVIF (the vendor URNs above name their own codings).
    public static let iso = "urn:com:photo:aux:hdrgainmap"
}
