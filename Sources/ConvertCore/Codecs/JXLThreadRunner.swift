internal import CJXL

/// Owns a libjxl thread pool (`JxlThreadParallelRunnerCreate`); destroyed with
/// `JxlThreadParallelRunnerDestroy`. One per encoder or decoder: the runner is not reentrant
/// (libjxl allows one `JxlThreadParallelRunner` call per instance at a time).
final class JXLThreadRunner {
    private let runner: UnsafeMutableRawPointer
    /// libjxl's functions (loaded on first use: see ``JXLLibrary``).
    private let jxl: offc_jxl_api

    /// A pool of `threads` workers (at least 1).
    init(threads: Int) throws(ConvertError) {
        jxl = try JXLLibrary.functions()
        guard let runner = jxl.JxlThreadParallelRunnerCreate(nil, max(1, threads)) else {
            throw ConvertError(code: .internalMemory, message: "Out of memory.")
        }
        self.runner = runner
    }

    deinit { jxl.JxlThreadParallelRunnerDestroy(runner) }

    /// Attaches the pool to `encoder`; the encoder must not outlive this runner.
    func attach(to encoder: OpaquePointer) -> Bool {
        jxl.JxlEncoderSetParallelRunner(encoder, jxl.JxlThreadParallelRunner, runner) == JXL_ENC_SUCCESS
    }

    /// Attaches the pool to `decoder`; the decoder must not outlive this runner.
    func attach(decoder: OpaquePointer) -> Bool {
        jxl.JxlDecoderSetParallelRunner(decoder, jxl.JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS
    }
}
