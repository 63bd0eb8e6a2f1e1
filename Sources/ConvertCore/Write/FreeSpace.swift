#if canImport(Glibc)
    import Glibc
#endif

/// Free space checks before a batch writes anything.
package enum FreeSpace {
    /// Bytes an unprivileged process can still write in the file system holding `directory`
    /// (`statvfs`: available blocks times fragment size).
    package static func available(in directory: String) throws(ConvertError) -> Int64 {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else {
            throw ConvertError.fileSystem(errno, action: "check the free space of", path: directory)
        }
        let (bytes, overflow) = Int64(info.f_bavail).multipliedReportingOverflow(by: Int64(info.f_frsize))
        return overflow ? .max : bytes
    }

    /// Throws a `.device` `device.full` error when `directory` has less than `needed` bytes
    /// free. `needed` is the caller's estimate of the outputs' total size (the inputs' size is
    /// a fair upper bound for most conversions); a batch still handles running out mid-way, as
    /// each write failing with ENOSPC becomes the same error for that item.
    package static func check(needed: Int64, in directory: String) throws(ConvertError) {
        let free = try available(in: directory)
        guard free < needed else { return }
        // A folder nothing can be written in (a read-only mount, no write permission) is
        // refused for that, its real cause: more space would not help.
        if access(directory, W_OK) != 0 { throw ConvertError.fileSystem(errno, action: "write in", path: directory) }
        throw ConvertError(
            code: .deviceFull,
            message:
                "Not enough space in \(directory): about \(UnitText.bytes(needed)) needed, \(UnitText.bytes(free)) free.",
            path: directory)
    }
}
