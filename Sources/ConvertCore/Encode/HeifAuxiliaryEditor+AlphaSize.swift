extension HeifAuxiliaryEditor {
    /// `file` with an `ispe` property of `width` × `height` associated with the alpha image item
    /// `alpha`, which has none. libheif 1.15 leaves out an alpha image without `ispe` (it is no
    /// image to it) and so drops the transparency, while libavif decodes it at its coded size;
    /// libavif's own test files (`alpha_noispe.avif`) have such an item. Only the `meta` box
    /// grows, as in ``makingAuxiliary(_:item:of:type:)``; nil for a layout this editor does not know.
    static func givingSize(_ file: [UInt8], toAlpha alpha: UInt32, width: Int, height: Int) -> [UInt8]? {
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max),
            let top = try? ByteBox.topLevel(of: file), let meta = top.first(where: { $0.type == "meta" }),
            !meta.large, meta.end - meta.payloadStart >= 4,
            let children = try? ByteBox.children(of: file, in: (meta.payloadStart + 4)..<meta.end)
        else { return nil }
        let ispe = ByteBox.box(
            "ispe", [0, 0, 0, 0] + ByteBox.bigEndian32(UInt32(width)) + ByteBox.bigEndian32(UInt32(height)))
        var body: [UInt8] = []
        for child in children {
            let bytes = Array(file[child.start..<child.end])
            guard child.type == "iprp" else {
                body += bytes
                continue
            }
            // ispe is descriptive: a reader that does not know it may still show the image.
            guard let edited = addingProperty(bytes, ispe, to: alpha, essential: false) else { return nil }
            body += edited
        }
        let newMeta = ByteBox.box("meta", Array(file[meta.payloadStart..<(meta.payloadStart + 4)]) + body)
        let grown = newMeta.count - (meta.end - meta.start)
        guard let edited = shiftingLocations(newMeta, past: meta.end, by: grown) else { return nil }
        return Array(file[..<meta.start]) + edited + Array(file[meta.end...])
    }
}
