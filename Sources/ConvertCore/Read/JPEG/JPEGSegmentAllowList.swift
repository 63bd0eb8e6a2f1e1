/// What a shared copy keeps of a JPEG's APP segments when the file's own bytes are carried over
/// (lossless JPEG XL recompression, a JPEG already within its size target, a PDF page): the
/// segments a viewer needs to show the picture as it was, and nothing else.
///
/// Kept: JFIF APP0, ICC APP2, MPF APP2 (the index of a stereo pair's other eye or a gain map)
/// and ISO 21496-1 APP2 (a gain map's description), Adobe APP14 (the colour transform, without
/// which a CMYK or YCCK photo shows as a negative or in wrong colours). APP1 and APP13 are
/// always taken out: their EXIF, XMP and IPTC are written again, filtered, by the caller. Any
/// other APP segment goes, whatever it holds: a deny-list would let through what it does not
/// know (FLIR's APP1 GPS record, the next vendor's), an allow-list cannot. The names given to
/// removed segments are exiftool's (`JPEG.pm`), so a note can be checked against its output.
/// Markers that are not APP segments (tables, frame, comments) keep their bytes.
package enum JPEGSegmentAllowList {
    /// What filtering made of a JPEG.
    package struct Filtered: Sendable, Equatable {
        /// The file without the segments that are not allowed (the source's bytes when nothing went).
        package var jpeg: [UInt8]
        /// The names of the removed segments that the caller does not write again, one per
        /// segment, in file order ("FLIR APP1", "Ducky APP12", "APP10 (AROT)").
        package var removed: [String] = []

        /// What to tell the user: "6 vendor segments removed (5 FLIR APP1, Ducky APP12)", and
        /// "extended XMP removed" (the part of a packet too large for one segment, which is not
        /// filtered: Google's depth maps and Ultra HDR's older records).
        package var notes: [String] {
            let vendor = removed.filter { $0 != JPEGSegmentAllowList.extendedXMP }
            let extended = removed.count > vendor.count ? ["extended XMP removed"] : []
            guard !vendor.isEmpty else { return extended }
            var counts: [String: Int] = [:]
            var order: [String] = []
            for name in vendor {
                if counts[name] == nil { order.append(name) }
                counts[name, default: 0] += 1
            }
            let names = order.map { name in (counts[name] ?? 1) > 1 ? "\(counts[name] ?? 1) \(name)" : name }
            let count = vendor.count
            return ["\(count) vendor segment\(count == 1 ? "" : "s") removed (\(names.joined(separator: ", ")))"]
                + extended
        }
    }

    /// The name a removed extended XMP segment gets.
    static let extendedXMP = "ExtendedXMP APP1"

    /// What the allow-list does with one segment.
    enum Decision: Equatable {
        /// Carried over as it is.
        case keep
        /// Removed; the caller writes its content again, filtered (EXIF, XMP, IPTC).
        case rewrite
        /// Removed, and named in the note.
        case remove(String)
    }

    /// `jpeg` with only the APP segments a shared copy keeps (see the type's description).
    package static func filtered(_ jpeg: [UInt8]) -> Filtered {
        let segments = JPEGMarkers.segments(jpeg)
        let decisions = segments.map { decision(marker: $0.marker, payload: jpeg[$0.payload]) }
        guard decisions.contains(where: { $0 != .keep }) else { return Filtered(jpeg: jpeg) }
        var out: [UInt8] = []
        out.reserveCapacity(jpeg.count)
        out += [0xFF, 0xD8]
        var position = 2
        var removed: [String] = []
        for (segment, decision) in zip(segments, decisions) {
            // Bytes between segments (fill bytes) are kept as they were.
            out += jpeg[position..<segment.whole.lowerBound]
            switch decision {
            case .keep: out += jpeg[segment.whole]
            case .rewrite: break
            case .remove(let name): removed.append(name)
            }
            position = segment.whole.upperBound
        }
        out += jpeg[position...]
        return Filtered(jpeg: out, removed: removed)
    }

    /// The decision for a segment with `marker` and `payload`.
    static func decision(marker: UInt8, payload: ArraySlice<UInt8>) -> Decision {
        guard (0xE0...0xEF).contains(marker) else { return .keep }
        let name = name(marker: marker, payload: payload)
        switch (marker, name) {
        case (0xE0, "JFIF"), (0xE2, "ICC_Profile"), (0xE2, "MPF"), (0xE2, "ISO 21496-1"), (0xEE, "Adobe"):
            return .keep
        case (0xE1, "EXIF"), (0xE1, "XMP"), (0xED, "Photoshop"):
            return .rewrite
        default:
            if let name { return .remove("\(name) APP\(marker - 0xE0)") }
            return .remove("APP\(marker - 0xE0)" + (signature(payload).map { " (\($0))" } ?? ""))
        }
    }

    /// The letters and digits a segment exiftool does not know starts with, up to 8 ("AROT", an
    /// iPhone's APP10), for a note to tell one unknown segment from another; nil when it starts
    /// with anything else.
    static func signature(_ payload: ArraySlice<UInt8>) -> String? {
        let isWordByte = { (byte: UInt8) in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        let word = payload.prefix(8).prefix(while: isWordByte)
        return word.count >= 2 ? String(decoding: word, as: UTF8.self) : nil
    }

    /// A segment's name as exiftool gives it, from the signature its payload starts with; nil
    /// for one exiftool does not recognise by its bytes.
    static func name(marker: UInt8, payload: ArraySlice<UInt8>) -> String? {
        // Tried in order: XMP's test (`http`) would also take extended XMP's signature.
        for signature in signatures where signature.marker == marker {
            if payload.starts(with: signature.prefix) { return signature.name }
        }
        // Picture info (some Olympus and Agfa cameras) is text that says what it is anywhere.
        if marker == 0xEC, let text = String(validating: payload.prefix(64), as: UTF8.self),
            text.contains("[picture info]") || text.contains("Type=")
        {
            return "PictureInfo"
        }
        return nil
    }

    /// The signatures of the APP segments exiftool names by their first bytes (JPEG.pm's
    /// `%Image::ExifTool::JPEG::Main`), and ISO 21496-1's.
    private static let signatures: [(marker: UInt8, prefix: [UInt8], name: String)] = [
        (0xE0, Array("JFIF\0".utf8), "JFIF"), (0xE0, Array("JFXX\0".utf8), "JFXX"),
        (0xE0, Array("AVI1".utf8), "AVI1"), (0xE0, Array("Ocad".utf8), "Ocad"),
        (0xE1, Array("Exif\0".utf8), "EXIF"), (0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8), "ExtendedXMP"),
        (0xE1, Array("http".utf8), "XMP"), (0xE1, Array("QVCI\0".utf8), "QVCI"), (0xE1, Array("FLIR\0".utf8), "FLIR"),
        (0xE1, Array("PARROT\0".utf8), "RawThermalImage"),
        (0xE2, Array("ICC_PROFILE\0".utf8), "ICC_Profile"), (0xE2, Array("FPXR\0".utf8), "FPXR"),
        (0xE2, Array("MPF\0".utf8), "MPF"), (0xE2, GainMapMetadata.isoNamespace, "ISO 21496-1"),
        (0xE2, [0xFF, 0xD8, 0xFF, 0xDB], "PreviewImage"),
        (0xE3, Array("Meta\0\0".utf8), "Meta"), (0xE3, Array("META\0\0".utf8), "Meta"),
        (0xE3, Array("Exif\0\0".utf8), "Meta"), (0xE3, Array("Stim\0".utf8), "Stim"),
        (0xE3, Array("_JPSJPS_".utf8), "JPS"), (0xE3, [0xFF, 0xD8, 0xFF, 0xDB], "PreviewImage"),
        (0xE4, Array("SCALADO\0".utf8), "Scalado"), (0xE4, Array("FPXR\0".utf8), "FPXR"),
        (0xE5, Array("RMETA\0".utf8), "RMETA"),
        (0xE6, Array("EPPIM\0".utf8), "EPPIM"), (0xE6, Array("NTIF\0".utf8), "NITF"),
        (0xE6, Array("GoPro\0".utf8), "GoPro"), (0xE6, Array("DTAT\0\0".utf8), "DJI_DTAT"),
        (0xE7, Array("PENTAX \0".utf8), "Pentax"), (0xE7, Array("HUAWEI\0\0".utf8), "Huawei"),
        (0xE7, Array("\u{1A}Qualcomm Camera Attributes".utf8), "Qualcomm"),
        (0xE8, Array("SPIFF\0".utf8), "SPIFF"), (0xE9, Array("Media Jukebox\0".utf8), "MediaJukebox"),
        (0xEA, Array("UNICODE\0".utf8), "Comment"),
        (0xEB, Array("HDR_RI ".utf8), "JPEG-HDR"), (0xEB, Array("JP".utf8), "JUMBF"),
        (0xEC, Array("Ducky".utf8), "Ducky"),
        (0xED, Array("Photoshop 3.0\0".utf8), "Photoshop"), (0xED, Array("Adobe_Photoshop2.5".utf8), "Photoshop"),
        (0xED, Array("Adobe_CM".utf8), "Adobe_CM"),
        (0xEE, Array("Adobe".utf8), "Adobe"), (0xEF, Array("Q".utf8), "GraphicConverter"),
    ]
}
