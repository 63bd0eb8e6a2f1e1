import ConvertCore
/// The placement gate of a charged command: the reservation is charged for `batch` before the
/// first output is moved into place, whichever item finishes first.
package struct AllowanceGate: PlacementGate {
    /// The command's reservation.
    package let reservation: AllowanceReservation
    /// The batch's key (``BatchJournal/chargeKey``), remembered with the charge.
    package let batch: String

    package init(reservation: AllowanceReservation, batch: String) {
        self.reservation = reservation
        self.batch = batch
    }

    package func willPlace() throws(ConvertError) {
        try reservation.chargeBeforePlacing(batch: batch)
    }

    package func didPlace() {
        reservation.outputMoved()
    }
}
