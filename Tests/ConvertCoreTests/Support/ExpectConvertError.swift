import Testing

@testable import ConvertCore

/// Expects `body` to throw a ``ConvertError`` with `code`, and returns it for further checks.
@discardableResult
func expectConvertError<T>(
    _ code: ConvertError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> ConvertError? {
    checked(Result { try body() }, code, sourceLocation)
}

/// ``expectConvertError(_:sourceLocation:_:)`` for async work.
@discardableResult
func expectConvertError<T>(
    _ code: ConvertError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> ConvertError? {
    let outcome: Result<T, any Error>
    do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
    return checked(outcome, code, sourceLocation)
}

private func checked<T>(_ outcome: Result<T, any Error>, _ code: ConvertError.Code, _ sourceLocation: SourceLocation)
    -> ConvertError?
{
    switch outcome {
    case .success:
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    case .failure(let error as ConvertError):
        #expect(error.code == code, "\(error.code): \(error.message)", sourceLocation: sourceLocation)
        return error
    case .failure(let error):
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
