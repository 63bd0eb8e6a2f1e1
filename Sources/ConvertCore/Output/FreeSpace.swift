#if canImport(Glibc)
import Glibc
#endif

/// Free space checks before a batch writes anything.
public enum FreeSpace {
    /// Bytes an unprivileged process can still write in the file system holding `directory`
    /// (`statvfs`: available blocks times fragment size).
    public static func available(in directory: String) throws(ConvertError) -> Int64 {
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
    public static func check(needed: Int64, in directory: String) throws(ConvertError) {
        let free = try available(in: directory)
        guard free < needed else { return }
        // A folder nothing can be written in (a read-only mount, no write permission) is
        // refused for that, its real cause: more space would not help.
        if access(directory, W_OK) != 0 { throw ConvertError.fileSystem(errno, action: "write in", path: directory) }
        throw ConvertError(
            .device, code: .deviceFull,
            message: "Not enough space in \(directory): about \(describe(needed)) needed, \(describe(free)) free.",
            path: directory)
    }

    /// "12.3 MB" style size for messages (decimal units, as the CLI's options use).
    package static func describe(_ bytes: Int64) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        return String(Int((value * 10).rounded()) / 10) + "." + String(Int((value * 10).rounded()) % 10) + " " + units[unit]
    }
}
