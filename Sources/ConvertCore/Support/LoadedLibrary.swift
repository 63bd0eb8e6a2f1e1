/// The function table of a C library opened with dlopen on first use instead of being linked
/// (libjxl, libswscale, and FFmpegLayer's libavfilter: see their module headers for why). The
/// table holds plain C function pointers into a library that stays loaded for the rest of the
/// process, so any thread may call them.
///
/// `@unchecked Sendable`: `Functions` is a table of C function pointers, immutable once filled,
/// into a library that is never closed.
package struct LoadedLibrary<Functions>: @unchecked Sendable {
    /// The library's functions.
    package let functions: Functions

    /// The table `open` fills (returning 0), or `unsupported.library` with the message
    /// "`needs`, which could not be loaded." when it cannot.
    package static func open(
        needs: String, _ open: (UnsafeMutablePointer<Functions>) -> Int32
    ) -> Result<Self, ConvertError> {
        let functions = withUnsafeTemporaryAllocation(of: Functions.self, capacity: 1) { slot -> Functions? in
            guard let base = slot.baseAddress, open(base) == 0 else { return nil }
            return base.move()
        }
        guard let functions else {
            return .failure(ConvertError(code: .unsupportedLibrary, message: "\(needs), which could not be loaded."))
        }
        return .success(LoadedLibrary(functions: functions))
    }
}
