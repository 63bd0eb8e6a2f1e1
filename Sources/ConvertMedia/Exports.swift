/// `import ConvertMedia` gives the whole engine: the photo half and the shared types (errors, jobs,
/// photo requests) come from ConvertCore, the video requests from MediaRequests.
@_exported import ConvertCore
@_exported import MediaRequests
