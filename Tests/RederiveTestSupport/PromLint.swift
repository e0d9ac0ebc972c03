/// The rules of Prometheus 2.42's promlint (`promtool check metrics`) that a gauge-only metrics
/// file can break, for tests that write one (`MetricsLintTests` checks the rules themselves).
enum PromLint {
    /// promlint's problems for `text`, as its messages say them (empty: clean).
    static func problems(_ text: String) -> [String] {
        var problems: [String] = []
        var help: Set<String> = [], types: [String: String] = [:]
        let typeNames = ["counter", "gauge", "summary", "untyped", "histogram", "gaugehistogram"]
        let abbreviations: Set = ["s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "pb", "m", "h", "d"]
        let nonBaseUnits: Set = [
            "minutes", "hours", "days", "weeks", "milliseconds", "microseconds", "nanoseconds", "kilobytes",
            "megabytes", "gigabytes", "bits", "percent", "kilograms", "celsius", "fahrenheit",
        ]
        func isSnakeCase(_ name: String) -> Bool {
            name.first.map { $0.isLowercase || $0 == "_" } == true
                && name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" || $0 == ":" }
        }
        for line in text.split(separator: "\n").map(String.init) {
            let words = line.split(separator: " ", maxSplits: 3).map(String.init)
            if line.hasPrefix("# HELP ") {
                if words.count < 4 || words[3].isEmpty { problems.append("\(words[2]): no help text") }
                help.insert(words[2])
            } else if line.hasPrefix("# TYPE ") {
                types[words[2]] = words[3]
            } else if !line.hasPrefix("#") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                guard let type = types[name] else {
                    problems.append("\(name): sample before its TYPE")
                    continue
                }
                if !help.contains(name) { problems.append("\(name): no help text") }
                let labels = line.drop { $0 != "{" }.prefix { $0 != "}" }.dropFirst()
                for pair in labels.split(separator: ",") {
                    let label = String(pair.prefix { $0 != "=" })
                    if !isSnakeCase(label) { problems.append("\(name): label names should be written in 'snake_case'") }
                    if label == "le" && type != "histogram" { problems.append("\(name): non-histogram with \"le\"") }
                    if label == "quantile" && type != "summary" {
                        problems.append("\(name): non-summary with quantile")
                    }
                }
            }
        }
        for (name, type) in types {
            let lower = name.lowercased()
            if !isSnakeCase(name) { problems.append("\(name): metric names should be written in 'snake_case'") }
            for t in typeNames where lower.contains("_\(t)_") || lower.hasSuffix("_\(t)") {
                problems.append("\(name): metric name should not include type '\(t)'")
            }
            if type == "counter" && !name.hasSuffix("_total") {
                problems.append("\(name): counter metrics should have \"_total\" suffix")
            }
            if type != "counter" && name.hasSuffix("_total") {
                problems.append("\(name): non-counter metrics should not have \"_total\" suffix")
            }
            if type != "histogram" && (name.hasSuffix("_bucket") || name.hasSuffix("_count")) {
                problems.append("\(name): non-histogram metric with a histogram suffix")
            }
            if type != "histogram" && type != "summary" && name.hasSuffix("_sum") {
                problems.append("\(name): metric name should not have \"_sum\" suffix")
            }
            let parts = name.split(separator: "_").map(String.init)
            if parts.contains(where: abbreviations.contains) {
                problems.append("\(name): metric names should not contain abbreviated units")
            }
            if let unit = parts.first(where: nonBaseUnits.contains) {
                problems.append("\(name): use base unit instead of \"\(unit)\"")
            }
        }
        return problems.sorted()
    }
}
