/// Progress of a migration, for the command's stderr lines and `--json` events.
public struct MigrationEvent: Sendable, Hashable {
    /// What is being done.
    public enum Step: String, Sendable {
        /// Records (or rows, or files) copied so far of one part.
        case copying
        /// A part found complete in the destination and left alone (a resumed migration).
        case skipped
        /// Source and destination being read back and compared.
        case verifying
    }

    public var step: Step
    /// The part: a table (`messages`, `audit_log` …), `files`, or `export` for verification.
    public var part: String
    /// Copied (or compared) so far.
    public var done: Int
    /// How many there are in the source.
    public var total: Int

    public init(step: Step, part: String, done: Int, total: Int) {
        self.step = step
        self.part = part
        self.done = done
        self.total = total
    }
}
