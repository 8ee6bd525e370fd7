import Testing

@testable import Stats

/// Text in the charts' SVG: escaped, with no control characters and no bidi overrides or isolates, which an SVG
/// `<title>` tooltip cannot isolate (a name holding U+202E showed "evil: 93 messages" reversed).
@Suite("SVG text of the charts")
struct SVGTextTests {
    @Test(arguments: [
        ("evil\u{202E}: 93 messages", "evil: 93 messages"), ("\u{2066}x\u{2069}", "x"), ("a\u{202A}b\u{202C}", "ab"),
        ("<b>&\"'", "&lt;b&gt;&amp;&quot;&apos;"), ("שלום\u{200F}", "שלום\u{200F}"), ("tab\there", "tab here"),
        ("bell\u{7}", "bell"),
    ])
    func escaped(text: String, written: String) {
        #expect(SVGDocument.escape(text) == written)
    }

    @Test func aTooltipKeepsNoOverride() {
        var svg = SVGDocument(width: 100, height: 100)
        svg.rect(x: 0, y: 0, width: 10, height: 10, fill: "#000", className: "bar", tooltip: "evil\u{202E}: 93")
        let rendered = svg.render(name: "t", title: "T\u{2067}")
        #expect(
            !rendered.unicodeScalars.contains {
                (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
            })
        #expect(rendered.contains("<title>evil: 93</title>"))
    }
}
