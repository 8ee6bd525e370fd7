import ArchiveTestSupport
import Foundation

/// A hot standby of a test cluster, made as an operator would (`pg_basebackup -R`: a base backup that streams
/// the WAL and starts as a replica of its source) and started on a unix socket of its own, in the source
/// cluster's directory. As root, the tools run as the `postgres` user, as the cluster's do.
///
/// Call ``stop()`` before the source cluster stops: it removes the directory the standby lives in.
final class PostgresStandby: Sendable {
    let bin: String
    let directory: String
    var dataDirectory: String { directory + "/standby" }
    var socketDirectory: String { directory + "/standby-socket" }

    private init(bin: String, directory: String) {
        self.bin = bin
        self.directory = directory
    }

    /// Backs up `source` and starts the copy as its streaming replica.
    static func start(from source: PostgresCluster) async throws -> PostgresStandby {
        let bin = try PostgresCluster.Tools.binDirectory(
            path: ProcessInfo.processInfo.environment["PATH"], libraryRoot: PostgresCluster.Tools.libraryRoot)
        let standby = PostgresStandby(bin: bin, directory: source.directory)
        try await standby.run("mkdir", ["-m", "700", standby.socketDirectory], tool: false)
        try await standby.run(
            "pg_basebackup",
            [
                "-D", standby.dataDirectory, "-R", "-X", "stream", "-c", "fast", "--no-sync", "-h",
                source.socketDirectory, "-U", PostgresCluster.user,
            ])
        let options =
            "-k '\(standby.socketDirectory)' -c listen_addresses='' -c fsync=off -c hot_standby=on -c max_connections=300"
        try await standby.run(
            "pg_ctl",
            ["-D", standby.dataDirectory, "-l", standby.directory + "/standby.log", "-o", options, "-w", "start"])
        return standby
    }

    /// The `postgresql://` URL of `database` on the standby.
    func url(database: String) -> String {
        "postgresql://\(PostgresCluster.user)@/\(database)?host=\(socketDirectory)"
    }

    /// Stops the standby at once.
    func stop() async {
        try? await run("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
    }

    /// Runs a tool (from PostgreSQL's `bin` when `tool`), as `postgres` when this process is root, its output in
    /// a file of the cluster's directory, and waits for it on a thread of its own.
    ///
    /// Not Foundation's `Process`: it notices a child's exit by a descriptor the server `pg_ctl start` leaves
    /// running would inherit (so it never hears of the exit), which is why `PostgresCluster` spawns its tools
    /// itself too, through a shell that closes every other descriptor first.
    private func run(_ name: String, _ arguments: [String], tool: Bool = true) async throws {
        var command = [tool ? bin + "/" + name : "/bin/" + name] + arguments
        if geteuid() == 0 { command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command }
        let closeOthers = """
            for fd in /proc/$$/fd/*; do fd=${fd##*/}; if (( fd > 2 )); then exec {fd}>&-; fi; done 2>/dev/null
            exec "$@"
            """
        let spawned = ["/bin/bash", "-c", closeOthers, "bash"] + command
        let output = directory + "/standby-\(name).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = spawned.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var pid: pid_t = 0
        let failure = posix_spawn(&pid, spawned[0], &actions, nil, argv, environment)
        guard failure == 0 else {
            throw PostgresCluster.Failure.toolFailed(
                tool: name, status: -1, output: String(cString: strerror(failure)))
        }
        let child = pid
        let status: Int32 = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 {
                    guard errno == EINTR else { return continuation.resume(returning: -1) }
                }
                continuation.resume(returning: status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
            }
        }
        guard status == 0 else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let log = (try? String(contentsOfFile: directory + "/standby.log", encoding: .utf8)) ?? ""
            throw PostgresCluster.Failure.toolFailed(
                tool: name, status: status, output: String((said + log).suffix(4000)))
        }
    }
}
