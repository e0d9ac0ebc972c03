import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses XHTML with Foundation's XML parser; returns every `id` attribute.
enum XHTML {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private final class IDs: NSObject, XMLParserDelegate {
        var ids = Set<String>()
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            if let id = attributeDict["id"] { ids.insert(id) }
        }
    }

    static func parse(_ text: String) throws -> Set<String> {
        let parser = XMLParser(data: Data(text.utf8))
        let delegate = IDs()
        parser.delegate = delegate
        guard parser.parse() else {
            throw Malformed(description: "line \(parser.lineNumber): \(parser.parserError.map { "\($0)" } ?? "?")")
        }
        return delegate.ids
    }
}
