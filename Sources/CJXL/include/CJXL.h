#ifndef OFFCONVERT_CJXL_H
#define OFFCONVERT_CJXL_H
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

// libjxl is loaded with dlopen on first use instead of being linked: linked, libjxl and the libhwy
// it needs cost every photo command about 5 ms of start-up (relocations and libhwy's timer
// calibration) although few ask for JPEG XL. The headers still give the types and constants; the
// functions come from offc_jxl_open, which looks each one up in the library these headers
// describe (libjxl.so.<major>.<minor>: another ABI version is not ours to call).

#pragma clang assume_nonnull begin

/// Every libjxl and libjxl_threads function offconvert calls.
#define OFFC_JXL_FUNCTIONS(F) \
    F(JxlEncoderCreate) F(JxlEncoderDestroy) F(JxlEncoderSetParallelRunner) F(JxlEncoderUseContainer) \
    F(JxlEncoderUseBoxes) F(JxlEncoderStoreJPEGMetadata) F(JxlEncoderInitBasicInfo) F(JxlEncoderSetBasicInfo) \
    F(JxlEncoderSetColorEncoding) F(JxlEncoderSetICCProfile) F(JxlColorEncodingSetToSRGB) \
    F(JxlEncoderFrameSettingsCreate) F(JxlEncoderFrameSettingsSetOption) F(JxlEncoderSetFrameLossless) \
    F(JxlEncoderSetFrameDistance) F(JxlEncoderAddImageFrame) F(JxlEncoderAddJPEGFrame) F(JxlEncoderAddBox) \
    F(JxlEncoderCloseBoxes) F(JxlEncoderCloseInput) F(JxlEncoderProcessOutput) F(JxlEncoderGetError) \
    F(JxlDecoderCreate) F(JxlDecoderDestroy) F(JxlDecoderSetParallelRunner) F(JxlDecoderSubscribeEvents) \
    F(JxlDecoderSetDecompressBoxes) F(JxlDecoderSetInput) F(JxlDecoderCloseInput) F(JxlDecoderProcessInput) \
    F(JxlDecoderGetBasicInfo) F(JxlDecoderGetColorAsEncodedProfile) F(JxlDecoderGetICCProfileSize) \
    F(JxlDecoderGetColorAsICCProfile) F(JxlDecoderImageOutBufferSize) F(JxlDecoderSetImageOutBuffer) \
    F(JxlDecoderGetBoxType) F(JxlDecoderSetBoxBuffer) F(JxlDecoderReleaseBoxBuffer)

#define OFFC_JXL_THREAD_FUNCTIONS(F) \
    F(JxlThreadParallelRunner) F(JxlThreadParallelRunnerCreate) F(JxlThreadParallelRunnerDestroy)

#define OFFC_JXL_FIELD(name) __typeof__(&name) name;

/// The functions of one loaded libjxl, each with its own name and C type.
typedef struct {
    OFFC_JXL_FUNCTIONS(OFFC_JXL_FIELD)
    OFFC_JXL_THREAD_FUNCTIONS(OFFC_JXL_FIELD)
} offc_jxl_api;

/// The sonames these headers describe, e.g. "libjxl.so.0.7".
extern const char *const offc_jxl_soname;
extern const char *const offc_jxl_threads_soname;

/// Opens `libjxl` and `libjxl_threads` (sonames or paths) and fills `api`. Returns 0, or -1 when a
/// library or one of its functions is missing, with `api` untouched. The libraries stay loaded for
/// the rest of the process: their functions are called from wherever `api` is copied to.
int offc_jxl_open(const char *libjxl, const char *libjxl_threads, offc_jxl_api *api);

#pragma clang assume_nonnull end

#endif
