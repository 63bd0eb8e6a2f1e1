/// What must happen right before, and right after, an output is moved into place.
///
/// The free tier charges a batch when its first output is in place, whichever item finishes
/// first; charging after the conversion returns left a window where a `kill` found outputs in
/// place and nothing charged. A gate is handed to a conversion explicitly (a request's
/// `placementGate`, ``OutputLocation/placementGate``), and ``StagedOutput/commit(overwrite:renumber:gate:)``
/// calls it just before its rename, so the charge is on disk before the file is visible. It is
/// never carried implicitly (a task-local): what charges a conversion shows at its call site.
package protocol PlacementGate: Sendable {
    /// Called before an output is moved into place, on the thread that moves it; may block (it
    /// waits for the disk). Throwing stops the placement: the output is not moved.
    func willPlace() throws(ConvertError)
    /// Called once an output is in place.
    func didPlace()
}
