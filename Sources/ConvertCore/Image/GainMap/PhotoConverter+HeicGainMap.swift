/// HEIC → HEIC with the gain map: the map is decoded with its values as stored (Apple's or
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
    ) throws(ConvertError) -> (carried: CarriedGainMap?, note: String?) {
        guard request.metadata != .strip else {
            return (nil, "HDR not kept: --strip-metadata removes the metadata that describes the gain map")
        }
        let frameIndex = request.allImages ? file.topLevelImageIDs.firstIndex(of: file.primaryID) ?? 0 : 0
        guard let size = file.displayedSize(file.primaryID), let map = try HeifGainMap.decodeStored(file, cancellation: cancellation)
        else { return (nil, notKeptNote(.heic)) }
        let ratioX = Double(size.width) / Double(map.plane.width), ratioY = Double(size.height) / Double(map.plane.height)
        guard abs(ratioX - ratioY) <= 0.02 * max(ratioX, ratioY) else {
            return (nil, "HDR not kept: the gain map's shape is not the picture's")
        }
        return (CarriedGainMap(map: map, sourceWidth: size.width, sourceHeight: size.height, frameIndex: frameIndex), nil)
    }

    /// Writes `bitmap` as a HEIC with `plane` (the carried map lined up with it) as its gain map
    /// to `destination`, staged; with the metadata that describes the map: Apple's headroom
    /// MakerNote when the policy removed the source's, Samsung's `hdrgm:` XMP (which the policy
    /// always removes from a copied packet).
    static func writeHEIC(
        _ bitmap: Bitmap, plane: GrayPlane, map: HeifGainMap, request: PhotoRequest, bitDepth: Int, metadata: OutputMetadata,
        to destination: String, note: (String) -> Void, cancellation: CancellationFlag
    ) throws(ConvertError) -> OutputFile {
        var exif = metadata.exif
        var xmp = metadata.xmp
        if map.auxiliaryType == HeifGainMapType.samsung {
            xmp = map.metadata.samsungPrimaryXMP(merging: xmp)
        } else if let makerNote = map.appleMakerNote, exif.map({ AppleHeadroom.stops(exif: $0) == nil }) ?? true {
            exif = (exif.flatMap { Exif(tiff: $0) } ?? Exif(tiff: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]))?.settingMakerNote(makerNote)
            note("the maker note's HDR headroom tags kept for the gain map")
        }
        return try write(to: destination, overwrite: request.overwrite, renumber: request.outputPath == nil || request.outputMayBeRenumbered) {
            (temporary, display) throws(ConvertError) in
            let attached = try HeifEncoding.encode(
                bitmap, format: .heic, quality: request.quality, bitDepth: bitDepth, exif: exif, xmp: xmp,
                auxiliary: (plane, map.auxiliaryType), toneMapRecord: map.isoRecord, to: temporary, displayPath: display)
            note(attached ? map.keptNote : "HDR not kept: the gain map could not be attached to the HEIC")
        } cancellation: { cancellation }
    }
}
