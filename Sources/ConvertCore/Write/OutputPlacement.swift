/// What must happen right before, and right after, an output is moved into place.
///
/// The free tier charges a batch when its first output is in place, whichever item finishes
/// first; charging after the conversion returns left a window where a `kill` found outputs in
/// place and nothing charged. A gate bound for a task (``OutputPlacement/gate``) is called by
/// ``StagedOutput/commit(overwrite:renumber:)`` just before its rename, so the charge is on disk
/// before the file is visible.
package protocol PlacementGate: Sendable {
    /// Called before an output is moved into place, on the thread that moves it; may block (it
    /// waits for the disk). Throwing stops the placement: the output is not moved.
    func willPlace() throws(ConvertError)
    /// Called once an output is in place.
    func didPlace()
}

/// The gate of the current task, inherited by its child tasks and carried by ``runBlocking(on:_:)``
/// onto the thread that runs its blocking work.
package enum OutputPlacement {
    /// The gate outputs placed by this task pass through; nil when nothing needs to know.
    @TaskLocal package static var gate: (any PlacementGate)?
}
