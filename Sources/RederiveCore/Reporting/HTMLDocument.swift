/// Builds the self-contained HTML reports (`preview.html`, `status --html`): XHTML-compatible
/// markup (every element closed, every attribute quoted, no named entities but XML's), inline
/// CSS and inline SVG, no script and nothing fetched, so the file opens from disk anywhere
/// and parses as XML.
struct HTMLDocument {
    /// The body so far.
    private(set) var body = ""

    /// Appends markup as is.
    mutating func raw(_ markup: String) { body += markup }

    /// Appends `<tag>text</tag>` with `text` escaped.
    mutating func element(_ tag: String, _ text: String, class cls: String? = nil) {
        body +=
            "<\(tag)" + (cls.map { " class=\"\(Self.escape($0))\"" } ?? "") + ">" + Self.escape(text) + "</\(tag)>\n"
    }

    /// Appends a table; `cells` are markup (escape text with `escape`), `numeric` columns right-aligned.
    mutating func table(header: [String], rows: [[String]], numeric: Set<Int> = []) {
        var out = "<table>\n<thead><tr>"
        for (i, h) in header.enumerated() {
            out += "<th" + (numeric.contains(i) ? " class=\"num\"" : "") + ">" + Self.escape(h) + "</th>"
        }
        out += "</tr></thead>\n<tbody>\n"
        for row in rows {
            out += "<tr>"
            for (i, c) in row.enumerated() {
                out += "<td" + (numeric.contains(i) ? " class=\"num\"" : "") + ">" + c + "</td>"
            }
            out += "</tr>\n"
        }
        body += out + "</tbody>\n</table>\n"
    }

    /// The whole page.
    func page(title: String) -> String {
        """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(Self.escape(title))</title>
        <style>\(Self.css)</style>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    /// Text as XML content or attribute value (`MarkupText.escaped`): markup escaped, control
    /// characters replaced, bidi controls and noncharacters dropped, so the page stays
    /// well-formed XML and reads in its own order whatever the data holds.
    static func escape(_ text: String) -> String { MarkupText.escaped(text) }

    /// `<code>text</code>`, escaped.
    static func code(_ text: String) -> String { "<code>" + escape(text) + "</code>" }

    private static let css = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;margin:24px auto;\
        max-width:1100px;padding:0 16px}
        h1{font-size:24px;margin:0 0 8px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #d8dde6;\
        padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
        p.meta{color:#5b6475;margin:2px 0}
        code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f3f7;padding:1px 4px;\
        border-radius:3px}
        table{border-collapse:collapse;margin:8px 0 14px;font-size:13px}
        th,td{border:1px solid #d8dde6;padding:3px 8px;text-align:left;vertical-align:top}
        th{background:#f4f6fa}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
        .cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
        .card{border:1px solid #d8dde6;border-radius:6px;padding:8px 14px;min-width:120px}
        .card b{display:block;font-size:22px}.card span{color:#5b6475;font-size:12px}
        .card.warn{border-color:#e0a030;background:#fff8ea}.card.bad{border-color:#d04545;background:#fff1f1}
        .charts{display:flex;flex-wrap:wrap;gap:12px}
        figure{margin:6px 0;border:1px solid #e2e6ee;border-radius:6px;padding:6px}
        figcaption{font-size:12px;color:#5b6475}
        svg text{font:11px system-ui,sans-serif;fill:#3a4252}
        svg .axis{stroke:#9aa3b2;stroke-width:1}svg .grid{stroke:#e6e9ef;stroke-width:1}
        svg .s0{fill:#4c78a8}svg .s1{fill:#f58518}svg .s2{fill:#d04545}svg .s3{fill:#72b7b2}
        svg .overlay{fill-opacity:.55}
        svg .line0{stroke:#4c78a8;fill:none;stroke-width:1.5}svg .line1{stroke:#f58518;fill:none;stroke-width:1.5}
        svg circle.s0{stroke:none}svg circle.s1{stroke:none}
        svg .limit-yellow{stroke:#e0a030;stroke-width:1.5;stroke-dasharray:5 3}
        svg .limit-red{stroke:#d04545;stroke-width:1.5;stroke-dasharray:5 3}
        .unchanged{color:#5b6475}
        """
}
