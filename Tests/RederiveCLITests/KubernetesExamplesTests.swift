import Foundation
import XCTest
import Yams
@testable import RederiveCore
@testable import RederiveTestSupport

/// The Kubernetes examples in docs/install.md (issue 36 #10; security review S05, S17 (4)),
/// parsed as YAML and checked where a cluster would go wrong: the exit codes mapped by a
/// `podFailurePolicy` as the exit-code table says (3 and the signal stops are not failures),
/// late pods joining one run, no schedule that rewrites summaries without the plan gate, the
/// password from a Secret, TLS that checks the server, and a restrictive security context.
final class KubernetesExamplesTests: XCTestCase {
    /// How a Job must treat each exit status (nil: counted against `backoffLimit`, retried).
    /// A new `ExitStatus` case fails the test until it is placed here and in the docs' policy
    /// (issue 33's "paused" status: "Ignore").
    private static func expectedAction(_ status: ExitStatus) -> String? {
        switch status {
        case .ok: nil  // not a failure at all
        case .skippedRecords, .interrupted, .terminated, .paused: "Ignore"
        case .usage, .errorBudget, .refused, .emptyExport: "FailJob"
        case .failure, .busy: nil  // a lost server or a busy store: worth a retry
        case .needsAttention: nil  // status --check only
        }
    }

