import QuickBlox
import Testing

@Suite("JSON object writer")
struct JSONObjectWriterTests {
    /// Integers and timestamps are written as digits straight into the buffer; the bytes must be those of the
    /// `JSONValue` the record would otherwise have been built as.
    @Test(arguments: [
        0, 1, -1, 9, 10, -10, 99, 100, 1_234_567_890, -1_234_567_890, Int.max, Int.min, Int.min + 1,
    ])
    func integersAreWrittenAsTheValueSerializes(_ value: Int) {
        var out: [UInt8] = []
        var object = JSONObjectWriter(into: &out)
        object.int("n", value, into: &out)
        object.int("none", nil, into: &out)
        object.finish(into: &out)
        #expect(out == JSONValue.object(["n": .int(value), "none": .null]).serialized())
    }

    @Test func timestampsAreWrittenAsTheFormattedText() {
        // Both sides of the epoch and of the four-digit years, and a spread of instants between.
        var instants = [0, -1, 59, 86_399, 86_400, 951_825_600, 253_402_300_799, 253_402_300_800, -62_167_219_200]
        instants += [-62_167_219_201, Int(Int32.max), -Int(Int32.max), 4_107_542_400]
        instants += Array(
            stride(from: -62_167_219_200 - 86_400 * 400, to: 253_402_300_799 + 86_400 * 400, by: 987_654_321))
        for seconds in instants {
            var out: [UInt8] = []
            var object = JSONObjectWriter(into: &out)
            object.timestamp("at", seconds, into: &out)
            object.timestamp("never", nil, into: &out)
            object.finish(into: &out)
            let expected = JSONValue.object(["at": .string(ISO8601.format(seconds)), "never": .null]).serialized()
            #expect(out == expected, "\(seconds)")
            var bytes: [UInt8] = []
            ISO8601.write(seconds, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == ISO8601.format(seconds), "\(seconds)")
        }
    }
}
