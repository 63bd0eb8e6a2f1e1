import Testing
@testable import ConvertCore

/// Expects `body` to throw a ``ConvertError`` with `code`, and returns it for further checks.
@discardableResult
func expectConvertError<T>(
    _ code: ConvertError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> ConvertError? {
    do {
        _ = try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as ConvertError {
        #expect(error.code == code, "\(error.code): \(error.message)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// ``expectConvertError(_:sourceLocation:_:)`` for async work.
@discardableResult
func expectConvertError<T>(
    _ code: ConvertError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> ConvertError? {
    do {
        _ = try await body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as ConvertError {
        #expect(error.code == code, "\(error.code): \(error.message)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
