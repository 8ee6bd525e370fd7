// query-fuzz: a million random inputs through the query parser (and a sample through an archive), for
// `make chaos`. Every input must parse or be refused with a positioned error; nothing may crash or hang.
// Prints one JSON object with the figures (docs/reliability.md). Usage: query-fuzz [COUNT] [SEED] [ARCHIVE-SAMPLE]

import Archive
import ArchiveSQLite
import Foundation
import QueryLanguage
import QuickBlox
import TextIndex

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let seed = arguments.count > 2 ? UInt64(arguments[2]) ?? 1 : 1
let archiveSample = arguments.count > 3 ? Int(arguments[3]) ?? 20_000 : 20_000

var random = SeededRandom(seed: seed)
var generator = FuzzInputs()
var figures = FuzzFigures()
let parser = QueryParser(now: 1_710_084_600)
let clock = ContinuousClock()
let started = clock.now
var accepted: [Query] = []

for _ in 0..<count {
    let input = generator.next(&random)
    let before = clock.now
    do {
        let query = try parser.parse(input)
        figures.parsed += 1
        _ = QuerySummary.describe(query)
        if accepted.count < archiveSample, random.next() % 8 == 0 { accepted.append(query) }
    } catch {
        figures.rejected += 1
        if let problem = FuzzFigures.problem(with: error, input: input) {
            figures.unpositioned += 1
            if figures.examples.count < 5 { figures.examples.append(problem) }
        }
        figures.messages.insert(
            error.message.replacingOccurrences(of: #"`[^`]*`"#, with: "`…`", options: .regularExpression))
    }
    let elapsed = before.duration(to: clock.now)
    if elapsed > figures.slowest { figures.slowest = elapsed }
}
figures.parseSeconds = started.duration(to: clock.now)

// A sample of the accepted queries through a real archive: compiled, resolved, counted, searched, read back.
let directory = NSTemporaryDirectory() + "query-fuzz-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
let archive = try SQLiteArchive.create(at: directory + "/fuzz.sqlite")
try await FuzzArchive.fill(archive)
let archiveStarted = clock.now
for query in accepted {
    do {
        _ = try await archive.count(query)
        _ = try await archive.search(query, options: SearchOptions(limit: 5))
        _ = try await archive.describe(query, zone: QueryDate.utc)
        figures.ran += 1
    } catch let error as QueryError {
        figures.refusedByArchive += 1
        if let problem = FuzzFigures.problem(with: error, input: query.source) {
            figures.unpositioned += 1
            if figures.examples.count < 5 { figures.examples.append(problem) }
        }
    } catch {
        figures.archiveErrors += 1
        if figures.examples.count < 5 { figures.examples.append("\(query.source.debugDescription): \(error)") }
    }
}
figures.archiveSeconds = archiveStarted.duration(to: clock.now)
print(figures.json(count: count, seed: seed))
exit(figures.unpositioned == 0 && figures.archiveErrors == 0 ? 0 : 1)
