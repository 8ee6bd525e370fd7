import Foundation
import Synchronization

/// A throwaway PostgreSQL server for tests, from Debian's packages (`make deps` installs `postgresql` and
/// `postgresql-contrib`): `initdb` into a fresh temporary directory, started by `pg_ctl` on a unix socket in
/// that directory only (no TCP port), with database ``database`` owned by ``user``, trust authentication.
///
/// PostgreSQL refuses to run as root, and tests here run as root: then `initdb`, `pg_ctl` and `createdb` run
/// as the `postgres` user (`runuser -u postgres --`), which owns the directories. ``stop()`` stops the server
/// at once (`pg_ctl stop -m immediate`: a throwaway cluster has nothing to flush) and removes the directories;
/// it runs again from `deinit`, and a watchdog process stops the server when the test process dies first.
///
/// Tests that need a server never skip silently: ``isEnabled`` is false only when `QB_SKIP_PG=1`, and with
/// it the tests are skipped by their `.enabled(if:)` trait; otherwise missing binaries fail with
/// ``Failure/binariesMissing(tools:)``.
package final class PostgresCluster: Sendable {
    /// The superuser `initdb` creates, and the owner of the databases.
    package static let user = "qbarchive"
    /// The database made at start.
    package static let database = "qbarchive_test"
    /// The port in the socket's name (`.s.PGSQL.5432`); the server listens on no TCP port.
    package static let port = 5432

    /// Whether the tests that need PostgreSQL run: always, unless the environment sets `QB_SKIP_PG=1`.
    package static var isEnabled: Bool { ProcessInfo.processInfo.environment["QB_SKIP_PG"] != "1" }

    /// The temporary directory that holds everything of this cluster.
    package let directory: String
    /// Where `initdb` put the cluster.
    package var dataDirectory: String { directory + "/data" }
    /// Where the server's socket is.
    package var socketDirectory: String { directory + "/socket" }
    /// Where the server logs.
    package var logFile: String { directory + "/server.log" }

    private let tools: Tools
    private let stopped = Mutex(false)

    private init(directory: String, tools: Tools) {
        self.directory = directory
        self.tools = tools
    }

    deinit {
        stop()
    }

    /// Makes and starts a cluster with the database ``database``.
    ///
    /// - Throws: ``Failure`` when the binaries or the `postgres` user are missing, or a tool fails (with its
    ///   output and the server's log).
    package static func start() async throws -> PostgresCluster {
        let tools = try Tools.find()
        let cluster = PostgresCluster(directory: try tools.makeDirectory(), tools: tools)
        do {
            try cluster.startWatchdog()
            try await cluster.run(
                "initdb",
                [
                    "-D", cluster.dataDirectory, "-A", "trust", "-U", user, "--encoding", "UTF8", "--locale", "C",
                    "--no-sync",
                ])
            let options = "-k '\(cluster.socketDirectory)' -c listen_addresses='' -c fsync=off -c max_connections=300"
            try await cluster.run(
                "pg_ctl", ["-D", cluster.dataDirectory, "-l", cluster.logFile, "-o", options, "-w", "start"])
            try await cluster.run("createdb", ["-h", cluster.socketDirectory, "-U", user, database])
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// Runs `body` with a started cluster, and stops it after, whether `body` returns or throws.
    package static func with<Result>(_ body: (PostgresCluster) async throws -> Result) async throws -> Result {
        let cluster = try await start()
        defer { cluster.stop() }
        return try await body(cluster)
    }

    /// Creates an empty database (a new name when `name` is `nil`) and returns its name.
    package func createDatabase(_ name: String? = nil) async throws -> String {
        let name = name ?? "qbarchive_test_" + UUID().uuidString.prefix(8).lowercased()
        try await run("createdb", ["-h", socketDirectory, "-U", Self.user, name])
        return name
    }

    /// The `postgresql://` URL of `database` on this cluster, through its socket.
    ///
    /// With `connect_timeout=60` (the default is 10 s): while a whole test run loads both cores — clusters
    /// starting, emulators generating, searches compared — a first connection once took longer than 10 s, and
    /// a dozen tests failed as if the server were unreachable.
    package func url(database: String = PostgresCluster.database) -> String {
        let plain = CharacterSet(charactersIn: "/-._~").union(.alphanumerics)
        let host = socketDirectory.addingPercentEncoding(withAllowedCharacters: plain) ?? socketDirectory
        return "postgresql://\(Self.user)@/\(database)?host=\(host)&connect_timeout=60"
    }

    /// The server's process id, from `postmaster.pid`; `nil` when it is not running.
    package var postmasterPID: pid_t? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
            let line = text.split(separator: "\n").first
        else { return nil }
        // A standalone backend (initdb's) writes its id negated: no server runs then.
        guard let pid = pid_t(line.trimmingCharacters(in: .whitespaces)), pid > 0 else { return nil }
        return pid
    }

    /// Whether a process `pid` exists and is not a zombie.
    package static func isRunning(_ pid: pid_t) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// Stops the server at once and removes every directory of the cluster. Runs once; later calls do nothing.
    package func stop() {
        let first = stopped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        if let pid = postmasterPID, (try? stopServer()) != true, Self.isRunning(pid) {
            kill(pid, SIGQUIT)  // What `pg_ctl stop -m immediate` sends, when pg_ctl itself failed.
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `pg_ctl stop -m immediate`, waiting for the server to exit; whether it succeeded.
    private func stopServer() throws -> Bool {
        let command = tools.commandLine("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        let pid = try Tools.spawn(command, in: directory, output: directory + "/pg_ctl-stop.out")
        return Tools.wait(pid) == 0
    }

    /// Runs one of the cluster's tools to its end; throws with its output when it fails.
    private func run(_ tool: String, _ arguments: [String]) async throws {
        let output = directory + "/\(tool).out"
        let status = try await tools.run(tool, arguments, in: directory, output: output)
        guard status == 0 else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let log = tool == "pg_ctl" ? (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" : ""
            throw Failure.toolFailed(tool: tool, status: status, output: String((said + log).suffix(4000)))
        }
    }

    /// A shell that waits while this process lives and the cluster's directory exists. When this process dies
    /// first (a crash, `kill -9`), it lets a `pg_ctl start` under way finish, stops the server and removes the
    /// directory, so no test run leaves a server or a cluster behind. It runs in the background of a shell that
    /// exits at once, so nothing waits for it; after ``stop()`` it ends within a second.
    private func startWatchdog() throws {
        let script = """
            pid=$1; data=$2; dir=$3; shift 3
            (
              while kill -0 "$pid" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
              if [ -d "$dir" ]; then
                sleep 2
                if [ -e "$data/postmaster.pid" ]; then "$@"; fi
                rm -rf "$dir"
              fi
            ) >/dev/null 2>&1 &
            """
        let stop = tools.commandLine("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        let command = ["/bin/sh", "-c", script, "watchdog", String(getpid()), dataDirectory, directory] + stop
        _ = Tools.wait(try Tools.spawn(command, in: directory, output: "/dev/null"))
    }
}
