import ConvertCore
internal import FFmpegLayer

/// GoPro GPMF telemetry tracks (`gpmd`) of an MP4/MOV: their GPS fixes counted for the probe,
/// and their GPS entries removed in place for the location stripper.
///
/// The samples are found through the demuxer's index (the sample tables), read with the box
/// reader's bounded reads and walked by ``GPMF``. Removing keeps every sample's length and every
/// other entry: a GPS entry's key becomes ``GPMF/removedKey`` and its payload zeros.
enum GPMFTelemetry {
    /// The largest sample read (the box reader's bound on one read): a GPMF sample is a second
    /// of telemetry, tens of kilobytes; a larger one is damage, counted as such and not read.
    static let maximumSampleSize = 1 << 20

    /// What the telemetry tracks hold.
    struct Found {
        /// GPS fixes in every `gpmd` track together.
        var fixes = 0
        /// Same-length patches (file offsets) removing every GPS entry.
        var patches: [LocationStripper.Patch] = []
        /// Whether a sample could not be read whole or walked to its end.
        var damaged = false
    }

    /// The telemetry of the file `demuxer` has open (read from `source`, the same file); nil
    /// when it has no `gpmd` track.
    static func scan(demuxer: Demuxer, source: some ByteSource) -> Found? {
        var found: Found?
        for index in 0..<demuxer.streamCount {
            let stream = demuxer.stream(index)
            guard stream.snapshot?.codecTag == "gpmd" else { continue }
            var tally = found ?? Found()
            for sample in stream.indexedSamples {
                guard sample.size > 0 else { continue }
                guard sample.size <= maximumSampleSize, UInt64(sample.offset) + UInt64(sample.size) <= source.size,
                    let bytes = try? source.read(at: UInt64(sample.offset), count: sample.size),
                    bytes.count == sample.size
                else {
                    tally.damaged = true
                    continue
                }
                let scan = GPMF.scan(bytes)
                tally.fixes += scan.fixes
                tally.damaged = tally.damaged || scan.damaged
                let cleaned = GPMF.removingLocation(bytes, scan: scan)
                for entry in scan.entries {
                    tally.patches.append(
                        .init(offset: Int(sample.offset) + entry.lowerBound, bytes: Array(cleaned[entry])))
                }
            }
            found = tally
        }
        return found
    }

    /// The telemetry of the movie at `path`; nil when it has no `gpmd` track.
    static func scan(path: String) throws(ConvertError) -> Found? {
        let demuxer = try Demuxer(path: path)
        return scan(demuxer: demuxer, source: try FileByteSource(path: path))
    }
}
