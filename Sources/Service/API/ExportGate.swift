/// Lets one export run at a time: a bundle export reads the whole selection and writes its size again to
/// disk, so a second one at the same time only doubles the cost of both.
actor ExportGate {
    private var running = false

    /// Takes the gate; `false` when an export is already running.
    func enter() -> Bool {
        guard !running else { return false }
        running = true
        return true
    }

    func leave() {
        running = false
    }
}
