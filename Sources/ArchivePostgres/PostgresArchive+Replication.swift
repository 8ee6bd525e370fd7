import Archive
import PostgresNIO

extension PostgresArchive {
    /// How far behind its primary this database's data is, in seconds, when it is a hot standby (a streaming
    /// replica); `nil` when it is a primary, which is never behind.
    ///
    /// A standby that has replayed all the WAL it received is 0 s behind, however long ago the primary's last
    /// write was; otherwise the lag is the age of the last transaction it replayed
    /// (`pg_last_xact_replay_timestamp()`). Cheap: no table is read.
    public func replicationLag() async throws -> Double? {
        let rows = try await client.query(
            """
            SELECT CASE
                WHEN NOT pg_is_in_recovery() THEN NULL
                WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN CAST(0 AS double precision)
                ELSE CAST(GREATEST(0, EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())) AS double precision)
            END
            """, logger: logger)
        var lag: Double?
        for try await value in rows.decode(Double?.self) { lag = value }
        return lag
    }
}
