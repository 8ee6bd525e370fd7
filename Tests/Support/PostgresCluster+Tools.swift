import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension PostgresCluster {
    /// Why a cluster could not be made or started.
    package enum Failure: Error, CustomStringConvertible, Sendable, Equatable {
        /// PostgreSQL's server tools are not installed (or not where they are looked for).
        case binariesMissing(tools: [String])
        /// Running as root, and there is no `postgres` user to run the server as.
        case noPostgresUser
        /// A tool exited with `status`; what it and the server said.
        case toolFailed(tool: String, status: Int32, output: String)

        package var description: String {
            switch self {
            case .binariesMissing(let tools):
                return "PostgreSQL's \(tools.joined(separator: ", ")) not found on PATH nor in "
                    + "\(Tools.libraryRoot)/*/bin: install them with `make deps` (Debian's postgresql and "
                    + "postgresql-contrib), or set QB_SKIP_PG=1 to skip the tests that need PostgreSQL."
            case .noPostgresUser:
                return "Running as root, and PostgreSQL refuses to: the cluster runs as the `postgres` user, which "
                    + "does not exist (and `runuser` is needed). Install Debian's postgresql with `make deps`."
            case .toolFailed(let tool, let status, let output):
                return "\(tool) exited with status \(status):\n\(output)"
            }
        }
    }

    /// Where PostgreSQL's tools are, and as whom they run.
    package struct Tools: Sendable {
        /// Debian's PostgreSQL versions, one directory each (`15/bin`).
        package static let libraryRoot = "/usr/lib/postgresql"
        static let needed = ["initdb", "pg_ctl", "createdb"]

        /// The directory holding ``needed``.
        var bin: String
        /// When running as root: `runuser`, and the `postgres` user's ids.
        var runAs: (runuser: String, uid: uid_t, gid: gid_t)?

        /// Finds the tools (``binDirectory(path:libraryRoot:)``) and, as root, the `postgres` user to run them as.
        static func find(
            path: String? = ProcessInfo.processInfo.environment["PATH"], libraryRoot: String = libraryRoot,
            asRoot: Bool = geteuid() == 0
        ) throws -> Tools {
            let bin = try binDirectory(path: path, libraryRoot: libraryRoot)
            guard asRoot else { return Tools(bin: bin) }
            guard let user = getpwnam("postgres"),
                let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first(where: isExecutable)
            else { throw Failure.noPostgresUser }
            return Tools(bin: bin, runAs: (runuser, user.pointee.pw_uid, user.pointee.pw_gid))
        }

        /// The directory holding ``needed``: the first `PATH` entry with an `initdb` (links resolved), else the
        /// newest `libraryRoot/VERSION/bin`.
        ///
        /// - Throws: ``Failure/binariesMissing(tools:)`` naming the tools found nowhere.
        package static func binDirectory(path: String?, libraryRoot: String) throws(Failure) -> String {
            let onPath = (path ?? "").split(separator: ":").map(String.init)
            var candidates = onPath.filter { isExecutable($0 + "/initdb") }.map {
                URL(fileURLWithPath: $0 + "/initdb").resolvingSymlinksInPath().deletingLastPathComponent().path
            }
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: libraryRoot)) ?? []
            candidates += versions.sorted { version($0).lexicographicallyPrecedes(version($1)) }.reversed()
                .map { libraryRoot + "/" + $0 + "/bin" }
            if let bin = candidates.first(where: { bin in needed.allSatisfy { isExecutable(bin + "/" + $0) } }) {
                return bin
            }
            let missing = needed.filter { tool in !(candidates + onPath).contains { isExecutable($0 + "/" + tool) } }
            throw .binariesMissing(tools: missing.isEmpty ? needed : missing)
        }

        private static func version(_ name: String) -> [Int] {
            name.split(separator: ".").map { Int($0) ?? -1 }
        }

        private static func isExecutable(_ path: String) -> Bool {
            FileManager.default.isExecutableFile(atPath: path)
        }

        /// The arguments that run `tool` (as `postgres` when root).
        func commandLine(_ tool: String, _ arguments: [String]) -> [String] {
            let command = [bin + "/" + tool] + arguments
            guard let runAs else { return command }
            return [runAs.runuser, "-u", "postgres", "--"] + command
        }

        /// Starts `command` in `directory`, its input from `/dev/null` and its output and errors to the file
        /// `output`, through a shell that first closes every other descriptor: the server that `pg_ctl start`
        /// leaves running must not hold a pipe or socket of the test process open (Foundation's `Process`
        /// notices a child's exit by such a socket, which is why it is not used here).
        static func spawn(_ command: [String], in directory: String, output: String) throws -> pid_t {
            let closeOthers = """
                cd "$1" || exit 1; shift
                for fd in /proc/$$/fd/*; do fd=${fd##*/}; if (( fd > 2 )); then exec {fd}>&-; fi; done 2>/dev/null
                exec "$@"
                """
            let arguments = ["/bin/bash", "-c", closeOthers, "bash", directory] + command
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let argv = arguments.map { strdup($0) } + [nil]
            let environment = ProcessInfo.processInfo.environment.map { strdup("\($0)=\($1)") } + [nil]
            defer { for pointer in argv + environment { free(pointer) } }
            var pid: pid_t = 0
            let failure = posix_spawn(&pid, arguments[0], &actions, nil, argv, environment)
            guard failure == 0 else {
                let reason = String(cString: strerror(failure))
                throw Failure.toolFailed(tool: command.joined(separator: " "), status: -1, output: reason)
            }
            return pid
        }

        /// Waits for `pid` to end (blocking the calling thread); its exit status, or 128 + the signal that
        /// killed it.
        static func wait(_ pid: pid_t) -> Int32 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 {
                guard errno == EINTR else { return -1 }
            }
            return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        }

        /// Runs `tool` to its end on a thread of its own, so that the tasks of the test go on meanwhile.
        func run(_ tool: String, _ arguments: [String], in directory: String, output: String) async throws -> Int32 {
            let pid = try Self.spawn(commandLine(tool, arguments), in: directory, output: output)
            return await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: Self.wait(pid)) }
            }
        }

        /// A new directory for a cluster, with its `socket` directory, owned by `postgres` when root. Under the
        /// temporary directory when `postgres` can reach it and the socket path fits; else under `/tmp`.
        func makeDirectory() throws -> String {
            var base = NSTemporaryDirectory()
            while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
            if base.utf8.count > 60 || (runAs != nil && !Self.traversable(base)) { base = "/tmp" }
            var template = Array((base + "/qbarchive-pg-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
            guard made else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: base]) }
            let directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            try FileManager.default.createDirectory(atPath: directory + "/socket", withIntermediateDirectories: false)
            if let runAs {
                for path in [directory, directory + "/socket"] { chown(path, runAs.uid, runAs.gid) }
            }
            return directory
        }

        /// Whether every directory from `/` to `path` lets others through (`o+x`).
        private static func traversable(_ path: String) -> Bool {
            var current = URL(fileURLWithPath: path).standardizedFileURL
            while true {
                let attributes = try? FileManager.default.attributesOfItem(atPath: current.path)
                guard let mode = attributes?[.posixPermissions] as? Int, mode & 0o001 != 0 else { return false }
                if current.path == "/" { return true }
                current.deleteLastPathComponent()
            }
        }
    }
}
