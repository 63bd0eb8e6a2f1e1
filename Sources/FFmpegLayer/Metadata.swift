internal import CFFmpeg
import ConvertCore

/// Reading and filtering FFmpeg metadata dictionaries.
package enum Metadata {
    /// All entries of `dictionary`, in order.
    static func entries(_ dictionary: OpaquePointer?) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            entry = next
        }
        return result
    }

    /// The value of `key` in `dictionary`, nil when absent or empty.
    static func value(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Whether a tag says where the recording was made: `location`, `location-eng`,
    /// `com.apple.quicktime.location.ISO6709` and its accuracy companions, ©xyz.
    package static func isLocation(_ key: String) -> Bool {
        let lower = key.lowercased()
        return lower.contains("location") || lower.contains("xyz") || lower.contains("gps")
    }

    /// Whether a tag identifies the device or its owner: serial numbers, owner names and unique
    /// ids (`com.apple.quicktime.content.identifier` ties a clip to its Live Photo). The same
    /// policy as photos' EXIF (BodySerialNumber, CameraOwnerName, ImageUniqueID go; make, model
    /// and software stay).
    package static func isIdentifying(_ key: String) -> Bool {
        let lower = key.lowercased()
        return ["serial", "owner", "content.identifier", "uniqueid", "unique-id", "unique_id"].contains {
            lower.contains($0)
        }
    }

    /// Whether a tag describes the source file, not its content, so it is never copied: a
    /// `timecode` makes the MOV/MP4 muxers add a timecode track; `encoder` names the tool that
    /// wrote the source; an MP4's brands (`major_brand`, `minor_version`, `compatible_brands`)
    /// are its container's, which the demuxer shows as tags; and `iTunSMPB` gives the source
    /// encoding's delay and padding, wrong for any other encoding (an MP3 made from an M4A).
    static func describesSourceFile(_ key: String) -> Bool {
        ["timecode", "encoder", "major_brand", "minor_version", "compatible_brands", "itunsmpb"].contains(
            key.lowercased())
    }

    /// Copies `source` into `destination`, leaving out location tags unless `keepLocation`,
    /// identifying tags unless `keepIdentifiers`, and tags that describe the source file rather
    /// than the content. Returns how many location tags were left out.
    @discardableResult
    static func copy(
        _ source: [(key: String, value: String)], into destination: UnsafeMutablePointer<OpaquePointer?>,
        keepLocation: Bool, keepIdentifiers: Bool = false
    ) -> Int {
        var removed = 0
        for (key, value) in source {
            if describesSourceFile(key) { continue }
            if !keepIdentifiers && isIdentifying(key) { continue }
            if !keepLocation && isLocation(key) {
                removed += 1
                continue
            }
            av_dict_set(destination, key, value, 0)
        }
        // FFmpeg's MP4/MOV muxers write a location only from the `location` key (as ©xyz); an
        // iPhone clip has only the ISO 6709 mdta key, so kept locations are carried over in that form.
        if keepLocation && av_dict_get(destination.pointee, "location", nil, 0) == nil,
            let iso6709 = source.first(where: { $0.key == "com.apple.quicktime.location.ISO6709" })
        {
            av_dict_set(destination, "location", iso6709.value, 0)
        }
        return removed
    }
}
