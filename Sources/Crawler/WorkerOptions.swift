/// How a worker of a shared crawl names itself and keeps its leases.
public struct WorkerOptions: Sendable {
    /// Shown in summaries and stored with the worker's part (host and process id by default).
    public var name: String
    /// Seconds a lease lasts without a heartbeat: a worker that dies gives its dialogs back after this long.
    /// The worker heartbeats every third of it.
    public var lease: Int
    /// How long a worker with nothing to claim waits before it asks again (other workers' dialogs may come
    /// back when one of them dies).
    public var poll: Duration = .milliseconds(500)

    public init(name: String, lease: Int) {
        self.name = name
        self.lease = lease
    }
}
