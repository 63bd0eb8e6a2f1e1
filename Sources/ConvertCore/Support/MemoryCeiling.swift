import Glibc

/// The most memory this process can ever get, and the check every decoder makes with it before
/// allocating a picture its file's header sizes: a 2 KB JPEG whose SOF claims 65500×65500 (with
/// `--max-pixels` raised) must be refused with an error, not end in the Swift runtime's
/// "failed to allocate" trap when an array of 12.9 GB cannot be made.
///
/// The ceiling is the smallest of: RAM plus swap (`sysconf`, /proc/meminfo), the cgroup's `memory.max` (a
/// container's or a systemd unit's limit), and `RLIMIT_AS`/`RLIMIT_DATA`. Read once; it does not
/// change under a running process in any way that matters here.
package enum MemoryCeiling {
    /// Bytes of pixels a decode holds at the least for each pixel: the RGBA bitmap, and one
    /// more picture of the same size (the encoder's input or the resized copy) beside it.
    static let minimumBytesPerPixel = 8

    /// The ceiling in bytes (Int.max when nothing limits it).
    package static let bytes: Int = {
        var limits: [Int] = []
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        if pages > 0, pageSize > 0 {
            let (ram, overflow) = pages.multipliedReportingOverflow(by: pageSize)
            if !overflow { limits.append(ram.addingReportingOverflow(swapBytes()).overflow ? .max : ram + swapBytes()) }
        }
        for resource in [RLIMIT_AS, RLIMIT_DATA] {
            var limit = rlimit()
            // rlim_t.max is RLIM_INFINITY, which Swift cannot import (-1 unsigned).
            if getrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
                limits.append(Int(clamping: limit.rlim_cur))
            }
        }
        if let cgroup = cgroupLimit() { limits.append(cgroup) }
        return limits.min() ?? .max
    }()

    /// `SwapTotal` of /proc/meminfo, in bytes (0 when it cannot be read).
    private static func swapBytes() -> Int {
        guard let head = RawFile.head(of: "/proc/meminfo", count: 8192) else { return 0 }
        for line in String(decoding: head, as: UTF8.self).split(separator: "\n") where line.hasPrefix("SwapTotal:") {
            let kilobytes = line.dropFirst("SwapTotal:".count).split(separator: " ").first.flatMap { Int($0) } ?? 0
            return kilobytes.multipliedReportingOverflow(by: 1024).overflow ? 0 : kilobytes * 1024
        }
        return 0
    }

    /// The cgroup v2 `memory.max` of this process's group, or v1's `memory.limit_in_bytes`.
    private static func cgroupLimit() -> Int? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let head = RawFile.head(of: path, count: 64) else { continue }
            let text = String(decoding: head, as: UTF8.self).trimmingWhitespaceAndNewlines()
            if let value = Int(text), value > 0 { return value }
        }
        return nil
    }

    /// Throws `device.memory` unless a `width`×`height` picture can be decoded within `ceiling`
    /// (``bytes`` unless a test says otherwise): it needs ``minimumBytesPerPixel`` bytes a pixel,
    /// and its largest single buffer (4 bytes a pixel) must also be one `malloc` gives, which a
    /// process under a `ulimit -v` or strict overcommit is refused at once.
    package static func check(width: Int, height: Int, path: String, ceiling: Int = bytes) throws(ConvertError) {
        let (pixels, o1) = max(0, width).multipliedReportingOverflow(by: max(0, height))
        let (needed, o2) = pixels.multipliedReportingOverflow(by: minimumBytesPerPixel)
        guard !o1, !o2, needed <= ceiling, let probe = malloc(pixels * 4) else {
            throw ConvertError(
                code: .deviceMemory,
                message: "Not enough memory for a \(width)×\(height) picture in \(path): decoding it needs at least "
                    + "\(UnitText.bytes(o1 || o2 ? Int64.max : Int64(needed))), this machine can give \(UnitText.bytes(Int64(ceiling))).",
                path: path)
        }
        free(probe)
    }
}
