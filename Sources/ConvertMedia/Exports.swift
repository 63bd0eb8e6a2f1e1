/// `import ConvertMedia` gives the whole engine: the photo half and the shared types (errors, jobs,
/// requests, the allowance) come from ConvertCore.
@_exported import ConvertCore
