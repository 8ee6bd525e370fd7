import Foundation
import QuickBlox
import Testing

@Suite("Filter")
struct FilterTests {
    @Test(arguments: [
        ("type", "type", FilterOperator.equal),
        ("sender_id[in]", "sender_id", .in),
        ("last_message_date_sent[nin]", "last_message_date_sent", .notIn),
        ("updated_at[lt]", "updated_at", .lessThan),
        ("updated_at[lte]", "updated_at", .lessThanOrEqual),
        ("date_sent[gt]", "date_sent", .greaterThan),
        ("date_sent[gte]", "date_sent", .greaterThanOrEqual),
        ("_id[ne]", "_id", .notEqual),
        ("occupants_ids[all]", "occupants_ids", .all),
        ("name[or]", "name", .or),
        ("message[ctn]", "message", .contains),
        ("data[class_name]", "data[class_name]", .equal),
        ("data[category]", "data[category]", .equal),
        ("data[age][gt]", "data[age]", .greaterThan),
        ("data[tags][in]", "data[tags]", .in),
        ("name[unknown]", "name[unknown]", .equal),
        ("name[]", "name[]", .equal),
        ("[in]", "[in]", .equal),
        ("name[in", "name[in", .equal),
        ("name[IN]", "name[IN]", .equal),
    ])
    func readsFieldAndOperator(_ key: String, _ field: String, _ op: FilterOperator) {
        let filter = Filter(key: key, value: "v")
        #expect(filter.field == field)
        #expect(filter.op == op)
        #expect(filter.value == "v")
    }

    @Test func customDataClassNameIsAnEqualFilter() {
        let filter = Filter(key: "data[class_name]", value: "CoolDialog")
        #expect(filter == Filter("data[class_name]", .equal, "CoolDialog"))
        #expect(filter.key == "data[class_name]")
        #expect(filter.values == ["CoolDialog"])
    }

    @Test func customDataGreaterThan() {
        let filter = Filter(key: "data[age][gt]", value: "25")
        #expect(filter == Filter("data[age]", .greaterThan, "25"))
        #expect(filter.key == "data[age][gt]")
    }

    @Test(arguments: [
        ("1, 2", ["1", "2"]),
        ("91419276,91419395", ["91419276", "91419395"]),
        ("1556739654, 1556739987", ["1556739654", "1556739987"]),
        ("  1 ,  2  ,3 ", ["1", "2", "3"]),
        ("1,,2,", ["1", "2"]),
        ("7", ["7"]),
    ])
    func listValuesAreTrimmed(_ value: String, _ expected: [String]) {
        #expect(Filter(key: "sender_id[in]", value: value).values == expected)
    }

    @Test func everyListOperatorSplits() {
        for op in FilterOperator.allCases where op.takesList {
            #expect(Filter("f", op, "a, b").values == ["a", "b"], "\(op)")
        }
    }

    @Test func singleValueOperatorsDoNotSplit() {
        for op in FilterOperator.allCases where !op.takesList {
            #expect(Filter("f", op, "a, b").values == ["a, b"], "\(op)")
        }
    }

    @Test func takesList() {
        let lists = Set(FilterOperator.allCases.filter(\.takesList))
        #expect(lists == [.in, .notIn, .all, .or])
    }

    @Test func operatorRawValuesAreTheWireNames() {
        let wireNames = ["", "lt", "lte", "gt", "gte", "ne", "in", "nin", "all", "or", "ctn"]
        #expect(FilterOperator.allCases.map(\.rawValue) == wireNames)
    }

    @Test func listInitializerJoinsWithCommas() {
        let filter = Filter("sender_id", .in, ["34", "45"])
        #expect(filter.value == "34,45")
        #expect(filter.key == "sender_id[in]")
        #expect([filter.queryItem.0, filter.queryItem.1] == ["sender_id[in]", "34,45"])
    }

    @Test func equalFilterHasABareKey() {
        let filter = Filter("type", .equal, "3")
        #expect(filter.op == .equal)
        #expect(filter.key == "type")
        #expect([filter.queryItem.0, filter.queryItem.1] == ["type", "3"])
    }

    @Test(arguments: FilterOperator.allCases)
    func keyRoundTrips(_ op: FilterOperator) {
        for field in ["date_sent", "_id", "data[age]", "data[class_name]"] {
            let filter = Filter(field, op, "1,2")
            #expect(Filter(key: filter.key, value: filter.value) == filter, "\(filter.key)")
        }
    }

    @Test func parsesADecodedQueryString() {
        let query = "chat_dialog_id=abc&sender_id%5Bin%5D=1%2C%202&data%5Bage%5D%5Bgt%5D=25&message%5Bctn%5D=hi+there"
        let filters = QueryString.parse(query).map { Filter(key: $0.0, value: $0.1) }
        #expect(
            filters == [
                Filter("chat_dialog_id", .equal, "abc"),
                Filter("sender_id", .in, "1, 2"),
                Filter("data[age]", .greaterThan, "25"),
                Filter("message", .contains, "hi there"),
            ])
        #expect(filters[1].values == ["1", "2"])
    }

    @Test func operatorIsCodableAsItsRawValue() throws {
        let data = try JSONEncoder().encode([FilterOperator.greaterThanOrEqual, .equal, .contains])
        #expect(String(decoding: data, as: UTF8.self) == #"["gte","","ctn"]"#)
        #expect(try JSONDecoder().decode([FilterOperator].self, from: Data(#"["nin","all"]"#.utf8)) == [.notIn, .all])
        #expect(FilterOperator(rawValue: "xx") == nil)
    }
}
