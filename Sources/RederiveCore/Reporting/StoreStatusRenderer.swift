/// One format `status` renders a store's status in: its name and how its text is made.
/// `StoreStatus.renderers` lists them; the command picks from that list (the standard output's
/// text or JSON, the `--html` page), and the tests of hostile text and size bounds walk it: a
/// new format is its render (a file of its own), one entry here, and its test.
public struct StoreStatusRenderer: Sendable {
    /// The format's name (`StoreStatus.Format`).
    public var format: String
    /// The format's whole text for a status, as written (to the standard output or a file).
    public var render: @Sendable (StoreStatus) -> String

    /// A renderer writing `render`'s text for `format`.
    public init(format: String, render: @escaping @Sendable (StoreStatus) -> String) {
        (self.format, self.render) = (format, render)
    }
}

extension StoreStatus {
    /// The names of the formats `status` writes.
    public enum Format {
        /// The terminal text (`rederive status`).
        public static let text = "text"
        /// One JSON object and a newline (`--json`).
        public static let json = "json"
        /// A self-contained HTML page (`--html FILE`).
        public static let html = "html"
    }

    /// The formats `status` renders, in the order its help lists them.
    public static let renderers: [StoreStatusRenderer] = [
        StoreStatusRenderer(format: Format.text) { $0.text() },
        StoreStatusRenderer(format: Format.json) { $0.json() + "\n" },
        StoreStatusRenderer(format: Format.html) { $0.html() },
    ]

    /// The renderer of `format` (one of `Format`).
    public static func renderer(_ format: String) -> StoreStatusRenderer {
        guard let renderer = renderers.first(where: { $0.format == format }) else {
            preconditionFailure("no status renderer for \(format)")
        }
        return renderer
    }

    /// This status in `format` (one of `Format`).
    public func rendered(_ format: String) -> String { Self.renderer(format).render(self) }
}
