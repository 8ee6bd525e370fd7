import QuickBlox
import Testing

@Suite("DialogType")
struct DialogTypeTests {
    @Test(arguments: [(DialogType.publicGroup, 1, "public"), (.group, 2, "group"), (.private, 3, "private")])
    func knownTypes(_ type: DialogType, _ rawValue: Int, _ name: String) {
        #expect(type.rawValue == rawValue)
        #expect(type.name == name)
        #expect(type.description == name)
        #expect(DialogType(name: name) == type)
        #expect(DialogType(name: String(rawValue)) == type)
        #expect(DialogType(name: name.uppercased()) == type)
    }

    @Test func unknownTypeIsNamedByItsNumber() {
        #expect(DialogType(rawValue: 4).name == "4")
        #expect("\(DialogType(rawValue: 0))" == "0")
    }

    @Test(arguments: ["", "4", "publicGroup", "one", " group"])
    func unknownNames(_ name: String) {
        #expect(DialogType(name: name) == nil)
    }
}
