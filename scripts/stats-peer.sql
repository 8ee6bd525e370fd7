-- The SQL `qbarchive stats --archive A --json --from-messages` runs (no --where, --by day, --top 10), as one script
-- for the sqlite3 CLI: the peer of the stats rows in scripts/bench.sh. Keep in step with
-- Sources/ArchiveSQL/Stats/SQLArchiveReading+Stats.swift and SQLArchiveReading+StatsLeaders.swift.
WITH hourly AS MATERIALIZED (
    SELECT ((m.date_sent) - (((m.date_sent) % 3600) + 3600) % 3600) / 3600 AS h,
        CASE WHEN m.attachments = '[]' THEN NULL ELSE (
            SELECT json_group_array(json_extract(e.value, '$.type')) FROM json_each(m.attachments) e) END AS kinds,
        COUNT(*) AS n, SUM(m.deleted_at IS NOT NULL) AS deleted, SUM(m.edited) AS edits, SUM(m.edited > 0) AS edited
    FROM messages m GROUP BY h, kinds
), daily AS (SELECT ((h) - (((h) % 24) + 24) % 24) / 24 AS day, ((h % 24) + 24) % 24 AS hour, n, deleted FROM hourly)
SELECT 'total', NULL, NULL, SUM(n), SUM(deleted), SUM(edits), SUM(edited), SUM(CASE WHEN kinds IS NULL THEN 0 ELSE n END) FROM hourly
UNION ALL SELECT 'bucket', start, NULL, SUM(n), SUM(deleted), NULL, NULL, NULL FROM (SELECT (day) * 86400 AS start, n, deleted FROM daily) GROUP BY start
UNION ALL SELECT 'cell', ((((day) + 3) % 7) + 7) % 7 AS weekday, hour, SUM(n), NULL, NULL, NULL, NULL FROM daily GROUP BY weekday, hour
UNION ALL SELECT 'attachment', e.value, NULL, SUM(g.n), NULL, NULL, NULL, NULL FROM hourly g, json_each(g.kinds) e WHERE g.kinds IS NOT NULL GROUP BY e.value;
WITH active AS MATERIALIZED (
    SELECT DISTINCT ((m.date_sent) - (((m.date_sent) % 86400) + 86400) % 86400) / 86400 AS day, m.sender_id AS sender
    FROM messages m WHERE m.sender_id IS NOT NULL)
SELECT 'day', day * 86400, COUNT(*) FROM active GROUP BY day
UNION ALL SELECT 'bucket', start, COUNT(DISTINCT sender) FROM (SELECT (day) * 86400 AS start, sender FROM active) GROUP BY start
UNION ALL SELECT 'total', NULL, COUNT(DISTINCT sender) FROM active;
SELECT COUNT(*) FROM users;
SELECT dd.type, COUNT(*), SUM(dd.deleted_at IS NOT NULL) FROM dialogs dd GROUP BY dd.type ORDER BY dd.type;
SELECT t.sender, u.login, u.full_name, t.n FROM (
    SELECT m.sender_id AS sender, COUNT(*) AS n FROM messages m WHERE m.sender_id IS NOT NULL
    GROUP BY m.sender_id ORDER BY n DESC, m.sender_id LIMIT 10) t LEFT JOIN users u ON u.id = t.sender ORDER BY t.n DESC, t.sender;
SELECT t.dialog, dd.name, dd.type, CASE WHEN dd.name IS NULL OR dd.name = '' THEN (
        SELECT json_group_array(COALESCE(NULLIF(u.full_name, ''), u.login, CAST(e.value AS TEXT)))
        FROM json_each(dd.occupant_ids) e LEFT JOIN users u ON u.id = e.value) END, t.n
FROM (SELECT m.dialog_id AS dialog, COUNT(*) AS n FROM messages m GROUP BY m.dialog_id ORDER BY n DESC, m.dialog_id LIMIT 10) t
LEFT JOIN dialogs dd ON dd.id = t.dialog ORDER BY t.n DESC, t.dialog;
WITH sequence AS (
    SELECT m.date_sent - LAG(m.date_sent) OVER turn AS delay, m.sender_id <> LAG(m.sender_id) OVER turn AS changed
    FROM messages m WHERE m.dialog_id IN (SELECT id FROM dialogs WHERE type = 3) AND m.sender_id IS NOT NULL
    WINDOW turn AS (PARTITION BY m.dialog_id ORDER BY m.date_sent, m.id)
), ranked AS (SELECT delay, ROW_NUMBER() OVER (ORDER BY delay) AS rank, COUNT(*) OVER () AS n FROM sequence WHERE changed)
SELECT COUNT(*), MAX(CASE WHEN rank = (n + 1) / 2 THEN delay END), MAX(CASE WHEN rank = (9 * n + 9) / 10 THEN delay END) FROM ranked;
SELECT dd.id, dd.name, dd.type, dd.deleted_at IS NOT NULL, c.server_count, c.server_counted_at,
    CASE WHEN c.server_counted_at IS NULL THEN NULL ELSE COALESCE(k.at_count, 0) END, COALESCE(k.live, 0), COALESCE(k.deleted, 0)
FROM dialogs dd LEFT JOIN crawl_state c ON c.dialog_id = dd.id
LEFT JOIN (
    SELECT x.dialog_id AS dialog, SUM(x.deleted_at IS NULL) AS live, SUM(x.deleted_at IS NOT NULL) AS deleted,
        SUM(x.first_seen_at <= s.server_counted_at AND (x.deleted_at IS NULL OR x.deleted_at > s.server_counted_at)) AS at_count
    FROM messages x LEFT JOIN crawl_state s ON s.dialog_id = x.dialog_id GROUP BY x.dialog_id
) k ON k.dialog = dd.id ORDER BY dd.id;
