import ArchivePostgres
import ArchiveTestSupport
import PostgresNIO
import Testing
import TextIndex

/// `qbarchive_fold`, the SQL function `ctn` uses on columns the writer does not fold, against
/// ``TextIndex/ContainsFolding`` itself: the two must give the same text for every input.
@Suite(.postgres, .sharedCluster)
struct PostgresFoldTests {
    /// Every scalar whose folding changes it, alone, between ASCII letters and doubled.
    @Test func everyFoldingScalarFoldsAsContainsFoldingDoes() async throws {
        var inputs = ContainsFolding.nonASCIIFolds.map { String(Character($0.scalar)) }
        inputs += ContainsFolding.nonASCIIFolds.map {
            "Ab" + String(Character($0.scalar)) + String(Character($0.scalar)) + "Z"
        }
        inputs += (0x41...0x5A).map { String(UnicodeScalar(UInt8($0))) }
        try await expectSameFolding(inputs)
    }

    /// Texts in many scripts, decomposed forms, final sigma, dotted I, ß, ligatures, emoji, and the quotes and
    /// backslashes a SQL literal must survive; random mixes of them.
    @Test func textsInManyScriptsFoldAlike() async throws {
        let samples = [
            "Straße STRASSE", "ΟΔΟΣ Οδός σοφός", "İstanbul ISTANBUL ıi", "Ǆemal ǅ ǆ", "ﬁne ﬂow ﬃ", "Café CAFÉ",
            "Cafe\u{301} e\u{301}", "Привет МИР ёЁ", "Ἀθῆναι ᾼ ῼ", "北京见面 東京", "مرحبا بالعالم", "שלום עולם",
            "😀 Emoji 👍🏽", "\u{1FBB} \u{212B}", "\u{1FBB}e\u{301} \u{212B}", "O'Brien \\ path\\to", "ǰ ŉ ẞ ꭰ Ꭰ",
            "ԱԲԳ աբգ", "Ⓐⓑ Ⅻ ⅻ", "𐐀𐐨 Deseret", "ＡＢＣ ａｂｃ",
            "", "x",
        ]
        var generator = SystemRandomNumberGenerator()
        var inputs = samples
        for _ in 0..<500 {
            let parts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                samples.randomElement(using: &generator)!
            }
            inputs.append(parts.joined(separator: Bool.random(using: &generator) ? " " : ""))
        }
        try await expectSameFolding(inputs)
    }

    private func expectSameFolding(_ inputs: [String]) async throws {
        let location = try await SharedCluster.database()
        await (try await PostgresArchive.open(location)).close()
        let folded = try await withClient(location) { client in
            try await column(
                client,
                "SELECT qbarchive_fold(t.x) FROM unnest(\(inputs)::text[]) WITH ORDINALITY AS t(x, n) ORDER BY t.n",
                as: String.self)
        }
        #expect(folded.count == inputs.count)
        // Compared scalar by scalar: `==` on strings is canonical equivalence, blind to composition.
        for (input, sqlFolded) in zip(inputs, folded)
        where !sqlFolded.unicodeScalars.elementsEqual(ContainsFolding.folded(input).unicodeScalars) {
            Issue.record(
                "qbarchive_fold(\(input.debugDescription)) = \(sqlFolded.debugDescription), Swift folds to \(ContainsFolding.folded(input).debugDescription)"
            )
        }
    }
}
