internal import CFFmpeg
import ConvertCore

/// libavfilter, loaded on first use rather than linked (CFFmpeg's shim.h says why): every
/// ``FilterGraph`` and ``FFmpeg/hasFilter(named:)`` calls through ``functions()``.
enum AVFilterLibrary {
    /// The loaded functions, or the error every filter graph gets when they cannot be loaded.
    /// Swift runs a global's initialiser once, on first use, whichever thread gets there first.
    private static let loaded = load(String(cString: offc_avfilter_soname()))

    /// libavfilter's functions; throws `unsupported.library` when the library is not installed.
    static func functions() throws(ConvertError) -> offc_avfilter_api { try loaded.get().functions }

    /// Loads `library` (a soname or path).
    static func load(_ library: String) -> Result<LoadedLibrary<offc_avfilter_api>, ConvertError> {
        LoadedLibrary.open(needs: "Video filters need \(library) (Debian package libavfilter8)") {
            offc_avfilter_open(library, $0)
        }
    }
}
