/// A typed value of a predicate.
///
/// Typed by the parser so that later stages never re-read text: ids are `.int` (sender and
/// recipient also `.login`, resolved by the archive), `dialog_type` is QuickBlox's number (1 public
/// group, 2 group, 3 private), booleans are `.bool`, custom parameters are `.int` when written as a
/// bare integer and `.string` otherwise.
///
/// A date is always a half-open period of unix seconds `[start, end)`: a year, month or day, or
/// one second (`end == start + 1`) for an instant such as `2024-03-01T10:00Z`, unix seconds or
/// `7d` (now minus seven days). For a date `d` the operators mean:
/// - `=` and `in`: `start <= d < end`; `!=`: not that;
/// - `<`: `d < start`; `<=`: `d < end`; `>`: `d >= end`; `>=`: `d >= start`.
///
/// So `date > 7d` is the last seven days and `date < 2024-03-01` ends at midnight on 1 March.
public enum QueryValue: Sendable, Hashable {
    /// An id, a dialog type, or a custom parameter written as a bare integer.
    case int(Int)
    /// Text: message, dialog id and name, attachment type, or a custom parameter.
    case string(String)
    /// A sender or recipient given by login; the archive resolves it to an id.
    case login(String)
    /// `has`, `edited` and `deleted`.
    case bool(Bool)
    /// A date: unix seconds, half-open.
    case period(start: Int, end: Int)
}
