import ArgumentParser
import RederiveCore

/// `rederive generate`: writes synthetic exports (placeholder, owned by the generator work).
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write synthetic exports built from the real sample rooms.")
    func run() throws {}
}
