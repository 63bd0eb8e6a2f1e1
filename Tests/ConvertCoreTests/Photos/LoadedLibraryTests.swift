import Testing

@testable import ConvertCore

/// libjxl and libswscale are opened on first use: present, every function of the table is found
/// in the library the headers describe; absent, the conversion gets a clear `unsupported.library`
/// naming what to install, and nothing crashes.
@Suite("Libraries opened on first use")
struct LoadedLibraryTests {
    @Test("the installed libjxl and libswscale load, and a JPEG XL encoder and a resize work through them")
    func installed() throws {
        _ = try JXLLibrary.functions()
        _ = try SwscaleLibrary.functions()
        _ = try JXLEncoder(threads: 2)
        let bitmap = Bitmap(
            width: 4, height: 4, channels: 3, samples: .eight([UInt8](repeating: 200, count: 48)), sourceBitDepth: 8)
        let resized = try Resampler.resize(bitmap, width: 2, height: 2)
        #expect(resized.width == 2 && resized.eightBitSamples == [UInt8](repeating: 200, count: 12))
    }

    @Test("a missing libjxl is unsupported.library, naming the libraries and the package")
    func missingJXL() {
        let error = expectConvertError(.unsupportedLibrary) {
            try JXLLibrary.load(libjxl: "libjxl-absent.so.0.7", threads: "libjxl_threads.so.0.7").get()
        }
        #expect(error?.category == .unsupported)
        #expect(
            error?.message
                == "JPEG XL needs libjxl-absent.so.0.7 and libjxl_threads.so.0.7 (Debian package libjxl0.7), which could not be loaded."
        )
        // A library that exists but lacks the functions (another library's soname) is refused too.
        expectConvertError(.unsupportedLibrary) {
            try JXLLibrary.load(libjxl: "libz.so.1", threads: "libjxl_threads.so.0.7").get()
        }
        expectConvertError(.unsupportedLibrary) {
            try JXLLibrary.load(libjxl: "libjxl.so.0.7", threads: "libz.so.1").get()
        }
    }

    @Test("a missing libswscale is unsupported.library")
    func missingSwscale() {
        let error = expectConvertError(.unsupportedLibrary) { try SwscaleLibrary.load("libswscale-absent.so.6").get() }
        #expect(
            error?.message
                == "Resizing needs libswscale-absent.so.6 (Debian package libswscale6), which could not be loaded.")
        expectConvertError(.unsupportedLibrary) { try SwscaleLibrary.load("libz.so.1").get() }
    }
}
