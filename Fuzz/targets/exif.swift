// libFuzzer target: the EXIF reader/editor, the XMP and IPTC editors, the metadata policy, the JPEG
// marker walker, FLIR's FFF records and GoPro's GPMF telemetry over arbitrary bytes. Built by
// Fuzz/run with Sources/ConvertCore/Read/Metadata/, Read/JPEG/JPEGMarkers.swift and
// Read/JPEG/FLIRRecords.swift compiled in.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExif(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for exif in [Exif(block: bytes), Exif(tiff: bytes)].compactMap({ $0 }) {
        _ = exif.orientation
        _ = exif.make
        _ = exif.model
        _ = exif.withOrientationResetInPlace()
        for keepLocation in [false, true] {
            for keepIdentifiers in [false, true] {
                // A rebuilt block must itself parse: the editor's output is the next reader's input.
                let rebuilt = exif.rebuilt(keepLocation: keepLocation, keepIdentifiers: keepIdentifiers)
                if !rebuilt.isEmpty, let again = Exif(block: rebuilt) {
                    _ = again.rebuilt(keepLocation: false, keepIdentifiers: false)
                }
            }
        }
    }
    _ = XMP.hasLocation(bytes)
    _ = XMP.locationKinds(bytes)
    let telemetry = GPMF.scan(bytes)
    _ = GPMF.removingLocation(bytes, scan: telemetry)
    if let flir = FLIRRecords(jpeg: bytes) {
        _ = flir.hasGPS
        _ = flir.gpsRemovalPatches
    }
    _ = XMP.removing(["exif:GPSLatitude", "exif:GPSLongitude"], from: bytes)
    for policy in MetadataPolicy.allCases {
        _ = OutputMetadata(exif: bytes, xmp: bytes, iptc: bytes, policy: policy).withPixelSize(width: 70_000, height: 3)
    }
    _ = IPTC.removingLocation(bytes)
    _ = IPTC.iimRange(inResources: bytes)
    _ = IPTC.block(inJPEG: bytes)
    let markers = JPEGMarkers.metadata(bytes)
    _ = markers.exif.flatMap { Exif(block: $0) }?.orientation
    _ = JPEGMarkers.removing(markers: [0xE1], from: bytes)
    return 0
}
