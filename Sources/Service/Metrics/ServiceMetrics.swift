import Archive
import Foundation
import Prometheus

/// The service's Prometheus metrics: request counts and latencies by route, and archive gauges read
/// at scrape time (size, messages, the last crawl run's status and age).
///
/// A registry of its own rather than swift-metrics' global `MetricsSystem`: one process may run
/// several services in tests, and nothing here should depend on process-wide state.
final class ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(10),
    ]

    /// Counts a request and records how long it took.
    func record(route: String, method: String, status: Int, duration: Duration) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "qbarchive", subsystem: "http", metricName: "requests", unitName: "total",
                helpText: "HTTP requests served, by route, method and status"),
            labels: [("route", route), ("method", method), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "qbarchive", subsystem: "http", metricName: "request_duration", unitName: "seconds",
                helpText: "HTTP request latency, by route"),
            labels: [("route", route)], buckets: Self.latencyBuckets
        ).record(duration)
    }

    /// The exposition text, with the archive gauges refreshed first.
    func render(archive: any ArchiveReader, now: Int) async -> [UInt8] {
        func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
            registry.makeGauge(
                descriptor: MetricNameDescriptor(
                    namespace: "qbarchive", metricName: name, unitName: "", helpText: help),
                labels: labels)
        }
        if let size = try? await archive.storageBytes() {
            gauge("archive_size_bytes", "Size of the archive file and its WAL").set(to: Double(size))
        }
        if let counts = try? await archive.counts() {
            gauge("archive_messages", "Archived messages, tombstoned ones included").set(to: Double(counts.messages))
            gauge("archive_dialogs", "Archived dialogs").set(to: Double(counts.dialogs))
            gauge("archive_users", "Archived users").set(to: Double(counts.users))
            gauge("archive_deleted_messages", "Messages found deleted on the server").set(
                to: Double(counts.deletedMessages))
        }
        if let last = try? await archive.runs(limit: 1).first {
            for status in ["running", "complete", "partial", "failed", "interrupted"] {
                gauge("last_run_status", "1 for the status of the latest crawl run", [("status", status)])
                    .set(to: last.status.rawValue == status ? 1 : 0)
            }
            gauge("last_run_age_seconds", "Seconds since the latest crawl run started").set(
                to: Double(now - last.startedAt))
        }
        return registry.emitToBuffer()
    }
}
