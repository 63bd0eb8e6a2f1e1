/// One entry of the file managers' context menus: what it is called, which command it runs,
/// and the file types it is offered for.
package struct DesktopAction: Sendable {
    /// The name `offconvert desktop run` takes and the installed files are named after
    /// (`convert-to-jpeg`).
    package var id: String
    /// The menu label.
    package var label: String
    /// The tooltip.
    package var comment: String
    /// The offconvert command the action runs on the selection.
    package var command: String
    /// The MIME types it is offered for (Dolphin, Nemo).
    var mimeTypes: [String]
    /// The file extensions it is offered for, lowercase (Thunar's patterns).
    package var extensions: [String]
    /// A freedesktop icon name.
    var icon: String
    /// Whether its result is text to show (info) rather than files written next to the inputs.
    var showsOutput = false

    /// Whether it is offered for photos (Thunar's `<image-files/>`).
    var forPhotos: Bool { mimeTypes.contains { $0.hasPrefix("image/") } }
    /// Whether it is offered for videos (Thunar's `<video-files/>`).
    var forVideos: Bool { mimeTypes.contains { $0.hasPrefix("video/") } }

    /// Photo formats offconvert reads that are not already JPEG.
    static let photoTypes = [
        "image/heic", "image/heif", "image/avif", "image/png", "image/webp", "image/gif", "image/jxl", "image/bmp",
        "image/tiff", "image/x-tga", "image/x-portable-anymap", "image/x-portable-pixmap", "image/x-portable-graymap",
        "image/x-portable-bitmap", "image/vnd.microsoft.icon", "image/vnd.adobe.photoshop", "image/jp2",
    ]
    static let photoExtensions = [
        "heic", "heif", "avif", "png", "webp", "gif", "jxl", "bmp", "tif", "tiff", "tga", "pnm", "ppm", "pgm", "pam",
        "ico", "psd", "jp2", "j2k",
    ]
    /// What phones and cameras record.
    static let videoTypes = [
        "video/quicktime", "video/mp4", "video/x-m4v", "video/x-matroska", "video/webm", "video/3gpp", "video/mp2t",
        "video/x-msvideo",
    ]
    static let videoExtensions = ["mov", "mp4", "m4v", "mkv", "webm", "3gp", "ts", "avi"]

    /// Every action, in menu order.
    package static let all: [DesktopAction] = [
        DesktopAction(
            id: "convert-to-jpeg", label: "Convert to JPEG",
            comment: "Write a JPEG next to each photo (location removed).",
            command: "heic-to-jpg", mimeTypes: photoTypes, extensions: photoExtensions, icon: "image-x-generic"),
        DesktopAction(
            id: "send-to-windows", label: "Send to a Windows PC",
            comment: "Write an MP4 (H.264, AAC) next to each video that plays on any Windows PC.",
            command: "send-to-windows", mimeTypes: videoTypes, extensions: videoExtensions, icon: "video-x-generic"),
        DesktopAction(
            id: "email", label: "Make small enough to e-mail",
            comment: "Write a copy of each video of at most 25 MB next to it.",
            command: "email", mimeTypes: videoTypes, extensions: videoExtensions, icon: "mail-attachment"),
        DesktopAction(
            id: "remove-location", label: "Remove location",
            comment: "Write a copy without where it was made, next to each photo or video.", command: "strip-location",
            mimeTypes: [
                "image/jpeg", "image/png", "image/webp", "image/heic", "image/heif", "image/avif", "video/mp4",
                "video/quicktime",
            ],
            extensions: ["jpg", "jpeg", "png", "webp", "heic", "heif", "avif", "mp4", "mov"], icon: "edit-clear"),
        DesktopAction(
            id: "show-info", label: "Show what is in this file",
            comment: "Show the format, size, tracks, metadata and location of each file.", command: "info",
            mimeTypes: ["image/jpeg"] + photoTypes + videoTypes,
            extensions: ["jpg", "jpeg"] + photoExtensions + videoExtensions,
            icon: "dialog-information", showsOutput: true),
    ]

    /// The action called `id`.
    package static func named(_ id: String) -> DesktopAction? { all.first { $0.id == id } }
}
