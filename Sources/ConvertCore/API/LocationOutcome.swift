/// What a conversion did with the source's location metadata (GPS in EXIF, XMP or IPTC, a
/// video's location tag): a typed fact of every ``JobResult``, which `--json`'s
/// `privacy.location` reports. Notes say the same in words, for people only.
public enum LocationOutcome: String, Sendable, Equatable, Codable, CaseIterable {
    /// The source had a location and the output does not.
    case removed
    /// The source had a location and the output carries it.
    case kept
    /// No location was found in the source.
    case noneFound = "none found"

    /// The outcome of a conversion that found a location (`hadLocation`) and did or did not keep it.
    package static func of(hadLocation: Bool, kept: Bool) -> LocationOutcome {
        hadLocation ? (kept ? .kept : .removed) : .noneFound
    }
}
