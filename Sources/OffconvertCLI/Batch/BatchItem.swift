import ConvertCore

/// One item of a batch as the command's conversion sees it.
package struct BatchItem: Sendable {
    /// Position in the batch (after `--shard`).
    package var index: Int
    /// The input path as given.
    package var input: String
    /// Where the output must go: a fresh, safe name reserved for this item. Hand it to the
    /// engine, which writes it through a staged temporary file.
    package var destination: String
    /// The item's declared peak memory.
    package var cost: Int64
    /// `--overwrite`: pass it to the engine so its staged output may replace an existing file
    /// at ``destination`` (the namer already made sure that file is not an input).
    package var overwrite: Bool
    /// Size of the item's input(s), for speed and the summary.
    package var inputBytes: Int64 = 0
    /// The input's permission bits and modification time before the conversion, given to its
    /// outputs (read before, so an in-place change keeps the original's time).
    var inputStamp: FileStamp?
    /// Every input the item reads: ``input`` alone, or all of the batch's inputs when they go
    /// into one output (after inputs of another kind were set aside).
    package var sources: [String] = []
    /// Whether ``destination`` was chosen by the namer (not typed by the user): the engine may
    /// then number around it if another process takes the name first.
    package var mayRenumber = false
    /// The photo input as the cost estimate read it (see ``BatchWork/probe``), handed to the
    /// conversion so it does not parse the file again; nil when no estimate read it.
    package var photo: PhotoInput?
    /// What the item's output passes through as it is moved into place: the free tier's charge,
    /// set by ``BatchRunner`` for the run. Every command hands it to its request (see
    /// ``outputLocation``), so the charge is on disk before the output is visible.
    package var placementGate: (any PlacementGate)?

    /// An item; the rest of its fields are filled in by the plan.
    package init(index: Int, input: String, destination: String, cost: Int64, overwrite: Bool) {
        self.index = index
        self.input = input
        self.destination = destination
        self.cost = cost
        self.overwrite = overwrite
    }

    /// Where the item's output goes, as the engine's video and motion-photo requests take it:
    /// ``destination``, replaced only with `--overwrite`, numbered around a name taken meanwhile
    /// when the namer chose it, through the item's placement gate.
    package var outputLocation: OutputLocation {
        var location = OutputLocation(path: destination, overwrite: overwrite, mayRenumber: mayRenumber)
        location.placementGate = placementGate
        return location
    }
}
