// SQLiteArchive's interface is the archive seam and the shared SQL reads it inherits: whoever opens a SQLite
// archive (the command, tests) sees them with this module.
@_exported import Archive
@_exported import ArchiveSQL
