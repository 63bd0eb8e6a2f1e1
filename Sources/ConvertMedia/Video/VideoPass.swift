import ConvertCore
import Foundation

/// One run of a ``VideoPlan`` through ``FramePump`` into a staged output: complete, not yet in
/// place. Its owner measures it, then commits it with ``VideoJob/commit(_:output:reporter:)``
/// or discards it; a pass released uncommitted (an error, a cancellation) is removed with its
/// ``StagedOutput``.
struct VideoPass {
    /// The temporary file the pass wrote.
    let staged: StagedOutput
    /// Container tags left out because they give a location.
    let removedLocationTags: Int
    /// Damaged packets the decoders skipped.
    let damagedPackets: Int
    /// Facts the lanes found while opening their streams.
    let laneNotes: [String]

    /// Where the pass's file is until it is committed.
    var temporaryPath: String { staged.temporaryPath }

    /// The size of the written file.
    func byteCount() throws(ConvertError) -> Int64 {
        var info = stat()
        guard stat(temporaryPath, &info) == 0 else {
            throw ConvertError.fileSystem(errno, action: "measure", path: temporaryPath)
        }
        return Int64(info.st_size)
    }

    /// Removes the written file now.
    func discard() { staged.discard() }

    /// The note on skipped damaged packets, if any were.
    var damagedNote: String? {
        damagedPackets > 0 ? "\(damagedPackets) damaged packet\(damagedPackets == 1 ? "" : "s") skipped" : nil
    }
}
