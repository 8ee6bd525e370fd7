import NIOCore
import PostgresNIO

/// A one-dimensional array parameter whose elements may be `NULL`, as `unnest($1::bigint[], …)` reads it: a page
/// of messages goes to the server as one array per column, in one statement.
///
/// Written by hand because postgres-nio (1.33) encodes `[Element]` but not `[Element?]`: its array encoder never
/// sets the has-nulls flag. This writes the same binary array format (`array_recv`: dimensions, flags, element
/// type, length and lower bound, then each element's length and bytes) with a length of -1 for each `nil`.
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable,
    Sendable
where Element: Sendable {
    var elements: [Element?]

    init(_ elements: [Element?]) { self.elements = elements }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        buffer.writeInteger(Int32(elements.isEmpty ? 0 : 1))
        buffer.writeInteger(Int32(elements.contains { $0 == nil } ? 1 : 0))
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(Int32(1))  // the lower bound
        for element in elements {
            guard let element else {
                buffer.writeInteger(Int32(-1))
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(Int32(0))
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex)
        }
    }
}
