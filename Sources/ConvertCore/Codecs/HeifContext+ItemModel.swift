internal import CHeif

extension HeifContext {
    /// libheif's context of the HEIF at `path`, read so that it shows what libheif 1.15 alone
    /// would leave out: an alpha image item without `ispe` (libheif drops it, and the
    /// transparency with it) is given the size its AV1 sequence header states, as libavif reads
    /// it. `meta` is the file's item model when the caller has one; it is read here only for a
    /// file libheif shows an unattached alpha image in (then the whole file is read and edited).
    static func reading(path: String, decodingThreads: Int, meta: HeifMeta?) throws(ConvertError) -> HeifContext {
        let context = try HeifContext(reading: path, decodingThreads: decodingThreads)
        guard context.leavesAlphaUnattached, let edited = try alphaSized(path: path, meta: meta) else {
            return context
        }
        reads.count(path: path)
        let attached = try HeifContext(bytes: edited, path: path)
        attached.setDecodingThreads(decodingThreads)
        return attached
    }

    /// Whether libheif lists an auxiliary image of an alpha type among the primary's other
    /// auxiliary images instead of attaching it as its alpha (what it does with one without `ispe`).
    private var leavesAlphaUnattached: Bool {
        guard let primary = try? primaryImage(), !primary.hasAlpha else { return false }
        return primary.auxiliaryTypes.contains(where: HeifFile.alphaTypes.contains)
    }

    /// IDs of the top-level images without the inputs of derived images (`meta`'s, read from
    /// `path` when nil): libheif 1.15 lists the tiles of a grid whose tiles are not hidden too.
    func topLevelImageIDs(meta: HeifMeta?) -> [UInt32] {
        let ids = topLevelImageIDs
        guard ids.count > 1 else { return ids }
        guard let model = meta ?? (try? FileByteSource(path: path)).flatMap({ try? HeifMeta(source: $0) }) else {
            return ids
        }
        let inputs = HeifFile.derivedImageInputs(model)
        return ids.filter { !inputs.contains($0) }
    }

    /// Bounds libheif's tile threads (0: decode on the calling thread, see ``DecodingThreads``).
    private func setDecodingThreads(_ count: Int) {
        // The body throws nothing; withContext only lends the pointer.
        try? withContext { heif_context_set_max_decoding_threads($0, Int32(clamping: max(0, count))) }
    }

    /// The file's bytes with its primary's alpha image given an `ispe`, when it lacks one and
    /// its sequence header gives the size; nil when nothing needs (or allows) the edit.
    private static func alphaSized(path: String, meta: HeifMeta?) throws(ConvertError) -> [UInt8]? {
        guard let model = meta ?? (try? FileByteSource(path: path)).flatMap({ try? HeifMeta(source: $0) }),
            let file = try? HeifFile(meta: model, path: path),
            let alpha = file.alphaImages(of: file.primaryID).first,
            file.codedSize(alpha) == nil, model.types[alpha] == "av01",
            let first = model.fileRanges(of: alpha)?.first,
            // The sequence header comes first in the item's bytes, in a few dozen of them.
            let head = try? model.source.read(at: first.lowerBound, count: min(first.count, 1024)),
            let size = AV1SequenceHeader.frameSize(in: head)
        else { return nil }
        let bytes = try ImageDecoder.readAll(path: path)
        return HeifAuxiliaryEditor.givingSize(bytes, toAlpha: alpha, width: size.width, height: size.height)
    }
}
