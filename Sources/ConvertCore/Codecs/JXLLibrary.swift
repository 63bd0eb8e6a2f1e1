internal import CJXL

/// libjxl and libjxl_threads, loaded on first use rather than linked (CJXL.h says why): every
/// JPEG XL encoder, decoder and thread pool calls through ``functions()``.
enum JXLLibrary {
    /// The loaded functions, or the error every JPEG XL conversion gets when they cannot be
    /// loaded. Swift runs a global's initialiser once, on first use, whichever thread gets there
    /// first.
    private static let loaded = load(
        libjxl: String(cString: offc_jxl_soname), threads: String(cString: offc_jxl_threads_soname))

    /// libjxl's functions; throws `unsupported.library` when the library is not installed.
    static func functions() throws(ConvertError) -> offc_jxl_api { try loaded.get().functions }

    /// Loads `libjxl` and `threads` (sonames or paths).
    static func load(libjxl: String, threads: String) -> Result<LoadedLibrary<offc_jxl_api>, ConvertError> {
        LoadedLibrary.open(needs: "JPEG XL needs \(libjxl) and \(threads) (Debian package libjxl0.7)") {
            offc_jxl_open(libjxl, threads, $0)
        }
    }
}
