internal import CSwscale

/// libswscale, loaded on first use rather than linked (CSwscale.h says why): every
/// ``ScaleContext`` calls through ``functions()``.
enum SwscaleLibrary {
    /// The loaded functions, or the error every resize gets when they cannot be loaded. Swift runs
    /// a global's initialiser once, on first use, whichever thread gets there first.
    private static let loaded = load(String(cString: offc_swscale_soname))

    /// libswscale's functions; throws `unsupported.library` when the library is not installed.
    static func functions() throws(ConvertError) -> offc_swscale_api { try loaded.get().functions }

    /// Loads `library` (a soname or path).
    static func load(_ library: String) -> Result<LoadedLibrary<offc_swscale_api>, ConvertError> {
        LoadedLibrary.open(needs: "Resizing needs \(library) (Debian package libswscale6)") {
            offc_swscale_open(library, $0)
        }
    }
}
