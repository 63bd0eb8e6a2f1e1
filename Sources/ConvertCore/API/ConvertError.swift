/// The one error type ConvertCore throws.
///
/// Every failure carries a ``Code``, a stable key that fixes its ``Category``, which a caller can
/// branch on (show a "choose another file" hint for `.input`, "free some space" for `.device`,
/// nothing at all for `.cancelled`), a ``message`` that is safe to show to the person who asked
/// for the conversion (it names the file but never contains raw library output or control
/// characters), ``publicMessage``, the same without any path or library name for anyone else
/// (a server's uploader), and an optional ``underlyingDescription`` with the low-level cause (an
/// FFmpeg error string, an errno) for logs.
public struct ConvertError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. An open set: new categories may be added, so `switch` over it
    /// with a `default` case.
    public struct Category: Hashable, Sendable, CustomStringConvertible {
        /// A stable, lower-case identifier such as `"input"`; used in `--json` output.
        public let identifier: String

        /// Creates a category from its stable identifier.
        public init(_ identifier: String) { self.identifier = identifier }

        /// The input is missing, unreadable, truncated, corrupt or not what its name says.
        public static let input = Category("input")
        /// The input is valid but uses a codec, feature or format pair offconvert does not convert.
        public static let unsupported = Category("unsupported")
        /// The request itself is invalid: an option out of range, a target that cannot be met.
        public static let request = Category("request")
        /// Failed for a reason outside the file: no space left, read-only folder, I/O error, not
        /// enough memory for the picture.
        public static let device = Category("device")
        /// The job was cancelled; nothing was written.
        public static let cancelled = Category("cancelled")
        /// The free-tier allowance is used up, or the licence is not valid.
        public static let allowance = Category("allowance")
        /// A bug or an unexpected library failure.
        public static let `internal` = Category("internal")

        public var description: String { identifier }
    }

    /// What kind of failure this is: always ``code``'s category.
    public var category: Category { code.category }
    /// What failed, as a stable key (``Code``): for scripts, translations and tests.
    public var code: Code
    /// ``code``'s key (e.g. `"input.truncated"`), as `--json` prints it.
    public var key: String { code.rawValue }
    /// A one-line, human-readable explanation that is safe to show to a user.
    public var message: String
    /// The path of the file concerned, when there is one.
    public var path: String?
    /// The low-level cause (library error text, errno) for logs and `--verbose`; not for users.
    public var underlyingDescription: String?

    /// Creates an error; its category is `code`'s. `message` must be safe to show: no raw
    /// library output.
    public init(code: Code, message: String, path: String? = nil, underlying: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlyingDescription = underlying
    }

    /// The category and the message, with the underlying cause when there is one: for logs.
    public var description: String {
        var text = "\(category): \(message)"
        if let underlyingDescription { text += " (\(underlyingDescription))" }
        return text
    }

    /// The error a job ends with when its task was cancelled.
    public static func cancelled(path: String? = nil) -> ConvertError {
        ConvertError(code: .cancelled, message: "The conversion was cancelled.", path: path)
    }

    /// Returns a copy naming `path` as the file concerned, unless one is named already.
    package func naming(_ path: String) -> ConvertError {
        guard self.path == nil else { return self }
        var copy = self
        copy.path = path
        return copy
    }
}

extension ConvertError {
    /// Wraps any error thrown inside the engine: a ``ConvertError`` passes through, Swift
    /// cancellation becomes `.cancelled`, anything else becomes `.internal`.
    package static func wrapping(_ error: any Error, path: String? = nil) -> ConvertError {
        if let error = error as? ConvertError { return path.map { error.naming($0) } ?? error }
        if error is CancellationError { return .cancelled(path: path) }
        return ConvertError(
            code: .internalError, message: "An unexpected error stopped the conversion.",
            path: path, underlying: String(describing: error))
    }
}
