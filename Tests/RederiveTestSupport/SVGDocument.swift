import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// An SVG parsed with Foundation's XMLParser: its elements in document order (name, attributes,
/// class tokens) and its text nodes.
struct SVGDocument {
    struct Element {
        var name: String
        var attributes: [String: String]
        var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
    }

    private(set) var elements: [Element] = []
    private(set) var texts: [String] = []
    var root: String? { elements.first?.name }

    init(_ text: String) throws {
        let collector = Collector()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = collector
        guard parser.parse() else {
            throw RoomFixtures.FixtureError(
                description:
                    "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?") at line \(parser.lineNumber)")
        }
        elements = collector.elements
        texts = collector.texts
    }

    /// Elements carrying class token `cls`.
    func count(_ cls: String) -> Int { elements.filter { $0.classes.contains(cls) }.count }

    func number(_ element: Element, _ key: String) throws -> Double {
        guard let value = element.attributes[key].flatMap(Double.init) else {
            throw RoomFixtures.FixtureError(description: "\(element.name) has no number \(key)")
        }
        return value
    }

    /// The root's width and height.
    func size() throws -> (Double, Double) {
        let root = try XCTUnwrap(elements.first)
        return (try number(root, "width"), try number(root, "height"))
    }

    /// Units per metre, from the scale bar: its first line's length over its label's metres.
    func unitsPerMetre() throws -> Double {
        let index = try XCTUnwrap(elements.firstIndex { $0.classes.contains("scale-bar") })
        let bar = elements[index + 1]
        let length = try number(bar, "x2") - number(bar, "x1")
        let label = try XCTUnwrap(texts.first { $0.hasSuffix(" m") || $0.hasSuffix(" cm") || $0.hasSuffix(" km") })
        let parts = label.split(separator: " ")
        let value = try XCTUnwrap(Double(parts[0]))
        let metres = value * (parts[1] == "cm" ? 0.01 : parts[1] == "km" ? 1000 : 1)
        return length / metres
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var texts: [String] = []
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append(Element(name: name, attributes: attributes))
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" { texts.append(text) }
            text = ""
        }
    }
}
