import FoundationEssentials

/// How the cores are shared between photos in flight (`--jobs`) and the tile-decoding threads
/// per photo: the workers of ``HeifYCbCrDecoder`` on the direct HEIC → JPEG path, libheif's
/// (`heif_context_set_max_decoding_threads`) everywhere else.
///
/// An iPhone HEIC is a grid of 512×512 HEVC tiles that libheif can decode on several threads.
/// One photo alone gets a thread per core. In a batch, when there are at least as many photos
/// in flight as cores, each photo decodes its tiles on the job's own thread (libheif's `0`):
/// the cores are already busy, and the parts of a conversion that are not tile decoding (the
/// file's parse, the JPEG encode, the write) of one job overlap another job's decode instead of
/// leaving a core idle. Benchmarks/RESULTS-threads.md has the measurements behind this.
package enum DecodingThreads {
    /// libheif's tile-decoding threads for each photo when `jobs` photos of a batch of `items`
    /// run at once on `cores` cores. `0` means "decode the tiles on the calling thread".
    package static func perPhoto(jobs: Int, items: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount)
        -> Int
    {
        let inFlight = max(1, min(jobs, items))
        let cores = max(1, cores)
        if inFlight >= cores { return 0 }
        return max(1, cores / inFlight)
    }
}
