import ConvertCore
import Foundation

/// x264's 2-pass statistics, next to the output.
///
/// A reserved, locked file (`.NAME.offconvert-XXXXXX.x264`) marks them as this encode's: x264
/// writes `<reserved>.stats` (through `.stats.temp`, which it renames, so the lock cannot live on
/// its files) and `.stats.mbtree`.
/// ``remove()`` deletes them all, whatever state the encode stopped in. After a crash or a kill
/// the lock is gone with the process, so ``StagedOutput/removeStale(in:)`` recognises every one
/// of them as stale, while the statistics of an encode still running are left alone.
final class StatsFile {
    /// Suffix of the reserved, locked file; every statistics file's name continues it.
    static let suffix = StagedOutput.statsSuffix

    /// The reserved file; holds the lock, never written.
    private let ownerPath: String
    /// Open on ``ownerPath`` for as long as the statistics live; carries the lock.
    private let lockDescriptor: Int32

    init(destination: String) throws(ConvertError) {
        let folder = PathText.parent(destination)
        var template = PathEncoding.cString(
            "\(folder)/.\(PathText.lastComponent(destination))\(StagedOutput.marker)XXXXXX\(Self.suffix)")
        let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemps(base, Int32(Self.suffix.utf8.count))
        }
        guard descriptor >= 0 else {
            throw ConvertError.fileSystem(errno, action: "create a temporary file in", path: folder)
        }
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        lockDescriptor = descriptor
        ownerPath = PathEncoding.decode(nulTerminated: template)
    }

    /// The path given to x264's `stats` option.
    var path: String { ownerPath + ".stats" }

    /// The average quantizer of the frames in the statistics (each line's `q:`), nil when there are
    /// none: how hard pass 1 found the picture at its bitrate.
    func averageQuantizer() -> Double? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var (sum, count) = (0.0, 0)
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let range = line.range(of: " q:") else { continue }
            let value = line[range.upperBound...].prefix { $0.isNumber || $0 == "." }
            if let quantizer = Double(value) { (sum, count) = (sum + quantizer, count + 1) }
        }
        return count > 0 ? sum / Double(count) : nil
    }

    /// Removes the statistics and every file x264 derived from them, then the reserved file
    /// (last, so no statistics file is ever left without its locked owner while the encode lives).
    func remove() {
        for suffix in [".stats", ".stats.temp", ".stats.mbtree", ".stats.mbtree.temp"] {
            unlink(ownerPath + suffix)
        }
        unlink(ownerPath)
    }

    deinit {
        remove()
        close(lockDescriptor)
    }
}
