#!/usr/bin/env bash
# The sqlite3 CLI's ingest of the same messages into the archive's own schema (the practical ceiling on this
# machine): .import of the export's CSV into a staging table, one INSERT … SELECT into `messages` (with the
# archive's indexes, a JSON raw record and a SHA3 content hash standing in for ours), then both FTS5 indexes
# filled in one statement each, in their keys' order. The CLI has not qbarchive's tokenizers (the word index's
# rules for every script are Swift code), so the peer's indexes use SQLite's built-in ones in their place:
# `unicode61 remove_diacritics 2` and `trigram`, the archive's own tokenizers before migration
# v7-multilingual-words. Nor the statistics roll-ups: the triggers that mark dialogs stale are left out, so the
# peer pays neither for them nor for the refresh qbarchive's import ends with (docs/stats.md).
# Usage: peer-ingest-sqlite3.sh ARCHIVE(for the schema) MESSAGES.csv OUT.sqlite
set -euo pipefail
archive=$1 csv=$2 out=$3
rm -f "$out"
schema=$(sqlite3 -readonly "$archive" "SELECT sql || ';' FROM sqlite_master WHERE tbl_name IN
  ('messages', 'message_words', 'message_trigrams') AND sql IS NOT NULL AND type <> 'trigger'
  AND name NOT LIKE 'message_words_%' AND name NOT LIKE 'message_trigrams_%'" \
  | sed -e "s/tokenize='qbarchive_words [0-9]*'/tokenize='unicode61 remove_diacritics 2'/" \
        -e "s/tokenize='qbarchive_trigrams [0-9]*'/tokenize='trigram'/")
sqlite3 "$out" <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
$schema
.import --csv $csv staging
INSERT INTO messages (id, dialog_id, sender_id, recipient_id, date_sent, updated_at, text, attachments, custom,
                      read_ids, delivered_ids, raw, content_hash, first_seen_at, last_seen_at, edited, deleted_at)
SELECT id, dialog_id, NULLIF(sender_id, ''), NULLIF(recipient_id, ''), date_sent, unixepoch(NULLIF(updated_at, '')),
       NULLIF(text, ''), attachments, custom, '[]', '[]',
       json_object('_id', id, 'chat_dialog_id', dialog_id, 'message', text, 'date_sent', date_sent,
                   'sender_id', sender_id, 'attachments', json(attachments)),
       sha3(text || attachments || custom, 256), unixepoch(first_seen_at), unixepoch(last_seen_at), edited,
       unixepoch(NULLIF(deleted_at, ''))
FROM staging;
DROP TABLE staging;
INSERT INTO message_words (rowid, text) SELECT date_key, text FROM messages ORDER BY date_key;
INSERT INTO message_trigrams (rowid, text) SELECT rowid, text FROM messages;
SQL