    /// The YAML blocks of docs/install.md, parsed.
    private func documents() throws -> [[String: Any]] {
        let text = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent("docs/install.md"), encoding: .utf8)
        var blocks: [String] = [], current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```yaml" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return try blocks.map { try XCTUnwrap(try Yams.load(yaml: $0) as? [String: Any], $0) }
    }

    private func dig(_ value: Any?, _ path: String...) -> Any? {
        path.reduce(value) { ($0 as? [String: Any])?[$1] }
    }

    func testTheCronJobAndTheBackfillJobFitTheExitCodesAndAreLockedDown() throws {
        let docs = try documents()
        let cron = try XCTUnwrap(docs.first { $0["kind"] as? String == "CronJob" }, "no CronJob example")
        let backfill = try XCTUnwrap(docs.first { $0["kind"] as? String == "Job" }, "no Job example")
        XCTAssertEqual(dig(cron, "spec", "concurrencyPolicy") as? String, "Forbid")
        let nightlyJob = try XCTUnwrap(dig(cron, "spec", "jobTemplate", "spec") as? [String: Any])
        let backfillJob = try XCTUnwrap(backfill["spec"] as? [String: Any])

        for (name, job) in [("nightly", nightlyJob), ("backfill", backfillJob)] {
            let pod = try XCTUnwrap(dig(job, "template", "spec") as? [String: Any], name)
            XCTAssertEqual(pod["restartPolicy"] as? String, "Never", "\(name): podFailurePolicy needs Never")
            try checkPolicy(job, name: name)
            let container = try XCTUnwrap((pod["containers"] as? [[String: Any]])?.first, name)
            XCTAssertEqual(container["name"] as? String, "rederive", name)
            try checkLockedDown(pod: pod, container: container, name: name)
            let args = try XCTUnwrap(container["args"] as? [String], name)
            XCTAssertEqual(args.first, "derive", name)
            XCTAssertFalse(args.contains("--all"), "\(name): no scheduled rewrite outside the plan gate")
            try checkConnection(args: args, container: container, pod: pod, name: name)
        }
        // The nightly derives what is new and refuses rewrites; its pods are one run.
        let nightly = try XCTUnwrap(
            (dig(nightlyJob, "template", "spec", "containers") as? [[String: Any]])?.first)
        let nightlyArgs = try XCTUnwrap(nightly["args"] as? [String])
        let limit = try XCTUnwrap(nightlyArgs.firstIndex(of: "--max-changes"), "\(nightlyArgs)")
        XCTAssertEqual(nightlyArgs[limit + 1], "0")
        let env = try XCTUnwrap(nightly["env"] as? [[String: Any]])
        let group = try XCTUnwrap(env.first { $0["name"] as? String == DeriveConfiguration.processGroupVariable })
        XCTAssertEqual(
            dig(group, "valueFrom", "fieldRef", "fieldPath") as? String,
            "metadata.labels['batch.kubernetes.io/controller-uid']", "one group per Job")
        // The backfill applies a reviewed plan mounted from a ConfigMap.
        let pod = try XCTUnwrap(dig(backfillJob, "template", "spec") as? [String: Any])
        let container = try XCTUnwrap((pod["containers"] as? [[String: Any]])?.first)
        let args = try XCTUnwrap(container["args"] as? [String])
        let plan = try XCTUnwrap(args.firstIndex(of: "--apply-plan").map { args[$0 + 1] }, "\(args)")
        let volume = try XCTUnwrap(mountedVolume(for: plan, pod: pod, container: container), plan)
        XCTAssertNotNil(dig(volume, "configMap", "name") as? String, "the plan comes from a ConfigMap")
    }

    /// The nightly's command as the CronJob runs it (its `--db` a local store here): the pods of
    /// one Job share `REDERIVE_PROCESS_GROUP`, so one that starts after the run is done exits 0
    /// without a second pass; the next Job (another uid) is a run of its own.
    func testALatePodOfTheNightlyFindsItsJobsRunDone() throws {
        let cron = try XCTUnwrap(try documents().first { $0["kind"] as? String == "CronJob" })
        let container = try XCTUnwrap(
            (dig(cron, "spec", "jobTemplate", "spec", "template", "spec", "containers") as? [[String: Any]])?.first)
        var args = try XCTUnwrap(container["args"] as? [String])
        let dir = try TemporaryDirectory()
        let db = dir.file("rooms.sqlite")
        let imported = try CommandLineTool.invoke(["import", "Fixtures/exports", "--db", db, "-q"], scratch: dir)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        args[try XCTUnwrap(args.firstIndex(of: "--db")) + 1] = db
        func pod(job: String) throws -> CommandLineResult {
            try CommandLineTool.invoke(
                args.filter { $0 != "--quiet" }, environment: [DeriveConfiguration.processGroupVariable: job],
                scratch: dir)
        }
        let first = try pod(job: "uid-1")
        XCTAssertEqual(first.status, 0, first.stderr)
        let late = try pod(job: "uid-1")
        XCTAssertEqual(late.status, 0, late.stderr)
        XCTAssertTrue(
            late.stderr.contains("was finished by the other worker processes; nothing left to do"), late.stderr)
        let tomorrow = try pod(job: "uid-2")
        XCTAssertEqual(tomorrow.status, 0, tomorrow.stderr)
        XCTAssertFalse(tomorrow.stderr.contains("nothing left to do"), tomorrow.stderr)
    }

    /// The rules map exit codes exactly as `expectedAction` says.
    private func checkPolicy(_ job: [String: Any], name: String) throws {
        let rules = try XCTUnwrap(dig(job, "podFailurePolicy", "rules") as? [[String: Any]], "\(name): no policy")
        var actions: [Int32: String] = [:]
        for rule in rules {
            guard let codes = dig(rule, "onExitCodes") as? [String: Any] else { continue }
            XCTAssertEqual(codes["operator"] as? String, "In", name)
            XCTAssertEqual(codes["containerName"] as? String, "rederive", name)
            for value in try XCTUnwrap(codes["values"] as? [Int], name) {
                XCTAssertNil(actions[Int32(value)], "\(name): \(value) in two rules")
                actions[Int32(value)] = rule["action"] as? String
            }
        }
        for value in actions.keys {
            XCTAssertNotNil(ExitStatus(rawValue: value), "\(name): \(value) is no exit status of rederive")
        }
        for status in ExitStatus.allCases {
            XCTAssertEqual(actions[status.rawValue], Self.expectedAction(status), "\(name): exit \(status)")
        }
        XCTAssertTrue(
            rules.contains {
                $0["action"] as? String == "Ignore"
                    && (dig($0, "onPodConditions") as? [[String: Any]])?.first?["type"] as? String == "DisruptionTarget"
            }, "\(name): an evicted pod is not a failure")
        XCTAssertNotNil(job["backoffLimit"] as? Int, name)
    }

    private func checkLockedDown(pod: [String: Any], container: [String: Any], name: String) throws {
        XCTAssertEqual(dig(pod, "securityContext", "runAsNonRoot") as? Bool, true, name)
        XCTAssertEqual(dig(pod, "securityContext", "runAsUser") as? Int, 10001, "\(name): the Dockerfile's user")
        let context = try XCTUnwrap(container["securityContext"] as? [String: Any], name)
        XCTAssertEqual(context["allowPrivilegeEscalation"] as? Bool, false, name)
        XCTAssertEqual(context["readOnlyRootFilesystem"] as? Bool, true, name)
        XCTAssertEqual(dig(context, "capabilities", "drop") as? [String], ["ALL"], name)
        let image = try XCTUnwrap(container["image"] as? String, name)
        XCTAssertNotNil(
            image.range(of: #":\d+\.\d+\.\d+(@sha256:[0-9a-f]{64})?$"#, options: .regularExpression),
            "\(name): a full version tag, not \(image)")
        XCTAssertTrue(image.hasSuffix(":" + RederiveVersion.release), "\(name): this release's image, \(image)")
    }

    /// `--db` holds no password, asks for `verify-full` with a CA file that is mounted, and
    /// the password comes from a Secret.
    private func checkConnection(
        args: [String], container: [String: Any], pod: [String: Any], name: String
    ) throws {
        let db = try XCTUnwrap(args.firstIndex(of: "--db").map { args[$0 + 1] }, name)
        let url = try XCTUnwrap(URLComponents(string: db), db)
        XCTAssertEqual(url.scheme, "postgres", name)
        XCTAssertNil(url.password, "\(name): no password on the command line")
        let query = Dictionary(uniqueKeysWithValues: (url.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(query["sslmode"], "verify-full", name)
        let ca = try XCTUnwrap(query["sslrootcert"], "\(name): sslrootcert")
        let volume = try XCTUnwrap(mountedVolume(for: ca, pod: pod, container: container), "\(name): \(ca) mounted")
        XCTAssertNotNil(dig(volume, "secret", "secretName") as? String, "\(name): the CA from a Secret")
        let env = try XCTUnwrap(container["env"] as? [[String: Any]], name)
        let password = try XCTUnwrap(env.first { $0["name"] as? String == "PGPASSWORD" }, name)
        XCTAssertNil(password["value"], "\(name): no literal password")
        XCTAssertNotNil(dig(password, "valueFrom", "secretKeyRef", "name") as? String, name)
    }

    /// The pod volume mounted at a folder holding `path`.
    private func mountedVolume(for path: String, pod: [String: Any], container: [String: Any]) -> [String: Any]? {
        let mounts = container["volumeMounts"] as? [[String: Any]] ?? []
        guard let mount = mounts.first(where: { path.hasPrefix(($0["mountPath"] as? String ?? "") + "/") }) else {
            return nil
        }
        return (pod["volumes"] as? [[String: Any]])?.first { $0["name"] as? String == mount["name"] as? String }
    }
}
