import XCTest
@testable import RederiveCore

/// The HTML reports' bar charts (issue 36 #15): the y axis's three tick labels are distinct,
/// however small the peak ("Duration per run (s)" was labelled 0.0, 0.1, 0.1).
final class SVGChartTests: XCTestCase {
    /// The y axis's labels (right-aligned text), bottom to top.
    private func ticks(_ svg: String) -> [String] {
        svg.components(separatedBy: "text-anchor=\"end\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    func testTickLabelsAreDistinctForASmallPeak() {
        let svg = SVGChart.bars(
            labels: ["1 import", "2 derive"], series: [.init(name: "seconds", values: [0.13, 0.05])],
            id: "chart-runs-duration", caption: "Duration per run (s)", format: { format($0, 1) })
        XCTAssertEqual(ticks(svg), ["0.00", "0.07", "0.13"], svg)
    }

    func testTickLabelsKeepTheirFormatWhenAlreadyDistinct() {
        let svg = SVGChart.bars(
            labels: ["a", "b"], series: [.init(name: "seconds", values: [2.4, 1.1])],
            id: "c", caption: "c", format: { format($0, 1) })
        XCTAssertEqual(ticks(svg), ["0.0", "1.2", "2.4"], svg)
        let counts = SVGChart.bars(labels: ["a"], series: [.init(name: "n", values: [4])], id: "d", caption: "d")
        XCTAssertEqual(ticks(counts), ["0", "2", "4"], counts)
    }
}
