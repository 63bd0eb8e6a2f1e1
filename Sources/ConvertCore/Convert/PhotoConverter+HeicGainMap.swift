/// HEIC → HEIC with the gain map (and any gain map → AVIF, below): the map is decoded with its values as stored (Apple's or
/// Samsung's coding, so the same auxiliary type and parameters still describe it), carried
/// through every resize like the JPEG path's, and encoded again as a hidden auxiliary image of
/// the new primary.
///
/// Re-encoding rather than copying the source's coded map: the primary is always decoded and
/// written upright (its `irot`/`imir` baked in), so a copied map would need the source's
/// transforms re-attached, and any resize would need a re-encode anyway; one path serves every
/// geometry, at the cost of one small HEVC encode (a quarter of the picture, see
/// Benchmarks/GAINMAP.md).
extension PhotoConverter {
    /// The gain map a HEIC output of `file` carries, or why it carries none.
    static func heicGainMap(
        _ request: PhotoRequest, file: HeifFile, cancellation: CancellationFlag
    ) throws(ConvertError) -> (carried: CarriedGainMap?, note: JobNote?) {
        guard request.metadata != .strip else {
            return (
                nil,
                JobNote(
                    .gainMapMetadataRemoved,
                    "HDR not kept: the metadata that describes the gain map is removed with the rest")
            )
        }
        let frameIndex = request.allImages ? file.topLevelImageIDs.firstIndex(of: file.primaryID) ?? 0 : 0
        guard let size = file.displayedSize(file.primaryID),
            let map = try HeifGainMap.decodeStored(file, cancellation: cancellation)
        else { return (nil, JobNote(fact: notKeptNote(.heic))) }
        let ratioX = Double(size.width) / Double(map.plane.width)
        let ratioY = Double(size.height) / Double(map.plane.height)
        guard abs(ratioX - ratioY) <= 0.02 * max(ratioX, ratioY) else {
            return (nil, JobNote(fact: "HDR not kept: the gain map's shape is not the picture's"))
        }
        return (
            CarriedGainMap(map: map, sourceWidth: size.width, sourceHeight: size.height, frameIndex: frameIndex), nil
        )
    }

    /// Writes `bitmap` as a HEIC with `plane` (the carried map lined up with it) as its gain map
    /// to `destination`, staged; with the metadata that describes the map: Apple's headroom
    /// MakerNote when the policy removed the source's, Samsung's `hdrgm:` XMP (which the policy
    /// always removes from a copied packet).
    static func writeHEIC(
        _ bitmap: Bitmap, plane: GrayPlane, map: HeifGainMap, request: PhotoRequest, bitDepth: Int,
        metadata: OutputMetadata,
        to destination: String, note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        var exif = metadata.exif
        var xmp = metadata.xmp
        if map.auxiliaryType == HeifGainMapType.samsung {
            xmp = map.metadata.samsungPrimaryXMP(merging: xmp)
        } else if let makerNote = map.appleMakerNote, exif.map({ AppleHeadroom.stops(exif: $0) == nil }) ?? true {
            exif = (exif.flatMap { Exif(tiff: $0) } ?? Exif(tiff: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]))?
                .settingMakerNote(makerNote)
            note("the maker note's HDR headroom tags kept for the gain map")
        }
        let output = HeifGainMapOutput(
            format: .heic, bitDepth: bitDepth, plane: plane, type: map.auxiliaryType, toneMapRecord: map.isoRecord,
            keptNote: map.keptNote)
        return try writeHEIF(
            bitmap, output, request: request, exif: exif, xmp: xmp, to: destination, note: note,
            cancellation: cancellation)
    }

    /// Writes `bitmap` as an AVIF with `plane` (the carried map in the logarithmic coding, lined
    /// up with it) as its gain map to `destination`, staged: a hidden AV1 auxiliary image of
    /// type ``HeifGainMapType/iso`` and a `tmap` item whose ISO 21496-1 record states the map's
    /// parameters (the only description an AVIF reader looks for: no MakerNote or `hdrgm:` XMP
    /// is written for it). 8 bits, as every AVIF here.
    static func writeAVIF(
        _ bitmap: Bitmap, plane: GrayPlane, map: HeifGainMap, request: PhotoRequest, metadata: OutputMetadata,
        to destination: String, note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        let output = HeifGainMapOutput(
            format: .avif, bitDepth: 8, plane: plane, type: HeifGainMapType.iso,
            toneMapRecord: [0] + map.metadata.toneMapItemRecord,
            keptNote: map.keptNote)
        return try writeHEIF(
            bitmap, output, request: request, exif: metadata.exif, xmp: metadata.xmp, to: destination, note: note,
            cancellation: cancellation)
    }

    /// How a HEIF output carries its gain map.
    private struct HeifGainMapOutput {
        var format: HeifEncoding.Format
        var bitDepth: Int
        var plane: GrayPlane
        /// The map's auxiliary type.
        var type: String
        /// The `tmap` item's payload (version byte and ISO 21496-1 record), when there is one.
        var toneMapRecord: [UInt8]?
        var keptNote: String
    }

    /// Encodes `bitmap` and its gain map as `output` says, staged, noting whether the map was
    /// attached.
    private static func writeHEIF(
        _ bitmap: Bitmap, _ output: HeifGainMapOutput, request: PhotoRequest, exif: [UInt8]?, xmp: [UInt8]?,
        to destination: String, note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        try write(to: destination, for: request) {
            (temporary, display) throws(ConvertError) in
            let attached = try HeifEncoding.encode(
                bitmap, format: output.format, quality: request.quality, bitDepth: output.bitDepth, exif: exif,
                xmp: xmp,
                auxiliary: (output.plane, output.type), toneMapRecord: output.toneMapRecord, to: temporary,
                displayPath: display)
            note(
                attached
                    ? output.keptNote
                    : "HDR not kept: the gain map could not be attached to the \(output.format.rawValue)")
        } cancellation: {
            cancellation
        }
    }
}
