import FoundationEssentials

/// Reads a text value of a QuickTime metadata key (`meta` with `hdlr` mdta, `keys` and `ilst`)
/// from a movie's boxes, in `moov/meta` (iPhones) or `moov/udta/meta` (FFmpeg): only the movie
/// box is read, never the samples.
package enum MovieKeys {
    /// The key an iPhone writes into a Live Photo's MOV, equal to the photo's MakerNote tag 0x0011.
    package static let contentIdentifier = "com.apple.quicktime.content.identifier"

    /// The value of `key`, or nil when the movie has none (or its boxes cannot be walked).
    package static func value(_ key: String, in source: any ByteSource) -> String? {
        let reader = BoxReader(source: source)
        guard let moov = try? reader.children(of: nil, depth: 0).first(where: { $0.type == "moov" }),
            let children = try? reader.children(of: moov, depth: 1)
        else { return nil }
        var metas = children.filter { $0.type == "meta" }
        for udta in children where udta.type == "udta" {
            metas += ((try? reader.children(of: udta, depth: 2)) ?? []).filter { $0.type == "meta" }
        }
        for meta in metas {
            if let found = (try? value(key, meta: meta, reader: reader, depth: 3)) ?? nil { return found }
        }
        return nil
    }

    /// The value of `key` in one QuickTime `meta` box (`hdlr` mdta, `keys`, `ilst`) found at
    /// `depth`, or nil when it has none. QuickTime's `meta` has no version/flags, ISO's does: which
    /// one it is shows in where `hdlr` starts.
    package static func value(_ key: String, meta: BoxHeader, reader: BoxReader, depth: Int) throws(BoxError) -> String?
    {
        let prefix = try reader.payloadPrefix(of: meta, count: 12)
        var container = meta
        if prefix.count >= 12, FourCC(rawValue: ByteCursor.u32(prefix, at: 8)) == "hdlr" { container.headerSize += 4 }
        let children = try reader.children(of: container, depth: depth)
        guard let keys = children.first(where: { $0.type == "keys" }),
            let list = children.first(where: { $0.type == "ilst" })
        else { return nil }
        var cursor = ByteCursor(try reader.payload(of: keys, limit: 1 << 16), type: keys.type)
        try cursor.skip(4)
        let count = Int(try cursor.u32())
        var wanted: UInt32?
        for index in 0..<min(count, 4096) {
            let size = Int(try cursor.u32())
            guard size >= 8 else { throw .truncatedPayload(type: keys.type) }
            try cursor.skip(4)
            if text(try cursor.take(size - 8)) == key {
                wanted = UInt32(index + 1)
                break
            }
        }
        guard let wanted else { return nil }
        for item in try reader.children(of: list, depth: depth + 1) where item.type.rawValue == wanted {
            guard let data = try reader.child("data", of: item, depth: depth + 2) else { continue }
            var value = ByteCursor(try reader.payloadPrefix(of: data, count: 264), type: data.type)
            try value.skip(8)
            return text(value.rest())
        }
        return nil
    }

    private static func text(_ bytes: [UInt8]) -> String {
        let cut = bytes.prefix { $0 != 0 }
        return String(decoding: cut, as: UTF8.self).trimmingWhitespace()
    }
}
