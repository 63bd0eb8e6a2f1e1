import FoundationEssentials

/// Finds Live Photo pairs by their content identifier, never by name alone: a renamed export
/// (`Beach.heic` + `IMG_0001.MOV`) still pairs, and two files that merely share a stem do not.
///
/// The identifiers are read with our own readers (no decoder): the EXIF of a HEIC libheif cannot
/// open is still found, and a MOV's keys come from its movie box without touching its samples.
public enum LivePhotos {
    static let photoExtensions: Set<String> = ["heic", "heif", "jpg", "jpeg"]
    static let movieExtensions: Set<String> = ["mov", "mp4"]
    /// The most candidates looked at in one folder for one file's partner.
    static let maximumCandidates = 2000

    /// The content identifier of the photo at `path` (Apple MakerNote tag 0x0011), or nil.
    public static func photoIdentifier(_ path: String) -> String? {
        PhotoEXIF.tiff(path: path).flatMap(AppleMakerNote.contentIdentifier(exif:))
    }

    /// The content identifier of the movie at `path`, or nil.
    public static func movieIdentifier(_ path: String) -> String? {
        guard let source = try? FileByteSource(path: path) else { return nil }
        return MovieKeys.value(MovieKeys.contentIdentifier, in: source)
    }

    /// The Live Photo pairs among `paths`: each photo with the movie carrying its identifier.
    public static func pairs(among paths: [String]) -> [LivePhotoPair] {
        var movies: [String: [String]] = [:]
        for path in paths where movieExtensions.contains(PathText.fileExtension(path).lowercased()) {
            if let id = movieIdentifier(path) { movies[id, default: []].append(path) }
        }
        guard !movies.isEmpty else { return [] }
        var pairs: [LivePhotoPair] = []
        var used: Set<String> = []
        for path in paths where photoExtensions.contains(PathText.fileExtension(path).lowercased()) {
            guard let id = photoIdentifier(path), let candidates = movies[id]?.filter({ !used.contains($0) }),
                !candidates.isEmpty
            else { continue }
            // Each movie goes to one photo; the one beside it under the same name first.
            let sameName = candidates.first {
                PathText.parent($0) == PathText.parent(path) && stemOf($0) == stemOf(path)
            }
            let movie = sameName ?? candidates[0]
            used.insert(movie)
            pairs.append(LivePhotoPair(photo: path, movie: movie, contentIdentifier: id))
        }
        return pairs
    }

    /// The pair `path` (a photo or a movie) belongs to, its partner looked for in the same
    /// folder: files of the same name first, then the others; nil when it has no identifier or
    /// no partner is there.
    public static func pair(of path: String) -> (id: String?, pair: LivePhotoPair?) {
        let isMovie = movieExtensions.contains(PathText.fileExtension(path).lowercased())
        guard let id = isMovie ? movieIdentifier(path) : photoIdentifier(path) else { return (nil, nil) }
        let wanted = isMovie ? photoExtensions : movieExtensions
        let folder = PathText.parent(path)
        let names = (FolderListing.names(in: folder) ?? []).sorted()
        // Partners are named the way the file was: `IMG_1.MOV` beside `IMG_1.HEIC`, `a/IMG_1.MOV` beside `a/IMG_1.HEIC`.
        let prefix = !path.contains("/") ? "" : folder == "/" ? "/" : folder + "/"
        let stem = stemOf(PathText.lastComponent(path))
        let candidates = names.filter { wanted.contains(PathText.fileExtension($0).lowercased()) && !$0.hasPrefix(".") }
        let ordered = candidates.filter { stemOf($0) == stem } + candidates.filter { stemOf($0) != stem }
        for name in ordered.prefix(maximumCandidates) {
            let candidate = prefix + name
            let other = isMovie ? photoIdentifier(candidate) : movieIdentifier(candidate)
            if other == id {
                let pair =
                    isMovie
                    ? LivePhotoPair(photo: candidate, movie: path, contentIdentifier: id)
                    : LivePhotoPair(photo: path, movie: candidate, contentIdentifier: id)
                return (id, pair)
            }
        }
        return (id, nil)
    }

    /// What `info` shows for `path`; nil when it carries no content identifier.
    public static func info(for path: String) -> LivePhotoInfo? {
        let (id, pair) = pair(of: path)
        guard let id else { return nil }
        let partner = pair.map { $0.photo == path ? $0.movie : $0.photo }
        return LivePhotoInfo(contentIdentifier: id, pairedWith: partner)
    }

    private static func stemOf(_ path: String) -> String {
        let name = PathText.lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
